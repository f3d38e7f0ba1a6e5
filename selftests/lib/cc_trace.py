#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""vrnic's DCQCN tracepoints -> the oracle's replay format, and plots.

    cc_trace.py split TRACE OUTDIR     one replay file per QP: OUTDIR/DEV-QPN.replay
    cc_trace.py plot TRACE PNG         rate and target rate versus time, per QP

TRACE is the text of /sys/kernel/tracing/trace with the events
vrnic:vrnic_cc_params, vrnic:vrnic_cc_input and vrnic:vrnic_cc_rate enabled
(kmod/trace.h).  A replay file holds, in ../shared/cc/dcqcn_oracle.py's
format, the parameters the QP's reaction point started with, its inputs
(cnp, sent N) at the times it used them, an end time, and every output
event ("out EVENT RC RT ALPHA TS BS"); "dcqcn_oracle.py replay FILE" then
checks that the model produces exactly the kernel's outputs.  The oracle
has no operation for a change of parameters: a QP's file stops at the
first change after its start (and says so in a comment).
"""
import os
import re
import sys

LINE = re.compile(r"\b(vrnic_cc_params|vrnic_cc_input|vrnic_cc_rate): (.*)$")
PARAM_KEYS = ("line_mbps", "rpg_time_reset", "rpg_byte_reset", "rpg_threshold",
              "rpg_max_rate", "rpg_ai_rate", "rpg_hai_rate", "rpg_gd",
              "rpg_min_dec_fac", "rpg_min_rate", "rate_to_set_on_first_cnp",
              "dce_tcp_g", "dce_tcp_rtt", "rate_reduce_monitor_period",
              "initial_alpha_value", "clamp_tgt_rate",
              "clamp_tgt_rate_after_time_inc")


# vrnic's rpg_gd is ConnectX's shift of the 10-bit alpha (11 = alpha / 2);
# the oracle's is the paper's shift of the real alpha (1 = alpha / 2).
ORACLE_GD_OFFSET = 10


def oracle_params(f):
    """The oracle's "params" words for a vrnic_cc_params event, or None if
    the oracle cannot express them (rpg_gd below 10)."""
    p = {k: f[k] for k in PARAM_KEYS}
    gd = int(p["rpg_gd"]) - ORACLE_GD_OFFSET
    if gd < 0:
        return None
    p["rpg_gd"] = str(gd)
    return " ".join("%s=%s" % (k, p[k]) for k in PARAM_KEYS)


def events(path):
    """(kind, fields) of every vrnic CC event in the trace, each QP's in the
    order of its seq field: a QP's events can come from two CPUs, whose
    trace buffers ftrace merges by clocks that need not agree (kmod/trace.h).
    Traces without seq keep the file's order."""
    evs = []
    with open(path) as f:
        for n, line in enumerate(f):
            m = LINE.search(line)
            if m:
                fields = dict(kv.split("=", 1) for kv in m.group(2).split())
                evs.append(((fields.get("dev"), fields.get("qpn"),
                             int(fields.get("seq", n)), n), m.group(1), fields))
    evs.sort(key=lambda e: e[0])
    for _, kind, fields in evs:
        yield kind, fields


def split(path):
    """{(dev, qpn): {"lines": [...], "note": str or None}} in replay format."""
    qps = {}
    for kind, f in events(path):
        key = (f["dev"], int(f["qpn"]))
        qp = qps.get(key)
        if kind == "vrnic_cc_params":
            if qp is None:
                words = oracle_params(f)
                qps[key] = {"lines": ["0 params " + (words or "")],
                            "end": 0, "note": None, "closed": words is None}
                if words is None:
                    qps[key]["note"] = ("rpg_gd %s has no equivalent in the oracle"
                                        % f["rpg_gd"])
            elif not qp["closed"]:
                qp["closed"] = True
                qp["note"] = "parameters changed at %s: replayed up to there" % f["t"]
            continue
        if qp is None or qp["closed"]:
            continue    # no start seen (tracing enabled late), or past a change
        t = int(f["t"])
        qp["end"] = max(qp["end"], t)
        if kind == "vrnic_cc_input":
            qp["lines"].append("%d cnp" % t if f["input"] == "cnp"
                               else "%d sent %s" % (t, f["bytes"]))
        else:
            qp["lines"].append("%d out %s %s %s %s %s %s" % (
                t, f["event"], f["rc"], f["rt"], f["alpha"], f["ts"], f["bs"]))
    for qp in qps.values():
        qp["lines"].append("%d end" % qp["end"])
    return qps


def cmd_split(trace, outdir):
    os.makedirs(outdir, exist_ok=True)
    for (dev, qpn), qp in sorted(split(trace).items()):
        name = os.path.join(outdir, "%s-%d.replay" % (dev, qpn))
        with open(name, "w") as out:
            if qp["note"]:
                out.write("# %s\n" % qp["note"])
            out.write("\n".join(qp["lines"]) + "\n")
        outs = sum(1 for ln in qp["lines"] if " out " in ln)
        print("%s: %d outputs%s" % (name, outs,
                                    "; " + qp["note"] if qp["note"] else ""))
    return 0


def cmd_plot(trace, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = {}
    for kind, f in events(trace):
        if kind != "vrnic_cc_rate":
            continue
        s = series.setdefault("%s QP %s" % (f["dev"], f["qpn"]), ([], [], []))
        s[0].append(int(f["t"]) / 1e9)
        s[1].append(int(f["rc"]) / 1e6)
        s[2].append(int(f["rt"]) / 1e6)
    if not series:
        print("no vrnic_cc_rate events in %s" % trace)
        return 1
    t0 = min(s[0][0] for s in series.values())
    fig, ax = plt.subplots(figsize=(9, 5))
    for name, (t, rc, rt) in sorted(series.items()):
        t = [x - t0 for x in t]
        line, = ax.step(t, rc, where="post", label=name + " rate")
        ax.step(t, rt, where="post", linestyle=":", color=line.get_color(),
                label=name + " target")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("Mb/s")
    ax.set_yscale("log")
    ax.set_title("DCQCN reaction point per QP (vrnic:vrnic_cc_rate)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(png)
    print("%s: %d QPs" % (png, len(series)))
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == "split":
        return cmd_split(argv[2], argv[3])
    if len(argv) == 4 and argv[1] == "plot":
        return cmd_plot(argv[2], argv[3])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
