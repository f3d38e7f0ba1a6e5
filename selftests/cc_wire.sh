#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# VRNIC_TIMEOUT=1200
#
# cc_wire: ECN marking, congestion notification packets (CNPs) and the
# congestion counters, checked on the wire.
#
# Two namespaces joined by a veth, vrnic0 on A's end (ns_a, 10.111.0.1),
# vrnic1 on B's (ns_b, 10.111.0.2).  Every RoCE packet crossing the veth is
# captured on veth_b by lib/roce_wire.py (AF_PACKET, both directions; it
# decodes IPv4/IPv6, UDP 4791 and the BTH and recomputes the ICRC), and
# skb->priority, which is not on the wire, is counted with tc ematch
# filters on the egress of each veth end.  CE is forced with tc pedit
# (ECN bits set to 11, DSCP kept), on A's egress (the capture then shows
# it) or on the receiver's ingress (the capture, which runs before tc
# ingress, then shows the ECN codepoint the sender chose).  Checked:
#
#  - egress QoS: DSCP = (the path's traffic class, else qos tclass) >> 2 on
#    every packet; skb->priority = SL (trust pcp) or dscp2prio[DSCP]
#    (trust dscp); data (requests, retransmissions included, and READ
#    responses) ECT(0) when qos ecn_en has the priority's bit (default:
#    all), else Not-ECT; ACKs always Not-ECT.  IPv4 and IPv6.
#  - notification point: CE on requests and READ responses of an RC QP
#    whose priority has ECN enabled is answered with CNPs in the IBTA
#    RoCEv2 format (annex A17.9: opcode 0x81, BECN, P_Key 0xffff, the
#    sender's QPN, PSN 0, 16 zero bytes, ICRC), DSCP cnp_dscp, ECT(0),
#    skb->priority cnp_802p_prio; per QP at most one per
#    min_time_between_cnps (N), a mark inside the interval answered at its
#    end: a burst of marks shorter than N draws exactly two CNPs about N
#    apart, and marks spread over D draw at most floor(D/N) + 2 per QP,
#    spaced N or more (the wire shows when a CNP left, not when the kernel
#    decided to send it, and a TCG vCPU can stall in between: under
#    continuous marking the test wants 95% of the gaps >= N/2 and the
#    median >= 0.9 N rather than every one); CE on ACKs, or with ECN off,
#    draws none.  The READ case uses rdma_cm (-R): without it perftest
#    leaves its server's QP in RTR, which ignores CNPs.
#  - reaction point: READ responses are paced to the responder QP's
#    DCQCN rate (rpg_max_rate 20 Mb/s caps a 60 x 64 KiB ib_read_bw).
#  - counters: the NP's np_cnp_sent equals the CNPs on the wire and the
#    RP's rp_cnp_handled, rp_cnp_ignored stays 0, np_ecn_marked_roce_packets
#    is positive and at most the CE-marked packets on the wire.
#  - hostile input: a truncated CNP and a CNP to an unknown QPN, injected
#    from a raw socket at a QP in the middle of a transfer, are counted as
#    drops or rp_cnp_ignored, not handled, and the transfer goes on; a
#    well-formed injected CNP to that QP is handled (the positive control).
#
# The senders' rpg_min_rate is set to 1000 Mb/s, above what the TCG guest
# sends, so that the reaction point's rate cuts do not stretch the runs.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd ip tc rdma rdmactl python3 ibv_rc_pingpong ib_write_bw ib_read_bw

LOG=$(mktemp -d /tmp/cc_wire.XXXXXX)
defer rm -rf "$LOG"
TMO=180			# seconds per traffic command
PORT=18740
UNKNOWN_QPN=0xfedcba

# ---- helpers ----

