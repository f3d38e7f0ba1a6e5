#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# VRNIC_TIMEOUT=600
#
# cc_pfc.sh - received PFC (802.1Qbb) and PAUSE (802.3x) frames hold
# vrnic's requester, only for enabled priorities, and a storm does not
# stall it (kmod/pfc.c, docs/cc.md).
#
# Two vrnic devices on a veth pair (A in ns_a, B in ns_b); two ib_write_bw
# streams of 4 KiB WRITEs go from A to B: one on priority 0 (SL 0, DSCP 0)
# and one on priority 3 (SL 3, traffic class 96: DSCP 24), with trust pcp.
# A tc filter per stream on A's veth (u32 on the DSCP) counts each
# stream's packets.  From B's side of the veth, selftests/lib/pfc_send.py
# sends MAC control frames to A.  A quantum at the veth's 10 Gb/s is
# 51.2 ns, so a frame pauses for at most 3.4 ms, below what TCG can show:
# the test has vrnic time quanta at a slower speed (module parameter
# pfc_quanta_mbps).  Rates are packets per second over about two seconds,
# compared with the rate just before (ratios, never absolute times: this
# runs under TCG); frames go on until the rate is measured, however long
# the guest takes, and the pauses are timed by the tracepoints
# vrnic:vrnic_pfc_frame and vrnic:vrnic_pfc_hold:
#  - PFC for priority 0 with pfc_en 0 (frames of 2 s every 500 ms, the
#    storm guard off): priority 0 falls below 1/5 of its rate (to 0 in
#    practice) while priority 3 keeps at least a third of its own;
#    rx_prio0_pause counts the frames, rx_prio0_pause_duration the pause
#    (first frame to the end of the last, within 5%), not the sum of the
#    frames' quanta; the stream resumes afterwards;
#  - single frames of 30000 and 60000 quanta at 100 Mb/s (154 and 307 ms):
#    the stalls of priority 0's QP (frame to vrnic_pfc_hold held=0) last
#    0.9 to 1.5 times their nominal time, and the second about twice the
#    first (1.6 to 2.4);
#  - a 33.6 s pause ended early by XON (quanta 0): the stream goes on at
#    once;
#  - frames for priority 3, which is not in pfc_en: ignored
#    (rx_pause_ignored), its stream goes on;
#  - 802.3x PAUSE with PFC off holds both priorities;
#  - a storm (frames for longer than pfc_storm_ms, default 100 ms): the
#    guard trips (rx_pause_storm_events) and the stream goes on during it;
#  - MAC control frames with an empty class vector or an unknown opcode:
#    counted as ignored.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

REPO=$(cd "$(dirname "$0")/.." && pwd)
PFC_SEND="$REPO/selftests/lib/pfc_send.py"
STORM=/sys/module/vrnic/parameters/pfc_storm_ms
QUANTA_MBPS=/sys/module/vrnic/parameters/pfc_quanta_mbps
TRACING=/sys/kernel/tracing
PORT=18615

ktap_header
ktap_require_vm
ktap_require_cmd ip tc rdma rdmactl ib_write_bw python3 ss bc awk
[[ -w $STORM ]] || ktap_skip_all "vrnic not loaded (no $STORM)"
[[ -d $TRACING/events/vrnic/vrnic_pfc_hold ]] ||
	ktap_skip_all "no vrnic_pfc_hold tracepoint (no tracefs?)"

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

# One counter per stream on A's egress: u32 on the DS field (DSCP 0 is
# priority 0's stream, DSCP 24 priority 3's), RoCE only.
count_streams() {
	in_a tc qdisc add dev "$IF_A" clsact &&
		in_a tc filter add dev "$IF_A" egress pref 1 protocol ip u32 \
			match ip tos 0x00 0xfc match ip dport 4791 0xffff action pass &&
		in_a tc filter add dev "$IF_A" egress pref 2 protocol ip u32 \
			match ip tos 0x60 0xfc match ip dport 4791 0xffff action pass
}
run_stage "per-stream packet counters on $IF_A" count_streams ||
	ktap_bail "no tc counters"

# What every frame did and when each QP was held, for the stalls below and
# for a failure's diagnosis (printed at the end if anything failed).
echo >"$TRACING/trace"
for e in vrnic_pfc_frame vrnic_pfc_hold; do
	echo 1 >"$TRACING/events/vrnic/$e/enable"
	defer eval "echo 0 > $TRACING/events/vrnic/$e/enable"
