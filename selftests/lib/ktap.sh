# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# ktap.sh - helpers for vrnic's shell selftests, which print KTAP through
# lib/tap.sh.
#
#	#!/bin/bash
#	. "$(dirname "$0")/lib/ktap.sh"
#	ktap_header
#	ktap_require_cmd rdma ibv_devices
#	veth_setup                            # ns_a <-> ns_b, 10.111.0.{1,2}
#	run_stage "vrnic0 created" in_a rdma link add vrnic0 type vrnic netdev "$IF_A"
#	defer rdma link delete vrnic0
#	expect_fail "second device on the same netdev rejected" \
#		in_a rdma link add vrnic9 type vrnic netdev "$IF_A"
#	ktap_finish
#
# Results are top-level "ok N name" lines; the plan comes from ktap_plan or,
# if that was not called, is printed by ktap_finish.  Commands' output is
# shown as "# " comments when a stage fails (always with KTAP_VERBOSE=1).
# Everything registered with defer runs at exit, last first.

# shellcheck source=selftests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
# shellcheck source=selftests/lib/gid.sh
. "$(dirname "${BASH_SOURCE[0]}")/gid.sh"

KTAP_PLANNED=
KTAP_DEFERRED=()
KTAP_VERBOSE=${KTAP_VERBOSE:-0}
KTAP_OUT=$(mktemp /tmp/ktap.XXXXXX)

# Exit codes understood by kselftest runners.
KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

ktap_header() {
	tap_begin
}

# ktap_plan N: announce the number of results (optional).
ktap_plan() {
	KTAP_PLANNED=$1
	echo "1..$1"
}

ktap_comment() {
	echo "# $*"
}

# Print the last stage's output as comments.
ktap_dump() {
	sed 's/^/#   /' "$KTAP_OUT"
}

ktap_ok() {
	tap_result ok "$*"
}

# ktap_fail NAME [REASON]
ktap_fail() {
	tap_result fail "$1" "${2:-}"
}

# ktap_skip NAME REASON
ktap_skip() {
	tap_result skip "$1" "${2:-}"
}

# ktap_result NAME STATUS: ok if STATUS is 0.
ktap_result() {
	if [[ $2 -eq 0 ]]; then
		ktap_ok "$1"
	else
		ktap_fail "$1" "${3:-}"
	fi
}

# Run CMD, its stdout and stderr into $KTAP_OUT; return its status.
ktap_run() {
	"$@" >"$KTAP_OUT" 2>&1
}

# run_stage NAME CMD...: CMD must succeed.  Returns CMD's status, so a
# test can stop early: run_stage "..." cmd || ktap_bail "...".
run_stage() {
	local name=$1 rc=0
	shift

	ktap_run "$@" || rc=$?
	if [[ $rc -eq 0 ]]; then
		[[ $KTAP_VERBOSE == 0 ]] || ktap_dump
		ktap_ok "$name"
	else
		ktap_comment "\$ $*"
		ktap_dump
		ktap_fail "$name" "exit status $rc"
	fi
	return "$rc"
}

# expect_ok is run_stage under the name that pairs with expect_fail.
expect_ok() {
	run_stage "$@"
}

# expect_fail NAME CMD...: CMD must fail (and not be killed by a signal).
expect_fail() {
	local name=$1 rc=0
	shift

	ktap_run "$@" || rc=$?
	if [[ $rc -ne 0 && $rc -lt 128 ]]; then
		[[ $KTAP_VERBOSE == 0 ]] || ktap_dump
		ktap_ok "$name"
		return 0
	fi
	ktap_comment "\$ $*"
	ktap_dump
	ktap_fail "$name" "exit status $rc, expected a failure"
	return 1
}

# expect_fail_msg NAME REGEX CMD...: CMD must fail and print a line matching
# the extended REGEX (an errno string, an extack message).
expect_fail_msg() {
	local name=$1 re=$2 rc=0
	shift 2

	ktap_run "$@" || rc=$?
	if [[ $rc -ne 0 && $rc -lt 128 ]] && grep -Eq -- "$re" "$KTAP_OUT"; then
		[[ $KTAP_VERBOSE == 0 ]] || ktap_dump
		ktap_ok "$name"
		return 0
	fi
	ktap_comment "\$ $*"
	ktap_dump
	ktap_fail "$name" "exit status $rc, expected a failure matching /$re/"
	return 1
}

