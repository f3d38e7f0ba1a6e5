#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# VRNIC_TIMEOUT=600
# VRNIC_FULL_TIMEOUT=7200
#
# stress_kill.sh - processes killed and the module removed while data
# moves, many times over (stress_lib.sh: STRESS_ROUNDS rounds per stage).
#
#  - kill -9 of both ib_write_bw processes mid-transfer: every object they
#    held on both devices goes away (rdma resource show back to the
#    baseline taken before the first round);
#  - rmmod vrnic while the transfer runs: it must not block (with user
#    contexts open it fails with EBUSY at once, unless the driver can
#    disassociate them, when it succeeds); then the processes are killed
#    and rmmod is retried at once, racing their teardown, and must succeed
#    within 30 s; the module is loaded again for the next round.

# shellcheck source=selftests/stress_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/stress_lib.sh"

dp_require ib_write_bw ibv_rc_pingpong ss rmmod
[[ -n ${VRNIC_KO:-} && -f $VRNIC_KO ]] || ktap_skip_all "VRNIC_KO not set (run in the VM runner)"
trap 'st_traffic_stop; dp_cleanup' EXIT
dp_begin
dp_load vrnic || ktap_skip_all "cannot load vrnic"

declare -A BASE=()

# back_to_base HOST: HOST's device lists what it listed before round 1.
back_to_base() {
	[[ $(st_res "${DP_DEV[$1]}") == "${BASE[$1]}" ]]
}

kill_round() {
	local h

	st_traffic || { echo "no traffic"; return 1; }
	st_traffic_stop
	for h in A B; do
		if ! st_wait 30 back_to_base "$h"; then
			echo "${DP_DEV[$h]} before: ${BASE[$h]}"
			echo "${DP_DEV[$h]} now:    $(st_res "${DP_DEV[$h]}")"
			echo "objects of killed processes left on ${DP_DEV[$h]}"
			return 1
		fi
	done
}

rmmod_round() {
	local rc end

	st_topology || { echo "topology failed"; return 1; }
	st_traffic || { echo "no traffic"; return 1; }
	timeout -k 5 "$ST_BLOCKED" rmmod vrnic 2>/dev/null
	rc=$?
	if [[ $rc -eq 124 || $rc -eq 137 ]]; then
		echo "rmmod vrnic blocked for ${ST_BLOCKED}s with traffic running"
		return 1
	fi
	st_traffic_stop
	end=$((SECONDS + 30))
	while [[ -d /sys/module/vrnic ]]; do
		rmmod vrnic 2>/dev/null && break
		if [[ $SECONDS -ge $end ]]; then
			echo "rmmod vrnic still failing 30s after the processes were killed (refcnt $(cat /sys/module/vrnic/refcnt 2>/dev/null))"
			return 1
		fi
		sleep 0.1
	done
	st_untopology
	insmod "$VRNIC_KO" || { echo "insmod after rmmod failed"; return 1; }
}

st_topology || {
	tap_result fail setup "could not build the topology"
	ktap_finish
}
for h in A B; do
	BASE[$h]=$(st_res "${DP_DEV[$h]}")
	ktap_comment "${DP_DEV[$h]} baseline: ${BASE[$h]}"
done
st_stage kill9_mid_transfer_releases_everything kill_round
st_untopology
st_stage rmmod_with_traffic_never_blocks_and_succeeds_once_killed rmmod_round
st_untopology

ktap_finish