done
# Whatever an earlier test left: tracing on (else no event is recorded
# and trace_marker refuses writes).
read -r tracing_was <"$TRACING/tracing_on"
defer eval "echo $tracing_was > $TRACING/tracing_on"
echo 1 >"$TRACING/tracing_on"

# counter NAME: a port counter of pfc_a (hw-stats in sysfs: cheap to read).
counter() {
	cat "/sys/class/infiniband/pfc_a/ports/1/hw_counters/$1"
}

# stream_packets: "P0 P3", packets of each stream sent so far ("tc -n":
# "ip netns exec" costs seconds in a loaded TCG guest, which would move
# the sampling window out of the pause).
stream_packets() {
	tc -n "$NS_A" -s filter show dev "$IF_A" egress | awk '
		/^filter .* pref 1 / { cur = 0 }
		/^filter .* pref 2 / { cur = 3 }
		/Sent [0-9]+ bytes [0-9]+ pkt/ { n[cur] = $4 }
		END { print n[0] + 0, n[3] + 0 }'
}

# rates: "R0 R3", each stream's packets per second, over about two
# seconds (the two streams' shares of the guest's CPU swing over one).
rates() {
	local a0 a3 b0 b3

	read -r a0 a3 < <(stream_packets)
	sleep 2
	read -r b0 b3 < <(stream_packets)
	echo "$(((b0 - a0) / 2)) $(((b3 - a3) / 2))"
}

# Two long WRITE streams from A to B, stopped at exit.
stream() {
	local port=$1

	shift
	in_b ib_write_bw -d pfc_b -x 1 -p "$port" -s 4096 -n 100000000 "$@" >/dev/null 2>&1 &
	defer kill $! 2>/dev/null
	wait_for 60 tcp_listening "$NS_B" "$port" || return 1
	in_a ib_write_bw -d pfc_a -x 1 -p "$port" -s 4096 -n 100000000 "$@" "$IP_B" >/dev/null 2>&1 &
	defer kill $! 2>/dev/null
}
stream "$PORT" || ktap_bail "ib_write_bw server did not start"
stream $((PORT + 1)) --sl=3 --tclass=96 || ktap_bail "ib_write_bw server did not start"
# both_flowing: each stream has sent since the last call's baseline.
both_flowing() {
	local r0 r3

	read -r r0 r3 < <(rates)
	[[ $r0 -gt 0 && $r3 -gt 0 ]]
}
wait_for 60 both_flowing || ktap_bail "the two streams do not both run: $(rates)"

# seen: MAC control frames pfc_a has seen so far, whatever it did with
# them (read without a fork: each costs long in a loaded TCG guest).
seen() {
	local f v n=0

	for f in /sys/class/infiniband/pfc_a/ports/1/hw_counters/rx_prio[0-7]_pause \
		/sys/class/infiniband/pfc_a/ports/1/hw_counters/rx_pause_ignored \
		/sys/class/infiniband/pfc_a/ports/1/hw_counters/rx_pause_storm_events; do
		read -r v <"$f"
		n=$((n + v))
	done
	echo "$n"
}

# One frame sender on B's end for the whole test (pfc_send.py serve): a
# Python start costs seconds in a TCG guest.  frames ARGS...: send what
# pfc_send.py's ARGS say (without IFNAME) and wait for its answer.
coproc PFC_SENDER { in_b "${PY_STDLIB[@]}" "$PFC_SEND" "$IF_B" serve 2>&1; }
defer kill "$PFC_SENDER_PID"
frames() {
	local line=

	echo "$*" >&"${PFC_SENDER[1]}"
	read -r -t 60 line <&"${PFC_SENDER[0]}"
	[[ $line == sent* || $line == started ]] && return 0
	ktap_comment "pfc_send.py $*: ${line:-no answer in 60 s}"
	return 1
}

# frames_start KIND VECTOR QUANTA INTERVAL_MS: frames from B's end, one
# every INTERVAL_MS until frames_stop (at most 120 s); returns once pfc_a
# sees them arrive.  What is measured in between always falls while they
# arrive, however long the guest takes.
frames_start() {
	local s0

	s0=$(seen)
	frames "$1" "$2" "$3" "$4" 120 &&
		wait_for 60 eval '[[ $(seen) -gt '"$s0"' ]]'
}

frames_stop() {
	frames stop
}

