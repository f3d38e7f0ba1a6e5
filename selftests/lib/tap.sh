# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# tap.sh - the one TAP writer of vrnic's tests: numbered results, the plan,
# comments, and the relay that turns many TAP/KTAP streams into one.
#
# Shell selftests use it through lib/ktap.sh (their helpers); the runners
# on the host (selftests/vm/vm.sh for VM results, selftests/check.sh for
# everything) use it directly.  Results are numbered as they are emitted;
# tap_end prints the plan and the closing "N passed, N failed[, N skipped]"
# line and returns non-zero if anything failed or nothing ran.

TAP_N=0
TAP_PASS=0
TAP_FAIL=0
TAP_SKIP=0

tap_begin() {
	echo "TAP version 13"
}

# tap_result {ok|fail|skip} NAME [REASON]: one result line.  A "#" in NAME
# or REASON would start a directive, so it becomes "_".
tap_result() {
	local status=$1 name=${2//#/_} reason=${3:-}

	reason=${reason//#/_}
	TAP_N=$((TAP_N + 1))
	case $status in
	ok)
		TAP_PASS=$((TAP_PASS + 1))
		echo "ok $TAP_N $name"
		;;
	skip)
		TAP_SKIP=$((TAP_SKIP + 1))
		echo "ok $TAP_N $name # SKIP${reason:+ $reason}"
		;;
	*)
		TAP_FAIL=$((TAP_FAIL + 1))
		echo "not ok $TAP_N $name${reason:+ # $reason}"
		;;
	esac
}

# Print stdin as TAP comments, at most $1 lines (the last ones).
tap_comment() {
	tail -n "${1:-80}" | sed 's/^/#   /'
}

tap_end() {
	echo "1..$TAP_N"
	if [[ $TAP_SKIP -gt 0 ]]; then
		echo "$TAP_PASS passed, $TAP_FAIL failed, $TAP_SKIP skipped"
	else
		echo "$TAP_PASS passed, $TAP_FAIL failed"
	fi
	[[ $TAP_FAIL -eq 0 && $TAP_N -gt 0 ]]
}

