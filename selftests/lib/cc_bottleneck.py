#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Samples, figures, replays and plots of selftests/cc_bottleneck.sh.

    cc_bottleneck.py sample OUT STOP NETNS SELECTOR COUNTER...
    cc_bottleneck.py report DIR C_MBPS ORACLE RUN:SETTLE:T_ON_END:T_OFF:T_END...

"sample" writes to OUT, every 100 ms until the file STOP exists, a line
"@ EPOCH_SECONDS V1 ... Vn" (the values of the sysfs COUNTER files: the
tx_bytes port counter of each sender's vrnic device) followed by one line
of "tc -s -j qdisc show SELECTOR" in network namespace NETNS (SELECTOR,
e.g. "dev swr", shows the bottleneck's red qdisc).  One
process and one "tc -batch" for the whole run: forking tc ten times a
second would take a good part of a TCG guest's CPU from the flows it
measures.  The queue under DCQCN swings in a few hundred milliseconds,
so that slower samples of it alias.

"report" does, in one process (a TCG guest takes seconds to start
Python), for each RUN: the figures from DIR/RUN.samples, the split of the
trace DIR/trace-RUN into one replay file per QP (DIR/replay-RUN/, by
lib/cc_trace.py), the replay of each by the oracle at ORACLE (its
"replay" function; "-" or a missing file: none), and the plot
DIR/rate-RUN.png (where matplotlib is installed, unless CC_PLOTS=0: a TCG
guest takes half a minute to draw them).  Output lines:

  M RUN.KEY VALUE        a figure (below)
  R RUN FILE ok|fail|skip|nocnp TEXT
                         the oracle's verdict on one QP's replay file (skip:
                         no oracle; nocnp: no output event to compare)
  P RUN ok|fail|skip TEXT  the plot
  # TEXT                 a comment

The run's first phase (DCQCN on) ends at T_ON_END, its second (DCQCN
off) runs from T_OFF to T_END (epoch seconds).  Times are printed in
seconds since the first sample in which a sender's counter moved (t0, the
traffic's start).  A flow starts at the first sample its counter moved in;
"join" is the latest start.  Figures, for PHASE "on" and "off":

  PHASE.drops           RED drops (early + pdrop + other) after the
                        phase's first second
  PHASE.marked          RED CE marks after the phase's first second
  PHASE.backlog_median  median RED backlog (bytes) after the first second
  PHASE.backlog_p95     its 95th percentile
  PHASE.util            bytes red passed on / (C * time) over the phase's
                        window
  PHASE.jain            Jain's index of the flows' mean rates in the 2 s
                        windows of the phase's window
  PHASE.rates           those mean rates, Mb/s, comma-separated
  PHASE.window          the window, seconds since t0

The window is [join + SETTLE, T_ON_END] for "on" (whole 2 s windows from
its start) and [T_OFF + 1, T_END] for "off".
"""
import contextlib
import importlib.util
import io
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cc_trace  # noqa: E402


def sample(out, stop, netns, selector, counters):
    tc = subprocess.Popen(["ip", "netns", "exec", netns, "tc", "-s", "-j", "-batch", "-"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                          bufsize=1)
    with open(out, "w") as f:
        while not os.path.exists(stop):
            t = time.time()
            vals = []
            for c in counters:
                with open(c) as cf:
                    vals.append(cf.read().strip())
            tc.stdin.write("qdisc show %s\n" % selector)
            tc.stdin.flush()
            f.write("@ %.6f %s\n%s" % (t, " ".join(vals), tc.stdout.readline()))
            f.flush()
            time.sleep(max(0.0, t + 0.1 - time.time()))
    tc.stdin.close()
    tc.wait()
    return 0


def load(path):
    """[(t, [tx...], {"sent", "backlog", "marked", "drops"})], t in s."""
    out, cur = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("@ "):
                w = line.split()
                cur = (float(w[1]), [int(x) for x in w[2:]])
                continue
            if cur is None or not line.startswith("["):
                continue
            try:
                qd = json.loads(line)
            except ValueError:
                continue    # a line cut short when the sampler stopped
            q = {"sent": None, "backlog": 0, "marked": 0, "drops": 0}
            for d in qd:
                if d.get("kind") == "red":
                    q["sent"] = d.get("bytes", 0)
                    q["backlog"] = d.get("backlog", 0)
                    q["marked"] = d.get("marked", 0)
                    q["drops"] = (d.get("early", 0) + d.get("pdrop", 0) +
                                  d.get("other", 0))
            if q["sent"] is not None:
                out.append((cur[0], cur[1], q))
            cur = None
    return out


def interp(ts, vs, t):
    """Value of the piecewise-linear series (ts, vs) at t."""
    if t <= ts[0]:
        return vs[0]
    for k in range(1, len(ts)):
        if t <= ts[k]:
            a = (t - ts[k - 1]) / (ts[k] - ts[k - 1])
            return vs[k - 1] + a * (vs[k] - vs[k - 1])
    return vs[-1]


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if not n:
        return 0
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def phase(out, name, s, ts, c_mbps, a, b, w0, w1, nwin):
    """Figures of phase NAME to out(): counters over [a, b], rates over
    nwin 2 s windows from w0 (w1 = the end of the last one)."""
    n = len(s[0][1])

    def series(f):
        return [f(x) for x in s]

    for key in ("drops", "marked"):
        v = series(lambda x, k=key: x[2][k])
        out("%s.%s %d" % (name, key, round(interp(ts, v, b) - interp(ts, v, a))))
    back = sorted(x[2]["backlog"] for t, x in zip(ts, s) if a <= t <= b)
    out("%s.backlog_median %d" % (name, median(back)))
    out("%s.backlog_p95 %d" % (name, back[min(len(back) - 1, int(0.95 * len(back)))]
                                  if back else 0))
    if nwin < 1:
        out("# %s: no 2 s window fits in [%.1f, %.1f]" % (name, w0, b))
        return 1
    out("%s.window %.1f-%.1f" % (name, w0, w1))
    sent = series(lambda x: x[2]["sent"])
    util = (interp(ts, sent, w1) - interp(ts, sent, w0)) * 8 / (w1 - w0) / (c_mbps * 1e6)
    out("%s.util %.3f" % (name, util))
    means = []
    for i in range(n):
        tx = series(lambda x, i=i: x[1][i])
        win = [(interp(ts, tx, w0 + 2 * k + 2) - interp(ts, tx, w0 + 2 * k)) * 8 / 2e6
               for k in range(nwin)]
        out("# %s: flow %d, Mb/s in each 2 s window: %s" % (
            name, i + 1, " ".join("%.1f" % x for x in win)))
        means.append(sum(win) / nwin)
    sq = sum(x * x for x in means)
    out("%s.jain %.3f" % (name, sum(means) ** 2 / (n * sq) if sq else 0))
    out("%s.rates %s" % (name, ",".join("%.1f" % x for x in means)))
    return 0


def stats(out, path, c_mbps, settle, t_on_end, t_off, t_end):
    s = load(path)
    if len(s) < 3:
        out("# only %d samples" % len(s))
        return 1
    n = len(s[0][1])
    start = [None] * n
    for k in range(1, len(s)):
        for i in range(n):
            if start[i] is None and s[k][1][i] > s[k - 1][1][i]:
                start[i] = s[k][0]
    if None in start:
        out("# flow %d never sent" % (start.index(None) + 1))
        return 1
    t0 = min(start)
    ts = [x[0] - t0 for x in s]
    join = max(start) - t0
    on_end, off, end = t_on_end - t0, t_off - t0, t_end - t0
    out("# %d samples; flows start at %s s, DCQCN on until %.1f s, off from "
          "%.1f s to %.1f s" % (len(s), ", ".join("%.1f" % (x - t0) for x in start),
                                on_end, off, end))
    w0 = join + settle
    nwin = int((on_end - w0) // 2) if on_end > w0 else 0
    rc = phase(out, "on", s, ts, c_mbps, 1.0, on_end, w0, w0 + 2 * nwin, nwin)
    w0 = off + 1
    nwin = int((end - w0) // 2) if end > w0 else 0
    return phase(out, "off", s, ts, c_mbps, w0, end, w0, w0 + 2 * nwin, nwin) or rc


def quiet(fn, *args):
    """fn(*args) with its stdout captured: (return value, text)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            rc = fn(*args)
        except Exception as e:      # a report line, not a traceback
            print("%s: %s" % (type(e).__name__, e), file=buf)
            rc = 1
    return rc, " ".join(buf.getvalue().split())


def report(outdir, c_mbps, oracle_path, runs):
    oracle = None
    if oracle_path != "-" and os.path.isfile(oracle_path):
        spec = importlib.util.spec_from_file_location("dcqcn_oracle", oracle_path)
        oracle = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(oracle)
    no_plot = None
    if os.environ.get("CC_PLOTS", "1") == "0":
        no_plot = "CC_PLOTS=0 (make cc-demo draws them)"
    else:
        try:
            import matplotlib   # noqa: F401
        except ImportError:
            no_plot = "python3-matplotlib not installed"
    for arg in runs:
        run, settle, t_on_end, t_off, t_end = arg.split(":")

        def out(line, run=run):
            print("# %s: %s" % (run, line[2:]) if line.startswith("# ")
                  else "M %s.%s" % (run, line))
        stats(out, os.path.join(outdir, run + ".samples"), c_mbps,
              float(settle), float(t_on_end), float(t_off), float(t_end))
        trace = os.path.join(outdir, "trace-" + run)
        rdir = os.path.join(outdir, "replay-" + run)
        rc, text = quiet(cc_trace.cmd_split, trace, rdir)
        print("# %s: split: %s" % (run, text.replace(rdir + "/", "")))
        for f in sorted(os.listdir(rdir)) if os.path.isdir(rdir) else []:
            path = os.path.join(rdir, f)
            with open(path) as fh:
                if " out " not in fh.read():
                    print("R %s %s nocnp" % (run, f))
                    continue
            if oracle is None:
                print("R %s %s skip" % (run, f))
                continue
            rc, text = quiet(oracle.replay, path)
            print("R %s %s %s %s" % (run, f, "fail" if rc else "ok", text))
        if no_plot is None:
            png = os.path.join(outdir, "rate-%s.png" % run)
            rc, text = quiet(cc_trace.cmd_plot, trace, png)
            print("P %s %s %s" % (run, "fail" if rc else "ok", text))
        else:
            print("P %s skip %s" % (run, no_plot))
    sys.stdout.flush()
    return 0


def main(argv):
    if len(argv) >= 7 and argv[1] == "sample":
        return sample(argv[2], argv[3], argv[4], argv[5], argv[6:])
    if len(argv) >= 6 and argv[1] == "report":
        return report(argv[2], float(argv[3]), argv[4], argv[5:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