# under_frames HOLD0 HOLD3 NAME FRAME-ARGS...: compare each stream's rate
# while the frames arrive with its rate before.  HOLDn 1: stream n must
# nearly stop (below 1/5; a held stream sends nothing), 0: it must go on
# (at least 1/3 of its rate: the two streams' shares of the guest's CPU
# swing), -: not checked (the frames are not about it).  After the last
# frame (2 s at most) its pause still runs: wait for it to end, so that
# what comes next measures flowing streams.
under_frames() {
	local hold=([0]=$1 [3]=$2) name=$3 b0 b3 d0 d3 p ok=0

	shift 3
	echo "cc_pfc: $name" >"$TRACING/trace_marker"
	read -r b0 b3 < <(rates)
	frames_start "$@" || ok=1
	read -r d0 d3 < <(rates)
	frames_stop
	sleep 3
	ktap_comment "$name: packets/s before: prio 0 $b0, prio 3 $b3; during: prio 0 $d0, prio 3 $d3"
	local -A before=([0]=$b0 [3]=$b3) during=([0]=$d0 [3]=$d3)
	for p in 0 3; do
		case ${hold[$p]} in
		1) ((before[$p] > 0 && during[$p] * 5 < before[$p])) || ok=1 ;;
		0) ((before[$p] > 0 && during[$p] * 3 >= before[$p])) || ok=1 ;;
		esac
	done
	return "$ok"
}

