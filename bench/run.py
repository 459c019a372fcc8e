#!/usr/bin/python3
"""The benchmark suite: builds the benchmarks, runs every configuration with the host MPI's RMA,
with osprey preloaded and with Open MPI's RMA, alternately, pair by pair, with a cache-line
placement probe before and after each pair; then the message path the same way (osprey with
OSPREY_TRANSPORT=am against MPICH with MPIR_CVAR_NOLOCAL=1). Writes every value to
bench/results/raw.csv and how the run went to bench/results/run.json; bench/report.py then
makes summary.csv, the plots and bench/RESULTS.md from them.

  bench/run.py [--pairs 3] [--recheck 3] [--quick] [--only REGEX] [--build build]
               [--out bench/results]

--recheck N: each configuration with a row behind the best peer after its first pairs runs N
pairs more, and every row of it is then the median over all its kept pairs (one more look, not
a retry until it passes: the extra pairs count whichever way they go). A configuration still
behind with fewer than 3 pairs whose placement held runs N pairs once more (placement changes
had left lock rows against Open MPI on one kept pair). --quick runs a few
configurations only (a smoke run of the whole chain, not for quoting)."""
import argparse
import csv
import datetime
import json
import os
import re
import subprocess
import sys
import time

import engines
import report

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FLAVORS = ["allocate", "create", "dynamic"]
SYNCS = ["flush", "lock", "lock_all", "fence", "pscw"]


def suite(quick):
    """(section, np, argv) per configuration, in the order they run."""
    node, message = [], []
    for flavor in FLAVORS:
        for sync in SYNCS:
            if quick and (flavor != "allocate" or sync not in ("flush", "fence")):
                continue
            node.append(("node", 2, ["rma_latency", "-f", flavor, "-s", sync]))
            node.append(("node", 2, ["rma_bw", "-f", flavor, "-s", sync]))
    # Windows created over MPI_Alloc_mem memory (node-shared under osprey): flush only.
    if not quick:
        node.append(("node", 2, ["rma_latency", "-f", "alloc_mem", "-s", "flush"]))
        node.append(("node", 2, ["rma_bw", "-f", "alloc_mem", "-s", "flush"]))
    # The message path: every synchronization on allocated windows, flush on the others.
    for flavor in FLAVORS:
        for sync in SYNCS if flavor == "allocate" else ["flush"]:
            if quick and (flavor != "allocate" or sync != "flush"):
                continue
            message.append(("message", 2, ["rma_latency", "-f", flavor, "-s", sync]))
            message.append(("message", 2, ["rma_bw", "-f", flavor, "-s", sync]))
    for np in [2, 3, 4] if not quick else [2, 3]:
        node.append(("node", np, ["pscw_sync"]))
        message.append(("message", np, ["pscw_sync"]))
    # The message path where ranks are joined by a network: both engines' messages over loopback
    # TCP (MPICH's own RMA included, which with MPIR_CVAR_NOLOCAL=1 alone still reaches window
    # memory through UCX's shared-memory transports).
    network = []
    for sync in ["flush", "lock", "fence", "pscw"] if not quick else ["flush"]:
        network.append(("network", 2, ["rma_latency", "-f", "allocate", "-s", sync]))
    for sync in ["flush", "fence"] if not quick else ["flush"]:
        network.append(("network", 2, ["rma_bw", "-f", "allocate", "-s", sync]))
    if not quick:  # (at 3 ranks on 2 CPUs over TCP both engines take minutes)
        network.append(("network", 2, ["pscw_sync"]))
    # More ranks than cores: fence, PSCW and issue 12's lock_all loop (sync_mix) at 8 ranks on
    # a 2-core machine measure how waits hand the CPU to the rank they wait for.
    if not quick:
        node.append(("node", 8, ["pscw_sync", "10", "5"]))
    for np in [2, 3, 4, 8] if not quick else [3]:
        node.append(("node", np, ["sync_mix", "20", "5"]))
    # A lock the program builds from RMA atomics and polls in its own loop (MCS), handed over
    # between ranks: at 3 and 4 ranks on 2 CPUs the next owner must get a CPU from the pollers.
    if not quick:
        for np in [2, 3, 4]:
            for flavor in ["allocate", "create", "dynamic"]:
                node.append(("node", np, ["lock_handover", "-f", flavor]))
        message.append(("message", 3, ["lock_handover", "-f", "allocate"]))
    # Batches small enough that no target's queue fills up mid-batch, so that flow control
    # stays out of the posting cost.
    for section in (node, message):
        section.append((section[0][0], 4 if quick else 8, ["post_scaling", "-b", "32"]))
    # Noncontiguous target layouts (vector, subarray, indexed; fresh and reused types): a small
    # and a large shape keep each run to a few seconds. On the node also strided origins (the
    # target's type on both sides, and another array's patch).
    for section in (node, message):
        section.append((section[0][0], 2, ["noncontig", "-z", "8x64,128x256"]))
    node.append(("node", 2, ["noncontig", "-z", "8x64,128x256", "-s", "same,strided"]))
    # osprey under Open MPI against Open MPI's own RMA (osc/sm+pt2pt, and its default choice):
    # latency and bandwidth on every flavor with flush and fence, fence and PSCW cost.
    ompi = []
    for flavor in FLAVORS if not quick else ["allocate"]:
        for sync in ["flush", "fence"] if not quick else ["flush"]:
            ompi.append(("openmpi", 2, ["rma_latency", "-f", flavor, "-s", sync]))
            ompi.append(("openmpi", 2, ["rma_bw", "-f", flavor, "-s", sync]))
    if not quick:
        ompi.append(("openmpi", 3, ["pscw_sync"]))
        # Under one launcher and one type constructor: posting at 8 ranks (MPICH's launcher
        # gives every rank a CPU share of its own, docs/NOTES.md) and fresh derived types (each
        # engine builds them with its own host's constructor).
        ompi.append(("openmpi", 8, ["post_scaling", "-b", "32"]))
        ompi.append(("openmpi", 2, ["noncontig", "-z", "8x64,128x256"]))
        ompi.append(("openmpi", 2, ["noncontig", "-z", "8x64,128x256", "-s", "same,strided"]))
    return node + message + network + ompi


