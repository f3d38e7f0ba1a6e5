#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VRNIC_TIMEOUT=3600
#
# packages: the Debian packages of "make deb-test" (build/deb: vrnic-dkms and
# rdmactl at the tree's version and at a bumped one) installed, upgraded and
# purged with dpkg in the guest (its root is a throw-away overlay).
#
#  - Without kernel headers for the running kernel (as in a container), the
#    install succeeds and says why there is no module.
#  - Reinstalled with headers, the real postinst has DKMS build and install
#    the module for the guest's kernel, and "modprobe vrnic" loads that
#    file; rdmactl from the package creates a device.  This build, and the
#    upgrade's, run in the guest under TCG: 591 s for the first on an idle
#    2-core host (23 minutes for the whole file), over 25 minutes each on
#    a loaded one, so a full "make check" leaves this file out
#    (selftests/known-failures); run it by name, with a guest timeout
#    above vm.sh check's 2700 s: VRNIC_VM_TIMEOUT=4200.
#  - The upgrade replaces the DKMS tree and module with the new version's.
#  - Purge leaves none of the files "dpkg -L" listed, no DKMS tree and no
#    module file.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd dpkg dkms modprobe modinfo rdma

repo=${VRNIC_REPO:-$(cd "$(dirname "$0")/.." && pwd)}
kver=$(uname -r)
arch=$(dpkg --print-architecture)
v1=$(awk 'NR == 1 { gsub(/[()]/, "", $2); sub(/-.*/, "", $2); print $2; exit }' "$repo/debian/changelog")
v2=$v1+upgrade1
debs=$repo/build/deb
for v in "$v1" "$v2"; do
	for f in "vrnic-dkms_${v}_all.deb" "rdmactl_${v}_${arch}.deb"; do
		[[ -f $debs/$f ]] || ktap_skip_all "no $debs/$f: run 'make deb-test' first"
	done
done
pkgs() {
	echo "$debs/vrnic-dkms_${1}_all.deb $debs/rdmactl_${1}_${arch}.deb"
}

v2re=${v2//+/\\+}
T=$(mktemp -d /tmp/packages.XXXXXX)
defer rm -rf "$T"
# man-db's trigger re-indexes every manual page (over 9p, under TCG: many
# minutes); Debian's own container images switch it off the same way.
if [[ -e /var/lib/man-db/auto-update ]]; then
	rm /var/lib/man-db/auto-update
	defer touch /var/lib/man-db/auto-update
fi
# The module vm.sh loaded is not the packaged one.
rmmod vrnic 2>/dev/null

# 1. No headers for the running kernel: installed anyway, with a message.
build=/lib/modules/$kver/build
mv "$build" "$build.hidden" || ktap_bail "cannot hide $build"
# shellcheck disable=SC2046
expect_output "dpkg -i without kernel headers succeeds and says so" \
	"no vrnic module for the running kernel $kver" dpkg -i $(pkgs "$v1")
mv "$build.hidden" "$build"
expect_output "dkms knows the module (added, not built)" "vrnic/$v1: added" dkms status vrnic
expect_fail "no module file yet" modinfo -k "$kver" -n vrnic

# 2. Reinstalled with headers: DKMS builds and installs it.
start=$SECONDS
# shellcheck disable=SC2046
expect_output "dpkg -i with headers: DKMS builds and installs vrnic" \
	"vrnic is installed for kernel $kver" dpkg -i $(pkgs "$v1")
ktap_comment "install with a DKMS build took $((SECONDS - start)) s"
expect_output "dkms status: installed for $kver" "vrnic/$v1, $kver, .*: installed" dkms status vrnic
expect_output "modinfo finds the DKMS module" "^/lib/modules/$kver/updates/dkms/vrnic\.ko" \
	modinfo -n vrnic
expect_ok "modprobe vrnic" modprobe vrnic
expect_ok "rdmactl's postinst enabled vrnic-config.service" \
	test -L /etc/systemd/system/multi-user.target.wants/vrnic-config.service
ip link add pk0 type dummy && ip link set pk0 up
defer ip link delete pk0
expect_ok "the packaged rdmactl creates a device" /usr/sbin/rdmactl link add vrnic0 netdev pk0
expect_output "rdma sees it over pk0" 'link vrnic0/1 .*netdev pk0' rdma link show
expect_ok "and deletes it" /usr/sbin/rdmactl link del vrnic0
for f in /lib/systemd/system/vrnic-config.service /lib/systemd/system/vrnic-config@.service \
	/lib/udev/rules.d/90-vrnic.rules /usr/share/man/man8/rdmactl.8.gz \
	/usr/share/bash-completion/completions/rdmactl /usr/share/doc/rdmactl/examples/vrnic.json; do
	expect_ok "rdmactl ships $f" test -f "$f"
done
expect_ok "the example configuration is valid" \
	/usr/sbin/rdmactl apply -f /usr/share/doc/rdmactl/examples/vrnic.json --dry-run --netdev nosuch

# 3. Upgrade while the module is loaded: the new version replaces the old
#    in DKMS and on disk; the postinst says a reload is needed.
# shellcheck disable=SC2046
expect_output "dpkg -i of $v2 upgrades and asks for a reload" \
	'a vrnic module is loaded' dpkg -i $(pkgs "$v2")
expect_output "dkms status: only $v2, installed" "^vrnic/$v2re, $kver, .*: installed" dkms status vrnic
expect_fail "no trace of $v1 in dkms status" grep -qF "vrnic/$v1," <(dkms status vrnic)
expect_ok "no DKMS tree of $v1" test ! -e "/var/lib/dkms/vrnic/$v1"
expect_ok "no source of $v1" test ! -e "/usr/src/vrnic-$v1"
rmmod vrnic
expect_ok "modprobe loads the upgraded module" modprobe vrnic
expect_output "it is the $v2 build" "/var/lib/dkms/vrnic/$v2re/" \
	sh -c "cmp /lib/modules/$kver/updates/dkms/vrnic.ko /var/lib/dkms/vrnic/$v2/$kver/*/module/vrnic.ko && echo /var/lib/dkms/vrnic/$v2/"
rmmod vrnic

# 4. Purge: nothing left.
dpkg -L vrnic-dkms rdmactl >"$T/files"
expect_ok "purge both" dpkg -P vrnic-dkms rdmactl
left() {
	local f n=0
	while read -r f; do
		[[ -e $f && ! -d $f ]] || continue
		echo "left behind: $f"
		n=$((n + 1))
	done <"$T/files"
	[[ -e /var/lib/dkms/vrnic ]] && echo "left behind: /var/lib/dkms/vrnic" && n=$((n + 1))
	find "/lib/modules/$kver" -name 'vrnic.ko*' | sed 's/^/left behind: /' | grep . && n=$((n + 1))
	# The unit's enablement (deb-systemd-helper's links and state).
	find /etc/systemd /var/lib/systemd/deb-systemd-helper-enabled -name 'vrnic-config*' 2>/dev/null |
		sed 's/^/left behind: /' | grep . && n=$((n + 1))
	[[ $n -eq 0 ]]
}
expect_ok "no packaged file, DKMS tree or module file is left" left
expect_fail "modinfo no longer finds vrnic" modinfo -k "$kver" -n vrnic
expect_fail "dpkg forgot both" dpkg -s vrnic-dkms rdmactl
ktap_finish
