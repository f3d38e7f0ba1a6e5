# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# dp_lib.sh - shared helpers of the data path shell tests (dp_*.sh).
#
# Sourced, not run.  Prints KTAP, builds two "hosts" joined by a veth pair
# and creates RoCE devices on them with `rdma link add`, runs client/server
# pairs with timeouts.  All addresses are private ones that exist only on
# the veths created here; no traffic leaves the machine.
#
# Environment:
#   DP_LINK_TYPE  device type under test (default vrnic; rxe to validate the
#                 tests against rdma_rxe)
#   DP_TIMEOUT    seconds allowed per command (default 90 times
#                 VRNIC_TEST_TIMEOUT_FACTOR; TCG is slow)
#   DP_KEEP_LOGS  keep the per-command logs in $DP_LOG after the run
#
# Placement: a driver that serves netdevs in any network namespace (vrnic)
# gets one namespace per host.  rdma_rxe on 6.1 opens its UDP socket and
# routes only in init_net, so its devices stay in init_net; when both hosts
# are in init_net, policy routing forces the traffic between the two local
# addresses over the veth instead of the loopback device.

DP_LINK_TYPE=${DP_LINK_TYPE:-vrnic}
# A slower kernel (the debug kernel: VRNIC_TEST_TIMEOUT_FACTOR 4) gives
# every transfer as many times longer, as the runner does each file.
DP_FACTOR=${VRNIC_TEST_TIMEOUT_FACTOR:-1}
DP_TIMEOUT=${DP_TIMEOUT:-$((90 * DP_FACTOR))}
DP_ID=${DP_ID:-$(($$ % 1000))}
DP_LOG=${DP_LOG:-$(mktemp -d /tmp/dp.XXXXXX)}
DP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2034 # used by the scripts sourcing this file
DP_REPO=$(cd "$DP_DIR/.." && pwd)
# shellcheck source=selftests/lib/ktap.sh
. "$DP_DIR/lib/ktap.sh"

DP_ADDR_A=10.77.0.1
DP_ADDR_B=10.77.0.2
DP_ADDR_C=10.77.1.1

# ---- KTAP ----

dp_begin() {
	ktap_header
	echo "# $(basename "$0"): DP_LINK_TYPE=$DP_LINK_TYPE logs in $DP_LOG"
}

# Print a file's tail as KTAP comments.
dp_tail() {
	[[ -s $1 ]] || return 0
	echo "# --- $(basename "$1") ---"
	# The harness's SKIP/OK chatter would push the failure out of view.
	grep -v -E '^ok [0-9]+ .*# SKIP|^#  +(RUN|SKIP|OK) ' "$1" |
		tail -n "${2:-15}" | sed 's/^/#   /'
}

# Known deviations of rdma_rxe on 6.1 (the bar vrnic has to beat): when the
# device type is rxe, a failing test named in $DP_KNOWN_RXE is reported as
# SKIP with the reason; for any other device type the test must pass.
declare -A DP_KNOWN_RXE=()

dp_known_rxe() {
	DP_KNOWN_RXE[$1]=$2
}

# dp_report NAME RC [REASON]: report the outcome of a test.
dp_report() {
	local name=$1 rc=$2 reason=${3:-}

	if [[ $rc -eq 0 ]]; then
		tap_result ok "$name"
	elif [[ $DP_LINK_TYPE == rxe && -n ${DP_KNOWN_RXE[$name]:-} ]]; then
		tap_result skip "$name" "known rdma_rxe issue: ${DP_KNOWN_RXE[$name]}"
	else
		tap_result fail "$name" "$reason"
	fi
}

# ---- cleanup ----
#
# On lib/ktap.sh's list (defer): dp_defer takes one string, evaluated at
# cleanup; dp_cleanup runs the list (last first) and removes the logs.

dp_defer() {
	defer eval "$*"
}

dp_cleanup() {
	ktap_cleanup
	[[ -n ${DP_KEEP_LOGS:-} ]] || rm -rf "$DP_LOG"
}

