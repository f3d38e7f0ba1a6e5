#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# VRNIC_TIMEOUT=600
#
# dp_interop.sh - wire interoperability with rdma_rxe.
#
# rdma_rxe on one end of a veth pair (host A, init_net: rxe on 6.1 works
# only there), a device of type $DP_LINK_TYPE (default vrnic) on the other
# end (host B, its own network namespace; both stacks bind UDP 4791, so they
# must not share one).  Every pair runs in both client/server directions:
# ibv_rc_pingpong -c, ibv_ud_pingpong -c, rping -v -V, mckey (UD
# multicast), ib_write_bw, ib_read_bw, ib_atomic_bw.  Any disagreement on header layouts, opcodes,
# PSN/ACK handling or the ICRC makes these fail: rxe drops packets with a
# bad ICRC.
#
# dp_random, dp_security and dp_atomic_write (build/selftests) then run
# over the same pair, once with rxe as the requester and once with the
# device under test;
# dp_random over IPv4 and over IPv6 (the ICRC covers a different header).
#
# With DP_LINK_TYPE=rxe both ends are rxe (validates the script itself).
#
# Usage: dp_interop.sh [FILTER]

DP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=dp_lib.sh
. "$DP_DIR/dp_lib.sh"

export DP_FILTER=${1:-}

dp_require ibv_rc_pingpong ibv_ud_pingpong rping ib_write_bw ss
trap dp_cleanup EXIT
dp_begin
dp_load rxe || ktap_skip_all "rdma_rxe not available"
dp_load "$DP_LINK_TYPE" || ktap_skip_all "cannot load the $DP_LINK_TYPE driver"
dp_topology rxe "$DP_LINK_TYPE" || {
	tap_result fail setup "could not build the topology"
	ktap_finish
}

# interop PREFIX SRV CLI
interop() {
	local p=$1 s=$2 c=$3

	pingpong "$p.rc_pingpong" ibv_rc_pingpong "-c -n $DP_ITERS" "$s" "$c"
	pingpong "$p.ud_pingpong" ibv_ud_pingpong "-c -n $DP_ITERS -s 1024" "$s" "$c"
	rping_pair "$p.rping" "$s" "$c"
	mckey_pair "$p.mckey" "$s" "$c" "230.78.0.$([[ $p == dut_* ]] && echo 1 || echo 2)"
	perf "$p.ib_write_bw" ib_write_bw "-n $DP_PITERS" "$s" "$c"
	perf "$p.ib_read_bw" ib_read_bw "-n $DP_PITERS" "$s" "$c"
	perf "$p.ib_atomic_bw" ib_atomic_bw "-n $DP_PITERS" "$s" "$c"
}

# rxe as server and DUT as client, and the other way round, side by side.
dp_spawn dut_to_rxe 19600 interop "dut_client_rxe_server" A B
interop "rxe_client_dut_server" B A
dp_join dut_to_rxe

# Random data (SEND, WRITE, WRITE_IMM, READ; sizes around the MTU; 1..N
# SGEs) and the remote access checks, with each side as the requester.
# rxe's own deviations are reported by dp_security as SKIPs.
# c_test NAME BINARY REQ RESP ONLY
c_test() {
	local name=$1 bin=$2 req=$3 resp=$4 only=$5

	dp_want "$name" || return 0
	if [[ ! -x $bin ]]; then
		tap_result skip "$name" "$bin not built"
		return 0
	fi
	DP_TIMEOUT=$((300 * DP_FACTOR)) dp_one "$name" "$req" \
		"DP_DEV=${DP_DEV[$req]} DP_DEV_TYPE=${DP_TYPE[$req]} DP_DEV2=${DP_DEV[$resp]} DP_DEV2_TYPE=${DP_TYPE[$resp]} DP_ONLY=$only DP_MTUS=1024,4096 DP_BIG=500000 $bin"
}

DP_RANDOM=${DP_RANDOM:-$DP_REPO/build/selftests/dp_random}
DP_SECURITY=${DP_SECURITY:-$DP_REPO/build/selftests/dp_security}
c_test rxe_requester_dut_responder.dp_random "$DP_RANDOM" A B pair_ipv4
c_test dut_requester_rxe_responder.dp_random "$DP_RANDOM" B A pair_ipv4
c_test rxe_requester_dut_responder.dp_random_ipv6 "$DP_RANDOM" A B pair_ipv6
c_test dut_requester_rxe_responder.dp_random_ipv6 "$DP_RANDOM" B A pair_ipv6
c_test rxe_requester_dut_responder.dp_security "$DP_SECURITY" A B pair
c_test dut_requester_rxe_responder.dp_security "$DP_SECURITY" B A pair
# ATOMIC WRITE (IBTA 1.5), which 6.1's rxe does not implement: each side
# must fail it cleanly (an error completion in time, nothing written).
DP_ATOMIC_WRITE=${DP_ATOMIC_WRITE:-$DP_REPO/build/selftests/dp_atomic_write}
c_test rxe_requester_dut_responder.dp_atomic_write "$DP_ATOMIC_WRITE" A B pair
c_test dut_requester_rxe_responder.dp_atomic_write "$DP_ATOMIC_WRITE" B A pair

ktap_finish
