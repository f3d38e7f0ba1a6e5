#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdmactl_devices: "rdmactl dev show" and "rdmactl link" over nldev and
# "rdmactl gid show" over sysfs for any RDMA device (rdma_rxe and vrnic),
# agreeing with iproute2's rdma tool, and vrnic-only commands refusing a
# non-vrnic device without changing it.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd ip rdma rdmactl

expect_output "rdmactl --version" '^rdmactl [0-9]+(\.[0-9]+)+ \(vrnic netlink API [0-9]+\)$' \
	rdmactl --version

# bad NAME RC REGEX CMD...: CMD exits with RC and prints one "Error: ..."
# line matching REGEX on stderr and nothing on stdout.
bad() {
	local name=$1 want=$2 re=$3 rc=0 out err
	shift 3

	out=$("$@" 2>/tmp/rdmactl_devices.err) || rc=$?
	err=$(cat /tmp/rdmactl_devices.err)
	if [[ $rc -eq $want && -z $out && $(wc -l <<<"$err") -eq 1 && $err =~ ^Error:\ .*\.$ ]] &&
		grep -Eq -- "$re" <<<"$err"; then
		ktap_ok "$name"
		return 0
	fi
	ktap_comment "\$ $* -> exit $rc"
	ktap_comment "stdout: $out"
	ktap_comment "stderr: $err"
	ktap_fail "$name" "expected exit $want and one error line matching /$re/"
	return 1
}

# --- rdma_rxe: a device vrnic did not create --------------------------------
# rdma_rxe binds UDP 4791 in init_net, so it runs while no vrnic device
# exists there, and is unloaded before vrnic devices are made.
if modprobe rdma_rxe 2>/dev/null; then
	defer rmmod rdma_rxe
	ip link add r0 type dummy && ip link set r0 up
	defer ip link delete r0
	run_stage "link add rxe0 type rxe (nldev NEWLINK)" rdmactl link add rxe0 type rxe netdev r0
	defer rdma link delete rxe0
	expect_output "dev show: rxe0, port ACTIVE on r0, driver rxe" \
		'^rxe0 +1 +ACTIVE +LINK_UP +r0 +ca +roce +rxe$' rdmactl dev show
	expect_output "dev show -j: attribute-named keys" \
		'"dev_name":"rxe0","dev_node_type":"ca","dev_protocol":"roce","driver":"rxe"' \
		rdmactl -j dev show rxe0
	expect_output "rdma dev agrees" '^[0-9]+: rxe0: node_type ca' rdma dev show rxe0
	expect_output "stats show works for rxe (nldev counters)" '"dev_name":"rxe0","port_index":1' \
		rdmactl -j stats show rxe0
	# rxe (6.1) speaks RoCE v2 only: its default GID (fe80::/64 from the
	# MAC) is of that type.
	rxe_default_gid() {
		local out

		out=$(rdmactl gid show rxe0) || return 1
		echo "$out"
		grep -Eq "^rxe0 +1 +[0-9]+ +fe80:[0-9a-f:]{34} +$1 +r0 +fe80::[0-9a-f:]+ *\$" <<<"$out"
	}
	expect_ok "gid show works for rxe: RoCE v2 default GID" wait_for 10 rxe_default_gid "RoCE v2"
	expect_output "gid show -j: the entry's netdev and address" \
		'"dev_name":"rxe0","port":1,"index":[0-9]+,"gid":"fe80:[0-9a-f:]+","type":"RoCE v2","ndev_ifindex":[0-9]+,"ndev_name":"r0","ipv6":"fe80::[0-9a-f:]+"' \
		rdmactl -j gid show rxe0
	rdmactl -j dev show rxe0 >/tmp/rdmactl_devices.before
	bad "limits show on rxe0" 1 'rxe0.*is not a vrnic device' rdmactl limits show rxe0
	bad "limits set on rxe0" 1 'rxe0.*is not a vrnic device' rdmactl limits set rxe0 max_qp 4
	bad "qos set on rxe0" 1 'rxe0.*is not a vrnic device' rdmactl qos set rxe0 trust dscp
	bad "dcqcn set on rxe0" 1 'rxe0.*is not a vrnic device' rdmactl dcqcn set rxe0 rpg_gd 3
	bad "config dump of rxe0" 1 'rxe0.*is not a vrnic device' rdmactl config dump rxe0
	echo '{"version": 1, "devices": [{"dev_name": "rxe0", "limits": {"max_qp": 4}}]}' \
		>/tmp/rdmactl_devices.json
	bad "apply to rxe0" 1 'rxe0.*is not a vrnic device' rdmactl apply -f /tmp/rdmactl_devices.json
	expect_ok "rxe0 unchanged" sh -c 'rdmactl -j dev show rxe0 | cmp - /tmp/rdmactl_devices.before'
	run_stage "link del rxe0" rdmactl link del rxe0
	expect_fail "rxe0 gone" rdma dev show rxe0
	rmmod rdma_rxe