# stat_of "TEXT" NAME: counter NAME from "rdma statistic show link" output
# (empty if there is no such counter); drops_of "TEXT": the sum of every
# receive drop reason and rp_cnp_ignored in it.
stat_of() {
	local -a w
	local i

	read -d '' -ra w <<<"$1"
	for ((i = 0; i + 1 < ${#w[@]}; i++)); do
		[[ ${w[i]} == "$2" ]] || continue
		echo "${w[i + 1]}"
		return
	done
}

drops_of() {
	local -a w
	local i s=0

	read -d '' -ra w <<<"$1"
	for ((i = 0; i + 1 < ${#w[@]}; i++)); do
		[[ ${w[i]} == drop_* || ${w[i]} == icrc_errors || ${w[i]} == rp_cnp_ignored ]] &&
			[[ ${w[i + 1]} =~ ^[0-9]+$ ]] && s=$((s + w[i + 1]))
	done
	echo "$s"
}

# port_stats DEV: PORT_STATS[NAME] = every port counter of DEV (rdma
# statistic, i.e. hw-stats), read with one command and no other process.
declare -A PORT_STATS=()
port_stats() {
	local -a w
	local i

	PORT_STATS=()
	read -d '' -ra w < <(rdma statistic show link "$1/1" 2>/dev/null)
	# "link DEV/1 NAME VALUE NAME VALUE ..."
	for ((i = 2; i + 1 < ${#w[@]}; i += 2)); do
		PORT_STATS[${w[i]}]=${w[i + 1]}
	done
}

CC_COUNTERS=(np_ecn_marked_roce_packets np_cnp_sent rp_cnp_handled rp_cnp_ignored)
declare -A SNAP=()

snap() {
	local d n

	for d in vrnic0 vrnic1; do
		port_stats "$d"
		for n in "${CC_COUNTERS[@]}"; do
			SNAP[$d.$n]=${PORT_STATS[$n]:-}
		done
	done
}

# delta DEV NAME: growth of a counter since snap; empty if it is missing.
delta() {
	local v

	port_stats "$1"
	v=${PORT_STATS[$2]:-}
	[[ $v =~ ^[0-9]+$ && ${SNAP[$1.$2]} =~ ^[0-9]+$ ]] && echo $((v - SNAP[$1.$2]))
}

# cm_listening PORT: an rdma_cm ID of B listens on PORT.
cm_listening() {
	in_b rdma resource show cm_id 2>/dev/null |
		grep -q "src-addr [^ ]*:$1 .*LISTEN\|LISTEN.*src-addr [^ ]*:$1 "
}

# traffic PROG "SERVER ARGS" "CLIENT ARGS": PROG's server on vrnic1 (B),
# its client on vrnic0 (A); both must exit 0.  The client's output is kept
# in $LOG/client (bw_note prints perftest's result line from it).
traffic() {
	local prog=$1 sargs=$2 cargs=$3 spid rc=0 src=0 ready=tcp_listening

	PORT=$((PORT + 1))
	[[ " $sargs " == *" -R "* ]] && ready=cm_listening
	# shellcheck disable=SC2086 # argument lists
	ip netns exec "$NS_B" timeout -k 5 "$TMO" "$prog" -d vrnic1 -p "$PORT" $sargs \
		>"$LOG/server" 2>&1 &
	spid=$!
	if [[ $ready == cm_listening ]]; then
		wait_for 60 cm_listening "$PORT"
	else
		wait_for 60 tcp_listening "$NS_B" "$PORT"
	fi || {
		echo "server did not listen on port $PORT:"
		kill "$spid" 2>/dev/null
		wait "$spid"
		cat "$LOG/server"
		return 1
	}
	# shellcheck disable=SC2086
	in_a timeout -k 5 "$TMO" "$prog" -d vrnic0 -p "$PORT" $cargs "$IP_B" >"$LOG/client" 2>&1 ||
		rc=$?
	wait "$spid" || src=$?
	cat "$LOG/client"
	[[ $rc -eq 0 && $src -eq 0 ]] && return 0
	echo "client exit $rc, server exit $src; server output:"
	cat "$LOG/server"
	return 1
}

bw_note() {
	local row

	row=$(awk '/#bytes/ { getline; print; exit }' "$LOG/client" 2>/dev/null | tr -s ' \t' ' ')
	[[ -z $row ]] || ktap_comment "perftest: bytes iterations peak avg[MB/s] rate[Mpps]:$row"
}

# The tc filters of the last phase removed.
tc_clear() {
	in_a sh -c "tc filter del dev $IF_A egress; tc filter del dev $IF_A ingress" 2>/dev/null
	in_b sh -c "tc filter del dev $IF_B egress; tc filter del dev $IF_B ingress" 2>/dev/null
}

# phase_keep: when the phase that ends had a failure, keep its capture
# with the test's results (the VM runner's $RESULTS share), for tshark or
# roce_wire.py check.
PHASE=
PHASE_FAIL0=0
phase_keep() {
	local dir=${RESULTS:+$RESULTS/tests/${0##*/}}

	[[ -n $PHASE && $TAP_FAIL -gt $PHASE_FAIL0 && -n $dir && -d $dir ]] || return 0
	[[ $(stat -c %s "$LOG/$PHASE.pcap" 2>/dev/null || echo 0) -lt $((64 << 20)) ]] || return 0
	mkdir -p "$dir/pcap" && cp "$LOG/$PHASE.pcap" "$LOG/$PHASE.pcap.stats" "$dir/pcap/" &&
		ktap_comment "$PHASE failed: its capture is kept in $dir/pcap/$PHASE.pcap"
}

# phase NAME: a clean slate of filters, counters noted, capture started.
PHASE_T0=$SECONDS
phase() {
	phase_keep
	PHASE=$1
	PHASE_FAIL0=$TAP_FAIL
	ktap_comment "---- $1 (the last phase took $((SECONDS - PHASE_T0)) s)"
	PHASE_T0=$SECONDS
	tc_clear
	snap
	run_stage "$1: capture on $IF_B started" wire_cap_start "$LOG/$1.pcap"
}

# tc_pkts NS DEV HOOK PREF: packets counted by the actions of that filter.
tc_pkts() {
	ip netns exec "$1" tc -s filter show dev "$2" "$3" pref "$4" |
		awk '/Sent [0-9]+ bytes [0-9]+ pkt/ { for (i = 2; i <= NF; i++) if ($i == "pkt") s += $(i - 1) }
		     END { print s + 0 }'
}

# prio_watch NS DEV EMATCH PRIO: count on DEV's egress the IPv4 packets
# that match EMATCH (pref 1) and, of those, the ones with skb->priority
# PRIO (pref 2); prio_check reads them back as one result.  ROCE4 is UDP
# port 4791 behind a 20-byte IPv4 header (vrnic sends no options), CNP4
# also BTH opcode 0x81.
ROCE4='cmp(u16 at 22 layer network eq 4791)'
CNP4="$ROCE4 and cmp(u8 at 28 layer network eq 129)"
prio_watch() {
	ip netns exec "$1" tc filter add dev "$2" egress pref 1 protocol ip \
		basic match "$3" action continue &&
	ip netns exec "$1" tc filter add dev "$2" egress pref 2 protocol ip \
		basic match "$3 and meta(priority eq $4)" action continue
}

prio_check() {
	local name=$1 ns=$2 dev=$3 all with

	all=$(tc_pkts "$ns" "$dev" egress 1)
	with=$(tc_pkts "$ns" "$dev" egress 2)
	ktap_comment "$with of $all packets with that priority"
	if [[ $all -gt 0 && $with -eq $all ]]; then
		ktap_ok "$name"
	else
		ktap_fail "$name" "$with of $all packets"
	fi
}

# mark_ce NS DEV HOOK [U32 MATCH...]: set ECN to CE (11), keeping the DSCP,
# on IPv4 UDP 4791 packets through DEV's HOOK (and the extra matches).
mark_ce() {
	local ns=$1 dev=$2 hook=$3

	shift 3
	ip netns exec "$ns" tc filter add dev "$dev" "$hook" pref 10 protocol ip \
		u32 match ip protocol 17 0xff match ip dport 4791 0xffff "$@" \
		action pedit ex munge ip tos set 0x03 retain 0x03 pipe action csum ip
}

qos_both() {
	in_a rdmactl qos set vrnic0 "$@" && in_b rdmactl qos set vrnic1 "$@"
}

# ---- setup ----

run_stage "capture/decoder self-test (ICRC vectors of wire_pkt.h, masking, pacing model)" \
	"${ROCE_WIRE[@]}" selftest
for m in sch_ingress cls_u32 cls_basic em_cmp em_meta act_pedit act_csum act_gact; do
	modprobe "$m" 2>/dev/null
done
veth_setup || ktap_bail "cannot build the two hosts"
wire_serve "$NS_B" "$IF_B" || ktap_bail "cannot start lib/roce_wire.py"
vrnic_pair_setup
if ! { GA=$(roce_gid_wait vrnic0 "$IP_A") && GB=$(roce_gid_wait vrnic1 "$IP_B") &&
	G6A=$(roce_gid_wait vrnic0 "$IP6_A") && G6B=$(roce_gid_wait vrnic1 "$IP6_B"); }; then
	ktap_bail "RoCE v2 GIDs missing"
fi
ktap_comment "GID indexes: vrnic0 $GA (IPv4) $G6A (IPv6), vrnic1 $GB $G6B"
run_stage "clsact on both veth ends" sh -c \
	"ip netns exec $NS_A tc qdisc add dev $IF_A clsact &&
	 ip netns exec $NS_B tc qdisc add dev $IF_B clsact" ||
	ktap_bail "no clsact qdisc"
run_stage "senders' rpg_min_rate 1000 Mb/s" sh -c \
	"ip netns exec $NS_A rdmactl dcqcn set vrnic0 rpg_min_rate 1000 &&
	 ip netns exec $NS_B rdmactl dcqcn set vrnic1 rpg_min_rate 1000"

A=$IP_A
B=$IP_B
PP="-s 4096 -n 20"		# ibv_rc_pingpong: 4 packets a message
WB="-F -s 16384 -n 20"		# perftest: 16 packets a message

# ---- (a) default settings: DSCP 0, data ECT(0), ACKs Not-ECT ----

P=defaults_ipv4
phase $P
run_stage "$P: ibv_rc_pingpong over IPv4" traffic ibv_rc_pingpong "-g $GB $PP" "-g $GA $PP"
wire_cap_stop
wire_check $P "$LOG/$P.pcap" summary lossless icrc \
	"pkt sel=req src=$A dscp=0 ecn=2" "pkt sel=req src=$B dscp=0 ecn=2" \
	"pkt sel=ack src=$A dscp=0 ecn=0" "pkt sel=ack src=$B dscp=0 ecn=0" \
	"count sel=cnp eq=0"

P=defaults_ipv6
phase $P
run_stage "$P: ibv_rc_pingpong over IPv6" traffic ibv_rc_pingpong "-g $G6B $PP" "-g $G6A $PP"
wire_cap_stop
wire_check $P "$LOG/$P.pcap" summary lossless icrc \
	"pkt sel=req src=$IP6_A dscp=0 ecn=2" "pkt sel=req src=$IP6_B dscp=0 ecn=2" \
	"pkt sel=ack src=$IP6_A dscp=0 ecn=0" "pkt sel=ack src=$IP6_B dscp=0 ecn=0"

# ---- (b) qos tclass, the path's traffic class over it, SL as priority ----

P=qos_tclass104
run_stage "$P: rdmactl qos set tclass 104 on both" qos_both tclass 104
phase $P
run_stage "$P: ibv_rc_pingpong" traffic ibv_rc_pingpong "-g $GB $PP" "-g $GA $PP"
wire_cap_stop
wire_check $P "$LOG/$P.pcap" summary lossless icrc \
	"pkt sel=req src=$A dscp=26 ecn=2" "pkt sel=req src=$B dscp=26 ecn=2" \
	"pkt sel=ack src=$A dscp=26 ecn=0" "pkt sel=ack src=$B dscp=26 ecn=0"

P=path_tclass184_sl5
phase $P
prio_watch "$NS_A" "$IF_A" "$ROCE4" 5
prio_watch "$NS_B" "$IF_B" "$ROCE4" 5
run_stage "$P: ib_write_bw --tclass 184 -S 5 (qos tclass 104)" \
	traffic ib_write_bw "-x $GB --tclass=184 -S 5 $WB" "-x $GA --tclass=184 -S 5 $WB"
bw_note
wire_cap_stop
wire_check $P "$LOG/$P.pcap" summary lossless icrc \
	"pkt sel=req src=$A dscp=46 ecn=2" "pkt sel=ack src=$B dscp=46 ecn=0"
prio_check "$P: A's RoCE packets leave with skb->priority 5 (trust pcp: the SL)" "$NS_A" "$IF_A"
prio_check "$P: B's RoCE packets leave with skb->priority 5" "$NS_B" "$IF_B"

# ---- trust dscp: priority from dscp2prio, ECN by that priority ----

P=trust_dscp_prio3_ecn
run_stage "$P: qos set trust dscp ecn 3 on both" qos_both trust dscp ecn 3
phase $P
prio_watch "$NS_A" "$IF_A" "$ROCE4" 3
# Every 40th request dropped at B's ingress (after the capture saw it):
# the resent copies must be ECT(0) as well.
run_stage "$P: every 40th request from A dropped at $IF_B ingress" \
	in_b tc filter add dev "$IF_B" ingress pref 20 protocol ip u32 \
	match ip protocol 17 0xff match ip dport 4791 0xffff match ip src "$A/32" \
	action gact pass random determ drop 40
run_stage "$P: ib_write_bw, qos tclass 104 = DSCP 26 -> prio 3" \
	traffic ib_write_bw "-x $GB $WB" "-x $GA $WB"
wire_cap_stop
wire_check $P "$LOG/$P.pcap" summary lossless icrc \
	"pkt sel=req src=$A dscp=26 ecn=2" "pkt sel=ack src=$B dscp=26 ecn=0" \
	"retx sel=req src=$A ecn=2"
prio_check "$P: A's RoCE packets leave with skb->priority dscp2prio[26] = 3" "$NS_A" "$IF_A"

P=trust_dscp_prio5_noecn
phase $P
prio_watch "$NS_A" "$IF_A" "$ROCE4" 5
run_stage "$P: ib_write_bw --tclass 184 = DSCP 46 -> prio 5, not in ecn_en" \
	traffic ib_write_bw "-x $GB --tclass=184 $WB" "-x $GA --tclass=184 $WB"
wire_cap_stop
wire_check $P "$LOG/$P.pcap" summary lossless icrc \
	"pkt sel=req src=$A dscp=46 ecn=0" "pkt sel=ack src=$B dscp=46 ecn=0"
prio_check "$P: A's RoCE packets leave with skb->priority dscp2prio[46] = 5" "$NS_A" "$IF_A"

# ---- (c) ecn_en 0: data Not-ECT; CE at a receiver with ECN off: no CNP ----

P=ecn_none
run_stage "$P: qos set trust pcp ecn none on both" qos_both trust pcp ecn none
phase $P
run_stage "$P: CE set at $IF_B ingress" mark_ce "$NS_B" "$IF_B" ingress
run_stage "$P: ib_write_bw" traffic ib_write_bw "-x $GB $WB --wait_destroy=1" \
	"-x $GA $WB --wait_destroy=1"
wire_cap_stop
wire_check $P "$LOG/$P.pcap" summary lossless icrc \
	"pkt sel=req src=$A dscp=26 ecn=0" "pkt sel=ack src=$B dscp=26 ecn=0" \
	"count sel=cnp eq=0"
expect_num "$P: tc pedit marked A's packets CE at B" "$(tc_pkts "$NS_B" "$IF_B" ingress 10)" gt 0
expect_num "$P: np_cnp_sent of vrnic1 did not move" "$(delta vrnic1 np_cnp_sent)" eq 0

# ---- CNPs: a burst shorter than N draws exactly two per QP ----

N=100000
P=cnp_burst
run_stage "$P: qos back to trust pcp, ecn on every priority, tclass 0" \
	qos_both trust pcp ecn 0,1,2,3,4,5,6,7 tclass 0
run_stage "$P: vrnic1 min_time_between_cnps $N us" \
	in_b rdmactl dcqcn set vrnic1 min_time_between_cnps $N
phase $P
run_stage "$P: CE set on A's RoCE packets at $IF_A egress" mark_ce "$NS_A" "$IF_A" egress
prio_watch "$NS_B" "$IF_B" "$CNP4" 6
run_stage "$P: ib_write_bw -n 5, QPs kept 2 s" traffic ib_write_bw \
	"-x $GB -F -s 16384 -n 5 --wait_destroy=2" "-x $GA -F -s 16384 -n 5 --wait_destroy=2"
wire_cap_stop
sent=$(delta vrnic1 np_cnp_sent)
marked=$(delta vrnic1 np_ecn_marked_roce_packets)
wire_check $P "$LOG/$P.pcap" summary lossless icrc \
	"pkt sel=req src=$A dscp=0 ecn=3" "pkt sel=ack src=$B dscp=0 ecn=0" \
	"cnpfmt src=$B dst=$A dscp=48" \
	"cnppace src=$B dst=$A n=$N gap=0.5 band=0.2" \
	"count sel=cnp src=$B eq=$sent label=np_cnp_sent" \
	"count sel=cnp src=$A eq=0" \
	"count src=$A dst=$B ce=1 ge=$marked label=np_ecn_marked_roce_packets"
expect_num "$P: np_cnp_sent of vrnic1 > 0" "$sent" gt 0
expect_num "$P: rp_cnp_handled of vrnic0 = np_cnp_sent of vrnic1" \
	"$(delta vrnic0 rp_cnp_handled)" eq "$sent"
expect_num "$P: rp_cnp_ignored of vrnic0 stays 0" "$(delta vrnic0 rp_cnp_ignored)" eq 0
expect_num "$P: np_ecn_marked_roce_packets of vrnic1 > 0" "$marked" gt 0
prio_check "$P: CNPs leave with skb->priority cnp_802p_prio 6" "$NS_B" "$IF_B"

# ---- CNPs under continuous marking, two QPs, other DSCP/priority; ----
# ---- CE on ACKs draws no CNP                                        ----

N=10000
P=cnp_stream
run_stage "$P: vrnic1 min_time_between_cnps $N cnp_dscp 40 cnp_802p_prio 3" \
	in_b rdmactl dcqcn set vrnic1 min_time_between_cnps $N cnp_dscp 40 cnp_802p_prio 3
phase $P
run_stage "$P: CE set on A's RoCE packets at $IF_A egress" mark_ce "$NS_A" "$IF_A" egress
run_stage "$P: CE set on B's ACKs at $IF_B egress" mark_ce "$NS_B" "$IF_B" egress \
	match u8 0x11 0xff at 28
prio_watch "$NS_B" "$IF_B" "$CNP4" 3
run_stage "$P: ib_write_bw -q 2 -n 1000 -s 4096" traffic ib_write_bw \
	"-x $GB -F -q 2 -s 4096 -n 1000 --wait_destroy=1" \
	"-x $GA -F -q 2 -s 4096 -n 1000 --wait_destroy=1"
bw_note
wire_cap_stop
sent=$(delta vrnic1 np_cnp_sent)
wire_check $P "$LOG/$P.pcap" summary lossless icrc \
	"pkt sel=req src=$A dscp=0 ecn=3" "pkt sel=ack src=$B dscp=0 ecn=3" \
	"cnpfmt src=$B dst=$A dscp=40" \
	"cnppace src=$B dst=$A n=$N gapq=0.05:0.5,0.5:0.9 lo=0.25" \
	"count sel=cnp src=$B eq=$sent label=np_cnp_sent" \
	"count sel=cnp src=$A eq=0"
expect_num "$P: rp_cnp_handled of vrnic0 = np_cnp_sent of vrnic1" \
	"$(delta vrnic0 rp_cnp_handled)" eq "$sent"
expect_num "$P: rp_cnp_ignored of vrnic0 stays 0" "$(delta vrnic0 rp_cnp_ignored)" eq 0
expect_num "$P: np_cnp_sent of vrnic0 stays 0 (CE on ACKs)" "$(delta vrnic0 np_cnp_sent)" eq 0
prio_check "$P: CNPs leave with skb->priority cnp_802p_prio 3" "$NS_B" "$IF_B"

# ---- CE on READ responses: the requester is the notification point ----

N=20000
P=cnp_read
run_stage "$P: vrnic0 min_time_between_cnps $N" \
	in_a rdmactl dcqcn set vrnic0 min_time_between_cnps $N
phase $P
run_stage "$P: CE set on B's packets at $IF_A ingress" mark_ce "$NS_A" "$IF_A" ingress \
	match ip src "$B/32"
# rdma_cm (-R): perftest leaves its server QP in RTR otherwise, and a
# QP not in RTS ignores CNPs (rp_cnp_ignored).
run_stage "$P: ib_read_bw -R (rdma_cm: the responder's QP in RTS)" traffic ib_read_bw \
	"-R $WB --wait_destroy=1" "-R $WB --wait_destroy=1"
bw_note
wire_cap_stop
sent=$(delta vrnic0 np_cnp_sent)
marked=$(delta vrnic0 np_ecn_marked_roce_packets)
wire_check $P "$LOG/$P.pcap" summary lossless icrc \
	"pkt sel=rresp src=$B dscp=0 ecn=2" "pkt sel=req op=0x0c src=$A dscp=0 ecn=2" \
	"cnpfmt src=$A dst=$B dscp=48" \
	"cnppace src=$A dst=$B n=$N gapq=0.05:0.5,0.5:0.9 lo=0.25 ceall=1" \
	"count sel=cnp src=$A eq=$sent label=np_cnp_sent" \
	"count src=$B dst=$A ge=$marked label=np_ecn_marked_roce_packets"
expect_num "$P: np_cnp_sent of vrnic0 > 0" "$sent" gt 0
expect_num "$P: rp_cnp_handled of vrnic1 = np_cnp_sent of vrnic0" \
	"$(delta vrnic1 rp_cnp_handled)" eq "$sent"
expect_num "$P: rp_cnp_ignored of vrnic1 stays 0" "$(delta vrnic1 rp_cnp_ignored)" eq 0
expect_num "$P: np_ecn_marked_roce_packets of vrnic0 > 0" "$marked" gt 0

# ---- READ responses are paced by the responder's reaction point ----

# B's QP is held between rpg_min_rate 10 and rpg_max_rate 20 Mb/s once its
# first CNP arrives: no increase for 131 ms (rpg_time_reset at its maximum,
# no byte counter) while A answers the CE marks on B's READ responses
# every 50 us.  60 x 64 KiB (31 Mbit) then take at least 1.5 s; unpaced,
# the guest moves them in a small fraction of that.
P=read_paced
TIME_MAX=$(uapi_define VRNIC_DCQCN_TIME_MAX) ||
	ktap_bail "no VRNIC_DCQCN_TIME_MAX in uapi/vrnic.h"
run_stage "$P: vrnic1 rate held in [10, 20] Mb/s after a CNP" \
	in_b rdmactl dcqcn set vrnic1 rpg_max_rate 20 rpg_min_rate 10 \
	rpg_time_reset "$TIME_MAX" rpg_byte_reset 0
run_stage "$P: vrnic0 min_time_between_cnps 50" \
	in_a rdmactl dcqcn set vrnic0 min_time_between_cnps 50
snap
run_stage "$P: ib_read_bw -R 60 x 64 KiB through the CE marks" traffic ib_read_bw \
	"-R -F -s 65536 -n 60 --wait_destroy=1" "-R -F -s 65536 -n 60 --wait_destroy=1"
bw_note
avg=$(awk '/#bytes/ { getline; print $4; exit }' "$LOG/client" 2>/dev/null)
expect_num "$P: rp_cnp_handled of vrnic1 > 0" "$(delta vrnic1 rp_cnp_handled)" gt 0
# perftest's MB/s are 2^20 bytes: 20 Mb/s is 2.4 MB/s; twice that allows
# for the unpaced start before the first CNP.
ktap_result "$P: READ bandwidth ${avg:-?} MB/s at most twice rpg_max_rate (4.8 MB/s)" \
	"$(awk -v a="$avg" 'BEGIN { exit !(a != "" && a + 0 <= 4.8) }' && echo 0 || echo 1)"
run_stage "$P: vrnic1 back to rpg_max_rate 0 rpg_min_rate 1000" \
	in_b rdmactl dcqcn set vrnic1 rpg_max_rate 0 rpg_min_rate 1000 \
	rpg_time_reset 55 rpg_byte_reset 10485760

# ---- hostile CNPs at a live QP ----

P=cnp_injected
phase_keep
PHASE=
tc_clear
# rc_qpn: the QPN of vrnic0's RC QP in RTS (decimal, as rdma prints it).
rc_qpn() {
	rdma resource show qp link vrnic0/1 2>/dev/null |
		awk '/type RC/ && /state RTS/ { for (i = 1; i < NF; i++) if ($i == "lqpn") { print $(i + 1); exit } }'
}
has_rc_qp() {
	[[ -n $(rc_qpn) ]]
}
# qp_attr QPN NAME: a driver attribute of vrnic0's QP QPN (rdma -dd).
qp_attr() {
	rdma -dd resource show qp link vrnic0/1 lqpn "$1" 2>/dev/null |
		awk -v k="drv_$2" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'
}
# inj ARGS...: inject one packet from B to A (roce_wire.py inject, one
# process started before the transfer: a Python start-up takes seconds
# under TCG, and the transfer must outlast the injections); sets
# INJ_DROPS (growth of every drop reason plus rp_cnp_ignored of vrnic0),
# INJ_UNKNOWN (drop_unknown_qp) and INJ_HANDLED (rp_cnp_handled).
coproc INJECTOR { in_b "${ROCE_WIRE[@]}" inject - 2>&1; }
defer kill "$INJECTOR_PID"
inj() {
	local before after h0 h1 t0=$SECONDS line=

	before=$(rdma statistic show link vrnic0/1)
	echo "$B $A $*" >&"${INJECTOR[1]}"
	read -r -t 30 line <&"${INJECTOR[0]}"
	[[ $line == sent* ]] || ktap_comment "injector: ${line:-no answer in 30 s}"
	sleep 1
	after=$(rdma statistic show link vrnic0/1)
	ktap_comment "inject $* ($((SECONDS - t0)) s): counters of vrnic0 that moved:$(
		join <(tr ' ' '\n' <<<"$before" | paste - - | sort) \
		     <(tr ' ' '\n' <<<"$after" | paste - - | sort) |
		awk '$2 ~ /^[0-9]+$/ && $3 != $2 { printf " %s +%d", $1, $3 - $2 }')"
	INJ_DROPS=$(($(drops_of "$after") - $(drops_of "$before")))
	INJ_UNKNOWN=$(($(stat_of "$after" drop_unknown_qp) - $(stat_of "$before" drop_unknown_qp)))
	h0=$(stat_of "$before" rp_cnp_handled)
	h1=$(stat_of "$after" rp_cnp_handled)
	INJ_HANDLED=
	[[ -n $h0 && -n $h1 ]] && INJ_HANDLED=$((h1 - h0))
}
# A transfer that runs until the test stops it, so that the injections
# always meet a live QP, however slow the guest; the connection must
# still carry data after them.
PORT=$((PORT + 1))
ip netns exec "$NS_B" timeout -k 5 "$TMO" ib_write_bw -d vrnic1 -p $PORT -x "$GB" -F -s 4096 \
	-n 100000000 >"$LOG/inj.srv" 2>&1 &
ispid=$!
defer kill "$ispid"
wait_for 60 tcp_listening "$NS_B" $PORT
ip netns exec "$NS_A" timeout -k 5 "$TMO" ib_write_bw -d vrnic0 -p $PORT -x "$GA" -F -s 4096 \
	-n 100000000 "$B" >"$LOG/inj.cli" 2>&1 &
icpid=$!
defer kill "$icpid"
if run_stage "$P: an RC QP of vrnic0 in RTS (ib_write_bw running)" wait_for 60 has_rc_qp; then
	qpn=$(rc_qpn)
	ktap_comment "vrnic0 QP $qpn"
	inj "$qpn"
	expect_num "$P: well-formed CNP from the peer to the live QP handled (rp_cnp_handled + 1)" \
		"$INJ_HANDLED" eq 1
	expect_num "$P: well-formed CNP not dropped or ignored" "$INJ_DROPS" eq 0
	inj "$qpn" truncated
	expect_num "$P: truncated CNP to the live QP counted as a drop or rp_cnp_ignored" "$INJ_DROPS" ge 1
	expect_num "$P: truncated CNP not handled" "$INJ_HANDLED" eq 0
	expect_output "$P: the QP still in RTS after the truncated CNP" "^$qpn\$" rc_qpn
	# An ACK for a PSN half the PSN space away from the QP's window
	# answers nothing it sent (neither a new nor a duplicate response):
	# the completer drops it, and the QP counts it.
	d0=$(qp_attr "$qpn" dropped_packets)
	max_psn=$(qp_attr "$qpn" max_psn)
	if [[ -n $d0 && -n $max_psn ]]; then
		inj "$qpn" ack $(((max_psn + 0x800000) & 0xffffff))
		d1=$(qp_attr "$qpn" dropped_packets)
		expect_num "$P: ACK for a PSN never sent counted in the QP's dropped_packets" \
			"$((${d1:-0} - d0))" ge 1
	else
		ktap_fail "$P: ACK for a PSN never sent counted in the QP's dropped_packets" \
			"no dropped_packets ('$d0') or max_psn ('$max_psn') in rdma -dd resource show qp"
	fi
	expect_output "$P: the QP still in RTS after the stale ACK" "^$qpn\$" rc_qpn
	# The injector's packets pass vrnic's ICRC check: an ACK to no QP
	# is dropped as drop_unknown_qp, which comes after that check.
	inj "$UNKNOWN_QPN" ack
	expect_num "$P: injected ACK to unknown QP $UNKNOWN_QPN counted as drop_unknown_qp (ICRC accepted)" \
		"$INJ_UNKNOWN" eq 1
	inj "$UNKNOWN_QPN"
	expect_num "$P: CNP to unknown QP $UNKNOWN_QPN counted as a drop or rp_cnp_ignored" "$INJ_DROPS" ge 1
	expect_num "$P: CNP to an unknown QP not handled" "$INJ_HANDLED" eq 0
fi
# The connection survived it all: both ends still run, and vrnic0 still
# sends.
tx0=$(stat_of "$(rdma statistic show link vrnic0/1)" tx_packets)
sleep 1
tx1=$(stat_of "$(rdma statistic show link vrnic0/1)" tx_packets)
if kill -0 "$icpid" 2>/dev/null && kill -0 "$ispid" 2>/dev/null && ((tx1 > tx0)); then
	ktap_ok "$P: the transfer still runs"
else
	ktap_comment "client:"
	tail -n 15 "$LOG/inj.cli" | sed 's/^/#   /'
	ktap_comment "server:"
	tail -n 15 "$LOG/inj.srv" | sed 's/^/#   /'
	ktap_fail "$P: the transfer still runs" "tx_packets of vrnic0 $tx0 -> $tx1 in 1 s"
fi
kill "$icpid" "$ispid" 2>/dev/null
wait "$icpid" "$ispid"

ktap_finish
