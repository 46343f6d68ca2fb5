#!/usr/bin/env python3
"""Process start-up of vkstat without a GPU (issue 39 item 4), timed from
outside: process start to exit, medians of --runs rounds, each round
running every variant once in turn (the baseline's and this build's
interleaved, so that the machine's load falls on both alike).

  - `vkstat --version` and `--help`;
  - Python: `import numpy` alone, and `import numpy, vkstat;
    vkstat.reduce(numpy.ones(10))` on the default session ("auto") and on
    VKSTAT_DEVICE=cpu;
  - every command on a small job with --device auto (the default), the
    machine's census taken once before (`vkstat devices`);
  - the first run ever (no census): a paco and a latent, the census
    removed before each;
  - what auto's --time line says it estimates against the compute it
    measures, for the commands that size their job, on small and larger
    inputs (the baseline's line, which printed the estimate).

Usage: /usr/bin/python3 bench/startup.py --bin bin/vkstat --lib python/vkstat/libvkstat.so
       [--base-bin OLD --base-lib OLD.so] [--runs 11] [--quick] [--out docs/benchmarks/startup-39.txt]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"


CPU = {}  # variant: CPU times (user + system, ms) of its processes


def wall(cmd, env, cpu=None):
    """Wall ms of cmd from start to exit, and its standard error; its CPU
    time goes to cpu."""
    with tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        dt = (time.perf_counter() - t0) * 1e3
        err.seek(0)
        text = err.read()
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(cmd)}: exit {os.waitstatus_to_exitcode(status)}\n{text}")
    if cpu is not None:
        cpu.append((ru.ru_utime + ru.ru_stime) * 1e3)
    return dt, text


def rounds(variants, runs, before=None):
    """variants: {name: (cmd, env)}; medians in ms over runs rounds, each
    round every variant once, the order turning each round."""
    got = {k: [] for k in variants}
    cpu = {k: [] for k in variants}
    names = list(variants)
    for r in range(runs):
        for k in names[r % len(names):] + names[:r % len(names)]:
            if before:
                before(k)
            cmd, env = variants[k]
            got[k].append(wall(cmd, env, cpu[k])[0])
    CPU.clear()
    CPU.update({k: statistics.median(v) for k, v in cpu.items()})
    return {k: statistics.median(v) for k, v in got.items()}


def cell(m, k):
    """A variant's median wall, with its median CPU time."""
    return f"{m[k]:.1f} ({CPU[k]:.0f})"


def inputs(d, bin_, env, quick):
    j = os.path.join
    r = np.random.default_rng(0)
    np.save(j(d, "x.npy"), r.random(1000))
    np.save(j(d, "cube.npy"), r.standard_normal((16, 64, 64)).astype(np.float32))
    np.save(j(d, "samples.npy"), (100 + r.standard_normal((256, 64, 49))).astype(np.float32))
    a = r.standard_normal((64, 16, 16))
    np.save(j(d, "spd.npy"), a @ a.transpose(0, 2, 1) + 16 * np.eye(16))
    if not quick:
        np.save(j(d, "xm.npy"), r.random(5_000_000))
        np.save(j(d, "stackm.npy"), (r.standard_normal((64, 512, 512)) + 1000).astype(np.float32))
        np.save(j(d, "rows.npy"), (r.standard_normal((8192, 2048)) + 1000).astype(np.float32))
        np.save(j(d, "samplesm.npy"), (100 + r.standard_normal((2048, 64, 49))).astype(np.float32))
        b = r.standard_normal((4096, 49, 49))
        np.save(j(d, "spdm.npy"), b @ b.transpose(0, 2, 1) + 49 * np.eye(49))
    synth = [["synth", "paco", "--size", "48", "--frames", "32", "--format", "both", "--companion", "sep=12,pa=45,flux=30",
              "--out-dir", j(d, "adi")],
             ["synth", "stack", "--dates", "3", "--shape", "256,256", "--type", "cfloat32", "--format", "envi", "--out-dir", j(d, "slc")],
             ["synth", "latent", "--shape", "2,8,8,32,32", "--dtype", "f32", "--out", j(d, "lat.npy")],
             ["synth", "survey", "--targets", "2", "--size", "32", "--frames", "24", "--out-dir", j(d, "survey")]]
    if not quick:
        synth += [["synth", "stack", "--dates", "6", "--shape", "1024,1024", "--change", "3", "--seed", "4", "--out-dir", j(d, "slcm")],
                  ["synth", "paco", "--size", "100", "--frames", "252", "--format", "npy", "--companion", "sep=20,pa=45,flux=30",
                   "--out-dir", j(d, "adim")]]
    for s in synth:
        subprocess.run([bin_] + s, env=env, check=True, stdout=subprocess.DEVNULL)