# tap_relay PREFIX: re-emit the top-level results of a TAP/KTAP stream read
# from stdin under our numbering, with PREFIX before each name.  Comments and
# other lines pass through; plans and summary lines are dropped.  Sets
# TAP_RELAY_SEEN (results) and TAP_RELAY_FAILED (failures) and
# TAP_RELAY_PLAN (the stream's own plan, or empty).  A result without a
# name (6.1's kselftest harness prints "ok N # SKIP reason" for a skipped
# case) takes the one of the harness's "#  RUN  NAME ..." line before it.
tap_relay() {
	local prefix=$1 line st desc name directive run=

	TAP_RELAY_SEEN=0
	TAP_RELAY_FAILED=0
	TAP_RELAY_PLAN=
	while IFS= read -r line; do
		line=${line%$'\r'}
		if [[ $line =~ ^(ok|not\ ok)\ [0-9]+(\ -)?\ ?(.*)$ ]]; then
			st=${BASH_REMATCH[1]}
			desc=${BASH_REMATCH[3]}
			name=${desc%%#*}
			name=${name% }
			name=${name% }
			[[ -n $name ]] || name=$run
			run=
			directive=
			[[ $desc == *#* ]] && directive=${desc#*#}
			directive=${directive# }
			TAP_RELAY_SEEN=$((TAP_RELAY_SEEN + 1))
			if [[ ${directive^^} == SKIP* ]]; then
				directive=${directive:4}
				tap_result skip "$prefix$name" "${directive# }"
			elif [[ $st == ok || ${directive^^} == TODO* ]]; then
				tap_result ok "$prefix$name"
			else
				TAP_RELAY_FAILED=$((TAP_RELAY_FAILED + 1))
				tap_result fail "$prefix$name" "$directive"
			fi
		elif [[ $line =~ ^1\.\.([0-9]+) ]]; then
			TAP_RELAY_PLAN=${BASH_REMATCH[1]}
		elif [[ $line =~ ^(TAP|KTAP)\ version ]] ||
			[[ $line =~ ^[0-9]+\ passed,\ [0-9]+\ failed ]]; then
			continue
		elif [[ $line == \#* ]]; then
			[[ $line =~ ^#\ +RUN\ +([^ ]+)\ \.\.\.$ ]] && run=${BASH_REMATCH[1]}
			echo "$line"
		elif [[ -n $line ]]; then
			echo "# $line"
		fi
	done
}

# tap_vm_file NAME DIR CRASH CONSOLE_LOG: report one VM test file from its
# result directory DIR (see guest.sh); CRASH says how the guest ended if it
# did not finish, and then the file it was running gets the kernel's dump
# of the hang from CONSOLE_LOG.
tap_vm_file() {
	local name=$1 dir=$2 crash=$3 console=$4 rc notes reason status

	if [[ ! -f $dir/rc ]]; then
		if [[ -f $dir/started ]]; then
			[[ -f $dir/out ]] && tap_relay "vm/$name: " <"$dir/out"
			tap_hang_dump "$console"
			tap_result fail "vm/$name" "${crash:-guest crashed or hung during this test}"
		else
			tap_result fail "vm/$name" "not run: the guest died earlier"
		fi
		return
	fi

	rc=$(cat "$dir/rc")
	if [[ -f $dir/out ]]; then
		tap_relay "vm/$name: " <"$dir/out"
	else
		tap_relay "vm/$name: " </dev/null
	fi
	notes=$(paste -sd';' "$dir/notes" 2>/dev/null)
	reason=
	status=ok
	if [[ -n $notes ]]; then
		status=fail
		reason=$notes
	elif [[ $rc -eq 4 && $TAP_RELAY_FAILED -eq 0 ]]; then
		# KSFT_SKIP: the test found a prerequisite missing.
		status=skip
		reason="exit status 4 (KSFT_SKIP)"
	elif [[ $rc -ne 0 ]]; then
		status=fail
		reason="exit status $rc"
	elif [[ -n $TAP_RELAY_PLAN && $TAP_RELAY_SEEN -lt $TAP_RELAY_PLAN ]]; then
		status=fail
		reason="$TAP_RELAY_SEEN of $TAP_RELAY_PLAN planned results"
	elif [[ $TAP_RELAY_SEEN -gt 0 && $TAP_RELAY_FAILED -gt 0 ]]; then
		status=fail
		reason="$TAP_RELAY_FAILED failed"
	fi
	if [[ $status == fail && -s $dir/dmesg-bad ]]; then
		echo "# --- vm/$name kernel reports (full dmesg: $dir/dmesg) ---"
		tap_comment 40 <"$dir/dmesg-bad"
	fi
	tap_result "$status" "vm/$name" "$reason"
}

# tap_hang_dump CONSOLE_LOG: what the kernel of a guest that timed out printed
# at the end (vm.sh hang_dump: the blocked tasks, each CPU's backtrace), as
# comments.
tap_hang_dump() {
	local dump

	dump=$(sed -n '/sysrq: Show Blocked State/,$p' "$1" 2>/dev/null | head -n 400)
	[[ -n $dump ]] || return 0
	echo "# --- the hung guest's kernel: blocked tasks and CPU backtraces ---"
	tap_comment 400 <<<"$dump"
}

# tap_vm_report RESULTS_DIR HUNG_MESSAGE CONSOLE_LOG [shared]: the whole VM
# run.  "shared": the guest took files from a queue shared with other
# guests (vm.sh VRNIC_VM_CLAIMS), so having run none is no failure.
tap_vm_report() {
	local res=$1 hung=$2 console=$3 shared=${4:-} name crash="" rc=0

	tap_begin
	if [[ ! -f $res/plan ]]; then
		echo "# the guest did not reach the test runner; console: $console"
		{ grep -E -A 20 'vm-init:|Kernel panic|BUG:|Oops' "$console" 2>/dev/null || true; } |
			tap_comment 40
		tap_result fail "vm: boot" "${hung:-guest did not start the tests}"
		tap_end
		return 1
	fi
	if [[ -n $hung ]] || ! [[ -f $res/run.rc ]]; then
		crash="${hung:-the guest crashed}; console: $console"
		{ grep -E -B 2 -A 30 'Kernel panic|BUG:|Oops|general protection' "$console" 2>/dev/null || true; } |
			head -n 60 | tap_comment 60
	fi
	while IFS= read -r name; do
		[[ -n $name ]] || continue
		tap_vm_file "$name" "$res/tests/$name" "$crash" "$console"
	done <"$res/plan"
	if [[ -s $res/plan ]]; then
		tap_end || rc=1
	elif [[ -n $shared ]]; then
		echo "# this guest found no file left in the shared queue"
		tap_end || true
	else
		echo "# no VM test files found"
		tap_end || rc=1
	fi
	[[ -z $crash ]] || rc=1
	return "$rc"
}
