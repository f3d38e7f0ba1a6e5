#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smoke: the walking skeleton end to end.  vrnic is loaded, iproute2's rdma
# tool creates vrnic0 on a dummy netdev, stock rdma-core (librxe) lists it,
# and rdma link delete removes it again.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd ip rdma ibv_devices

dev_listed() {
	ibv_devices | grep -qw "$1"
}

dev_gone() {
	! rdma dev show "$1" >/dev/null 2>&1
}

run_stage "vrnic module loaded" test -d /sys/module/vrnic ||
	ktap_bail "vrnic is not loaded"
run_stage "dummy0 up" sh -c 'ip link add dummy0 type dummy && ip link set dummy0 up'
defer ip link delete dummy0
run_stage "rdma link add vrnic0 on dummy0" \
	rdma link add vrnic0 type vrnic netdev dummy0 || ktap_bail "no device"
defer rdma link delete vrnic0
expect_output "rdma link show lists vrnic0 on dummy0" 'vrnic0/1 .*netdev dummy0' \
	rdma link show vrnic0/1
run_stage "ibv_devices lists vrnic0" wait_for 10 dev_listed vrnic0
expect_output "ibv_devinfo opens vrnic0, port active on Ethernet" \
	'state:[[:space:]]+PORT_ACTIVE' ibv_devinfo -d vrnic0
expect_output "link layer is Ethernet" 'link_layer:[[:space:]]+Ethernet' \
	ibv_devinfo -d vrnic0
run_stage "rdma link delete vrnic0" rdma link delete vrnic0
run_stage "vrnic0 is gone" wait_for 10 dev_gone vrnic0
ktap_finish