def commands(d, o):
    """name: args of every command on a small job."""
    j = os.path.join
    slc = [j(d, "slc", f"date_00{i}.bin") for i in (1, 2, 3)]
    paco = lambda ext: ["paco", "--cube", j(d, "adi", "cube" + ext), "--angles", j(d, "adi", "angles" + ext),
                        "--psf", j(d, "adi", "psf" + ext), "--center", "24,24", "--radius", "4", "--format", "npy",
                        "--out-dir", j(o, "paco" + ext)]
    return {
        "map 1,000 f64": ["map", "--x", j(d, "x.npy"), "--y", j(d, "x.npy"), "--a", "3.5", "--b", "2.8", "--c", "10", "--out", j(o, "z.npy")],
        "reduce (16,64,64) f32 axis 0": ["reduce", "--in", j(d, "cube.npy"), "--axis", "0", "--stat", "mean,std", "--out-dir", j(o, "r")],
        "cov (256,64,49) f32": ["cov", "--in", j(d, "samples.npy"), "--out-cov", j(o, "cov.npy")],
        "chol (64,16,16) logdet": ["chol", "--in", j(d, "spd.npy"), "--out-logdet", j(o, "ld.npy")],
        "stack 3 × 256² cfloat32": ["stack", "--looks", "4x4", "--format", "npy", "--out-dir", j(o, "st")] + slc,
        "latent (2,8,8,32,32)": ["latent", "--in", j(d, "lat.npy"), "--stat", "moments,corr", "--out-dir", j(o, "lat")],
        "paco 48×48×32 npy": paco(".npy"),
        "paco 48×48×32 FITS": paco(".fits"),
        "survey run, 2 targets 32×32×24": ["survey", "run", j(d, "survey", "manifest.csv"), "--radius", "3", "--out-dir", j(o, "sv")],
    }


