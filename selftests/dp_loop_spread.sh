#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dp_loop_spread.sh - local delivery on a second CPU (docs/wire.md,
# "Which CPU receives locally delivered packets").
#
# One vrnic device, perftest's server and client both pinned to CPU 0, so
# that any vrnic work on CPU 1 is local delivery sent there:
#  - loop_spread=1: a 64 KiB ib_write_bw (a pipelining RC QP) has its
#    packets received on CPU 1 (tasklet runs counted in /proc/softirqs);
#    ib_read_bw and ib_send_bw complete;
#  - none of it reorders: out_of_sequence_requests, duplicate_requests,
#    seq_err_naks_sent and retransmits stay 0 (with an ACK timeout of 1 s,
#    so that only a reorder, not a slow vCPU, can make a resend);
#  - a ping-pong (ib_write_lat, one WQE posted, one packet) stays on the
#    sending CPU;
#  - loop_spread=0: the same ib_write_bw leaves CPU 1 alone;
#  - post_spread=1: a stream of one-packet unsignaled WRITEs (ib_write_bw
#    -s 64) has its requester run on CPU 1 (the work item's runs counted
#    by the workqueue_execute_start tracepoint), with nothing reordered;
#    the 64 KiB ib_write_bw's and the ping-pong's requester does not run
#    there; post_spread=0 keeps the 64 B stream's on CPU 0;
#  - CPU 1 going offline and online again while packets are sent to it:
#    the transfer completes.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"
# shellcheck source=selftests/lib/wq_trace.sh
. "$(dirname "$0")/lib/wq_trace.sh"

ktap_header
ktap_require_vm
ktap_require_cmd ip rdma jq ib_write_bw ib_read_bw ib_send_bw ib_write_lat taskset

NS_A='' NS_B='' IF_A=spread_a IF_B=spread_b IP_A=10.125.0.1 IP_B=10.125.0.2
IP6_A=fd00:125::1 IP6_B=fd00:125::2 VETH_MTU=1500
DEV=spread0
PARAM=/sys/module/vrnic/parameters/loop_spread
POST=/sys/module/vrnic/parameters/post_spread
PORT=18660
CPU1=/sys/devices/system/cpu/cpu1/online
ITERS=200
RATE_ITERS=2000

trap ktap_cleanup EXIT
[[ $(nproc --all) -ge 2 ]] || ktap_skip_all "needs two CPUs"
[[ -w $PARAM ]] || ktap_skip_all "no $PARAM"
[[ -w $POST ]] || ktap_skip_all "no $POST"
[[ -w $WQ_EVENT/enable ]] || ktap_skip_all "no trace event $WQ_EVENT"
old=$(cat "$PARAM") old_post=$(cat "$POST")
read -r tracing_was <"$WQ_TRACING/tracing_on"
restore_param() {
	echo "$old" >"$PARAM"
	echo "$old_post" >"$POST"
	wq_trace_idle
	echo "$tracing_was" >"$WQ_TRACING/tracing_on"
}
defer restore_param
veth_setup || ktap_bail "veth pair"
rdma link add "$DEV" type vrnic netdev "$IF_A" || ktap_bail "rdma link add"
defer rdma link delete "$DEV"
gid=$(roce_gid_index "$DEV" "$IP_A") || ktap_bail "no GID for $IP_A"

# req_trace_start: record the work items executed from now on.
req_trace_start() {
	wq_trace_start || ktap_bail "cannot record $WQ_EVENT_NAME"
}

# req_runs1: the requester work item's runs on CPU 1 since
# req_trace_start (the event prints the function's name).
req_runs1() {
	wq_trace_stop
	wq_trace_runs vrnic_req_work 1
}

# tasklets1: tasklet softirqs run on CPU 1 so far.
tasklets1() {
	awk '$1 == "TASKLET:" { print $3 }' /proc/softirqs
}

# counter NAME: the device's port counter NAME.
counter() {
	rdma -j statistic show link "$DEV/1" | jq -r --arg n "$1" '.[0][$n]'
}

# Every counter that a reordered or resent packet moves; timeouts says
# which resends an ACK timeout caused.
OOO_COUNTERS=(out_of_sequence_requests duplicate_requests seq_err_naks_sent
	retransmits timeouts)

# ooo_counts: the values of OOO_COUNTERS, in order.
ooo_counts() {
	local n

	for n in "${OOO_COUNTERS[@]}"; do
		printf '%s ' "$(counter "$n")"
	done
}

# ooo_since COUNTS: sets reordered to the packets reordered or resent
# since ooo_counts printed COUNTS, and ooo_moved to each counter's move.
ooo_since() {
	local -a was now
	local i d

	read -ra was <<<"$1"
	read -ra now <<<"$(ooo_counts)"
	reordered=0
	ooo_moved=
	for i in "${!OOO_COUNTERS[@]}"; do
		d=$((now[i] - was[i]))
		ooo_moved+=" ${OOO_COUNTERS[i]}=$d"
		[[ ${OOO_COUNTERS[i]} == timeouts ]] ||
			reordered=$((reordered + d))
	done
}

# perf TOOL ARGS...: server and client on CPU 0; the client's status.
# An ACK timeout of 1 s (-u 18), not perftest's 67 ms: a resend here is
# to show a reorder, not a vCPU that stalled for 67 ms (the debug kernel
# stalls so; one of its runs counted 2 resends, cause not recorded).
# Taking a CPU down (below) stops every CPU a while (stop_machine), on the
# debug kernel for long enough that seven 67 ms timeouts in a row ended
# the transfer.
perf() {
	local tool=$1 rc=0 server
	shift

	taskset -c 0 timeout 120 "$tool" -d "$DEV" -x "$gid" -F -p "$PORT" \
		-u 18 "$@" >/tmp/spread.server 2>&1 &
	server=$!
	sleep 1
	taskset -c 0 timeout 120 "$tool" -d "$DEV" -x "$gid" -F -p "$PORT" \
		-u 18 "$@" "$IP_A" >"$KTAP_OUT" 2>&1 || rc=$?
	wait "$server"
	return "$rc"
}

