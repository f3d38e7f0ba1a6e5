#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm.sh - run vrnic's kernel tests in a throw-away QEMU guest.
#
# The build machine's kernel cannot load modules, so every kernel test runs
# in a VM booting the newest installed Debian kernel.  The guest sees the host
# root read-only over virtio-9p under a tmpfs overlay, plus one writable 9p
# share for results, and one isolated virtio NIC (user net, restrict=on): test traffic
# never leaves the guest.
#
#   vm.sh check [TEST...]   run the VM selftests, print TAP, summary line
#   vm.sh demo              run selftests/demo.sh
#   vm.sh bench             run selftests/bench.sh
#   vm.sh run -- CMD...     run CMD as root in the guest, print its output,
#                           exit with its status
#
# See selftests/vm/README.md for the environment variables.

set -euo pipefail

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$VM_DIR/../.." && pwd)
BUILD=${VRNIC_VM_BUILD:-$REPO/build/vm}
KVER=${KVER:-$(find /lib/modules -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -n 1)}
KERNEL=${VRNIC_VM_KERNEL:-/boot/vmlinuz-$KVER}
# A kernel built elsewhere (selftests/vm/debug-kernel.sh) brings its modules
# installed under a root of their own (make INSTALL_MOD_PATH=...): the
# initramfs takes them from there, and the guest links its
# /lib/modules/$KVER to that tree.
MODROOT=${VRNIC_VM_MODROOT:-}
MODDIR=$MODROOT/lib/modules/$KVER
VRNIC_KO=${VRNIC_KO:-$REPO/kmod/vrnic.ko}
ACCEL=${VRNIC_VM_ACCEL:-tcg}
MEM=${VRNIC_VM_MEM:-4G}
SMP=${VRNIC_VM_SMP:-2}
# Seconds the guest's kernel gets to print each SysRq dump of a guest that
# timed out (hang_dump).
HANG_DUMP_PAUSE=10

# shellcheck source=selftests/lib/tap.sh
. "$REPO/selftests/lib/tap.sh"
# shellcheck source=selftests/lib/wq_trace.sh
. "$REPO/selftests/lib/wq_trace.sh"

# Modules the initramfs loads to reach the host root; their dependencies
# (netfs, fscache, virtio_ring, ...) come from modules.dep.
BOOT_MODULES=(virtio_pci 9pnet_virtio 9p overlay)

usage() {
	echo "usage:" >&2
	sed -n '/^#   vm.sh/,/^#$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
	exit 2
}

msg() {
	echo "vm: $*" >&2
}

die() {
	msg "$*"
	exit 1
}

# Print the path (relative to $MODDIR) of module $1 and of every module it
# needs, dependencies first, one per line.  Built-in modules print nothing.
mod_closure() {
	local name=${1//-/_} line path deps dep

	line=$(awk -v n="$name" '{
		p = $1; sub(":$", "", p)
		b = p; sub(".*/", "", b); sub("\\.ko.*$", "", b); gsub("-", "_", b)
		if (b == n) { print; exit }
	}' "$MODDIR/modules.dep")
	if [[ -z $line ]]; then
		grep -Eq "/${name//_/[-_]}\\.ko\$" "$MODDIR/modules.builtin" && return 0
		die "module $1 not found for kernel $KVER"
	fi
	path=${line%%:*}
	read -r -a deps <<<"${line#*:}"
	# modules.dep lists the full closure, the deepest dependency last.
	for ((dep = ${#deps[@]} - 1; dep >= 0; dep--)); do
		echo "${deps[dep]}"
	done
	echo "$path"
}

# Copy module $1 (relative to $MODDIR) into directory $2, decompressed.
mod_install() {
	local src=$MODDIR/$1 base

	base=$(basename "$1")
	case $base in
	*.ko) cp "$src" "$2/$base" ;;
	*.ko.xz) xz -dc "$src" >"$2/${base%.xz}" ;;
	*.ko.zst) zstd -qdc "$src" >"$2/${base%.zst}" ;;
	*.ko.gz) gzip -dc "$src" >"$2/${base%.gz}" ;;
	*) die "unknown module format: $base" ;;
	esac
	echo "${base%.ko*}.ko"
}

