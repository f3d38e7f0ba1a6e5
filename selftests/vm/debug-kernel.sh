#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh - build Debian's 6.1 kernel with the memory, locking and
# lockup detectors, build vrnic against it and run the VM selftests on it.
#
#   debug-kernel.sh build    build (or reuse) the kernel, print its paths
#   debug-kernel.sh kmod     build vrnic against it into build/debug-kmod/
#   debug-kernel.sh stage    make dkms-stage for it (server_boot.sh)
#   debug-kernel.sh check [TEST...]
#                            all three, then selftests/check.sh's VM half
#                            on the debug kernel (all tests, each boot as
#                            make check boots them, the stress tests at
#                            full scale)
#   debug-kernel.sh vm ARGS  vm.sh ARGS on the debug kernel (e.g. run -- CMD)
#
# The kernel is linux-source-6.1's tree configured from x86_64 defconfig
# plus selftests/vm/debug-kernel.config.  It lives in build/debug-kernel/
# (override with VRNIC_DEBUG_KERNEL_DIR) and is rebuilt only when the
# fragment, the source tarball or this script's build rules change.  See
# selftests/vm/README.md, "The debug kernel".

set -euo pipefail

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$VM_DIR/../.." && pwd)
KSRC_TAR=${KSRC_TAR:-/usr/src/linux-source-6.1.tar.xz}
FRAGMENT=$VM_DIR/debug-kernel.config
DK=${VRNIC_DEBUG_KERNEL_DIR:-$REPO/build/debug-kernel}
SRC=$DK/src
OBJ=$DK/obj
MODROOT=$DK/mod
KMOD_OUT=${VRNIC_DEBUG_KMOD_DIR:-$REPO/build/debug-kmod}
JOBS=${VRNIC_DEBUG_JOBS:-2}

msg() {
	echo "debug-kernel: $*" >&2
}

die() {
	msg "$*"
	exit 1
}

# Bump when the build steps below change in a way that needs a rebuild.
BUILD_RULES=1

cache_key() {
	{
		echo "rules $BUILD_RULES"
		sha256sum <"$FRAGMENT"
		stat -Lc '%s %Y' "$KSRC_TAR"
		gcc --version | head -n 1
	} | sha256sum | cut -d' ' -f1
}

kernel_release() {
	# Written by the build: before it, ask make.
	cat "$OBJ/include/config/kernel.release" 2>/dev/null ||
		make -s -C "$SRC" O="$OBJ" kernelrelease
}

# Every option the fragment sets must have survived olddefconfig: a
# dependency we missed would otherwise silently drop a detector.
check_config() {
	local line sym want got bad=0

	while read -r line; do
		case $line in
		CONFIG_*=*)
			sym=${line%%=*}
			want=$line
			;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			want=
			;;
		*) continue ;;
		esac
		got=$(grep -E "^$sym=" "$OBJ/.config" || true)
		if [[ $got != "$want" ]]; then
			msg "config: wanted '${want:-$sym unset}', got '${got:-unset}'"
			bad=1
		fi
	done <"$FRAGMENT"
	return "$bad"
}

build_kernel() {
	local key start

	key=$(cache_key)
	if [[ -f $DK/stamp && $(cat "$DK/stamp") == "$key" &&
		-f $OBJ/arch/x86/boot/bzImage ]]; then
		msg "kernel $(kernel_release) is up to date in $DK"
		return 0
	fi
	[[ -r $KSRC_TAR ]] || die "no kernel source $KSRC_TAR (apt-get install linux-source-6.1)"
	rm -f "$DK/stamp"
	mkdir -p "$DK"
	start=$(date +%s)
	if [[ ! -f $SRC/.extracted || $(cat "$SRC/.extracted") != "$(stat -Lc '%s %Y' "$KSRC_TAR")" ]]; then
		msg "extracting $KSRC_TAR"
		rm -rf "$SRC"
		mkdir -p "$SRC"
		tar -xJf "$KSRC_TAR" -C "$SRC" --strip-components=1
		stat -Lc '%s %Y' "$KSRC_TAR" >"$SRC/.extracted"
	fi
	mkdir -p "$OBJ"
	msg "configuring (defconfig + $FRAGMENT)"
	make -s -C "$SRC" O="$OBJ" defconfig >/dev/null
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" "$FRAGMENT" >"$DK/merge.log"
	make -s -C "$SRC" O="$OBJ" olddefconfig
	check_config || die "the config fragment does not apply (see above)"
	msg "building $(kernel_release) with -j$JOBS at nice 19 (log: $DK/build.log)"
	if ! nice -n 19 make -C "$SRC" O="$OBJ" -j"$JOBS" bzImage modules >"$DK/build.log" 2>&1; then
		tail -n 30 "$DK/build.log" >&2
		die "kernel build failed (see $DK/build.log)"
	fi
	rm -rf "$MODROOT"
	make -s -C "$SRC" O="$OBJ" INSTALL_MOD_PATH="$MODROOT" INSTALL_MOD_STRIP=1 \
		DEPMOD=/sbin/depmod modules_install >"$DK/modules_install.log" 2>&1 ||
		die "modules_install failed (see $DK/modules_install.log)"
	# The guest resolves /lib/modules/$KVER to this tree (guest.sh); the
	# build and source links modules_install leaves would dangle there.
	rm -f "$MODROOT/lib/modules/$(kernel_release)/build" "$MODROOT/lib/modules/$(kernel_release)/source"
	echo "$(($(date +%s) - start))" >"$DK/build-seconds"
	echo "$key" >"$DK/stamp"
	msg "kernel $(kernel_release) built in $(cat "$DK/build-seconds")s"
}

