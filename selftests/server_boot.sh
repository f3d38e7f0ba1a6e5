#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VRNIC_VM_INIT=systemd
# VRNIC_TIMEOUT=600
#
# server_boot: the boot-time configuration under a real systemd.  The guest
# boots with systemd as PID 1 (vm.sh VRNIC_VM_INIT=systemd; make check runs
# this file in a boot of its own).  Before that boot, "server_boot.sh
# preboot" installs vrnic as a server admin would: the module as "dkms
# install" puts it (make dkms-stage's result), "make install"'s files
# (rdmactl, the units, the udev rule, under /usr/local), the boot unit
# enabled, a dummy netdev that exists at boot (dummy0) and
# /etc/vrnic/vrnic.json with one device over dummy0 and one over late0,
# which does not exist yet.  Then, with the boot finished:
#
#  - vrnic-config.service ran at boot and succeeded; the kernel loaded the
#    installed module by itself (rdma link add); vrnic0 exists over dummy0
#    with every setting of the file, and applying the file again would
#    change nothing;
#  - late0 appears: udev starts vrnic-config@late0.service, which creates
#    vrnic1 with its settings; late0 goes (vrnic1 with it) and comes back:
#    vrnic1 is back;
#  - a broken file: the unit fails, the journal names FILE:LINE:COLUMN and
#    the key, nothing changed, the system is "degraded", not down, and the
#    per-netdev unit fails the same way for a new netdev;
#  - the file fixed: the unit succeeds again.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

repo=${VRNIC_REPO:-$(cd "$(dirname "$0")/.." && pwd)}
conf=/etc/vrnic/vrnic.json

good_conf() {
	cat <<'EOF'
{
  "version": 1,
  "devices": [
    {
      "dev_name": "vrnic0",
      "netdev": "dummy0",
      "limits": {"max_qp": 77, "max_mr_size": 1099511627776},
      "qos": {"trust": "dscp", "tclass": 106, "pfc_en": [3], "ecn_en": [3]},
      "dcqcn": {"rpg_ai_rate": 7, "cnp_dscp": 48}
    },
    {
      "dev_name": "vrnic1",
      "netdev": "late0",
      "limits": {"max_cq": 99}
    }
  ]
}
EOF
}

# The DKMS build of this tree, installed into a staging root by "make
# dkms-stage" (on the host: depmod over the whole module tree takes minutes
# under TCG); preboot copies in what "dkms install" writes.
stage=$repo/build/dkms/root/lib/modules/$(uname -r)

# Chrooted into the guest's overlay before systemd starts (guest.sh
# systemd-setup); output goes to the console log.
preboot() {
	local mods

	[[ -f $stage/updates/dkms/vrnic.ko ]] || return 0	# the test skips
	mods=/lib/modules/$(uname -r)
	set -e
	install -D -m 0644 "$stage/updates/dkms/vrnic.ko" "$mods/updates/dkms/vrnic.ko"
	cp "$stage"/modules.*.bin "$stage/modules.dep" "$stage/modules.alias" \
		"$stage/modules.symbols" "$mods/"
	cmake --install "$repo/build/cmake" >/dev/null
	systemctl enable vrnic-config.service
	echo dummy >/etc/modules-load.d/vrnic-test.conf
	echo "options dummy numdummies=1" >/etc/modprobe.d/vrnic-test.conf
	mkdir -p /etc/vrnic
	good_conf >"$conf"
}

if [[ ${1:-} == preboot ]]; then
	preboot
	exit
fi

ktap_header
ktap_require_vm
[[ -d /run/systemd/system ]] ||
	ktap_skip_all "needs systemd as PID 1: VRNIC_VM_INIT=systemd selftests/vm/vm.sh check ${0##*/}"
ktap_require_cmd systemctl journalctl rdma rdmactl udevadm
[[ -f $stage/updates/dkms/vrnic.ko ]] ||
	ktap_skip_all "no staged DKMS install: run 'make dkms-stage' first"

T=$(mktemp -d /tmp/server_boot.XXXXXX)
defer rm -rf "$T"

# Everything the configuration can change.
state() {
	rdma link show
	rdmactl -j config dump
}

# unit_is UNIT ActiveState Result: what systemd says about UNIT.
unit_is() {
	[[ $(systemctl show -p ActiveState --value "$1") == "$2" &&
		$(systemctl show -p Result --value "$1") == "$3" ]]
}

# is-system-running exits 1 for any state but "running".
system_state() {
	systemctl is-system-running || true
}

unit_note() {
	ktap_comment "$1: $(systemctl show -p ActiveState,Result,ExecMainStatus "$1" | paste -sd' ')"
	journalctl -b -q -o cat -u "$1" | tail -n 8 | sed 's/^/#   /'
}

