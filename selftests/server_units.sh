#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# server_units: the systemd units and the udev rule of the boot-time
# configuration are valid.  systemd-analyze verify loads each unit as
# systemd would (unknown keys, a missing or non-executable ExecStart
# binary, a Documentation= man page that does not exist, bad dependencies
# fail it); the template is checked through an instance.  udevadm verify
# does not exist in this systemd (252), so the rule is checked by
# "udevadm test" in server_config.sh (VM).  Runs on the host (ctest) and in
# the VM alike: it needs no running systemd.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_cmd systemd-analyze man

repo=${VRNIC_REPO:-$(cd "$(dirname "$0")/.." && pwd)}
rdmactl=${RDMACTL:-$repo/build/cmake/ctl/rdmactl}
[[ -x $rdmactl ]] || ktap_skip_all "no $rdmactl: run 'make cpp' first"

T=$(mktemp -d /tmp/server_units.XXXXXX)
defer rm -rf "$T"
# The units as installed, with the rdmactl under test; the man page the
# units name as their documentation, where man finds it.
for u in vrnic-config.service vrnic-config@.service; do
	sed "s|@SBINDIR@|${rdmactl%/*}|" "$repo/systemd/$u.in" >"$T/$u"
done
ln -s vrnic-config@.service "$T/vrnic-config@eth0.service"
mkdir -p "$T/man/man8"
cp "$repo/ctl/rdmactl.8" "$T/man/man8/"
export MANPATH=$T/man

expect_ok "systemd-analyze verify vrnic-config.service" \
	systemd-analyze verify "$T/vrnic-config.service"
expect_ok "systemd-analyze verify vrnic-config@eth0.service" \
	systemd-analyze verify "$T/vrnic-config@eth0.service"
expect_output "the boot unit runs apply on /etc/vrnic/vrnic.json" \
	"^ExecStart=${rdmactl%/*}/rdmactl apply -f /etc/vrnic/vrnic.json\$" cat "$T/vrnic-config.service"
expect_output "the netdev unit applies only that netdev's devices" \
	'^ExecStart=.*/rdmactl apply -f /etc/vrnic/vrnic.json --netdev %i$' cat "$T/vrnic-config@.service"

# The check can fail: a unit with a typo'd key and no command is refused.
sed 's/^ExecStart=/ExecStrat=/' "$T/vrnic-config.service" >"$T/broken.service"
expect_fail "verify catches a broken unit" systemd-analyze verify "$T/broken.service"
ktap_finish
