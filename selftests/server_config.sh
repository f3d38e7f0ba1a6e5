#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VRNIC_TIMEOUT=600
#
# server_config: the boot-time configuration, /etc/vrnic/vrnic.json, applied
# by the exact commands the systemd units run (their ExecStart lines, read
# from systemd/*.service.in): at "boot" it creates the links whose netdev
# exists and applies every setting, a second run changes nothing, a netdev
# that appears later is picked up by the per-netdev unit (also after it
# went away and came back), "config dump" captures links and settings, the
# udev rule asks systemd for that unit, and every kind of broken file fails
# with FILE:LINE:COLUMN and the key, changing nothing.
#
# This file runs the units' commands directly, for every case of the
# file format; server_boot.sh boots the guest with systemd as PID 1 and
# checks the units themselves (at boot, udev hotplug, a broken file), and
# server_units.sh runs systemd-analyze verify on them.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd ip rdma rdmactl udevadm

repo=${VRNIC_REPO:-$(cd "$(dirname "$0")/.." && pwd)}
conf=/etc/vrnic/vrnic.json
T=$(mktemp -d /tmp/server_config.XXXXXX)
defer rm -rf "$T"
mkdir -p /etc/vrnic
defer rm -rf /etc/vrnic

# The ExecStart= command of a unit, with the installed rdmactl replaced by
# the one under test and %i by $2.
exec_start() {
	sed -n 's/^ExecStart=//p' "$repo/systemd/$1.in" |
		sed "s|@SBINDIR@/rdmactl|rdmactl|; s|%i|${2:-}|g"
}
boot_cmd=$(exec_start vrnic-config.service)
[[ $boot_cmd == "rdmactl apply -f $conf" ]] ||
	ktap_bail "unexpected ExecStart in vrnic-config.service: $boot_cmd"
boot_unit() {
	$boot_cmd
}
netdev_unit() {
	$(exec_start vrnic-config@.service "$1")
}

# Everything the configuration can change.
state() {
	rdma link show
	rdmactl -j config dump
}

for d in sc0 sc1; do
	ip link add "$d" type dummy && ip link set "$d" up
	defer ip link delete "$d"
done
defer rdma link delete vrnic0
defer rdma link delete vrnic1
defer rdma link delete vrnic2

cat >"$conf" <<'EOF'
{
  "version": 1,
  "devices": [
    {
      "dev_name": "vrnic0",
      "netdev": "sc0",
      "limits": {"max_qp": 77, "max_mr_size": 1099511627776},
      "qos": {"trust": "dscp", "tclass": 106, "pfc_en": [3]},
      "dcqcn": {"rpg_ai_rate": 7, "cnp_dscp": 48}
    },
    {
      "dev_name": "vrnic1",
      "netdev": "sclate",
      "limits": {"max_cq": 99}
    }
  ]
}
EOF

# 1. Boot: vrnic0 over sc0 with its settings; vrnic1 waits for sclate.
expect_output "boot unit: exit 0, notes the missing netdev" \
	'vrnic1: netdev sclate does not exist' boot_unit
expect_output "vrnic0 created over sc0" 'link vrnic0/1 .*netdev sc0' rdma link show
expect_output "limits applied" '"max_qp":77' rdmactl -j limits show vrnic0
expect_output "qos applied" '"tclass":106' rdmactl -j qos show vrnic0
expect_output "dcqcn applied" '"rpg_ai_rate":7' rdmactl -j dcqcn show vrnic0
expect_fail "vrnic1 not created yet" rdma link show vrnic1/1

# 2. Idempotent: the same again changes nothing and says nothing.
state >"$T/before"
expect_ok "boot unit again: exit 0" boot_unit
state >"$T/after"
expect_ok "second run changed nothing" cmp "$T/before" "$T/after"
expect_output "dry run lists no change" '^\[\]$' rdmactl -j apply -f "$conf" --dry-run

# 3. config dump captures links and settings; applying it is a no-op.
rdmactl config dump >"$T/dump.json"
expect_output "config dump names the netdev" '"netdev": "sc0"' cat "$T/dump.json"
expect_output "dump applied back: no change" '^\[\]$' rdmactl -j apply -f "$T/dump.json" --dry-run

# 4. A netdev that appears later: its unit creates vrnic1; units for other
#    netdevs do nothing.
state >"$T/before"
expect_ok "unit for an unrelated netdev: exit 0" netdev_unit sc1
state >"$T/after"
expect_ok "unrelated netdev changed nothing" cmp "$T/before" "$T/after"
ip link add sclate type dummy && ip link set sclate up
defer ip link delete sclate
expect_ok "unit for sclate: exit 0" netdev_unit sclate
expect_output "vrnic1 created over sclate" 'link vrnic1/1 .*netdev sclate' rdma link show
expect_output "vrnic1 limits applied" '"max_cq":99' rdmactl -j limits show vrnic1
state >"$T/before"
expect_ok "unit for sclate again: exit 0" netdev_unit sclate
expect_ok "unit for sc0: exit 0" netdev_unit sc0
state >"$T/after"
expect_ok "again: nothing changed" cmp "$T/before" "$T/after"

