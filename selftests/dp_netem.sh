#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# VRNIC_TIMEOUT=900
#
# dp_netem.sh - RC reliability on a lossy, reordering, duplicating link.
#
# Two devices of type $DP_LINK_TYPE (default vrnic) on a veth pair with
#   tc qdisc add dev VETH root netem loss 2% reorder 5% duplicate 1% delay 1ms
# on both ends.  ibv_rc_pingpong -c, ib_write_bw and ib_read_bw must
# complete, dp_random must move its data intact over the pair, and the
# requester's retransmission counter must have moved (loss without
# retransmission cannot deliver everything).  The counter names differ per
# driver: see dp_retx_counters in dp_lib.sh.  Between two vrnic devices,
# nothing may be counted as malformed (a response past a lost one is a
# go-back-N drop), and lost READ responses must have made the requester
# go back by itself (implied_nak_seq_err), and ACKs later than the ACK
# timeout (netem delay 40ms, no loss) must cost about one resent packet
# per timeout, not a go-back-N; lost last packets of a burst (netem loss
# 2%, 64 KiB WRITEs) must mostly be repaired by loss probes, not
# timeouts, and towards another driver no loss probe may go (the probe
# waits for a peer that keeps packets past a gap); without netem, READ
# responses and
# requests that outrun the receiver's backlog must be held back, not
# lost (no READ timeout or resend; no go-back-N for requests).  ibv_rc_pingpong ends without a closing
# handshake: a run whose client finished and whose server did not is run
# once more (DP_CLOSE_RACE in dp_lib.sh's dp_pair).
#
# Environment: DP_RANDOM (path of the dp_random binary, default
# build/selftests/dp_random), DP_NETEM (the netem arguments),
# DP_NETEM_PEER (the link type of host B, default $DP_LINK_TYPE: see
# dp_netem_rxe.sh), DP_NETEM_ITERS (perftest iterations, default 50).

DP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=dp_lib.sh
. "$DP_DIR/dp_lib.sh"

DP_NETEM=${DP_NETEM:-loss 2% reorder 5% duplicate 1% delay 1ms}
DP_RANDOM=${DP_RANDOM:-$DP_REPO/build/selftests/dp_random}
DP_NETEM_PEER=${DP_NETEM_PEER:-$DP_LINK_TYPE}
DP_NETEM_ITERS=${DP_NETEM_ITERS:-50}

dp_require ibv_rc_pingpong ib_write_bw ib_read_bw ib_write_lat tc ss

# The refusal stage may lower netdev_max_backlog: give it back however
# the file ends, not to leave it to the files after this one.
backlog=
backlog_restore() {
	[[ -z $backlog ]] || sysctl -qw net.core.netdev_max_backlog="$backlog"
	backlog=
}
netem_cleanup() {
	backlog_restore
	dp_cleanup
}
trap netem_cleanup EXIT
dp_begin
modprobe sch_netem 2>/dev/null
dp_load "$DP_LINK_TYPE" || ktap_skip_all "cannot load the $DP_LINK_TYPE driver"
dp_load "$DP_NETEM_PEER" || ktap_skip_all "cannot load the $DP_NETEM_PEER driver"
dp_topology "$DP_LINK_TYPE" "$DP_NETEM_PEER" || {
	tap_result fail setup "could not build the topology"
	ktap_finish
}

retx() {
	echo $(($(dp_retx_sum "${DP_DEV[A]}" "${DP_TYPE[A]}") + \
		$(dp_retx_sum "${DP_DEV[B]}" "${DP_TYPE[B]}")))
}

# Address resolution is not what is under test: a lost ARP packet would
# make modify_qp (which resolves the peer's MAC) time out.  Pin the
# neighbour entries before the link turns lossy.
for h in A B; do
	p=$([[ $h == A ]] && echo B || echo A)
	mac=$(dp_in "$p" cat "/sys/class/net/${DP_IF[$p]}/address")
	dp_in "$h" ip neigh replace "${DP_ADDR[$p]}" lladdr "$mac" \
		dev "${DP_IF[$h]}" nud permanent
done
for h in A B; do
	# shellcheck disable=SC2086 # netem arguments are words
	dp_in "$h" tc qdisc add dev "${DP_IF[$h]}" root netem $DP_NETEM ||
		ktap_skip_all "netem not available"
