"""How the benchmark runners start one benchmark binary under each RMA engine, read what it
printed, and probe the cores' placement (see docs/BENCHMARKING.md).

An engine is the MPI that launches the binary plus what answers its RMA calls:
  host          MPICH's own RMA                        (mpiexec.mpich, <bench>)
  osprey        osprey preloaded under MPICH            (mpiexec.mpich, <bench>)
  openmpi       Open MPI's RMA, osc/sm for allocated    (mpiexec.openmpi, <bench>.openmpi)
                windows, osc/pt2pt for the others
  openmpi_default  Open MPI's RMA with its default one-sided component choice
  osprey_ompi   osprey preloaded under Open MPI         (mpiexec.openmpi, <bench>.openmpi)
  host_nolocal  MPICH's RMA with its shared-memory path off (MPIR_CVAR_NOLOCAL=1)
  osprey_am     osprey with every target on the message path (OSPREY_TRANSPORT=am)
  host_tcp      MPICH's RMA with every message over loopback TCP (MPIR_CVAR_NOLOCAL=1,
                UCX_TLS=tcp,self): ranks as on nodes joined by a network
  osprey_tcp    osprey's message path over the same loopback TCP, its peers on other (pretend)
                nodes (OSPREY_VIRTUAL_NODES=2)
  baseline      osprey from another build (an earlier commit), preloaded the same way
  baseline_am   the same with OSPREY_TRANSPORT=am
  baseline_tcp  the same over loopback TCP, as osprey_tcp
  baseline_ompi the same under Open MPI, as osprey_ompi (the build's openmpi/ folder)"""
import os
import re
import shutil
import subprocess

PEERS = {"node": ["host", "openmpi"], "message": ["host_nolocal"], "network": ["host_tcp"],
         "openmpi": ["openmpi", "openmpi_default"]}
OSPREY = {"node": "osprey", "message": "osprey_am", "network": "osprey_tcp",
          "openmpi": "osprey_ompi"}
LABELS = {
    "host": "MPICH",
    "osprey": "osprey",
    "openmpi": "Open MPI",
    "openmpi_default": "Open MPI (default osc)",
    "osprey_ompi": "osprey (Open MPI host)",
    "host_nolocal": "MPICH (NOLOCAL)",
    "osprey_am": "osprey (am)",
    "host_tcp": "MPICH (TCP)",
    "osprey_tcp": "osprey (TCP)",
    "baseline": "baseline",
    "baseline_am": "baseline (am)",
    "baseline_tcp": "baseline (TCP)",
    "baseline_ompi": "baseline (Open MPI host)",
}
# Open MPI's default one-sided component (osc/rdma) crashes in MPI_Compare_and_swap here; sm is
# its fastest on a node and pt2pt covers the flavors sm cannot. Binding off, as under MPICH's
# launcher, so that launchers do not differ in placement (nor in sessions: mpich_env).
OPENMPI_ENV = {
    "OMPI_MCA_osc": "sm,pt2pt",
    "OMPI_MCA_hwloc_base_binding_policy": "none",
    "OMPI_MCA_rmaps_base_oversubscribe": "1",
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
}
LINE = re.compile(r"^BENCH (\S+) (\d+) ([\d.eE+-]+|inf|nan)$", re.M)


# The benchmark programs (build/bench/<name>, and <name>.openmpi built against Open MPI).
BINARIES = ["rma_latency", "rma_bw", "pscw_sync", "post_scaling", "noncontig", "sync_mix",
            "lock_handover", "host_calls"]


def build(root, build_dir):
    """Builds what the runners measure: osprey, the benchmarks and the probes in build_dir, and
    osprey for Open MPI in build_dir/openmpi (where openmpi_library looks), so that no run
    measures a library older than the source."""
    targets = ["osprey", "cacheline_probe", "memcpy_bw", "one_session"] + BINARIES
    if mpiexec("openmpi"):
        targets += [b + "_openmpi" for b in BINARIES]
    _build(root, build_dir, [], targets)
    if mpiexec("openmpi"):
        _build(root, os.path.join(build_dir, "openmpi"), ["-DOSPREY_HOST_MPI=OPENMPI"],
               ["osprey"])


