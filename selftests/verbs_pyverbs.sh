#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# VRNIC_TIMEOUT=900
#
# verbs_pyverbs.sh - rdma-core's own verbs regression suite (pyverbs, the
# one the RDMA maintainers run against every provider), in one boot against
# a vrnic device and against an rdma_rxe device.
#
# The suite comes from Debian's rdma-core package (python3-pyverbs runs it);
# `make pyverbs-tests` unpacks it into build/pyverbs/tests.  vrnic sits on
# a netdev in its own network namespace and the suite runs in that
# namespace; rdma_rxe (6.1: init_net only, and it binds UDP 4791 there)
# sits on another in init_net.  The netdevs are the guest's two virtio-net
# NICs (vm.sh): the suite's rdma_cm tests run only on a device with a
# parent that lists the netdev (/sys/class/infiniband/X/device/net/), as a
# hardware RNIC has; without them, the two ends of a veth pair, on which
# those tests skip.  Each run's counts
# (run/pass/fail/error/skip) are printed; any failure or error on vrnic
# fails the test, rxe's are reported (they are the bar, not ours to fix).
# The groups vrnic skips, and why, are listed in docs/conformance.md.
#
# Environment: PYVERBS_TESTS (default build/pyverbs/tests), PYVERBS_FILTER
# (unittest -k patterns, space separated, to run a subset),
# PYVERBS_TIMEOUT (seconds per run, default 400; a run takes about 40 s
# under TCG).
#
# Each run names its GID index (--gid): the one the suite would pick
# itself, the device's first GID whose interface ID is not zero.  Left to
# pick, it reads every GID and runs `ls` and `ip addr` once per GID
# before every test (tests/base.py): 0.5 s a test in a TCG guest, about
# 60 s of a run's 105 s on virtio-net NICs.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

REPO=$(cd "$(dirname "$0")/.." && pwd)
SUITE=${PYVERBS_TESTS:-$REPO/build/pyverbs/tests}
NS=pyv_ns
IF_V=pyv_v
IF_R=pyv_r
DEV_V=pyv_vrnic
DEV_R=pyv_rxe

ktap_header
ktap_require_vm
ktap_require_cmd rdma ip python3
[[ -f $SUITE/run_tests.py ]] || ktap_skip_all "no suite at $SUITE (make pyverbs-tests)"
python3 -c 'import pyverbs' 2>/dev/null || ktap_skip_all "python3-pyverbs not installed"

