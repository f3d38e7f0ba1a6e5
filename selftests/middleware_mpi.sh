#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VRNIC_TIMEOUT=1500
#
# middleware_mpi: the MPI stack over vrnic between two "hosts" (namespaces
# A and B over a veth pair, vrnic0 and vrnic1), as an admin would set it
# up, with no setting beyond what docs/admin-guide.md lists:
#  - UCX (UCX_NET_DEVICES=vrnicN:1, UCX_IB_GID_INDEX of the IPv4 RoCE v2
#    GID, UCX_TLS=rc_verbs,ud_verbs: rc_verbs carries the data and UCX sets
#    up its connections over ud_verbs, no other transport will do, "no
#    auxiliary transport" with tcp): ucx_perftest tag_lat and tag_bw.
#    ud_verbs needs the IPv4/IPv6 flag of UD completions in wc.sl (kmod/cq.c);
#  - libfabric reliable datagrams (ofi_rxm over verbs, what MPI uses):
#    fi_pingpong -e rdm, whose fi_enable() opens a CQ of 256 Ki entries
#    (max_cqe, kmod/params.h);
#  - Open MPI, one rank per namespace (the second rank's daemon started
#    through a plm_rsh_agent that enters the other namespace), a ping-pong
#    that checks every byte: with pml ucx (UCX as above) and with pml cm +
#    mtl ofi ("verbs;ofi_rxm").
# The port counters are printed at the end.
# qperf and libfabric's msg endpoints are in middleware.sh.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "$0")/lib/ktap.sh"

ktap_header
ktap_require_vm
ktap_require_cmd ip rdma timeout ucx_perftest ucx_info fi_pingpong mpirun

T=$(mktemp -d /tmp/middleware_mpi.XXXXXX)
chmod 755 "$T"
defer rm -rf "$T"

veth_setup || ktap_bail "no veth pair"
run_stage "vrnic0 over $IF_A" in_a rdma link add vrnic0 type vrnic netdev "$IF_A" ||
	ktap_bail "no device"
defer rdma link delete vrnic0
run_stage "vrnic1 over $IF_B" in_b rdma link add vrnic1 type vrnic netdev "$IF_B" ||
	ktap_bail "no device"
defer rdma link delete vrnic1
wait_for 20 roce_gid_index vrnic0 "$IP_A" >/dev/null
wait_for 20 roce_gid_index vrnic1 "$IP_B" >/dev/null
gid_a=$(roce_gid_index vrnic0 "$IP_A") || ktap_bail "no IPv4 GID on vrnic0"
gid_b=$(roce_gid_index vrnic1 "$IP_B") || ktap_bail "no IPv4 GID on vrnic1"

# server NAME PORT CMD...: start CMD in namespace A in the background and
# wait until it listens on TCP PORT; its output goes to $T/NAME.srv.
server() {
	local name=$1 port=$2
	shift 2
	in_a timeout 300 "$@" >"$T/$name.srv" 2>&1 &
	echo $! >"$T/$name.pid"
	wait_for 60 tcp_listening "$NS_A" "$port"
}
server_done() {
	wait "$(cat "$T/$1.pid")"
}
show_srv() {
	sed 's/^/# server: /' "$T/$1.srv"
}

# --- UCX ---
expect_output "ucx_info lists vrnic0:1 with rc_verbs and ud_verbs" 'Transport: ud_verbs' \
	env UCX_NET_DEVICES=vrnic0:1 ucx_info -d
ucxa=(env UCX_NET_DEVICES=vrnic0:1 UCX_IB_GID_INDEX="$gid_a" UCX_TLS=rc_verbs,ud_verbs)
ucxb=(env UCX_NET_DEVICES=vrnic1:1 UCX_IB_GID_INDEX="$gid_b" UCX_TLS=rc_verbs,ud_verbs
	UCX_LOG_LEVEL=info)
for t in tag_lat tag_bw; do
	in_a timeout 300 "${ucxa[@]}" ucx_perftest -p 13337 >"$T/$t.srv" 2>&1 &
	pid=$!
	wait_for 60 tcp_listening "$NS_A" 13337
	expect_output "ucx_perftest $t" 'Final:' \
		in_b timeout 180 "${ucxb[@]}" ucx_perftest -p 13337 -t "$t" -n 2000 -s 4096 "$IP_A" ||
		sed 's/^/# server: /' "$T/$t.srv"
	cp "$KTAP_OUT" "$T/$t.out"
	expect_output "ucx_perftest $t: tag lane is rc_verbs on vrnic1:1" \
		'tag\(rc_verbs/vrnic1:1' cat "$T/$t.out"
	expect_ok "ucx_perftest $t server finished" wait "$pid"
