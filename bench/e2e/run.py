#!/usr/bin/env python3
"""vkstat against NumPy, whole process: from input files to output files.

Each workload runs as one vkstat command and as one NumPy script doing the
same (np.load, the computation, np.save; bench/e2e/numpy_e2e.py, or
bench/peers where a peer fits), in rounds of paired runs (vkstat, NumPy and
a --baseline vkstat if given, each first in turn), timed from outside:
process start to exit,
NumPy's import and vkstat's start-up included. The figures are medians of
--runs rounds; peak RSS is the child's ru_maxrss (wait4). The inputs are
made in a temporary folder (NumPy, or vkstat synth for PACO, SAR and latent
data) and are in the page cache when timed. After the rounds each pair's
main outputs are compared.

Usage: /usr/bin/python3 bench/e2e/run.py [--bin bin/vkstat] [--device cpu]
       [--runs 7 | --quick] [--only map,sum,...] [--baseline OLD-BIN]
       [--out docs/benchmarks/e2e.md]
(scripts/bench-e2e.sh runs this.)
"""
import argparse
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# The NumPy side runs under this Python (scripts/bench-e2e.sh runs it with
# /usr/bin/python3; gpu-run.sh with $PYTHON, the one with NumPy there).
PY = sys.executable
PEER = os.path.join(HERE, "numpy_e2e.py")


class Workload:
    def __init__(self, name, what, make, vk, np_, compare):
        self.name, self.what, self.make, self.vk, self.np, self.compare = name, what, make, vk, np_, compare


def save(path, a):
    if not os.path.exists(path):
        np.save(path, a)
    return path


