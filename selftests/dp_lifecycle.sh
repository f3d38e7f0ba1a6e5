#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# VRNIC_TIMEOUT=600
#
# dp_lifecycle.sh - a process killed mid-transfer leaves nothing behind.
#
# Two devices of type $DP_LINK_TYPE (default vrnic) on a veth pair.  While
# ib_write_bw moves data, the client is killed with SIGKILL: every QP, CQ,
# MR and PD it held on its device must go away (rdma resource show back to
# the count before the run, none owned by a process).  The same for the
# server, then for an rping client (rdma_cm IDs).  Then the devices are
# deleted and the driver module is unloaded, which fails if anything still
# holds a reference.  (The VM runner scans dmesg for warnings afterwards.)

DP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=dp_lib.sh
. "$DP_DIR/dp_lib.sh"

dp_require ib_write_bw rping ss
trap dp_cleanup EXIT
dp_begin
dp_load "$DP_LINK_TYPE" || ktap_skip_all "cannot load the $DP_LINK_TYPE driver"
dp_topology "$DP_LINK_TYPE" "$DP_LINK_TYPE" || {
	tap_result fail setup "could not build the topology"
	ktap_finish
}

# Objects that a process owns; the baseline is taken before any process
# ran, so "back to baseline" means nothing of a process is left.
RES_TYPES=(qp cq mr pd cm_id ctx)
declare -A BASE=()

for h in A B; do
	BASE[$h]=$(dp_res_summary "${DP_DEV[$h]}")
	ktap_comment "${DP_DEV[$h]} before: ${BASE[$h]}"
done

# Packets sent by a device (per-driver counter name).
tx_packets() {
	case ${DP_TYPE[A]} in
	rxe) dp_counter "$1" sent_pkts ;;
	*) dp_counter "$1" tx_packets ;;
	esac
}

# PID of a process holding a QP on device $1.
qp_owner() {
	rdma resource show qp 2>/dev/null | grep -E "^link $1/" |
		grep -Eo "pid [0-9]+" | awk '{ print $2 }' | head -n 1
}

# wait_owner DEV: wait up to $DP_TIMEOUT for a process to own a QP on DEV.
wait_owner() {
	local end=$((SECONDS + DP_TIMEOUT)) pid

	until pid=$(qp_owner "$1") && [[ -n $pid ]]; do
		[[ $SECONDS -lt $end ]] || return 1
		sleep 0.3
	done
	echo "$pid"
}

# released HOST: HOST's device is back to its baseline of every counted
# object (waits up to 30s: process exit tears down asynchronously).
released() {
	local h=$1 t end=$((SECONDS + 30)) now left

	while :; do
		now=$(dp_res_summary "${DP_DEV[$h]}")
		left=
		for t in "${RES_TYPES[@]}"; do
			[[ $(dp_res_of "$now" "$t") == "$(dp_res_of "${BASE[$h]}" "$t")" ]] ||
				left+=" $t"
		done
		[[ -z $left ]] && return 0
		[[ $SECONDS -lt $end ]] || break
		sleep 0.3
	done
	echo "# ${DP_DEV[$h]}: not back to baseline:$left"
	echo "#   before: ${BASE[$h]}"
	echo "#   now:    $now"
	for t in qp cq mr pd cm_id; do
		rdma resource show "$t" 2>/dev/null | grep -E "^(link|dev) ${DP_DEV[$h]}(/| )" | sed 's/^/#   /'
	done
	return 1
}

# kill_check NAME HOST PID: SIGKILL PID (if still alive), then expect
# HOST's device back to its baseline.
kill_check() {
	local name=$1 h=$2 pid=$3 rc=0

	kill -KILL "$pid" 2>/dev/null
	released "$h" || rc=1
	dp_report "$name" "$rc" "resources left on ${DP_DEV[$h]}"
}

# traffic_flowing DEV: the device's tx counter moves (up to 60s).
traffic_flowing() {
	local end=$((SECONDS + 60)) t0

	while [[ $SECONDS -lt $end ]]; do
		t0=$(tx_packets "$1")
		sleep 1
		[[ $(tx_packets "$1") -gt $t0 ]] && return 0
	done
	return 1
}

