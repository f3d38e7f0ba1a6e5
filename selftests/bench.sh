#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh - the guest side of `make bench` (run by selftests/vm/vm.sh bench,
# with vrnic loaded).  Runs a fixed perftest matrix once over rdma_rxe and
# once over vrnic and writes the ratio vrnic/rxe of every row to
# $RESULTS/bench.md (Markdown) and $RESULTS/bench.json.
#
# Topology (default, BENCH_VRNIC_TOPO=loop): both drivers on the same
# netdev, one after the other in the same boot.  A veth end in the initial
# namespace (Debian 12's 6.1 rxe opens its UDP 4791 socket there only)
# carries rxe0 first, perftest server and client on that one device; then
# rxe0 is deleted, rdma_rxe unloaded (freeing port 4791) and vrnic0 takes
# the same netdev for the same matrix.  BENCH_VRNIC_TOPO=pair instead runs
# vrnic between two namespaces over a veth pair (vrnic_a in ns_a, vrnic_b in
# ns_b), which rxe on 6.1 cannot do, so that ratio is not like for like.
#
# Loss recovery (every round, after the matrix): vrnic to vrnic between
# two namespaces over a veth pair, ib_write_bw of 64 KiB messages without
# loss and then with "netem loss BENCH_LOSS" (default 2%) on the
# requester's veth end: bandwidth kept, and the requester's retransmitted
# packets against the packets netem dropped.
#
# Zero-copy (every round, after the loss rows): vrnic's 64 KiB WRITE and
# READ with its zero_copy module parameter on and off, on one device and
# across that veth pair.
#
# The matrix runs BENCH_REPS rounds (default 5), rxe first in odd rounds
# and vrnic first in even ones; every row reports the median of its
# rounds, with the minimum and maximum.  The guest boots without
# slub_debug (vm.sh bench), as users run.
#
# Iteration counts are small so that a TCG guest finishes in minutes;
# BENCH_SCALE=N multiplies them, BENCH_TIMEOUT bounds every perftest run
# (default 120 s).  Absolute numbers under TCG mean little; ratios do.
# BENCH_ROWS (an extended regex, default all) keeps the matrix rows whose
# name matches it, "loss" the loss rows and "zero_copy" the zero-copy
# ones: to look into one row with more rounds.  BENCH_DIAG=1 writes, next
# to every run's perftest logs, the port counters that run moved
# (<log>.counters: device.counter +delta, both drivers' devices), and
# prints the nonzero transport events (retransmits, timeouts, NAKs,
# drops) after its result.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"
# shellcheck source=selftests/lib/perftest.sh
. "$(dirname "$0")/lib/perftest.sh"

OUT=${RESULTS:-/tmp}
LOGS=$OUT/bench
SCALE=${BENCH_SCALE:-1}
TMO=${BENCH_TIMEOUT:-120}
VRNIC_TOPO=${BENCH_VRNIC_TOPO:-loop}
PORT=18600
RXE_IF=veth_r0
RXE_PEER=veth_r1
RXE_IP=10.112.0.1

# name tool size iterations metric; iterations "D<s>": perftest -D <s>,
# a run timed instead of counted (the *_D8s twins: same result expected).
ROWS=(
	"write_bw_64KiB ib_write_bw 65536 1000 bw"
	"read_bw_64KiB ib_read_bw 65536 1000 bw"
	"send_bw_64KiB ib_send_bw 65536 1000 bw"
	"write_bw_64KiB_D8s ib_write_bw 65536 D8 bw"
	"read_bw_64KiB_D8s ib_read_bw 65536 D8 bw"
	"send_bw_64KiB_D8s ib_send_bw 65536 D8 bw"
	"write_rate_64B ib_write_bw 64 10000 rate"
	"write_lat_2B ib_write_lat 2 3000 lat"
	"send_lat_2B ib_send_lat 2 3000 lat"
	"read_lat_2B ib_read_lat 2 3000 lat"
)

REPS=${BENCH_REPS:-5}
ROWS_RE=${BENCH_ROWS:-.}

# The matrix rows BENCH_ROWS selects.
selected=()
for row in "${ROWS[@]}"; do
	read -r name _ <<<"$row"
	[[ $name =~ $ROWS_RE ]] && selected+=("$row")
done
ROWS=("${selected[@]}")

