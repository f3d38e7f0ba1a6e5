#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma_statistic_qp.sh - per-QP counters through ib_core's rdma_counter
# ops, read with iproute2's "rdma statistic qp".
#
# vrnic0 (ns_a) and vrnic1 (ns_b) on a veth pair talk only to each other,
# so what a counter on vrnic0 counts can be checked against vrnic1's port
# counters, and both against the payload ibv_rc_pingpong moves:
#  - auto mode binds each new RC QP to one counter per QP type; a client's
#    traffic stays in that counter after the client's QP is destroyed (an
#    idle holder QP keeps the counter alive);
#  - vrnic0's port counters count a bound QP's packets once (ib_core adds
#    the counters to what the driver reports);
#  - manual bind (new counter, and to an existing one), unbind: the
#    counter stops counting the QP and keeps what it counted; the last
#    unbind releases the counter;
#  - only root changes bindings; ib_core shows every user the counters
#    (6.1 has no owner filter there, which is why the vrnic family keeps
#    VRNIC_CMD_QP_STATS_GET, filtered per user: netlink_visibility.sh).

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd ip rdma ibv_rc_pingpong setpriv jq ss

LINK=vrnic0/1
SIZE=4096
ITERS=20
PAYLOAD=$((SIZE * ITERS))
BIND_SERVER=()
BIND_SERVER_TAIL=()
# A prefix, not a function: it must work behind "ip netns exec".
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# counters: "rdma statistic qp show" of vrnic0 as JSON, one object per
# counter: cntn, lqpn (array), and the port counters' names.
counters() {
	rdma -j statistic qp show link "$LINK"
}

# counter_of QPN: the counter QPN is bound to (empty if none).
counter_of() {
	counters | jq -r --argjson q "$1" '.[] | select(any(.lqpn[]?; . == $q)) | .cntn'
}

# cval CNTN NAME: counter CNTN's value of NAME (empty if no such counter).
cval() {
	counters | jq -r --argjson c "$1" --arg n "$2" '.[] | select(.cntn == $c) | .[$n]'
}

# qps_of CNTN: the QPs bound to counter CNTN, space separated.
qps_of() {
	counters | jq -r --argjson c "$1" '.[] | select(.cntn == $c) | [.lqpn[]?] | map(tostring) | join(" ")'
}

# port DEV NAME: port counter NAME of DEV/1, as ib_core reports it.
port() {
	rdma -j statistic show link "$1/1" | jq -r --arg n "$2" '.[0][$n]'
}

# pids_under PID: PID and its descendants ("ip netns exec" and timeout
# fork the command they run).
pids_under() {
	local p

	echo "$1"
	for p in $(pgrep -P "$1"); do
		pids_under "$p"
	done
}

# kill_tree PID...: kill PID and its descendants, and reap PID.
kill_tree() {
	local p pids

	for p in "$@"; do
		mapfile -t pids < <(pids_under "$p")
		kill -KILL "${pids[@]}" 2>/dev/null
	done
	wait "$@" 2>/dev/null
}

# qpn_of PID: the QP on vrnic0 of the process PID started.
qpn_of() {
	rdma -j resource show qp link "$LINK" |
		jq -r --argjson p "[$(pids_under "$1" | paste -sd,)]" \
			'.[] | select(.pid as $x | any($p[]; . == $x)) | .lqpn'
}

# is NAME GOT WANT: a check of one value, reported with both.
is() {
	run_stage "$1 (got '$2', want '$3')" test "$2" = "$3"
}

# counted_exactly CNTN: counter CNTN holds the pingpong just run exactly:
# its payload each way, as many packets as vrnic1 received and sent
# meanwhile (RX1, TX1, from peer_delta), and no retransmission.
counted_exactly() {
	is "counter $1 tx_bytes: the payload sent" "$(cval "$1" tx_bytes)" "$PAYLOAD"
	is "counter $1 rx_bytes: the payload received" "$(cval "$1" rx_bytes)" "$PAYLOAD"
	is "counter $1 tx_packets: the packets vrnic1 received" "$(cval "$1" tx_packets)" "$RX1"
	is "counter $1 rx_packets: the packets vrnic1 sent" "$(cval "$1" rx_packets)" "$TX1"
	is "counter $1 retransmits: none on a clean link" "$(cval "$1" retransmits)" 0
}

# peer_mark, peer_delta: RX1 and TX1, vrnic1's port rx and tx packets
# since peer_mark.
peer_mark() {
	RX1=$(port vrnic1 rx_packets)
	TX1=$(port vrnic1 tx_packets)
}
peer_delta() {
	RX1=$(($(port vrnic1 rx_packets) - RX1))
	TX1=$(($(port vrnic1 tx_packets) - TX1))
}