# expect_output NAME REGEX CMD...: CMD must succeed and print REGEX.
expect_output() {
	local name=$1 re=$2 rc=0
	shift 2

	ktap_run "$@" || rc=$?
	if [[ $rc -eq 0 ]] && grep -Eq -- "$re" "$KTAP_OUT"; then
		[[ $KTAP_VERBOSE == 0 ]] || ktap_dump
		ktap_ok "$name"
		return 0
	fi
	ktap_comment "\$ $*"
	ktap_dump
	ktap_fail "$name" "exit status $rc, expected output matching /$re/"
	return 1
}

# expect_num NAME VALUE OP REF: a numeric comparison (test's -eq, -gt, ...)
# as a result; a missing value (counter absent) fails.
expect_num() {
	local name=$1 v=$2 op=$3 ref=$4

	if [[ ! $v =~ ^-?[0-9]+$ || ! $ref =~ ^-?[0-9]+$ ]]; then
		ktap_fail "$name" "no number: '$v' $op '$ref' (counter missing?)"
		return 1
	fi
	if test "$v" "-$op" "$ref"; then
		ktap_ok "$name"
		return 0
	fi
	ktap_fail "$name" "$v, expected $op $ref"
	return 1
}

# defer CMD...: run CMD at exit (LIFO), for cleanup.
defer() {
	local q

	printf -v q '%q ' "$@"
	KTAP_DEFERRED+=("$q")
}

