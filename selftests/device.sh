#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# device: the life of a vrnic device.  Creation through iproute2's rdma
# tool, every refusal with its errno, port state and MTU following the
# netdev, RoCE v2 GIDs from the netdev's addresses, several devices at once,
# removal by link delete / netdev deletion / namespace deletion, vrnic beside
# rdma_rxe in another namespace, and rmmod with devices present.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd ip rdma ibv_devinfo

dev_gone() {
	! rdma dev show "$1" >/dev/null 2>&1
}

port_state_is() {
	ibv_devinfo -d "$1" | grep -q "state:[[:space:]]*$2"
}

active_mtu_is() {
	ibv_devinfo -d "$1" | grep -q "active_mtu:[[:space:]]*$2"
}

run_stage "vrnic module loaded" test -d /sys/module/vrnic ||
	ktap_bail "vrnic is not loaded"

ip link add d0 type dummy && ip link set d0 up
ip link add d1 type dummy && ip link set d1 up
defer ip link delete d0
defer ip link delete d1
ip addr add 192.0.2.1/24 dev d0
ip addr add 2001:db8::1/64 dev d0 nodad

run_stage "link add vrnic0 on d0" rdma link add vrnic0 type vrnic netdev d0 ||
	ktap_bail "cannot create a device"
defer rdma link delete vrnic0

expect_output "ibv_devinfo: driver is librxe's, port active, Ethernet" \
	'link_layer:[[:space:]]+Ethernet' ibv_devinfo -v -d vrnic0
expect_output "port ACTIVE" 'state:[[:space:]]+PORT_ACTIVE' ibv_devinfo -d vrnic0
uverbs_abi() {
	local u

	for u in /sys/class/infiniband_verbs/uverbs*; do
		[[ $(cat "$u/ibdev" 2>/dev/null) == "$1" ]] && cat "$u/abi_version"
	done
}
expect_output "uverbs ABI is rxe's (2)" '^2$' uverbs_abi vrnic0
expect_output "nldev reports the rxe driver id" 'vrnic0' rdma dev show vrnic0

# Refusals, each with its errno.
expect_fail_msg "second device on the same netdev: EEXIST" 'File exists' \
	rdma link add vrnic9 type vrnic netdev d0
expect_fail_msg "duplicate name: EEXIST" 'File exists' \
	rdma link add vrnic0 type vrnic netdev d1
expect_fail_msg "unknown netdev: ENODEV" 'No such device' \
	rdma link add vrnic9 type vrnic netdev nosuchdev
expect_fail_msg "non-Ethernet netdev (lo): EINVAL" 'Invalid argument' \
	rdma link add vrnic9 type vrnic netdev lo
ip link add ipip0 type ipip local 192.0.2.1 remote 192.0.2.2 2>/dev/null &&
	defer ip link delete ipip0
if ip link show ipip0 >/dev/null 2>&1; then
	expect_fail_msg "non-Ethernet netdev (ipip): EINVAL" 'Invalid argument' \
		rdma link add vrnic9 type vrnic netdev ipip0
fi
run_stage "no device left behind by the refusals" dev_gone vrnic9

# GIDs come from the netdev's addresses via ib_core.
run_stage "IPv4 address gives a RoCE v2 GID" \
	wait_for 10 roce_gid_index vrnic0 192.0.2.1
run_stage "IPv6 address gives a RoCE v2 GID" \
	wait_for 10 roce_gid_index vrnic0 2001:db8::1
ip addr add 198.51.100.7/24 dev d0
run_stage "a new address appears as a GID" \
	wait_for 10 roce_gid_index vrnic0 198.51.100.7

# Port state and MTU follow the netdev.
ip link set d0 down
run_stage "netdev down: port DOWN" wait_for 10 port_state_is vrnic0 PORT_DOWN
ip link set d0 up
run_stage "netdev up: port ACTIVE" wait_for 10 port_state_is vrnic0 PORT_ACTIVE
ip link set d0 mtu 9000
run_stage "MTU 9000: active_mtu 4096" wait_for 10 active_mtu_is vrnic0 4096
ip link set d0 mtu 1500
run_stage "MTU 1500: active_mtu 1024" wait_for 10 active_mtu_is vrnic0 1024

# Several devices at once; deleting a netdev removes its device.
run_stage "link add vrnic1 on d1" rdma link add vrnic1 type vrnic netdev d1
expect_output "two vrnic devices listed" 'vrnic1' ibv_devices
run_stage "delete d1" ip link delete d1
run_stage "netdev deletion removed vrnic1" wait_for 10 dev_gone vrnic1
run_stage "vrnic0 unaffected" port_state_is vrnic0 PORT_ACTIVE
run_stage "link delete vrnic0" rdma link delete vrnic0
run_stage "vrnic0 is gone" wait_for 10 dev_gone vrnic0

# A device in another namespace; deleting the namespace removes it.
ip netns add vr_ns1 && defer ip netns delete vr_ns1
ip link add vx0 type veth peer name vx1
ip link set vx1 netns vr_ns1 && ip -n vr_ns1 link set vx1 up
defer ip link delete vx0
run_stage "device on a netdev in another namespace" \
	ip netns exec vr_ns1 rdma link add vrnic2 type vrnic netdev vx1
