#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdmactl_stats: counters move after traffic.  Two vrnic devices on a veth
# pair in two namespaces exchange RC traffic with ibv_rc_pingpong; the port
# counters (rdmactl stats show, and the same names in iproute2's
# "rdma statistic") must have moved by at least the traffic sent, and the
# per-QP counters of a live QP must move.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd ip rdma rdmactl ibv_rc_pingpong

ITERS=50
SIZE=4096

# counter NAME: value of a port counter of vrnic0 from rdmactl's JSON.
counter() {
	in_a rdmactl -j stats show vrnic0 |
		grep -Eo "\"$1\": *[0-9]+" | head -n1 | grep -Eo '[0-9]+$'
}

veth_setup || ktap_bail "cannot build the two hosts"
vrnic_pair_setup

expect_output "port counters before traffic are zero" '^0$' counter tx_packets

in_b timeout 120 ibv_rc_pingpong -d vrnic1 -g 1 -s $SIZE -n $ITERS >/dev/null 2>&1 &
srv=$!
# ibv_rc_pingpong's default port; a loaded guest takes seconds to start it.
wait_for 60 tcp_listening "$NS_B" 18515
run_stage "ibv_rc_pingpong: $ITERS round trips of $SIZE bytes" \
	in_a timeout 120 ibv_rc_pingpong -d vrnic0 -g 1 -s $SIZE -n $ITERS "$IP_B"
wait "$srv"

tx=$(counter tx_packets)
rx=$(counter rx_packets)
txb=$(counter tx_bytes)
run_stage "tx_packets moved (>= $ITERS): $tx" test "${tx:-0}" -ge $ITERS
run_stage "rx_packets moved (>= $ITERS): $rx" test "${rx:-0}" -ge $ITERS
run_stage "tx_bytes >= payload sent ($((ITERS * SIZE))): $txb" \
	test "${txb:-0}" -ge $((ITERS * SIZE))
expect_output "iproute2 rdma statistic shows the same counter names" \
	'tx_packets [1-9]' in_a rdma statistic show link vrnic0/1

# Per-QP counters: sample them while a longer exchange is running (the
# QPs are destroyed when the clients exit).
qp_moved() {
	in_a rdmactl -j stats show vrnic0 qp | grep -Eq '"tx_packets": *[1-9]'
}
in_b timeout 120 ibv_rc_pingpong -d vrnic1 -g 1 -n 100000 >/dev/null 2>&1 &
srv=$!
wait_for 60 tcp_listening "$NS_B" 18515
in_a timeout 120 ibv_rc_pingpong -d vrnic0 -g 1 -n 100000 "$IP_B" >/dev/null 2>&1 &
cli=$!
run_stage "per-QP tx_packets move during traffic (stats show qp)" wait_for 30 qp_moved
kill "$cli" "$srv" 2>/dev/null
wait "$cli" "$srv" 2>/dev/null
ktap_finish
