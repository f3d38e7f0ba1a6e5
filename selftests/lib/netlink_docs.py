#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""netlink_docs.py - docs/netlink.md's tables against the running module.

    netlink_docs.py probes DOC POLICY
    netlink_docs.py check DOC POLICY SHOW_DIR APPLY_DIR

The kernel's policy (POLICY: `genl ctrl policy name vrnic`) is the one
definition of every range; the defaults are what a new device reports
(SHOW_DIR/{limits,qos,dcqcn}.json: `rdmactl -j OBJECT show DEV`); rdmactl's
own range table, which `rdmactl apply` checks a file against before
changing anything, speaks in APPLY_DIR/<object>.<key>.err: its error for
one value outside the range, chosen by "probes" ("OBJECT KEY VALUE"
lines).  "check" prints one TAP result line per fact checked, for
lib/tap.sh's tap_relay to number into the test's stream.
"""
import json
import os
import re
import sys

U_MAX = {"U8": 2**8 - 1, "U16": 2**16 - 1, "U32": 2**32 - 1,
         "U64": 2**64 - 1}
# The nests of the configuration objects: docs section title -> object.
OBJECTS = {"LIMITS": "limits", "QOS": "qos", "DCQCN": "dcqcn"}


VERDICTS = [0]


def verdict(ok, name, why=""):
    VERDICTS[0] += 1
    print("%s %d %s%s" % ("ok" if ok else "not ok", VERDICTS[0], name,
                          "" if ok or not why else " # " + why))


def number(text):
    """A number as the docs write it: 12, 0x1f, 2^64-1, 2^64."""
    text = text.strip()
    m = re.fullmatch(r"2\^(\d+)(-1)?", text)
    if m:
        return 2 ** int(m.group(1)) - (1 if m.group(2) else 0)
    return int(text, 0)


def parse_policy(path):
    """{policy index: {attr: (type, lo, hi, nested policy index)}}."""
    pol = {}
    rx = re.compile(r"policy\[(\d+)\]:attr\[(\d+)\]: type=(\w+)"
                    r"(?: policy:(\d+))?(?:.*range:\[(\d+),(\d+)\])?")
    with open(path) as f:
        for line in f:
            m = rx.search(line)
            if not m:
                continue
            idx, attr, typ, nested, lo, hi = m.groups()
            pol.setdefault(int(idx), {})[int(attr)] = (
                typ, int(lo) if lo else None, int(hi) if hi else None,
                int(nested) if nested else None)
    return pol


def parse_docs(path):
    """Top-level attribute numbers, and per object its table rows:
    {object: {attr number: (NAME, default text, range text)}}."""
    top, tables, obj = {}, {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r"## .*\(`VRNIC_ATTR_(\w+)`", line)
            if m:
                obj = OBJECTS.get(m.group(1))
                continue
            if line.startswith("## "):
                obj = None
            m = re.match(r"\| `VRNIC_ATTR_(\w+)` \((\d+)\) \|", line)
            if m:
                top[m.group(1)] = int(m.group(2))
                continue
            m = re.match(r"\| `(\w+)` \((\d+)\) \|(.*)\|\s*$", line)
            if obj and m:
                cells = [c.strip() for c in m.group(3).split("|")]
                tables.setdefault(obj, {})[int(m.group(2))] = (
                    m.group(1), cells[-2], cells[-1])
    return top, tables


def docs_range(text, typ):
    """(lo, hi) of a range cell, None if it states no range."""
    first = text.split(",")[0].split("(")[0].strip()
    if first.startswith("any"):
        return 0, U_MAX[typ]
    m = re.fullmatch(r"(\S+)\.\.(\S+)", first)
    return (number(m.group(1)), number(m.group(2))) if m else None


def docs_default(text):
    """The number a default cell starts with, None if it is not one."""
    m = re.match(r"(0x[0-9a-fA-F]+|2\^\d+(?:-1)?|\d+)(?:\s|$)", text)
    return number(m.group(1)) if m else None


def nests(pol, top):
    """(object, its nest's policy index or None) for each object."""
    for title, obj in OBJECTS.items():
        nr = top.get(title)
        yield obj, nr, next((a[3] for p in pol.values()
                             for n, a in p.items()
                             if n == nr and a[0] == "NESTED"), None)


def probes(doc, policy):
    """A value just outside each attribute's range, where there is one."""
    pol = parse_policy(policy)
    top, tables = parse_docs(doc)
    for obj, _, nest in nests(pol, top):
        for attr, (typ, lo, hi, _) in sorted(pol.get(nest, {}).items()):
            row = tables.get(obj, {}).get(attr)
            # Values rdmactl spells as names (trust pcp|dscp) are not
            # numbers to probe with.
            if lo is None or not row or docs_default(row[1]) is None:
                continue
            if hi < U_MAX[typ]:
                print(obj, row[0].lower(), hi + 1)
            elif lo > 0:
                print(obj, row[0].lower(), lo - 1)


def main():
    if sys.argv[1] == "probes":
        return probes(*sys.argv[2:4])
    doc, policy, show_dir, apply_dir = sys.argv[2:6]
    pol = parse_policy(policy)
    top, tables = parse_docs(doc)
    for obj, nr, nest in nests(pol, top):
        verdict(nest is not None, "%s: the policy nests attribute %s, "
                "as documented" % (obj, nr), "no NESTED entry in the policy")
        if nest is None:
            continue
        kernel, rows = pol.get(nest, {}), tables.get(obj, {})
        with open(os.path.join(show_dir, obj + ".json")) as f:
            shown = json.load(f)
        shown = (shown[0] if isinstance(shown, list) else shown)[obj]
        for attr in sorted(set(kernel) | set(rows)):
            if attr not in rows:
                verdict(False, "%s: attribute %d is in docs/netlink.md" %
                        (obj, attr), "the policy has it, the docs do not")
                continue
            name, dflt, rng = rows[attr]
            what = "%s %s (%d)" % (obj, name, attr)
            if attr not in kernel:
                # A removed attribute: documented as such, no policy.
                verdict("removed" in rng + dflt or not rng,
                        what + ": not in the policy, documented as removed",
                        "the docs give it a range: " + rng)
                continue
            typ, lo, hi, _ = kernel[attr]
            if lo is None:
                continue  # arrays: their members' ranges are nested
            want = docs_range(rng, typ)
            verdict(want == (lo, hi), what + ": the docs' range is the "
                    "policy's", "docs %s, policy %d..%d" % (rng, lo, hi))
            key = name.lower()
            d = docs_default(dflt)
            got = shown.get(key)
            if isinstance(got, list):
                got = sum(1 << p for p in got)  # rdmactl lists bitmaps' bits
            if d is not None and got is not None:
                verdict(got == d, what + ": the docs' default is a "
                        "new device's", "docs %s, device %s" %
                        (dflt, got))
            err = os.path.join(apply_dir, "%s.%s.err" % (obj, key))
            if os.path.exists(err):
                with open(err) as f:
                    msg = f.read()
                m = re.search(r"out of range (\d+)\.\.(\d+)", msg)
                said = (int(m.group(1)), int(m.group(2))) if m else None
                verdict(said == (lo, hi), what + ": rdmactl apply checks "
                        "the policy's range", "rdmactl said: " +
                        msg.strip().replace("#", "_"))


if __name__ == "__main__":
    main()