# The storm guard off while a pause is meant to last.
echo 0 >"$STORM"
in_a rdmactl qos set pfc_a trust pcp pfc 0 >/dev/null || ktap_bail "rdmactl qos set"
p0=$(counter rx_prio0_pause)
d0=$(counter rx_prio0_pause_duration)
NAME=pfc_holds_enabled_priority_only
under_frames 1 0 "$NAME" pfc 0x01 40000 500
ktap_result "$NAME" $?
# 2.05 s frames 500 ms apart pause from the first frame to 2.05 s after
# the last one: the counter must count that once, not add up the frames'
# quanta (four times as much), and it must agree with the QP's stall.
n=$(($(counter rx_prio0_pause) - p0))
d=$(($(counter rx_prio0_pause_duration) - d0))
# The pause by the trace: from the first frame to the last one's end.
want=$(awk -v m="cc_pfc: $NAME" '
	index($0, m) { on = 1; next }
	/tracing_mark_write:/ { on = 0 }
	on && /: vrnic_pfc_frame: dev=pfc_a prio=0 / {
		for (i = 1; i <= NF; i++)
			if ($i == "vrnic_pfc_frame:") t = $(i - 1)
		sub(":", "", t)
		if (first == "") first = t
		last = t
	}
	END { if (first != "") printf "%d", (last - first) * 1e6 + 2048000 }' "$TRACING/trace")
ktap_comment "$n frames, rx_prio0_pause_duration grew by $d us; the pause by the trace: ${want:-?} us"
ktap_result "rx_prio0_pause counts the frames" $((n > 0 ? 0 : 1))
ktap_result "rx_prio0_pause_duration counts the pause, not the sum of the frames" \
	$((${want:-0} > 0 && d * 100 >= want * 95 && d * 100 <= want * 105 ? 0 : 1))
read -r after0 after3 < <(rates)
ktap_comment "after the pause: prio 0 $after0, prio 3 $after3 packets/s"
ktap_result "stream resumes after the pause" $((after0 > 0 ? 0 : 1))

# Stalls by the trace: frames of 30000 and 60000 quanta at 100 Mb/s
# (153.6 and 307.2 ms), 1.5 s apart, three of each.  A stall runs from the
# frame's arrival (vrnic_pfc_frame) to the moment priority 0's QP on pfc_a
# finds itself free again (vrnic_pfc_hold held=0); a stall counts only if
# the QP noticed the pause (held=1 in between).  The median of each
# length is compared.
echo 100 >"$QUANTA_MBPS"
echo "cc_pfc: stalls begin" >"$TRACING/trace_marker"
frames pfc 0x01 30000,60000,30000,60000,30000,60000 1500 0
sleep 1
echo "cc_pfc: stalls end" >"$TRACING/trace_marker"
echo 10 >"$QUANTA_MBPS"
stalls=$(awk '
	/cc_pfc: stalls begin/ { on = 1 }
	/cc_pfc: stalls end/ { on = 0 }
	on && /: vrnic_pfc_(frame|hold): dev=pfc_a / && / prio=0 / {
		for (i = 1; i <= NF; i++)
			if ($i ~ /^vrnic_pfc_(frame|hold):$/) t = $(i - 1)
		sub(":", "", t)
		if (/vrnic_pfc_frame:/) { frame = t; held = 0 }
		else if (/held=1/) held = 1
		else if (frame != "" && held) {
			printf "%d ", (t - frame) * 1000
			frame = ""
		}
	}' "$TRACING/trace")
ktap_comment "stalls of priority 0 (ms, 30000/60000 quanta alternating): $stalls"
read -r -a st <<<"$stalls"
if [[ ${#st[@]} -ge 6 ]]; then
	s30=$(printf '%s\n' "${st[0]}" "${st[2]}" "${st[4]}" | sort -n | sed -n 2p)
	s60=$(printf '%s\n' "${st[1]}" "${st[3]}" "${st[5]}" | sort -n | sed -n 2p)
	ktap_comment "median stalls: $s30 ms (nominal 154), $s60 ms (nominal 307)"
	ktap_result "30000 quanta stall for 0.9 to 1.5 times 153.6 ms" \
		$((s30 * 10 >= 1382 && s30 * 10 <= 2304 ? 0 : 1))
	ktap_result "60000 quanta stall for 0.9 to 1.5 times 307.2 ms" \
		$((s60 * 10 >= 2765 && s60 * 10 <= 4608 ? 0 : 1))
	ktap_result "twice the quanta stall 1.6 to 2.4 times as long" \
		$((s60 * 10 >= s30 * 16 && s60 * 10 <= s30 * 24 ? 0 : 1))
else
	for c in "30000 quanta stall" "60000 quanta stall" "stall ratio"; do
		ktap_fail "$c" "${#st[@]} stalls traced, 6 expected"
	done
fi

# One long pause (65535 quanta at 1 Mb/s: 33.6 s, the guard off), then
# XON: the stream must resume long before the pause would end.
echo 1 >"$QUANTA_MBPS"
echo "cc_pfc: xon" >"$TRACING/trace_marker"
s0=$(seen)
frames pfc 0x01 65535 0 0
wait_for 60 eval '[[ $(seen) -gt '"$s0"' ]]'
read -r paused _ < <(rates)
frames pfc 0x01 0 0 0
read -r resumed _ < <(rates)
echo 10 >"$QUANTA_MBPS"
sleep 3		# the resumed stream catches up on the other one's share
ktap_comment "long pause: $paused packets/s; after XON: $resumed packets/s"
ktap_result "xon_resumes_before_the_pause_ends" \
	$((paused * 5 < resumed ? 0 : 1))

ign=$(counter rx_pause_ignored)
NAME=pfc_for_disabled_priority_ignored
under_frames - 0 "$NAME" pfc 0x08 20000 500
ktap_result "$NAME" $?
ktap_result "rx_pause_ignored counts them" $(($(counter rx_pause_ignored) > ign ? 0 : 1))

in_a rdmactl qos set pfc_a pfc none >/dev/null || ktap_bail "rdmactl qos set"
NAME=pause_holds_every_priority_when_pfc_off
under_frames 1 1 "$NAME" pause - 40000 500
ktap_result "$NAME" $?

in_a rdmactl qos set pfc_a pfc 0 >/dev/null
NAME=pause_ignored_when_pfc_on
ign=$(counter rx_pause_ignored)
under_frames 0 0 "$NAME" pause - 20000 500
ktap_result "$NAME" $?
ktap_result "link-level pause counted as ignored" $(($(counter rx_pause_ignored) > ign ? 0 : 1))

echo 100 >"$STORM"
storms=$(counter rx_pause_storm_events)
NAME=storm_guard_keeps_the_stream_going
under_frames 0 - "$NAME" pfc 0x01 20000 500
ktap_result "$NAME" $?
ktap_result "rx_pause_storm_events counted" $(($(counter rx_pause_storm_events) > storms ? 0 : 1))

ign=$(counter rx_pause_ignored)
frames raw 0101
frames raw 0202000100ff
frames raw 01010000ffff
sleep 0.5
ktap_result "empty-vector and unknown-opcode frames ignored" \
	$(($(counter rx_pause_ignored) >= ign + 3 ? 0 : 1))
read -r r0 r3 < <(rates)
ktap_result "streams still running" $((r0 > 0 && r3 > 0 ? 0 : 1))

if ((TAP_FAIL)); then
	ktap_comment "the PFC trace of this run:"
	grep -v '^#' "$TRACING/trace" | sed 's/^/#   /'
fi
ktap_finish
