#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - everything `make check` runs after the build, as one TAP stream.
#
#  1. host unit tests: ctest in build/cmake (GoogleTest cases become one TAP
#     line each, "host/<ctest name>: <Suite.Case>");
#  2. the VM selftests: selftests/vm/vm.sh check (one boot), "vm/..." lines;
#     then the files that need systemd as PID 1, in a second boot.
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
	vm_boot "" "$@"
	# The files that need systemd as PID 1 run in a boot of their own.
	if [[ -n $(systemd_tests "$@") ]]; then
		echo "# VM selftests under systemd (VRNIC_VM_INIT=systemd vm.sh check)"
		vm_boot systemd "$@"
	fi
}

# The test files marked "# VRNIC_VM_INIT=systemd" that the test globs
# (all when none) select.
systemd_tests() {
	local f base pat

	for f in "$REPO"/selftests/*.sh; do
		grep -q '^# VRNIC_VM_INIT=systemd$' "$f" || continue
		base=${f##*/}
		[[ $# -eq 0 ]] && echo "$base"
		for pat in "$@"; do
			# shellcheck disable=SC2053 # patterns are globs on purpose
			[[ $base == $pat || $base == "$pat.sh" ]] && echo "$base" && break
		done
	done
}

# vm_boot INIT [TEST...]: one boot of vm.sh check, its results relayed.
vm_boot() {
	local init=$1 pid rc=0 what="vm: selftests${1:+ ($1)}"
	shift

	exec {vmout}< <(VRNIC_VM_INIT=$init "$REPO/selftests/vm/vm.sh" check "$@")
	pid=$!
	tap_relay "" <&"$vmout"
	exec {vmout}<&-
	wait "$pid" || rc=$?
	if [[ $rc -ne 0 && $TAP_RELAY_FAILED -eq 0 ]]; then
		tap_result fail "$what" "vm.sh check exited with status $rc"
	elif [[ $TAP_RELAY_SEEN -eq 0 ]]; then
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
