#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# VRNIC_TIMEOUT=900
#
# dkms: "make dkms-install" builds and installs vrnic for the running
# kernel with DKMS (inside the guest's throw-away overlay), and the
# installed module loads with a plain "modprobe vrnic" and creates a device.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd dkms make modprobe

repo=${VRNIC_REPO:-$(cd "$(dirname "$0")/.." && pwd)}
kver=$(uname -r)

# The checkout is read-only in the guest: build from a copy.
work=$(mktemp -d /tmp/vrnic-dkms.XXXXXX)
defer rm -rf "$work"
cp -a "$repo/Makefile" "$repo/dkms.conf" "$repo/kmod" "$repo/uapi" "$work/"
make -C "$work/kmod" clean >/dev/null 2>&1

run_stage "make dkms-install" make -C "$work" KVER="$kver" dkms-install ||
	ktap_bail "DKMS build failed"
expect_output "dkms status shows vrnic installed" \
	"vrnic/.*$kver.*installed" dkms status vrnic
expect_output "modinfo finds the DKMS module" 'updates/dkms/vrnic.ko' \
	modinfo -n vrnic

rmmod vrnic 2>/dev/null
run_stage "modprobe vrnic loads the DKMS module" modprobe vrnic
ip link add dk0 type dummy && ip link set dk0 up
defer ip link delete dk0
run_stage "rdma link add on the DKMS module" \
	rdma link add vrnic0 type vrnic netdev dk0
expect_output "ibv_devinfo opens it" 'PORT_ACTIVE' ibv_devinfo -d vrnic0
run_stage "rdma link delete" rdma link delete vrnic0
ktap_finish