# run_pair SRV_CMD CLI_CMD WAIT: start a long-running pair (server on B,
# client on A) in the background; sets SRV_JOB, CLI_JOB, SPID, CPID (the
# processes owning the QPs).
# shellcheck disable=SC2086 # the commands are split into words on purpose
run_pair() {
	dp_in B timeout -k 5 "$DP_TIMEOUT" $1 >"$DP_LOG/$4.server" 2>&1 &
	SRV_JOB=$!
	case $3 in
	tcp) dp_wait_tcp B "$DP_PORT" "$SRV_JOB" ;;
	cm) dp_wait_cm "$DP_PORT" "$SRV_JOB" ;;
	esac
	dp_in A timeout -k 5 "$DP_TIMEOUT" $2 >"$DP_LOG/$4.client" 2>&1 &
	CLI_JOB=$!
	CPID=$(wait_owner "${DP_DEV[A]}")
	SPID=$(wait_owner "${DP_DEV[B]}")
	if [[ -z $CPID || -z $SPID ]] || ! traffic_flowing "${DP_DEV[A]}"; then
		dp_tail "$DP_LOG/$4.server"
		dp_tail "$DP_LOG/$4.client"
		return 1
	fi
}

end_pair() {
	kill -KILL "$CLI_JOB" "$SRV_JOB" 2>/dev/null
	wait "$CLI_JOB" "$SRV_JOB" 2>/dev/null
	dp_next_port
}

# --- ib_write_bw: SIGKILL the client mid-transfer ---
t0=$SECONDS
if run_pair "ib_write_bw -d ${DP_DEV[B]} -x ${DP_GIDX[B]} -p $DP_PORT -F -s 4096 -n 10000000" \
	"ib_write_bw -d ${DP_DEV[A]} -x ${DP_GIDX[A]} -p $DP_PORT -F -s 4096 -n 10000000 ${DP_ADDR[B]}" \
	tcp write_bw; then
	ktap_comment "SIGKILL ib_write_bw client (pid $CPID) with traffic in flight"
	kill_check kill_write_bw_client_mid_transfer_frees_qp_cq_mr_pd A "$CPID"
	kill_check write_bw_server_of_killed_client_frees_qp_cq_mr_pd B "$SPID"
else
	tap_result fail kill_write_bw_client_mid_transfer_frees_qp_cq_mr_pd "no traffic"
	tap_result fail write_bw_server_of_killed_client_frees_qp_cq_mr_pd "no traffic"
fi
end_pair
ktap_comment "ib_write_bw stage: $((SECONDS - t0))s"

# --- rping: SIGKILL the server mid-run; rdma_cm IDs go too ---
t0=$SECONDS
if run_pair "rping -s -a ${DP_ADDR[B]} -p $DP_PORT -C 1000000 -S 64" \
	"rping -c -a ${DP_ADDR[B]} -I ${DP_ADDR[A]} -p $DP_PORT -C 1000000 -S 64" \
	cm rping; then
	ktap_comment "SIGKILL rping server (pid $SPID) with traffic in flight"
	kill_check kill_rping_server_mid_transfer_frees_cm_ids_and_verbs_objects B "$SPID"
	kill_check rping_client_of_killed_server_frees_cm_ids_and_verbs_objects A "$CPID"
else
	tap_result fail kill_rping_server_mid_transfer_frees_cm_ids_and_verbs_objects "no traffic"
	tap_result fail rping_client_of_killed_server_frees_cm_ids_and_verbs_objects "no traffic"
fi
end_pair
ktap_comment "rping stage: $((SECONDS - t0))s"

# --- device deletion and module unload after traffic ---
rc=0
for h in A B; do
	rdma link delete "${DP_DEV[$h]}" || rc=1
	[[ -e /sys/class/infiniband/${DP_DEV[$h]} ]] && rc=1
done
dp_report link_delete_removes_devices "$rc" "rdma link delete failed or device still present"

case $DP_LINK_TYPE in
rxe) mod=rdma_rxe ;;
*) mod=$DP_LINK_TYPE ;;
esac
if rmmod "$mod"; then
	tap_result ok module_unload_after_traffic
	# leave the driver loaded as we found it
	dp_load "$DP_LINK_TYPE" >/dev/null 2>&1
else
	tap_result fail module_unload_after_traffic "rmmod $mod: refcount $(cat "/sys/module/$mod/refcnt" 2>/dev/null)"
fi

ktap_finish
