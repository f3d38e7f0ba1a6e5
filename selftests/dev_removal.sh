#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# VRNIC_TIMEOUT=900
#
# dev_removal.sh - a vrnic device goes away on demand, whoever uses it.
#
# A process that holds a device open (a context, PD, CQ, MR and QP: an
# ibv_rc_pingpong server waiting for its peer, or ib_write_bw moving data)
# must not block "rdma link delete", the netdev's deletion, its namespace's
# deletion or "rmmod vrnic": the device is disassociated from the process,
# whose later verbs fail.  Without disassociate_ucontext ib_uverbs waits
# for every such process to close the device, forever.
#
# Also the races around a device's birth and its namespace:
#  - the netdev moved to another namespace (which queues the device's
#    removal) and the old namespace deleted at once: the pernet exit must
#    still find the device, whose sockets live in the old namespace;
#  - "rdma link add" racing the netdev's deletion: no device may stay bound
#    to a netdev that is gone (the netdev's unregistration would then wait
#    for our reference forever).
# The VM runner fails the file on any kernel report (slub_debug).

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd rdma ibv_rc_pingpong ib_write_bw ss ip

# Long enough for a busy TCG guest, short enough to tell "blocked" apart.
REMOVE_TIMEOUT=60
PORT=18515
HOLDER=

# vrnic device names on the host, one per line.
vrnic_devs() {
	rdma link show 2>/dev/null | awk '/vrnic/ { split($2, a, "/"); print a[1] }' | sort -u
}

dev_present() {
	[[ -e /sys/class/infiniband/$1 ]]
}

dev_gone() {
	! dev_present "$1"
}

# hold NS DEV: start a process in NS ("" for this one) that holds DEV open
# (context, PD, CQ, MR, QP) and waits for a peer that never comes; sets
# $HOLDER.
hold() {
	local ns=$1 dev=$2 run=()

	[[ -z $ns ]] || run=(ip netns exec "$ns")
	"${run[@]}" ibv_rc_pingpong -d "$dev" -p "$PORT" >/dev/null 2>&1 &
	HOLDER=$!
	wait_for 60 tcp_listening "$ns" "$PORT" || return 1
	rdma resource show qp 2>/dev/null | grep -q "link $dev/"
}

release() {
	[[ -n $HOLDER ]] || return 0
	kill -KILL "$HOLDER" 2>/dev/null
	wait "$HOLDER" 2>/dev/null
	HOLDER=
}
defer release

# new_pair: fresh ns_a/ns_b veth pair with vrnic0 on $IF_A (in ns_a).
new_pair() {
	ip -all netns delete 2>/dev/null
	veth_setup || return 1
	in_a rdma link add vrnic0 type vrnic netdev "$IF_A" &&
		wait_for 30 dev_present vrnic0
}

# timed CMD...: CMD must finish within $REMOVE_TIMEOUT seconds and succeed.
timed() {
	timeout -k 5 "$REMOVE_TIMEOUT" "$@"
}

# 1. rdma link delete with a process holding the device.
new_pair || ktap_bail "no topology"
hold "$NS_A" vrnic0 || ktap_bail "no process holds vrnic0"
run_stage "rdma link delete does not wait for a process holding the device" \
	timed rdma link delete vrnic0
expect_ok "the device is gone" dev_gone vrnic0
expect_ok "the holder is still alive (disassociated, not killed)" kill -0 "$HOLDER"
release

