#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# prof_rate.sh - where one device's 64 B message rate spends the client's
# CPU (docs/performance.md, "One device").  Run in a guest with vrnic
# loaded:
#
#   VRNIC_VM_SLUB_DEBUG= selftests/vm/vm.sh run -- selftests/lib/prof_rate.sh
#
# vrnic on one end of a veth pair, ib_write_bw -s 64 server on CPU 1 and
# client on CPU 0 (as selftests/bench.sh pins them), perf recording CPU 0
# with call graphs.  The client busy-polls, so CPU 0 is always busy and
# each function's share (with what it calls) is its share of the time per
# message.  Prints the message rate, then the doorbell's and the
# requester's shares and the busiest kernel functions.  PROF_ITERS sets
# the messages (default 200000, so that the client's setup is a small
# part of the samples).

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/ktap.sh"
# shellcheck source=selftests/lib/gid.sh
. "$(dirname "$0")/gid.sh"

NS_A='' NS_B='' IF_A=prof_a IF_B=prof_b IP_A=10.123.0.1 IP_B=10.123.0.2
IP6_A=fd00:123::1 IP6_B=fd00:123::2 VETH_MTU=1500
ITERS=${PROF_ITERS:-200000}
PORT=18650
DATA=/tmp/prof_rate.perf

veth_setup || exit 1
rdma link add prof0 type vrnic netdev "$IF_A" || exit 1
defer rdma link delete prof0
sleep 1
gid=$(roce_gid_index prof0 "$IP_A") || exit 1

taskset -c 1 timeout 300 ib_write_bw -d prof0 -x "$gid" -s 64 -n "$ITERS" \
	-F -p "$PORT" >/tmp/prof_rate.server 2>&1 &
sleep 1.5
perf record -q -C 0 -g -o "$DATA" -- taskset -c 0 timeout 300 \
	ib_write_bw -d prof0 -x "$gid" -s 64 -n "$ITERS" -F -p "$PORT" "$IP_A" \
	>/tmp/prof_rate.client 2>&1 || { cat /tmp/prof_rate.client; exit 1; }
wait
awk '$1 == 64 && NF >= 5 { print "message rate: " $5 " Mpps" }' /tmp/prof_rate.client
perf report -i "$DATA" --stdio --children --sort sym -g none 2>/dev/null |
	grep -v '^#' | grep . >/tmp/prof_rate.report
# Shares of CPU 0's busy samples: the idle ones are the client's setup
# (connecting, waiting for the server), not the messages.
idle=$(awk '$NF == "do_idle" { sub("%", "", $1); print $1; exit }' /tmp/prof_rate.report)
echo "CPU 0 idle: ${idle:-0}% of the samples"
echo "doorbell and requester, share of the busy samples (with callees):"
awk -v idle="${idle:-0}" '$NF == "ib_uverbs_post_send" || $NF ~ /^vrnic_req_run/ {
	sub("%", "", $1); printf "    %5.1f%%  %s\n", 100 * $1 / (100 - idle), $NF }' /tmp/prof_rate.report
echo "busiest kernel functions:"
grep '\[k\]' /tmp/prof_rate.report | head -n 40
