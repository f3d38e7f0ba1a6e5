#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# VRNIC_TIMEOUT=600
# VRNIC_FULL_TIMEOUT=7200
#
# stress_unplug.sh - the network under a device goes away while data
# moves, many times over (stress_lib.sh: STRESS_ROUNDS rounds per stage).
#
#  - netdev deletion: the veth pair under both devices is deleted while
#    ib_write_bw runs between them;
#  - namespace deletion: both namespaces holding the veth ends are deleted
#    while it runs (their cleanup unregisters the veths).
#
# Each must take both vrnic devices away within STRESS_BLOCKED_SECONDS
# (30, times VRNIC_TEST_TIMEOUT_FACTOR on a slower kernel) although processes still hold user contexts on them, one of them
# idle (stress_lib.sh, st_traffic): the driver disassociates the contexts
# (ib_device_ops.disassociate_ucontext, issue 9 item 10) and the processes
# see errors, not a hang.  A driver
# that cannot disassociate blocks the unregistration until the last
# context closes; the test then reports "blocked", kills the processes to
# let the teardown finish (so the VM goes on), and fails.

# shellcheck source=selftests/stress_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/stress_lib.sh"

dp_require ib_write_bw ibv_rc_pingpong ss
trap 'st_traffic_stop; dp_cleanup' EXIT
dp_begin
dp_load vrnic || ktap_skip_all "cannot load vrnic"

# devs_gone: both devices of the round are unregistered.
devs_gone() {
	st_gone "${DP_DEV[A]}" && st_gone "${DP_DEV[B]}"
}

# unplug_round ROUND CMD...: CMD (run in the background: it may block in
# the kernel) must take both devices away with the traffic running.
unplug_round() {
	local pid rc=0

	shift
	st_topology || { echo "topology failed"; return 1; }
	st_traffic || { echo "no traffic"; return 1; }
	"$@" >"$DP_LOG/unplug" 2>&1 &
	pid=$!
	if ! st_wait "$ST_BLOCKED" devs_gone; then
		rc=1
		st_traffic_stop
		if st_wait 60 devs_gone; then
			echo "$*: devices stayed ${ST_BLOCKED}s with user contexts open, went once the processes were killed (no disassociate_ucontext?)"
		else
			echo "$*: devices still there 60s after the processes were killed"
		fi
	fi
	wait "$pid" || { echo "$* failed: $(cat "$DP_LOG/unplug")"; rc=1; }
	st_traffic_stop
	st_untopology
	return "$rc"
}

# The unplug commands run after unplug_round has built the round's
# topology: they read DP_NS/DP_IF then.
delete_netdev() {
	ip -n "${DP_NS[A]}" link delete "${DP_IF[A]}"
}

netdev_round() {
	unplug_round "$1" delete_netdev
}

delete_namespaces() {
	ip netns delete "${DP_NS[A]}" && ip netns delete "${DP_NS[B]}"
}

netns_round() {
	unplug_round "$1" delete_namespaces
}

st_stage netdev_delete_with_traffic_removes_devices netdev_round
st_stage netns_delete_with_traffic_removes_devices netns_round

ktap_finish