# wait_port DEV: port 1 ACTIVE.
wait_port() {
	[[ $(cat "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null) == *ACTIVE* ]]
}

# first_gid DEV: the index of port 1's first GID that the suite would
# use: the lowest whose last 64 bits are not zero (base.py's ZERO_GID).
# suite_start calls it once the GID of the netdev's address is there.
first_gid() {
	local dir=/sys/class/infiniband/$1/ports/1/gids i g
	local -a all=("$dir"/*)

	for ((i = 0; i < ${#all[@]}; i++)); do
		read -r g <"$dir/$i" 2>/dev/null || continue
		[[ ${g: -19} == 0000:0000:0000:0000 ]] && continue
		echo "$i"
		return 0
	done
	return 1
}

# nic_setup: vrnic's NIC ($IF_V) into $NS and rxe's ($IF_R) in init_net,
# each with an address; fails unless the guest has two virtio-net NICs.
nic_setup() {
	local -a nics=()
	local n

	modprobe virtio_net 2>/dev/null
	for n in /sys/class/net/*; do
		[[ -e $n/device && $(cat "$n/type") == 1 && ! -e $n/master ]] &&
			nics+=("${n##*/}")
	done
	[[ ${#nics[@]} -ge 2 ]] || return 1
	IF_V=${nics[0]} IF_R=${nics[1]}
	ip netns add "$NS" || return 1
	defer ip netns delete "$NS"	# gives the NIC back to init_net
	ip link set "$IF_V" netns "$NS" &&
	ip -n "$NS" link set lo up &&
	ip -n "$NS" addr add 10.78.1.2/24 dev "$IF_V" &&
	ip -n "$NS" link set "$IF_V" up &&
	ip addr add 10.78.2.1/24 dev "$IF_R" &&
	defer ip addr del 10.78.2.1/24 dev "$IF_R" &&
	ip link set "$IF_R" up
}

# Else a veth pair: rxe's end (A) in init_net, vrnic's (B) in $NS.
# ADDR_V, ADDR_R: the IPv4 addresses of vrnic's and rxe's netdevs.
if nic_setup; then
	ktap_comment "vrnic on $IF_V (virtio-net, in $NS), rdma_rxe on $IF_R"
	ADDR_V=10.78.1.2 ADDR_R=10.78.2.1
else
	ktap_comment "no two virtio-net NICs: a veth pair (the rdma_cm tests skip)"
	ADDR_V=10.78.0.2 ADDR_R=10.78.0.1
	NS_A='' NS_B=$NS IF_A=$IF_R IF_B=$IF_V IP_A=$ADDR_R IP_B=$ADDR_V \
		IP6_A=fd00:78::1 IP6_B=fd00:78::2 veth_setup || ktap_bail "no veth pair"
fi

modprobe rdma_rxe 2>/dev/null
run_stage "vrnic device in its namespace" \
	ip netns exec "$NS" rdma link add "$DEV_V" type vrnic netdev "$IF_V" ||
	ktap_bail "no vrnic device"
defer rdma link delete "$DEV_V"
HAVE_RXE=0
if [[ -d /sys/module/rdma_rxe ]] && rdma link add "$DEV_R" type rxe netdev "$IF_R" 2>/dev/null; then
	defer rdma link delete "$DEV_R"
	HAVE_RXE=1
fi
wait_for 30 wait_port "$DEV_V" || ktap_bail "$DEV_V port not active"

# counts FILE: "run pass fail error skip" out of a verbose unittest log.
counts() {
	awk '
	/^Ran [0-9]+ tests? in/ { run = $2 }
	/^(FAILED|OK)/ {
		s = $0
		while (match(s, /(failures|errors|skipped|expected failures|unexpected successes)=[0-9]+/)) {
			kv = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
			split(kv, p, "="); n[p[1]] = p[2]
		}
	}
	END {
		if (run == "") { print "-"; exit }
		f = n["failures"] + n["unexpected successes"]; e = n["errors"]
		k = n["skipped"]
		printf "%d %d %d %d %d\n", run, run - f - e - k - n["expected failures"], f, e, k
	}' "$1"
}

# suite NAME DEV NETNS: run the suite, print its counts; sets PASSED.
# suite_start NAME DEV NS ADDR: run the suite on DEV (in netns NS if not
# empty; ADDR, its netdev's IPv4 address, whose GID fills its table)
# in the background, its output in $LOG_DIR/NAME; suite_report NAME DEV
# waits for it and judges it.  The two suites run side by side: each is
# one Python process, and the guest has two vCPUs.
LOG_DIR=$(mktemp -d /tmp/pyverbs.XXXXXX)
defer rm -rf "$LOG_DIR"
declare -A SUITE_PID=() SUITE_T0=()
suite_start() {
	local name=$1 dev=$2 ns=$3 addr=$4 c gid
	local -a filt=() in=()

	for c in ${PYVERBS_FILTER:-}; do
		filt+=(-k "$c")
	done
	[[ -n $ns ]] && in=(ip netns exec "$ns")
	roce_gid_wait "$dev" "$addr" >/dev/null || ktap_comment "$name: $dev has no GID of $addr"
	gid=$(first_gid "$dev") || gid=0
	ktap_comment "$name: $dev GID $gid $(cat "/sys/class/infiniband/$dev/ports/1/gids/$gid")"
	SUITE_T0[$name]=$SECONDS
	(cd "$SUITE" && "${in[@]}" timeout -k 10 "${PYVERBS_TIMEOUT:-400}" \
		python3 run_tests.py --dev "$dev" --gid "$gid" -v "${filt[@]}") \
		>"$LOG_DIR/$name" 2>&1 &
	SUITE_PID[$name]=$!
}

suite_report() {
	local name=$1 dev=$2 log=$LOG_DIR/$1 c run pass fail err skip t0

	wait "${SUITE_PID[$name]}"
	t0=${SUITE_T0[$name]}
	c=$(counts "$log")
	if [[ $c == - ]]; then
		ktap_comment "$name: the suite did not finish ($((SECONDS - t0)) s)"
		tail -n 30 "$log" | sed 's/^/#   /'
		PASSED=-1
		return 1
	fi
	# The runner's directory for this file (guest.sh: named after it).
	[[ -d ${RESULTS:-}/tests/verbs_pyverbs.sh ]] &&
		cp "$log" "$RESULTS/tests/verbs_pyverbs.sh/pyverbs-$name.log"
	read -r run pass fail err skip <<<"$c"
	PASSED=$pass
	ktap_comment "$name ($dev): run $run pass $pass fail $fail error $err skip $skip ($((SECONDS - t0)) s)"
	grep -E ' \.\.\. (FAIL|ERROR)$' "$log" | sed "s/^/# $name: /"
	grep -E '^(\w+Error|AssertionError|pyverbs\.\w+\.\w+):' "$log" | sort | uniq -c |
		sed "s/^/# $name:   /"
	grep -Eo "skipped '.*'" "$log" | sort | uniq -c | sort -rn | sed "s/^/# $name: /"
	[[ $fail -eq 0 && $err -eq 0 ]]
}

RXE=0
[[ $HAVE_RXE == 1 ]] && wait_for 30 wait_port "$DEV_R" && RXE=1
suite_start vrnic "$DEV_V" "$NS" "$ADDR_V"
[[ $RXE == 1 ]] && suite_start rxe "$DEV_R" "" "$ADDR_R"

suite_report vrnic "$DEV_V"
ktap_result "pyverbs suite on vrnic: no failure, no error" $?
VRNIC_PASSED=$PASSED

if [[ $RXE == 1 ]]; then
	suite_report rxe "$DEV_R"
	if [[ $PASSED -ge 0 ]]; then
		ktap_ok "pyverbs suite on rdma_rxe ran"
		if [[ $VRNIC_PASSED -gt $PASSED ]]; then
			ktap_ok "vrnic passes more of the suite than rdma_rxe ($VRNIC_PASSED > $PASSED)"
		else
			ktap_fail "vrnic passes more of the suite than rdma_rxe" "$VRNIC_PASSED <= $PASSED"
		fi
	else
		ktap_fail "pyverbs suite on rdma_rxe ran"
	fi
else
	ktap_skip "pyverbs suite on rdma_rxe" "rdma_rxe not available"
fi
ktap_finish
