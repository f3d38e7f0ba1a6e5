# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# stress_lib.sh - shared part of the teardown stress tests (stress_kill.sh,
# stress_unplug.sh).  Sourced, not run.
#
# A round: two vrnic devices on a veth pair whose ends live in namespaces
# of their own (dp_lib.sh's dp_topology), an ib_write_bw pair moving data
# between them, then one teardown while the data moves.  The perftest
# processes run in the initial namespace (their out-of-band exchange goes
# over 127.0.0.1; the RDMA devices are visible in every namespace), so
# that deleting a device's namespace is not held off by a process inside it.
#
# Scale: STRESS_ROUNDS rounds per stage (default VRNIC_STRESS_SCALE: 1 in
# make check, 100 in make check-debug).

# shellcheck source=selftests/dp_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/dp_lib.sh"

ST_ROUNDS=${STRESS_ROUNDS:-${VRNIC_STRESS_SCALE:-1}}
# How long a teardown may take before it counts as blocked: 30 s, times
# the runner's factor for a slower kernel (the debug kernel took more
# than 30 s to remove the devices of a netdev deleted under traffic, and
# removed them with no process killed when given 300 s).
ST_BLOCKED=${STRESS_BLOCKED_SECONDS:-$((30 * ${VRNIC_TEST_TIMEOUT_FACTOR:-1}))}
ST_SRV=
ST_CLI=
ST_IDLE=

# Build the pair of hosts; DP_DEV[A|B], DP_GIDX[A|B], DP_NS[A|B] set.
st_topology() {
	dp_topology vrnic vrnic
}

# Remove what st_topology made (whatever is left of it).
st_untopology() {
	dp_cleanup
	DP_LOG=$(mktemp -d /tmp/stress.XXXXXX)
}

# Owner-less objects only: the device's resource line, without ctx/pd/...
# of processes (the baseline is taken with no process running).
st_res() {
	dp_res_summary "$1"
}

# Start ib_write_bw between A and B (both processes in this namespace)
# and wait until packets flow; beside it, an ibv_rc_pingpong server on A
# that waits for a client that never comes: a user context that is only
# held, by a process that notices nothing when the device fails (perftest
# exits on its first error completion).  Sets ST_SRV, ST_CLI, ST_IDLE:
# the PIDs of the processes holding the contexts themselves (no timeout(1)
# in between, which would die of a SIGKILL alone); the runner's timeout
# bounds them.
st_traffic() {
	local end t0

	dp_next_port
	ibv_rc_pingpong -d "${DP_DEV[A]}" -g "${DP_GIDX[A]}" -p "$DP_PORT" \
		>"$DP_LOG/idle" 2>&1 &
	ST_IDLE=$!
	dp_next_port
	ib_write_bw -d "${DP_DEV[B]}" -x "${DP_GIDX[B]}" \
		-p "$DP_PORT" -F -s 4096 -n 100000000 >"$DP_LOG/srv" 2>&1 &
	ST_SRV=$!
	end=$((SECONDS + DP_TIMEOUT))
	until ss -Hltn "sport = :$DP_PORT" 2>/dev/null | grep -q .; do
		kill -0 "$ST_SRV" 2>/dev/null || break
		[[ $SECONDS -lt $end ]] || break
		sleep 0.2
	done
	ib_write_bw -d "${DP_DEV[A]}" -x "${DP_GIDX[A]}" \
		-p "$DP_PORT" -F -s 4096 -n 100000000 127.0.0.1 >"$DP_LOG/cli" 2>&1 &
	ST_CLI=$!
	end=$((SECONDS + DP_TIMEOUT))
	while [[ $SECONDS -lt $end ]]; do
		t0=$(dp_counter "${DP_DEV[A]}" tx_packets)
		sleep 0.5
		[[ $(dp_counter "${DP_DEV[A]}" tx_packets) -gt $((t0 + 10)) ]] && return 0
		kill -0 "$ST_CLI" 2>/dev/null || break
	done
	dp_tail "$DP_LOG/srv"
	dp_tail "$DP_LOG/cli"
	return 1
}

# Kill what is left of the traffic pair and reap it.
st_traffic_stop() {
	local pids=()

	[[ -n $ST_CLI ]] && pids+=("$ST_CLI")
	[[ -n $ST_SRV ]] && pids+=("$ST_SRV")
	[[ -n $ST_IDLE ]] && pids+=("$ST_IDLE")
	[[ ${#pids[@]} -gt 0 ]] || return 0
	kill -KILL "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	ST_CLI=
	ST_SRV=
	ST_IDLE=
}

# st_wait SECONDS CMD...: CMD succeeds within SECONDS (polled).
st_wait() {
	local end=$((SECONDS + $1))

	shift
	until "$@"; do
		[[ $SECONDS -lt $end ]] || return 1
		sleep 0.3
	done
}

st_gone() {
	[[ ! -e /sys/class/infiniband/$1 ]]
}

# st_stage NAME FUNC: run FUNC ROUND for ST_ROUNDS rounds; FUNC prints
# why it failed and returns non-zero; the stage reports once, with the
# first failure, and stops at it (one broken round says enough).
st_stage() {
	local name=$1 fn=$2 r t0=$SECONDS why=$DP_LOG.why

	for ((r = 1; r <= ST_ROUNDS; r++)); do
		if ! "$fn" "$r" >"$why" 2>&1; then
			st_traffic_stop
			ktap_comment "$name: round $r of $ST_ROUNDS failed after $((SECONDS - t0))s"
			sed 's/^/# /' "$why"
			tap_result fail "$name" "round $r: $(tail -n 1 "$why")"
			rm -f "$why"
			return 1
		fi
	done
	rm -f "$why"
	ktap_comment "$name: $ST_ROUNDS rounds in $((SECONDS - t0))s"
	tap_result ok "$name"
}
