#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# VRNIC_TIMEOUT=300
#
# cc_vlan: RoCE traffic of a VLAN carries vrnic's priority as the 802.1Q
# PCP (vrnic_tx_qos() sets skb->priority, the VLAN's egress-qos-map turns
# it into the PCP; docs/cc.md "VLAN and PCP").
#
# Two namespaces joined by a veth; on each end a VLAN device (id 100,
# identity egress-qos-map) carrying an IPv4 address; vrnic0 is bound to
# A's veth end, vrnic1 to B's, as a RoCE NIC is bound to its port: ib_core
# gives such a device a GID for every address of the netdev's VLANs
# (roce_gid_mgmt.c, is_eth_port_of_netdev_filter), and vrnic routes a
# packet through the netdev of its source GID (vrnic_av.ifindex), so it
# leaves tagged.  lib/roce_wire.py captures on veth_b, under the VLAN,
# both directions; the tag the kernel keeps out of band there is put back
# into the frame, so the PCP is what a switch would see.  Checked:
#
#  - vrnic0 and vrnic1 have RoCE v2 GIDs for their VLAN's IPv4 address
#    (on the VLAN device); the traffic below uses them;
#  - trust dscp, dscp2prio 26:4 (not the default map's 3), SL 2 (ignored
#    under trust dscp), ib_write_bw --tclass 104 on both sides: requests
#    and ACKs carry DSCP 26 and PCP 4;
#  - trust pcp, SL 0, traffic class 0: requests and ACKs DSCP 0, PCP 0;
#    with CE set on A's requests (tc pedit on A's VLAN device, where the
#    packet is still plain IP) and vrnic1's cnp_802p_prio 5, the CNPs B
#    sends carry DSCP 48 (cnp_dscp), ECT(0) and PCP 5.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd ip tc rdma rdmactl python3 ib_write_bw ss

LOG=$(mktemp -d /tmp/cc_vlan.XXXXXX)
defer rm -rf "$LOG"
VID=100
VL_A=$IF_A.$VID
VL_B=$IF_B.$VID
V4_A=10.112.0.1
V4_B=10.112.0.2
QOS_MAP=(0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7)
PORT=18760
WB="-F -s 4096 -n 40"		# perftest: 4 packets a message

# vlan_up NS REAL VLAN ADDR: VLAN $VID on REAL with the identity egress
# map, IPv4 ADDR, no IPv6 DAD (the link-local address carries traffic).
vlan_up() {
	ip netns exec "$1" sysctl -qw net.ipv6.conf.default.accept_dad=0 &&
	ip -n "$1" link add link "$2" name "$3" type vlan id "$VID" \
		egress-qos-map "${QOS_MAP[@]}" &&
	ip -n "$1" addr add "$4/24" dev "$3" &&
	ip -n "$1" link set "$3" up
}

vlans_up() {
	vlan_up "$NS_A" "$IF_A" "$VL_A" "$V4_A" && vlan_up "$NS_B" "$IF_B" "$VL_B" "$V4_B" &&
		ip -n "$NS_A" -d link show "$VL_A"
}

devs_add() {
	in_a rdma link add vrnic0 type vrnic netdev "$IF_A" &&
		in_b rdma link add vrnic1 type vrnic netdev "$IF_B"
}

qos_both() {
	in_a rdmactl qos set vrnic0 "$@" && in_b rdmactl qos set vrnic1 "$@"
}

# traffic "ARGS": ib_write_bw's server on vrnic1 (B), its client on vrnic0
# (A), both on their VLAN address's GID with ARGS; both must exit 0.
traffic() {
	local spid rc=0 src=0

	PORT=$((PORT + 1))
	# shellcheck disable=SC2086 # an argument list
	in_b timeout -k 5 120 ib_write_bw -d vrnic1 -p "$PORT" -x "$GB" $1 >"$LOG/server" 2>&1 &
	spid=$!
	if ! wait_for 60 tcp_listening "$NS_B" "$PORT"; then
		kill "$spid" 2>/dev/null
		wait "$spid"
		cat "$LOG/server"
		return 1
	fi
	# shellcheck disable=SC2086
	in_a timeout -k 5 120 ib_write_bw -d vrnic0 -p "$PORT" -x "$GA" $1 "$V4_B" || rc=$?
	wait "$spid" || src=$?
	[[ $rc -eq 0 && $src -eq 0 ]] && return 0
	echo "client exit $rc, server exit $src; server output:"
	cat "$LOG/server"
	return 1
}