ktap_cleanup() {
	local i

	for ((i = ${#KTAP_DEFERRED[@]} - 1; i >= 0; i--)); do
		eval "${KTAP_DEFERRED[i]}" >/dev/null 2>&1 || true
	done
	KTAP_DEFERRED=()
	rm -f "$KTAP_OUT"
}
trap ktap_cleanup EXIT

# Print the totals and exit: 0 if nothing failed, 4 if everything skipped.
ktap_finish() {
	if [[ -z $KTAP_PLANNED ]]; then
		echo "1..$TAP_N"
	elif [[ $KTAP_PLANNED -ne $TAP_N ]]; then
		ktap_comment "planned $KTAP_PLANNED results, printed $TAP_N"
		TAP_FAIL=$((TAP_FAIL + 1))
	fi
	echo "# Totals: pass:$TAP_PASS fail:$TAP_FAIL xfail:0 xpass:0 skip:$TAP_SKIP error:0"
	if [[ $TAP_FAIL -gt 0 ]]; then
		exit "$KSFT_FAIL"
	elif [[ $TAP_PASS -eq 0 && $TAP_SKIP -gt 0 ]]; then
		exit "$KSFT_SKIP"
	fi
	exit "$KSFT_PASS"
}

# ktap_bail REASON: stop here, counting what ran so far.
ktap_bail() {
	ktap_comment "bailing out: $*"
	ktap_finish
}

# ktap_skip_all REASON: the whole test cannot run here.
ktap_skip_all() {
	echo "1..0 # SKIP $*"
	exit "$KSFT_SKIP"
}

# ktap_require_cmd CMD...: skip the whole test if a tool is missing.
ktap_require_cmd() {
	local c

	for c in "$@"; do
		command -v "$c" >/dev/null || ktap_skip_all "$c not installed"
	done
}

# ktap_require_vm: skip unless running inside the vrnic test VM (these
# tests change network and RDMA state of the machine they run on).
ktap_require_vm() {
	[[ ${VRNIC_IN_VM:-0} == 1 ]] || ktap_skip_all "run me in the VM: selftests/vm/vm.sh check ${0##*/}"
}

# ktap_debug_kernel: true on debug-kernel.sh's kernel (its release ends
# in the CONFIG_LOCALVERSION of selftests/vm/debug-kernel.config), where
# everything runs many times slower: for checks that are rates or
# timings, not detectors.
ktap_debug_kernel() {
	[[ $(uname -r) == *-vrnic-debug ]]
}

# uapi_define NAME: the value of "#define NAME VALUE" in uapi/vrnic.h, so
# that a test uses the API's constants instead of copies of them; fails
# if NAME is not a number there.
uapi_define() {
	local v

	v=$(awk -v n="$1" '$1 == "#define" && $2 == n { print $3 }' \
		"$(dirname "${BASH_SOURCE[0]}")/../../uapi/vrnic.h")
	[[ $v =~ ^(0x[0-9a-fA-F]+|[0-9]+)$ ]] || return 1
	echo "$((v))"
}

# Two "hosts": network namespaces $NS_A and $NS_B joined by a veth pair
# ($IF_A in A, $IF_B in B) with IPv4 $IP_A/$IP_B (/24) and IPv6
# $IP6_A/$IP6_B (/64, no DAD).  Removed at exit.  The one builder of such
# a pair: dp_lib.sh's dp_topology() sets these first, an empty NS_A or
# NS_B for an end that stays in the initial namespace (a driver that
# serves init_net only), and VETH_MTU for the pair's MTU.
NS_A=ns_a
NS_B=ns_b
IF_A=veth_a
IF_B=veth_b
IP_A=10.111.0.1
IP_B=10.111.0.2
IP6_A=fd00:111::1
IP6_B=fd00:111::2
VETH_MTU=

# in_ns NS CMD...: CMD in network namespace NS ("" for the initial one).
in_ns() {
	local ns=$1

	shift
	if [[ -n $ns ]]; then
		ip netns exec "$ns" "$@"
	else
		"$@"
	fi
}

in_a() {
	in_ns "$NS_A" "$@"
}

in_b() {
	in_ns "$NS_B" "$@"
}

veth_setup() {
	local ns mtu=() end_a=() end_b=()

	for ns in "$NS_A" "$NS_B"; do
		[[ -n $ns ]] || continue
		ip netns add "$ns" || return 1
		defer ip netns delete "$ns"
		ip -n "$ns" link set lo up
	done
	[[ -n $VETH_MTU ]] && mtu=(mtu "$VETH_MTU")
	[[ -n $NS_A ]] && end_a=(netns "$NS_A")
	[[ -n $NS_B ]] && end_b=(netns "$NS_B")
	ip link add "$IF_A" "${end_a[@]}" "${mtu[@]}" type veth \
		peer name "$IF_B" "${end_b[@]}" "${mtu[@]}" || return 1
	# An end in the initial namespace takes the pair with it.
	if [[ -z $NS_A ]]; then
		defer ip link delete "$IF_A"
	elif [[ -z $NS_B ]]; then
		defer ip link delete "$IF_B"
	fi
	in_a ip addr add "$IP_A/24" dev "$IF_A" || return 1
	in_b ip addr add "$IP_B/24" dev "$IF_B" || return 1
	in_a ip addr add "$IP6_A/64" dev "$IF_A" nodad || return 1
	in_b ip addr add "$IP6_B/64" dev "$IF_B" nodad || return 1
	in_a ip link set "$IF_A" up || return 1
	in_b ip link set "$IF_B" up
}

# vrnic_pair_setup: after veth_setup, vrnic0 on $IF_A in $NS_A and vrnic1
# on $IF_B in $NS_B (a stage of the test), deleted at exit; bails out if
# either cannot be created.
vrnic_pair_setup() {
	run_stage "vrnic0 on $IF_A ($NS_A), vrnic1 on $IF_B ($NS_B)" sh -c \
		"ip netns exec $NS_A rdma link add vrnic0 type vrnic netdev $IF_A &&
		 ip netns exec $NS_B rdma link add vrnic1 type vrnic netdev $IF_B" ||
		ktap_bail "no devices"
	defer in_a rdma link delete vrnic0
	defer in_b rdma link delete vrnic1
}

# PY_STDLIB: how to run this tree's Python helpers, which need only the
# standard library: without the site module (-S), whose .pth files (the
# distribution's and matplotlib's) cost 1.5 s of every start in a TCG
# guest, against 0.9 s for the rest of it.
PY_STDLIB=(python3 -S)
# ROCE_WIRE: lib/roce_wire.py, the RoCE capture, decoder and injector.
ROCE_WIRE=("${PY_STDLIB[@]}" "$(dirname "${BASH_SOURCE[0]}")/roce_wire.py")

# wire_serve NS IFNAME: one lib/roce_wire.py (serve) in netns NS ("" for
# this one) for the rest of the test: wire_cap_start and wire_cap_stop
# capture on IFNAME through it, and wire_check asks it rather than
# starting a Python of its own (each start costs about a second in a TCG
# guest).  It ends when the test does.
WIRE_PID=
WIRE_CMD=
WIRE_OUT=
wire_serve() {
	local d
	local -a in=()

	d=$(mktemp -d /tmp/roce_wire.XXXXXX) || return 1
	defer rm -rf "$d"
	mkfifo "$d/cmd" "$d/out" || return 1
	[[ -n $1 ]] && in=(ip netns exec "$1")
	"${in[@]}" "${ROCE_WIRE[@]}" serve "$2" <"$d/cmd" >"$d/out" 2>&1 &
	WIRE_PID=$!
	defer wire_serve_end
	exec {WIRE_CMD}>"$d/cmd" {WIRE_OUT}<"$d/out"
}

# Closing its input stops it (after writing a capture still running);
# killed if it has not after 30 s (a child of the test that still holds
# the pipe keeps it waiting).
wire_serve_end() {
	local dog

	[[ -n $WIRE_CMD ]] && exec {WIRE_CMD}>&-
	WIRE_CMD=
	{ sleep 30 && kill "$WIRE_PID"; } 2>/dev/null &
	dog=$!
	wait "$WIRE_PID"
	kill "$dog" 2>/dev/null
}

# wire_ask WORD...: send one command, quoted for its shlex.split().
wire_ask() {
	printf '%q ' "$@" >&"$WIRE_CMD" && echo >&"$WIRE_CMD"
}

# wire_cap_start PCAP: capture into PCAP until wire_cap_stop; returns once
# the socket is bound.
wire_cap_start() {
	local line=

	wire_ask start "$1" && read -r -t 60 line <&"$WIRE_OUT"
	[[ $line == started ]] && return 0
	echo "roce_wire.py start: ${line:-no answer in 60 s}"
	return 1
}

wire_cap_stop() {
	local line=

	wire_ask stop && read -r -t 120 line <&"$WIRE_OUT"
	[[ $line == stopped* ]] && return 0
	ktap_comment "roce_wire.py stop: ${line:-no answer in 120 s}"
	return 1
}

# wire_check NAME PCAP RULE...: judge the capture PCAP with
# lib/roce_wire.py (through wire_serve's, if started); each rule's verdict
# becomes a result, and a rule that gave none is a failure.
wire_check() {
	local name=$1 pcap=$2 want=0 r line
	shift 2

	for r in "$@"; do
		[[ $r == summary* ]] || want=$((want + 1))
	done
	if [[ -n $WIRE_CMD ]]; then
		wire_ask check "$name" "$pcap" "$@"
		tap_relay "" < <(while IFS= read -r -t 300 line <&"$WIRE_OUT" &&
			[[ $line != '#end' ]]; do
			printf '%s\n' "$line"
		done)
	else
		tap_relay "" < <("${ROCE_WIRE[@]}" check "$name" "$pcap" "$@" 2>&1)
	fi
	[[ $TAP_RELAY_SEEN -eq $want ]] ||
		ktap_fail "$name: wire checks ran" "$TAP_RELAY_SEEN of $want verdicts"
}

# wait_for SECONDS CMD...: poll CMD every 0.2 s until it succeeds.
wait_for() {
	local end=$((SECONDS + $1))
	shift

	until "$@"; do
		[[ $SECONDS -lt $end ]] || return 1
		sleep 0.2
	done
}

# tcp_listening NS PORT: a TCP socket listens on PORT in netns NS (""
# for the current one); for waiting on perftest/pingpong servers.
tcp_listening() {
	if [[ -n $1 ]]; then
		ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q .
	else
		ss -Hltn "sport = :$2" | grep -q .
	fi
}
