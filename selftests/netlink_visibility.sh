#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netlink_visibility.sh - what an unprivileged user reads through the vrnic
# family: only devices of its own network namespace, and of those only the
# QPs its own processes created.  QP numbers and their counters are what a
# packet injector needs to aim at someone else's connection.
#
# vrnic0 lives in ns_a.  root and nobody each hold a QP on it (an
# ibv_rc_pingpong server waiting for its peer).  root sees both QPs and the
# kernel's GSI QP; nobody in ns_a sees only its own; nobody in ns_b sees no
# vrnic0 at all (no QPs, no limits), while root in ns_b does.  (The GID
# table is not read through the family but from sysfs, where ib_core's
# RDMA netns mode decides who sees it.)

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd rdma rdmactl ibv_rc_pingpong setpriv jq ss

# A prefix, not a function: it must work behind "ip netns exec".
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

veth_setup || ktap_bail "cannot build the two hosts"
run_stage "vrnic0 in ns_a" in_a rdma link add vrnic0 type vrnic netdev "$IF_A" ||
	ktap_bail "no device"
defer rdma link delete vrnic0
# Let nobody open the device (devtmpfs creates it root-only here).
chmod 0666 /dev/infiniband/uverbs* /dev/infiniband/rdma_cm 2>/dev/null

PIDS=()
defer rm -f "$KTAP_OUT.nobody"
defer eval 'kill -KILL "${PIDS[@]}" 2>/dev/null'
in_a ibv_rc_pingpong -d vrnic0 -p 18601 >/dev/null 2>&1 &
PIDS+=($!)
ROOT_PID=$!
in_a "${NOBODY[@]}" ibv_rc_pingpong -d vrnic0 -p 18602 >"$KTAP_OUT.nobody" 2>&1 &
PIDS+=($!)
NOBODY_PID=$!
run_stage "root holds a QP on vrnic0" wait_for 60 tcp_listening "$NS_A" 18601 ||
	ktap_bail "root's holder did not start"
if ! run_stage "nobody holds a QP on vrnic0" wait_for 60 tcp_listening "$NS_A" 18602; then
	sed "s/^/#   /" "$KTAP_OUT.nobody"
	ktap_bail "nobody's holder did not start"
fi

# qpn_of UID: the QP number an ibv_rc_pingpong running as UID holds on
# vrnic0 (owner from ib_core's restrack pid, uid from /proc).
qpn_of() {
	local line pid

	rdma resource show qp | grep "^link vrnic0/" | grep "comm ibv_rc_pingpong" |
		while read -r line; do
			pid=$(grep -Eo 'pid [0-9]+' <<<"$line" | awk '{ print $2 }')
			[[ -n $pid && $(stat -c %u "/proc/$pid" 2>/dev/null) == "$1" ]] || continue
			grep -Eo 'lqpn [0-9]+' <<<"$line" | awk '{ print $2 }'
		done | head -n 1
}
both_qps() {
	ROOT_QPN=$(qpn_of 0)
	NOBODY_QPN=$(qpn_of 65534)
	echo "root '$ROOT_QPN' nobody '$NOBODY_QPN'"
	[[ -n $ROOT_QPN && -n $NOBODY_QPN ]]
}
run_stage "both QPs found in rdma resource show" wait_for 30 both_qps ||
	ktap_bail "QPs not found: root '$ROOT_QPN' nobody '$NOBODY_QPN'"
ktap_comment "root holds QP $ROOT_QPN, nobody holds QP $NOBODY_QPN"

# qps AS NS: the QP numbers "rdmactl -j stats show vrnic0 qp" lists, sorted.
qps() {
	local as=() ns=()

	[[ $1 == nobody ]] && as=("${NOBODY[@]}")
	[[ $2 != init ]] && ns=(ip netns exec "$2")
	"${ns[@]}" "${as[@]}" rdmactl -j stats show vrnic0 qp | jq -r '.[].qpn' | sort -n | tr '\n' ' '
}

lists() {
	local got

	got=$(qps "$1" "$2") || return 1
	echo "QPs seen: $got"
	[[ " $got " == *" $3 "* ]]
}

lists_not() {
	local got

	got=$(qps "$1" "$2") || return 1
	echo "QPs seen: $got"
	[[ " $got " != *" $3 "* ]]
}

expect_ok "root sees root's QP" lists root "$NS_A" "$ROOT_QPN"
expect_ok "root sees nobody's QP" lists root "$NS_A" "$NOBODY_QPN"
expect_ok "root sees the kernel's GSI QP 1" lists root "$NS_A" 1
expect_ok "nobody sees its own QP" lists nobody "$NS_A" "$NOBODY_QPN"
expect_ok "nobody does not see root's QP" lists_not nobody "$NS_A" "$ROOT_QPN"
expect_ok "nobody does not see the kernel's GSI QP" lists_not nobody "$NS_A" 1
expect_fail "nobody cannot read root's QP by number" \
	in_a "${NOBODY[@]}" rdmactl -j stats show vrnic0 qp "$ROOT_QPN"
expect_ok "nobody can read its own QP by number" \
	in_a "${NOBODY[@]}" rdmactl -j stats show vrnic0 qp "$NOBODY_QPN"

# From another namespace, unprivileged: vrnic0 does not exist.
expect_fail "nobody in ns_b cannot read vrnic0's limits" in_b "${NOBODY[@]}" rdmactl limits show vrnic0
expect_fail "nobody in ns_b cannot list vrnic0's QPs" in_b "${NOBODY[@]}" rdmactl -j stats show vrnic0 qp
expect_ok "root in ns_b can list vrnic0's QPs" lists root "$NS_B" "$NOBODY_QPN"

ktap_finish