def measure(configs, pairs, build_dir, rows, failures, first_pair=0):
    """Runs each configuration `pairs` times per engine, alternating the order pair by pair
    (numbered from first_pair). Returns which configuration each (section, metric, x) came
    from."""
    probes, p2p = [], []
    origin = {}
    for n, (section, np, argv) in enumerate(configs):
        if section == "message" and np == 2:
            # The floor of any operation that waits for an answer on the message path: the
            # host's own point-to-point round trip, in the placement of the moment.
            one_way, _ = engines.probe(build_dir)
            rt = engines.p2p_round_trip(build_dir)
            if rt:
                p2p.append((one_way, rt))
        names = [engines.OSPREY[section]] + engines.PEERS[section]
        names = [e for e in names if engines.available(e, build_dir)]
        label = f"{section} np={np} {' '.join(argv)}"
        print(f"[{n + 1}/{len(configs)}] {label}", file=sys.stderr, flush=True)
        for pair in range(first_pair, first_pair + pairs):
            before, rt_before = engines.probe(build_dir)
            got = {}
            for e in names if pair % 2 == 0 else names[::-1]:
                got[e], why = engines.run(e, np, argv, build_dir)
                if why:
                    failures.append([label, e, pair, why])
                    print(f"  {e} failed: {why}", file=sys.stderr)
            after, rt_after = engines.probe(build_dir)
            probes += [(before, rt_before), (after, rt_after)]
            where = engines.placement(before)
            if engines.placement(after) != where:
                where = "changed"
            for e, values in got.items():
                for (metric, x), v in values.items():
                    rows.append([section, argv[0], np, e, pair, where, metric, x, v])
                    origin[(section, metric, x)] = n
    for one_way, rt in probes:
        rows.append(["reference", "cacheline_probe", 2, "machine", 0, engines.placement(one_way),
                     "cacheline_round_trip", 8, rt])
    for one_way, rt in p2p:
        rows.append(["reference", "host_calls", 2, "machine", 0, engines.placement(one_way),
                     "p2p_round_trip", 8, rt])
    return origin


def behind_configs(configs, rows, origin, fewer_kept_than=None):
    """The configurations with a row behind the best peer (as bench/RESULTS.md lists them); with
    fewer_kept_than, only where such a row has fewer pairs whose placement held."""
    keys = ["section", "benchmark", "np", "engine", "pair", "placement", "metric", "x", "value"]
    points = report.summarize([dict(zip(keys, r)) for r in rows])
    picked = sorted({origin[(section, metric, x)]
                     for (section, metric, x), p in points.items()
                     if (section, metric, x) in origin and p["ratio_best"] and
                     report.behind_by(metric, p["ratio_best"]) and
                     (fewer_kept_than is None or p["pairs_unchanged"] < fewer_kept_than)})
    return [configs[i] for i in picked]


def sh(cmd):
    p = subprocess.run(["sh", "-c", cmd], capture_output=True, text=True)
    return p.stdout.strip() or "unknown"


