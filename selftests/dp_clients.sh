#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# VRNIC_TIMEOUT=900
#
# dp_clients.sh - stock RDMA applications run unmodified over the device.
#
# Two devices of type $DP_LINK_TYPE (default vrnic) on the two ends of a
# veth pair (two network namespaces when the driver supports it), plus a
# third device for same-device (loopback) runs.  Each client/server pair
# runs in both directions, every command bounded by $DP_TIMEOUT:
#   libibverbs examples  ibv_{rc,uc,ud,srq}_pingpong -c (buffer validation)
#   rdma_cm              rping -v -V (payload validation), udaddy,
#                        rdma_server/rdma_client, mckey (UD multicast)
#   perftest             ib_{send,write,read,atomic}_{bw,lat}
#
# Usage: dp_clients.sh [FILTER]   (run only tests whose name contains FILTER)

DP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=dp_lib.sh
. "$DP_DIR/dp_lib.sh"

export DP_FILTER=${1:-}

dp_require ibv_rc_pingpong rping udaddy rdma_server mckey ib_send_bw ss
trap dp_cleanup EXIT
dp_begin
dp_load "$DP_LINK_TYPE" || ktap_skip_all "cannot load the $DP_LINK_TYPE driver"
dp_topology "$DP_LINK_TYPE" "$DP_LINK_TYPE" loopback || {
	tap_result fail setup "could not build the topology"
	ktap_finish
}

# all_pairs PREFIX SRV CLI
all_pairs() {
	local p=$1 s=$2 c=$3

	pingpong "$p.rc_pingpong" ibv_rc_pingpong "-c -n $DP_ITERS" "$s" "$c"
	pingpong "$p.uc_pingpong" ibv_uc_pingpong "-c -n $DP_ITERS" "$s" "$c"
	pingpong "$p.ud_pingpong" ibv_ud_pingpong "-c -n $DP_ITERS -s 1024" "$s" "$c"
	pingpong "$p.srq_pingpong" ibv_srq_pingpong "-c -n $((DP_ITERS / 5)) -q 4" "$s" "$c"
	rping_pair "$p.rping" "$s" "$c"
	cmsample_pair "$p.rdma_server_client" "$s" "$c"
	mckey_pair "$p.mckey" "$s" "$c" "230.77.0.$([[ $p == a_to_b ]] && echo 1 || echo 2)"
	perf "$p.ib_send_bw" ib_send_bw "-n $DP_PITERS" "$s" "$c"
	perf "$p.ib_write_bw" ib_write_bw "-n $DP_PITERS" "$s" "$c"
	# send_lat and write_lat ping-pong: both sides send, one direction
	# covers both
	if [[ $p == a_to_b ]]; then
		perf "$p.ib_send_lat" ib_send_lat "-n $DP_PITERS" "$s" "$c"
		perf "$p.ib_write_lat" ib_write_lat "-n $DP_PITERS" "$s" "$c"
	fi
	perf "$p.ib_read_bw" ib_read_bw "-n $DP_PITERS" "$s" "$c"
	perf "$p.ib_read_lat" ib_read_lat "-n $DP_PITERS" "$s" "$c"
	perf "$p.ib_atomic_bw" ib_atomic_bw "-n $DP_PITERS" "$s" "$c"
	perf "$p.ib_atomic_lat" ib_atomic_lat "-n $DP_PITERS -A CMP_AND_SWAP" "$s" "$c"
}

loopback() {
	pingpong loopback.rc_pingpong ibv_rc_pingpong "-c -n $DP_ITERS" C C
	pingpong loopback.ud_pingpong ibv_ud_pingpong "-c -n $DP_ITERS -s 1024" C C
	rping_pair loopback.rping C C
	mckey_pair loopback.mckey C C 230.77.0.3
	perf loopback.ib_write_bw ib_write_bw "-n $DP_PITERS" C C
	perf loopback.ib_read_lat ib_read_lat "-n $DP_PITERS" C C
	perf loopback.ib_atomic_bw ib_atomic_bw "-n $DP_PITERS" C C
}

# Client on A and server on B, the other way round, and both ends on one
# device (C), the three groups side by side on their own port ranges.
dp_spawn b_to_a 19600 all_pairs b_to_a A B
dp_spawn loopback 20600 loopback
all_pairs a_to_b B A
dp_join b_to_a
dp_join loopback
# udaddy has a fixed port: one at a time
udaddy_pair a_to_b.udaddy B A
udaddy_pair b_to_a.udaddy A B

ktap_finish
