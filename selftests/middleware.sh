#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VRNIC_TIMEOUT=600
#
# middleware: what users scale out with runs over vrnic between two
# "hosts" (network namespaces joined by a veth pair, vrnic0 in A and
# vrnic1 in B), with the settings docs/admin-guide.md gives:
#  - qperf rc_bw and rc_lat (RC through the RDMA CM: -cm1);
#  - libfabric's verbs provider: fi_info sees the devices, fi_pingpong
#    -p verbs -e msg.
# UCX, libfabric's reliable datagrams (ofi_rxm over verbs) and Open MPI are
# in middleware_mpi.sh.
# Each tool must also report that it really used the vrnic device.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd ip rdma timeout

T=$(mktemp -d /tmp/middleware.XXXXXX)
chmod 755 "$T"
defer rm -rf "$T"

veth_setup || ktap_bail "no veth pair"
run_stage "vrnic0 over $IF_A" in_a rdma link add vrnic0 type vrnic netdev "$IF_A" ||
	ktap_bail "no device"
defer rdma link delete vrnic0
run_stage "vrnic1 over $IF_B" in_b rdma link add vrnic1 type vrnic netdev "$IF_B" ||
	ktap_bail "no device"
defer rdma link delete vrnic1

# server NAME PORT CMD...: start CMD in namespace A in the background and
# wait until it listens on TCP PORT; its output goes to $T/NAME.srv.
server() {
	local name=$1 port=$2
	shift 2
	in_a timeout 300 "$@" >"$T/$name.srv" 2>&1 &
	echo $! >"$T/$name.pid"
	wait_for 60 tcp_listening "$NS_A" "$port"
}
# server_done NAME: the server exited successfully.
server_done() {
	local pid
	pid=$(cat "$T/$1.pid")
	wait "$pid"
}
show_srv() {
	sed 's/^/# server: /' "$T/$1.srv"
}

# --- qperf ---------------------------------------------------------------
if command -v qperf >/dev/null; then
	server qperf 19765 qperf --listen_port 19765
	expect_output "qperf rc_bw vrnic1 -> vrnic0" 'bw *= *[0-9.]+ [KMG]B/sec' \
		in_b timeout 120 qperf -cm1 -lp 19765 -li vrnic1:1 -ri vrnic0:1 -t 3 "$IP_A" rc_bw
	expect_output "qperf rc_lat" 'latency *= *[0-9.]+ [mun]s' \
		in_b timeout 120 qperf -cm1 -lp 19765 -li vrnic1:1 -ri vrnic0:1 -t 3 "$IP_A" rc_lat
	# The qperf server runs until killed: it is all that runs in A now.
	# shellcheck disable=SC2046 # one PID per word
	kill $(ip netns pids "$NS_A") 2>/dev/null
else
	ktap_skip "qperf rc_bw" "qperf not installed"
	ktap_skip "qperf rc_lat" "qperf not installed"
fi

# --- libfabric verbs provider ---------------------------------------------
if command -v fi_pingpong >/dev/null; then
	expect_output "fi_info: the verbs provider sees vrnic0" 'domain: vrnic0' \
		fi_info -p verbs -t FI_EP_MSG
	server fi_pingpong 47592 env FI_PROVIDER=verbs fi_pingpong -p verbs -e msg -d vrnic0 -I 100 -S 4096
	expect_output "fi_pingpong -p verbs -e msg (4 KiB)" '^4k +' \
		in_b timeout 120 env FI_PROVIDER=verbs fi_pingpong -p verbs -e msg -d vrnic1 -I 100 -S 4096 \
		"$IP_A" || show_srv fi_pingpong
	expect_ok "fi_pingpong server finished" server_done fi_pingpong
else
	ktap_skip "fi_pingpong" "libfabric-bin not installed"
fi

# All of it went through the two vrnic ports.
expect_output "vrnic0 counted the traffic" 'rx_packets [1-9][0-9]{3,}' \
	rdma statistic show link vrnic0/1
ktap_finish
