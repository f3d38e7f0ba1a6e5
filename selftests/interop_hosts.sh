#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# interop_hosts.sh - the standard tools between two hosts: vrnic on one
# guest, rdma_rxe (or vrnic) on the other, over the virtio link of
# selftests/vm/pair.sh.
#
#   make interop-hosts     both ways round: vrnic's clients against
#                          rdma_rxe's servers, then the reverse
#   selftests/vm/pair.sh "$PWD/selftests/interop_hosts.sh peer" \
#       "$PWD/selftests/interop_hosts.sh main CLIENT_DRIVER SERVER_DRIVER [CASES]"
#
# A (main) runs every client on a device of CLIENT_DRIVER (vrnic by
# default); B (peer, lib/bench_peer.py) starts each server on a device of
# SERVER_DRIVER (rdma_rxe by default) when A asks; CASES, a regular
# expression, picks cases by name (default: all).  One result each:
#
#  - perftest: WRITE, READ and SEND of 64 KiB and atomics over the IPv4
#    GIDs, WRITE of 4 KiB over the IPv6 GIDs, WRITE over four QPs, and
#    WRITE of 64 KiB with netem loss 2%, reordering, delay and
#    duplication on A's end of the link (the go-back-N a standard peer
#    needs, both ways);
#  - ibv_ud_pingpong, ibv_rc_pingpong over the IPv6 GIDs (8000-byte
#    messages), rping through rdma_cm, mckey (UD multicast from A to
#    the group B joined through rdma_cm);
#  - kernel ULPs: NVMe over RDMA (nvmet-rdma on B exporting a RAM disk,
#    nvme-rdma on A), also under the netem above, and NFSv4.2 over RDMA
#    (nfsd on B, the client on A), random data written, read back and
#    compared.
#
# Not in make check: it boots two guests (about 3 minutes a direction).
# A test exits 0 when every result passed.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"
# shellcheck source=selftests/lib/hosts.sh
. "$(dirname "$0")/lib/hosts.sh"

LIB=$(cd "$(dirname "$0")/lib" && pwd)
ROLE=${1:-}
DEV=hostdev
TMO=180
GROUP=230.78.9.1
LOSS_QDISC=(netem loss 2% reorder 5% 50% delay 1ms duplicate 1%)

[[ $ROLE == peer ]] && peer_serve
[[ $ROLE == main ]] || { echo "usage: interop_hosts.sh peer | main [CLIENT_DRIVER [SERVER_DRIVER]]" >&2; exit 2; }
CDRV=${2:-vrnic}
SDRV=${3:-rxe}
CASES=${4:-.}	# a regex: only the cases it matches

ktap_header
ktap_require_cmd ib_write_bw ib_read_bw ib_send_bw ib_atomic_bw ibv_ud_pingpong \
	ibv_rc_pingpong rping mckey tc nvme mount.nfs md5sum
link_up "$MAIN_MAC" "$MAIN_IP" "$MAIN_IP6" || ktap_bail "link"
wait_for 300 peer run 5 true >/dev/null 2>&1 || ktap_bail "B's agent never answered"
defer peer quit

# dev_cmd DRIVER NETDEV: the command line that makes $DEV.  rdma_rxe is
# loaded only for an rxe device: 6.1's binds UDP port 4791 when it loads.
dev_cmd() {
	[[ $1 == rxe ]] && printf 'modprobe rdma_rxe && '
	echo "rdma link add $DEV type $1 netdev $2"
}
plink=$(peer_link) || ktap_bail "B's link NIC"
run_stage "$CDRV device on A's $LINK" bash -c "$(dev_cmd "$CDRV" "$LINK")" ||
	ktap_bail "no $CDRV device"
defer rdma link delete "$DEV"
run_stage "$SDRV device on B's $plink" peer run 60 "$(dev_cmd "$SDRV" "$plink")" ||
	ktap_bail "no $SDRV device on B"
defer peer run 30 "rdma link delete $DEV"
# ib_core adds the GIDs of the addresses that exist when a device
# registers before "rdma link add" returns.
if ! { GA=$(roce_gid_index "$DEV" "$MAIN_IP") &&
	GA6=$(roce_gid_index "$DEV" "$MAIN_IP6") &&
	GB=$(peer run 10 ". $LIB/gid.sh; roce_gid_index $DEV $PEER_IP") &&
	GB6=$(peer run 10 ". $LIB/gid.sh; roce_gid_index $DEV $PEER_IP6"); }; then
	ktap_bail "RoCE v2 GIDs (A: '$GA' '$GA6', B: '$GB' '$GB6')"