# ---- requirements ----

dp_require() {
	local c

	[[ $(id -u) -eq 0 ]] || ktap_skip_all "must run as root"
	for c in ip rdma timeout "$@"; do
		command -v "$c" >/dev/null || ktap_skip_all "$c not installed"
	done
}

# Can driver $1 serve a netdev outside init_net?
dp_netns_capable() {
	case $1 in
	rxe) return 1 ;;	# 6.1: UDP socket and route lookups in init_net only
	*) return 0 ;;
	esac
}

# Make sure the driver of link type $1 is present.
dp_load() {
	case $1 in
	rxe)
		modprobe rdma_rxe 2>/dev/null
		[[ -d /sys/module/rdma_rxe ]]
		;;
	vrnic)
		[[ -d /sys/module/vrnic ]] && return 0
		if [[ -n ${VRNIC_KO:-} && -f $VRNIC_KO ]]; then
			insmod "$VRNIC_KO"
		else
			modprobe vrnic 2>/dev/null
		fi
		[[ -d /sys/module/vrnic ]]
		;;
	*)
		modprobe "rdma-link-$1" 2>/dev/null
		return 0
		;;
	esac
}

# ---- hosts ----

# Hosts are named A and B (and C, the loopback device, living with A).
# DP_NS[h] is the network namespace of host h ("" = init_net).
declare -A DP_NS=() DP_DEV=() DP_IF=() DP_ADDR=() DP_TYPE=()

# dp_in HOST CMD...: run CMD in HOST's network namespace.
dp_in() {
	local h=$1

	shift
	in_ns "${DP_NS[$h]}" "$@"
}

# dp_gid_index DEV ADDR: print the index of the RoCE v2 GID of ADDR on port
# 1, waiting up to 30s for the GID table to be populated.
dp_gid_index() {
	roce_gid_wait "$1" "$2" 30
}

# dp_port_active DEV: wait up to 30s for port 1 to become ACTIVE.
dp_port_active() {
	local end=$((SECONDS + 30))

	until [[ $(<"/sys/class/infiniband/$1/ports/1/state") == *ACTIVE* ]] 2>/dev/null; do
		[[ $SECONDS -lt $end ]] || return 1
		sleep 0.2
	done
}

# dp_add_dev HOST TYPE NAME IF: rdma link add in HOST's namespace.
dp_add_dev() {
	local h=$1 type=$2 name=$3 ifname=$4

	dp_in "$h" rdma link add "$name" type "$type" netdev "$ifname" || return 1
	dp_defer "rdma link delete $name"
	DP_DEV[$h]=$name
	DP_TYPE[$h]=$type
	dp_port_active "$name"
}

# Route traffic between two local addresses over the veth (both hosts in
# init_net): locally generated packets to B leave through A's veth and vice
# versa; the local table moves behind these rules; the receiving veth
# accepts packets with a local source address.
dp_force_veth_routing() {
	local ta=$((1000 + DP_ID)) tb=$((2000 + DP_ID)) i

	for i in all default "${DP_IF[A]}" "${DP_IF[B]}"; do
		sysctl -qw "net.ipv4.conf.$i.rp_filter=0"
		sysctl -qw "net.ipv4.conf.$i.accept_local=1"
	done
	if ip rule show pref 0 | grep -q 'lookup local'; then
		ip rule add pref 1000 lookup local
		ip rule del pref 0 lookup local
		dp_defer "ip rule add pref 0 lookup local; ip rule del pref 1000 lookup local"
	fi
	ip route add "$DP_ADDR_B" dev "${DP_IF[A]}" src "$DP_ADDR_A" table "$ta"
	ip route add "$DP_ADDR_A" dev "${DP_IF[B]}" src "$DP_ADDR_B" table "$tb"
	ip rule add pref 100 iif lo to "$DP_ADDR_B" lookup "$ta"
	ip rule add pref 101 iif lo to "$DP_ADDR_A" lookup "$tb"
	dp_defer "ip rule del pref 100; ip rule del pref 101; ip route flush table $ta; ip route flush table $tb"
	ip neigh replace "$DP_ADDR_B" dev "${DP_IF[A]}" nud permanent \
		lladdr "$(cat "/sys/class/net/${DP_IF[B]}/address")"
	ip neigh replace "$DP_ADDR_A" dev "${DP_IF[B]}" nud permanent \
		lladdr "$(cat "/sys/class/net/${DP_IF[A]}/address")"
}