# ---- setup ----

veth_setup || ktap_bail "cannot build the two hosts"
# Captures on veth_b, B's end under the VLAN (the 802.1Q tags show there).
wire_serve "$NS_B" "$IF_B" || ktap_bail "cannot start lib/roce_wire.py"
run_stage "VLAN $VID with egress-qos-map ${QOS_MAP[*]} on both veth ends" vlans_up ||
	ktap_bail "no VLAN devices"
run_stage "vrnic0 on $IF_A, vrnic1 on $IF_B" devs_add || ktap_bail "no devices"
defer in_a rdma link delete vrnic0
defer in_b rdma link delete vrnic1

# ib_core adds the GIDs of the addresses that exist when a device
# registers before "rdma link add" returns.
expect_output "vrnic0 has a RoCE v2 GID for $V4_A, the address of $VL_A" \
	"RoCE v2 +${VL_A//./\\.} +${V4_A//./\\.} *\$" rdmactl gid show vrnic0
if ! { GA=$(roce_gid_index vrnic0 "$V4_A") && GB=$(roce_gid_index vrnic1 "$V4_B"); }; then
	ktap_bail "no RoCE v2 GIDs for the VLAN addresses"
fi
ktap_comment "traffic between the VLAN addresses' GIDs: vrnic0 index $GA, vrnic1 index $GB"
# The reaction point's cuts would only stretch the CNP phase.
run_stage "vrnic0 rpg_min_rate 1000 Mb/s" in_a rdmactl dcqcn set vrnic0 rpg_min_rate 1000

# ---- trust dscp: PCP = dscp2prio[DSCP], for requests and ACKs ----

P=trust_dscp
run_stage "$P: qos set trust dscp dscp2prio 26:4 on both" qos_both trust dscp dscp2prio 26:4
run_stage "$P: capture on $IF_B" wire_cap_start "$LOG/$P.pcap"
run_stage "$P: ib_write_bw --tclass 104 (DSCP 26) --sl 2" traffic "$WB --tclass=104 --sl=2"
wire_cap_stop
# Requests only go from A to B, ACKs and CNPs from B to A.
wire_check $P "$LOG/$P.pcap" summary lossless icrc "pkt sel=req dscp=26 pcp=4" "pkt sel=ack dscp=26 pcp=4"

# ---- trust pcp, SL 0: PCP 0; CNPs: PCP cnp_802p_prio ----

P=trust_pcp_cnp
run_stage "$P: qos set trust pcp on both" qos_both trust pcp
run_stage "$P: vrnic1 cnp_802p_prio 5" in_b rdmactl dcqcn set vrnic1 cnp_802p_prio 5
run_stage "$P: clsact on $VL_A" in_a tc qdisc add dev "$VL_A" clsact
run_stage "$P: CE set on A's RoCE packets at $VL_A egress" \
	in_a tc filter add dev "$VL_A" egress pref 10 protocol ip \
	u32 match ip protocol 17 0xff match ip dport 4791 0xffff \
	action pedit ex munge ip tos set 0x03 retain 0x03 pipe action csum ip
run_stage "$P: capture on $IF_B" wire_cap_start "$LOG/$P.pcap"
run_stage "$P: ib_write_bw, SL 0, traffic class 0" traffic "$WB"
wire_cap_stop
wire_check $P "$LOG/$P.pcap" summary lossless icrc "pkt sel=req dscp=0 ecn=3 pcp=0" "pkt sel=ack dscp=0 pcp=0" \
	"pkt sel=cnp dscp=48 ecn=2 pcp=5"

ktap_finish