fi
ktap_comment "A: $CDRV on $LINK, GIDs $GA (IPv4) $GA6 (IPv6); B: $SDRV on $plink, GIDs $GB $GB6"

PORT=19100
# b_joined: B's link NIC has joined $GROUP (mckey's rdma_cm join).
b_joined() {
	peer run 5 "ip maddr show dev $plink | grep -qw $GROUP"
}

# case_run NAME SERVER CLIENT [READY]: SERVER on B (its port, $PORT, in
# "@P"), then CLIENT on A (likewise); READY: tcp (default: B answers
# once the server's TCP port listens), cm (an rdma_cm listener: A's
# client retries while B rejects it) or mcast (B has joined $GROUP).
# Both must exit 0.
case_run() {
	local name=$1 srv=$2 cli=$3 ready=${4:-tcp} port=0 out rc src sout

	[[ $name =~ $CASES ]] || return 0
	PORT=$((PORT + 1))
	[[ $ready == tcp ]] && port=$PORT
	if ! peer start "$name" "$port" "timeout $TMO ${srv//@P/$PORT}" >/dev/null ||
		{ [[ $ready == mcast ]] && ! wait_for 60 b_joined; }; then
		ktap_fail "$name" "B's server did not start"
		peer wait "$name" 5 >/dev/null
		return
	fi
	for _ in $(seq 30); do
		out=$(timeout "$TMO" bash -c "${cli//@P/$PORT}" 2>&1)
		rc=$?
		[[ $rc -ne 0 && $ready == cm && $out == *REJECTED* ]] || break
		sleep 1
	done
	sout=$(peer wait "$name" "$TMO")
	src=$?
	if [[ $rc -eq 0 && $src -eq 0 ]]; then
		ktap_comment "$name: $(grep -E '^ *[0-9]+ +[0-9]+ ' <<<"$out" | tail -n 1 | tr -s ' ')$(
			grep -E 'bytes in' <<<"$out" | tail -n 1)"
		ktap_ok "$name"
		return
	fi
	# stderr's lines come first, ahead of stdout's buffered ones
	ktap_comment "$name: client (exit $rc):"
	grep -v -e '^ *GID:' -e 'remote address:' -e 'local address:' <<<"$out" |
		tail -n 25 | sed 's/^/#   /'
	ktap_comment "$name: server:"
	grep -v -e '^ *GID:' -e 'remote address:' -e 'local address:' <<<"$sout" |
		tail -n 25 | sed 's/^/#   /'
	ktap_fail "$name" "client exit $rc, server exit $src"
}

PT="-d $DEV -p @P"
case_run write_64KiB "ib_write_bw $PT -x $GB -s 65536 -n 300" \
	"ib_write_bw $PT -x $GA -s 65536 -n 300 $PEER_IP"
case_run read_64KiB "ib_read_bw $PT -x $GB -s 65536 -n 300" \
	"ib_read_bw $PT -x $GA -s 65536 -n 300 $PEER_IP"
case_run send_64KiB "ib_send_bw $PT -x $GB -s 65536 -n 300" \
	"ib_send_bw $PT -x $GA -s 65536 -n 300 $PEER_IP"
case_run atomics "ib_atomic_bw $PT -x $GB -n 500" "ib_atomic_bw $PT -x $GA -n 500 $PEER_IP"
# perftest's own connection stays on IPv4; the RoCE packets use the IPv6 GIDs.
case_run write_4KiB_ipv6 "ib_write_bw $PT -x $GB6 -s 4096 -n 500" \
	"ib_write_bw $PT -x $GA6 -s 4096 -n 500 $PEER_IP"
case_run write_64KiB_4qps "ib_write_bw $PT -x $GB -s 65536 -n 200 -q 4" \
	"ib_write_bw $PT -x $GA -s 65536 -n 200 -q 4 $PEER_IP"
if [[ write_64KiB_lossy =~ $CASES ]] &&
	run_stage "netem ${LOSS_QDISC[*]} on A's $LINK" tc qdisc add dev "$LINK" root "${LOSS_QDISC[@]}"; then
	case_run write_64KiB_lossy "ib_write_bw $PT -x $GB -s 65536 -n 300" \
		"ib_write_bw $PT -x $GA -s 65536 -n 300 $PEER_IP"
	ktap_comment "netem: $(tc -s qdisc show dev "$LINK" | grep -o 'dropped [0-9]*' | head -n 1)"
	tc qdisc del dev "$LINK" root
