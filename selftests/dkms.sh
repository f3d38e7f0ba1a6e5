#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# VRNIC_TIMEOUT=300
#
# dkms: the DKMS package works.  "make check" runs "make dkms-stage" on the
# host: dkms add + build (the recipe "make dkms-install" uses) and dkms
# install into a staging copy of this kernel's module tree, indexed by
# depmod (build/dkms/root; doing that here, over 9p under TCG, takes many
# minutes).  Here the installed files go into the guest's /lib/modules (a
# throw-away overlay) and a plain "modprobe vrnic" must load the DKMS
# build and create a working device.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd dkms modprobe modinfo

repo=${VRNIC_REPO:-$(cd "$(dirname "$0")/.." && pwd)}
kver=$(uname -r)
stage=$repo/build/dkms
version=$(awk 'NR == 1 { gsub(/[()]/, "", $2); sub(/-.*/, "", $2); print $2; exit }' "$repo/debian/changelog")
root=$stage/root/lib/modules/$kver

[[ -f $root/updates/dkms/vrnic.ko ]] ||
	ktap_skip_all "no staged DKMS install: run 'make dkms-stage' first"

opts=(--dkmstree "$stage/tree" --sourcetree "$stage/src" --installtree "$stage/root/lib/modules")
expect_output "dkms status: vrnic $version installed for $kver" \
	"vrnic/$version.*$kver.*installed" dkms status vrnic "${opts[@]}"
expect_output "depmod resolved its dependencies" \
	'^updates/dkms/vrnic.ko:.*ib_uverbs.*ib_core' grep '^updates/dkms/vrnic' "$root/modules.dep"

install_staged() {
	mkdir -p "/lib/modules/$kver/updates/dkms" &&
	cp "$root/updates/dkms/vrnic.ko" "/lib/modules/$kver/updates/dkms/" &&
	cp "$root"/modules.*.bin "$root/modules.dep" "$root/modules.alias" \
		"$root/modules.symbols" "/lib/modules/$kver/"
}
run_stage "DKMS module installed into /lib/modules/$kver" install_staged ||
	ktap_bail "cannot install"
expect_output "modinfo finds the DKMS module" 'updates/dkms/vrnic.ko' \
	modinfo -n vrnic

expect_output "modprobe resolves vrnic to the DKMS file" \
	'insmod .*/updates/dkms/vrnic.ko' modprobe --show-depends vrnic
rmmod vrnic 2>/dev/null
run_stage "modprobe vrnic loads it with its dependencies" modprobe vrnic
expect_output "rdma link type vrnic autoloads by alias" 'rdma-link-vrnic' \
	modinfo -F alias vrnic
ip link add dk0 type dummy && ip link set dk0 up
defer ip link delete dk0
run_stage "rdma link add on the DKMS module" \
	rdma link add vrnic0 type vrnic netdev dk0
expect_output "ibv_devinfo opens it" 'PORT_ACTIVE' ibv_devinfo -d vrnic0
run_stage "rdma link delete" rdma link delete vrnic0
ktap_finish
