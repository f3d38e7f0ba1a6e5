#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# VRNIC_TIMEOUT=600
#
# nvme: a kernel ULP on vrnic.  nvmet-rdma exports a null_blk namespace,
# nvme-rdma connects to it through vrnic (fast-registration MRs, send with
# invalidate, kernel CQs), fio writes and verifies data, and everything
# disconnects and unloads cleanly.  nvme-rdma and nvmet-rdma use the initial
# network namespace, so target and host share one vrnic device here and the
# traffic takes vrnic's loopback path.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd nvme fio rdma

NQN=nqn.2026-11.io.vrnic:selftest
ADDR=192.0.2.10
CFS=/sys/kernel/config/nvmet

for m in null_blk nvmet nvmet-rdma nvme-rdma; do
	modprobe "$m" 2>/dev/null || ktap_skip_all "module $m not available"
done
defer modprobe -r nvme-rdma nvmet-rdma nvmet null_blk
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config

ip link add nv0 type dummy && ip link set nv0 up
defer ip link delete nv0
ip addr add $ADDR/24 dev nv0
run_stage "vrnic0 on nv0" rdma link add vrnic0 type vrnic netdev nv0 ||
	ktap_bail "no device"
defer rdma link delete vrnic0

target_setup() {
	mkdir "$CFS/subsystems/$NQN" &&
	echo 1 > "$CFS/subsystems/$NQN/attr_allow_any_host" &&
	mkdir "$CFS/subsystems/$NQN/namespaces/1" &&
	echo /dev/nullb0 > "$CFS/subsystems/$NQN/namespaces/1/device_path" &&
	echo 1 > "$CFS/subsystems/$NQN/namespaces/1/enable" &&
	mkdir "$CFS/ports/1" &&
	echo rdma > "$CFS/ports/1/addr_trtype" &&
	echo ipv4 > "$CFS/ports/1/addr_adrfam" &&
	echo $ADDR > "$CFS/ports/1/addr_traddr" &&
	echo 4420 > "$CFS/ports/1/addr_trsvcid" &&
	ln -s "$CFS/subsystems/$NQN" "$CFS/ports/1/subsystems/$NQN"
}

target_teardown() {
	rm -f "$CFS/ports/1/subsystems/$NQN"
	rmdir "$CFS/ports/1" 2>/dev/null
	echo 0 > "$CFS/subsystems/$NQN/namespaces/1/enable" 2>/dev/null
	rmdir "$CFS/subsystems/$NQN/namespaces/1" 2>/dev/null
	rmdir "$CFS/subsystems/$NQN" 2>/dev/null
}

# null_blk with memory backing so fio can verify what it wrote.
modprobe -r null_blk 2>/dev/null
modprobe null_blk nr_devices=1 memory_backed=1 gb=1
run_stage "nvmet-rdma target on vrnic0 ($ADDR:4420)" target_setup ||
	ktap_bail "target setup failed"
defer target_teardown

nvme_dev() {
	local d

	for d in /sys/class/nvme/nvme*; do
		[[ $(cat "$d/subsysnqn" 2>/dev/null) == "$NQN" ]] || continue
		ls -d "$d"/nvme*n1 2>/dev/null | head -n1 | xargs -r basename
		return 0
	done
	return 1
}

run_stage "nvme connect -t rdma" \
	nvme connect -t rdma -a $ADDR -s 4420 -n $NQN ||
	ktap_bail "connect failed"
defer nvme disconnect -n $NQN
nvme_dev_present() {
	[[ -n $(nvme_dev) ]]
}

run_stage "namespace block device appears" wait_for 30 nvme_dev_present
blk=/dev/$(nvme_dev)
expect_output "nvme list shows the vrnic-backed namespace" "${blk#/dev/}" nvme list
run_stage "fio write + verify over nvme-rdma" \
	fio --name=vrnic --filename="$blk" --direct=1 --rw=randwrite --bs=4k,64k \
		--size=32m --iodepth=8 --ioengine=libaio --verify=crc32c \
		--do_verify=1 --verify_fatal=1 --runtime=60 --time_based=0
run_stage "nvme disconnect" nvme disconnect -n $NQN
expect_output "port counters moved" 'tx_packets [1-9]' rdma statistic show link vrnic0/1
ktap_finish