else
	ktap_skip "rdma_rxe" "cannot load rdma_rxe"
fi

# --- vrnic --------------------------------------------------------------------
ip link add d0 type dummy && ip link set d0 up
defer ip link delete d0
ip link add d1 type dummy && ip link set d1 up
defer ip link delete d1

bad "link add: unknown netdev" 1 'netdev nosuch not found' rdmactl link add vrnic0 netdev nosuch
bad "link add: missing netdev" 2 'netdev' rdmactl link add vrnic0
bad "link add: unknown keyword" 2 'unknown keyword' rdmactl link add vrnic0 dev d0
bad "link add: unknown link type" 1 'type nosuchtype' rdmactl link add vrnic0 type nosuchtype netdev d0
run_stage "link add vrnic0 netdev d0" rdmactl link add vrnic0 netdev d0 ||
	ktap_bail "cannot create vrnic0"
defer rdma link delete vrnic0
bad "link add: duplicate name" 1 'add link vrnic0' rdmactl link add vrnic0 netdev d1
bad "link add: netdev already bound" 1 'add link vrnic9' rdmactl link add vrnic9 netdev d0
expect_fail "no vrnic9 left behind" rdma dev show vrnic9
expect_output "dev show: vrnic0 ACTIVE on d0, driver vrnic" \
	'^vrnic0 +1 +ACTIVE +LINK_UP +d0 +ca +roce +vrnic$' rdmactl dev show
expect_output "rdma link agrees" 'link vrnic0/1 state ACTIVE physical_state LINK_UP netdev d0' \
	rdma link show vrnic0/1
ip link set d0 down
port_down() { rdmactl dev show vrnic0 | grep -Eq '^vrnic0 +1 +DOWN '; }
expect_ok "dev show follows the netdev down" wait_for 10 port_down
ip link set d0 up
run_stage "link add vrnic1 netdev d1" rdmactl link add vrnic1 netdev d1
defer rdma link delete vrnic1
expect_output "dev show DEV shows only DEV" '^vrnic1 ' rdmactl dev show vrnic1
ktap_run rdmactl -j dev show
if grep -q '"dev_name":"vrnic0"' "$KTAP_OUT" && grep -q '"dev_name":"vrnic1"' "$KTAP_OUT"; then
	ktap_ok "dev show -j lists both devices"
else
	ktap_dump
	ktap_fail "dev show -j lists both devices"
fi
bad "dev show: unknown device" 1 'RDMA device nosuch not found' rdmactl dev show nosuch
bad "link del: unknown device" 1 'RDMA device nosuch not found' rdmactl link del nosuch
bad "gid show: unknown device" 1 'RDMA device nosuch not found' rdmactl gid show nosuch
run_stage "link del vrnic1" rdmactl link del vrnic1
expect_fail "vrnic1 gone" rdma dev show vrnic1
run_stage "link delete vrnic0 (alias)" rdmactl link delete vrnic0
expect_output "no devices: empty list, not an error" '^\[\]$' rdmactl -j dev show

rm -f /tmp/rdmactl_devices.*
ktap_finish
