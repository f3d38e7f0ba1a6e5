#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_hosts.sh peer|main - the guest side of the two-host rows of
# `make bench` (selftests/vm/pair.sh boots the two guests).
#
# Two guests joined by one virtio link (a socket between their QEMUs): B ("peer",
# 10.222.0.1, fd00:222::1) runs lib/bench_peer.py and does what A asks;
# A ("main", 10.222.0.2, fd00:222::2) runs the clients and measures.  Like
# for like: rdma_rxe on both ends in one pass, vrnic on both ends in the
# next, same link, MTU and tools; BENCH_REPS rounds (default 3), the
# driver that goes first alternating.  Every round:
#
#  - nvme-tcp: fio on a null_blk namespace that B exports with nvmet over
#    TCP (the reference for the NVMe-oF rows);
#  - per driver, at MTU 1500 (IB MTU 1024): ib_{write,read,send}_bw 64 KiB,
#    ib_write_bw 4 KiB and 1 MiB, -q 4, and 64 KiB over IPv6; the same
#    fio rows over nvme-rdma; at MTU 9000 (IB MTU 4096): the 64 KiB rows;
#  - vrnic only: ib_write_bw 64 KiB with "netem loss BENCH_LOSS" (default
#    2%) on A's end of the link, against the same run without loss: the
#    bandwidth kept, retransmitted packets against netem's drops.
#
# BENCH_ROWS (an extended regex, default all) keeps the rows whose name
# matches it (write_bw_64KiB_q4, randread_4KiB_qd1, loss_lossy, ...), and
# BENCH_DRIVERS (default "rxe vrnic") the drivers: to look into one row.
# BENCH_DIAG=1 saves the link's qdisc and interface statistics, the
# RDMA port counters and the CPU time (the guest's, its busiest tasks')
# of both ends around every perftest and fio run (LOG.diag), and vrnic's
# requester state of A's QPs during each perftest run (LOG.qp; under
# TCG each sample takes the vCPU for most of a second);
# BENCH_PROFILE=1 samples both guests' CPUs with perf during it and
# during each fio row (LOG.prof.A, LOG.prof.B: the busiest functions);
# BENCH_PROFILE=g with call graphs (each function's share with what it
# calls).
#
# CPU cost: the busy time (user, nice, system, irq, softirq, steal of
# /proc/stat) both guests spent during a row, in seconds per GiB of
# payload (message size x iterations x QPs; fio's bytes read).  perftest
# runs with -e (it sleeps on completion events): a busy-polling client
# and server keep their CPUs at 100% whatever the driver does, and the
# CPU per GiB would only restate the bandwidth.  ib_write_bw has no -e:
# its client polls, so A's CPU is busy through those rows (B's, the
# responder's, is the driver's work alone).
#
# A writes $RESULTS/bench_hosts.samples, one measurement a line:
#   row NAME TOOL SIZE ITERS QPS MTU IPVER UNIT      (once per row)
#   val NAME DRIVER ROUND VALUE CPU_S_PER_GIB
#   info KEY VALUE...
# and lib/bench_report.py turns it into Markdown, JSON and charts on the
# host.  Under TCG the absolute numbers mean little; the ratios do.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"
# shellcheck source=selftests/lib/hosts.sh
. "$(dirname "$0")/lib/hosts.sh"
# shellcheck source=selftests/lib/perftest.sh
. "$(dirname "$0")/lib/perftest.sh"

LIB=$(cd "$(dirname "$0")/lib" && pwd)
ROLE=${1:-}
NQN=nqn.2026-11.org.vrnic:bench
OUT=${RESULTS:-/tmp}
LOGS=$OUT/bench_hosts
SAMPLES=$OUT/bench_hosts.samples
SCALE=${BENCH_SCALE:-1}
REPS=${BENCH_REPS:-3}
TMO=${BENCH_TIMEOUT:-180}
LOSS=${BENCH_LOSS:-2%}
FIO_S=${BENCH_FIO_SECONDS:-10}
ROWS_RE=${BENCH_ROWS:-.}
read -r -a DRIVERS <<<"${BENCH_DRIVERS:-rxe vrnic}"
PORT=18700

[[ $ROLE == peer ]] && peer_serve
[[ $ROLE == main ]] || { echo "usage: bench_hosts.sh peer|main" >&2; exit 2; }

