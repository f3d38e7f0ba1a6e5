#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest.sh - the in-guest half of selftests/vm/vm.sh.
#
# Started by the initramfs as PID 1 ("guest.sh init") after switch_root into
# the overlay of the host root.  Reads /results/job.env written by vm.sh,
# sets up a normal environment, runs the job with its output on ttyS1 (the
# host's stdout), writes results to /results and powers the guest off.
#
# With VRNIC_VM_INIT=systemd (vm.sh), systemd is PID 1 instead: the
# initramfs first runs "guest.sh systemd-setup" chrooted into the overlay,
# which makes "guest.sh init" a unit of the boot (vrnic-vm.service) and
# runs the install step of each test ("TEST preboot"); only test files
# marked "# VRNIC_VM_INIT=systemd" run in such a boot, and only there.
#
# The other entry points can be used by hand inside the guest as well:
#   guest.sh check [TEST...]   run test files, results in $RESULTS/tests
#   guest.sh run CMD...        load vrnic, run CMD, check unload and dmesg

set -uo pipefail

RESULTS=${RESULTS:-/results}
KMOD_DEPS=(ib_core ib_uverbs rdma_ucm udp_tunnel ip6_udp_tunnel)
# Kernel reports that fail a test: oopses, warnings, slub_debug findings
# (slub_debug=FZPU prints "BUG <cache>: ..." and "INFO: ..." lines),
# refcount and list debugging, sanitizers, hung tasks; on the debug kernel
# (selftests/vm/debug-kernel.sh) also lockdep ("WARNING: possible circular
# locking dependency"), soft lockups ("BUG: soft lockup"), hung tasks
# ("INFO: task ... blocked"), debugobjects ("ODEBUG:") and kmemleak.
DMESG_BAD='^(BUG|WARNING|INFO)[: ]|kernel BUG|Oops|general protection|KASAN|UBSAN|Poison overwritten|Object corrupt|Redzone overwritten|Padding overwritten|Freepointer corrupt|refcount_t:|list_(add|del) corruption|Call Trace:|RIP:|ODEBUG:|suspected memory leak|unreferenced object'
KMEMLEAK=/sys/kernel/debug/kmemleak
# Noise of an emulated machine under load, not a kernel bug.
DMESG_IGNORE='INFO: NMI handler .* took too long'

log() {
	echo "# $*"
}

setup_env() {
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	export HOME=/root LANG=C.UTF-8 TERM=dumb

	# Under systemd, PID 1 has mounted all of this already.
	if [[ -d /run/systemd/system ]]; then
		mkdir -p /run/netns
		ulimit -l unlimited
		ulimit -c 0
		return
	fi
	mkdir -p /dev/pts /dev/shm /run /var/tmp
	mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
	mount -t tmpfs -o mode=1777 shm /dev/shm
	mount -t tmpfs -o mode=0755 run /run
	mount -t debugfs debugfs /sys/kernel/debug
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
	modprobe configfs 2>/dev/null
	mount -t configfs configfs /sys/kernel/config 2>/dev/null
	mount -t bpf bpf /sys/fs/bpf 2>/dev/null
	mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
	[[ -e /dev/fd ]] || ln -s /proc/self/fd /dev/fd
	mkdir -p /run/netns /run/lock
	hostname vrnic-vm
	ip link set lo up
	ulimit -l unlimited
	ulimit -c 0
}

# Load vrnic's dependencies and the module under test, with the module
# parameters in VRNIC_KO_PARAMS (e.g. "zero_copy=0").  In a systemd boot
# the tests' install step put the module under test where modprobe finds
# it, and the boot may have loaded it already.
vrnic_load() {
	local -a params

	modprobe -a "${KMOD_DEPS[@]}" || return 1
	[[ -n ${VRNIC_KO:-} ]] || return 0
	[[ ${VRNIC_VM_INIT:-} == systemd && -d /sys/module/vrnic ]] && return 0
	read -r -a params <<<"${VRNIC_KO_PARAMS:-}"
	insmod "$VRNIC_KO" "${params[@]}"
}

