# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2034 # the addresses are for the sourcing scripts
#
# hosts.sh - the two guests of selftests/vm/pair.sh: their addresses on
# the private link between them, bringing it up, and asking the far one
# (B, running lib/bench_peer.py) to run things, among them an NVMe-oF
# target.  Sourced by bench_hosts.sh and interop_hosts.sh.

PEER_IP=10.222.0.1
MAIN_IP=10.222.0.2
PEER_IP6=fd00:222::1
MAIN_IP6=fd00:222::2
# The link NICs' MACs, as selftests/vm/pair.sh gives them.
PEER_MAC=52:54:00:76:72:01
MAIN_MAC=52:54:00:76:72:02
AGENT_PORT=7007

# link_up MAC ADDR ADDR6: the NIC QEMU joined to the other guest (MAC
# $PEER_MAC on B, $MAIN_MAC on A, selftests/vm/vm.sh) addressed and up;
# its name in LINK.
link_up() {
	local mac=$1 d

	LINK=
	modprobe virtio_net
	for _ in $(seq 50); do
		for d in /sys/class/net/*; do
			[[ $(cat "$d/address" 2>/dev/null) == "$mac" ]] && LINK=${d##*/}
		done
		[[ -n $LINK ]] && break
		sleep 0.2
	done
	[[ -n $LINK ]] || { echo "no NIC with MAC $mac: not booted by pair.sh?"; return 1; }
	ip link set dev "$LINK" up &&
	ip addr add "$2/24" dev "$LINK" &&
	ip addr add "$3/64" dev "$LINK" nodad
}

# peer run TIMEOUT CMDLINE | start NAME PORT CMDLINE | wait NAME TIMEOUT |
# quit: one request to B's bench_peer.py (CMDLINE base64-encoded on the
# way); prints its output, returns its status.
peer() {
	local fd line rc=127 req

	case $1 in
	run) req="run $2 $(printf '%s' "$3" | base64 -w0)" ;;
	start) req="start $2 $3 $(printf '%s' "$4" | base64 -w0)" ;;
	*) req=$* ;;
	esac
	exec {fd}<>"/dev/tcp/$PEER_IP/$AGENT_PORT" || return 127
	printf '%s\n' "$req" >&"$fd"
	while IFS= read -r line <&"$fd"; do
		if [[ $line == "@rc "* ]]; then
			rc=${line#@rc }
			break
		fi
		printf '%s\n' "$line"
	done
	exec {fd}>&-
	return "$rc"
}

# peer_serve: be B: the link up, then lib/bench_peer.py serving A until A
# says quit.  Does not return.
peer_serve() {
	link_up "$PEER_MAC" "$PEER_IP" "$PEER_IP6" || exit 1
	echo "peer: $LINK up, serving A on $PEER_IP:$AGENT_PORT"
	exec python3 "$(dirname "${BASH_SOURCE[0]}")/bench_peer.py" "$PEER_IP" "$AGENT_PORT"
}

# peer_link: the name of B's link NIC (asked of B).
peer_link() {
	local p

	p=$(peer run 5 "grep -l $PEER_MAC /sys/class/net/*/address") || return 1
	p=${p%/address}
	echo "${p##*/}"
}

# nvmet_export SETUP DEVICE: on B, SETUP (shell commands that load the
# target's modules and make DEVICE), then DEVICE exported as namespace 1
# of subsystem $NQN to any host.
nvmet_export() {
	peer run 120 "set -e
		$1
		cd /sys/kernel/config/nvmet
		mkdir subsystems/$NQN
		echo 1 >subsystems/$NQN/attr_allow_any_host
		mkdir subsystems/$NQN/namespaces/1
		echo $2 >subsystems/$NQN/namespaces/1/device_path
		echo 1 >subsystems/$NQN/namespaces/1/enable"
}

# nvmet_port ID TRTYPE / nvmet_unport ID: B's port ID, $NQN over TRTYPE
# on $PEER_IP:4420, open or gone.
nvmet_port() {
	peer run 60 "set -e; cd /sys/kernel/config/nvmet/ports; mkdir $1; cd $1
		echo $2 >addr_trtype; echo ipv4 >addr_adrfam
		echo $PEER_IP >addr_traddr; echo 4420 >addr_trsvcid
		ln -s /sys/kernel/config/nvmet/subsystems/$NQN subsystems/$NQN"
}
nvmet_unport() {
	peer run 60 "cd /sys/kernel/config/nvmet/ports && rm -f $1/subsystems/$NQN && rmdir $1"
}
