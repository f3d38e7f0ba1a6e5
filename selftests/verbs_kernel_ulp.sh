#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# verbs_kernel_ulp: vrnic's verbs for kernel consumers, driven by a real
# kernel ULP.  NVMe over RDMA in loopback (nvmet-rdma target and nvme-rdma
# host on the same vrnic device) uses kernel QPs and CQs, the PD's DMA MR
# (local_dma_lkey), fast registration (alloc_mr, map_mr_sg, IB_WR_REG_MR),
# local and remote invalidation (IB_WR_LOCAL_INV, SEND_WITH_INV), RDMA
# READ/WRITE issued by the target, rdma_cm over QP1 (GSI), and
# ib_drain_qp() at disconnect.  Data written through the host must read
# back identical, and after disconnect no QP, CQ or MR of the ULPs may be
# left on the device.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd ip rdma nvme cmp

NQN=vrnic-verbs-ulp
CFG=/sys/kernel/config/nvmet
IMG=/dev/ram0

run_stage "vrnic module loaded" test -d /sys/module/vrnic ||
	ktap_bail "vrnic is not loaded"
for m in nvmet nvmet-rdma nvme-rdma; do
	modprobe "$m" 2>/dev/null || ktap_skip_all "no $m module"
done
[[ -d $CFG ]] || ktap_skip_all "nvmet configfs not mounted"

ip link add vku0 type dummy && ip link set vku0 up
defer ip link delete vku0
ip addr add 10.78.0.1/24 dev vku0
run_stage "link add vrnic on a dummy netdev" \
	rdma link add vku_rdma type vrnic netdev vku0 ||
	ktap_bail "cannot create a device"
defer rdma link delete vku_rdma

# A 32 MiB RAM disk as the namespace.
[[ -e $IMG ]] && ktap_skip_all "$IMG exists already"
modprobe brd rd_nr=1 rd_size=32768 2>/dev/null || ktap_skip_all "no brd module"
defer rmmod brd
SUB=$CFG/subsystems/$NQN
PORT=$CFG/ports/77
target_setup() {
	mkdir "$SUB" &&
	echo 1 >"$SUB/attr_allow_any_host" &&
	mkdir "$SUB/namespaces/1" &&
	echo "$IMG" >"$SUB/namespaces/1/device_path" &&
	echo 1 >"$SUB/namespaces/1/enable" &&
	mkdir "$PORT" &&
	echo rdma >"$PORT/addr_trtype" &&
	echo ipv4 >"$PORT/addr_adrfam" &&
	echo 10.78.0.1 >"$PORT/addr_traddr" &&
	echo 4420 >"$PORT/addr_trsvcid" &&
	ln -s "$SUB" "$PORT/subsystems/$NQN"
}
target_teardown() {
	rm -f "$PORT/subsystems/$NQN"
	rmdir "$PORT"
	echo 0 >"$SUB/namespaces/1/enable"
	rmdir "$SUB/namespaces/1"
	rmdir "$SUB"
}
defer target_teardown
run_stage "nvmet-rdma listens on the vrnic address" target_setup ||
	ktap_bail "cannot configure the target"

defer nvme disconnect -n "$NQN"
run_stage "nvme-rdma connects (rdma_cm over QP1, kernel QPs)" \
	timeout 120 nvme connect -t rdma -n "$NQN" -a 10.78.0.1 -s 4420 ||
	ktap_bail "cannot connect"

dev=
for _ in $(seq 1 100); do
	for b in /sys/block/nvme*n*; do
		[[ -e $b ]] || continue
		grep -qx "$NQN" "$b/device/subsysnqn" 2>/dev/null || continue
		dev=/dev/${b##*/}
	done
	[[ -b $dev ]] && break
	sleep 0.1
done
run_stage "namespace block device appears" test -b "$dev" ||
	ktap_bail "no block device"

# 4 MiB of random data in 512 KiB I/Os: each needs a fast-registered MR
# on the host and RDMA READs (write) or WRITEs (read) by the target.
head -c 4194304 /dev/urandom >/tmp/verbs_ulp.in
defer rm -f /tmp/verbs_ulp.in /tmp/verbs_ulp.out
run_stage "write 4 MiB (target RDMA READs fast-reg MRs)" \
	timeout 300 dd if=/tmp/verbs_ulp.in of="$dev" bs=512k oflag=direct \
	status=none
run_stage "read 4 MiB back (target RDMA WRITEs)" \
	timeout 300 dd if="$dev" of=/tmp/verbs_ulp.out bs=512k count=8 \
	iflag=direct status=none
run_stage "data read back equals data written" \
	cmp /tmp/verbs_ulp.in /tmp/verbs_ulp.out

run_stage "nvme disconnect (ib_drain_qp, destroy)" \
	timeout 120 nvme disconnect -n "$NQN"

# The host's queues are gone; the target's go with its controller.
no_ulp_qps() {
	for _ in $(seq 1 100); do
		[[ $(rdma res show qp link vku_rdma/1 2>/dev/null |
		     grep -cv 'type GSI') -eq 0 ]] && return 0
		sleep 0.1
	done
	rdma res show qp link vku_rdma/1
	return 1
}
run_stage "no RC QP left after disconnect" no_ulp_qps

ktap_finish