# dp_topology TYPE_A TYPE_B [loopback]: hosts A (10.77.0.1) and B
# (10.77.0.2) on a veth pair, a device of TYPE_A on A's end and of TYPE_B on
# B's; with "loopback", a third device of TYPE_A (C, 10.77.1.1) on its own
# veth in A's namespace for same-device tests.  Devices: DP_DEV[A|B|C], GID
# indexes: DP_GIDX[A|B|C].
declare -A DP_GIDX=()

dp_topology() {
	local ta=$1 tb=$2 lo=${3:-} h

	DP_IF[A]=dpv${DP_ID}a
	DP_IF[B]=dpv${DP_ID}b
	DP_ADDR[A]=$DP_ADDR_A
	DP_ADDR[B]=$DP_ADDR_B
	DP_NS[A]=
	DP_NS[B]=
	dp_netns_capable "$ta" && DP_NS[A]=dp${DP_ID}a
	dp_netns_capable "$tb" && DP_NS[B]=dp${DP_ID}b

	# IPv6 too, for the tests that run both families (GID by family).
	# shellcheck disable=SC2034 # veth_setup's parameters (lib/ktap.sh)
	{
		NS_A=${DP_NS[A]} NS_B=${DP_NS[B]} IF_A=${DP_IF[A]} IF_B=${DP_IF[B]}
		IP_A=${DP_ADDR[A]} IP_B=${DP_ADDR[B]} IP6_A=fd77::a IP6_B=fd77::b
		VETH_MTU=9000
	}
	veth_setup || return 1
	[[ -z ${DP_NS[A]} && -z ${DP_NS[B]} ]] && dp_force_veth_routing

	dp_add_dev A "$ta" "dp${DP_ID}a_$ta" "${DP_IF[A]}" || return 1
	dp_add_dev B "$tb" "dp${DP_ID}b_$tb" "${DP_IF[B]}" || return 1

	if [[ $lo == loopback ]]; then
		DP_NS[C]=${DP_NS[A]}
		DP_IF[C]=dpv${DP_ID}c
		DP_ADDR[C]=$DP_ADDR_C
		ip link add "${DP_IF[C]}" mtu 9000 type veth peer name "dpv${DP_ID}d" || return 1
		dp_defer "ip link delete dpv${DP_ID}d"
		ip link set "dpv${DP_ID}d" up
		[[ -n ${DP_NS[C]} ]] && ip link set "${DP_IF[C]}" netns "${DP_NS[C]}"
		dp_in C ip addr add "$DP_ADDR_C/24" dev "${DP_IF[C]}" || return 1
		dp_in C ip link set "${DP_IF[C]}" up || return 1
		dp_add_dev C "$ta" "dp${DP_ID}c_$ta" "${DP_IF[C]}" || return 1
	fi

	for h in A B ${lo:+C}; do
		DP_GIDX[$h]=$(dp_gid_index "${DP_DEV[$h]}" "${DP_ADDR[$h]}") || {
			ktap_comment "no RoCE v2 GID for ${DP_ADDR[$h]} on ${DP_DEV[$h]}"
			return 1
		}
		ktap_comment "host $h: ns ${DP_NS[$h]:-init_net} dev ${DP_DEV[$h]} (${DP_TYPE[$h]}) if ${DP_IF[$h]} ${DP_ADDR[$h]} gid index ${DP_GIDX[$h]}"
	done
}

# ---- running client/server pairs ----