# The netdev leaves (vrnic1 goes with it) and comes back: picked up again.
ip link delete sclate
wait_for 10 sh -c '! rdma link show vrnic1/1 >/dev/null 2>&1'
ip link add sclate type dummy && ip link set sclate up
expect_ok "netdev back: unit for sclate" netdev_unit sclate
expect_output "vrnic1 back over sclate" 'link vrnic1/1 .*netdev sclate' rdma link show

# 5. The udev rule asks systemd for the per-netdev unit.
mkdir -p /etc/udev/rules.d
cp "$repo/systemd/90-vrnic.rules" /etc/udev/rules.d/
defer rm -f /etc/udev/rules.d/90-vrnic.rules
expect_output "udev rule: SYSTEMD_WANTS=vrnic-config@sclate.service" \
	'SYSTEMD_WANTS=.*vrnic-config@sclate\.service' \
	udevadm test --action=add /sys/class/net/sclate

# 6. Broken files: exit 1, one error naming FILE:LINE:COLUMN and the key,
#    and nothing changed, not even the valid parts (vrnic2 over sc1 is
#    never created).
broken() {
	local name=$1 re=$2 rc=0
	cat >"$conf"
	state >"$T/before"
	boot_unit >"$T/out" 2>&1 || rc=$?
	state >"$T/after"
	if [[ $rc -ne 1 ]]; then
		ktap_fail "$name" "exit status $rc, expected 1"
	elif ! grep -Eq -- "^Error: $conf:$re.*nothing applied\.$" "$T/out"; then
		ktap_fail "$name" "message does not match /$re/"
	elif ! cmp -s "$T/before" "$T/after"; then
		ktap_fail "$name" "state changed"
	else
		ktap_ok "$name"
		return
	fi
	sed 's/^/#   /' "$T/out"
}
good_dev='{"dev_name": "vrnic2", "netdev": "sc1", "limits": {"max_qp": 5}}'
broken "malformed JSON" '4:1: malformed JSON' <<EOF
{
  "version": 1,
  "devices": [$good_dev,
EOF
broken "unknown key" '4:6: devices\[1\]\.max_qp: unknown key' <<EOF
{
  "version": 1,
  "devices": [$good_dev,
    {"max_qp": 1, "dev_name": "vrnic0"}]
}
EOF
broken "wrong type" '5:17: devices\[1\]\.limits\.max_qp: expected an unsigned integer' <<EOF
{
  "version": 1,
  "devices": [$good_dev,
    {"dev_name": "vrnic0",
     "limits": {"max_qp": "many"}}]
}
EOF
broken "out of range" '4:38: devices\[1\]\.dcqcn\.rpg_gd: value 16 out of range 0\.\.15' <<EOF
{
  "version": 1,
  "devices": [$good_dev,
    {"dev_name": "vrnic0", "dcqcn": {"rpg_gd": 16}}]
}
EOF
broken "bad netdev name" '3:37: devices\[1\]\.netdev: expected a network interface name' <<EOF
{"version": 1,
 "devices": [$good_dev,
             {"dev_name": "vrnic0", "netdev": "no/slash"}]}
EOF
broken "device exists over another netdev" '3:37: devices\[1\]\.netdev: RDMA device vrnic0 exists over netdev sc0, not sc1' <<EOF
{"version": 1,
 "devices": [$good_dev,
             {"dev_name": "vrnic0", "netdev": "sc1"}]}
EOF
broken "missing device without netdev" '3:15: devices\[1\]\.dev_name: RDMA device vrnic9 not found' <<EOF
{"version": 1,
 "devices": [$good_dev,
             {"dev_name": "vrnic9"}]}
EOF
# Every "config dump" before prio2tc was removed wrote it; such a saved
# file is refused at the key, which is named as removed.
broken "prio2tc of an old dump (removed)" '5:31: devices\[1\]\.qos\.prio2tc: removed ' <<EOF
{
  "version": 1,
  "devices": [$good_dev,
    {"dev_name": "vrnic0", "netdev": "sc0",
     "qos": {"trust": "dscp", "prio2tc": [0, 1, 2, 3, 4, 5, 6, 7], "tclass": 106}}]
}
EOF
broken "wrong version" '1:2: version: unsupported version 2' <<EOF
{"version": 2, "devices": []}
EOF
expect_fail "vrnic2 was never created" rdma link show vrnic2/1

# The per-netdev unit validates the whole file too, not just its part.
cat >"$conf" <<EOF
{"version": 1, "devices": [$good_dev, {"dev_name": "vrnic0", "bogus": 1}]}
EOF
expect_fail_msg "netdev unit rejects a file broken elsewhere" \
	"$conf:1:[0-9]+: devices\[1\]\.bogus: unknown key" netdev_unit sc1
expect_fail "still no vrnic2" rdma link show vrnic2/1

ktap_finish