# holder PORT [AS...]: an ibv_rc_pingpong server on vrnic0 that waits for
# a client that never comes: its QP (in INIT) lives until killed.  Sets
# HOLDER_PID and HOLDER_QPN.
holder() {
	local port=$1
	shift

	in_a "$@" ibv_rc_pingpong -d vrnic0 -p "$port" >/dev/null 2>&1 &
	HOLDER_PID=$!
	defer kill_tree "$HOLDER_PID"
	wait_for 60 tcp_listening "$NS_A" "$port" || return 1
	HOLDER_QPN=$(qpn_of "$HOLDER_PID")
	[[ -n $HOLDER_QPN ]]
}

# pingpong SERVER_NS CLIENT_NS PORT: $ITERS round trips of $SIZE bytes;
# the server starts first and, if BIND_SERVER (an array: a command) is
# set, that command runs with the server's QPN and then BIND_SERVER_TAIL
# appended before the client starts.
pingpong() {
	local srv_ns=$1 cli_ns=$2 port=$3 srv_dev srv_gid cli_dev cli_gid peer srv qpn

	if [[ $srv_ns == "$NS_A" ]]; then
		srv_dev=vrnic0 srv_gid=$GA cli_dev=vrnic1 cli_gid=$GB peer=$IP_A
	else
		srv_dev=vrnic1 srv_gid=$GB cli_dev=vrnic0 cli_gid=$GA peer=$IP_B
	fi
	ip netns exec "$srv_ns" timeout 120 ibv_rc_pingpong -d "$srv_dev" -g "$srv_gid" \
		-p "$port" -s "$SIZE" -n "$ITERS" >/dev/null 2>&1 &
	srv=$!
	wait_for 60 tcp_listening "$srv_ns" "$port" || return 1
	if [[ ${#BIND_SERVER[@]} -gt 0 ]]; then
		qpn=$(qpn_of "$srv") && [[ -n $qpn ]] || return 1
		"${BIND_SERVER[@]}" "$qpn" "${BIND_SERVER_TAIL[@]}" || return 1
	fi
	ip netns exec "$cli_ns" timeout 120 ibv_rc_pingpong -d "$cli_dev" -g "$cli_gid" \
		-p "$port" -s "$SIZE" -n "$ITERS" "$peer" || return 1
	wait "$srv"
}

veth_setup || ktap_bail "cannot build the two hosts"
vrnic_pair_setup
if ! { GA=$(roce_gid_wait vrnic0 "$IP_A") && GB=$(roce_gid_wait vrnic1 "$IP_B"); }; then
	ktap_bail "RoCE v2 GIDs missing"
fi
# Let nobody open the devices (devtmpfs creates them root-only here).
chmod 0666 /dev/infiniband/uverbs* 2>/dev/null

# ---- auto mode ----------------------------------------------------------

run_stage "auto mode on: rdma statistic qp set link $LINK auto type on" \
	rdma statistic qp set link "$LINK" auto type on
expect_output "the mode reads back" 'auto type on' rdma statistic qp mode link "$LINK"
run_stage "a holder QP on vrnic0" holder 18601 || ktap_bail "no holder QP"
H_PID=$HOLDER_PID
H_QPN=$HOLDER_QPN
C=$(counter_of "$H_QPN")
run_stage "auto mode bound the holder's new QP $H_QPN to a counter ('$C')" test -n "$C" ||
	ktap_bail "no counter"

peer_mark
tx0=$(port vrnic0 tx_packets)
run_stage "traffic: $ITERS x $SIZE bytes each way, client QP on vrnic0" \
	pingpong "$NS_B" "$NS_A" 18515
peer_delta
tx0=$(($(port vrnic0 tx_packets) - tx0))

is "the client's QP is gone, the counter keeps the holder only" "$(qps_of "$C")" "$H_QPN"
counted_exactly "$C"
is "a counter with no per-QP meaning stays 0 (icrc_errors)" "$(cval "$C" icrc_errors)" 0
is "port tx_packets of vrnic0 count the bound QP once" "$tx0" "$RX1"
is "so do its hw_counters in sysfs" \
	"$(cat /sys/class/infiniband/vrnic0/ports/1/hw_counters/tx_packets)" \
	"$(port vrnic1 rx_packets)"

# ---- unprivileged -------------------------------------------------------

expect_fail_msg "nobody cannot turn auto mode off" 'not permitted' \
	"${NOBODY[@]}" rdma statistic qp set link "$LINK" auto off
expect_fail_msg "nobody cannot unbind root's QP" 'not permitted' \
	"${NOBODY[@]}" rdma statistic qp unbind link "$LINK" cntn "$C" lqpn "$H_QPN"
is "root's QP is still bound" "$(counter_of "$H_QPN")" "$C"
expect_output "ib_core shows nobody root's counter (no owner filter in 6.1)" \
	"cntn $C .*tx_bytes $PAYLOAD " "${NOBODY[@]}" rdma statistic qp show link "$LINK"

# ---- manual mode --------------------------------------------------------

run_stage "auto mode off" rdma statistic qp set link "$LINK" auto off
kill_tree "$H_PID"
released() {
	[[ -z $(cval "$C" cntn) ]]
}
run_stage "the counter goes with its last QP" wait_for 30 released
is "the port keeps what it counted" "$(port vrnic0 tx_packets)" "$(port vrnic1 rx_packets)"

run_stage "a second holder QP on vrnic0" holder 18602 || ktap_bail "no holder QP"
M1_PID=$HOLDER_PID
M1_QPN=$HOLDER_QPN
is "without auto mode a new QP is not bound" "$(counter_of "$M1_QPN")" ""
run_stage "bind QP $M1_QPN to a new counter" \
	rdma statistic qp bind link "$LINK" lqpn "$M1_QPN"
M=$(counter_of "$M1_QPN")
run_stage "QP $M1_QPN has a counter ('$M')" test -n "$M" || ktap_bail "no counter"

peer_mark
BIND_SERVER=(rdma statistic qp bind link "$LINK" lqpn)
BIND_SERVER_TAIL=(cntn "$M")
run_stage "traffic: $ITERS x $SIZE bytes, server QP on vrnic0 bound to counter $M first" \
	pingpong "$NS_A" "$NS_B" 18603
BIND_SERVER=()
peer_delta
is "counter $M keeps the first QP only" "$(qps_of "$M")" "$M1_QPN"
counted_exactly "$M"
is "port tx_packets: every packet once" "$(port vrnic0 tx_packets)" "$(port vrnic1 rx_packets)"
is "port rx_packets: every packet once" "$(port vrnic0 rx_packets)" "$(port vrnic1 tx_packets)"

# Unbind: a long exchange, bound, then unbound while it runs.
in_a timeout 300 ibv_rc_pingpong -d vrnic0 -g "$GA" -p 18604 -n 1000000 >/dev/null 2>&1 &
L_PID=$!
defer kill_tree "$L_PID"
run_stage "the long exchange's server listens" wait_for 60 tcp_listening "$NS_A" 18604
L_QPN=$(qpn_of "$L_PID")
run_stage "bind the long exchange's QP '$L_QPN' to counter $M" \
	rdma statistic qp bind link "$LINK" lqpn "$L_QPN" cntn "$M"
in_b timeout 300 ibv_rc_pingpong -d vrnic1 -g "$GB" -p 18604 -n 1000000 "$IP_A" >/dev/null 2>&1 &
LC_PID=$!
defer kill_tree "$LC_PID"
before=$(cval "$M" tx_packets)
moving() {
	[[ $(cval "$M" tx_packets) -gt $((before + 50)) ]]
}
run_stage "counter $M counts the bound QP's traffic" wait_for 60 moving
v0=$(cval "$M" tx_packets)
run_stage "unbind QP $L_QPN from counter $M" \
	rdma statistic qp unbind link "$LINK" cntn "$M" lqpn "$L_QPN"
is "counter $M no longer lists it" "$(qps_of "$M")" "$M1_QPN"
v1=$(cval "$M" tx_packets)
run_stage "counter $M keeps what the QP counted while bound ($v1 >= $v0)" \
	test "$v1" -ge "$v0"
peer=$(port vrnic1 rx_packets)
more() {
	[[ $(port vrnic1 rx_packets) -gt $((peer + 100)) ]]
}
run_stage "the unbound QP keeps sending" wait_for 60 more
is "counter $M counts no more of it" "$(cval "$M" tx_packets)" "$v1"
kill_tree "$L_PID" "$LC_PID"

run_stage "unbind the last QP of counter $M" \
	rdma statistic qp unbind link "$LINK" cntn "$M" lqpn "$M1_QPN"
is "counter $M is released" "$(cval "$M" cntn)" ""
expect_fail "bind to the released counter fails" \
	rdma statistic qp bind link "$LINK" lqpn "$M1_QPN" cntn "$M"
kill_tree "$M1_PID"
ktap_finish
