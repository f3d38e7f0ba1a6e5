#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# VRNIC_TIMEOUT=600
#
# cc_replay.sh - the kernel's DCQCN reaction point, traced on a real flow,
# is reproduced step by step by the reference model.
#
# Two vrnic devices on a veth pair; tc pedit marks every RoCE packet A
# sends CE, so B answers with CNPs and A's QP is cut, recovers, is cut
# again.  The tracepoints vrnic:vrnic_cc_params, vrnic_cc_input and
# vrnic_cc_rate (kmod/trace.h) record the QP's parameters, inputs (CNPs,
# bytes sent) and every state change; lib/cc_trace.py turns the trace into
# ../shared/cc/dcqcn_oracle.py's replay format, and "dcqcn_oracle.py
# replay" must find every step identical.  The trace buffer must not have
# overflowed (a lost event would make the replay meaningless).  Where
# matplotlib is installed, the rate-versus-time plot of each QP lands in
# the VM run's results (tests/cc_replay.sh/rate.png).

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

REPO=$(cd "$(dirname "$0")/.." && pwd)
ORACLE=${VRNIC_CC_ORACLE:-$REPO/../shared/cc/dcqcn_oracle.py}
TRACING=/sys/kernel/tracing
PORT=18715
OUT=${RESULTS:+$RESULTS/tests/cc_replay.sh}
OUT=${OUT:-$(mktemp -d)}

ktap_header
ktap_require_vm
ktap_require_cmd ip tc rdma rdmactl ib_write_bw python3 ss
[[ -d $TRACING/events/vrnic ]] || ktap_skip_all "no vrnic tracepoints (module not loaded, or no tracefs)"
mkdir -p "$OUT"

for m in cls_matchall act_pedit act_csum sch_ingress; do modprobe "$m" 2>/dev/null; done
veth_setup || ktap_bail "no veth pair"
run_stage "vrnic devices on the veth pair" \
	eval "in_a rdma link add rpl_a type vrnic netdev $IF_A && in_b rdma link add rpl_b type vrnic netdev $IF_B" ||
	ktap_bail "no devices"
defer in_a rdma link delete rpl_a
defer in_b rdma link delete rpl_b

# One CNP per millisecond at most, so that the trace stays small.
run_stage "min_time_between_cnps 1000 on B" \
	in_b rdmactl dcqcn set rpl_b min_time_between_cnps 1000
run_stage "CE on everything A sends (tc pedit)" eval \
	"in_a tc qdisc add dev $IF_A clsact && in_a tc filter add dev $IF_A egress protocol ip matchall action pedit ex munge ip tos set 0x03 retain 0x03 pipe action csum ip"

echo 0 >"$TRACING/tracing_on"
echo >"$TRACING/trace"
echo 65536 >"$TRACING/buffer_size_kb"
for e in vrnic_cc_params vrnic_cc_input vrnic_cc_rate; do
	echo 1 >"$TRACING/events/vrnic/$e/enable"
done
defer eval "echo 0 > $TRACING/events/vrnic/enable; echo 1408 > $TRACING/buffer_size_kb"
echo 1 >"$TRACING/tracing_on"

in_b ib_write_bw -d rpl_b -x 1 -p "$PORT" -s 65536 -n 60 >/dev/null 2>&1 &
srv=$!
wait_for 60 tcp_listening "$NS_B" "$PORT" || ktap_bail "ib_write_bw server did not start"
run_stage "ib_write_bw through the CE marks" \
	timeout 300 ip netns exec "$NS_A" ib_write_bw -d rpl_a -x 1 -p "$PORT" -s 65536 -n 60 "$IP_B"
wait "$srv"
echo 0 >"$TRACING/tracing_on"
cp "$TRACING/trace" "$OUT/trace"

ktap_result "CNPs cut A's rate (rp_cnp_handled > 0)" \
	$(($(cat /sys/class/infiniband/rpl_a/ports/1/hw_counters/rp_cnp_handled) > 0 ? 0 : 1))

hdr=$(grep -m1 'entries-in-buffer/entries-written' "$OUT/trace")
ktap_comment "trace: ${hdr#\# }"
[[ $hdr =~ ([0-9]+)/([0-9]+) ]]
ktap_result "trace buffer kept every event" \
	$([[ ${BASH_REMATCH[1]:-0} -gt 0 && ${BASH_REMATCH[1]} == "${BASH_REMATCH[2]}" ]] && echo 0 || echo 1)

rm -rf "$OUT/replay"
if ! python3 "$REPO/selftests/lib/cc_trace.py" split "$OUT/trace" "$OUT/replay" >"$KTAP_OUT" 2>&1; then
	ktap_dump
	ktap_fail "trace split per QP"
fi
sed 's/^/# /' "$KTAP_OUT"
files=("$OUT"/replay/rpl_a-*.replay)
ktap_result "A's RC QP has a trace" $([[ -f ${files[0]} ]] && echo 0 || echo 1)
if [[ ! -f $ORACLE ]]; then
	ktap_skip "oracle replays the kernel's steps exactly" "no oracle at $ORACLE"
else
	for f in "${files[@]}"; do
		[[ -f $f ]] || continue
		grep -q ' out ' "$f" || continue	# a QP without CNPs (GSI)
		if python3 "$ORACLE" replay "$f" >"$KTAP_OUT" 2>&1; then
			sed 's/^/# /' "$KTAP_OUT"
			ktap_ok "oracle replays ${f##*/} exactly"
		else
			ktap_dump
			ktap_fail "oracle replays ${f##*/} exactly"
		fi
	done
fi

if python3 -c 'import matplotlib' 2>/dev/null; then
	run_stage "rate-versus-time plot" \
		python3 "$REPO/selftests/lib/cc_trace.py" plot "$OUT/trace" "$OUT/rate.png"
else
	ktap_skip "rate-versus-time plot" "python3-matplotlib not installed"
fi

ktap_finish