def _build(root, folder, options, targets):
    """Configures folder (RelWithDebInfo, as tools/setup.sh) if it is new, then builds targets."""
    if not os.path.exists(os.path.join(folder, "CMakeCache.txt")):
        subprocess.run(["cmake", "-S", root, "-B", folder, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"] +
                       options, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", folder, "-j", str(os.cpu_count() or 2), "--target"] +
                   targets, check=True, stdout=subprocess.DEVNULL)


def mpiexec(flavor):
    name = {"mpich": "mpiexec.mpich", "openmpi": "mpiexec.openmpi"}[flavor]
    path = shutil.which(name) or (shutil.which("mpiexec") if flavor == "mpich" else None)
    return path


def openmpi_library(build):
    """osprey built for Open MPI: the folder openmpi/ inside the (MPICH) build folder."""
    return os.path.join(build, "openmpi", "lib", "libosprey-openmpi.so")


def available(engine, build):
    if engine.startswith("openmpi") or engine == "osprey_ompi":
        return bool(mpiexec("openmpi")) and os.path.exists(
            os.path.join(build, "bench", "rma_latency.openmpi")) and (
            engine != "osprey_ompi" or os.path.exists(openmpi_library(build)))
    return bool(mpiexec("mpich"))


def osprey_library(build):
    """The MPICH flavor of osprey in a build folder; a baseline built before the libraries were
    named after their host MPI has libosprey.so instead."""
    lib = os.path.join(build, "lib", "libosprey-mpich.so")
    old = os.path.join(build, "lib", "libosprey.so")
    return old if not os.path.exists(lib) and os.path.exists(old) else lib


def mpich_env(build):
    """What MPICH's launcher runs under: one_session.c preloaded, so that its ranks share the
    caller's session as Open MPI's do (with autogroup scheduling, a rank that leads a session of
    its own keeps an equal share of an oversubscribed CPU while it waits). Ranks that preload
    osprey get their own LD_PRELOAD (-genv); the others inherit this one, which they never
    call."""
    shim = os.path.join(build, "bench", "libone_session.so")
    return {"LD_PRELOAD": shim} if os.path.exists(shim) else {}


def command(engine, np, argv, build, baseline=None):
    """The command line and environment that run argv[0] (a name in build/bench) under engine;
    the baseline engines preload the library of the build folder `baseline`."""
    env = dict(os.environ)
    binary = os.path.join(build, "bench", argv[0])
    lib = osprey_library(baseline if engine.startswith("baseline") else build)
    if engine.startswith("openmpi") or engine.endswith("_ompi"):
        env.update(OPENMPI_ENV)
        cmd = [mpiexec("openmpi"), "-n", str(np)]
        args = argv[1:]
        if engine == "openmpi_default":
            del env["OMPI_MCA_osc"]
            if argv[0] == "rma_latency" and "-o" not in args:  # its compare_and_swap crashes
                args = args + ["-o", "put,get,acc,getacc,fop,sync"]
        if engine.endswith("_ompi"):
            cmd += ["-x", "LD_PRELOAD=" + openmpi_library(
                baseline if engine.startswith("baseline") else build)]
        return cmd + [binary + ".openmpi"] + args, env
    cmd = [mpiexec("mpich"), "-n", str(np)]
    env.update(mpich_env(build))
    if engine.startswith(("osprey", "baseline")):
        cmd += ["-genv", "LD_PRELOAD", lib]
    if engine.endswith(("_am", "_tcp")):
        env["OSPREY_TRANSPORT"] = "am"
    if engine in ("host_nolocal", "host_tcp", "osprey_tcp", "baseline_tcp"):
        env["MPIR_CVAR_NOLOCAL"] = "1"
    if engine.endswith("_tcp"):
        env["UCX_TLS"] = "tcp,self"
        if engine != "host_tcp":  # osprey knows its peers are on other nodes, as they would be
            env["OSPREY_VIRTUAL_NODES"] = "2"
    return cmd + [binary] + argv[1:], env


def parse(text):
    """{(metric, x): value} from the BENCH lines a benchmark printed."""
    return {(m.group(1), int(m.group(2))): float(m.group(3)) for m in LINE.finditer(text)}


def run(engine, np, argv, build, timeout=60, baseline=None):
    """Runs one benchmark (each takes seconds; MPICH now and then stalls for good with more ranks
    than cores, hence the timeout); returns ({(metric, x): value}, None) or ({}, why it failed). Checks
    that the engine that answered is the one asked for, so a preload that did not take cannot
    pass for osprey."""
    cmd, env = command(engine, np, argv, build, baseline)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {}, f"timed out after {timeout} s"
    if p.returncode != 0:
        tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
        return {}, f"exit {p.returncode}: " + " | ".join(tail)
    m = re.search(r"^ENGINE (\S+)", p.stdout, re.M)
    answered = m.group(1) if m else None
    if answered is not None and (answered == "osprey") != engine.startswith(("osprey", "baseline")):
        return {}, f"RMA answered by {answered}, not {engine}"
    return parse(p.stdout), None


def probe(build):
    """(one-way cache-line latency in ns, round trip in us) between two processes now."""
    out = subprocess.run([os.path.join(build, "bench", "cacheline_probe")], capture_output=True,
                         text=True, check=True).stdout
    one_way = float(re.search(r"PROBE \S+ ([\d.]+)", out).group(1))
    return one_way, parse(out).get(("cacheline_round_trip", 8), 2 * one_way / 1000)


def p2p_round_trip(build):
    """The host MPI's own 8-byte MPI_Send/MPI_Recv round trip in us (MPICH, no osprey), or
    None if it could not be measured."""
    cmd, env = command("host", 2, ["host_calls"], build)
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    half = parse(p.stdout).get(("call_pingpong", 8))
    return 2 * half if half else None


def placement(ns):
    return "near" if ns < 110 else "far"