def workloads(d, bin_):
    """The issue's table (#24). make(d) writes the inputs; vk(out) and np(out)
    are the argument lists, out a fresh folder per run; compare(vk_out,
    np_out) lists (vkstat file, NumPy file, index into NumPy's array or None)."""
    rng = np.random.default_rng(0)
    j = os.path.join

    def map_make():
        save(j(d, "x.npy"), rng.random(5_000_000))
        save(j(d, "y.npy"), rng.random(5_000_000))

    def f32(name, shape):
        def make():
            save(j(d, name), rng.standard_normal(shape, dtype=np.float32) + np.float32(1000))
        return make

    def cov_make():
        save(j(d, "samples.npy"), (100 + rng.standard_normal((2048, 64, 49))).astype(np.float32))

    def synth(args, marker):
        def make():
            if not os.path.exists(j(d, marker)):
                p = subprocess.run([bin_] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                if p.returncode:
                    raise SystemExit(f"making the inputs: vkstat {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
        return make

    reduce_cmp = lambda stats: lambda v, n: [(j(v, s + ".npy"), j(n, s + ".npy"), None) for s in stats]
    dates = [j(d, "slc", f"date_{i:03d}.bin") for i in range(1, 6)]
    return [
        Workload("map", "map z = 3.5x² + 2.8y + 10, 5·10⁶ float64", map_make,
                 lambda o: ["map", "--x", j(d, "x.npy"), "--y", j(d, "y.npy"), "--a", "3.5", "--b", "2.8", "--c", "10", "--out", j(o, "z.npy")],
                 lambda o: [PEER, "map", j(d, "x.npy"), j(d, "y.npy"), "3.5", "2.8", "10", j(o, "z.npy")],
                 lambda v, n: [(j(v, "z.npy"), j(n, "z.npy"), None)]),
        Workload("sum", "sum of 5·10⁶ float64", map_make,
                 lambda o: ["reduce", "--in", j(d, "x.npy"), "--axis", "0", "--stat", "sum", "--out-dir", o],
                 lambda o: [PEER, "reduce", j(d, "x.npy"), "0", "sum", o],
                 reduce_cmp(["sum"])),
        Workload("stack-axis0", "(64, 512, 512) float32, axis 0, mean and std", f32("stack.npy", (64, 512, 512)),
                 lambda o: ["reduce", "--in", j(d, "stack.npy"), "--axis", "0", "--stat", "mean,std", "--out-dir", o],
                 lambda o: [PEER, "reduce", j(d, "stack.npy"), "0", "mean,std", o],
                 reduce_cmp(["mean", "std"])),
        Workload("rows-axis-1", "(8192, 2048) float32, axis −1, mean and std", f32("rows.npy", (8192, 2048)),
                 lambda o: ["reduce", "--in", j(d, "rows.npy"), "--axis", "-1", "--stat", "mean,std", "--out-dir", o],
                 lambda o: [PEER, "reduce", j(d, "rows.npy"), "-1", "mean,std", o],
                 reduce_cmp(["mean", "std"])),
        Workload("cov", "cov (2048, 64, 49) float32, PACO shrinkage", cov_make,
                 lambda o: ["cov", "--in", j(d, "samples.npy"), "--estimator", "paco", "--out-cov", j(o, "cov.npy"),
                            "--out-mean", j(o, "mean.npy"), "--out-rho", j(o, "rho.npy")],
                 lambda o: [PEER, "cov", j(d, "samples.npy"), o],
                 lambda v, n: [(j(v, s + ".npy"), j(n, s + ".npy"), None) for s in ("cov", "mean", "rho")]),
        Workload("paco", "PACO 100×100×252, radius 4 (NumPy: bench/peers/numpy_paco.py)",
                 synth(["synth", "paco", "--size", "100", "--frames", "252", "--format", "npy", "--companion", "sep=20,pa=45,flux=30",
                        "--out-dir", j(d, "adi")], j("adi", "cube.npy")),
                 lambda o: ["paco", "--cube", j(d, "adi", "cube.npy"), "--angles", j(d, "adi", "angles.npy"), "--psf", j(d, "adi", "psf.npy"),
                            "--center", "50,50", "--radius", "4", "--format", "npy", "--quick-contrast", "--out-dir", o],  # the peer calibrates no curve
                 lambda o: [os.path.join(ROOT, "bench", "peers", "numpy_paco.py"), "--cube", j(d, "adi", "cube.npy"), "--angles",
                            j(d, "adi", "angles.npy"), "--psf", j(d, "adi", "psf.npy"), "--radius", "4", "--repeat", "1",
                            "--out", j(o, "snr.npy")],
                 lambda v, n: [(j(v, "snr.npy"), j(n, "snr.npy"), None)]),
        Workload("sar", "SAR: 5 dates of 4096² CFloat32 (ENVI), 4×4 looks, mean and std (NumPy: bench/peers/numpy_stack.py seq)",
                 synth(["synth", "stack", "--dates", "5", "--shape", "4096,4096", "--type", "cfloat32", "--format", "envi", "--seed", "11",
                        "--out-dir", j(d, "slc")], j("slc", "date_005.bin")),
                 lambda o: ["stack", "--looks", "4x4", "--stat", "mean,std", "--format", "npy", "--out-dir", o] + dates,
                 lambda o: [os.path.join(ROOT, "bench", "peers", "numpy_stack.py"), "seq", "--looks", "4x4", "--out", j(o, "mean_std.npy")] + dates,
                 lambda v, n: [(j(v, "mean.npy"), j(n, "mean_std.npy"), 0), (j(v, "std.npy"), j(n, "mean_std.npy"), 1)]),
        Workload("latent", "latent: 16 × [16, 16, 64, 64] float32, moments + corr + lagcorr",
                 synth(["synth", "latent", "--shape", "16,16,16,64,64", "--dtype", "f32", "--seed", "1", "--out", j(d, "lat.npy")], "lat.npy"),
                 lambda o: ["latent", "--in", j(d, "lat.npy"), "--stat", "moments,corr,lagcorr", "--out-dir", o],
                 lambda o: [PEER, "latent", j(d, "lat.npy"), o],
                 lambda v, n: [(j(v, s + ".npy"), j(n, s + ".npy"), None) for s in ("mean", "std", "kurt", "corr", "frame_corr", "lagcorr")]),
    ]


TIME = "/usr/bin/time"


def timed(cmd):
    """Wall seconds, CPU seconds (user + system) and peak RSS (MiB) of cmd;
    a failure stops the benchmark.
    The peak is GNU time's %M where it is installed: a child's own ru_maxrss
    would count this (NumPy-holding) process's RSS at the fork, which Linux
    carries across exec."""
    with tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile("r") as rss:
        if os.access(TIME, os.X_OK):
            cmd = [TIME, "-f", "%M", "-o", rss.name] + cmd
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)}: exit {code}\n{err.read().decode(errors='replace')}")
        kib = ru.ru_maxrss
        if cmd[0] == TIME:
            kib = int(rss.read().split()[-1])
    return wall, ru.ru_utime + ru.ru_stime, kib / 1024