# both CMDLINE: run it here and on B.
both() {
	bash -c "$1" && peer run 120 "$1"
}

# Busy jiffies of every CPU, here and on B (for the CPU cost).
busy_of() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }'
}
cpu_busy() {
	echo $(($(busy_of </proc/stat) + $(peer run 10 "cat /proc/stat" | busy_of)))
}
HZ=$(getconf CLK_TCK)

# cpu_per_gib BUSY0 BUSY1 BYTES: CPU-seconds per GiB.
cpu_per_gib() {
	awk -v b="$(($2 - $1))" -v hz="$HZ" -v n="$3" \
		'BEGIN { if (n > 0) printf "%.3f\n", b / hz / (n / 1073741824); else print "nan" }'
}

# diag: what a row did to the link and the port counters, both ends, and
# the CPU time of each guest and of its busiest tasks so far.
DIAG_CMD='tc -s qdisc show dev LINK; ip -s link show dev LINK
	grep . /sys/class/infiniband/*/ports/1/hw_counters/* 2>/dev/null | sed "s|.*/||"
	grep -E "^(Udp|Ip):" /proc/net/snmp
	head -n 1 /proc/stat; ps -eo pid,stat,time,comm --sort=-time | head -n 8'
diag() {
	[[ ${BENCH_DIAG:-0} == 1 ]] || return 0
	echo "== A $1"
	bash -c "${DIAG_CMD//LINK/$LINK}" 2>&1
	echo "== B $1"
	peer run 10 "${DIAG_CMD//LINK/$LINK}" 2>&1
}

# qp_sample_start LOG / qp_sample_stop: with BENCH_DIAG=1, the vrnic
# requester's state of A's QPs while a client runs, with 0.5 s of sleep
# between samples (LOG.qp:
# "rdma -dd resource show qp", req_psn - comp_psn is what is in flight
# against the window, srtt_us the round trip it measured).
QP_SAMPLER=
qp_sample_start() {
	[[ ${BENCH_DIAG:-0} == 1 && $DRIVER == vrnic ]] || return 0
	while :; do
		echo "t $(cut -d' ' -f1 /proc/uptime)"
		rdma -dd resource show qp link "$DEV/1" 2>&1
		sleep 0.5
	done >"$1.qp" &
	QP_SAMPLER=$!
}
qp_sample_stop() {
	[[ -n $QP_SAMPLER ]] || return 0
	kill "$QP_SAMPLER" 2>/dev/null
	wait "$QP_SAMPLER" 2>/dev/null
	QP_SAMPLER=
}

# prof_start / prof_stop LOG: perf's flat profile of both guests while a
# client runs (CLIENT_WRAP on A; on B, until prof_stop ends its sleep);
# with BENCH_PROFILE=g, call graphs, reported as each function's share
# including what it calls.  A system-wide perf record without a
# workload, stopped by SIGINT, sampled next to nothing in these guests:
# each records over a command.
if [[ ${BENCH_PROFILE:-0} == g ]]; then
	PROF='perf record -a -g -F 499 -o /tmp/bench.perf.data --'
	PROF_REPORT='perf report -i /tmp/bench.perf.data --stdio --children --sort dso,sym -g none 2>/dev/null | grep -v "^#" | grep . | head -n 120'
else
	PROF='perf record -a -F 499 -o /tmp/bench.perf.data --'
	PROF_REPORT='perf report -i /tmp/bench.perf.data --stdio --no-children --sort dso,sym 2>/dev/null | grep -v "^#" | grep . | head -n 60'
fi
CLIENT_WRAP=()
prof_start() {
	[[ ${BENCH_PROFILE:-0} != 0 ]] || return 0
	read -r -a CLIENT_WRAP <<<"command $PROF"
	peer start prof 0 "$PROF sleep 86400" >/dev/null
}
prof_stop() {
	[[ ${BENCH_PROFILE:-0} != 0 ]] || return 0
	peer run 10 "pkill -f '^sleep 86400$'" >/dev/null
	peer wait prof 120 >/dev/null
	bash -c "$PROF_REPORT" >"$1.prof.A"
	peer run 300 "$PROF_REPORT" >"$1.prof.B"
}