# dp_wait_tcp HOST PORT PID: wait until HOST listens on TCP PORT (or PID,
# the server, died).
dp_wait_tcp() {
	local end=$((SECONDS + DP_TIMEOUT))

	until dp_in "$1" ss -Hltn "sport = :$2" 2>/dev/null | grep -q .; do
		kill -0 "$3" 2>/dev/null || return 1
		[[ $SECONDS -lt $end ]] || return 1
		sleep 0.2
	done
}

# dp_wait_cm PORT PID: wait until an rdma_cm ID listens on PORT.
dp_wait_cm() {
	local end=$((SECONDS + DP_TIMEOUT))

	until rdma resource show cm_id 2>/dev/null | grep -q "src-addr [^ ]*:$1 .*LISTEN\|LISTEN.*src-addr [^ ]*:$1 "; do
		kill -0 "$2" 2>/dev/null || return 1
		[[ $SECONDS -lt $end ]] || return 1
		sleep 0.2
	done
}

# dp_wait_log FILE PATTERN PID: wait until FILE has a line matching
# PATTERN (a server announcing it is ready).
dp_wait_log() {
	local end=$((SECONDS + DP_TIMEOUT))

	until grep -q -- "$2" "$1" 2>/dev/null; do
		kill -0 "$3" 2>/dev/null || return 1
		[[ $SECONDS -lt $end ]] || return 1
		sleep 0.2
	done
}

DP_PORT=18600

dp_next_port() {
	DP_PORT=$((DP_PORT + 1))
}

# dp_stall_watch FILE: shortly before a pair's timeout kills it (and its
# QPs with it), write every QP's transport state (rdma resource -dd: the
# PSNs, window and timers a stalled vrnic QP waits on) to FILE.  Killed
# when the pair ends in time.
dp_stall_watch() {
	local delay=$((DP_TIMEOUT > 20 ? DP_TIMEOUT - 10 : DP_TIMEOUT / 2))

	# No orphaned sleep when the pair ends first: wait is interruptible.
	sleep "$delay" &
	trap 'kill $! 2>/dev/null; exit 0' TERM
	wait $!
	{
		echo "the QPs ${delay}s after the start:"
		rdma -dd resource show qp
	} >"$1" 2>&1
}

# dp_pair NAME WAIT SRV_HOST SRV_CMD CLI_HOST CLI_CMD
#   Run SRV_CMD in SRV_HOST, wait for it (WAIT: "tcp" on $DP_PORT, "cm" on
#   $DP_PORT, or a number of seconds), run CLI_CMD in CLI_HOST; both must
#   exit 0 within $DP_TIMEOUT.  Reports NAME.
#
#   On a lossy link a pair without a closing handshake (ibv_rc_pingpong)
#   can fail after one side finished: that side destroys its QP as soon
#   as its last message arrives, and if the ACK it sent for the other
#   side's last message is lost, the other side's retries reach no QP
#   (rdma_rxe retries forever with retry_cnt 7, vrnic ends with a retry
#   error).  Either side can finish first.  With DP_CLOSE_RACE set to what
#   a side prints when it finished (the pair's own output, e.g. "iters
#   in"), that one outcome, one side exit 0 with that line and the other
#   failed, is run again once, and the second run's result counts.
dp_pair() {
	local name=$1 wait=$2 sh=$3 scmd=$4 ch=$5 ccmd=$6
	local log=$DP_LOG/${name//\//_} spid wpid src crc why t0=$SECONDS try

	for try in 1 2; do
		src=0 crc=0 why=''
		dp_in "$sh" timeout -k 5 "$DP_TIMEOUT" bash -c "$scmd" >"$log.server" 2>&1 &
		spid=$!
		case $wait in
		tcp) dp_wait_tcp "$sh" "$DP_PORT" "$spid" ;;
		cm) dp_wait_cm "$DP_PORT" "$spid" ;;
		log:*) dp_wait_log "$log.server" "${wait#log:}" "$spid" ;;
		*) sleep "$wait" ;;
		esac
		dp_stall_watch "$log.stall" &
		wpid=$!
		dp_in "$ch" timeout -k 5 "$DP_TIMEOUT" bash -c "$ccmd" >"$log.client" 2>&1 || crc=$?
		wait "$spid" || src=$?
		kill "$wpid" 2>/dev/null
		wait "$wpid" 2>/dev/null
		[[ $crc -ne 0 || $src -ne 0 ]] || break
		why="client exit $crc, server exit $src"
		[[ $crc -eq 124 || $src -eq 124 ]] && why+=" (124: timed out after ${DP_TIMEOUT}s)"
		echo "# $name: \$ $scmd"
		dp_tail "$log.server"
		echo "# $name: \$ $ccmd"
		dp_tail "$log.client"
		dp_tail "$log.stall" 60
		[[ $try == 1 && -n ${DP_CLOSE_RACE:-} ]] || break
		if [[ $crc -eq 0 ]] && grep -q -- "$DP_CLOSE_RACE" "$log.client"; then
			ktap_comment "$name: the client finished, the server did not: its last ACK lost after the client closed (see dp_pair); once more"
		elif [[ $src -eq 0 ]] && grep -q -- "$DP_CLOSE_RACE" "$log.server"; then
			ktap_comment "$name: the server finished, the client did not: its last ACK lost after the server closed (see dp_pair); once more"
		else
			break
		fi
	done
	ktap_comment "$name: $((SECONDS - t0))s"
	dp_report "$name" $(( crc || src )) "$why"
	dp_next_port
	[[ -z $why ]]
}

