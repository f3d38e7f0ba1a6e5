#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - everything `make check` runs after the build, as one TAP stream.
#
#  1. host unit tests: ctest in build/cmake (GoogleTest cases become one TAP
#     line each, "host/<ctest name>: <Suite.Case>");
#  2. the VM selftests: selftests/vm/vm.sh check, "vm/..." lines, in one
#     guest or in VRNIC_CHECK_GUESTS guests at once sharing one queue of
#     test files (a machine with two host CPUs per guest); the files that
#     need systemd as PID 1 in a boot of their own, and so each file marked
#     "# VRNIC_VM_BOOT=own" (and "# VRNIC_VM_BOOT=own-on-lockdep" when
#     VRNIC_VM_LOCKDEP=1, which debug-kernel.sh sets for its kernel).
#
# The last line is "N passed, N failed" (", N skipped" when some were).
# Exit status is non-zero on any failure, on a missing result and when the
# guest hung or crashed.  Arguments are passed to vm.sh check (test globs).
# VRNIC_CHECK_HOST=0 / VRNIC_CHECK_VM=0 leave out one half.

set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CMAKE_BUILD=${VRNIC_CMAKE_BUILD:-$REPO/build/cmake}

# shellcheck source=selftests/lib/tap.sh
. "$REPO/selftests/lib/tap.sh"

failed_extra=0

# Turn `ctest -V` output (file $1) into TAP lines: one per GoogleTest case
# ("N: [       OK ] Suite.Case (0 ms)"), plus one per ctest test that has no
# cases or failed outside them (a crash, a timeout).
# shellcheck disable=SC2094 # $log is only read
ctest_report() {
	local log=$1 line num name status st fails
	local -A cases nfail
	local re_case='^([0-9]+): \[ +(OK|FAILED|SKIPPED) +\] ([^ ]+) \([0-9]+ ms\)'
	local re_res='^ *[0-9]+/[0-9]+ +Test +#([0-9]+): +([^ ]+) \.* *(\*\*\*)?([A-Za-z][A-Za-z ]*[A-Za-z])'

	while IFS= read -r line; do
		if [[ $line =~ $re_case ]]; then
			num=${BASH_REMATCH[1]}
			case ${BASH_REMATCH[2]} in
			OK) st=ok ;;
			SKIPPED) st=skip ;;
			*)
				st=fail
				nfail[$num]=$((${nfail[$num]:-0} + 1))
				;;
			esac
			cases[$num]+="$st|${BASH_REMATCH[3]}"$'\n'
		elif [[ $line =~ $re_res ]]; then
			num=${BASH_REMATCH[1]}
			name=${BASH_REMATCH[2]}
			status=${BASH_REMATCH[4]}
			fails=${nfail[$num]:-0}
			# gtest_discover_tests names each ctest test after its case.
			while IFS='|' read -r st line; do
				[[ -n $st ]] || continue
				if [[ $line == "$name" ]]; then
					tap_result "$st" "host/$name"
				else
					tap_result "$st" "host/$name: $line"
				fi
			done <<<"${cases[$num]:-}"
			case $status in
			Passed)
				[[ -n ${cases[$num]:-} ]] || tap_result ok "host/$name"
				;;
			Skipped | Not\ Run*)
				[[ -n ${cases[$num]:-} ]] || tap_result skip "host/$name" "$status"
				;;
			*)
				if [[ $fails -eq 0 ]]; then
					grep -E "^$num: " "$log" | sed "s/^$num: //" | tap_comment 40
					tap_result fail "host/$name" "$status"
				fi
				;;
			esac
		fi
	done <"$log"
}

