#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# prof_lat.sh - how one device's 2-byte ping-pong divides between the
# driver and everything else, for rdma_rxe and vrnic in one boot
# (docs/performance.md, "Where a ping-pong's time goes").  Run in a guest
# with vrnic loaded:
#
#   VRNIC_VM_SLUB_DEBUG= selftests/vm/vm.sh run -- selftests/lib/prof_lat.sh
#
# The device sits on one end of a veth pair, as in selftests/bench.sh;
# server pinned to CPU 1, client to CPU 0, perf recording both CPUs with
# call graphs.  Both sides busy-poll, so both CPUs are busy for the whole
# run and a function's share of the busy samples (with its callees) is
# its share of the run.  Each side posts once per round trip, so a share
# s of the samples of both CPUs is s x RTT of every post.
#
# Per driver and round it prints the tool's typical latency L (half a
# round trip) and, in microseconds of one post: the doorbell system call
# (`doorbell`: uverbs' write() handler; the system call's entry and exit
# are not in it), the driver's post_send with everything it runs inline
# (`driver`), of it what runs after the payload is placed (`after`: the
# responder's ACK and the completer it feeds, vrnic_local_ack() or
# rdma_rxe's send_common_ack()), and the rest of the half round trip
# (`other` = L - driver: perftest, librxe, the system call, polling for
# the peer's write).  The peer sees the payload as soon as it is placed,
# so `after` overlaps the peer's turn: a half round trip is the post up
# to the placement plus `other`.  PROF_TOOL (default ib_write_lat), PROF_ITERS (default 50000)
# and PROF_ROUNDS (default 2; which driver goes first alternates);
# PROF_DRIVERS (default "rxe vrnic") leaves one out.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/ktap.sh"
# shellcheck source=selftests/lib/gid.sh
. "$(dirname "$0")/gid.sh"

NS_A='' NS_B='' IF_A=plat_a IF_B=plat_b IP_A=10.124.0.1 IP_B=10.124.0.2
IP6_A=fd00:124::1 IP6_B=fd00:124::2 VETH_MTU=1500
TOOL=${PROF_TOOL:-ib_write_lat}
ITERS=${PROF_ITERS:-50000}
ROUNDS=${PROF_ROUNDS:-2}
DRIVERS=${PROF_DRIVERS:-rxe vrnic}
PORT=18700
DATA=/tmp/prof_lat.perf

veth_setup || exit 1

# share REPORT FUNCTION...: summed percentage (with callees) of the named
# functions in a `perf report --children --sort sym` listing.
share() {
	local report=$1

	shift
	awk -v names=" $* " '
		{ sym = $NF }
		index(names, " " sym " ") { sub("%", "", $1); s += $1 }
		END { printf "%.2f", s + 0 }' "$report"
}

# measure DRIVER DEVICE ENTRY AFTER: one profiled ping-pong on DEVICE;
# ENTRY is the driver's post_send, AFTER its ACK after placing.
measure() {
	local drv=$1 dev=$2 entry=$3 after=$4 gid lat idle bell drv_s aft busy

	gid=$(wait_for 10 roce_gid_index "$dev" "$IP_A") || { echo "$dev: no GID"; return 1; }
	PORT=$((PORT + 1))
	taskset -c 1 timeout 300 "$TOOL" -d "$dev" -x "$gid" -s 2 -n "$ITERS" \
		-F -p "$PORT" >/tmp/prof_lat.server 2>&1 &
	sleep 1.5
	perf record -q -a -g -o "$DATA" -- taskset -c 0 timeout 300 \
		"$TOOL" -d "$dev" -x "$gid" -s 2 -n "$ITERS" -F -p "$PORT" "$IP_A" \
		>/tmp/prof_lat.client 2>&1 || { cat /tmp/prof_lat.client; return 1; }
	wait
	lat=$(awk '/#bytes/ { h = 1; next } h && $1 == 2 { print $5 }' /tmp/prof_lat.client)
	perf report -i "$DATA" --stdio --children --sort sym -g none 2>/dev/null |
		grep -v '^#' | grep . >"/tmp/prof_lat.report.$drv"
	# Idle samples are setup and teardown (connecting, one side done
	# first), not round trips.
	idle=$(share "/tmp/prof_lat.report.$drv" do_idle)
	bell=$(share "/tmp/prof_lat.report.$drv" ib_uverbs_write)
	drv_s=$(share "/tmp/prof_lat.report.$drv" "$entry")
	aft=$(share "/tmp/prof_lat.report.$drv" "$after")
	busy=$(awk -v i="$idle" 'BEGIN { print 100 - i }')
	awk -v d="$drv" -v l="$lat" -v b="$busy" -v s="$bell" -v v="$drv_s" -v a="$aft" 'BEGIN {
		rtt = 2 * l
		printf "%-6s L %6.2f us  doorbell %5.2f  driver %5.2f  after %5.2f  other %5.2f  (shares of the busy samples: doorbell %.1f%%, driver %.1f%%, after %.1f%%; idle %.1f%% of all)\n",
			d, l, rtt * s / b, rtt * v / b, rtt * a / b, l - rtt * v / b,
			100 * s / b, 100 * v / b, 100 * a / b, 100 - b }'
	perf report -i "$DATA" --stdio --no-children --sort sym -g none 2>/dev/null |
		grep '\[k\]' | head -n 30 >"/tmp/prof_lat.self.$drv"
}

prof_rxe() {
	modprobe rdma_rxe || return 1
	rdma link add plat_rxe type rxe netdev "$IF_A" || return 1
	measure rxe plat_rxe rxe_post_send send_common_ack.isra.0
	rdma link delete plat_rxe
	modprobe -r rdma_rxe
}

prof_vrnic() {
	[[ -e /sys/module/vrnic ]] || modprobe vrnic || return 1
	rdma link add plat_vrnic type vrnic netdev "$IF_A" || return 1
	measure vrnic plat_vrnic vrnic_post_send vrnic_local_ack
	rdma link delete plat_vrnic
}

echo "$TOOL -s 2 -n $ITERS, $ROUNDS rounds"
for ((round = 1; round <= ROUNDS; round++)); do
	read -r -a order <<<"$DRIVERS"
	((round % 2)) || read -r -a order <<<"$(printf '%s\n' "${order[@]}" | tac | xargs)"
	for drv in "${order[@]}"; do
		"prof_$drv"
	done
done
for drv in $DRIVERS; do
	echo "last $drv run, busiest kernel functions with callees:"
	grep '\[k\]' "/tmp/prof_lat.report.$drv" | head -n 40
	echo "last $drv run, its own functions with callees:"
	grep -E "\\[k\\] ($drv|ib_uverbs)_" "/tmp/prof_lat.report.$drv" | head -n 60
	echo "last $drv run, busiest kernel functions by their own samples:"
	cat "/tmp/prof_lat.self.$drv"
done