# vrnic's retransmits counter on A (the requester of every row).
retransmits() {
	cat "/sys/class/infiniband/$DEV/ports/1/hw_counters/retransmits" 2>/dev/null || echo 0
}

# wanted NAME...: any of these rows selected by BENCH_ROWS?
wanted() {
	local n

	for n in "$@"; do
		[[ $n =~ $ROWS_RE ]] && return 0
	done
	return 1
}

row() {
	grep -q "^row $1 " "$SAMPLES" 2>/dev/null || echo "row $*" >>"$SAMPLES"
}

# ---- RDMA devices on both ends ----

DEV=
dev_del() {
	[[ -n $DEV ]] && both "rdma link delete $DEV 2>/dev/null; true"
	both "modprobe -r rdma_rxe 2>/dev/null; true"
	DEV=
}

# dev_add DRIVER MTU: rxe0 or vrnic0 on the link on both ends, MTU set
# first; GIDs in G4/G6 (ours) and PG4/PG6 (B's).
dev_add() {
	local drv=$1 mtu=$2 g

	dev_del
	both "ip link set dev $LINK mtu $mtu" || return 1
	if [[ $drv == rxe ]]; then
		both "modprobe rdma_rxe" || return 1
	fi
	DEV=${drv}0
	both "rdma link add $DEV type $drv netdev $LINK" || return 1
	G4=$(roce_gid_wait "$DEV" "$MAIN_IP") && G6=$(roce_gid_wait "$DEV" "$MAIN_IP6") || return 1
	g=". $LIB/gid.sh; roce_gid_wait $DEV"
	PG4=$(peer run 60 "$g $PEER_IP") && PG6=$(peer run 60 "$g $PEER_IP6") || return 1
}

# ---- perftest ----

# perf NAME TOOL SIZE ITERS QPS IPVER: one run of DRIVER, server on B;
# the sample goes under NAME, vrnic's resent packets into RESENT.
RESENT=0
perf() {
	local name=$1 tool=$2 size=$3 iters=$4 qps=$5 ipver=$6 label=$DRIVER
	local log=$LOGS/$name-$label-$ROUND lgid=$G4 pgid=$PG4
	local b0 b1 x0 x1 rc=0 v
	local -a opts

	# perftest's own TCP exchange stays on IPv4 (it cannot use an IPv6
	# address); the RoCE traffic goes between the GIDs of -x.
	[[ $ipver == 6 ]] && { lgid=$G6; pgid=$PG6; }
	PORT=$((PORT + 1))
	opts=(-s "$size" -n "$iters" -q "$qps" -p "$PORT" -F -e)
	# perftest has no events mode for WRITE ("Events feature not
	# available on WRITE verb"): its client polls.
	[[ $tool == ib_write_bw ]] && unset 'opts[-1]'
	if ! peer start srv "$PORT" "timeout $TMO $tool -d $DEV -x $pgid ${opts[*]}" >/dev/null; then
		echo "  $label $name: the server on B did not start"
		return 1
	fi
	diag before >"$log.diag"
	prof_start
	x0=$(retransmits)
	b0=$(cpu_busy)
	qp_sample_start "$log"
	"${CLIENT_WRAP[@]}" timeout "$TMO" "$tool" -d "$DEV" -x "$lgid" "${opts[@]}" "$PEER_IP" >"$log" 2>&1 || rc=$?
	qp_sample_stop
	b1=$(cpu_busy)
	x1=$(retransmits)
	prof_stop "$log"
	diag after >>"$log.diag"
	RESENT=$((x1 - x0))
	# A failed client leaves the server waiting: stop it soon.
	peer wait srv "$( ((rc)) && echo 5 || echo "$TMO")" >"$log.server" 2>&1
	v=$(perftest_value "$log" "$size" 4)
	if [[ $rc -ne 0 || -z $v ]]; then
		echo "  $label $name: failed (exit $rc, or no valid result), see $log"
		tail -n 5 "$log" | sed 's/^/    | /'
		return 1
	fi
	echo "val $name $label $ROUND $v $(cpu_per_gib "$b0" "$b1" $((size * iters * qps)))" >>"$SAMPLES"
	# vrnic's requester (A) counts what it sent twice; rxe has no such
	# counter (0).
	[[ $DRIVER == vrnic ]] && echo "val $name.resent $label $ROUND $RESENT" >>"$SAMPLES"
	printf '  %-6s %-24s %s MB/s, %s packets resent\n' "$label" "$name" "$v" "$RESENT"
}

