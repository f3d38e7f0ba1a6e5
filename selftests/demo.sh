#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh - the guest side of `make demo` (run by selftests/vm/vm.sh demo,
# with vrnic loaded).  Two hosts, namespaces ns_a and ns_b joined by a veth
# pair; vrnic0 on ns_a's end, vrnic1 on ns_b's.  Shows the devices through
# stock rdma-core and rdmactl, runs ibv_rc_pingpong between them and prints
# the traffic counters.  Every step prints its command and output; the
# exit status is non-zero if any step failed.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

REPO=${VRNIC_REPO:-$(cd "$(dirname "$0")/.." && pwd)}
RDMACTL=$REPO/build/cmake/ctl/rdmactl
STEPS_OK=0
STEPS_FAILED=()

# step TITLE CMD...: show and run CMD, remember whether it worked.
step() {
	local title=$1 rc=0
	shift

	echo
	echo "=== $title"
	echo "\$ $*"
	"$@" 2>&1 || rc=$?
	if [[ $rc -eq 0 ]]; then
		STEPS_OK=$((STEPS_OK + 1))
	else
		echo "--> failed (exit status $rc)"
		STEPS_FAILED+=("$title")
	fi
	return "$rc"
}

# pingpong: ibv_rc_pingpong server in ns_b on vrnic1, client in ns_a on
# vrnic0, over RoCE v2 (IPv4 GIDs), checking the received data (-c).
pingpong() {
	local ga gb srv rc=0

	ga=$(roce_gid_index vrnic0 "$IP_A") || { echo "vrnic0 has no RoCE v2 GID for $IP_A"; return 1; }
	gb=$(roce_gid_index vrnic1 "$IP_B") || { echo "vrnic1 has no RoCE v2 GID for $IP_B"; return 1; }
	in_b timeout 120 ibv_rc_pingpong -d vrnic1 -g "$gb" -c -n 100 &
	srv=$!
	if ! wait_for 20 tcp_listening "$NS_B" 18515; then
		echo "the pingpong server did not start"
		kill "$srv" 2>/dev/null
		wait "$srv"
		return 1
	fi
	in_a timeout 120 ibv_rc_pingpong -d vrnic0 -g "$ga" -c -n 100 "$IP_B" || rc=$?
	wait "$srv" || rc=$((rc ? rc : $?))
	return "$rc"
}

rdmactl_show() {
	if [[ ! -x $RDMACTL ]]; then
		echo "($RDMACTL not built: skipped)"
		return 0
	fi
	"$RDMACTL" -j dev show
}

echo "vrnic demo: kernel $(uname -r), module $(cat /sys/module/vrnic/srcversion 2>/dev/null || echo 'not loaded')"
step "two hosts: $NS_A ($IP_A) and $NS_B ($IP_B) on a veth pair" veth_setup
step "vrnic0 on $NS_A's $IF_A" in_a rdma link add vrnic0 type vrnic netdev "$IF_A" &&
	defer rdma link delete vrnic0
step "vrnic1 on $NS_B's $IF_B" in_b rdma link add vrnic1 type vrnic netdev "$IF_B" &&
	defer rdma link delete vrnic1
step "RDMA links" rdma link show
step "stock rdma-core sees them" ibv_devices
step "device details" ibv_devinfo -d vrnic0
step "rdmactl" rdmactl_show
step "traffic: ibv_rc_pingpong vrnic0 -> vrnic1, data checked" pingpong
step "counters of vrnic0" rdma -j -p statistic show link vrnic0/1
step "counters of vrnic1" rdma -j -p statistic show link vrnic1/1

echo
if [[ ${#STEPS_FAILED[@]} -eq 0 ]]; then
	echo "demo: all $STEPS_OK steps worked"
	exit 0
fi
echo "demo: $STEPS_OK steps worked, ${#STEPS_FAILED[@]} failed:"
printf '  - %s\n' "${STEPS_FAILED[@]}"
exit 1
