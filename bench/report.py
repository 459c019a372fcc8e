#!/usr/bin/python3
"""Turns a benchmark run (raw.csv and run.json, written by bench/run.py) into summary.csv, PNG
plots and RESULTS.md: per point the median of each engine over the pairs whose placement did not
change, and the median of the per-pair ratios of osprey to the best peer in that pair (and to
the host MPI alone).

  bench/report.py [results dir (bench/results)] [RESULTS.md path (bench/RESULTS.md)]"""
import collections
import csv
import json
import os
import statistics
import sys

import engines

HERE = os.path.dirname(os.path.abspath(__file__))
FLAVORS = ["allocate", "create", "dynamic"]
SYNCS = ["flush", "lock", "lock_all", "fence", "pscw"]


def higher_is_better(metric):
    return metric.startswith(("bw_", "rate_", "memcpy_"))


def unit(metric):
    if higher_is_better(metric):
        return "Mops/s" if metric.startswith("rate_") else "MB/s"
    return "ns" if metric in ("post_put", "post_acc") else "us"


def x_kind(metric):
    if metric.startswith(("pscw_", "lock_handover_")) or metric in ("fence", "sync_mix"):
        return "ranks"
    return "targets" if metric.startswith("post_") else "bytes"


def summarize(rows):
    """{(section, metric, x): point} with per-engine medians and ratios to the peers."""
    by_key = collections.defaultdict(lambda: collections.defaultdict(dict))
    places = collections.defaultdict(dict)
    for r in rows:
        if r["section"] in engines.OSPREY:
            k = (r["section"], r["metric"], int(r["x"]))
            by_key[k][int(r["pair"])][r["engine"]] = float(r["value"])
            places[k][int(r["pair"])] = r["placement"]
    out = {}
    for k, pairs in by_key.items():
        section, metric, _ = k
        kept = [p for p in pairs if places[k][p] != "changed"] or list(pairs)
        mine, peers = engines.OSPREY[section], engines.PEERS[section]
        pick = max if higher_is_better(metric) else min
        point = {"pairs": len(kept), "placement": "/".join(sorted({places[k][p] for p in kept})),
                 "pairs_unchanged": sum(1 for p in pairs if places[k][p] != "changed")}
        for e in [mine] + peers:
            vals = [pairs[p][e] for p in kept if e in pairs[p]]
            point[e] = statistics.median(vals) if vals else None
        best, to_host = [], []
        for p in kept:
            have = [pairs[p][e] for e in peers if pairs[p].get(e)]
            if pairs[p].get(mine) is not None and have:
                best.append(pairs[p][mine] / pick(have))
                if pairs[p].get(peers[0]):
                    to_host.append(pairs[p][mine] / pairs[p][peers[0]])
        present = [e for e in peers if point[e] is not None]
        point["best_peer"] = pick(present, key=lambda e: point[e]) if present else None
        point["ratio_best"] = statistics.median(best) if best else None
        # In how many of the kept pairs osprey trailed: a median behind from pairs that
        # disagree is the cores' placement moving more than the engines differ.
        point["pairs_behind"] = sum(1 for r in best if behind_by(metric, r))
        point["pairs_compared"] = len(best)
        point["ratio_host"] = statistics.median(to_host) if to_host else None
        out[k] = point
    return out


# Ratios within this much of 1 count as even: repeated runs here differ by about as much.
EVEN = 0.03


# Calls of one PSCW epoch, timed one by one: where an epoch waits differs between engines
# (osprey's MPI_Win_start returns at once and MPI_Win_complete waits for the posts; Open MPI's
# start waits for them and its complete returns at once), so a call's time compares nothing.
# Listed for information; the epoch (pscw_epoch) is what compares.
SPLIT_CALLS = ("pscw_start", "pscw_complete", "pscw_post", "pscw_wait")