def estimates(d, o):
    j = os.path.join
    return {
        "map 1,000 f64": commands(d, o)["map 1,000 f64"],
        "map 5·10⁶ f64": ["map", "--x", j(d, "xm.npy"), "--y", j(d, "xm.npy"), "--a", "3.5", "--b", "2.8", "--c", "10", "--out", j(o, "z.npy")],
        "reduce (16,64,64) axis 0": commands(d, o)["reduce (16,64,64) f32 axis 0"],
        "reduce sum 5·10⁶ f64": ["reduce", "--in", j(d, "xm.npy"), "--axis", "0", "--stat", "sum", "--out-dir", j(o, "r")],
        "reduce (64,512,512) axis 0": ["reduce", "--in", j(d, "stackm.npy"), "--axis", "0", "--stat", "mean,std", "--out-dir", j(o, "r")],
        "reduce (8192,2048) axis −1": ["reduce", "--in", j(d, "rows.npy"), "--axis", "-1", "--stat", "mean,std", "--out-dir", j(o, "r")],
        "cov (256,64,49)": commands(d, o)["cov (256,64,49) f32"],
        "cov (2048,64,49)": ["cov", "--in", j(d, "samplesm.npy"), "--out-cov", j(o, "cov.npy")],
        "chol (64,16,16)": commands(d, o)["chol (64,16,16) logdet"],
        "chol (4096,49,49)": ["chol", "--in", j(d, "spdm.npy"), "--out-logdet", j(o, "ld.npy")],
        "stack 3 × 256²": commands(d, o)["stack 3 × 256² cfloat32"],
        "stack 6 × 1024² (the demo's, refined Lee 7×7)": ["stack", "--looks", "4x4", "--filter", "refined-lee", "--filter-size", "7",
                                                         "--format", "npy", "--out-dir", j(o, "st"), "@" + j(d, "slcm", "dates.txt")],
        "stack 6 × 1024², no filter": ["stack", "--looks", "4x4", "--format", "npy", "--out-dir", j(o, "st"), "@" + j(d, "slcm", "dates.txt")],
        "paco 48×48×32": commands(d, o)["paco 48×48×32 npy"],
        "paco 100×100×252": ["paco", "--cube", j(d, "adim", "cube.npy"), "--angles", j(d, "adim", "angles.npy"), "--psf",
                             j(d, "adim", "psf.npy"), "--center", "50,50", "--radius", "4", "--format", "npy", "--out-dir", j(o, "pm")],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "bin", "vkstat"))
    ap.add_argument("--lib", default=os.path.join(ROOT, "python", "vkstat", "libvkstat.so"))
    ap.add_argument("--base-bin")
    ap.add_argument("--base-lib")
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--quick", action="store_true", help="3 runs, no estimates table")
    ap.add_argument("--out")
    a = ap.parse_args()
    runs = 3 if a.quick else a.runs
    bins = {"this build": a.bin}
    libs = {"this build": a.lib}
    if a.base_bin:
        bins["baseline"] = a.base_bin
    if a.base_lib:
        libs["baseline"] = a.base_lib
    lines = []

    def say(s=""):
        print(s, flush=True)
        lines.append(s)

    d = tempfile.mkdtemp(prefix="vkstat-startup-")
    o = os.path.join(d, "out")
    tune = os.path.join(d, "tune")
    env = dict(os.environ, VKSTAT_TUNE_DIR=tune)
    for k in ("VKSTAT_DEVICE", "VKSTAT_VALIDATE", "VKSTAT_LIBRARY"):
        env.pop(k, None)
    try:
        inputs(d, a.bin, env, a.quick)
        subprocess.run([a.bin, "devices"], env=env, check=True, stdout=subprocess.DEVNULL)  # the census
        say(f"machine: {os.uname().nodename}, {os.cpu_count()} CPUs; load average at start {os.getloadavg()[0]:.1f}; "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; medians of {runs} rounds: wall ms (CPU ms, user + system)")
        say()
        say("| process | " + " | ".join(bins) + " |")
        say("|---|" + "---:|" * len(bins))
        for args in (["--version"], ["--help"]):
            m = rounds({k: ([b] + args, env) for k, b in bins.items()}, runs)
            say(f"| `vkstat {' '.join(args)}` | " + " | ".join(cell(m, k) for k in bins) + " |")
        pyenv = lambda lib, **kw: dict(env, PYTHONPATH=os.path.join(ROOT, "python"), VKSTAT_LIBRARY=lib, **kw)
        first = "import numpy, vkstat; vkstat.reduce(numpy.ones(10))"
        v = {"numpy": ([PY, "-c", "import numpy"], env)}
        for k, lib in libs.items():
            v["auto " + k] = ([PY, "-c", first], pyenv(lib))
            v["cpu " + k] = ([PY, "-c", first], pyenv(lib, VKSTAT_DEVICE="cpu"))
        m = rounds(v, runs)
        say(f"| Python `import numpy` | {cell(m, 'numpy')} |" + " |" * (len(bins) - 1))
        for dev in ("auto", "cpu"):
            say(f"| Python `{first}`, device {dev}; more than `import numpy`: wall, CPU | "
                + " | ".join(f"{cell(m, dev + ' ' + k)}; +{m[dev + ' ' + k] - m['numpy']:.1f}, +{CPU[dev + ' ' + k] - CPU['numpy']:.0f}"
                             for k in libs) + " |")
        os.makedirs(o, exist_ok=True)
        for name, args in commands(d, o).items():
            def clean(_):
                shutil.rmtree(o, ignore_errors=True)
                os.makedirs(o)
            m = rounds({k: ([b] + args, env) for k, b in bins.items()}, runs, clean)
            say(f"| `vkstat {args[0]}` {name}, auto, census taken | " + " | ".join(cell(m, k) for k in bins) + " |")
        census = os.path.join(tune, "census.json")
        for name in ("paco 48×48×32 npy", "latent (2,8,8,32,32)"):
            args = commands(d, o)[name]

            def fresh(_):
                shutil.rmtree(o, ignore_errors=True)
                os.makedirs(o)
                if os.path.exists(census):
                    os.remove(census)
            m = rounds({k: ([b] + args, env) for k, b in bins.items()}, runs, fresh)
            say(f"| `vkstat {args[0]}` {name}, auto, no census (first run ever) | " + " | ".join(cell(m, k) for k in bins) + " |")
        for k, lib in libs.items():
            def fresh(_):
                if os.path.exists(census):
                    os.remove(census)
            m = rounds({k: ([PY, "-c", first], pyenv(lib))}, runs, fresh)
            say(f"| Python first call, auto, no census (first run ever), {k} | {cell(m, k)} |")
        subprocess.run([a.bin, "devices"], env=env, check=True, stdout=subprocess.DEVNULL)

        if a.quick:
            return
        est_bin = bins.get("baseline", a.bin)
        say()
        say("estimates: what auto printed (the baseline's --time `device:` line) against the compute --time measured,"
            " and the command's wall (--time total)")
        say()
        say("| job | printed estimate | compute measured | ratio | wall (total) |")
        say("|---|---:|---:|---:|---:|")
        for name, args in estimates(d, o).items():
            est, comp, tot = [], [], []
            for _ in range(max(3, runs // 2)):
                shutil.rmtree(o, ignore_errors=True)
                os.makedirs(o)
                _, err = wall([est_bin, "--time"] + args, env)
                e = re.search(r"about ([0-9.]+) ms for this", err)
                c = re.search(r"^compute:\s+([0-9.]+) ms", err, re.M)
                t = re.search(r"^total:\s+([0-9.]+) ms", err, re.M)
                if e:
                    est.append(float(e.group(1)))
                comp.append(float(c.group(1)))
                tot.append(float(t.group(1)))
            e = statistics.median(est) if est else float("nan")
            c = statistics.median(comp)
            say(f"| {name} | {e:.3g} ms | {c:.3g} ms | {max(c / e, e / c):.1f}× | {statistics.median(tot):.3g} ms |")
    finally:
        shutil.rmtree(d, ignore_errors=True)
        if a.out:
            with open(a.out, "w") as f:
                f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
