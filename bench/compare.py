#!/usr/bin/python3
"""Runs one benchmark command under each engine of a path, alternately, pair by pair, with a
cache-line placement probe before and after each pair (see docs/BENCHMARKING.md), and
prints per metric the engines' medians and the median of the per-pair ratios of osprey to each
peer, over the pairs whose placement did not change. For one-off questions; bench/run.py runs
the whole suite.

  bench/compare.py [--pairs 5] [--np 2] [--build build] [--openmpi] [--am] [--baseline DIR]
                   [--tcp] [--host-openmpi] -- <benchmark> [args]

<benchmark> is a name in build/bench (e.g. rma_latency -s fence -o put -M 8). Node path by
default: osprey against MPICH (and Open MPI with --openmpi); --am: the message path; --tcp: the
message path with both engines' messages over loopback TCP; --host-openmpi: osprey under Open MPI
against Open MPI's own RMA (its sm+pt2pt and its default choice).
--baseline DIR: also osprey as built in DIR (e.g. a worktree of an earlier commit), preloaded
into the same benchmark binaries, for before/after comparisons of a change (with
--host-openmpi, the Open MPI flavor in DIR/openmpi). The build folder is brought up to date
first (as bench/run.py does); DIR is used as it is."""
import argparse
import os
import statistics
import sys

import engines

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--openmpi", action="store_true", help="also run <benchmark>.openmpi")
    ap.add_argument("--am", action="store_true", help="the message path")
    ap.add_argument("--tcp", action="store_true", help="the message path over loopback TCP")
    ap.add_argument("--host-openmpi", action="store_true", help="osprey under Open MPI")
    ap.add_argument("--baseline", help="build folder of the osprey to compare against")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    baseline = os.path.abspath(a.baseline) if a.baseline else None
    if not cmd:
        ap.error("no benchmark command")
    section = ("network" if a.tcp else "message" if a.am else
               "openmpi" if a.host_openmpi else "node")
    names = [engines.OSPREY[section]] + [p for p in engines.PEERS[section]
                                         if p != "openmpi" or a.openmpi or a.host_openmpi]
    if baseline:
        names.insert(1, {"network": "baseline_tcp", "message": "baseline_am",
                         "openmpi": "baseline_ompi"}.get(section, "baseline"))
    engines.build(ROOT, a.build)
    pairs = []
    for i in range(a.pairs):
        before, _ = engines.probe(a.build)
        got = {}
        for e in names if i % 2 == 0 else names[::-1]:
            got[e], why = engines.run(e, a.np, cmd, a.build, baseline=baseline)
            if why:
                sys.exit(f"compare: {e}: {why}")
        after, _ = engines.probe(a.build)
        pairs.append((before, after, got))
        print(f"pair {i}: probe {before:.0f}/{after:.0f} ns ({engines.placement(before)}/"
              f"{engines.placement(after)})", file=sys.stderr)

    stable = [p for p in pairs if engines.placement(p[0]) == engines.placement(p[1])] or pairs
    print(f"# {len(stable)} of {len(pairs)} pairs kept (placement unchanged), np={a.np}")
    print(f"# command: {' '.join(cmd)}")
    mine, peers = names[0], names[1:]
    print(f"{'metric':<28}{'x':>9}" + "".join(f"{n:>14}" for n in names) +
          "".join(f"{'osprey/' + n:>20}" for n in peers))
    for k in sorted(stable[0][2][mine]):
        med = [statistics.median([p[2][n][k] for p in stable if k in p[2][n]] or [0])
               for n in names]
        line = f"{k[0]:<28}{k[1]:>9}" + "".join(f"{m:>14.4f}" for m in med)
        for n in peers:
            r = [p[2][mine][k] / p[2][n][k] for p in stable if p[2][n].get(k)]
            line += f"{statistics.median(r) if r else float('nan'):>20.3f}"
        print(line)


if __name__ == "__main__":
    main()