done
ktap_comment "netem on both veth ends: $DP_NETEM"
before=$(retx)
# counter_sum NAME: NAME on both devices together.
counter_sum() {
	echo $(($(dp_counter "${DP_DEV[A]}" "$1") + $(dp_counter "${DP_DEV[B]}" "$1")))
}
# counter_deltas NAME... -- CMD...: run CMD; DELTA[NAME] is then what it
# moved NAME by, both devices together.
declare -A DELTA
counter_deltas() {
	local -A start
	local name

	while [[ $1 != -- ]]; do
		start[$1]=$(counter_sum "$1")
		shift
	done
	shift
	"$@"
	for name in "${!start[@]}"; do
		DELTA[$name]=$(($(counter_sum "$name") - start[$name]))
	done
}
# netem_both ARGS...: the netem on both veth ends does ARGS from now on.
netem_both() {
	local h

	for h in A B; do
		dp_in "$h" tc qdisc change dev "${DP_IF[$h]}" root netem "$@"
	done
}
malformed0=$(counter_sum drop_malformed)
implied0=$(counter_sum implied_nak_seq_err)
probes0=$(counter_sum loss_probes)

random_lossy() {
	if [[ -x $DP_RANDOM ]]; then
		# the pair variant over the lossy veth, A -> B
		# Three lossy flows share two TCG vCPUs: give each work
		# request minutes, not the default minute (a hang still fails).
		DP_TIMEOUT=$((300 * DP_FACTOR)) dp_one dp_random_lossy A "DP_DEV=${DP_DEV[A]} DP_DEV2=${DP_DEV[B]} DP_ONLY=pair_ipv4 DP_MTUS=256,4096 DP_BIG=${DP_BIG:-200000} DP_TIMEOUT_MS=$((240000 * DP_FACTOR)) $DP_RANDOM"
	else
		tap_result skip dp_random_lossy "$DP_RANDOM not built"
	fi
}

# Side by side: retransmission timers leave the CPUs idle.
# ibv_rc_pingpong closes without a handshake: see DP_CLOSE_RACE in dp_pair.
DP_CLOSE_RACE='iters in' dp_spawn rc 19600 pingpong rc_pingpong_lossy ibv_rc_pingpong "-c -n 200" B A
dp_spawn random 20600 random_lossy
perf ib_write_bw_lossy ib_write_bw "-n $DP_NETEM_ITERS" B A
perf ib_read_bw_lossy ib_read_bw "-n $DP_NETEM_ITERS" A B
dp_join rc
dp_join random

after=$(retx)
ktap_comment "retransmissions ($(dp_retx_counters "${DP_TYPE[A]}")): $before -> $after"
for h in A B; do
	ktap_comment "${DP_DEV[$h]}: $(rdma statistic show link "${DP_DEV[$h]}/1" 2>/dev/null | tr -s ' ' | cut -c1-400)"
done
if [[ $after -gt $before ]]; then
	tap_result ok retransmission_counter_moved
else
	tap_result fail retransmission_counter_moved "$before -> $after"
fi