# 2. The same while data moves: ib_write_bw between vrnic0 and vrnic1.
new_pair || ktap_bail "no topology"
in_b rdma link add vrnic1 type vrnic netdev "$IF_B" && wait_for 30 dev_present vrnic1
GID_A=$(roce_gid_index vrnic0 "$IP_A")
GID_B=$(roce_gid_index vrnic1 "$IP_B")
in_a ib_write_bw -d vrnic0 -x "$GID_A" -p "$PORT" -D 120 -s 65536 >/dev/null 2>&1 &
SRV=$!
wait_for 60 tcp_listening "$NS_A" "$PORT"
in_b ib_write_bw -d vrnic1 -x "$GID_B" -p "$PORT" -D 120 -s 65536 "$IP_A" >/dev/null 2>&1 &
CLI=$!
defer kill -KILL "$SRV" "$CLI"
# Wait for traffic: the client's device sends packets.
tx_moving() {
	local n

	n=$(rdma statistic show link vrnic1/1 2>/dev/null | grep -Eo 'tx_packets [0-9]+' | awk '{ print $2 }')
	[[ ${n:-0} -gt 1000 ]]
}
expect_ok "traffic flows before the removal" wait_for 120 tx_moving
run_stage "rdma link delete while RDMA WRITEs are in flight" \
	timed rdma link delete vrnic0
run_stage "deleting the peer's netdev while its QP still sends" \
	timed ip -n "$NS_B" link delete "$IF_B"
expect_ok "both devices are gone" wait_for 30 eval 'dev_gone vrnic0 && dev_gone vrnic1'
kill -KILL "$SRV" "$CLI" 2>/dev/null
wait "$SRV" "$CLI" 2>/dev/null

# 3. The netdev's namespace deleted with a process (outside it) holding the
#    device: the namespace's pernet exit removes the device.
new_pair || ktap_bail "no topology"
hold "" vrnic0 || ktap_bail "no process holds vrnic0"
run_stage "ip netns delete with a process holding the device" \
	ip netns delete "$NS_A"
expect_ok "the device is gone with its namespace" wait_for "$REMOVE_TIMEOUT" dev_gone vrnic0
release

# 4. Netdev moved away, its old namespace deleted at once (item: the pernet
#    exit matches devices by their sockets' namespace).  A holder keeps the
#    queued removal busy so that the namespace dies first.  Three rounds:
#    each takes some 7 s in the TCG guest.
MOVE_ROUNDS=3
moved=0
for i in $(seq 1 $MOVE_ROUNDS); do
	new_pair || break
	hold "" vrnic0 || break
	in_a ip link set dev "$IF_A" netns "$NS_B" || break
	ip netns delete "$NS_A" || break
	wait_for "$REMOVE_TIMEOUT" dev_gone vrnic0 || break
	release
	moved=$i
done
release
expect_ok "netdev moved and old namespace deleted, $MOVE_ROUNDS times" test "$moved" -eq $MOVE_ROUNDS

# 5. "rdma link add" racing the netdev's deletion, 20 times (each of the
#    ten delays twice): afterwards no vrnic device is left (each one's
#    netdev is gone) and no netdev deletion hangs.
ip -all netns delete 2>/dev/null
ip netns add race
defer ip netns delete race
hung=0
for i in $(seq 1 20); do
	ip -n race link add "d$i" type veth peer name "p$i" || break
	ip -n race link set "d$i" up
	ip netns exec race rdma link add "r$i" type vrnic netdev "d$i" >/dev/null 2>&1 &
	adder=$!
	# Vary the delay so the deletion lands in different parts of newlink.
	sleep "0.0$((i % 10))"
	timeout -k 5 "$REMOVE_TIMEOUT" ip -n race link delete "d$i" || hung=$((hung + 1))
	wait "$adder"
done
no_vrnic_left() {
	[[ -z $(vrnic_devs) ]]
}
expect_ok "no netdev deletion hung behind a device being created" test "$hung" -eq 0
expect_ok "no device outlives its netdev" wait_for "$REMOVE_TIMEOUT" no_vrnic_left
ip netns delete race 2>/dev/null

# 6. rmmod with a process holding a device (the module must not be pinned
#    by open uverbs files), then load it again for the runner.
new_pair || ktap_bail "no topology"
hold "$NS_A" vrnic0 || ktap_bail "no process holds vrnic0"
run_stage "rmmod vrnic with a process holding a device" timed rmmod vrnic
expect_ok "the device is gone with the module" dev_gone vrnic0
release
if [[ -n ${VRNIC_KO:-} ]]; then
	run_stage "vrnic loads again" insmod "$VRNIC_KO"
fi

ktap_finish