# name tool size iterations qps ipver [noecn]
# noecn: vrnic's packets go out Not-ECT (rdmactl qos set DEV ecn none on
# both ends) for that row, as rdma_rxe's always do: where the link's
# qdisc marks CE (QEMU's guests have fq_codel), DCQCN slows vrnic down
# and nothing slows rdma_rxe, so the row without it is like for like.
ROWS_1500=(
	"write_bw_64KiB ib_write_bw 65536 500 1 4"
	"read_bw_64KiB ib_read_bw 65536 500 1 4"
	"send_bw_64KiB ib_send_bw 65536 500 1 4"
	"write_bw_4KiB ib_write_bw 4096 4000 1 4"
	"write_bw_1MiB ib_write_bw 1048576 40 1 4"
	"write_bw_64KiB_q4 ib_write_bw 65536 200 4 4"
	"write_bw_64KiB_q4_noecn ib_write_bw 65536 200 4 4 noecn"
	"write_bw_64KiB_ipv6 ib_write_bw 65536 500 1 6"
)
ROWS_9000=(
	"write_bw_64KiB_mtu9000 ib_write_bw 65536 500 1 4"
	"read_bw_64KiB_mtu9000 ib_read_bw 65536 500 1 4"
	"send_bw_64KiB_mtu9000 ib_send_bw 65536 500 1 4"
)