# What netem does is loss, reordering and duplication, never a malformed
# packet: a response that arrives past a lost one is dropped by
# go-back-N, not counted as malformed.  READ responses lost under
# ib_read_bw: the requester went back by itself (an implied NAK).
if [[ ${DP_TYPE[A]} == vrnic && ${DP_TYPE[B]} == vrnic ]]; then
	malformed=$(($(counter_sum drop_malformed) - malformed0))
	dp_report no_packet_counted_malformed "$((malformed != 0))" \
		"drop_malformed moved by $malformed"
	implied=$(($(counter_sum implied_nak_seq_err) - implied0))
	dp_report lost_read_responses_implied_nak "$((implied == 0))" \
		"implied_nak_seq_err did not move"

	# A packet lost with nothing sent after it (a burst's last, a
	# resend lost again, or the ACK it asked for) leaves nothing to
	# NAK.  Once the first selective resend has shown that the peer
	# keeps packets past a gap, the requester resends one packet 2 x
	# SRTT after such an AckReq (kmod/req.c, "Loss probe") instead of
	# waiting out the ACK timeout (67 ms here).  64 KiB messages: 16
	# packets, enough for the first selective resend to show what the
	# peer keeps.  The module without probes timed out 39 and 56 times
	# here; with them, 28-33 probes and 4-16 timeouts, most of them a
	# lost sequence NAK that the responder did not send again (24 for 20
	# probes on a loaded machine); since it does, 29 probes, 1 timeout.
	netem_both loss 2%
	DP_PORT=19690 counter_deltas timeouts loss_probes -- \
		perf ib_write_lat_loss_probes ib_write_lat "-s 65536 -n 300" B A
	timeouts=${DELTA[timeouts]} probes=${DELTA[loss_probes]}
	ktap_comment "2% loss each way: $probes loss probes, $timeouts timeouts"
	dp_report tail_losses_probed "$((probes == 0))" "no loss probe"
	dp_report tail_losses_rarely_time_out "$((timeouts >= probes))" \
		"$timeouts timeouts for $probes loss probes"

	# Late ACKs are not lost packets.  With 40 ms each way and no loss,
	# every 16-packet message of ibv_rc_pingpong (whose QPs time out
	# after 4.096 us x 2^14 = 67 ms) times out once before its ACK comes
	# back: the timeout's probe resends one packet, not the message
	# (go-back-N resent 8 or more per timeout).  At most 2 per timeout:
	# a TCG stall that holds an ACK past a second timeout goes back N.
	netem_both delay 40ms
	DP_PORT=19700 counter_deltas timeouts duplicate_requests -- \
		pingpong rc_pingpong_late_acks ibv_rc_pingpong "-s 16384 -m 1024 -n 10" B A
	timeouts=${DELTA[timeouts]} dups=${DELTA[duplicate_requests]}
	ktap_comment "late ACKs: $timeouts timeouts, $dups duplicate requests"
	dp_report late_acks_time_out "$((timeouts < 5))" \
		"only $timeouts timeouts: the delay did not outlast the ACK timeout"
	dp_report late_acks_resend_one_packet "$((dups > 2 * timeouts))" \
		"$dups duplicate requests for $timeouts timeouts"

	# A READ's responses have no send window: the responder sends them
	# as fast as it builds them, and on a veth pair without netem they
	# outrun the receiving CPU's backlog (netdev_max_backlog, 1000
	# packets; a 4 MiB READ is 4096 responses at MTU 1500).  A response
	# the stack refuses is built again after a pause (kmod/cc.c,
	# vrnic_cc_refused()), not lost: 4 MiB READs with an ACK
	# timeout of 1 s (-u 18; see ack_u) complete without one timeout or
	# resend.
	# Before, 38% of the responses were dropped, the requester timed out
	# every 100-200 ms, and the run did not end within a minute.
	for h in A B; do
		dp_in "$h" tc qdisc del dev "${DP_IF[$h]}" root
		dp_in "$h" ip link set dev "${DP_IF[$h]}" mtu 1500
	done
	# unpaced_run PORT NAME PROG ARGS: perf NAME, server on B; sets
	# refused (tx_errors), timeouts and resent (retransmits) to what
	# the run moved on both devices.
	unpaced_run() {
		DP_PORT=$1 counter_deltas timeouts retransmits tx_errors -- \
			perf "$2" "$3" "$4" A B
		timeouts=${DELTA[timeouts]} resent=${DELTA[retransmits]}
		refused=${DELTA[tx_errors]}
	}
	# The debug kernel is some twenty times slower: an ACK may take
	# longer than 1 s there without anything lost (43 timeouts for 114
	# refusals in one run), so it waits 4 s (-u 20).  And an ACK waits
	# behind up to a backlog of requests on the CPU that runs both
	# ends: with 1000 of them, more than 4 s in one run (63 timeouts for
	# 45 refusals, and a second timeout's go-back-N resent 1,257
	# packets).  A backlog of 250 still refuses, with a quarter of the
	# wait.
	ack_u=18
	if ktap_debug_kernel; then
		ack_u=20
		backlog=$(sysctl -n net.core.netdev_max_backlog)
		sysctl -qw net.core.netdev_max_backlog=250
	fi
	unpaced_run 19710 ib_read_bw_4MiB_unpaced ib_read_bw "-s 4194304 -n 20 -u $ack_u"
	ktap_comment "4 MiB READs: $refused responses refused by the stack, $timeouts timeouts, $resent resent"
	dp_report read_responses_refused_are_not_lost "$((timeouts + resent))" \
		"$timeouts timeouts, $resent resent"

	# Requests too: sixteen QPs' 1 MiB WRITEs fill the backlog, and a
	# request the stack refuses is sent again after a pause, with the
	# window cut as for a loss, instead of a sequence NAK's go-back-N.
	# What may still be resent is a timeout's probe (one packet each:
	# an ACK refused on its way back costs a timeout).  Before, 1,285
	# refusals cost 1,301 resent packets and 51 timeouts.
	unpaced_run 19720 ib_write_bw_1MiB_q16_unpaced ib_write_bw "-s 1048576 -q 16 -n 10 -u $ack_u"
	ktap_comment "16 QPs of 1 MiB WRITEs: $refused packets refused by the stack, $timeouts timeouts, $resent resent"
	dp_report write_requests_refused_are_not_lost \
		"$((resent - timeouts > refused / 4))" \
		"$resent resent, $timeouts of them timeouts' probes, for $refused refused"
	backlog_restore
else
	# A go-back-N peer keeps nothing past a gap: no loss probe goes to it.
	probes=$(($(counter_sum loss_probes) - probes0))
	dp_report no_loss_probe_to_a_go_back_n_peer "$probes" \
		"$probes loss probes sent"
fi

ktap_finish