echo 1 >"$PARAM"
echo 1 >"$POST"
before=$(tasklets1)
ooo=$(ooo_counts)
req_trace_start
run_stage "loop_spread=1: ib_write_bw 64 KiB" \
	perf ib_write_bw -s 65536 -n "$ITERS"
runs=$(req_runs1)
spread=$(($(tasklets1) - before))
ktap_comment "tasklet runs on CPU 1: $spread"
# A run drains what has queued: 200 to 10054 runs were seen for the 200
# messages (12,800 packets); a tenth of the messages is the floor.
ktap_result "loop_spread=1: a pipelining QP's packets are received on CPU 1" \
	$((spread < ITERS / 10)) "$spread tasklet runs on CPU 1"
ktap_comment "requester work item runs on CPU 1: $runs"
ktap_result "post_spread=1: 64 KiB messages' requester stays on the poster's CPU" \
	$((runs >= 10)) "$runs requester runs on CPU 1"
run_stage "loop_spread=1: ib_read_bw 64 KiB" \
	perf ib_read_bw -s 65536 -n "$ITERS"
run_stage "loop_spread=1: ib_send_bw 64 KiB" \
	perf ib_send_bw -s 65536 -n "$ITERS"
ooo_since "$ooo"
ktap_result "loop_spread=1: nothing reordered or resent" "$reordered" \
	"moved:$ooo_moved"

before=$(tasklets1)
req_trace_start
run_stage "loop_spread=1: ib_write_lat 2 B" perf ib_write_lat -s 2 -n "$ITERS"
runs=$(req_runs1)
pingpong=$(($(tasklets1) - before))
ktap_comment "tasklet runs on CPU 1: $pingpong, requester work item runs: $runs"
ktap_result "loop_spread=1: a ping-pong stays on the sending CPU" \
	$((pingpong >= 50)) "$pingpong tasklet runs on CPU 1"
ktap_result "post_spread=1: a ping-pong's requester stays on the sending CPU" \
	$((runs >= 10)) "$runs requester runs on CPU 1"

# One-packet unsignaled WQEs: the requester runs on CPU 1.
ooo=$(ooo_counts)
req_trace_start
run_stage "post_spread=1: ib_write_bw 64 B" \
	perf ib_write_bw -s 64 -n "$RATE_ITERS"
runs=$(req_runs1)
ktap_comment "requester work item runs on CPU 1: $runs"
ktap_result "post_spread=1: a 64 B stream's requester runs on CPU 1" \
	$((runs < 20)) "$runs requester runs on CPU 1"
ooo_since "$ooo"
ktap_result "post_spread=1: nothing reordered or resent" "$reordered" \
	"moved:$ooo_moved"
echo 0 >"$POST"
req_trace_start
run_stage "post_spread=0: ib_write_bw 64 B" \
	perf ib_write_bw -s 64 -n "$RATE_ITERS"
runs=$(req_runs1)
ktap_comment "requester work item runs on CPU 1: $runs"
ktap_result "post_spread=0: the 64 B stream's requester stays on CPU 0" \
	$((runs >= 10)) "$runs requester runs on CPU 1"
echo 1 >"$POST"

echo 0 >"$PARAM"
before=$(tasklets1)
run_stage "loop_spread=0: ib_write_bw 64 KiB" \
	perf ib_write_bw -s 65536 -n "$ITERS"
off=$(($(tasklets1) - before))
ktap_comment "tasklet runs on CPU 1: $off"
ktap_result "loop_spread=0: CPU 1 is left alone" $((off >= 50)) \
	"$off tasklet runs on CPU 1"

# Packets for a CPU going offline go to the sending CPU's FIFO from the
# first step of its teardown (not to a FIFO whose tasklet's run may wait
# for the CPU's death once its ksoftirqd is parked).
if [[ -w $CPU1 ]]; then
	echo 1 >"$PARAM"
	ooo=$(ooo_counts)
	(
		sleep 2
		echo 0 >"$CPU1"
		# Whether the client was still sending when CPU 1 went.
		pgrep -f "ib_write_bw .*$IP_A" >/dev/null &&
			echo "CPU 1 went offline during the transfer" >/tmp/spread.toggle
		sleep 2
		echo 1 >"$CPU1"
	) &
	toggler=$!
	# The debug kernel moves about a fiftieth of the bytes a second.
	hp_iters=3000
	ktap_debug_kernel && hp_iters=300
	rm -f /tmp/spread.toggle
	run_stage "loop_spread=1: ib_write_bw while CPU 1 goes offline and back" \
		perf ib_write_bw -s 65536 -n "$hp_iters"
	wait "$toggler"
	[[ $(cat "$CPU1") == 1 ]] || echo 1 >"$CPU1"
	ktap_comment "$(cat /tmp/spread.toggle 2>/dev/null ||
		echo "the transfer ended before CPU 1 went offline")"
	# Not a result: a hotplug's stop_machine may outlast the ACK
	# timeout, and then a resend is right.
	ooo_since "$ooo"
	ktap_comment "moved across it:$ooo_moved"
else
	ktap_skip "loop_spread=1: ib_write_bw while CPU 1 goes offline and back" \
		"CPU 1 cannot go offline"
fi

ktap_finish
