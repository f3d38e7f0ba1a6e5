#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cc_acks.sh - how often a rate-limited RC requester asks for an ACK.
#
# vrnic0 (ns_a) writes to vrnic1 (ns_b) over a veth pair, every RoCE
# packet it sends CE-marked by tc pedit on its egress and ECN on every
# priority, so DCQCN keeps its QP rate-limited all along.  The pacer then
# spreads its packets out, and an ACK asked for too rarely leaves the
# unacknowledged ones to the retransmit timer (2085 retransmissions in
# this run before any rule), while an ACK asked on every packet doubles
# the packets on the congested link.  Checked: the limiter engaged (CNPs
# handled), at most 1% of the packets resent (a TCG guest can stall
# long enough for a timeout or two; each costs one probe packet), and
# vrnic1 acknowledged at most a quarter of vrnic0's packets.  Then the
# same through a 40 Mbit/s htb + RED bottleneck that marks CE, with four
# QPs: at most one ACK per 6 packets.  See docs/cc.md, "In the data path".

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd ip tc rdma rdmactl ib_write_bw ss

ITERS=100
SIZE=65536
PORT=18900

for m in sch_ingress cls_u32 act_pedit act_csum sch_htb sch_red; do
	modprobe "$m" 2>/dev/null
done
veth_setup || ktap_bail "cannot build the two hosts"
vrnic_pair_setup
run_stage "ECN on every priority of both devices" sh -c \
	"ip netns exec $NS_A rdmactl qos set vrnic0 trust pcp ecn 0,1,2,3,4,5,6,7 tclass 0 &&
	 ip netns exec $NS_B rdmactl qos set vrnic1 trust pcp ecn 0,1,2,3,4,5,6,7 tclass 0"
run_stage "CE set on every RoCE packet leaving $IF_A" sh -c \
	"ip netns exec $NS_A tc qdisc add dev $IF_A clsact &&
	 ip netns exec $NS_A tc filter add dev $IF_A egress pref 10 protocol ip \
		u32 match ip protocol 17 0xff match ip dport 4791 0xffff \
		action pedit ex munge ip tos set 0x03 retain 0x03 pipe action csum ip" ||
	ktap_bail "no tc pedit"

GA=$(roce_gid_wait vrnic0 "$IP_A") || ktap_bail "no RoCE v2 GID on vrnic0"
GB=$(roce_gid_wait vrnic1 "$IP_B") || ktap_bail "no RoCE v2 GID on vrnic1"

# stat DEV NAME: port counter NAME of DEV (the driver's hw counters).
stat() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}
# write_measured NAME ARGS...: ib_write_bw ARGS from vrnic0 to vrnic1 as
# stage NAME; sets tx (packets vrnic0 sent), resent, timeouts, cnps
# (CNPs it handled) and acks (what vrnic1 sent that was not a CNP: it
# sends ACKs and CNPs only), and prints them.
write_measured() {
	local name=$1 tx0 resent0 timeouts0 cnps0 acks0 np0

	shift
	PORT=$((PORT + 1))
	tx0=$(stat vrnic0 tx_packets)
	resent0=$(stat vrnic0 retransmits)
	timeouts0=$(stat vrnic0 timeouts)
	cnps0=$(stat vrnic0 rp_cnp_handled)
	acks0=$(stat vrnic1 tx_packets)
	np0=$(stat vrnic1 np_cnp_sent)
	in_b timeout 300 ib_write_bw -d vrnic1 -x "$GB" -F -p $PORT "$@" >/dev/null 2>&1 &
	local srv=$!
	wait_for 60 tcp_listening "$NS_B" $PORT
	run_stage "$name" in_a timeout 300 ib_write_bw -d vrnic0 -x "$GA" -F -p $PORT "$@" "$IP_B"
	wait "$srv"
	tx=$(($(stat vrnic0 tx_packets) - tx0))
	resent=$(($(stat vrnic0 retransmits) - resent0))
	timeouts=$(($(stat vrnic0 timeouts) - timeouts0))
	cnps=$(($(stat vrnic0 rp_cnp_handled) - cnps0))
	acks=$(($(stat vrnic1 tx_packets) - acks0 - ($(stat vrnic1 np_cnp_sent) - np0)))
	ktap_comment "vrnic0 sent $tx packets, $resent resent, $timeouts timeouts, $cnps CNPs handled; vrnic1 sent $acks ACKs"
}

write_measured "ib_write_bw -s $SIZE -n $ITERS through the CE marks" -s $SIZE -n $ITERS
ktap_result "the QP was rate-limited: CNPs handled ($cnps)" "$((cnps == 0))"
# The debug kernel (KASAN and lockdep, under TCG) answers so slowly that
# ACKs come later than the 67 ms ACK timeout (measured there: 47
# timeouts, 441 of 6841 resent): the ratios are timing, not detectors.
if ktap_debug_kernel; then
	ktap_skip "at most 1% of the packets resent ($resent of $tx)" "debug kernel: too slow"
	ktap_skip "at most one ACK per 4 packets ($acks for $tx)" "debug kernel: too slow"
else
	ktap_result "at most 1% of the packets resent ($resent of $tx)" "$((resent * 100 > tx))"
	ktap_result "at most one ACK per 4 packets ($acks for $tx)" "$((acks * 4 > tx))"
fi

# A real bottleneck instead: 40 Mbit/s (htb) into RED marking CE, four
# QPs.  DCQCN paces them on its marks, losses shrink their windows, and a
# window-limited QP refills as its ACKs come: one that asked for an ACK
# on every packet filling its window was answered one ACK per 2-4 packets
# (DCQCN's CNPs come on top).
run_stage "40 Mbit/s ECN-marking bottleneck (htb, red) on $IF_A" sh -c \
	"ip netns exec $NS_A tc filter del dev $IF_A egress pref 10 &&
	 ip netns exec $NS_A tc qdisc add dev $IF_A root handle 1: htb default 1 &&
	 ip netns exec $NS_A tc class add dev $IF_A parent 1: classid 1:1 htb rate 40mbit &&
	 ip netns exec $NS_A tc qdisc add dev $IF_A parent 1:1 red limit 200000 \
		min 8000 max 80000 avpkt 1100 burst 10 probability 0.5 bandwidth 40mbit ecn" ||
	ktap_bail "no htb or red"
write_measured "ib_write_bw -q 4 -s $SIZE -n 50 through the bottleneck" -q 4 -s $SIZE -n 50
if ktap_debug_kernel; then
	ktap_skip "at most one ACK per 6 packets ($acks for $tx)" "debug kernel: too slow"
else
	ktap_result "at most one ACK per 6 packets ($acks for $tx)" "$((acks * 6 > tx))"
fi
ktap_finish
