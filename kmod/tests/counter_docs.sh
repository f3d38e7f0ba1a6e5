#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# counter_docs.sh [REPO] - docs/wire.md says what kmod/counters.c's tables
# say: its per-QP table has every entry of vrnic_qp_counters[], each with
# the port counter of vrnic_stat_descs[] it is part of ("none" for a
# state or a count no port counter sums alone) and "(restrack)" where restrack shows it; its list of the port
# counters a bound counter leaves at 0 is exactly the port counters no
# per-QP counter is part of.  A host test (ctest).

set -u
repo=${1:-$(dirname "$0")/../..}
src=$repo/kmod/counters.c
doc=$repo/docs/wire.md
fail=0

bt='`'
complain() {
	echo "counter_docs: $*" >&2
	fail=1
}

flat=$(tr -s ' \t\n' ' ' <"$src")

# Port counters: enum name -> counter name, and all names.
declare -A port
ports=()
while read -r e n; do
	port[$e]=$n
	ports+=("$n")
done < <(grep -oE '\[VRNIC_CNT_[A-Z0-9_]+( \+ [0-9]+)?\]\.name = "[a-z0-9_]+"' <<<"$flat" |
	sed -E 's/^\[([A-Z0-9_]+)( \+ ([0-9]+))?\]\.name = "(.*)"$/\1\3 \4/')
[[ ${#ports[@]} -gt 0 ]] || complain "no port counters found in $src"

# Per-QP entries: name -> "PORT_NAME restrack" (PORT_NAME "none" for a state).
declare -A want
mapped=()
while read -r m n e; do
	r=no
	[[ $m == VRNIC_QP_CC_* || $m == VRNIC_QP_OWN_* ]] && r=yes
	if [[ $m == VRNIC_QP_CC_STATE || $m == VRNIC_QP_OWN_CNT ]]; then
		want[$n]="none $r"
	else
		want[$n]="${port[$e]:-?$e} $r"
		mapped+=("${port[$e]:-?$e}")
	fi
done < <(grep -oE 'VRNIC_QP_(CC_|OWN_)?(CNT|STATE)\("[a-z0-9_]+"(, VRNIC_CNT_[A-Z0-9_]+)?\)' <<<"$flat" |
	sed -E 's/^([A-Z_]+)\("([a-z0-9_]+)"(, ([A-Z0-9_]+))?\)$/\1 \2 \4/')
[[ ${#want[@]} -gt 0 ]] || complain "no per-QP counters found in $src"

# The doc's per-QP table: the rows after its header, up to a blank line.
declare -A got
while IFS='|' read -r _ names ports_col _; do
	mapfile -t a < <(grep -oE "${bt}[a-z0-9_]+${bt}" <<<"$names" | tr -d "$bt")
	mapfile -t b < <(grep -oE "${bt}[a-z0-9_]+${bt}" <<<"$ports_col" | tr -d "$bt")
	r=no
	[[ $names == *"(restrack)"* ]] && r=yes
	for i in "${!a[@]}"; do
		if [[ $ports_col == *none* ]]; then
			got[${a[i]}]="none $r"
		else
			got[${a[i]}]="${b[i]:-} $r"
		fi
	done
done < <(sed -n '/^| Name | Port counter | Meaning |$/,/^$/p' "$doc" | sed '1,2d;/^$/d')

for n in "${!want[@]}"; do
	[[ ${got[$n]:-} == "${want[$n]}" ]] ||
		complain "$n: counters.c says '${want[$n]}' (port counter, restrack), wire.md '${got[$n]:-missing}'"
done
for n in "${!got[@]}"; do
	[[ -n ${want[$n]:-} ]] || complain "$n: in wire.md's per-QP table, not in vrnic_qp_counters[]"
done

# The port counters wire.md says stay 0 in a bound counter (globs allowed).
zero_doc=$(sed -n '/stay 0 in it/,/ib_core adds/p' "$doc" | grep -oE "${bt}[a-z0-9_*]+${bt}" | tr -d "$bt")
[[ -n $zero_doc ]] || complain "no list of the counters that stay 0 in $doc"
for p in "${ports[@]}"; do
	in_doc=no
	for g in $zero_doc; do
		# shellcheck disable=SC2053 # $g is a glob on purpose
		[[ $p == $g ]] && in_doc=yes
	done
	is_mapped=no
	for m in "${mapped[@]}"; do
		[[ $p == "$m" ]] && is_mapped=yes
	done
	if [[ $is_mapped == yes && $in_doc == yes ]]; then
		complain "$p: has a per-QP counter, but wire.md says it stays 0"
	elif [[ $is_mapped == no && $in_doc == no ]]; then
		complain "$p: stays 0 in a bound counter, wire.md does not say so"
	fi
done

[[ $fail == 0 ]] && echo "counter_docs: ${#ports[@]} port counters, ${#want[@]} per-QP values agree with docs/wire.md"
exit "$fail"