def behind_by(metric, ratio):
    """How much worse than the best peer osprey is (0 when even or ahead)."""
    if metric in SPLIT_CALLS:
        return 0
    worse = ratio if not higher_is_better(metric) else 1 / ratio
    return worse - 1 if worse > 1 + EVEN else 0


def ahead(metric, ratio):
    return behind_by(metric, ratio) == 0


def fmt(v, metric=""):
    if v is None:
        return "-"
    if unit(metric) in ("MB/s",):
        return f"{v:,.0f}"
    return f"{v:.3g}" if v < 100 else f"{v:,.0f}"


def size(x):
    for shift, name in ((20, "MiB"), (10, "KiB")):
        if x >= 1 << shift and x % (1 << shift) == 0:
            return f"{x >> shift} {name}"
    return f"{x} B"


HEADLINES = [
    ("put + flush, 8 B", "lat_put_flush_allocate", 8),
    ("get + flush, 8 B", "lat_get_flush_allocate", 8),
    ("accumulate (sum) + flush, 8 B", "lat_acc_flush_allocate", 8),
    ("get_accumulate + flush, 8 B", "lat_getacc_flush_allocate", 8),
    ("fetch_and_op + flush", "lat_fop_flush_allocate", 8),
    ("compare_and_swap + flush", "lat_cas_flush_allocate", 8),
    ("put + fence, 8 B", "lat_put_fence_allocate", 8),
    ("fence, 2 ranks, no operations", "fence", 2),
    ("PSCW epoch, 2 ranks, no operations", "pscw_epoch", 2),
    ("lock + put + unlock, 8 B", "lat_put_lock_allocate", 8),
    ("put bandwidth, 1 MiB (flush)", "bw_put_flush_allocate", 1 << 20),
    ("get bandwidth, 1 MiB (flush)", "bw_get_flush_allocate", 1 << 20),
    ("put message rate, 8 B (flush)", "rate_put_flush_allocate", 8),
    ("posting a put, 7 distinct targets", "post_put", 7),
]


