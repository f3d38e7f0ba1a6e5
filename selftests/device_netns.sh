#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# VRNIC_VM_BOOT=own
#
# device_netns.sh - a vrnic device in ib_core's "exclusive" RDMA netns
# mode ("rdma system set netns exclusive"), moved between network
# namespaces with "rdma dev set DEV netns NS".
#
# In that mode a device shows only in its own namespace, and a move
# removes and re-adds every ib_client of the device: ib_uverbs
# disassociates the processes that hold it open, which the core allows only
# for a driver with disassociate_ucontext.  The device's netdev, and with
# it the UDP socket its packets use, stays where it is.  Checked:
#  - the move succeeds while a process holds the device open (a context,
#    PD, CQ, MR and QP), and that process is disassociated, not killed;
#  - the device shows in its new namespace only (rdma dev, rdmactl dev),
#    there to unprivileged users too (rdmactl qos show: the vrnic family);
#  - from there two QPs of the device exchange RC messages whose buffers
#    ibv_rc_pingpong -c checks;
#  - it moves back, works there as well, and is deleted.
# The mode is global, and ib_core refuses to switch it while any namespace
# but the initial one exists: a boot of its own.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd rdma ibv_rc_pingpong ss ip setpriv

REPO=$(cd "$(dirname "$0")/.." && pwd)
RDMACTL=${RDMACTL:-$REPO/build/cmake/ctl/rdmactl}
DEV=vnsx0
NETDEV=vnsx0n
ADDR=10.79.7.1
NS=vnsx_ns
PORT=18517
HOLDER=
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

dev_in() {
	in_ns "$1" rdma dev show 2>/dev/null | grep -q ": $DEV:"
}

# pingpong NS: ibv_rc_pingpong between two QPs of $DEV, run from NS, with
# buffer validation; TCP over NS's loopback exchanges the QPs' addresses.
pingpong() {
	local ns=$1 gid srv rc

	gid=$(in_ns "$ns" bash -c ". $REPO/selftests/lib/gid.sh; roce_gid_index $DEV $ADDR") ||
		{ echo "no RoCE v2 GID for $ADDR"; return 1; }
	in_ns "$ns" timeout 120 ibv_rc_pingpong -d "$DEV" -g "$gid" -p "$PORT" -c -n 200 &
	srv=$!
	wait_for 60 tcp_listening "$ns" "$PORT" || { kill "$srv"; return 1; }
	in_ns "$ns" timeout 120 ibv_rc_pingpong -d "$DEV" -g "$gid" -p "$PORT" -c -n 200 \
		localhost || rc=1
	wait "$srv" || rc=1
	return "${rc:-0}"
}

release() {
	[[ -n $HOLDER ]] || return 0
	kill -KILL "$HOLDER" 2>/dev/null
	wait "$HOLDER" 2>/dev/null
	HOLDER=
}

run_stage "vrnic module loaded" test -d /sys/module/vrnic ||
	ktap_bail "vrnic is not loaded"
ip -all netns delete 2>/dev/null
if ! rdma system show 2>/dev/null | grep -q 'netns'; then
	ktap_skip_all "rdma system: iproute2 without RDMA netns modes"
fi
run_stage "rdma system set netns exclusive" \
	wait_for 30 rdma system set netns exclusive ||
	ktap_bail "exclusive mode refused"
# After the namespaces below are gone: their deletion completes later.
defer wait_for 30 rdma system set netns shared

dummy_up() {
	ip link add "$NETDEV" type dummy && ip link set "$NETDEV" up &&
		ip addr add "$ADDR/24" dev "$NETDEV"
}
dummy_up || ktap_bail "no dummy netdev"
defer ip link delete "$NETDEV"
run_stage "rdma link add $DEV on $NETDEV" \
	rdma link add "$DEV" type vrnic netdev "$NETDEV" || ktap_bail "no device"
defer rdma link delete "$DEV"
ns_up() {
	ip netns add "$NS" && ip -n "$NS" link set lo up
}
ns_up || ktap_bail "no namespace"
defer ip netns delete "$NS"
# "rdma dev set ... netns" takes a name: one for the initial namespace.
ip netns attach vnsx_init 1 || ktap_bail "cannot name the initial namespace"
defer ip netns delete vnsx_init

ibv_rc_pingpong -d "$DEV" -p "$PORT" >/dev/null 2>&1 &
HOLDER=$!
defer release
expect_ok "a process holds $DEV open" wait_for 60 tcp_listening "" "$PORT"
run_stage "rdma dev set $DEV netns $NS while a process holds it" \
	timeout 60 rdma dev set "$DEV" netns "$NS"
expect_ok "the holder is still alive (disassociated, not killed)" kill -0 "$HOLDER"
release
expect_ok "$DEV shows in $NS" dev_in "$NS"
expect_fail "$DEV does not show in the initial namespace" dev_in ""
expect_output "rdmactl dev in $NS lists $DEV" "^$DEV " \
	ip netns exec "$NS" "$RDMACTL" dev
# The vrnic family shows the device to unprivileged users where it lives.
expect_output "rdmactl qos show $DEV in $NS answers nobody" "\"dev_name\": *\"$DEV\"" \
	ip netns exec "$NS" "${NOBODY[@]}" "$RDMACTL" -j qos show "$DEV"
expect_fail "rdmactl qos show $DEV in the initial namespace: not to nobody" \
	"${NOBODY[@]}" "$RDMACTL" qos show "$DEV"
expect_ok "RC messages between two QPs of $DEV, run from $NS" pingpong "$NS"

run_stage "rdma dev set $DEV netns back to the initial namespace" \
	timeout 60 ip netns exec "$NS" rdma dev set "$DEV" netns vnsx_init
expect_ok "$DEV shows in the initial namespace" dev_in ""
expect_fail "$DEV no longer shows in $NS" dev_in "$NS"
expect_ok "RC messages between two QPs of $DEV, back home" pingpong ""
run_stage "rdma link delete $DEV" rdma link delete "$DEV"

ktap_finish
