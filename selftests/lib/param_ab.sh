#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# param_ab.sh - one device's perftest rows with a vrnic module parameter
# off and on, alternating which goes first (docs/performance.md).  Run in
# a guest with vrnic loaded:
#
#   VRNIC_VM_SLUB_DEBUG= selftests/vm/vm.sh run -- \
#       selftests/lib/param_ab.sh loop_spread
#
# Server on CPU 1, client on CPU 0, as selftests/bench.sh pins them.
# Each round runs every row with the parameter at 0 and at 1; rounds
# alternate the order.  Prints one line per row and setting (with the
# function-call IPIs during it), then the median per row of each setting.
# AB_ROUNDS sets the rounds (default 3); vm.sh does not pass the host's
# environment into the guest, so set it there:
#
#   VRNIC_VM_SLUB_DEBUG= selftests/vm/vm.sh run -- \
#       env AB_ROUNDS=6 "$PWD/selftests/lib/param_ab.sh" post_spread

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/ktap.sh"
# shellcheck source=selftests/lib/gid.sh
. "$(dirname "$0")/gid.sh"

PARAM=/sys/module/vrnic/parameters/${1:?usage: $0 PARAMETER}
[[ -w $PARAM ]] || { echo "no writable $PARAM" >&2; exit 2; }
NS_A='' NS_B='' IF_A=ab_a IF_B=ab_b IP_A=10.124.0.1 IP_B=10.124.0.2
IP6_A=fd00:124::1 IP6_B=fd00:124::2 VETH_MTU=1500
ROUNDS=${AB_ROUNDS:-3}
PORT=18652
OUT=/tmp/param_ab.results

# tool size iterations
ROWS=(
	"ib_write_bw 65536 2000"
	"ib_read_bw 65536 2000"
	"ib_send_bw 65536 2000"
	"ib_write_bw 64 50000"
	"ib_write_lat 2 20000"
	"ib_send_lat 2 20000"
	"ib_read_lat 2 10000"
)

veth_setup || exit 1
rdma link add ab0 type vrnic netdev "$IF_A" || exit 1
defer rdma link delete ab0
old=$(cat "$PARAM")
restore_param() { echo "$old" >"$PARAM"; }
defer restore_param
sleep 1
gid=$(roce_gid_index ab0 "$IP_A") || exit 1

# Function-call IPIs so far, both CPUs (the kicks of local delivery on
# another CPU among them: docs/wire.md).
ipis() {
	awk '$1 == "CAL:" { print $2 + $3 }' /proc/interrupts
}

# Print the row's figure: MB/s (bandwidth), Mpps (64 B) or average usec,
# and the IPIs during the client's run.
run_row() {
	local tool=$1 size=$2 iters=$3 ipi0

	taskset -c 1 timeout 120 "$tool" -d ab0 -x "$gid" -s "$size" \
		-n "$iters" -F -p "$PORT" >/tmp/param_ab.server 2>&1 &
	sleep 1.5
	ipi0=$(ipis)
	taskset -c 0 timeout 120 "$tool" -d ab0 -x "$gid" -s "$size" \
		-n "$iters" -F -p "$PORT" "$IP_A" >/tmp/param_ab.client 2>&1
	echo "$(($(ipis) - ipi0))" >/tmp/param_ab.ipis
	wait
	awk -v t="$tool" -v s="$size" '$1 == s && NF >= 5 {
		if (t ~ /lat/) print $6; else if (s <= 64) print $5; else print $4
		exit }' /tmp/param_ab.client
}

: >"$OUT"
for ((i = 1; i <= ROUNDS; i++)); do
	if ((i % 2)); then order=(0 1); else order=(1 0); fi
	for val in "${order[@]}"; do
		echo "$val" >"$PARAM" || exit 1
		for row in "${ROWS[@]}"; do
			read -r tool size iters <<<"$row"
			fig=$(run_row "$tool" "$size" "$iters")
			echo "round $i: ${1}=$val $tool -s $size: ${fig:-failed} ($(cat /tmp/param_ab.ipis) IPIs)"
			echo "$tool/$size $val ${fig:-nan}" >>"$OUT"
		done
	done
done
echo "medians (${1}=0, ${1}=1, 1/0):"
for row in "${ROWS[@]}"; do
	read -r tool size _ <<<"$row"
	m0=$(awk -v k="$tool/$size" '$1 == k && $2 == 0 { print $3 }' "$OUT" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
	m1=$(awk -v k="$tool/$size" '$1 == k && $2 == 1 { print $3 }' "$OUT" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
	awk -v r="$tool -s $size" -v a="$m0" -v b="$m1" \
		'BEGIN { printf "  %-22s %10s %10s %7.3f\n", r, a, b, (a > 0 ? b / a : 0) }'
done
