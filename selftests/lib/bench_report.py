#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Reports of `make bench`, on the host after the guests are gone.

    bench_report.py hosts SAMPLES OUTDIR   two-host rows: OUTDIR/bench_hosts.md,
                                           .json and .png
    bench_report.py plot BENCH_JSON PNG    the one-device rows (bench.json of
                                           selftests/bench.sh) as a chart

SAMPLES is what selftests/bench_hosts.sh wrote (its header says the
format).  Every row reports the median of its rounds with the minimum and
maximum; ratios are of medians.  The charts need python3-matplotlib
(make deps); without it the Markdown and JSON are still written.
"""
import json
import os
import sys

DRIVERS = ("rxe", "vrnic")
NVME = ("tcp", "rxe", "vrnic")
NVME_ROWS = (("randread_4KiB_qd1", "iops", "IOPS"),
             ("randread_4KiB_qd1", "lat_us", "usec"),
             ("randread_4KiB_qd32", "iops", "IOPS"),
             ("read_128KiB_qd16", "MBps", "MB/s"))


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if not n:
        return None
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def summary(xs):
    if not xs:
        return None
    return {"median": median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


def ratio(a, b):
    """b / a, the medians of two summaries."""
    if not a or not b or not a["median"]:
        return None
    return round(b["median"] / a["median"], 3)


def load(path):
    rows, vals, cpu, info, loss = [], {}, {}, {}, []
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "row" and len(w) == 9:
                rows.append(dict(zip(("name", "tool", "size", "iterations", "qps",
                                      "mtu", "ip", "unit"), w[1:])))
            elif w[0] == "val" and len(w) >= 5:
                try:
                    vals.setdefault((w[1], w[2]), []).append(float(w[4]))
                    if len(w) >= 6 and w[5] != "nan":
                        cpu.setdefault((w[1], w[2]), []).append(float(w[5]))
                except ValueError:
                    pass            # a failed run leaves no number
            elif w[0] == "info" and len(w) >= 2:
                info[w[1]] = " ".join(w[2:])
            elif w[0] == "loss" and len(w) == 4:
                loss.append((int(w[2]), int(w[3])))
    return rows, vals, cpu, info, loss


def fmt(x, digits=2):
    if x is None:
        return "-"
    if isinstance(x, dict):
        return "%s (%s-%s)" % (fmt(x["median"], digits), fmt(x["min"], digits),
                               fmt(x["max"], digits))
    return "%.*f" % (digits, x)


def hosts(samples, outdir):
    rows, vals, cpu, info, loss = load(samples)
    link_size = next((r["size"] for r in rows if r["name"] == "link_udp"), "?")
    out = {"info": info, "perftest": [], "nvme": [], "loss": None,
           "link_udp_mbps": summary(vals.get(("link_udp", "kernel"), []))}
    md = ["# Two hosts: vrnic against rdma_rxe", "",
          "Kernel %s, %s vCPU per guest, crc32 shash `%s`, %s rounds; "
          "kernel copy (tmpfs read, `dd`): %s MB/s; ping min/avg/max %s ms; "
          "the link's capacity for UDP packets of %s payload bytes (a full "
          "RoCEv2 packet at MTU 1500), A to B (pktgen): %s MB/s." % (
              info.get("kernel", "?"), info.get("cpus", "?"), info.get("crc32", "?"),
              info.get("reps", "?"), fmt(summary(vals.get(("memcpy", "kernel"), [])), 1),
              info.get("ping_ms", "?"), link_size,
              fmt(summary(vals.get(("link_udp", "kernel"), [])), 2)),
          "", "Median (min-max) of the rounds.  CPU: busy seconds of both guests "
          "per GiB of payload.", "",
          "| row | MTU | IP | QPs | rdma_rxe MB/s | vrnic MB/s | vrnic/rxe | "
          "rxe CPU s/GiB | vrnic CPU s/GiB | CPU vrnic/rxe | vrnic resent |",
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r["tool"] in ("dd", "pktgen") or r["name"].startswith("loss_"):
            continue
        s = {d: summary(vals.get((r["name"], d), [])) for d in DRIVERS}
        c = {d: summary(cpu.get((r["name"], d), [])) for d in DRIVERS}
        resent = summary(vals.get((r["name"] + ".resent", "vrnic"), []))
        e = dict(r, rxe=s["rxe"], vrnic=s["vrnic"], ratio=ratio(s["rxe"], s["vrnic"]),
                 cpu_s_per_gib={"rxe": c["rxe"], "vrnic": c["vrnic"],
                                "ratio": ratio(c["rxe"], c["vrnic"])},
                 vrnic_resent=resent)
        out["perftest"].append(e)
        md.append("| %s | %s | IPv%s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["name"], r["mtu"], r["ip"], r["qps"], fmt(s["rxe"]), fmt(s["vrnic"]),
            fmt(e["ratio"], 3), fmt(c["rxe"]), fmt(c["vrnic"]),
            fmt(e["cpu_s_per_gib"]["ratio"], 3), fmt(resent, 0)))
    md += ["", "NVMe-oF: fio on a null_blk namespace, nvme-rdma over each driver "
           "and nvme-tcp on the same link (MTU 1500).", "",
           "| row | unit | nvme-tcp | nvme-rdma rxe | nvme-rdma vrnic | vrnic/tcp | "
           "vrnic/rxe | CPU s/GiB tcp | rxe | vrnic |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, key, unit in NVME_ROWS:
        k = "%s.%s" % (name, key)
        s = {d: summary(vals.get((k, d), [])) for d in NVME}
        c = {d: summary(cpu.get((k, d), [])) for d in NVME}
        e = {"name": k, "unit": unit, "tcp": s["tcp"], "rxe": s["rxe"], "vrnic": s["vrnic"],
             "vrnic_per_tcp": ratio(s["tcp"], s["vrnic"]),
             "vrnic_per_rxe": ratio(s["rxe"], s["vrnic"]),
             "cpu_s_per_gib": c if key != "lat_us" else None}
        out["nvme"].append(e)
        md.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            k, unit, fmt(s["tcp"]), fmt(s["rxe"]), fmt(s["vrnic"]),
            fmt(e["vrnic_per_tcp"], 3), fmt(e["vrnic_per_rxe"], 3),
            *(fmt(c[d]) if key != "lat_us" else "" for d in NVME)))
    clean = summary(vals.get(("loss_clean", "vrnic"), []))
    lossy = summary(vals.get(("loss_lossy", "vrnic"), []))
    if loss:
        rt = median([a for a, _ in loss])
        dr = median([b for _, b in loss])
        out["loss"] = {"netem_loss": info.get("loss"), "clean": clean, "lossy": lossy,
                       "kept": ratio(clean, lossy), "retransmits": rt, "netem_dropped": dr,
                       "retransmits_per_drop": round(rt / dr, 3) if dr else None}
        md += ["", "Loss recovery, vrnic to vrnic, `netem loss %s` on A's end of the "
               "link, ib_write_bw 64 KiB, MTU 1500:" % info.get("loss", "?"), "",
               "| clean MB/s | lossy MB/s | lossy/clean | retransmitted | netem drops | "
               "retransmitted/dropped |", "|---:|---:|---:|---:|---:|---:|",
               "| %s | %s | %s | %s | %s | %s |" % (
                   fmt(clean), fmt(lossy), fmt(out["loss"]["kept"], 3), fmt(rt, 0),
                   fmt(dr, 0), fmt(out["loss"]["retransmits_per_drop"], 3))]
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "bench_hosts.json"), "w") as f:
        json.dump(out, f, indent=1)
    with open(os.path.join(outdir, "bench_hosts.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    bars = [(e["name"], e["ratio"]) for e in out["perftest"]]
    bars += [("cpu " + e["name"], e["cpu_s_per_gib"]["ratio"]) for e in out["perftest"]]
    nv = [(e["name"] + " vs tcp", e["vrnic_per_tcp"]) for e in out["nvme"]]
    nv += [(e["name"] + " vs rxe", e["vrnic_per_rxe"]) for e in out["nvme"]]
    chart(os.path.join(outdir, "bench_hosts.png"),
          [("perftest, two hosts: vrnic/rdma_rxe (bandwidth; cpu: CPU s/GiB)", bars),
           ("NVMe-oF: nvme-rdma on vrnic against nvme-tcp and nvme-rdma on rxe", nv)])
    print("\n".join(md))
    return 0


def chart(png, panels):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(no chart: python3-matplotlib not installed)")
        return
    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 3 + 2.5 * len(panels)),
                             squeeze=False)
    for ax, (title, bars) in zip(axes[:, 0], panels):
        bars = [(n, v) for n, v in bars if v is not None]
        ax.barh([n for n, _ in bars], [v for _, v in bars])
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_title(title, fontsize="medium")
        ax.set_xlabel("ratio (1 = equal)")
        ax.invert_yaxis()
        ax.tick_params(axis="y", labelsize="small")
    fig.tight_layout()
    fig.savefig(png)
    print("chart: %s" % png)


def plot(bench_json, png):
    with open(bench_json) as f:
        b = json.load(f)
    bars = [("%s (%s)" % (r["name"], "lower is better" if r["unit"] == "usec" else
                          "higher is better"), r["ratio"]) for r in b["rows"]]
    chart(png, [("one device, kernel %s: vrnic/rdma_rxe" % b.get("kernel", "?"), bars)])
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == "hosts":
        return hosts(argv[2], argv[3])
    if len(argv) == 4 and argv[1] == "plot":
        return plot(argv[2], argv[3])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