sysstate=$(timeout 300 systemctl is-system-running --wait)
ktap_comment "system state after boot: $sysstate"
systemctl --failed --no-legend --plain | sed 's/^/#   failed: /'
ktap_result "the boot finished" "$([[ $sysstate == running || $sysstate == degraded ]]; echo $?)"

# 1. At boot.
unit="vrnic-config.service"
if unit_is "$unit" active success; then
	ktap_ok "$unit ran at boot and succeeded"
else
	unit_note "$unit"
	ktap_fail "$unit ran at boot and succeeded"
fi
expect_output "the boot unit ran rdmactl apply on $conf" \
	"rdmactl apply -f $conf" systemctl show -p ExecStart --value "$unit"
expect_output "modprobe finds the DKMS-installed module" \
	"^/lib/modules/$(uname -r)/updates/dkms/vrnic.ko\$" modinfo -n vrnic
expect_output "the kernel loaded it by itself (rdma link add)" \
	"^$(modinfo -F srcversion vrnic)\$" cat /sys/module/vrnic/srcversion
expect_output "vrnic0 created over dummy0" 'link vrnic0/1 .*netdev dummy0' rdma link show
expect_output "limits applied" '"max_qp":77' rdmactl -j limits show vrnic0
expect_output "qos applied" '"tclass":106' rdmactl -j qos show vrnic0
expect_output "dcqcn applied" '"rpg_ai_rate":7' rdmactl -j dcqcn show vrnic0
expect_output "applying the file again would change nothing" '^\[\]$' \
	rdmactl -j apply -f "$conf" --dry-run
expect_fail "vrnic1 not created: late0 does not exist" rdma link show vrnic1/1

# 2. A netdev that appears later, goes and comes back.
vrnic1_up() {
	rdma link show vrnic1/1 2>/dev/null | grep -q 'netdev late0'
}
vrnic1_gone() {
	! rdma link show vrnic1/1 >/dev/null 2>&1
}
defer ip link delete late0
for round in appears "comes back"; do
	ip link add late0 type dummy
	if wait_for 60 vrnic1_up; then
		ktap_ok "late0 $round: vrnic1 created over it"
	else
		unit_note "vrnic-config@late0.service"
		ktap_fail "late0 $round: vrnic1 created over it"
	fi
	# A oneshot unit without RemainAfterExit is inactive once done.
	expect_ok "late0 $round: udev started vrnic-config@late0.service, which succeeded" \
		wait_for 30 unit_is vrnic-config@late0.service inactive success
	expect_output "late0 $round: vrnic1 limits applied" '"max_cq":99' rdmactl -j limits show vrnic1
	ip link delete late0
	expect_ok "late0 goes: vrnic1 with it" wait_for 30 vrnic1_gone
done

# 3. A broken file: the boot unit fails with FILE:LINE:COLUMN and the key,
#    nothing changes, the rest of the system goes on.
cp "$conf" "$T/good.json"
cat >"$conf" <<'EOF'
{
  "version": 1,
  "devices": [
    {"dev_name": "vrnic0", "netdev": "dummy0",
     "limits": {"max_qp": 5, "max_qpz": 1}}
  ]
}
EOF
state >"$T/before"
expect_fail "broken file: restarting the boot unit fails" systemctl restart "$unit"
expect_ok "broken file: the unit is failed" systemctl is-failed --quiet "$unit"
expect_output "broken file: the journal names the file, line, column and key" \
	"$conf:5:[0-9]+: devices\\[0\\]\\.limits\\.max_qpz: unknown key" \
	journalctl -b -q -o cat -u "$unit"
state >"$T/after"
expect_ok "broken file: nothing changed (max_qp is still 77)" cmp "$T/before" "$T/after"
expect_output "broken file: the system is degraded, not down" '^degraded$' system_state
ip link add late0 type dummy
expect_ok "broken file: the unit of a new netdev fails too" \
	wait_for 30 unit_is vrnic-config@late0.service failed exit-code
expect_output "broken file: its journal names the key" \
	"$conf:5:[0-9]+: devices\\[0\\]\\.limits\\.max_qpz: unknown key" \
	journalctl -b -q -o cat -u vrnic-config@late0.service
expect_ok "broken file: no vrnic1" vrnic1_gone
ip link delete late0

# 4. Fixed: the unit succeeds again.
cp "$T/good.json" "$conf"
systemctl reset-failed
expect_ok "file fixed: the boot unit succeeds" systemctl restart "$unit"
expect_output "file fixed: the system is running" '^running$' system_state

ktap_finish