run_stage "namespace deletion removes it" ip netns delete vr_ns1
run_stage "vrnic2 is gone" wait_for 20 dev_gone vrnic2

# Beside rdma_rxe: rxe binds UDP 4791 in the initial namespace, vrnic in its
# netdev's namespace.
if modprobe rdma_rxe 2>/dev/null; then
	ip netns add vr_ns2 && defer ip netns delete vr_ns2
	ip link add vy0 type veth peer name vy1
	defer ip link delete vy0
	ip link set vy1 netns vr_ns2 && ip -n vr_ns2 link set vy1 up
	ip link set vy0 up
	run_stage "rxe0 on vy0 (initial namespace)" \
		rdma link add rxe0 type rxe netdev vy0
	defer rdma link delete rxe0
	run_stage "vrnic3 on vy1 (other namespace) beside rxe0" \
		ip netns exec vr_ns2 rdma link add vrnic3 type vrnic netdev vy1
	expect_fail_msg "vrnic in rxe's namespace: port 4791 taken (EADDRINUSE)" \
		'Address already in use' rdma link add vrnic4 type vrnic netdev d0
	run_stage "delete rxe0" rdma link delete rxe0
	ip netns exec vr_ns2 rdma link delete vrnic3
	modprobe -r rdma_rxe
else
	ktap_skip "vrnic beside rdma_rxe" "rdma_rxe not available"
fi

# rdma_rxe finds its devices by netdev and driver_id, and vrnic's driver_id
# is rxe's (docs/uabi.md): it must never find a vrnic device, or it takes
# it for a struct rxe_dev.  Loading it replays NETDEV_UP of every netdev to
# its notifier, then the netdev goes down, up and changes MTU; each of
# those once made rdma_rxe write its port state past the end of the vrnic
# device (KASAN: slab-out-of-bounds in rxe_notify()).  The same lookup made
# it refuse the netdev ("already configured"): that is what fails here on
# a kernel without KASAN.
if modinfo rdma_rxe >/dev/null 2>&1 &&
	{ [[ ! -d /sys/module/rdma_rxe ]] || modprobe -r rdma_rxe; }; then
	ip netns add vr_ns3 && defer ip netns delete vr_ns3
	ip link add vz0 type veth peer name vz1 netns vr_ns3
	defer ip link delete vz0
	ip -n vr_ns3 link set vz1 up && ip link set vz0 up
	run_stage "vrnic7 on vz1, rdma_rxe not loaded" \
		ip netns exec vr_ns3 rdma link add vrnic7 type vrnic netdev vz1
	run_stage "modprobe rdma_rxe with vrnic7 present" modprobe rdma_rxe
	run_stage "vz1 down, up, MTU 1400 and back with rdma_rxe loaded" sh -c \
		'ip -n vr_ns3 link set vz1 down && ip -n vr_ns3 link set vz1 up &&
		 ip -n vr_ns3 link set vz1 mtu 1400 && ip -n vr_ns3 link set vz1 mtu 1500'
	run_stage "vrnic7 follows its netdev" wait_for 10 port_state_is vrnic7 PORT_ACTIVE
	run_stage "rdma_rxe does not take vrnic7's netdev for one of its own" \
		ip netns exec vr_ns3 rdma link add rxe7 type rxe netdev vz1
	rdma link delete rxe7 2>/dev/null
	run_stage "delete vrnic7" rdma link delete vrnic7
	modprobe -r rdma_rxe
else
	ktap_skip "rdma_rxe does not take vrnic's device for its own" "rdma_rxe not available"
fi

# Like a hardware RNIC in sysfs: on a netdev with a parent device (the VM's
# virtio-net PCI NIC) the ib_device has that parent, so tools that go from
# /sys/class/infiniband/X/device/net/ to the netdev find it.
modprobe virtio_net 2>/dev/null
nic=
for n in /sys/class/net/*; do
	[[ -e $n/device && $(cat "$n/type") == 1 ]] && { nic=${n##*/}; break; }
done
if [[ -n $nic ]]; then
	ip link set "$nic" up
	run_stage "vrnic7 on $nic (virtio-net)" rdma link add vrnic7 type vrnic netdev "$nic"
	defer rdma link delete vrnic7
	expect_output "vrnic7's parent is $nic's PCI device" \
		"^$(readlink -f "/sys/class/net/$nic/device")\$" \
		readlink -f /sys/class/infiniband/vrnic7/device
	run_stage "device/net/$nic found from the RDMA device" \
		test -e "/sys/class/infiniband/vrnic7/device/net/$nic"
	run_stage "rdma link delete vrnic7" rdma link delete vrnic7
else
	ktap_skip "sysfs parent device" "no NIC with a parent device in this VM"
fi

# rmmod with devices present removes them.
ip link add d2 type dummy && ip link set d2 up
defer ip link delete d2
run_stage "two devices before rmmod" sh -c \
	'rdma link add vrnic5 type vrnic netdev d0 && rdma link add vrnic6 type vrnic netdev d2'
run_stage "rmmod vrnic with devices present" rmmod vrnic
run_stage "devices gone after rmmod" sh -c '! rdma dev show vrnic5 && ! rdma dev show vrnic6'
run_stage "module reloads" insmod "${VRNIC_KO:-kmod/vrnic.ko}"
ktap_finish