# Remove what a test left behind.  Unloading vrnic must succeed: a
# module that cannot be unloaded leaks a reference somewhere.
vrnic_teardown() {
	local rc=0 dev

	if [[ -d /sys/module/vrnic ]]; then
		# Killed processes may still be releasing their uverbs files:
		# up to 5 s, polled finely (most files unload at once or soon).
		for _ in $(seq 25); do
			rmmod vrnic 2>/dev/null && break
			sleep 0.2
		done
		if [[ -d /sys/module/vrnic ]] && ! rmmod vrnic; then
			echo "rmmod vrnic failed (refcount $(cat /sys/module/vrnic/refcnt 2>/dev/null))"
			rc=1
		fi
	fi
	ip -all netns delete 2>/dev/null
	# The guest has no network device of its own: drop what tests left.
	for dev in /sys/class/net/*; do
		dev=${dev##*/}
		[[ $dev == lo ]] || ip link delete "$dev" 2>/dev/null
	done
	if [[ -d /sys/module/rdma_rxe ]]; then
		for dev in /sys/class/infiniband/*; do
			[[ -e $dev ]] && rdma link delete "${dev##*/}" 2>/dev/null
		done
		rmmod rdma_rxe 2>/dev/null
	fi
	return "$rc"
}

# A kernel with kmemleak (the debug kernel): forget what is known now, so
# that the scan after a test reports only objects lost during the test.
kmemleak_start() {
	[[ -w $KMEMLEAK ]] || return 0
	echo clear >"$KMEMLEAK"
}

# Scan for leaks and copy the report into dmesg, where dmesg_check sees
# it.  kmemleak ignores objects younger than 5 s; the wait lets the last
# ones freed by RCU or workqueues go.
kmemleak_scan() {
	local report

	[[ -w $KMEMLEAK ]] || return 0
	sleep 6
	echo scan >"$KMEMLEAK"
	report=$(cat "$KMEMLEAK")
	[[ -n $report ]] || return 0
	printf '%s\n' "$report" | while IFS= read -r line; do
		echo "kmemleak: $line" >/dev/kmsg
	done
}

# Print kernel reports found in dmesg since the last clear; status 1 if any.
dmesg_check() {
	kmemleak_scan
	! dmesg -t | grep -E "$DMESG_BAD" | grep -Ev "$DMESG_IGNORE"
}

# Run one test file in its own process group with a timeout; its combined
# output lands in $2/out.
run_one() {
	local path=$1 dir=$2 limit=$3 pid rc

	(
		cd "$VRNIC_REPO" || exit 1
		exec timeout -k 10 "$limit" "$path"
	) </dev/null >"$dir/out" 2>&1 &
	pid=$!
	wait "$pid"
	rc=$?
	kill -KILL -- "-$pid" 2>/dev/null
	return "$rc"
}

