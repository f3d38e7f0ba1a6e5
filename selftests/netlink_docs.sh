#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netlink_docs.sh - docs/netlink.md's attribute tables say what the module
# does.  The kernel's policy is the one definition of each range
# (kmod/netlink.c, from the uapi/vrnic.h constants); this test reads it back
# (`genl ctrl policy name vrnic`, CTRL_CMD_GETPOLICY) and checks, for the
# limits, QoS and DCQCN nests (lib/netlink_docs.py):
#
#  - every attribute of the policy is in the docs' table and the reverse;
#  - each documented range is the policy's;
#  - each documented numeric default is what a new device reports;
#  - rdmactl's own check of a file (`rdmactl apply`, which validates the
#    whole file before it changes anything) rejects a value just outside
#    the policy's range with the policy's range in its message.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

REPO=$(cd "$(dirname "$0")/.." && pwd)
DOCS=$REPO/docs/netlink.md
PY=$REPO/selftests/lib/netlink_docs.py
DEV=vrnicdoc0
ND=vrnicdoc_nd

ktap_header
ktap_require_vm
ktap_require_cmd genl ip rdma rdmactl python3
T=$(mktemp -d)
defer rm -rf "$T"

run_stage "dummy netdev $ND" ip link add "$ND" type dummy || ktap_bail "no dummy netdev"
defer ip link delete "$ND"
run_stage "$DEV on $ND" rdma link add "$DEV" type vrnic netdev "$ND" || ktap_bail "no device"
defer rdma link delete "$DEV"
run_stage "the kernel's policy (genl ctrl policy name vrnic)" \
	sh -c "genl ctrl policy name vrnic >$T/policy" || ktap_bail "no policy"
mkdir -p "$T/show" "$T/apply"
for obj in limits qos dcqcn; do
	run_stage "rdmactl -j $obj show $DEV" sh -c "rdmactl -j $obj show $DEV >$T/show/$obj.json" ||
		ktap_bail "no $obj"
done

# One file per value: rdmactl reports the first key it rejects.
while read -r obj key val; do
	printf '{"version": 1, "devices": [{"dev_name": "%s", "%s": {"%s": %s}}]}\n' \
		"$DEV" "$obj" "$key" "$val" >"$T/apply/$obj.$key.json"
	rdmactl apply -f "$T/apply/$obj.$key.json" --dry-run >"$T/apply/$obj.$key.err" 2>&1
done < <("${PY_STDLIB[@]}" "$PY" probes "$DOCS" "$T/policy")

tap_relay "" < <("${PY_STDLIB[@]}" "$PY" check "$DOCS" "$T/policy" "$T/show" "$T/apply" 2>&1)
# Three nests, each with at least its range checks.
[[ $TAP_RELAY_SEEN -ge 40 ]] ||
	ktap_fail "the checker judged every attribute" "$TAP_RELAY_SEEN verdicts"
ktap_finish
