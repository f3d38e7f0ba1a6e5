#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# VRNIC_TIMEOUT=600
#
# cc_pfc.sh - received PFC (802.1Qbb) and PAUSE (802.3x) frames hold
# vrnic's requester, only for enabled priorities, and a storm does not
# stall it (kmod/pfc.c, docs/cc.md).
#
# Two vrnic devices on a veth pair (A in ns_a, B in ns_b); ib_write_bw
# streams 4 KiB WRITEs from A to B on priority 0 (SL 0, trust pcp).  From
# B's side of the veth, selftests/lib/pfc_send.py sends MAC control frames
# to A.  A quantum at the veth's 10 Gb/s is 51.2 ns, so a frame pauses for
# at most 3.4 ms, below what TCG can show: the test has vrnic time quanta
# at 10 Mb/s (module parameter pfc_quanta_mbps), 51.2 us each, and sends
# 40000-quanta (2 s) frames every 500 ms.  A's tx_packets
# rate, sampled over one second, is compared with the rate just before
# (ratios, never absolute times: this runs under TCG):
#  - PFC for priority 0 with pfc_en 0 (and the storm guard raised): the
#    rate falls below 1/5, rx_prio0_pause counts the frames, and the flow
#    resumes afterwards; a 7.7 s pause ended early by XON (quanta 0) lets
#    the flow go on at once;
#  - the same frames with priority 0 not in pfc_en: ignored
#    (rx_pause_ignored), the flow goes on;
#  - 802.3x PAUSE with PFC off: holds the flow like PFC;
#  - a storm (frames for longer than pfc_storm_ms, default 100 ms): the
#    guard trips (rx_pause_storm_events) and the flow goes on during it;
#  - MAC control frames with an empty class vector or an unknown opcode:
#    counted as ignored.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

REPO=$(cd "$(dirname "$0")/.." && pwd)
PFC_SEND="$REPO/selftests/lib/pfc_send.py"
STORM=/sys/module/vrnic/parameters/pfc_storm_ms
QUANTA_MBPS=/sys/module/vrnic/parameters/pfc_quanta_mbps
PORT=18615

ktap_header
ktap_require_vm
ktap_require_cmd ip rdma rdmactl ib_write_bw python3 ss bc
[[ -w $STORM ]] || ktap_skip_all "vrnic not loaded (no $STORM)"

storm_default=$(cat "$STORM")
defer eval "echo $storm_default > $STORM"
defer eval "echo 0 > $QUANTA_MBPS"
echo 10 >"$QUANTA_MBPS"
veth_setup || ktap_bail "no veth pair"
run_stage "vrnic devices on the veth pair" \
	eval "in_a rdma link add pfc_a type vrnic netdev $IF_A && in_b rdma link add pfc_b type vrnic netdev $IF_B" ||
	ktap_bail "no devices"
defer in_a rdma link delete pfc_a
defer in_b rdma link delete pfc_b

# counter NAME: a port counter of pfc_a (hw-stats in sysfs: cheap to read,
# so that the sampling windows below are what they say).
counter() {
	cat "/sys/class/infiniband/pfc_a/ports/1/hw_counters/$1"
}

# rate: request packets pfc_a sent in one second.
rate() {
	local a b

	a=$(counter tx_packets)
	sleep 1
	b=$(counter tx_packets)
	echo $((b - a))
}

# A long WRITE stream from A to B, stopped at exit.
in_b ib_write_bw -d pfc_b -x 1 -p "$PORT" -s 4096 -n 100000000 >/dev/null 2>&1 &
defer kill $! 2>/dev/null
wait_for 60 tcp_listening "$NS_B" "$PORT" || ktap_bail "ib_write_bw server did not start"
in_a ib_write_bw -d pfc_a -x 1 -p "$PORT" -s 4096 -n 100000000 "$IP_B" >/dev/null 2>&1 &
defer kill $! 2>/dev/null
wait_for 60 eval '[[ $(counter tx_packets) -gt 1000 ]]' || ktap_bail "no traffic from A"

# seen: MAC control frames pfc_a has seen so far, whatever it did with them.
seen() {
	cat /sys/class/infiniband/pfc_a/ports/1/hw_counters/rx_prio[0-7]_pause \
		/sys/class/infiniband/pfc_a/ports/1/hw_counters/rx_pause_ignored \
		/sys/class/infiniband/pfc_a/ports/1/hw_counters/rx_pause_storm_events |
		paste -sd+ | bc
}