# dp_one NAME HOST CMD: a single command that must exit 0.
dp_one() {
	local name=$1 h=$2 cmd=$3 log=$DP_LOG/${1//\//_} rc=0

	dp_in "$h" timeout -k 5 "$DP_TIMEOUT" bash -c "$cmd" >"$log" 2>&1 || rc=$?
	if [[ $rc -ne 0 ]]; then
		echo "# $name: \$ $cmd"
		dp_tail "$log"
	fi
	dp_report "$name" "$rc" "exit $rc"
	return "$rc"
}

# ---- the stock applications, as client/server pairs ----

DP_ITERS=${DP_ITERS:-50}	# pingpong exchanges
DP_PITERS=${DP_PITERS:-100}	# perftest iterations

# Is test $1 selected by $DP_FILTER (a substring)?
dp_want() {
	[[ -z ${DP_FILTER:-} || $1 == *"$DP_FILTER"* ]]
}

# pingpong NAME PROG EXTRA SRV CLI
pingpong() {
	local name=$1 prog=$2 extra=$3 s=$4 c=$5

	dp_want "$name" || return 0
	dp_pair "$name" tcp "$s" \
		"$prog -d ${DP_DEV[$s]} -g ${DP_GIDX[$s]} -p $DP_PORT $extra" \
		"$c" \
		"$prog -d ${DP_DEV[$c]} -g ${DP_GIDX[$c]} -p $DP_PORT $extra ${DP_ADDR[$s]}"
}

# perf NAME PROG EXTRA SRV CLI
perf() {
	local name=$1 prog=$2 extra=$3 s=$4 c=$5

	dp_want "$name" || return 0
	dp_pair "$name" tcp "$s" \
		"$prog -d ${DP_DEV[$s]} -x ${DP_GIDX[$s]} -p $DP_PORT -F $extra" \
		"$c" \
		"$prog -d ${DP_DEV[$c]} -x ${DP_GIDX[$c]} -p $DP_PORT -F $extra ${DP_ADDR[$s]}"
}

rping_pair() {
	local name=$1 s=$2 c=$3

	dp_want "$name" || return 0
	dp_pair "$name" cm "$s" \
		"rping -s -v -V -a ${DP_ADDR[$s]} -p $DP_PORT -C 20 -S 200" \
		"$c" \
		"rping -c -v -V -a ${DP_ADDR[$s]} -I ${DP_ADDR[$c]} -p $DP_PORT -C 20 -S 200"
}

udaddy_pair() {
	local name=$1 s=$2 c=$3 port=$DP_PORT

	dp_want "$name" || return 0
	# udaddy always uses port 7174
	DP_PORT=7174
	dp_pair "$name" cm "$s" "udaddy -b ${DP_ADDR[$s]} -C 10" \
		"$c" "udaddy -s ${DP_ADDR[$s]} -b ${DP_ADDR[$c]} -C 10"
	DP_PORT=$port
}

# mckey_pair NAME RCV SND GROUP: rdma_cm UD multicast.  RCV joins GROUP
# (an IPv4 multicast address) and waits for DP_ITERS messages; SND joins
# once RCV has (librdmacm attaches the QP before it reports the join; the
# report is line-buffered to reach the log at once) and sends them to the
# group.
mckey_pair() {
	local name=$1 r=$2 s=$3 group=$4

	dp_want "$name" || return 0
	dp_pair "$name" "log:^mckey: joined" "$r" \
		"stdbuf -oL mckey -m $group -b ${DP_ADDR[$r]} -C $DP_ITERS" \
		"$s" "mckey -m $group -b ${DP_ADDR[$s]} -s -C $DP_ITERS"
}

cmsample_pair() {
	local name=$1 s=$2 c=$3

	dp_want "$name" || return 0
	dp_pair "$name" cm "$s" "rdma_server -s ${DP_ADDR[$s]} -p $DP_PORT" \
		"$c" "rdma_client -s ${DP_ADDR[$s]} -p $DP_PORT"
}

# ---- running groups of tests concurrently ----
#
# TCG makes every process start slow; independent groups (other ports,
# other devices or directions) overlap well.  dp_spawn runs a group in a
# background subshell with its own numbering; dp_join waits for it and
# re-emits its results in the parent's numbering.

declare -A DP_GROUP_PID=()

# dp_spawn NAME PORT_BASE CMD...
dp_spawn() {
	local name=$1 base=$2

	shift 2
	(
		TAP_N=0 TAP_PASS=0 TAP_FAIL=0 TAP_SKIP=0 DP_PORT=$base
		"$@"
	) >"$DP_LOG/group.$name" 2>&1 &
	DP_GROUP_PID[$name]=$!
}

dp_join() {
	wait "${DP_GROUP_PID[$1]}"
	tap_relay "" <"$DP_LOG/group.$1"
}

# ---- counters ----

# dp_counter DEV NAME: value of hw counter NAME on port 1 (0 if absent).
dp_counter() {
	local f=/sys/class/infiniband/$1/ports/1/hw_counters/$2

	if [[ -r $f ]]; then
		cat "$f"
	else
		rdma statistic show link "$1/1" 2>/dev/null |
			grep -Eo "(^| )$2 [0-9]+" | awk '{ print $2 }' | head -n 1 | grep . || echo 0
	fi
}

# Names of the hw counters that count retransmissions by the requester,
# per driver (summed).
dp_retx_counters() {
	case $1 in
	rxe) echo completer_retry_err ;;	# rxe_comp.c: a retry of the SQ
	vrnic) echo "${DP_VRNIC_RETX_COUNTERS:-retransmits}" ;;
	*) echo retransmits ;;
	esac
}

dp_retx_sum() {
	local dev=$1 type=$2 c sum=0

	for c in $(dp_retx_counters "$type"); do
		sum=$((sum + $(dp_counter "$dev" "$c")))
	done
	echo "$sum"
}

# ---- resources ----

# dp_res_summary DEV: the device's object counts from `rdma resource
# show`, as "pd N cq N qp N cm_id N mr N ctx N ..." (one process: cheap).
dp_res_summary() {
	rdma resource show 2>/dev/null | sed -n "s/^[0-9]*: $1: //p"
}

# dp_res_of SUMMARY TYPE: one count out of a summary.
dp_res_of() {
	grep -Eo "(^| )$2 [0-9]+" <<<"$1" | awk '{ print $2 }'
}