done

# --- libfabric reliable datagrams ---
# Reliable datagram endpoints (what MPI uses): verbs under ofi_rxm.
server fi_rdm 47592 env FI_PROVIDER="verbs;ofi_rxm" fi_pingpong -p "verbs;ofi_rxm" -e rdm -d vrnic0 -I 100 -S 4096
expect_output "fi_pingpong -p 'verbs;ofi_rxm' -e rdm (4 KiB)" '^4k +' \
	in_b timeout 120 env FI_PROVIDER="verbs;ofi_rxm" fi_pingpong -p "verbs;ofi_rxm" -e rdm -d vrnic1 \
	-I 100 -S 4096 "$IP_A" || show_srv fi_rdm
expect_ok "fi_pingpong rdm server finished" server_done fi_rdm

# --- Open MPI ---
# The ping-pong (selftests/mpi/pingpong.c), built by make with mpicc.
PINGPONG=${PINGPONG:-$(cd "$(dirname "$0")/.." && pwd)/build/selftests/mpi/pingpong}
[[ -x $PINGPONG ]] || ktap_bail "no $PINGPONG (make selftests)"
# Two hosts: A and B, each with its own name (UTS namespace) and
# /etc/hosts entry; mpirun runs on A and starts B's orted through
# this agent instead of ssh.
cp /etc/hosts "$T/hosts.orig"
defer cp "$T/hosts.orig" /etc/hosts
printf '%s hosta\n%s hostb\n' "$IP_A" "$IP_B" >>/etc/hosts
cat >"$T/agent" <<EOF
#!/bin/sh
# plm_rsh_agent: "agent HOST CMD..." runs CMD in HOST's namespace.
host=\$1
shift
case \$host in hosta) ns=$NS_A ;; hostb) ns=$NS_B ;; *) exit 1 ;; esac
exec ip netns exec "\$ns" unshare --uts sh -c "hostname \$host; \$*"
EOF
# What each host sets for itself (e.g. in /etc/environment).
cat >"$T/rank" <<EOF
#!/bin/sh
case \$(hostname) in
hosta) UCX_NET_DEVICES=vrnic0:1 UCX_IB_GID_INDEX=$gid_a FI_VERBS_DEVICE_NAME=vrnic0 ;;
hostb) UCX_NET_DEVICES=vrnic1:1 UCX_IB_GID_INDEX=$gid_b FI_VERBS_DEVICE_NAME=vrnic1 ;;
esac
export UCX_NET_DEVICES UCX_IB_GID_INDEX FI_VERBS_DEVICE_NAME
exec "\$@"
EOF
chmod 755 "$T/agent" "$T/rank"
mpi=(mpirun --allow-run-as-root -np 2 --host hosta,hostb
	--mca plm_rsh_agent "$T/agent" --mca plm_rsh_no_tree_spawn 1
	--mca oob_tcp_if_include "${IP_A%.*}.0/24" --mca btl ^openib,tcp,vader)
expect_output "mpirun -np 2 across hosts, pml ucx: ping-pong correct" '0 bad bytes' \
	in_a unshare --uts sh -c 'hostname hosta; exec "$@"' sh timeout 300 "${mpi[@]}" \
	--mca pml ucx --mca osc ucx -x UCX_TLS=rc_verbs,ud_verbs "$T/rank" "$PINGPONG"
expect_output "mpirun -np 2 across hosts, mtl ofi (verbs;ofi_rxm): ping-pong correct" '0 bad bytes' \
	in_a unshare --uts sh -c 'hostname hosta; exec "$@"' sh timeout 300 "${mpi[@]}" \
	--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include "verbs;ofi_rxm" \
	"$T/rank" "$PINGPONG"

for d in vrnic0 vrnic1; do
	rdma statistic show link "$d/1" | tr ' ' '\n' | paste -d' ' - - | grep -v ' 0$' |
		sed "s/^/# $d: /"
done
ktap_finish