def phases(cmds, runs):
    """For each command, the medians of the read, compute and write lines it
    prints to stderr (vkstat --time, numpy_e2e.py map), over runs fresh
    processes in turn, each writing a new file (its last argument)."""
    got = [{"read": [], "compute": [], "write": []} for _ in cmds]
    for _ in range(runs):
        for cmd, g in zip(cmds, got):
            if os.path.exists(cmd[-1]):
                os.remove(cmd[-1])
            err = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
            for line in err.splitlines():
                k, _, v = line.partition(":")
                if k.strip() in g and v.split():
                    g[k.strip()].append(float(v.split()[0]))
    return [{k: statistics.median(v) for k, v in g.items() if v} for g in got]


def map_phases(bin_, device, d, runs):
    """vkstat --time map's read, compute and write against NumPy's (the same
    phases timed inside its script), and bench's kernel time for the map."""
    j = os.path.join
    vk, nq = phases([[bin_, "--device", device, "--time", "map", "--x", j(d, "x.npy"), "--y", j(d, "y.npy"),
                      "--a", "3.5", "--b", "2.8", "--c", "10", "--out", j(d, "z-phases.npy")],
                     [PY, PEER, "map", j(d, "x.npy"), j(d, "y.npy"), "3.5", "2.8", "10", j(d, "zn-phases.npy")]], runs)
    bench = subprocess.run([bin_, "--device", device, "bench", "--suite", "map", "--size", "paper", "--precision", "f64",
                            "--repeat", "10"], capture_output=True, text=True).stdout
    kernel = float("nan")
    for line in bench.splitlines():
        f = [c.strip() for c in line.split("|")]
        if len(f) > 6 and f[1] == "map" and f[3] == "float64":
            kernel = float(f[6])
    return vk, nq, kernel


def agreement(pairs):
    """Largest |vkstat − NumPy| relative to NumPy's largest |value| over the pairs."""
    worst = 0.0
    for v, n, idx in pairs:
        a, b = np.load(v).astype(np.float64), np.load(n).astype(np.float64)
        if idx is not None:
            b = b[idx]
        a, b = np.squeeze(a), np.squeeze(b)
        if a.shape != b.shape:
            return f"shapes differ: {a.shape} vs {b.shape} ({os.path.basename(v)})"
        ok = np.isfinite(a) & np.isfinite(b)
        if (np.isfinite(a) != np.isfinite(b)).any():
            return f"NaN/Inf differ in {os.path.basename(v)}"
        scale = np.abs(b[ok]).max() if ok.any() else 1.0
        if ok.any():
            worst = max(worst, float(np.abs(a[ok] - b[ok]).max() / (scale or 1.0)))
    return f"{worst:.1e}"


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception:
        return ""