# ecn_en SETTING: vrnic's ecn_en on both ends ("none" or a list); prints
# what it was on A.
ecn_en() {
	local was

	was=$(rdmactl -j qos show "$DEV" | jq -r '[.. | objects | .ecn_en? // empty][0] |
		map(tostring) | join(",") | if . == "" then "none" else . end') &&
		both "rdmactl qos set $DEV ecn $1" && echo "$was"
}

perf_rows() {
	local mtu=$1 r name tool size iters qps ipver opt ecn
	shift

	for r in "$@"; do
		read -r name tool size iters qps ipver opt <<<"$r"
		wanted "$name" || continue
		iters=$((iters * SCALE))
		row "$name" "$tool" "$size" "$iters" "$qps" "$mtu" "$ipver" MB/s
		ecn=
		if [[ $opt == noecn && $DRIVER == vrnic ]]; then
			ecn=$(ecn_en none) || { echo "  $DRIVER $name: cannot turn ECN off"; continue; }
		fi
		perf "$name" "$tool" "$size" "$iters" "$qps" "$ipver"
		[[ -z $ecn ]] || ecn_en "$ecn" >/dev/null || echo "  $DRIVER: ecn_en not restored to $ecn"
	done
}

# ---- loss (vrnic to vrnic) ----

loss_rows() {
	local iters=$((500 * SCALE)) d

	wanted loss_clean loss_lossy || return 0
	row loss_clean ib_write_bw 65536 "$iters" 1 1500 4 MB/s
	row loss_lossy ib_write_bw 65536 "$iters" 1 1500 4 MB/s
	perf loss_clean ib_write_bw 65536 "$iters" 1 4
	tc qdisc add dev "$LINK" root netem loss "$LOSS" || return 1
	RESENT=0
	perf loss_lossy ib_write_bw 65536 "$iters" 1 4
	d=$(tc -s qdisc show dev "$LINK" | grep -o 'dropped [0-9]*' | awk '{ print $2; exit }')
	tc qdisc del dev "$LINK" root
	echo "loss $ROUND $RESENT ${d:-0}" >>"$SAMPLES"
	echo "  loss: $RESENT retransmitted, ${d:-0} dropped by netem"
}

# ---- NVMe-oF: null_blk on B, exported over rdma and tcp ----

nvmet_setup() {
	nvmet_export "modprobe null_blk nr_devices=1
		modprobe nvmet-rdma; modprobe nvmet-tcp" /dev/nullb0 &&
	modprobe nvme-rdma && modprobe nvme-tcp
}

# fio_row NAME RW BS QD: one fio job on NVME_DEV; samples of KEYs
# NAME.iops, NAME.lat_us (QD1) and NAME.MBps under label $1 of nvme_rows.
fio_row() {
	local label=$1 name=$2 rw=$3 bs=$4 qd=$5 log b0 b1 iops lat bw bytes

	wanted "$name" || return 0
	log=$LOGS/$name-$label-$ROUND.json
	diag before >"${log%.json}.diag"
	prof_start
	b0=$(cpu_busy)
	"${CLIENT_WRAP[@]}" fio --name="$name" --filename="$NVME_DEV" --direct=1 --ioengine=libaio --rw="$rw" \
		--bs="$bs" --iodepth="$qd" --time_based --runtime="$FIO_S" --ramp_time=2 \
		--output-format=json >"$log" 2>"$log.err" || {
		prof_stop "${log%.json}"
		echo "  $label $name: fio failed, see $log.err"
		return 1
	}
	b1=$(cpu_busy)
	prof_stop "${log%.json}"
	diag after >>"${log%.json}.diag"
	read -r iops lat bw bytes < <(jq -r '.jobs[0].read |
		"\(.iops) \(.lat_ns.mean / 1000) \(.bw_bytes / 1048576) \(.io_bytes)"' "$log")
	{
		echo "val $name.iops $label $ROUND $iops $(cpu_per_gib "$b0" "$b1" "$bytes")"
		echo "val $name.lat_us $label $ROUND $lat"
		echo "val $name.MBps $label $ROUND $bw $(cpu_per_gib "$b0" "$b1" "$bytes")"
	} >>"$SAMPLES"
	printf '  %-10s %-22s %10.0f IOPS %9.1f us %8.2f MB/s\n' "$label" "$name" "$iops" "$lat" "$bw"
}

# nvme_rows LABEL TRTYPE: connect to B's namespace, the fio rows, disconnect.
nvme_rows() {
	local label=$1 tr=$2 id=1 d

	wanted randread_4KiB_qd1 randread_4KiB_qd32 read_128KiB_qd16 || return 0
	[[ $tr == tcp ]] && id=2
	nvmet_port "$id" "$tr" || { echo "  $label: no nvmet $tr port"; return 1; }
	if nvme connect -t "$tr" -a "$PEER_IP" -s 4420 -n "$NQN" >/dev/null; then
		NVME_DEV=
		for _ in $(seq 100); do
			for d in /dev/nvme[0-9]*n1; do
				[[ -b $d ]] && NVME_DEV=$d
			done
			[[ -n $NVME_DEV ]] && break
			sleep 0.2
		done
		if [[ -n $NVME_DEV ]]; then
			fio_row "$label" randread_4KiB_qd1 randread 4k 1
			fio_row "$label" randread_4KiB_qd32 randread 4k 32
			fio_row "$label" read_128KiB_qd16 read 128k 16
		else
			echo "  $label: no namespace appeared"
		fi
		nvme disconnect -n "$NQN" >/dev/null
	else
		echo "  $label: nvme connect -t $tr failed"
	fi
	nvmet_unport "$id"
}

# ---- the run ----

link_up "$MAIN_MAC" "$MAIN_IP" "$MAIN_IP6" || exit 1
mkdir -p "$LOGS"
: >"$SAMPLES"
echo "# waiting for B's agent on $PEER_IP:$AGENT_PORT"
wait_for 300 peer run 5 true 2>/dev/null || { echo "B never answered"; exit 1; }
defer peer quit
defer dev_del
# "both" names the link NIC by A's name: the guests are built alike.
plink=$(peer_link)
[[ $plink == "$LINK" ]] || { echo "B's link NIC is '$plink', A's '$LINK'"; exit 1; }

{
	echo "info kernel $(uname -r)"
	echo "info cpus $(nproc)"
	echo "info crc32 $(awk '/^name/ { n = $3 } /^driver/ { d = $3 } /^priority/ { p = $3 }
		/^$/ { if (n == "crc32" && p > bp) { bp = p; bd = d } } END { print bd }' /proc/crypto)"
	echo "info loss $LOSS"
	echo "info reps $REPS"
	echo "info fio_seconds $FIO_S"
	# The link's round trip (ICMP, 20 pings): what QD1 rows sit on.
	echo "info ping_ms $(busybox ping -c 20 "$PEER_IP" | awk -F'[ /]' '/min\/avg\/max/ { print $(NF-3) "/" $(NF-2) "/" $(NF-1) }')"
} >>"$SAMPLES"

# The machine's own copy speed: reading a tmpfs file is one kernel copy
# (copy_to_user) per byte, the least any software RNIC must do.
dd if=/dev/zero of=/dev/shm/bench.mem bs=1M count=256 status=none
for i in 1 2 3; do
	t0=$(date +%s%N)
	dd if=/dev/shm/bench.mem of=/dev/null bs=1M status=none
	t1=$(date +%s%N)
	echo "val memcpy kernel $i $(awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.1f\n", 256 / (ns / 1e9) }')" >>"$SAMPLES"
done
rm -f /dev/shm/bench.mem
row memcpy dd 1048576 256 1 0 0 MB/s

# The link's own capacity for packets of a full RoCEv2 packet's size at
# MTU 1500 (UDP payload: BTH 12 + 1024 + ICRC 4), A to B: pktgen on A
# sends them for 5 s (one at a time, as the drivers do: no burst), B's
# interface counts what arrived.  The ceiling the rows' packet rates
# compare with; B's stack discards them (UDP port 9, nothing listens).
LINK_UDP_BYTES=1040
link_probe() {
	local pg=/proc/net/pktgen lt=/proc/net/pktgen/$LINK rx0 rx1 us pid opt
	local stats="/sys/class/net/$LINK/statistics/rx_packets"

	modprobe pktgen || return 1
	echo rem_device_all >"$pg/kpktgend_0" &&
	echo "add_device $LINK" >"$pg/kpktgend_0" || return 1
	for opt in "count 0" "delay 0" "burst 1" "clone_skb 0" \
		"pkt_size $((LINK_UDP_BYTES + 8 + 20 + 14))" "dst $PEER_IP" \
		"dst_mac $PEER_MAC" "udp_src_min 9" "udp_src_max 9" \
		"udp_dst_min 9" "udp_dst_max 9"; do
		echo "$opt" >"$lt" || { echo "pktgen: '$opt' refused" >&2; return 1; }
	done
	rx0=$(peer run 5 "cat $stats")
	echo start >"$pg/pgctrl" &
	pid=$!
	sleep 5
	echo stop >"$pg/pgctrl"
	wait "$pid"
	sleep 1
	rx1=$(peer run 5 "cat $stats")
	us=$(sed -n 's/^Result: OK: \([0-9]*\)(.*/\1/p' "$lt")
	echo rem_device_all >"$pg/kpktgend_0"
	[[ $us =~ ^[0-9]+$ && $rx0 =~ ^[0-9]+$ && $rx1 =~ ^[0-9]+$ ]] || return 1
	echo "# link: $((rx1 - rx0)) packets of $LINK_UDP_BYTES UDP bytes arrived in $us us" >&2
	awk -v n=$((rx1 - rx0)) -v us="$us" -v b=$LINK_UDP_BYTES \
		'BEGIN { printf "%.2f\n", n * b / us }'
}
for i in 1 2 3; do
	echo "val link_udp kernel $i $(link_probe || echo nan)" >>"$SAMPLES"
done
row link_udp pktgen "$LINK_UDP_BYTES" 0 1 1500 4 MB/s

nvmet_setup || { echo "no NVMe target on B"; exit 1; }
for ((ROUND = 1; ROUND <= REPS; ROUND++)); do
	order=("${DRIVERS[@]}")
	((ROUND % 2)) || order=("${DRIVERS[@]:1}" "${DRIVERS[0]}")
	echo "# round $ROUND of $REPS: ${order[*]}"
	both "ip link set dev $LINK mtu 1500"
	nvme_rows tcp tcp
	for DRIVER in "${order[@]}"; do
		dev_add "$DRIVER" 1500 || { echo "  $DRIVER: no devices at MTU 1500"; continue; }
		perf_rows 1500 "${ROWS_1500[@]}"
		nvme_rows "$DRIVER" rdma
		[[ $DRIVER == vrnic ]] && loss_rows
		wanted "${ROWS_9000[@]%% *}" || continue
		dev_add "$DRIVER" 9000 || { echo "  $DRIVER: no devices at MTU 9000"; continue; }
		perf_rows 9000 "${ROWS_9000[@]}"
	done
	dev_del
done
echo "# samples in $SAMPLES"
