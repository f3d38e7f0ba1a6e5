#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VRNIC_TIMEOUT=900
#
# rdmactl_objects: rdmactl driving the vrnic netlink API on a real device.
# Round trips for limits, qos, dcqcn, gids and counters; config dump | apply
# idempotent and atomic; monitor sees a change; and every kind of bad input
# (unknown device or key, out of range, negative, malformed JSON, a non-vrnic
# device, an unprivileged user) fails with one "Error: ..." line on stderr,
# a non-zero exit, and no change to any state.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd ip rdma rdmactl setpriv

T=$(mktemp -d /tmp/rdmactl.XXXXXX)
chmod 755 "$T" # the unprivileged cases read files from here
defer rm -rf "$T"

# Everything rdmactl can change, for before/after comparisons (the GIDs
# follow the addresses).
state() {
	rdmactl -j config dump
	ip -br addr show
}

# bad NAME RC REGEX CMD...: CMD exits with RC, prints nothing on stdout and
# exactly one "Error: ....", matching REGEX, on stderr, and changes nothing.
bad() {
	local name=$1 want=$2 re=$3 rc=0 why=
	local -a err before after
	shift 3

	# Compared with bash builtins: a tool started costs a quarter
	# second in the TCG guest, and there are some 40 cases.
	state >"$T/before" 2>&1
	"$@" >"$T/out" 2>"$T/err" || rc=$?
	state >"$T/after" 2>&1
	mapfile -t err <"$T/err"
	mapfile -t before <"$T/before"
	mapfile -t after <"$T/after"
	if [[ $rc -ne $want ]]; then
		why="exit status $rc, expected $want"
	elif [[ -s $T/out ]]; then
		why="printed on stdout"
	elif [[ ${#err[@]} -ne 1 || ! ${err[0]} =~ ^Error:\ .*\.$ ]]; then
		why="stderr is not one 'Error: ...' line"
	elif [[ ! ${err[0]} =~ $re ]]; then
		why="message does not match /$re/"
	elif [[ "${before[*]}" != "${after[*]}" ]]; then
		why="state changed"
		diff "$T/before" "$T/after" | sed 's/^/#   /'
	fi
	if [[ -z $why ]]; then
		ktap_ok "$name"
		return 0
	fi
	ktap_comment "\$ $*"
	sed 's/^/#   /' "$T/out" "$T/err"
	ktap_fail "$name" "$why"
	return 1
}

# json_has NAME STRING CMD...: CMD's compact JSON output contains STRING.
json_has() {
	local name=$1 s=$2
	shift 2

	ktap_run "$@"
	if grep -qF -- "$s" "$KTAP_OUT"; then
		ktap_ok "$name"
		return 0
	fi
	ktap_comment "\$ $*"
	ktap_dump
	ktap_fail "$name" "output lacks $s"
	return 1
}

ip link add d0 type dummy && ip link set d0 up
defer ip link delete d0
ip link add d1 type dummy && ip link set d1 up
defer ip link delete d1

run_stage "link add vrnic0 netdev d0" rdmactl link add vrnic0 netdev d0 ||
	ktap_bail "cannot create vrnic0"
defer rdma link delete vrnic0
expect_output "dev show lists vrnic0 with driver vrnic" \
	'^vrnic0 +1 +ACTIVE .* d0 .* vrnic$' rdmactl dev show vrnic0
json_has "dev show -j names the port's netdev" '"ndev_name":"d0"' rdmactl -j dev show vrnic0

# --- limits -----------------------------------------------------------------
run_stage "limits set several keys" \
	rdmactl limits set vrnic0 max_qp 16 max_cq 32 max_mr 64 max_pd 8 max_srq 4 max_ah 9 \
	max_qp_wr 128 max_cqe 256 max_sge 4 max_inline_data 64 max_mr_size 1048576 \
	max_qp_rd_atom 2
json_has "limits round trip" \
	'"limits":{"max_qp":16,"max_cq":32,"max_mr":64,"max_pd":8,"max_srq":4,"max_ah":9,"max_qp_wr":128,"max_cqe":256,"max_sge":4,"max_inline_data":64,"max_mr_size":1048576,"max_qp_rd_atom":2}' \
	rdmactl -j limits show vrnic0
expect_output "limits text shows the same value" '^  max_qp +16$' rdmactl limits show vrnic0

# --- dcqcn ------------------------------------------------------------------
run_stage "dcqcn set" rdmactl dcqcn set vrnic0 rpg_time_reset 300 rpg_ai_rate 50 \
	rpg_hai_rate 500 rpg_gd 2 dce_tcp_g 8 min_time_between_cnps 4 cnp_dscp 46
json_has "dcqcn round trip" '"rpg_time_reset":300,' rdmactl -j dcqcn show vrnic0
json_has "dcqcn round trip (u8 key)" '"cnp_dscp":46,' rdmactl -j dcqcn show vrnic0
json_has "dcqcn cnp_dscp is the qos cnp_dscp" '"cnp_dscp":46,' rdmactl -j qos show vrnic0

# --- qos --------------------------------------------------------------------
run_stage "qos set" rdmactl qos set vrnic0 trust dscp pfc 3,4 ecn 3 dscp2prio 46:7 26:1 \
	tclass 104 cnp_prio 5
json_has "qos trust/pfc/ecn round trip" '"trust":"dscp",' rdmactl -j qos show vrnic0
json_has "qos pfc_en" '"pfc_en":[3,4],"ecn_en":[3],"tclass":104,' rdmactl -j qos show vrnic0
ktap_run rdmactl -j qos show vrnic0
if grep -Eq '"dscp2prio":\[([0-9],){26}1,([0-9],){19}7,' "$KTAP_OUT"; then
	ktap_ok "qos map changed only the listed entries"
else
	ktap_dump
	ktap_fail "qos map changed only the listed entries"
fi
if ! grep -q prio2tc "$KTAP_OUT"; then
	ktap_ok "qos show has no prio2tc (removed)"
else
	ktap_dump
	ktap_fail "qos show has no prio2tc (removed)"
fi
json_has "qos cnp_prio is the dcqcn cnp_802p_prio" '"cnp_802p_prio":5' rdmactl -j dcqcn show vrnic0

# --- gids -------------------------------------------------------------------
gid_sysfs_has() {
	grep -qx "$1" /sys/class/infiniband/vrnic0/ports/1/gids/* 2>/dev/null
}
gid_show_has() {
	rdmactl gid show vrnic0 | grep -q "$1"
}
run_stage "gid add 10.9.0.1/24" rdmactl gid add vrnic0 10.9.0.1/24
V4GID=0000:0000:0000:0000:0000:ffff:0a09:0001
expect_ok "gid appears in sysfs" wait_for 10 gid_sysfs_has "$V4GID"
expect_ok "gid show lists it with its address" wait_for 10 gid_show_has "$V4GID .*RoCE v2 .*d0 .*10.9.0.1"
json_has "gid show -j: the IPv4 address of the IPv4-mapped GID" \
	"\"gid\":\"$V4GID\",\"type\":\"RoCE v2\",\"ndev_ifindex\":$(cat /sys/class/net/d0/ifindex),\"ndev_name\":\"d0\",\"ipv4\":\"10.9.0.1\"}" \
	rdmactl -j gid show vrnic0
run_stage "gid add fd00:9::1/64" rdmactl gid add vrnic0 fd00:9::1/64
V6GID=fd00:0009:0000:0000:0000:0000:0000:0001
expect_ok "IPv6 gid appears in sysfs" wait_for 10 gid_sysfs_has "$V6GID"
expect_ok "gid show lists the IPv6 one with its address" \
	wait_for 10 gid_show_has "$V6GID .*RoCE v2 .*d0 .*fd00:9::1"
run_stage "gid del 10.9.0.1/24" rdmactl gid del vrnic0 10.9.0.1/24
gid_gone() { ! gid_sysfs_has "$V4GID"; }
expect_ok "gid leaves sysfs" wait_for 10 gid_gone
gid_show_lacks() {
	local out

	out=$(rdmactl gid show vrnic0) || return 1
	! grep -q "$1" <<<"$out"
}
expect_ok "gid show no longer lists it" gid_show_lacks "$V4GID"
run_stage "gid del fd00:9::1/64" rdmactl gid del vrnic0 fd00:9::1/64

# --- counters ---------------------------------------------------------------
json_has "stats show: port counters" '"dev_name":"vrnic0","port_index":1,"counters":{' \
	rdmactl -j stats show vrnic0
expect_output "stats show qp lists the GSI QP" '^qpn +1$' rdmactl stats show vrnic0 qp
json_has "stats show qp 1" '"qpn":1,"counters":{' rdmactl -j stats show vrnic0 qp 1

# --- config dump | apply ----------------------------------------------------
rdmactl config dump >"$T/cfg.json"
run_stage "config dump | apply" sh -c "rdmactl config dump | rdmactl apply -f -"
expect_ok "apply of the dump is idempotent" sh -c "rdmactl config dump | cmp - $T/cfg.json"
ktap_run rdmactl apply -f "$T/cfg.json" --dry-run
if [[ ! -s $KTAP_OUT ]]; then ktap_ok "dry-run of the dump shows no change"; else
	ktap_dump
	ktap_fail "dry-run of the dump shows no change"
fi
sed -e 's/"max_qp": 16,/"max_qp": 20,/' -e 's/"rpg_gd": 2,/"rpg_gd": 3,/' "$T/cfg.json" >"$T/cfg2.json"
expect_output "dry-run prints the diff" '^vrnic0 limits max_qp: 16 -> 20$' \
	rdmactl apply -f "$T/cfg2.json" --dry-run
expect_ok "dry-run changes nothing" sh -c "rdmactl config dump | cmp - $T/cfg.json"
run_stage "apply a changed file" rdmactl apply -f "$T/cfg2.json"
json_has "apply changed limits" '"max_qp":20,' rdmactl -j limits show vrnic0
json_has "apply changed dcqcn" '"rpg_gd":3,' rdmactl -j dcqcn show vrnic0
run_stage "apply the old file back" rdmactl apply -f "$T/cfg.json"
expect_ok "state restored" sh -c "rdmactl config dump | cmp - $T/cfg.json"

# A second device whose change the kernel rejects (ai above hai passes the
# per-key ranges): the first device's change must be rolled back.
run_stage "link add vrnic1 netdev d1" rdmactl link add vrnic1 netdev d1
defer rdma link delete vrnic1
cat >"$T/partial-fail.json" <<'EOF'
{"version": 1, "devices": [
  {"dev_name": "vrnic0", "limits": {"max_qp": 99}},
  {"dev_name": "vrnic1", "dcqcn": {"rpg_ai_rate": 900, "rpg_hai_rate": 100}}]}
EOF
bad "apply is all or nothing across devices" 1 'vrnic1.*rpg_ai_rate' \
	rdmactl apply -f "$T/partial-fail.json"
run_stage "link del vrnic1" rdmactl link del vrnic1

# --- monitor ----------------------------------------------------------------
rdmactl -j monitor >"$T/mon" 2>&1 &
MON=$!
defer kill "$MON"
sleep 1
run_stage "limits set while monitoring" rdmactl limits set vrnic0 max_ah 77
mon_saw() { grep -q '"dev_name":"vrnic0","limits":{.*"max_ah":77' "$T/mon"; }
expect_ok "monitor prints the change" wait_for 10 mon_saw

# --- bad input --------------------------------------------------------------
bad "unknown device" 1 'of nosuch: no such device' rdmactl limits set nosuch max_qp 1
bad "unknown device (show)" 1 'nosuch' rdmactl qos show nosuch
bad "unknown key" 2 'unknown key "max_bogus"' rdmactl limits set vrnic0 max_bogus 1
bad "unknown dcqcn key" 2 'unknown key' rdmactl dcqcn set vrnic0 rpg_bogus 1
bad "unknown qos key" 2 'unknown key' rdmactl qos set vrnic0 colour blue
# Out of range: the kernel's policy range, named by the key the user typed.
bad "out of range: max_qp 0 (kernel policy)" 1 'max_qp: value out of range 1\.\.[0-9]+\.$' rdmactl limits set vrnic0 max_qp 0
bad "out of range: max_qp above the cap" 1 'max_qp: value out of range 1\.\.' rdmactl limits set vrnic0 max_qp 4000000000
bad "out of range: rpg_gd 16" 1 'rpg_gd: value out of range 0\.\.[0-9]+\.$' rdmactl dcqcn set vrnic0 rpg_gd 16
bad "out of range: dscp 64" 1 'dscp2prio dscp: value out of range 0\.\.' rdmactl qos set vrnic0 dscp2prio 64:1
bad "out of range: prio 8" 1 'dscp2prio prio: value out of range 0\.\.' rdmactl qos set vrnic0 dscp2prio 10:8
bad "out of range: wider than the attribute" 2 'invalid value' rdmactl dcqcn set vrnic0 cnp_dscp 256
bad "negative value" 2 'invalid value "-1"' rdmactl limits set vrnic0 max_qp -1
bad "not a number" 2 'invalid value "lots"' rdmactl limits set vrnic0 max_qp lots
bad "set is atomic: one bad key rejects all" 1 'max_cq: ' rdmactl limits set vrnic0 max_qp 5 max_cq 0
bad "cross-key rule (ai above hai)" 1 'rpg_ai_rate' rdmactl dcqcn set vrnic0 rpg_ai_rate 500 rpg_hai_rate 100
bad "bad trust" 2 'trust' rdmactl qos set vrnic0 trust vlan
bad "qos set prio2tc: removed key" 2 'unknown key "prio2tc"' rdmactl qos set vrnic0 prio2tc 3:1
bad "gid add without prefix" 2 'ADDR/PLEN' rdmactl gid add vrnic0 10.9.0.1
bad "gid add bad address" 2 'not an IPv4 or IPv6' rdmactl gid add vrnic0 10.9.0/24
bad "gid del of an absent address" 1 'delete address' rdmactl gid del vrnic0 10.99.0.1/24
bad "gid add to unknown device" 1 'nosuch' rdmactl gid add nosuch 10.9.0.1/24
bad "stats for unknown device" 1 'nosuch' rdmactl stats show nosuch
bad "stats of an unknown QP" 1 '' rdmactl stats show vrnic0 qp 4242
bad "unknown object" 2 'unknown object "frob"' rdmactl frob
bad "unknown command" 2 'frob' rdmactl limits frob
bad "missing argument" 2 'DEV' rdmactl limits set

echo '{"version": 1, "devices": [{"dev_name": "vrnic0", "limits": {"max_qp": 1' >"$T/trunc.json"
bad "apply: truncated JSON" 1 'trunc.json:[0-9]+:[0-9]+: malformed JSON' rdmactl apply -f "$T/trunc.json"
echo 'not json at all' >"$T/garbage.json"
bad "apply: malformed JSON" 1 'malformed JSON' rdmactl apply -f "$T/garbage.json"
echo '{"version": 1, "devices": [{"limits": {"max_qp": 5}}]}' >"$T/noname.json"
bad "apply: partial (no dev_name)" 1 'dev_name' rdmactl apply -f "$T/noname.json"
echo '{"version": 1, "devices": [{"dev_name": "vrnic0", "limits": {"max_qp": 5, "max_x": 1}}]}' >"$T/unk.json"
bad "apply: unknown key, nothing applied" 1 'limits.max_x: unknown key' rdmactl apply -f "$T/unk.json"
# What "config dump" wrote before prio2tc was removed.
echo '{"version": 1, "devices": [{"dev_name": "vrnic0", "limits": {"max_qp": 5}, "qos": {"prio2tc": [0, 1, 2, 3, 4, 5, 6, 7]}}]}' >"$T/p2tc.json"
bad "apply: prio2tc of an old dump, nothing applied" 1 'p2tc.json:1:[0-9]+: devices\[0\]\.qos\.prio2tc: removed .*delete the key' \
	rdmactl apply -f "$T/p2tc.json"
echo '{"version": 1, "devices": [{"dev_name": "vrnic0", "limits": {"max_qp": 5}, "dcqcn": {"rpg_gd": 99}}]}' >"$T/range.json"
bad "apply: out of range, nothing applied" 1 'dcqcn.rpg_gd: value 99 out of range' rdmactl apply -f "$T/range.json"
echo '{"version": 1, "devices": [{"dev_name": "vrnic0", "limits": {"max_qp": -5}}]}' >"$T/neg.json"
bad "apply: negative" 1 'negative' rdmactl apply -f "$T/neg.json"
echo '{"version": 1, "devices": [{"dev_name": "nosuch", "limits": {"max_qp": 5}}]}' >"$T/nodev.json"
bad "apply: unknown device" 1 'nosuch not found' rdmactl apply -f "$T/nodev.json"
bad "apply: missing file" 1 'cannot read' rdmactl apply -f "$T/does-not-exist.json"

nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}
bad "unprivileged: limits set" 1 'Operation not permitted' nobody rdmactl limits set vrnic0 max_qp 3
bad "unprivileged: qos set" 1 'Operation not permitted' nobody rdmactl qos set vrnic0 tclass 8
bad "unprivileged: dcqcn set" 1 'Operation not permitted' nobody rdmactl dcqcn set vrnic0 rpg_gd 4
bad "unprivileged: apply" 1 'Operation not permitted' nobody rdmactl apply -f "$T/cfg2.json"
bad "unprivileged: gid add" 1 'Operation not permitted' nobody rdmactl gid add vrnic0 10.9.0.1/24
bad "unprivileged: link del" 1 'Operation not permitted' nobody rdmactl link del vrnic0
expect_ok "unprivileged: show still works" nobody rdmactl limits show vrnic0

ktap_finish