def machine():
    cpu = sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").strip() or platform.processor()
    mem = sh("awk '/MemTotal/ {printf \"%.0f GiB\", $2/1048576}' /proc/meminfo")
    thp = sh("cat /sys/kernel/mm/transparent_hugepage/enabled")
    return f"{cpu}, {os.cpu_count()} cores, {mem}, {platform.system()} {platform.release()}, transparent huge pages: {thp}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "bin", "vkstat"))
    ap.add_argument("--device", default="cpu", help="vkstat's --device (cpu, gpu, lavapipe, an index...)")
    ap.add_argument("--runs", type=int, default=7, help="rounds; the medians are reported")
    ap.add_argument("--quick", action="store_true", help="3 rounds")
    ap.add_argument("--only", default="", help="comma-separated workloads (default: all)")
    ap.add_argument("--work", default="", help="folder for the inputs (kept); default a temporary one, removed")
    ap.add_argument("--out", default="", help="Markdown report (default docs/benchmarks/e2e.md, e2e-DEVICE.md for other devices; - for none)")
    ap.add_argument("--note", default="", help="a sentence for the report (e.g. that the machine was shared)")
    ap.add_argument("--baseline", default="", help="another vkstat binary (an earlier build) to run in the same rounds")
    o = ap.parse_args()
    runs = 3 if o.quick else o.runs
    if runs < 1:
        ap.error("--runs must be positive")
    bin_ = os.path.abspath(o.bin)
    if not os.access(bin_, os.X_OK):
        raise SystemExit(f"{bin_}: no vkstat binary (make build)")
    base = os.path.abspath(o.baseline) if o.baseline else ""
    if base and not os.access(base, os.X_OK):
        raise SystemExit(f"{base}: no such vkstat binary (--baseline)")
    out = o.out or os.path.join(ROOT, "docs", "benchmarks", "e2e.md" if o.device == "cpu" else f"e2e-{o.device}.md")

    def write_report(rows, split, load1):
        """The Markdown report of the workloads measured so far: written after
        each one, so that a run stopped at a cap (gpu-run.sh) leaves what it
        measured."""
        if out == "-":
            return
        commit = sh(f"git -C {ROOT} describe --always --dirty")
        args = sys.argv[1:]
        if "--note" in args:  # the note is printed below
            i = args.index("--note")
            args[i + 1:i + 2] = ["..."]
        cmd = "scripts/bench-e2e.sh " + " ".join(args)
        L = ["# vkstat against NumPy, from input files to output files\n",
             f"Measured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC at commit {commit} on {machine()}; "
             f"load average {load0[0]:.1f} before, {load1[0]:.1f} after. NumPy {np.__version__} ({PY}).\n",
             f"Command: `{cmd.strip()}` ({runs} rounds, each program first in turn; vkstat `--device {o.device}`).\n",
             "Each workload is one vkstat command against one NumPy script doing the same (bench/e2e/numpy_e2e.py, or "
             "bench/peers where named): read the input files, compute, write every output file. Times are wall seconds "
             "from process start to exit (start-up, NumPy's import, reading and writing included), medians of the rounds; "
             "the inputs are in the page cache. CPU is user + system seconds (all threads; medians), which other jobs on "
             "the machine disturb far less than wall time. Peak RSS is the largest of the rounds. Agreement is the largest "
             "|vkstat − NumPy| over the main outputs, relative to NumPy's largest value.\n"]
        if o.note:
            L.append(o.note + "\n")
        if base:
            L.append(f"The baseline is `{o.baseline}`, run in the same rounds.\n")
        L += ["| workload | vkstat s | NumPy s | NumPy / vkstat | CPU vkstat s | CPU NumPy s | peak RSS vkstat MiB | NumPy MiB | agreement |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for what, med, cpu, peak, agree in rows:
            L.append(f"| {what} | {med['vk']:.3f} | {med['np']:.3f} | {med['np'] / med['vk']:.2f}× | {cpu['vk']:.3f} | {cpu['np']:.3f} | "
                     f"{peak['vk']:.0f} | {peak['np']:.0f} | {agree} |")
        if base:
            L += ["", "### Against the baseline\n",
                  "| workload | vkstat s | baseline s | baseline / vkstat | CPU vkstat s | CPU baseline s | peak RSS vkstat MiB | baseline MiB | NumPy / baseline |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
            for what, med, cpu, peak, agree in rows:
                L.append(f"| {what} | {med['vk']:.3f} | {med['base']:.3f} | {med['base'] / med['vk']:.2f}× | {cpu['vk']:.3f} | "
                         f"{cpu['base']:.3f} | {peak['vk']:.0f} | {peak['base']:.0f} | {med['np'] / med['base']:.2f}× |")
        if split:
            vk, nq, kernel = split
            mb = 2 * 40e6 / 1e6  # two 40 MB inputs; one 40 MB output
            L += ["", "## Where map's time goes\n",
                  f"`vkstat --device {o.device} --time map` against the same phases timed inside the NumPy script (np.load of both "
                  f"inputs; the expression; np.save), medians of {runs} fresh processes of each in turn, each writing a new file; `vkstat bench "
                  f"--suite map --size paper` times the kernel alone on data in memory.\n",
                  "| phase | vkstat ms | NumPy ms | vkstat MB/s | NumPy MB/s |", "|---|---:|---:|---:|---:|"]
            for k, size in (("read", mb), ("compute", None), ("write", mb / 2)):
                v, n = vk.get(k, float("nan")), nq.get(k, float("nan"))
                rate = (lambda ms: f"{size / ms * 1e3:.0f}") if size else (lambda ms: "")
                L.append(f"| {k} | {v:.1f} | {n:.1f} | {rate(v)} | {rate(n)} |")
            L.append(f"\nbench's kernel: {kernel:.2f} ms; the command's compute is {vk.get('compute', float('nan')) / kernel:.2f}× that.")
        with open(out, "w") as f:
            f.write("\n".join(L) + "\n")
        print(f"wrote {out}", file=sys.stderr)

    work = o.work or tempfile.mkdtemp(prefix="vkstat-e2e-")
    os.makedirs(work, exist_ok=True)
    try:
        ws = workloads(work, bin_)
        if o.only:
            names = o.only.split(",")
            unknown = set(names) - {w.name for w in ws}
            if unknown:
                raise SystemExit(f"unknown workloads {sorted(unknown)}; known: {[w.name for w in ws]}")
            ws = [w for w in ws if w.name in names]
        load0 = os.getloadavg()
        for w in ws:
            w.make()
        subprocess.run(["sync"])
        rows = []
        who = ["vk", "np"] + (["base"] if base else [])
        for w in ws:
            t_, c_, m_ = {k: [] for k in who}, {k: [] for k in who}, {k: [] for k in who}
            for r in range(runs):
                for k in who[r % len(who):] + who[:r % len(who)]:  # each goes first in turn
                    res = os.path.join(work, "out-" + k)
                    shutil.rmtree(res, ignore_errors=True)
                    os.makedirs(res)
                    cmd = {"vk": lambda: [bin_, "--device", o.device] + w.vk(res), "np": lambda: [PY] + w.np(res),
                           "base": lambda: [base, "--device", o.device] + w.vk(res)}[k]()
                    t, cpu, m = timed(cmd)
                    t_[k].append(t)
                    c_[k].append(cpu)
                    m_[k].append(m)
            agree = agreement(w.compare(os.path.join(work, "out-vk"), os.path.join(work, "out-np")))
            med = {k: statistics.median(v) for k, v in t_.items()}
            peak = {k: max(v) for k, v in m_.items()}
            cpu = {k: statistics.median(v) for k, v in c_.items()}
            rows.append((w.what, med, cpu, peak, agree))
            write_report(rows, None, os.getloadavg())
            print(f"{w.name:12s} vkstat {med['vk']:.3f} s  NumPy {med['np']:.3f} s  NumPy/vkstat {med['np'] / med['vk']:.2f}x  "
                  f"CPU {cpu['vk']:.3f} / {cpu['np']:.3f} s  peak RSS {peak['vk']:.0f} / {peak['np']:.0f} MiB  agreement {agree}"
                  + (f"  baseline {med['base']:.3f} s, CPU {cpu['base']:.3f} s, {peak['base']:.0f} MiB" if base else "")
                  + "  (runs: " + "; ".join(k + " " + " ".join(f"{t:.3f}" for t in t_[k]) for k in who) + ")", file=sys.stderr)
        split = map_phases(bin_, o.device, work, runs) if any(w.name == "map" for w in ws) else None
        if split:
            print(f"map phases: vkstat {split[0]}, NumPy {split[1]}, bench kernel {split[2]} ms", file=sys.stderr)
        write_report(rows, split, os.getloadavg())
    finally:
        if not o.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