# Per-file timeout: "# VRNIC_TIMEOUT=600" in a shell test (" * VRNIC_TIMEOUT=600"
# in the comment of a C test's source) overrides the default;
# VRNIC_FULL_TIMEOUT= replaces it when the stress tests run at more than
# their light scale (VRNIC_STRESS_SCALE > 1, make check-debug).
test_timeout() {
	local t src=$1 key=VRNIC_TIMEOUT factor=${VRNIC_TEST_TIMEOUT_FACTOR:-1}

	[[ $src == */build/selftests/* ]] && src=$VRNIC_REPO/selftests/${src##*/}.c
	if [[ ${VRNIC_STRESS_SCALE:-1} -gt 1 ]] &&
		grep -Eq '^(#| \*) *VRNIC_FULL_TIMEOUT=[0-9]+' "$src" 2>/dev/null; then
		key=VRNIC_FULL_TIMEOUT
		factor=1	# set for the debug kernel already
	fi
	t=$(grep -m1 -Eo "^(#| \\*) *$key=[0-9]+" "$src" 2>/dev/null | grep -Eo '[0-9]+$')
	# A slower kernel (the debug kernel) scales the other timeouts.
	echo "$((${t:-$VRNIC_TEST_TIMEOUT} * factor))"
}

list_tests() {
	local f base pat keep

	for f in "$VRNIC_REPO"/selftests/*.sh "$VRNIC_REPO"/build/selftests/*; do
		[[ -f $f && -x $f ]] || continue
		base=${f##*/}
		case $base in
		check.sh | demo.sh | bench.sh | bench_hosts.sh | interop_hosts.sh) continue ;;
		esac
		# Files that need systemd as PID 1 run in such a boot only,
		# and nothing else does.
		if grep -q '^# VRNIC_VM_INIT=systemd$' "$f" 2>/dev/null; then
			[[ ${VRNIC_VM_INIT:-} == systemd ]] || continue
		else
			[[ ${VRNIC_VM_INIT:-} != systemd ]] || continue
		fi
		# Files marked "# VRNIC_VM_BOOT=own" run only in a boot that
		# runs nothing else (check.sh gives them one): the only pattern
		# names them.  So do files marked "...=own-on-lockdep" on a
		# lockdep kernel.
		if grep -q '^# VRNIC_VM_BOOT=own$' "$f" 2>/dev/null ||
			{ [[ ${VRNIC_VM_LOCKDEP:-0} == 1 ]] &&
				grep -q '^# VRNIC_VM_BOOT=own-on-lockdep$' "$f" 2>/dev/null; }; then
			[[ $# -eq 1 && ($base == "$1" || $base == "$1.sh") ]] || continue
		fi
		# Files listed in selftests/known-failures are left out of a
		# full run (check.sh reports them as skipped, with the reason);
		# naming them runs them.
		if [[ $# -eq 0 ]] && grep -q "^${base}[[:space:]]" \
			"$VRNIC_REPO/selftests/known-failures" 2>/dev/null; then
			continue
		fi
		if [[ $# -gt 0 ]]; then
			keep=0
			for pat in "$@"; do
				# shellcheck disable=SC2053 # patterns are globs on purpose
				[[ $base == $pat || $base == "$pat.sh" ]] && keep=1
			done
			[[ $keep -eq 1 ]] || continue
		fi
		printf '%s\t%s\t%s\n' "$base" "$f" "$(test_timeout "$f")"
	done |
		# smoke.sh first (the canary), then the quick files before the
		# slow ones, so that a guest timeout costs as few results as
		# possible.
		awk -F'\t' -v OFS='\t' '{ print ($1 == "smoke.sh" ? 0 : 1), $3, $0 }' |
		sort -t$'\t' -k1,1n -k2,2n -k3,3 | cut -f3,4
}

mode_check() {
	local tests=() line name path dir rc n=0 total start t notes list

	mkdir -p "$RESULTS/tests"
	mapfile -t tests < <(list_tests "$@")
	total=${#tests[@]}
	if [[ -n ${VRNIC_VM_CLAIMS:-} ]]; then
		# A queue shared with other guests: the plan lists the files
		# this guest took; .list (written whole, then renamed) the
		# ones every guest sees, for the host to find any none took.
		: >"$RESULTS/plan"
		list=$(mktemp "$VRNIC_VM_CLAIMS/.list.XXXXXX")
		printf '%s\n' "${tests[@]}" | cut -f1 >"$list"
		mv -f "$list" "$VRNIC_VM_CLAIMS/.list"
		log "$total test files, shared with other guests"
	else
		printf '%s\n' "${tests[@]}" | cut -f1 >"$RESULTS/plan"
		log "$total test files"
	fi

	for line in "${tests[@]}"; do
		name=${line%%$'\t'*}
		path=${line#*$'\t'}
		n=$((n + 1))
		if [[ -n ${VRNIC_VM_CLAIMS:-} ]]; then
			# mkdir is atomic on the host: one guest wins each file.
			mkdir "$VRNIC_VM_CLAIMS/$name" 2>/dev/null || continue
			echo "$name" >>"$RESULTS/plan"
		fi
		dir=$RESULTS/tests/$name
		mkdir -p "$dir"
		: >"$dir/notes"
		t=$(test_timeout "$path")
		start=$SECONDS
		echo "$t" >"$dir/started"
		sync

		dmesg -C
		kmemleak_start
		if ! vrnic_load >"$dir/out" 2>&1; then
			echo "module load failed" >>"$dir/notes"
			dmesg >"$dir/dmesg"
			vrnic_teardown >>"$dir/notes" 2>&1
			echo 1 >"$dir/rc"
			log "[$n/$total] $name: module load failed"
			continue
		fi

		echo "$((SECONDS - start))" >"$dir/load-seconds"
		run_one "$path" "$dir" "$t"
		rc=$?
		echo "$((SECONDS - start))" >"$dir/run-seconds"
		[[ $rc -eq 124 || $rc -eq 137 ]] && echo "timed out after ${t}s" >>"$dir/notes"
		vrnic_teardown >>"$dir/notes" 2>&1 || echo "teardown failed" >>"$dir/notes"
		if ! dmesg_check >"$dir/dmesg-bad"; then
			echo "kernel reported problems (see dmesg)" >>"$dir/notes"
		fi
		dmesg >"$dir/dmesg"
		echo "$((SECONDS - start))" >"$dir/seconds"
		echo "$rc" >"$dir/rc"
		sync
		notes=$(paste -sd';' "$dir/notes")
		log "[$n/$total] $name: exit $rc, $((SECONDS - start))s${notes:+, $notes}"
	done
	return 0
}

# Run a command with vrnic loaded; afterwards unload it and scan dmesg.
# Status: the command's, or 99 if it succeeded but the kernel complained.
mode_run() {
	local rc note=

	dmesg -C
	kmemleak_start
	if [[ ${VRNIC_VM_LOAD:-1} != 0 ]] && ! vrnic_load; then
		dmesg | tail -n 20
		echo "vrnic could not be loaded" >"$RESULTS/run.note"
		return 1
	fi
	cd "${VRNIC_CWD:-/}" 2>/dev/null || cd / || return 1
	"$@"
	rc=$?
	if ! vrnic_teardown >"$RESULTS/teardown.log" 2>&1; then
		note="unloading vrnic failed: $(cat "$RESULTS/teardown.log")"
	fi
	if ! dmesg_check >"$RESULTS/dmesg-bad"; then
		note+="${note:+; }kernel reported problems: $(head -n 3 "$RESULTS/dmesg-bad" | tr '\n' ' ')"
	fi
	dmesg >"$RESULTS/dmesg"
	if [[ -n $note ]]; then
		echo "$note" >"$RESULTS/run.note"
		[[ $rc -eq 0 ]] && rc=99
	fi
	return "$rc"
}

# A kernel whose modules are not installed on the host (the debug
# kernel): its module tree, at its host path, becomes /lib/modules/$KVER
# in the overlay, before anything runs modprobe or installs a module there
# (a test's preboot under systemd).
link_moddir() {
	if [[ -n ${VRNIC_VM_MODDIR:-} && ! -e /lib/modules/$(uname -r) ]]; then
		ln -s "$VRNIC_VM_MODDIR" "/lib/modules/$(uname -r)"
	fi
}

mode_init() {
	local rc

	# shellcheck source=/dev/null
	. "$RESULTS/job.env"
	link_moddir
	setup_env
	export VRNIC_KO VRNIC_REPO VRNIC_TEST_TIMEOUT KTAP_VERBOSE RESULTS
	export PATH=$PATH:$VRNIC_REPO/build/cmake/ctl
	export VRNIC_IN_VM=1
	cut -d' ' -f1 /proc/uptime >"$RESULTS/boot-seconds"
	# vm.sh enabled the work item trace event at boot: until a test
	# lifts it, a filter drops every record; empty what came before.
	# shellcheck source=selftests/lib/wq_trace.sh
	. "$VRNIC_REPO/selftests/lib/wq_trace.sh"
	wq_trace_idle
	echo >"$WQ_TRACING/trace" 2>/dev/null

	# ttyS1 is the host's stdout; no line-ending translation.
	stty -F /dev/ttyS1 raw -echo 2>/dev/null
	exec >/dev/ttyS1 2>&1

	case $VRNIC_MODE in
	check)
		mode_check "${VRNIC_ARGS[@]}"
		rc=$?
		;;
	run)
		mode_run "${VRNIC_ARGS[@]}"
		rc=$?
		;;
	demo | bench)
		mode_run "$VRNIC_REPO/selftests/$VRNIC_MODE.sh" "${VRNIC_ARGS[@]}"
		rc=$?
		;;
	*)
		echo "guest: unknown mode $VRNIC_MODE"
		rc=2
		;;
	esac
	echo "$rc" >"$RESULTS/run.rc"
	sync
	# The last close of ttyS1 waits until the UART has sent everything.
	exec >/dev/console 2>&1
	echo o >/proc/sysrq-trigger
	# PID 1 must not exit before the power-off lands, and the host root
	# may already be gone: wait with builtins only.
	while :; do
		read -r -t 60 _ </dev/ttyS0
	done
}

# Before systemd starts (chrooted into the overlay by the initramfs): boot
# as a fresh server does, with none of the units the host enabled; run
# "guest.sh init" as a unit once the boot is under way; let each test
# install what it needs at boot ("TEST preboot", output on the console).
mode_systemd_setup() {
	local unit=/etc/systemd/system/vrnic-vm.service w line path

	# shellcheck source=/dev/null
	. "$RESULTS/job.env"
	export VRNIC_KO VRNIC_REPO VRNIC_VM_INIT RESULTS
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	link_moddir
	[[ -e /dev/fd ]] || ln -s /proc/self/fd /dev/fd
	for w in /etc/systemd/system/*.wants/*; do
		[[ -L $w ]] && rm -f "$w"
	done
	# Applying tmpfiles.d to the 9p-backed root takes over a minute
	# under TCG; nothing the tests use needs it.
	ln -sf /dev/null /etc/systemd/system/systemd-tmpfiles-setup.service
	cat >"$unit" <<-EOF
		[Unit]
		Description=vrnic VM job (selftests/vm/guest.sh)

		[Service]
		Type=simple
		ExecStart=/bin/bash ${BASH_SOURCE[0]} init
		StandardOutput=journal+console

		[Install]
		WantedBy=multi-user.target
	EOF
	mkdir -p /etc/systemd/system/multi-user.target.wants
	ln -sf "$unit" /etc/systemd/system/multi-user.target.wants/
	[[ $VRNIC_MODE == check ]] || return 0
	while IFS= read -r line; do
		path=${line#*$'\t'}
		echo "guest: ${path##*/} preboot"
		"$path" preboot || return 1
	done < <(list_tests "${VRNIC_ARGS[@]}")
}

main() {
	local cmd=${1:-}

	shift
	case $cmd in
	init) mode_init ;;
	systemd-setup) mode_systemd_setup ;;
	check) mode_check "$@" ;;
	run) mode_run "$@" ;;
	*)
		echo "usage: guest.sh {init|check [TEST...]|run CMD...}" >&2
		return 2
		;;
	esac
}

# One line: bash has read all of it before the (long) run starts, so the
# file may change meanwhile.
main "$@"; exit $?
