#!/usr/bin/env python3
"""Runs one benchmark command with the host MPI's RMA and with osprey preloaded, alternately,
pair by pair, with a cache-line placement probe before and after each pair (see
../shared/BENCHMARKING.md). With --openmpi, the same source built against Open MPI
(<benchmark>.openmpi, see bench/CMakeLists.txt) runs in every pair too. Reports per metric the
medians and the median of the per-pair osprey/host (and osprey/Open MPI) ratios, over the
pairs whose placement did not change.

  bench/compare.py [--pairs 5] [--np 2] [--build build] [--openmpi] -- <benchmark> [args...]

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
    ap.add_argument("--openmpi", action="store_true", help="also run <benchmark>.openmpi")
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

    engines = [("host", host_cmd), ("osprey", osprey_cmd)]
    if a.openmpi:
        ompi = subprocess.run(["sh", "-c", "command -v mpiexec.openmpi"], capture_output=True,
                              text=True).stdout.strip()
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_rmaps_base_oversubscribe="1")
        engines.append(("openmpi", [ompi, "-n", str(a.np), cmd[0] + ".openmpi"] + cmd[1:]))
    pairs = []
    for i in range(a.pairs):
        before = probe(a.build)
        order = list(engines)
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
    names = [e[0] for e in engines]
    head = f"{'metric':<22}{'bytes':>9}" + "".join(f"{n:>12}" for n in names)
    head += "".join(f"{'osprey/' + n:>16}" for n in names if n != "osprey")
    print(head)
    for k in keys:
        med = {n: statistics.median([p[2][n][k] for p in stable if k in p[2][n]]) for n in names}
        line = f"{k[0]:<22}{k[1]:>9}" + "".join(f"{med[n]:>12.4f}" for n in names)
        for n in names:
            if n == "osprey":
                continue
            r = [p[2]["osprey"][k] / p[2][n][k] for p in stable
                 if k in p[2]["osprey"] and p[2][n].get(k)]
            line += f"{statistics.median(r):>16.3f}"
        print(line)


if __name__ == "__main__":
    main()