busybox_bin() {
	local b

	for b in /bin/busybox /usr/bin/busybox; do
		if [[ -x $b ]] && file -L "$b" | grep -q 'statically linked'; then
			echo "$b"
			return 0
		fi
	done
	die "no statically linked busybox (apt-get install busybox-static)"
}

# Build (or reuse) the initramfs for $KVER; print its path.
build_initramfs() {
	local out=$BUILD/initramfs-$KVER.cpio bb mods=() m stamp tmp

	bb=$(busybox_bin)
	for m in "${BOOT_MODULES[@]}"; do
		mapfile -t -O "${#mods[@]}" mods < <(mod_closure "$m")
	done
	mapfile -t mods < <(printf '%s\n' "${mods[@]}" | awk '!seen[$0]++')

	stamp=$( {
		echo "$KVER"
		sha256sum "$bb" "$VM_DIR/init" "${BASH_SOURCE[0]}"
		for m in "${mods[@]}"; do
			stat -c '%n %s %Y' "$MODDIR/$m"
		done
	} | sha256sum | cut -d' ' -f1)

	if [[ -f $out && $(cat "$out.stamp" 2>/dev/null) == "$stamp" ]]; then
		echo "$out"
		return 0
	fi

	msg "building initramfs for $KVER"
	tmp=$(mktemp -d "$BUILD/initramfs.XXXXXX")
	mkdir -p "$tmp/root/bin" "$tmp/root/modules" "$tmp/root/proc" \
		"$tmp/root/sys" "$tmp/root/dev" "$tmp/root/mnt"
	cp "$bb" "$tmp/root/bin/busybox"
	for m in sh mount insmod grep sleep mkdir switch_root cat chroot; do
		ln -s busybox "$tmp/root/bin/$m"
	done
	cp "$VM_DIR/init" "$tmp/root/init"
	chmod 0755 "$tmp/root/init"
	for m in "${mods[@]}"; do
		mod_install "$m" "$tmp/root/modules"
	done >"$tmp/root/modules/order"
	(cd "$tmp/root" && find . -print0 | LC_ALL=C sort -z |
		cpio --quiet -o -0 -H newc -R 0:0) >"$tmp/initramfs.cpio"
	mv "$tmp/initramfs.cpio" "$out"
	echo "$stamp" >"$out.stamp"
	rm -rf "$tmp"
	echo "$out"
}

