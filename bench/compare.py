#!/usr/bin/env python3
"""Runs one benchmark command with the host MPI's RMA and with osprey preloaded, alternately,
pair by pair, with a cache-line placement probe before and after each pair (see
../shared/BENCHMARKING.md). Reports per metric the medians and the median of the per-pair
osprey/host ratios, over the pairs whose placement did not change.

  bench/compare.py [--pairs 5] [--np 2] [--build build] -- <benchmark> [args...]

The benchmark prints lines "BENCH <name> <bytes> <value>"; values are times (lower is better)
unless the name ends in _bw or _rate."""
import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def probe(build):
    out = subprocess.run([os.path.join(build, "bench", "cacheline_probe")], capture_output=True,
                         text=True, check=True).stdout
    return float(re.search(r"PROBE \S+ ([\d.]+)", out).group(1))


def placement(ns):
    return "near" if ns < 110 else "far"


def run(cmd, env):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if p.returncode != 0:
        sys.exit(f"compare: {' '.join(cmd)} failed:\n{p.stdout}\n{p.stderr}")
    res = {}
    for m in re.finditer(r"^BENCH (\S+) (\d+) ([\d.eE+-]+)$", p.stdout, re.M):
        res[(m.group(1), int(m.group(2)))] = float(m.group(3))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        ap.error("no benchmark command")
    mpiexec = subprocess.run(["sh", "-c", "command -v mpiexec.mpich || command -v mpiexec"],
                             capture_output=True, text=True).stdout.strip()
    lib = os.path.join(a.build, "lib", "libosprey.so")
    env = dict(os.environ)
    host_cmd = [mpiexec, "-n", str(a.np)] + cmd
    osprey_cmd = [mpiexec, "-n", str(a.np), "-genv", "LD_PRELOAD", lib] + cmd

    pairs = []
    for i in range(a.pairs):
        before = probe(a.build)
        order = [("host", host_cmd), ("osprey", osprey_cmd)]
        if i % 2:
            order.reverse()
        got = {name: run(c, env) for name, c in order}
        after = probe(a.build)
        pairs.append((before, after, got))
        print(f"pair {i}: probe {before:.0f}/{after:.0f} ns "
              f"({placement(before)}/{placement(after)})", file=sys.stderr)

    stable = [p for p in pairs if placement(p[0]) == placement(p[1])] or pairs
    keys = sorted(stable[0][2]["host"].keys())
    print(f"# {len(stable)} of {len(pairs)} pairs kept (placement unchanged), np={a.np}")
    print(f"# command: {' '.join(cmd)}")
    print(f"{'metric':<22}{'bytes':>9}{'host':>12}{'osprey':>12}{'osprey/host':>13}")
    for k in keys:
        h = [p[2]["host"][k] for p in stable if k in p[2]["host"]]
        o = [p[2]["osprey"][k] for p in stable if k in p[2]["osprey"]]
        r = [p[2]["osprey"][k] / p[2]["host"][k] for p in stable
             if k in p[2]["osprey"] and p[2]["host"].get(k)]
        print(f"{k[0]:<22}{k[1]:>9}{statistics.median(h):>12.4f}{statistics.median(o):>12.4f}"
              f"{statistics.median(r):>13.3f}")


if __name__ == "__main__":
    main()
