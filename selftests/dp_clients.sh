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
#                        rdma_server/rdma_client
#   perftest             ib_{send,write,read,atomic}_{bw,lat}
#
# Usage: dp_clients.sh [FILTER]   (run only tests whose name contains FILTER)

DP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=selftests/dp_lib.sh
. "$DP_DIR/dp_lib.sh"

FILTER=${1:-}
ITERS=${DP_ITERS:-50}		# pingpong exchanges
PITERS=${DP_PITERS:-100}	# perftest iterations

dp_require ibv_rc_pingpong rping udaddy rdma_server ib_send_bw ss
trap dp_cleanup EXIT
dp_begin
dp_load "$DP_LINK_TYPE" || dp_skip_all "cannot load the $DP_LINK_TYPE driver"
dp_topology "$DP_LINK_TYPE" "$DP_LINK_TYPE" loopback || {
	dp_result fail setup "could not build the topology"
	dp_end
	exit 1
}

want() {
	[[ -z $FILTER || $1 == *"$FILTER"* ]]
}

# pingpong NAME PROG EXTRA SRV CLI
pingpong() {
	local name=$1 prog=$2 extra=$3 s=$4 c=$5

	want "$name" || return 0
	dp_pair "$name" tcp "$s" \
		"$prog -d ${DP_DEV[$s]} -g ${DP_GIDX[$s]} -p $DP_PORT $extra" \
		"$c" \
		"$prog -d ${DP_DEV[$c]} -g ${DP_GIDX[$c]} -p $DP_PORT $extra ${DP_ADDR[$s]}"
}

# perf NAME PROG EXTRA SRV CLI
perf() {
	local name=$1 prog=$2 extra=$3 s=$4 c=$5

	want "$name" || return 0
	dp_pair "$name" tcp "$s" \
		"$prog -d ${DP_DEV[$s]} -x ${DP_GIDX[$s]} -p $DP_PORT -F $extra" \
		"$c" \
		"$prog -d ${DP_DEV[$c]} -x ${DP_GIDX[$c]} -p $DP_PORT -F $extra ${DP_ADDR[$s]}"
}

rping_pair() {
	local name=$1 s=$2 c=$3

	want "$name" || return 0
	dp_pair "$name" cm "$s" \
		"rping -s -v -V -a ${DP_ADDR[$s]} -p $DP_PORT -C 20 -S 200" \
		"$c" \
		"rping -c -v -V -a ${DP_ADDR[$s]} -I ${DP_ADDR[$c]} -p $DP_PORT -C 20 -S 200"
}

udaddy_pair() {
	local name=$1 s=$2 c=$3 port=$DP_PORT

	want "$name" || return 0
	# udaddy always uses port 7174
	DP_PORT=7174
	dp_pair "$name" cm "$s" "udaddy -b ${DP_ADDR[$s]} -C 10" \
		"$c" "udaddy -s ${DP_ADDR[$s]} -b ${DP_ADDR[$c]} -C 10"
	DP_PORT=$port
}

cmsample_pair() {
	local name=$1 s=$2 c=$3

	want "$name" || return 0
	dp_pair "$name" cm "$s" "rdma_server -s ${DP_ADDR[$s]} -p $DP_PORT" \
		"$c" "rdma_client -s ${DP_ADDR[$s]} -p $DP_PORT"
}

# all_pairs PREFIX SRV CLI
all_pairs() {
	local p=$1 s=$2 c=$3

	pingpong "$p.rc_pingpong" ibv_rc_pingpong "-c -n $ITERS" "$s" "$c"
	pingpong "$p.uc_pingpong" ibv_uc_pingpong "-c -n $ITERS" "$s" "$c"
	pingpong "$p.ud_pingpong" ibv_ud_pingpong "-c -n $ITERS -s 1024" "$s" "$c"
	pingpong "$p.srq_pingpong" ibv_srq_pingpong "-c -n $((ITERS / 5)) -q 4" "$s" "$c"
	rping_pair "$p.rping" "$s" "$c"
	udaddy_pair "$p.udaddy" "$s" "$c"
	cmsample_pair "$p.rdma_server_client" "$s" "$c"
	perf "$p.ib_send_bw" ib_send_bw "-n $PITERS" "$s" "$c"
	perf "$p.ib_send_lat" ib_send_lat "-n $PITERS" "$s" "$c"
	perf "$p.ib_write_bw" ib_write_bw "-n $PITERS" "$s" "$c"
	perf "$p.ib_write_lat" ib_write_lat "-n $PITERS" "$s" "$c"
	perf "$p.ib_read_bw" ib_read_bw "-n $PITERS" "$s" "$c"
	perf "$p.ib_read_lat" ib_read_lat "-n $PITERS" "$s" "$c"
	perf "$p.ib_atomic_bw" ib_atomic_bw "-n $PITERS" "$s" "$c"
	perf "$p.ib_atomic_lat" ib_atomic_lat "-n $PITERS -A CMP_AND_SWAP" "$s" "$c"
}

# Client on A, server on B; then the other way round.
all_pairs a_to_b B A
all_pairs b_to_a A B

# Both ends on one device.
pingpong loopback.rc_pingpong ibv_rc_pingpong "-c -n $ITERS" C C
pingpong loopback.ud_pingpong ibv_ud_pingpong "-c -n $ITERS -s 1024" C C
rping_pair loopback.rping C C
perf loopback.ib_write_bw ib_write_bw "-n $PITERS" C C
perf loopback.ib_read_lat ib_read_lat "-n $PITERS" C C
perf loopback.ib_atomic_bw ib_atomic_bw "-n $PITERS" C C

dp_end