host_tests() {
	local log rc=0

	if [[ ! -f $CMAKE_BUILD/CTestTestfile.cmake ]]; then
		echo "# no CMake build in $CMAKE_BUILD: host unit tests not run"
		tap_result fail "host: unit tests" "build/cmake missing (run make)"
		return
	fi
	log=$(mktemp /tmp/vrnic-ctest.XXXXXX)
	echo "# host unit tests (ctest in $CMAKE_BUILD)"
	ctest --test-dir "$CMAKE_BUILD" -V --timeout 300 >"$log" 2>&1 || rc=$?
	if grep -q 'No tests were found' "$log"; then
		echo "# ctest found no tests"
	else
		ctest_report "$log"
	fi
	if [[ $rc -ne 0 ]] && ! grep -Eq '^ *[0-9]+/[0-9]+ +Test +#' "$log"; then
		tap_comment 40 <"$log"
		tap_result fail "host: ctest" "exit status $rc"
	fi
	rm -f "$log"
}

vm_tests() {
	local guests=${VRNIC_CHECK_GUESTS:-1}

	echo "# VM selftests (selftests/vm/vm.sh check)"
	# cc_bottleneck's rate plots take a TCG guest half a minute to draw;
	# make cc-demo draws them (its results are skipped here, not lost).
	export CC_PLOTS=${CC_PLOTS:-0}
	# Test files that fail for a known, tracked reason are not run in a
	# full check (guest.sh leaves them out); say so, with the reason.
	if [[ $# -eq 0 && -f $REPO/selftests/known-failures ]]; then
		local name reason
		while read -r name reason; do
			[[ -n $name && $name != \#* ]] || continue
			tap_result skip "vm/$name" "known failure: $reason"
		done <"$REPO/selftests/known-failures"
	fi
	if ! [[ $guests =~ ^[1-8]$ ]]; then
		tap_result fail "vm: selftests" "VRNIC_CHECK_GUESTS must be 1 to 8, not '$guests'"
		failed_extra=1
	elif [[ $guests -eq 1 ]]; then
		vm_boot "" "" "$@"
		own_boots "$@"
		# The files that need systemd as PID 1 run in a boot of their own.
		if [[ -n $(systemd_tests "$@") ]]; then
			echo "# VM selftests under systemd (VRNIC_VM_INIT=systemd vm.sh check)"
			vm_boot systemd "" "$@"
		fi
	else
		vm_shared "$guests" "$@"
	fi
}

# vm_shared N [TEST...]: N guests at once, taking the test files from one
# queue (vm.sh VRNIC_VM_CLAIMS).  Each guest has two vCPUs and keeps them
# busy (perftest and the drivers poll), so this pays only with two host
# CPUs per guest: on two host CPUs, two guests took as long as one and
# rate checks failed (selftests/vm/README.md).  The first guest's results
# come first, the others' follow.  The last guest boots the systemd files
# first, then joins the queue.
vm_shared() {
	local guests=$1 claims tmp i pid rc name
	local -a pids=()
	shift

	mkdir -p "$REPO/build/vm"
	claims=$(mktemp -d "$REPO/build/vm/claims.XXXXXX")
	tmp=$(mktemp -d /tmp/vrnic-check.XXXXXX)
	for ((i = 2; i <= guests; i++)); do
		(
			if [[ $i -eq $guests && -n $(systemd_tests "$@") ]]; then
				rc=0
				VRNIC_VM_INIT=systemd "$REPO/selftests/vm/vm.sh" check "$@" \
					>"$tmp/systemd.out" 2>&1 || rc=$?
				echo "$rc" >"$tmp/systemd.rc"
			fi
			rc=0
			VRNIC_VM_CLAIMS=$claims "$REPO/selftests/vm/vm.sh" check "$@" \
				>"$tmp/$i.out" 2>&1 || rc=$?
			echo "$rc" >"$tmp/$i.rc"
		) &
		pids+=("$!")
	done
	vm_boot "" "$claims" "$@"
	own_boots "$@"
	for pid in "${pids[@]}"; do
		wait "$pid"
	done
	if [[ -f $tmp/systemd.rc ]]; then
		echo "# VM selftests under systemd (VRNIC_VM_INIT=systemd vm.sh check)"
		tap_relay "" <"$tmp/systemd.out"
		vm_verdict "vm: selftests (systemd)" "$(cat "$tmp/systemd.rc")" ""
	fi
	for ((i = 2; i <= guests; i++)); do
		echo "# VM selftests, guest $i of $guests"
		tap_relay "" <"$tmp/$i.out"
		vm_verdict "vm: selftests (guest $i)" "$(cat "$tmp/$i.rc" 2>/dev/null || echo 1)" shared
	done
	# A file no guest took: every guest died before reaching it.
	if [[ -f $claims/.list ]]; then
		while IFS= read -r name; do
			[[ -n $name && ! -d $claims/$name ]] || continue
			tap_result fail "vm/$name" "not run: every guest stopped before it"
			failed_extra=1
		done <"$claims/.list"
	fi
	rm -rf "$claims" "$tmp"
}

# marked_tests LINE [TEST...]: the test files with the comment line LINE
# that the test globs (all when none) select.
marked_tests() {
	local f base pat line=$1
	shift

	for f in "$REPO"/selftests/*.sh; do
		grep -qx -- "$line" "$f" || continue
		base=${f##*/}
		[[ $# -eq 0 ]] && echo "$base"
		for pat in "$@"; do
			# shellcheck disable=SC2053 # patterns are globs on purpose
			[[ $base == $pat || $base == "$pat.sh" ]] && echo "$base" && break
		done
	done
}

systemd_tests() {
	marked_tests '# VRNIC_VM_INIT=systemd' "$@"
}

# own_boots [TEST...]: each selected file marked "# VRNIC_VM_BOOT=own" in a
# boot of its own.  Such a file leaves state behind that another file's
# run would trip over, or trips over theirs (see the marked file).  Files
# marked "# VRNIC_VM_BOOT=own-on-lockdep" get one on a lockdep kernel only
# (VRNIC_VM_LOCKDEP=1); guest.sh leaves them out of the main boot then.
own_boots() {
	local name
	local -a marks=('# VRNIC_VM_BOOT=own')

	[[ ${VRNIC_VM_LOCKDEP:-0} == 1 ]] &&
		marks+=('# VRNIC_VM_BOOT=own-on-lockdep')
	while IFS= read -r name; do
		[[ -n $name ]] || continue
		echo "# VM selftests: $name in a boot of its own"
		vm_boot "" "" "$name"
	done < <(for m in "${marks[@]}"; do marked_tests "$m" "$@"; done)
}

# vm_boot INIT CLAIMS [TEST...]: one boot of vm.sh check, its results
# relayed as they come; CLAIMS, when set, is the queue it shares.
vm_boot() {
	local init=$1 claims=$2 pid rc=0 what="vm: selftests${1:+ ($1)}"
	shift 2

	exec {vmout}< <(VRNIC_VM_INIT=$init VRNIC_VM_CLAIMS=$claims \
		"$REPO/selftests/vm/vm.sh" check "$@")
	pid=$!
	tap_relay "" <&"$vmout"
	exec {vmout}<&-
	wait "$pid" || rc=$?
	vm_verdict "$what" "$rc" "${claims:+shared}"
}

# vm_verdict WHAT STATUS [shared]: after tap_relay of one boot, fail it if
# vm.sh failed without a failed result to show for it, or if it reported
# nothing (which a guest sharing a queue may: the others took every file).
vm_verdict() {
	local what=$1 rc=$2 shared=${3:-}

	if [[ $rc -ne 0 && $TAP_RELAY_FAILED -eq 0 ]]; then
		tap_result fail "$what" "vm.sh check exited with status $rc"
	elif [[ $TAP_RELAY_SEEN -eq 0 && -z $shared ]]; then
		tap_result fail "$what" "no results from the VM"
	fi
	[[ $rc -eq 0 ]] || failed_extra=1
}

main() {
	local rc=0

	tap_begin
	[[ ${VRNIC_CHECK_HOST:-1} == 0 ]] || host_tests
	[[ ${VRNIC_CHECK_VM:-1} == 0 ]] || vm_tests "$@"
	tap_end || rc=1
	[[ $failed_extra -eq 0 ]] || rc=1
	return "$rc"
}

main "$@"; exit $?