def sessions(launch, env=None):
    """How many sessions a launcher's two ranks are in (1: shared, 2: one each)."""
    p = subprocess.run(["sh", "-c", launch + " sh -c 'ps -o sid= -p $$'"], capture_output=True,
                       text=True, env={**os.environ, **(env or {})})
    return str(len(set(p.stdout.split()))) if p.returncode == 0 else "unknown"


def machine(build_dir):
    """What the figures depend on, for RESULTS.md."""
    return {
        "cpu": sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'") +
        f", {os.cpu_count()} logical CPUs, " + sh("free -g | awk '/Mem:/{print $2}'") + " GiB",
        "system": sh(". /etc/os-release; echo $PRETTY_NAME") + ", Linux " + sh("uname -r"),
        "compiler": sh("gcc --version | head -1"),
        "host MPI": "MPICH " + sh("mpichversion 2>/dev/null | sed -n 's/MPICH Version:[[:space:]]*//p'") +
        " (" + sh("mpichversion 2>/dev/null | sed -n 's/MPICH Device:[[:space:]]*//p'") + ")",
        "Open MPI": sh("ompi_info --version 2>/dev/null | head -1") + ", osc " +
        engines.OPENMPI_ENV["OMPI_MCA_osc"],
        "osprey": sh(f"git -C {ROOT} describe --always --dirty"),
        # With autogroup on, a rank in a session of its own gets an equal CPU share, waiting or
        # not (MPICH's mpiexec starts each rank so, unless engines.mpich_env keeps them in one):
        # this decides the rows with more ranks than CPUs.
        "kernel.sched_autogroup_enabled": sh("cat /proc/sys/kernel/sched_autogroup_enabled"),
        "sessions of 2 ranks": "MPICH " + sessions("mpiexec.mpich -n 2",
                                                     engines.mpich_env(build_dir)) + ", Open MPI " +
        sessions("mpiexec.openmpi -n 2", engines.OPENMPI_ENV),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--recheck", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", help="run only configurations whose command matches this regex")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    a = ap.parse_args()
    if a.pairs < 1:
        ap.error("--pairs must be at least 1")
    started = time.time()
    engines.build(ROOT, a.build)
    # Described as built (git describe --dirty now, before the measurements): a file edited
    # while the run goes on did not make these binaries.
    described = machine(a.build)
    os.makedirs(a.out, exist_ok=True)

    configs = suite(a.quick)
    if a.only:
        configs = [c for c in configs if re.search(a.only, " ".join(c[2]))]
    rows, failures = [], []
    mem = subprocess.run([os.path.join(a.build, "bench", "memcpy_bw")], capture_output=True,
                         text=True, check=True).stdout
    for (metric, x), v in engines.parse(mem).items():
        rows.append(["reference", "memcpy_bw", 1, "machine", 0, "", metric, x, v])
    origin = measure(configs, a.pairs, a.build, rows, failures)
    rechecked = behind_configs(configs, rows, origin) if a.recheck > 0 else []
    if rechecked:
        print(f"recheck: {len(rechecked)} configurations, {a.recheck} pairs more",
              file=sys.stderr, flush=True)
        measure(rechecked, a.recheck, a.build, rows, failures, first_pair=a.pairs)
    thin = behind_configs(configs, rows, origin, fewer_kept_than=3) if rechecked else []
    if thin:
        print(f"recheck: {len(thin)} configurations with few kept pairs, {a.recheck} pairs more",
              file=sys.stderr, flush=True)
        measure(thin, a.recheck, a.build, rows, failures, first_pair=a.pairs + a.recheck)

    with open(os.path.join(a.out, "raw.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["section", "benchmark", "np", "engine", "pair", "placement", "metric", "x",
                    "value"])
        w.writerows(rows)
    run = {
        "command": " ".join(["bench/run.py"] + sys.argv[1:]),
        "finished": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "seconds": round(time.time() - started),
        "pairs": a.pairs,
        "configurations": len(configs),
        "rechecked": [f"{sec} np={np} {' '.join(argv)}" for sec, np, argv in rechecked],
        "recheck_pairs": a.recheck if rechecked else 0,
        "rechecked_thin": [f"{sec} np={np} {' '.join(argv)}" for sec, np, argv in thin],
        "failures": failures,
        "machine": described,
    }
    with open(os.path.join(a.out, "run.json"), "w") as f:
        json.dump(run, f, indent=1)
    report.main([a.out, os.path.join(HERE, "RESULTS.md")])
    print(f"done in {time.time() - started:.0f} s: {a.out}/raw.csv, summary.csv, plots, "
          f"bench/RESULTS.md", file=sys.stderr)


if __name__ == "__main__":
    main()