# Server and client pinned to CPUs of their own (the same for both
# drivers): where the scheduler happens to put two busy-polling processes
# moves latency by a third from run to run, more than the drivers differ.
PIN_SERVER=()
PIN_CLIENT=()
if [[ $(nproc) -ge 2 ]] && command -v taskset >/dev/null; then
	PIN_SERVER=(taskset -c 1)
	PIN_CLIENT=(taskset -c 0)
fi

# Every measurement of every row (space-separated, one per round); the
# report uses their median, which one noisy round under TCG cannot move.
declare -A SAMPLES RESULT LO HI

# Pull the metric out of a perftest client log: average bandwidth (MB/s),
# message rate (Mpps) or typical latency (usec): perftest_value().
perf_metric() {
	local log=$1 size=$2 kind=$3

	case $kind in
	bw) perftest_value "$log" "$size" 4 ;;
	*) perftest_value "$log" "$size" 5 ;;
	esac
}

# run_len ITERS: perftest's "-n N" (scaled) or, for D<s>, "-D <s>".
run_len() {
	if [[ $1 == D* ]]; then
		echo "-D ${1#D}"
	else
		echo "-n $(($1 * SCALE))"
	fi
}

# Every RDMA device's port 1 counters, one "device.counter value" a line
# (BENCH_DIAG).
counters_snap() {
	[[ ${BENCH_DIAG:-0} == 1 ]] || return 0
	grep . /sys/class/infiniband/*/ports/1/hw_counters/* 2>/dev/null |
		sed 's|^/sys/class/infiniband/||; s|/ports/1/hw_counters/|.|; s|:| |'
}

# counters_diff BEFORE AFTER LOG: the counters that moved into LOG, and
# the transport events among them on stdout.
counters_diff() {
	[[ ${BENCH_DIAG:-0} == 1 ]] || return 0
	awk 'NR == FNR { v[$1] = $2; next }
	     $2 != v[$1] { printf "%s +%d\n", $1, $2 - v[$1] }' \
		<(echo "$1") <(echo "$2") >"$3.counters"
	grep -E 'retr|timeout|nak|seq_err|rnr|drop|err' "$3.counters" |
		tr '\n' ' ' | sed 's/^./         events: &/; s/ $/\n/'
}

# perf_run LABEL ROW SRV_NS SRV_DEV SRV_GID CLI_NS CLI_DEV CLI_GID SRV_IP
perf_run() {
	local label=$1 row=$2 sns=$3 sdev=$4 sgid=$5 cns=$6 cdev=$7 cgid=$8 sip=$9
	local name tool size iters kind srv rc=0 log args v c0

	read -r name tool size iters kind <<<"$row"
	PORT=$((PORT + 1))
	log=$LOGS/$label-$name-$ROUND
	read -r -a args <<<"$(run_len "$iters")"
	args+=(-s "$size" -p "$PORT" -F)
	c0=$(counters_snap)

	in_ns "$sns" "${PIN_SERVER[@]}" timeout "$TMO" "$tool" -d "$sdev" -x "$sgid" "${args[@]}" \
		>"$log.server" 2>&1 &
	srv=$!
	if ! wait_for 20 tcp_listening "$sns" "$PORT"; then
		echo "$label $name: server did not start" >>"$log.client"
		kill "$srv" 2>/dev/null
	else
		in_ns "$cns" "${PIN_CLIENT[@]}" timeout "$TMO" "$tool" -d "$cdev" -x "$cgid" "${args[@]}" "$sip" \
			>"$log.client" 2>&1 || rc=$?
	fi
	wait "$srv" 2>/dev/null
	if [[ $rc -eq 0 ]] && v=$(perf_metric "$log.client" "$size" "$kind"); then
		SAMPLES[$label.$name]+="$v "
		printf '  %-6s %-16s %s\n' "$label" "$name" "$v"
	else
		printf '  %-6s %-16s failed (exit %s, or no valid result), see %s\n' \
			"$label" "$name" "$rc" "$log.client"
		tail -n 5 "$log.client" | sed 's/^/         | /'
	fi
	counters_diff "$c0" "$(counters_snap)" "$log"
}

# The netdev both drivers take in turn: one end of a veth pair, both ends
# in this namespace (the peer only carries the link).
bench_netdev() {
	ip link show "$RXE_IF" >/dev/null 2>&1 && return 0
	NS_A='' NS_B='' IF_A=$RXE_IF IF_B=$RXE_PEER IP_A=$RXE_IP IP_B=10.112.0.2 \
		IP6_A=fd00:112::1 IP6_B=fd00:112::2 veth_setup
}

# bench_device NAME TYPE: a RoCE device on the bench netdev, with its GID.
bench_device() {
	rdma link add "$1" type "$2" netdev "$RXE_IF" || return 1
	defer rdma link delete "$1"
	wait_for 10 roce_gid_index "$1" "$RXE_IP" >/dev/null
}

rxe_setup() {
	modprobe rdma_rxe || return 1
	bench_netdev && bench_device rxe0 rxe
}

rxe_teardown() {
	rdma link delete rxe0 2>/dev/null
	modprobe -r rdma_rxe 2>/dev/null
	true
}

# vrnic takes port 4791 in this namespace while it has a device here.
vrnic_teardown() {
	[[ $VRNIC_TOPO == loop ]] && rdma link delete vrnic0 2>/dev/null
	true
}

vrnic_setup() {
	if [[ $VRNIC_TOPO == loop ]]; then
		bench_netdev && bench_device vrnic0 vrnic
		return
	fi
	bench_pair_setup
}

# vrnic_a in ns_a and vrnic_b in ns_b over a veth pair (set up once).
# Every round makes the devices again if they are gone: unloading
# rdma_rxe unregisters every device whose driver_id is RDMA_DRIVER_RXE,
# vrnic's included (ib_unregister_driver(); see docs/uabi.md).
VETH_UP=
bench_pair_setup() {
	if [[ -z $VETH_UP ]]; then
		VETH_UP=1
		veth_setup || return 1
	fi
	if [[ ! -e /sys/class/infiniband/vrnic_a ]]; then
		in_a rdma link add vrnic_a type vrnic netdev "$IF_A" || return 1
		defer rdma link delete vrnic_a
	fi
	if [[ ! -e /sys/class/infiniband/vrnic_b ]]; then
		in_b rdma link add vrnic_b type vrnic netdev "$IF_B" || return 1
		defer rdma link delete vrnic_b
	fi
	wait_for 10 roce_gid_index vrnic_a "$IP_A" >/dev/null &&
		wait_for 10 roce_gid_index vrnic_b "$IP_B" >/dev/null
}

run_matrix() {
	local label=$1 row g0 g1

	case $label in
	rxe)
		g0=$(roce_gid_index rxe0 "$RXE_IP") || return 1
		for row in "${ROWS[@]}"; do
			perf_run rxe "$row" "" rxe0 "$g0" "" rxe0 "$g0" "$RXE_IP"
		done
		;;
	vrnic)
		if [[ $VRNIC_TOPO == loop ]]; then
			g0=$(roce_gid_index vrnic0 "$RXE_IP") || return 1
			for row in "${ROWS[@]}"; do
				perf_run vrnic "$row" "" vrnic0 "$g0" "" vrnic0 "$g0" "$RXE_IP"
			done
			return
		fi
		g0=$(roce_gid_index vrnic_a "$IP_A") || return 1
		g1=$(roce_gid_index vrnic_b "$IP_B") || return 1
		for row in "${ROWS[@]}"; do
			perf_run vrnic "$row" "$NS_B" vrnic_b "$g1" "$NS_A" vrnic_a "$g0" "$IP_B"
		done
		;;
	esac
}

# ---- loss recovery ----
LOSS=${BENCH_LOSS:-2%}
LOSS_ROW="write_bw_64KiB ib_write_bw 65536 1000 bw"

# The requester's (vrnic_a's) hw counter $1.
vrnic_a_counter() {
	cat "/sys/class/infiniband/vrnic_a/ports/1/hw_counters/$1" 2>/dev/null || echo 0
}

# Packets netem dropped on the requester's veth end so far.
netem_dropped() {
	in_a tc -s qdisc show dev "$IF_A" | grep -o 'dropped [0-9]*' | awk '{ print $2; exit }'
}

run_loss() {
	local g0 g1 r0 r1 d

	g0=$(roce_gid_index vrnic_a "$IP_A") || return 1
	g1=$(roce_gid_index vrnic_b "$IP_B") || return 1
	perf_run clean "$LOSS_ROW" "$NS_B" vrnic_b "$g1" "$NS_A" vrnic_a "$g0" "$IP_B"
	in_a tc qdisc add dev "$IF_A" root netem loss "$LOSS" || return 1
	r0=$(vrnic_a_counter retransmits)
	perf_run lossy "$LOSS_ROW" "$NS_B" vrnic_b "$g1" "$NS_A" vrnic_a "$g0" "$IP_B"
	r1=$(vrnic_a_counter retransmits)
	d=$(netem_dropped)
	in_a tc qdisc del dev "$IF_A" root
	SAMPLES[loss.retransmits]+="$((r1 - r0)) "
	SAMPLES[loss.dropped]+="${d:-0} "
	printf '  %-6s %-16s %s retransmitted, %s dropped by netem\n' lossy "" "$((r1 - r0))" "${d:-0}"
}

# ---- zero-copy transmit, on and off ----
# vrnic's zero_copy module parameter: RC payloads lent from the MR's
# pages (on, the default) or copied into the skb (off).  Both rows on one
# device (local delivery: the receiver reads the sender's pages) and
# across the veth pair (the netdev carries the pages); which setting goes
# first alternates by round.  READ responses to the wire are copied
# whatever the parameter says (docs/wire.md, "Zero-copy transmit"), so
# the READ row across the pair is the control: both settings alike.
ZC_PARAM=/sys/module/vrnic/parameters/zero_copy
ZC_ROWS=(
	"write_bw_64KiB ib_write_bw 65536 1000 bw"
	"read_bw_64KiB ib_read_bw 65536 1000 bw"
)
ZC_TOPOS=(local pair)

run_zero_copy() {
	local g0 g1 row mode modes=(1 0)

	((ROUND % 2)) || modes=(0 1)
	g0=$(roce_gid_index vrnic_a "$IP_A") || return 1
	g1=$(roce_gid_index vrnic_b "$IP_B") || return 1
	for row in "${ZC_ROWS[@]}"; do
		for mode in "${modes[@]}"; do
			echo "$mode" >"$ZC_PARAM" || return 1
			perf_run "zc${mode}_local" "$row" "$NS_A" vrnic_a "$g0" "$NS_A" vrnic_a "$g0" "$IP_A"
			perf_run "zc${mode}_pair" "$row" "$NS_B" vrnic_b "$g1" "$NS_A" vrnic_a "$g0" "$IP_B"
		done
	done
	echo 1 >"$ZC_PARAM"
}

ratio() {
	[[ -n $1 && -n $2 ]] || { echo null; return; }
	awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 == 0) print "null"; else printf "%.3f\n", b / a }'
}

json_num() {
	if [[ -n $1 ]]; then echo "$1"; else echo null; fi
}

# spread KEY: "median (min-max)" of a row's rounds, "-" without any.
spread() {
	[[ -n ${RESULT[$1]:-} ]] || { echo -; return; }
	echo "${RESULT[$1]} (${LO[$1]}-${HI[$1]})"
}

write_reports() {
	local row name tool size iters kind unit rx vr r topo first=1

	{
		echo "# vrnic vs rdma_rxe ($(uname -r), $(nproc) vCPUs, $(date -u +%Y-%m-%dT%H:%M:%SZ))"
		echo
		if [[ $VRNIC_TOPO == loop ]]; then
			echo "Both drivers in turn on the same netdev ($RXE_IF), perftest server and client on one device (loopback)."
		else
			echo "vrnic: two namespaces over a veth pair; rdma_rxe: one device on $RXE_IF, loopback (not like for like)."
		fi
		echo "Each value is the median (min-max) of $REPS rounds; a round runs the matrix on both drivers, rdma_rxe first in odd rounds, vrnic first in even ones."
		[[ ${#PIN_SERVER[@]} -gt 0 ]] && echo "perftest server pinned to CPU 1, client to CPU 0, for both drivers."
		echo "Latency rows: a ratio above 1 means vrnic is slower; other rows: above 1 means faster."
		echo
		echo "| test | tool | size | length | unit | rdma_rxe | vrnic | vrnic/rxe |"
		echo "|---|---|---:|---:|---|---:|---:|---:|"
		for row in "${ROWS[@]}"; do
			read -r name tool size iters kind <<<"$row"
			case $kind in bw) unit=MB/s ;; rate) unit=Mpps ;; *) unit=usec ;; esac
			rx=${RESULT[rxe.$name]:-}
			vr=${RESULT[vrnic.$name]:-}
			r=$(ratio "$rx" "$vr")
			echo "| $name | $tool | $size | $(run_len "$iters") | $unit | $(spread "rxe.$name") | $(spread "vrnic.$name") | ${r/null/-} |"
		done
		# The sections BENCH_ROWS selected.
		if [[ loss =~ $ROWS_RE ]]; then
			echo
			echo "## Loss recovery: vrnic to vrnic, netem loss $LOSS on the requester's side"
			echo
			echo "Two namespaces over a veth pair (MTU 1500), ib_write_bw -s 65536 -n $((1000 * SCALE)); medians of $REPS rounds."
			echo
			echo "| clean MB/s | lossy MB/s | lossy/clean | retransmitted packets | netem drops | retransmitted/dropped |"
			echo "|---:|---:|---:|---:|---:|---:|"
			echo "| ${RESULT[clean.write_bw_64KiB]:--} | ${RESULT[lossy.write_bw_64KiB]:--} |" \
				"$(ratio "${RESULT[clean.write_bw_64KiB]:-}" "${RESULT[lossy.write_bw_64KiB]:-}") |" \
				"${RESULT[loss.retransmits]:--} | ${RESULT[loss.dropped]:--} |" \
				"$(ratio "${RESULT[loss.dropped]:-}" "${RESULT[loss.retransmits]:-}") |"
		fi
		if [[ zero_copy =~ $ROWS_RE ]]; then
			echo
			echo "## Zero-copy transmit: vrnic with zero_copy on and off"
			echo
			echo "vrnic_a alone (local delivery) and vrnic_a to vrnic_b over the veth pair (MTU 1500), 64 KiB, -n $((1000 * SCALE)); medians (min-max) of $REPS rounds."
			echo
			echo "| row | topology | copy MB/s | zero-copy MB/s | zero-copy/copy |"
			echo "|---|---|---:|---:|---:|"
			for row in "${ZC_ROWS[@]}"; do
				read -r name _ <<<"$row"
				for topo in "${ZC_TOPOS[@]}"; do
					echo "| $name | $topo | $(spread "zc0_$topo.$name") | $(spread "zc1_$topo.$name") |" \
						"$(ratio "${RESULT[zc0_$topo.$name]:-}" "${RESULT[zc1_$topo.$name]:-}" | sed 's/null/-/') |"
				done
			done
		fi
	} >"$OUT/bench.md"

	{
		echo "{"
		echo "  \"kernel\": \"$(uname -r)\","
		echo "  \"vrnic_topology\": \"$VRNIC_TOPO\","
		echo "  \"rounds\": $REPS,"
		echo "  \"rxe_topology\": \"loop\","
		echo "  \"rows\": ["
		for row in "${ROWS[@]}"; do
			read -r name tool size iters kind <<<"$row"
			case $kind in bw) unit=MB/s ;; rate) unit=Mpps ;; *) unit=usec ;; esac
			rx=${RESULT[rxe.$name]:-}
			vr=${RESULT[vrnic.$name]:-}
			[[ $first -eq 1 ]] || echo ","
			first=0
			printf '    {"name": "%s", "tool": "%s", "size": %s, "length": "%s", "unit": "%s", "rxe": %s, "vrnic": %s, "ratio": %s, "rxe_min": %s, "rxe_max": %s, "vrnic_min": %s, "vrnic_max": %s}' \
				"$name" "$tool" "$size" "$(run_len "$iters")" "$unit" \
				"$(json_num "$rx")" "$(json_num "$vr")" "$(ratio "$rx" "$vr")" \
				"$(json_num "${LO[rxe.$name]:-}")" "$(json_num "${HI[rxe.$name]:-}")" \
				"$(json_num "${LO[vrnic.$name]:-}")" "$(json_num "${HI[vrnic.$name]:-}")"
		done
		echo
		echo "  ],"
		printf '  "loss": {"netem_loss": "%s", "clean": %s, "lossy": %s, "retransmits": %s, "netem_dropped": %s, "kept": %s, "retransmits_per_drop": %s}\n' \
			"$LOSS" "$(json_num "${RESULT[clean.write_bw_64KiB]:-}")" \
			"$(json_num "${RESULT[lossy.write_bw_64KiB]:-}")" \
			"$(json_num "${RESULT[loss.retransmits]:-}")" \
			"$(json_num "${RESULT[loss.dropped]:-}")" \
			"$(ratio "${RESULT[clean.write_bw_64KiB]:-}" "${RESULT[lossy.write_bw_64KiB]:-}")" \
			"$(ratio "${RESULT[loss.dropped]:-}" "${RESULT[loss.retransmits]:-}")"
		echo ","
		echo "  \"zero_copy\": ["
		first=1
		for row in "${ZC_ROWS[@]}"; do
			read -r name _ <<<"$row"
			for topo in "${ZC_TOPOS[@]}"; do
				[[ $first -eq 1 ]] || echo ","
				first=0
				printf '    {"name": "%s", "topology": "%s", "copy": %s, "zero_copy": %s, "ratio": %s}' \
					"$name" "$topo" "$(json_num "${RESULT[zc0_$topo.$name]:-}")" \
					"$(json_num "${RESULT[zc1_$topo.$name]:-}")" \
					"$(ratio "${RESULT[zc0_$topo.$name]:-}" "${RESULT[zc1_$topo.$name]:-}")"
			done
		done
		echo
		echo "  ]"
		echo "}"
	} >"$OUT/bench.json"
}

mkdir -p "$LOGS"
for t in ib_write_bw ib_read_bw ib_send_bw ib_write_lat ib_send_lat ib_read_lat rdma ss; do
	command -v "$t" >/dev/null || { echo "bench: $t not installed (make deps)"; exit 1; }
done

# median VALUES...: the middle value (the lower middle for an even count).
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

bench_rxe() {
	echo "bench: round $ROUND/$REPS: rdma_rxe (loopback on $RXE_IF)"
	if rxe_setup; then
		run_matrix rxe || echo "bench: rxe0 has no RoCE v2 GID"
	else
		echo "bench: could not set up rdma_rxe"
	fi
	rxe_teardown
}

bench_vrnic() {
	echo "bench: round $ROUND/$REPS: vrnic ($VRNIC_TOPO)"
	if vrnic_setup; then
		run_matrix vrnic || { echo "bench: vrnic has no RoCE v2 GID"; status=1; }
	else
		echo "bench: could not set up vrnic"
		status=1
	fi
	vrnic_teardown
}

status=0
for ((ROUND = 1; ROUND <= REPS; ROUND++)); do
	# Which driver goes first alternates: a guest that warms up (or
	# slows down) over a round favours neither.
	if ((ROUND % 2)); then
		bench_rxe
		bench_vrnic
	else
		bench_vrnic
		bench_rxe
	fi
	[[ loss =~ $ROWS_RE || zero_copy =~ $ROWS_RE ]] || continue
	echo "bench: round $ROUND/$REPS: vrnic to vrnic, netem loss $LOSS"
	if bench_pair_setup; then
		if [[ loss =~ $ROWS_RE ]]; then
			run_loss || { echo "bench: the loss rows could not run"; status=1; }
		fi
		if [[ zero_copy =~ $ROWS_RE ]]; then
			echo "bench: round $ROUND/$REPS: vrnic zero_copy on and off"
			run_zero_copy || { echo "bench: the zero-copy rows could not run"; status=1; }
		fi
	else
		echo "bench: could not set up the vrnic pair"
		status=1
	fi
done
for key in "${!SAMPLES[@]}"; do
	# shellcheck disable=SC2086 # the samples are words
	RESULT[$key]=$(median ${SAMPLES[$key]})
	# shellcheck disable=SC2086
	read -r LO[$key] HI[$key] < <(printf '%s\n' ${SAMPLES[$key]} | sort -g | sed -n '1p;$p' | paste -sd' ')
done

write_reports
echo
cat "$OUT/bench.md"
echo
echo "bench: $OUT/bench.md, $OUT/bench.json, logs in $LOGS"
for row in "${ROWS[@]}"; do
	read -r name _ <<<"$row"
	[[ -n ${RESULT[vrnic.$name]:-} ]] || status=1
done
exit "$status"
