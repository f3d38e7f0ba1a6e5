# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# gid.sh - RoCE v2 GIDs in sysfs, for the shell tests (sourced by ktap.sh
# and dp_lib.sh).  Pure bash: a GID table has up to 1024 entries, and a
# fork per entry takes minutes in a loaded TCG guest.

# gid_of_addr ADDR: the sysfs form of the RoCE v2 GID of an IPv4 address
# (IPv4-mapped) or an IPv6 address, e.g. 0000:...:ffff:0a6f:0001.
gid_of_addr() {
	local addr=$1 head tail x a b c d out=''
	local -a gh=() gl=() g=()

	if [[ $addr != *:* ]]; then
		IFS=. read -r a b c d <<<"$addr"
		printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' \
			"$a" "$b" "$c" "$d"
		return
	fi
	head=$addr tail=''
	if [[ $addr == *::* ]]; then
		head=${addr%%::*}
		tail=${addr#*::}
	fi
	[[ -n $head ]] && IFS=: read -ra gh <<<"$head"
	[[ -n $tail ]] && IFS=: read -ra gl <<<"$tail"
	g=("${gh[@]}")
	for ((x = ${#gh[@]} + ${#gl[@]}; x < 8; x++)); do
		g+=(0)
	done
	g+=("${gl[@]}")
	for x in "${g[@]}"; do
		printf -v x '%04x' "$((16#$x))"
		out+=${out:+:}$x
	done
	echo "$out"
}

# roce_gid_index DEV ADDR: print the index of DEV's RoCE v2 GID of ADDR
# (IPv4 or IPv6, port 1); status 1 if there is none.
roce_gid_index() {
	local dev=$1 want f i g t

	want=$(gid_of_addr "$2")
	for f in /sys/class/infiniband/"$dev"/ports/1/gids/*; do
		i=${f##*/}
		g='' t=''
		read -r g 2>/dev/null <"$f"
		[[ $g == "$want" ]] || continue
		read -r t 2>/dev/null <"/sys/class/infiniband/$dev/ports/1/gid_attrs/types/$i"
		[[ $t == "RoCE v2" ]] || continue
		echo "$i"
		return 0
	done
	return 1
}

# roce_gid_wait DEV ADDR [SECONDS]: roce_gid_index, waiting up to SECONDS
# (default 30) for ib_core to add the GID.
roce_gid_wait() {
	local end=$((SECONDS + ${3:-30}))

	until roce_gid_index "$1" "$2"; do
		[[ $SECONDS -lt $end ]] || return 1
		sleep 0.2
	done
}