fi
case_run ud_pingpong "ibv_ud_pingpong -d $DEV -g $GB -p @P -n 200" \
	"ibv_ud_pingpong -d $DEV -g $GA -p @P -n 200 $PEER_IP"
case_run rc_pingpong_ipv6 "ibv_rc_pingpong -d $DEV -g $GB6 -p @P -n 200 -s 8000" \
	"ibv_rc_pingpong -d $DEV -g $GA6 -p @P -n 200 -s 8000 $PEER_IP"
case_run rping "rping -s -a $PEER_IP -p @P -C 20 -S 10000 -V" \
	"rping -c -a $PEER_IP -p @P -C 20 -S 10000 -V" cm
# mckey's receiver joins through rdma_cm (an IGMP join on B's link NIC)
# and waits for 20 datagrams; the sender's join is send-only.  UD is
# unreliable: the sender sends more than the receiver waits for.
case_run mckey "mckey -m $GROUP -b $PEER_IP -C 20" \
	"mckey -m $GROUP -b $MAIN_IP -s -C 200" mcast

# ---- kernel ULPs across the link ----
#
# The target or server on B's device, the host or client on A's: their
# QPs, fast-registered MRs and remote invalidations cross the wire, with
# the ICRC and the IP stack between them, where verbs_kernel_ulp.sh and
# verbs_nfs.sh stay on one device.  Data is random and compared whole.

NQN=nqn.2026-11.dev.vrnic:interop
ULP_IN=/tmp/interop_ulp.in
ULP_OUT=/tmp/interop_ulp.out
defer rm -f "$ULP_IN" "$ULP_OUT"

# nvme_target_up / nvme_target_down: B exports a 32 MiB RAM disk with
# nvmet-rdma on $PEER_IP:4420.
nvme_target_up() {
	nvmet_export "modprobe brd rd_nr=1 rd_size=32768; modprobe nvmet-rdma" /dev/ram0 &&
	nvmet_port 1 rdma
}
nvme_target_down() {
	nvmet_unport 1
	peer run 120 "cd /sys/kernel/config/nvmet
		echo 0 >subsystems/$NQN/namespaces/1/enable
		rmdir subsystems/$NQN/namespaces/1 subsystems/$NQN
		rmmod brd" >/dev/null
}