# vrnic against the debug kernel, in a copy of kmod/ (and the uapi/ it
# includes) so that kmod/vrnic.ko, built for the installed kernel, stays.
build_kmod() {
	mkdir -p "$KMOD_OUT/kmod" "$KMOD_OUT/uapi"
	rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		--exclude='*.mod*' --exclude='modules.order' --exclude='Module.symvers' \
		"$REPO/kmod/" "$KMOD_OUT/kmod/"
	rsync -a --delete "$REPO/uapi/" "$KMOD_OUT/uapi/"
	make -s -C "$OBJ" M="$KMOD_OUT/kmod" -j"$JOBS" modules ||
		die "vrnic does not build against $(kernel_release)"
	msg "built $KMOD_OUT/kmod/vrnic.ko"
	# dp_hostile's race-widening module, for the same kernel.
	mkdir -p "$KMOD_OUT/widen"
	rsync -a --delete --exclude='*.mod.c' --include='*.c' --include='Kbuild' \
		--exclude='*' "$REPO/selftests/widen/" "$KMOD_OUT/widen/"
	make -s -C "$OBJ" M="$KMOD_OUT/widen" modules ||
		die "selftests/widen does not build against $(kernel_release)"
}

# The DKMS package built and installed for the debug kernel into
# build/dkms/root/lib/modules/$KVER (make dkms-stage), where
# server_boot.sh finds it as it finds the Debian kernel's.
stage_dkms() {
	make -s -C "$REPO" dkms-stage KVER="$(kernel_release)" KDIR="$OBJ" \
		MODTREE="$MODROOT/lib/modules/$(kernel_release)" >"$KMOD_OUT/dkms-stage.log" 2>&1 || {
		tail -n 20 "$KMOD_OUT/dkms-stage.log" >&2
		die "make dkms-stage failed for $(kernel_release)"
	}
	msg "staged the DKMS install for $(kernel_release)"
}

# vm.sh on the debug kernel.  KASAN wants memory (its shadow is an eighth
# of RAM, plus quarantine) and everything runs 2-4 times slower than on
# the Debian kernel: a bigger guest, longer timeouts, lockup detection on,
# and the stress tests at full scale.  acpi=noirq: under KASAN and TCG the
# ACPI interpreter runs so slowly that evaluating the PCI routing method
# (_PRT) hits its 30 s loop timeout once per virtio device (two minutes of
# boot for nothing: virtio uses MSI-X).
vm_env() {
	export VRNIC_VM_APPEND="acpi=noirq ${VRNIC_VM_APPEND:-}"
	export KVER
	KVER=$(kernel_release)
	export VRNIC_VM_KERNEL=$OBJ/arch/x86/boot/bzImage
	export VRNIC_VM_MODROOT=$MODROOT
	export VRNIC_KO=${VRNIC_KO:-$KMOD_OUT/kmod/vrnic.ko}
	export VRNIC_WIDEN_KO=${VRNIC_WIDEN_KO:-$KMOD_OUT/widen/vrnic_widen.ko}
	export VRNIC_VM_MEM=${VRNIC_VM_MEM:-3G}
	export VRNIC_VM_LOCKUP=${VRNIC_VM_LOCKUP:-20}
	export VRNIC_VM_TIMEOUT=${VRNIC_VM_TIMEOUT:-14400}
	export VRNIC_TEST_TIMEOUT_FACTOR=${VRNIC_TEST_TIMEOUT_FACTOR:-4}
	export VRNIC_STRESS_SCALE=${VRNIC_STRESS_SCALE:-100}
	export VRNIC_VM_FAILSLAB_CACHES=${VRNIC_VM_FAILSLAB_CACHES-skbuff_head_cache}
	# Which files need a boot of their own ("# VRNIC_VM_BOOT=own-on-
	# lockdep": check.sh, guest.sh) follows from the kernel's config.
	export VRNIC_VM_LOCKDEP=0
	if grep -qx 'CONFIG_PROVE_LOCKING=y' "$OBJ/.config"; then
		VRNIC_VM_LOCKDEP=1
	fi
}

main() {
	local cmd=${1:-}

	[[ -n $cmd ]] && shift
	case $cmd in
	build)
		build_kernel
		echo "KERNEL=$OBJ/arch/x86/boot/bzImage"
		echo "KVER=$(kernel_release)"
		echo "MODROOT=$MODROOT"
		;;
	kmod)
		build_kernel
		build_kmod
		;;
	stage)
		build_kernel
		mkdir -p "$KMOD_OUT"
		stage_dkms
		;;
	check)
		build_kernel
		build_kmod
		stage_dkms
		vm_env
		VRNIC_CHECK_HOST=0 exec "$REPO/selftests/check.sh" "$@"
		;;
	vm)
		build_kernel
		[[ -n ${VRNIC_KO:-} ]] || build_kmod
		vm_env
		exec "$VM_DIR/vm.sh" "$@"
		;;
	*)
		sed -n '/^#   debug-kernel.sh/,/^#$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
		exit 2
		;;
	esac
}

# One line: bash has read all of it before the (long) run starts, so the
# file may change meanwhile.
main "$@"; exit $?