# Write the job description the guest reads from /results/job.env.
write_job() {
	local f=$1 mode=$2 ko=$3
	shift 3

	{
		printf 'VRNIC_MODE=%q\n' "$mode"
		printf 'VRNIC_REPO=%q\n' "$REPO"
		printf 'VRNIC_KO=%q\n' "$ko"
		printf 'VRNIC_KO_PARAMS=%q\n' "${VRNIC_KO_PARAMS:-}"
		printf 'VRNIC_CWD=%q\n' "$PWD"
		printf 'VRNIC_TEST_TIMEOUT=%q\n' "${VRNIC_TEST_TIMEOUT:-300}"
		# Exported: tests scale their own waits by it (stress_lib.sh).
		printf 'export VRNIC_TEST_TIMEOUT_FACTOR=%q\n' "${VRNIC_TEST_TIMEOUT_FACTOR:-1}"
		printf 'export VRNIC_STRESS_SCALE=%q\n' "${VRNIC_STRESS_SCALE:-1}"
		# The race-widening test module (selftests/widen) built for the
		# guest's kernel, when that is not the Debian one (debug-kernel.sh).
		[[ -n ${VRNIC_WIDEN_KO:-} ]] && printf 'export VRNIC_WIDEN_KO=%q\n' "$VRNIC_WIDEN_KO"
		printf 'VRNIC_VM_LOAD=%q\n' "${VRNIC_VM_LOAD:-1}"
		printf 'VRNIC_VM_MODDIR=%q\n' "${MODROOT:+$MODDIR}"
		printf 'VRNIC_VM_INIT=%q\n' "${VRNIC_VM_INIT:-}"
		printf 'VRNIC_VM_LOCKDEP=%q\n' "${VRNIC_VM_LOCKDEP:-0}"
		printf 'VRNIC_VM_CLAIMS=%q\n' "${VRNIC_VM_CLAIMS:+/claims}"
		printf 'KTAP_VERBOSE=%q\n' "${KTAP_VERBOSE:-0}"
		# Tuning knobs of the guest scripts pass through as they are.
		local v
		for v in $(compgen -v | grep -E '^(BENCH|CC|DP|STRESS|WF)_'); do
			printf 'export %s=%q\n' "$v" "${!v}"
		done
		printf 'VRNIC_ARGS=('
		[[ $# -gt 0 ]] && printf '%q ' "$@"
		printf ')\n'
	} >"$f"
}

# Keep the newest runs only; never touch one whose vm.sh still runs (its
# pid is in the run's owner file: a debug-kernel run lasts hours, while
# other runs come and go) or, for runs without that file, younger than an
# hour.
prune_runs() {
	local keep=${VRNIC_VM_KEEP_RUNS:-20} d pid

	find "$BUILD/runs" -mindepth 1 -maxdepth 1 -type d -printf '%T@ %p\n' |
		sort -rn | tail -n +"$((keep + 1))" | cut -d' ' -f2- |
		while read -r d; do
			pid=$(cat "$d/owner" 2>/dev/null) || pid=
			[[ -n $pid ]] && kill -0 "$pid" 2>/dev/null && continue
			[[ -n $(find "$d" -maxdepth 0 -mmin +60) ]] && rm -rf -- "$d"
		done
}

# hmp SOCKET COMMAND...: run each QEMU monitor COMMAND, print what it says.
hmp() {
	python3 - "$@" <<'PY'
import socket
import sys

mon = socket.socket(socket.AF_UNIX)
mon.settimeout(10)
mon.connect(sys.argv[1])


def reply():
    got = b""
    try:
        while not got.endswith(b"(qemu) "):
            part = mon.recv(65536)
            if not part:
                break
            got += part
    except socket.timeout:
        pass
    return got.decode(errors="replace")


reply()
for cmd in sys.argv[2:]:
    mon.sendall(cmd.encode() + b"\n")
    print(reply())
PY
}

# hang_dump RUN: the guest outlived its time; before it is killed, have its
# kernel print what every CPU runs and every blocked task waits for, on the
# console (magic SysRq from the emulated keyboard, which works even when no
# process in the guest can run: console log level 9, then w: blocked
# tasks, l: a backtrace of each CPU).  The vCPUs' registers go to
# RUN/hang-registers.
hang_dump() {
	local run=$1 key

	hmp "$run/monitor.sock" "info registers -a" >"$run/hang-registers" 2>&1 || true
	for key in 9 w l; do
		hmp "$run/monitor.sock" "sendkey alt-sysrq-$key" >/dev/null 2>&1 || true
		sleep "$HANG_DUMP_PAUSE"
	done
}

# The interesting part of the console after a crash.
crash_tail() {
	msg "console log: $run/console.log"
	grep -E -A 30 'Kernel panic|BUG:|Oops|WARNING:|vm-init:' "$run/console.log" |
		head -n 60 | sed 's/^/vm: | /' >&2 || true
	tap_hang_dump "$run/console.log" | sed 's/^# \{0,1\}/vm: | /' >&2
}

# The whole run is one function: bash parses it completely before running
# it, so editing this file while a guest runs cannot break that run.
main() {
	local mode timeout_s initrd run guest_ko accel append qemu start rc elapsed hung
	local qpid interrupted="" slub watchdog

	mode=${1:-}
	[[ -n $mode ]] || usage
	shift
	case $mode in
	check)
		# The whole suite takes about 28 min on an idle 2-core TCG
		# host; per-file timeouts catch hangs long before this.
		timeout_s=${VRNIC_VM_TIMEOUT:-2700}
		;;
	demo)
		timeout_s=${VRNIC_VM_TIMEOUT:-900}
		;;
	bench)
		timeout_s=${VRNIC_VM_TIMEOUT:-1500}
		;;
	run)
		timeout_s=${VRNIC_VM_TIMEOUT:-900}
		[[ ${1:-} == -- ]] && shift
		[[ $# -gt 0 ]] || usage
		;;
	-h | --help | help) usage ;;
	*)
		msg "unknown mode '$mode'"
		usage
		;;
	esac

	[[ -r $KERNEL ]] || die "cannot read kernel $KERNEL"
	[[ -d $MODDIR ]] || die "no modules for kernel $KVER in $MODDIR"
	command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"
	mkdir -p "$BUILD/runs"

	initrd=$(
		exec 9>"$BUILD/.initramfs.lock"
		flock 9
		build_initramfs
	)

	run=$(mktemp -d "$BUILD/runs/$mode-$(date +%Y%m%d-%H%M%S)-XXXX")
	echo "$$" >"$run/owner"
	mkdir "$run/results"
	ln -sfn "runs/${run##*/}/results" "$BUILD/results"
	ln -sfn "runs/${run##*/}/console.log" "$BUILD/console.log"

	# Snapshot the module: it may be rebuilt while the guest runs.
	guest_ko=
	if [[ -f $VRNIC_KO ]]; then
		cp "$VRNIC_KO" "$run/results/vrnic.ko"
		guest_ko=/results/vrnic.ko
	elif [[ $mode == check || $mode == demo || $mode == bench ]]; then
		die "$VRNIC_KO not found (build it with make, or set VRNIC_KO=)"
	else
		msg "note: $VRNIC_KO not found, vrnic will not be loaded"
	fi
	write_job "$run/results/job.env" "$mode" "$guest_ko" "$@"

	case $ACCEL in
	tcg) accel=(-accel tcg -cpu "${VRNIC_VM_CPU:-max}") ;;
	kvm) accel=(-accel kvm -cpu "${VRNIC_VM_CPU:-host}") ;;
	*) die "VRNIC_VM_ACCEL must be tcg or kvm" ;;
	esac

	# Kernel console: ttyS0 -> console.log.  Guest program output: ttyS1 ->
	# our stdout.  oops=panic and panic=-1 with -no-reboot turn any Oops into a
	# QEMU exit, which the host reports; a WARNING only lands in dmesg, which
	# guest.sh scans after every test.  Lockup detectors are off: TCG on a busy
	# host stalls vCPUs and would report false lockups; per-test timeouts catch
	# real hangs instead.  VRNIC_VM_LOCKUP=N (the debug kernel's runs) turns
	# the soft-lockup detector on with watchdog_thresh=N (a report after 2N s
	# of a CPU not scheduling), long enough to ride out TCG stalls.
	# slub_debug catches memory bugs in tests, on the caches vrnic's own
	# objects and the ones it holds references to live in: every kmalloc
	# cache (vrnic, ib_core, uverbs, rdma_cm; the -cg- ones of accounted
	# memory), skbs, dst entries, UDP sockets, conntrack entries.  The
	# caches of fork/exec (mm, vmas, creds, dentries...) are left out:
	# checking them made the tests, which start thousands of tools, a fifth
	# slower under TCG and covers none of our code; the debug kernel's KASAN
	# covers every cache.  A benchmark measures the allocator as users run
	# it.  VRNIC_VM_SLUB_DEBUG overrides either ("FZPU" for every cache).
	if [[ $mode == bench ]]; then
		slub=${VRNIC_VM_SLUB_DEBUG-}
	else
		slub=${VRNIC_VM_SLUB_DEBUG-FZPU,kmalloc-*,dma-kmalloc-*,skbuff_*,ip_dst_cache,ip6_dst_cache,UDP,UDPv6,nf_conntrack}
	fi
	# VRNIC_VM_FAILSLAB_CACHES (the debug kernel's runs) marks caches whose
	# allocations failslab's cache-filter may fail (fault_inject.c); 6.1
	# marks them only from the boot line (its sysfs "failslab" is read
	# only).  A block first, with the flags the caches had: the first
	# block naming a cache is the one that counts.
	if [[ -n ${VRNIC_VM_FAILSLAB_CACHES:-} ]]; then
		slub="${slub%%[,;]*}A,$VRNIC_VM_FAILSLAB_CACHES${slub:+;$slub}"
	fi
	append="console=ttyS0 loglevel=5${slub:+ slub_debug=$slub} no_timer_check oops=panic panic=-1"
	if [[ -n ${VRNIC_VM_LOCKUP:-} ]]; then
		[[ $VRNIC_VM_LOCKUP =~ ^[0-9]+$ ]] || die "VRNIC_VM_LOCKUP must be a number of seconds"
		append+=" nmi_watchdog=0 watchdog_thresh=$VRNIC_VM_LOCKUP"
	else
		append+=" nowatchdog"
	fi
	append+=" rcupdate.rcu_cpu_stall_suppress=1 sysrq_always_enabled rdinit=/init"
	# The tests' work item trace event, enabled at boot so that no test
	# rewrites kernel text to enable it (lib/wq_trace.sh says why);
	# guest.sh filters out all of it.  A benchmark goes without.
	[[ $mode == bench ]] || append+=" trace_event=$WQ_EVENT_NAME"
	append+=" vrnic_guest=$VM_DIR/guest.sh ${VRNIC_VM_APPEND:-}"
	# systemd as PID 1 (the tests with "# VRNIC_VM_INIT=systemd"): see init.
	case ${VRNIC_VM_INIT:-} in
	'') ;;
	systemd) append+=" vrnic_init=systemd" ;;
	*) die "VRNIC_VM_INIT must be empty or systemd" ;;
	esac

	# Two virtio-net NICs (real PCI parent devices, for the sysfs tests and
	# for rdma-core's pyverbs suite, whose rdma_cm tests want the RDMA
	# device's device/net/) on QEMU user networking with restrict=on:
	# isolated, nothing leaves the guest through them.
	# VRNIC_VM_LINK=listen:SOCKET or connect:SOCKET adds a second virtio
	# NIC, MAC 52:54:00:76:72:01 (listen) or :02 (connect), joined to the
	# other guest's by a Unix stream socket: two hosts on one cable
	# (selftests/vm/pair.sh), nothing else on it.  Not TCP ("-netdev
	# socket" or "stream" over inet): QEMU does not set TCP_NODELAY, and
	# Nagle with delayed ACKs put 40 ms on every request/response exchange
	# (an NVMe read at queue depth 1 took 45 ms, over TCP and RDMA alike);
	# not UDP ("dgram"): the host dropped frames when a receiving QEMU's
	# socket buffer filled, a lossy link under every row.
	local -a link=() claims=()
	# VRNIC_VM_CLAIMS=DIR: the guests of one "make check" share one queue
	# of test files (selftests/check.sh): DIR, writable, holds a directory
	# per file some guest has taken.
	if [[ -n ${VRNIC_VM_CLAIMS:-} ]]; then
		[[ $mode == check && -d $VRNIC_VM_CLAIMS ]] ||
			die "VRNIC_VM_CLAIMS must name a directory, in check mode"
		claims=(-virtfs "local,path=$VRNIC_VM_CLAIMS,mount_tag=claims,security_model=none,multidevs=remap")
	fi
	case ${VRNIC_VM_LINK:-} in
	'') ;;
	listen:?* | connect:?*)
		# shellcheck disable=SC2054
		link=(-netdev "stream,id=link0,server=$([[ $VRNIC_VM_LINK == listen:* ]] && echo on || echo off),addr.type=unix,addr.path=${VRNIC_VM_LINK#*:}"
			-device "virtio-net-pci,netdev=link0,mac=52:54:00:76:72:0$([[ $VRNIC_VM_LINK == listen:* ]] && echo 1 || echo 2)")
		;;
	*) die "VRNIC_VM_LINK must be listen:SOCKET or connect:SOCKET" ;;
	esac
	# shellcheck disable=SC2054 # commas belong to QEMU options
	qemu=(qemu-system-x86_64 "${accel[@]}" -smp "$SMP" -m "$MEM"
		-nographic -no-reboot -net none
		-monitor "unix:$run/monitor.sock,server=on,wait=off"
		-netdev user,id=nic0,restrict=on -device virtio-net-pci,netdev=nic0
		-netdev user,id=nic1,restrict=on -device virtio-net-pci,netdev=nic1 "${link[@]}"
		-kernel "$KERNEL" -initrd "$initrd" -append "$append"
		-chardev "file,id=con,path=$run/console.log" -serial chardev:con
		-chardev stdio,id=out,signal=on -serial chardev:out
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$run/results,mount_tag=results,security_model=none,multidevs=remap"
		"${claims[@]}")

	if [[ ${VRNIC_VM_VERBOSE:-0} != 0 ]]; then
		: >"$run/console.log"
		tail -n +1 -F "$run/console.log" >&2 &
		tail_pid=$!
		trap 'kill "$tail_pid" 2>/dev/null || true' EXIT
	fi

	# From here on, report; never stop half-way.
	set +e
	start=$(date +%s)
	rc=0
	# timeout(1) runs QEMU in a process group of its own, out of reach of
	# the terminal's ^C: pass INT/TERM on ourselves.
	# The watchdog has the guest's kernel dump its state (hang_dump) when
	# its time is up, then stops QEMU; timeout(1), given the dump's time
	# on top, is the backstop.  The watchdog polls rather than sleeps the
	# whole time, so that it ends with QEMU, holding none of our output.
	timeout -k 10 "$((timeout_s + 4 * HANG_DUMP_PAUSE + 30))" "${qemu[@]}" </dev/null &
	qpid=$!
	(
		deadline=$((SECONDS + timeout_s))
		while ((SECONDS < deadline)); do
			sleep 1
			kill -0 "$qpid" 2>/dev/null || exit 0
		done
		echo "$timeout_s" >"$run/timed-out"
		hang_dump "$run"
		kill -TERM "$qpid" 2>/dev/null
	) </dev/null >/dev/null 2>&1 &
	watchdog=$!
	trap 'interrupted=1; kill -TERM "$qpid" 2>/dev/null' INT TERM HUP
	while :; do
		wait "$qpid"
		rc=$?
		kill -0 "$qpid" 2>/dev/null || break
	done
	trap - INT TERM HUP
	wait "$watchdog"
	elapsed=$(($(date +%s) - start))
	echo "$elapsed" >"$run/elapsed"
	prune_runs

	hung=
	if [[ -n $interrupted ]]; then
		hung="interrupted"
	elif [[ -f $run/timed-out || $rc -eq 124 || $rc -eq 137 ]]; then
		hung="guest timed out after ${timeout_s}s"
		rc=124
	elif [[ $rc -ne 0 ]]; then
		hung="qemu exited with status $rc"
	fi

	case $mode in
	check)
		tap_vm_report "$run/results" "$hung" "$run/console.log" "${VRNIC_VM_CLAIMS:+shared}"
		;;
	run | demo | bench)
		if [[ -f $run/results/run.rc ]]; then
			rc=$(cat "$run/results/run.rc")
			[[ -f $run/results/run.note ]] && msg "$(cat "$run/results/run.note")"
			[[ $mode != run ]] && msg "results: $run/results"
			exit "$rc"
		fi
		msg "${hung:-guest stopped before the command finished (crash?)}"
		[[ -n $interrupted ]] && exit 130
		crash_tail
		[[ $rc -eq 124 || $rc -eq 137 ]] && exit 124
		exit 125
		;;
	esac
}

main "$@"; exit $?