# nvme_io: connect, 4 MiB written in 512 KiB I/Os and 1 MiB in 4 KiB
# ones (the target's RDMA READs of A's fast-registered pages), read back
# in the other sizes (its RDMA WRITEs), compared; disconnect.
nvme_io() {
	local dev='' b rc=0

	modprobe nvme-rdma || return 1
	timeout 120 nvme connect -t rdma -a "$PEER_IP" -s 4420 -n "$NQN" || return 1
	for _ in $(seq 100); do
		for b in /sys/block/nvme*n*; do
			grep -qx "$NQN" "$b/device/subsysnqn" 2>/dev/null && dev=/dev/${b##*/}
		done
		[[ -b $dev ]] && break
		sleep 0.2
	done
	if [[ -b $dev ]]; then
		head -c 5242880 /dev/urandom >"$ULP_IN"
		timeout 300 dd if="$ULP_IN" of="$dev" bs=512k count=8 oflag=direct status=none &&
		timeout 300 dd if="$ULP_IN" of="$dev" bs=4k skip=1024 seek=1024 count=256 \
			oflag=direct status=none &&
		timeout 300 dd if="$dev" of="$ULP_OUT" bs=4k count=1024 iflag=direct status=none &&
		timeout 300 dd if="$dev" of="$ULP_OUT" bs=1M skip=4 seek=4 count=1 \
			iflag=direct status=none &&
		cmp "$ULP_IN" "$ULP_OUT" || rc=1
	else
		echo "no namespace of $NQN appeared"
		rc=1
	fi
	timeout 120 nvme disconnect -n "$NQN" || rc=1
	return "$rc"
}

if [[ nvme_rdma =~ $CASES || nvme_rdma_lossy =~ $CASES ]] &&
	run_stage "nvmet-rdma on B's $SDRV device" nvme_target_up; then
	[[ nvme_rdma =~ $CASES ]] &&
		run_stage "nvme_rdma: $CDRV host, $SDRV target, 5 MiB written, read back and compared" nvme_io
	# Both ends recover what netem drops, reorders and duplicates, while
	# the target's READs and WRITEs use MRs the host registers and
	# invalidates for each I/O.
	if [[ nvme_rdma_lossy =~ $CASES ]] &&
		run_stage "netem ${LOSS_QDISC[*]} on A's $LINK" tc qdisc add dev "$LINK" root "${LOSS_QDISC[@]}"; then
		run_stage "nvme_rdma_lossy: the same under netem on A's end" nvme_io
		ktap_comment "netem: $(tc -s qdisc show dev "$LINK" | grep -o 'dropped [0-9]*' | head -n 1)"
		tc qdisc del dev "$LINK" root
	fi
	nvme_target_down
fi

# The NFS server on B: a tmpfs exported as the NFSv4 root to the link's
# subnet, nfsd on RDMA port 20049 (RFC 8267) with a 10 s grace period.
NFS_EXPORT=/tmp/interop_nfs.export
NFS_MNT=/tmp/interop_nfs.mnt
nfs_server_up() {
	peer run 120 "set -e
		modprobe nfsd; modprobe rpcrdma
		mkdir -p /proc/fs/nfsd /var/lib/nfs /run/rpcbind $NFS_EXPORT
		mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
		mount -t tmpfs -o size=64m tmpfs $NFS_EXPORT
		rpcbind -w
		exportfs -i -o rw,sync,no_root_squash,insecure,no_subtree_check,fsid=0 \
			${PEER_IP%.*}.0/24:$NFS_EXPORT
		rpc.mountd
		rpc.nfsd -G 10 -L 10 -N 3 --rdma=20049 4
		grep -qx 'rdma 20049' /proc/fs/nfsd/portlist"
}
nfs_server_down() {
	peer run 120 "rpc.nfsd 0; exportfs -ua; pkill -x rpc.mountd; pkill -x rpcbind
		umount $NFS_EXPORT" >/dev/null
}

# nfs_io: mount over RDMA, 8 MiB written with O_DIRECT (the server's RDMA
# READs of Read chunks) and checked on B, read back after the caches are
# dropped (its RDMA WRITEs of Write chunks) and compared; umount.
nfs_io() {
	local rc=0 sum

	modprobe nfsv4 && modprobe rpcrdma && mkdir -p "$NFS_MNT" || return 1
	timeout 120 mount -t nfs -o vers=4.2,proto=rdma,port=20049 "$PEER_IP:/" "$NFS_MNT" ||
		return 1
	if grep -q " $NFS_MNT nfs4 .*proto=rdma" /proc/mounts; then
		head -c 8388608 /dev/urandom >"$ULP_IN"
		sum=$(md5sum <"$ULP_IN")
		timeout 300 dd if="$ULP_IN" of="$NFS_MNT/big" bs=1M oflag=direct status=none &&
		[[ $(peer run 60 "md5sum <$NFS_EXPORT/big") == "$sum" ]] &&
		echo 3 >/proc/sys/vm/drop_caches &&
		timeout 300 dd if="$NFS_MNT/big" of="$ULP_OUT" bs=1M iflag=direct status=none &&
		cmp "$ULP_IN" "$ULP_OUT" || rc=1
	else
		echo "not mounted over RDMA"
		rc=1
	fi
	timeout 120 umount "$NFS_MNT" || rc=1
	return "$rc"
}

if [[ nfs_rdma =~ $CASES ]]; then
	if run_stage "NFS server on B, RDMA port 20049" nfs_server_up; then
		run_stage "nfs_rdma: $CDRV client, $SDRV server, 8 MiB written, checked on B, read back" nfs_io
		nfs_server_down
	fi
fi

# moved_counters: the port counters of $DEV that are not zero, on one line.
moved_counters() {
	rdma statistic show link "$DEV/1" | tr ' ' '\n' | paste - - |
		awk '$2 ~ /^[0-9]+$/ && $2 > 0 { printf " %s %s", $1, $2 }'
}
ktap_comment "A's $CDRV counters that moved:$(moved_counters)"
ktap_comment "B's $SDRV counters that moved:$(peer run 10 "DEV=$DEV; $(declare -f moved_counters); moved_counters")"
ktap_finish