def table(points, section, keys, titles):
    """Markdown rows: one per (title, metric, x) with the engines' medians and the ratios."""
    mine, peers = engines.OSPREY[section], engines.PEERS[section]
    head = ["", "unit"] + [engines.LABELS[e] for e in [mine] + peers]
    head += ["osprey / best peer", "osprey / " + engines.LABELS[peers[0]]]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for title, (metric, x) in zip(titles, keys):
        p = points.get((section, metric, x))
        if not p:
            continue
        cells = [title, unit(metric)] + [fmt(p[e], metric) for e in [mine] + peers]
        rb, rh = p["ratio_best"], p["ratio_host"]
        mark = "" if rb is None or ahead(metric, rb) else " (behind)"
        if metric in SPLIT_CALLS and rb:
            mark = " (split differs)"
        cells += [f"{rb:.3f}{mark}" if rb else "-", f"{rh:.3f}" if rh else "-"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def behind(points, section):
    """Metric families where osprey trails the best peer, with the sizes and the worst ratio."""
    worst = collections.defaultdict(list)
    for (s, metric, x), p in points.items():
        if s == section and p["ratio_best"] and behind_by(metric, p["ratio_best"]):
            worst[metric].append((x, p["ratio_best"], engines.LABELS[p["best_peer"]],
                                  p["pairs_behind"], p["pairs_compared"]))
    lines = []
    for metric, pts in sorted(worst.items()):
        pts.sort()
        bad = max(pts, key=lambda t: behind_by(metric, t[1]))
        xs = ", ".join(size(x) if x_kind(metric) == "bytes" else str(x) for x, *_ in pts)
        every = sum(1 for t in pts if t[3] == t[4])
        lines.append(f"- `{metric}` at {xs}: worst {bad[1]:.2f} ({x_kind(metric)} {bad[0]}, "
                     f"against {bad[2]}; behind in {bad[3]} of {bad[4]} pairs there; "
                     f"{every} of {len(pts)} sizes behind in every pair)")
    return lines or ["- nowhere"]


def plots(points, rows, out):
    """PNG charts: latency and bandwidth vs size per flavor, both engines (and Open MPI) on each
    chart, with the machine's physical references; sync scaling and posting scaling."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ref = collections.defaultdict(list)
    for r in rows:
        if r["section"] == "reference":
            ref[(r["metric"], int(r["x"]))].append(float(r["value"]))
    round_trip = statistics.median(ref[("cacheline_round_trip", 8)]) if ref else None
    made = []

    def series(section, metric, engine):
        pts = sorted((k[2], p[engine]) for k, p in points.items()
                     if k[0] == section and k[1] == metric and p.get(engine) is not None)
        return [x for x, _ in pts], [v for _, v in pts]

    def grid(name, section, rows_, title, reference):
        fig, axes = plt.subplots(len(rows_), len(SYNCS), figsize=(4 * len(SYNCS), 3 * len(rows_)),
                                 squeeze=False)
        for i, (label, metric_of) in enumerate(rows_):
            for j, sync in enumerate(SYNCS):
                ax = axes[i][j]
                metric = metric_of(sync)
                for e in [engines.OSPREY[section]] + engines.PEERS[section]:
                    xs, ys = series(section, metric, e)
                    mine = e == engines.OSPREY[section]
                    if xs:
                        ax.plot([max(x, 1) for x in xs], ys, marker=".", label=engines.LABELS[e],
                                lw=2.2 if mine else 1.2, zorder=3 if mine else 2)
                reference(ax)
                ax.set_xscale("log", base=2)
                ax.set_yscale("log")
                ax.set_title(f"{label}, {sync}", fontsize=9)
                ax.grid(True, which="both", alpha=0.3)
                if i == len(rows_) - 1:
                    ax.set_xlabel("bytes")
        axes[0][0].legend(fontsize=8)
        fig.suptitle(title)
        fig.tight_layout()
        path = os.path.join(out, name)
        fig.savefig(path, dpi=70)
        plt.close(fig)
        made.append(os.path.basename(path))

    def latency_ref(ax):
        if round_trip:
            ax.axhline(round_trip, color="grey", ls=":", lw=1, label="cache-line round trip")

    def bw_ref(ax):
        for metric, style in (("memcpy_hot", "--"), ("memcpy_cold", ":")):
            pts = sorted((x, statistics.median(v)) for (m, x), v in ref.items() if m == metric)
            if pts:
                ax.plot([x for x, _ in pts], [v for _, v in pts], color="grey", ls=style, lw=1,
                        label=metric.replace("_", " "))

    sections = [s for s in engines.OSPREY if any(k[0] == s for k in points)]
    for section in sections:
        for flavor in FLAVORS:
            if not any(k[0] == section and k[1].endswith("_" + flavor) for k in points):
                continue
            lat_rows = [(op, lambda s, op=op: f"lat_{op}_{s}_{flavor}")
                        for op in ("put", "get", "acc", "getacc")]
            grid(f"latency_{section}_{flavor}.png", section, lat_rows,
                 f"Latency (us) vs size, {flavor} windows, {section} path", latency_ref)
            bw_rows = [(op, lambda s, op=op: f"bw_{op}_{s}_{flavor}")
                       for op in ("put", "get", "put_bi", "get_bi")]
            grid(f"bandwidth_{section}_{flavor}.png", section, bw_rows,
                 f"Bandwidth (MB/s) vs size, {flavor} windows, {section} path", bw_ref)

    fig, axes = plt.subplots(len(sections), 4, figsize=(16, 3.2 * len(sections)), squeeze=False)
    for i, section in enumerate(sections):
        panels = [("pscw_epoch", "PSCW epoch (us) vs ranks"), ("fence", "fence (us) vs ranks"),
                  ("post_put", "posting a put (ns) vs targets"),
                  ("rate_put_flush_allocate", "put rate (Mops/s) vs bytes")]
        for j, (metric, title) in enumerate(panels):
            ax = axes[i][j]
            for e in [engines.OSPREY[section]] + engines.PEERS[section]:
                xs, ys = series(section, metric, e)
                if xs:
                    ax.plot(xs, ys, marker="o", label=engines.LABELS[e])
            ax.set_yscale("log")
            if metric.startswith("rate_"):
                ax.set_xscale("log", base=2)
            ax.set_title(f"{title}, {section} path", fontsize=9)
            ax.grid(True, which="both", alpha=0.3)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "scaling.png"), dpi=70)
    plt.close(fig)
    made.append("scaling.png")
    return made


def machine_lines(run):
    m = run.get("machine", {})
    return [f"- {k}: {v}" for k, v in m.items()]


def write_markdown(points, rows, run, made, out, path):
    rel = os.path.relpath(out, os.path.dirname(path))
    ref = collections.defaultdict(list)
    for r in rows:
        if r["section"] == "reference":
            ref[(r["metric"], int(r["x"]), r["placement"])].append(float(r["value"]))
    md = ["# Benchmark results", "",
          "Generated by `bench/report.py` from the run below; do not edit by hand (re-run the "
          "command instead).", "",
          f"- command: `{run['command']}` (from the repository root)",
          f"- finished: {run['finished']}, {run['seconds']} s, {run['configurations']} "
          f"configurations, {run['pairs']} pairs each" +
          (f"; the {len(run['rechecked'])} with a row behind after those, "
           f"{run['recheck_pairs']} pairs more (bench/run.py --recheck)"
           if run.get("rechecked") else "") +
          (f"; the {len(run['rechecked_thin'])} still behind with fewer than 3 pairs whose "
           f"placement held, {run['recheck_pairs']} pairs more again"
           if run.get("rechecked_thin") else ""),
          *machine_lines(run), "",
          "Each engine runs the same benchmark source (`bench/*.c`, plain MPI) in alternation, "
          "pair by pair; a cache-line probe before and after each pair drops pairs whose core "
          "placement changed (see docs/BENCHMARKING.md). Values are medians over the kept "
          "pairs; ratios are medians of the per-pair ratios osprey / best peer of that pair. For "
          "times a ratio below 1 means osprey is faster; for bandwidth and rates, above 1. "
          f"\"Behind\" means worse than the best peer by more than {EVEN:.0%}. Single runs "
          "here differ by far more than that (the two cores change placement every few "
          "minutes)" + (": a configuration with a row behind after its first pairs ran more "
                        "pairs, and all of them make its medians." if run.get("rechecked")
                        else ".") + " Each line of a \"behind\" list tells in how many of "
          "the kept pairs osprey trailed at its worst size, and at how many of its sizes it "
          "trailed in every pair: a median behind from pairs that disagree says the placement "
          "moved more than the engines differ.", "",
          "## Physical references on this machine", ""]
    for (metric, x, where), vals in sorted(ref.items()):
        u = "us" if metric.endswith("round_trip") else "MB/s"
        if metric.startswith("memcpy") and x not in (8, 1 << 20, 4 << 20):
            continue
        label = f"{metric} {size(x)}" + (f" ({where} placement)" if where else "")
        md.append(f"- {label}: {statistics.median(vals):,.3f} {u}")
    titles = [h[0] for h in HEADLINES]
    keys = [(h[1], h[2]) for h in HEADLINES]
    names = {"node": "Node path (shared memory): osprey against MPICH and Open MPI",
             "message": "Message path: osprey with OSPREY_TRANSPORT=am against MPICH with "
                        "MPIR_CVAR_NOLOCAL=1",
             "network": "Message path over a network: both engines' messages over loopback TCP "
                        "(MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self; osprey with "
                        "OSPREY_TRANSPORT=am)",
             "openmpi": "Open MPI as the host: osprey under Open MPI against Open MPI's own RMA "
                        "(osc sm+pt2pt, and its default choice)"}
    for section in engines.OSPREY:
        if not any(k[0] == section for k in points):
            continue
        md += ["", f"## {names[section]}", "", "### Headline figures (allocated windows)", ""]
        md += table(points, section, keys, titles)
        md += ["", "### Where osprey is behind the best peer", ""] + behind(points, section)
        for heading, metric_of, x in (
                ("Latency at 8 bytes (us)", lambda op, s, f: f"lat_{op}_{s}_{f}", 8),
                ("Latency at 64 KiB (us)", lambda op, s, f: f"lat_{op}_{s}_{f}", 1 << 16),
                ("Bandwidth at 1 MiB (MB/s)", lambda op, s, f: f"bw_{op}_{s}_{f}", 1 << 20)):
            ops = ("put_bi", "get_bi", "put", "get") if "bw" in heading else (
                "put", "get", "acc", "getacc", "fop", "cas")
            sel = [(metric_of(op, s, f), x) for f in FLAVORS for s in SYNCS for op in ops
                   if (section, metric_of(op, s, f), x) in points]
            md += ["", f"### {heading}", ""]
            md += table(points, section, sel, [m for m, _ in sel])
        scale = sorted(k[1:] for k in points if k[0] == section and
                       (k[1] in ("pscw_epoch", "pscw_start", "pscw_complete", "pscw_post",
                                 "pscw_wait", "fence", "sync_mix") or
                        k[1].startswith(("post_", "lock_handover_"))))
        md += ["", "### Synchronization vs ranks, posting vs distinct targets", "",
               "The calls of a PSCW epoch (`pscw_start`, `pscw_complete`, `pscw_post`, "
               "`pscw_wait`) are timed one by one, but each engine waits in a different one "
               "(osprey's `MPI_Win_start` returns at once and `MPI_Win_complete` waits for the "
               "posts; Open MPI's start waits and its complete returns at once): their ratios "
               "are marked \"split differs\" and left out of the lists above; `pscw_epoch` "
               "compares. `sync_mix` is issue 12's lock_all loop (store, `MPI_Win_sync`, barrier, "
               "one operation + flush, barrier; us per iteration), `lock_handover_<flavor>` a "
               "queue lock the program builds from RMA atomics and polls (us per acquisition).",
               ""]
        md += table(points, section, scale, [f"{m} ({x_kind(m)} {x})" for m, x in scale])
    md += ["", "## Plots", ""] + [f"![{m}]({rel}/{m})" for m in made]
    if run.get("failures"):
        md += ["", "## Runs that failed", ""]
        md += [f"- {label}: {e}, pair {p}: {why}" for label, e, p, why in run["failures"]]
    md += ["", f"All values: `{rel}/summary.csv` (medians and ratios); every single run is in "
           f"`{rel}/raw.csv` where the benchmark ran (kept out of the repository).", ""]
    with open(path, "w") as f:
        f.write("\n".join(md))


def main(argv):
    out = argv[0] if argv else os.path.join(HERE, "results")
    path = argv[1] if len(argv) > 1 else os.path.join(HERE, "RESULTS.md")
    with open(os.path.join(out, "raw.csv")) as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(out, "run.json")) as f:
        run = json.load(f)
    points = summarize(rows)
    with open(os.path.join(out, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f)
        peers = sorted({e for p in engines.PEERS.values() for e in p})
        w.writerow(["section", "metric", "x", "x_kind", "unit", "osprey"] + peers +
                   ["best_peer", "osprey_over_best_peer", "osprey_over_host", "pairs_kept",
                    "placement"])
        for (section, metric, x), p in sorted(points.items()):
            w.writerow([section, metric, x, x_kind(metric), unit(metric),
                        p[engines.OSPREY[section]]] + [p.get(e, "") for e in peers] +
                       [p["best_peer"], p["ratio_best"], p["ratio_host"], p["pairs"],
                        p["placement"]])
    made = plots(points, rows, out)
    write_markdown(points, rows, run, made, out, path)


if __name__ == "__main__":
    main(sys.argv[1:])