# frames KIND VECTOR QUANTA INTERVAL_MS SECONDS: send them from B's end in
# the background; returns once pfc_a sees them arrive (Python takes a while
# to start under TCG).
frames() {
	local s0

	s0=$(seen)
	in_b python3 "$PFC_SEND" "$IF_B" "$1" "$2" "$3" "$4" "$5" >/dev/null &
	SENDER=$!
	wait_for 30 eval '[[ $(seen) -gt $s0 ]]'
}

# held NAME: the flow must be (nearly) stopped while frames arrive.
held() {
	local before during

	before=$(rate)
	frames "$@"
	during=$(rate)
	wait "$SENDER"
	# The last frame still holds the flow for its quanta after the
	# sender is done (40000 quanta at 10 Mb/s: 2.05 s): let it end, so
	# that what comes next measures a flowing stream.
	sleep 3
	ktap_comment "$NAME: tx packets/s before $before, during $during"
	[[ $before -gt 0 && $((during * 5)) -lt $before ]]
}

# flowing NAME: the flow must go on while frames arrive.
flowing() {
	local before during

	before=$(rate)
	frames "$@"
	during=$(rate)
	wait "$SENDER"
	ktap_comment "$NAME: tx packets/s before $before, during $during"
	[[ $before -gt 0 && $((during * 4)) -gt $before ]]
}

echo 10000 >"$STORM"
in_a rdmactl qos set pfc_a pfc 0 >/dev/null || ktap_bail "rdmactl qos set"
p0=$(counter rx_prio0_pause)
NAME=pfc_holds_enabled_priority
held pfc 0x01 40000 500 3
ktap_result "$NAME" $?
ktap_result "rx_prio0_pause counts the frames" $(($(counter rx_prio0_pause) > p0 ? 0 : 1))
ktap_result "rx_prio0_pause_duration moved" $(($(counter rx_prio0_pause_duration) > 0 ? 0 : 1))
after=$(rate)
ktap_comment "after the pause: $after packets/s"
ktap_result "flow resumes after the pause" $((after > 0 ? 0 : 1))

# One long pause (15000 quanta at 1 Mb/s: 7.7 s, within the guard's 10 s),
# then XON: the flow must resume long before the pause would end.
echo 1 >"$QUANTA_MBPS"
frames pfc 0x01 15000 0 0
paused=$(rate)
in_b python3 "$PFC_SEND" "$IF_B" pfc 0x01 0 0 0 >/dev/null
resumed=$(rate)
wait "$SENDER"
echo 10 >"$QUANTA_MBPS"
ktap_comment "long pause: $paused packets/s; after XON: $resumed packets/s"
ktap_result "xon_resumes_before_the_pause_ends" \
	$((paused * 5 < resumed ? 0 : 1))

ign=$(counter rx_pause_ignored)
NAME=pfc_for_disabled_priority_ignored
flowing pfc 0x02 20000 500 3
ktap_result "$NAME" $?
ktap_result "rx_pause_ignored counts them" $(($(counter rx_pause_ignored) > ign ? 0 : 1))

in_a rdmactl qos set pfc_a pfc none >/dev/null || ktap_bail "rdmactl qos set"
NAME=pause_holds_when_pfc_off
held pause - 40000 500 3
ktap_result "$NAME" $?

in_a rdmactl qos set pfc_a pfc 0 >/dev/null
NAME=pause_ignored_when_pfc_on
ign=$(counter rx_pause_ignored)
flowing pause - 20000 500 3
ktap_result "$NAME" $?
ktap_result "link-level pause counted as ignored" $(($(counter rx_pause_ignored) > ign ? 0 : 1))

echo 100 >"$STORM"
storms=$(counter rx_pause_storm_events)
NAME=storm_guard_keeps_the_flow_going
flowing pfc 0x01 20000 500 3
ktap_result "$NAME" $?
ktap_result "rx_pause_storm_events counted" $(($(counter rx_pause_storm_events) > storms ? 0 : 1))

ign=$(counter rx_pause_ignored)
in_b python3 "$PFC_SEND" "$IF_B" raw 0101 - - - >/dev/null
in_b python3 "$PFC_SEND" "$IF_B" raw 0202000100ff - - - >/dev/null
in_b python3 "$PFC_SEND" "$IF_B" raw 01010000ffff - - - >/dev/null
sleep 0.5
ktap_result "empty-vector and unknown-opcode frames ignored" \
	$(($(counter rx_pause_ignored) >= ign + 3 ? 0 : 1))
ktap_result "flow still running" $(($(rate) > 0 ? 0 : 1))

ktap_finish
