#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# verbs_nfs.sh - NFS over RDMA through vrnic: the kernel's NFS server
# (svcrdma) and client (xprtrdma) on one vrnic device, NFSv4.2 mounted
# with proto=rdma on port 20049 (RPC-over-RDMA version 1, RFC 8166; the
# port of RFC 8267).  The client sends large WRITE payloads as Read
# chunks that the server pulls with RDMA READ, and the server returns
# READ data by RDMA WRITE into the client's Write chunks, both through
# memory the client fast-registers (IB_WR_REG_MR) and invalidates; small
# RPCs go inline in SENDs.
#  - the mount uses proto=rdma and its QPs are vrnic's;
#  - 8 MiB written with O_DIRECT arrive intact on the server's file system;
#  - read back with O_DIRECT after the caches are dropped, they are intact;
#  - 50 small files created, listed and removed (inline RPCs);
#  - after umount and the server's stop, no RC QP is left on the device.
#
# A boot of its own on a lockdep kernel (check.sh): there, this file's
# rpcrdma after verbs_kernel_ulp.sh's nvmet-rdma in one boot completes a
# lock chain through ib_core and rdma_cm with no vrnic frame in it, which
# lockdep reports although the CQs and IDs are different instances
# (selftests/vm/README.md, "The debug kernel").
# VRNIC_VM_BOOT=own-on-lockdep

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd ip rdma cmp rpc.nfsd rpc.mountd rpcbind exportfs mount.nfs

DEV=vnfs_rdma
NETDEV=vnfs0
ADDR=10.78.2.1
NFS_RDMA_PORT=20049	# RFC 8267 section 5

run_stage "vrnic module loaded" test -d /sys/module/vrnic ||
	ktap_bail "vrnic is not loaded"
for m in nfsd rpcrdma nfsv4; do
	modprobe "$m" 2>/dev/null || ktap_skip_all "no $m module"
done

ip link add "$NETDEV" type dummy && ip link set "$NETDEV" up
defer ip link delete "$NETDEV"
ip addr add "$ADDR/24" dev "$NETDEV"
run_stage "link add vrnic on a dummy netdev" \
	rdma link add "$DEV" type vrnic netdev "$NETDEV" ||
	ktap_bail "cannot create a device"
defer rdma link delete "$DEV"

# The server: a tmpfs exported as the NFSv4 root (fsid=0: the guest's
# own root is an overlay, which nfsd cannot walk), rpcbind and mountd for
# the export upcalls, nfsd listening on RDMA.  The shortest grace period
# (10 s) so that the first OPEN does not wait 90 s.
EXPORT=$(mktemp -d /tmp/verbs_nfs.export.XXXXXX)
MNT=$(mktemp -d /tmp/verbs_nfs.mnt.XXXXXX)
defer rmdir "$EXPORT" "$MNT"
server_start() {
	mkdir -p /proc/fs/nfsd /var/lib/nfs /run/rpcbind &&
	{ mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd; } &&
	mount -t tmpfs -o size=64m tmpfs "$EXPORT" &&
	rpcbind -w &&
	exportfs -i -o rw,sync,no_root_squash,insecure,no_subtree_check,fsid=0 \
		"$ADDR/24:$EXPORT" &&
	rpc.mountd &&
	rpc.nfsd -G 10 -L 10 -N 3 --rdma="$NFS_RDMA_PORT" 4 &&
	grep -qx "rdma $NFS_RDMA_PORT" /proc/fs/nfsd/portlist
}
server_stop() {
	rpc.nfsd 0
	exportfs -u "$ADDR/24:$EXPORT"
	pkill -x rpc.mountd
	pkill -x rpcbind
	umount "$EXPORT"
}
defer server_stop
run_stage "nfsd listens on RDMA port $NFS_RDMA_PORT" server_start ||
	ktap_bail "cannot start the NFS server"

defer umount -f "$MNT"
run_stage "mount -t nfs -o vers=4.2,proto=rdma (rdma_cm over QP1, kernel QPs)" \
	timeout 120 mount -t nfs -o "vers=4.2,proto=rdma,port=$NFS_RDMA_PORT" \
	"$ADDR:/" "$MNT" ||
	ktap_bail "cannot mount"
run_stage "the mount is over RDMA" grep -q " $MNT nfs4 .*proto=rdma" /proc/mounts

rc_qps() {
	rdma res show qp link "$DEV/1" 2>/dev/null | grep -c 'type RC'
}
expect_num "RC QPs of the NFS client and server on $DEV" "$(rc_qps)" ge 2

tx0=$(rdma statistic show link "$DEV/1" | grep -Eo 'tx_packets [0-9]+' | awk '{ print $2 }')
IN=/tmp/verbs_nfs.in
OUT=/tmp/verbs_nfs.out
defer rm -f "$IN" "$OUT"
head -c 8388608 /dev/urandom >"$IN"
run_stage "write 8 MiB with O_DIRECT (the server's RDMA READs of Read chunks)" \
	timeout 300 dd if="$IN" of="$MNT/big" bs=1M oflag=direct status=none
run_stage "the server's file holds what the client wrote" cmp "$IN" "$EXPORT/big"
echo 3 >/proc/sys/vm/drop_caches
run_stage "read 8 MiB back with O_DIRECT (the server's RDMA WRITEs of Write chunks)" \
	timeout 300 dd if="$MNT/big" of="$OUT" bs=1M iflag=direct status=none
run_stage "data read back equals data written" cmp "$IN" "$OUT"
tx1=$(rdma statistic show link "$DEV/1" | grep -Eo 'tx_packets [0-9]+' | awk '{ print $2 }')
# 16 MiB at an IB MTU of at most 4096 bytes: at least 4096 packets.
expect_num "tx_packets of $DEV grew by the data moved" "$((tx1 - tx0))" ge 4096

small_files() {
	local i n

	for i in $(seq 1 50); do
		echo "$i" >"$MNT/small.$i" || return 1
	done
	n=$(find "$MNT" -name 'small.*' | wc -l)
	[[ $n -eq 50 ]] || { echo "listed $n of 50 files"; return 1; }
	rm -f "$MNT"/small.* && [[ -z $(find "$EXPORT" -name 'small.*') ]]
}
run_stage "50 small files created, listed and removed (inline RPCs)" small_files

run_stage "umount" timeout 120 umount "$MNT"
run_stage "nfsd stops" rpc.nfsd 0
no_rc_qps() {
	local i

	for i in $(seq 1 100); do
		[[ $(rc_qps) -eq 0 ]] && return 0
		sleep 0.1
	done
	rdma res show qp link "$DEV/1"
	return 1
}
run_stage "no RC QP left after umount and the server's stop" no_rc_qps

ktap_finish
