#!/usr/bin/env python3
"""Benchmarks `vkstat stack` against the seed's three NumPy variants on the
same synthetic SLC stacks, in one run, and writes docs/benchmarks/stack.md.

For each case: the time to just read the files (cat > /dev/null), vkstat on
the CPU path and on each Vulkan device asked for, and the NumPy variants
(bench/peers/numpy_stack.py seq, mp, mem); each the median of --repeat runs
of wall time measured from outside (process start to exit), its split into
reading and computing as the program reports it, and its peak RSS
(ru_maxrss of the child). Then the peak RSS of vkstat for one date against
all dates. The stacks are made with `vkstat synth stack` (ENVI CFloat32, so
that NumPy reads them without GDAL) and are in the page cache when timed:
the figures are for warm files.

Usage: python3 bench/report_stack.py --bin bin/vkstat [--repeat 3] [--out docs/benchmarks/stack.md]
"""
import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def timed(cmd):
    """wall seconds, peak RSS (MiB, the child's ru_maxrss from wait4), stdout
    and stderr of cmd; a failure stops the benchmark."""
    import tempfile
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        o, e = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}\n{e}")
    return wall, ru.ru_maxrss / 1024, o, e


def ms_field(err, name):
    m = re.search(rf"^{name}:\s+([\d.]+) ms", err, re.M)
    return float(m.group(1)) / 1000 if m else float("nan")


def make_stack(bin_, d, dates, shape):
    if os.path.exists(os.path.join(d, "dates.txt")):
        return
    subprocess.run([bin_, "synth", "stack", "--dates", str(dates), "--shape", shape, "--type", "cfloat32",
                    "--format", "envi", "--seed", "11", "--out-dir", d], check=True)


def median_of(f, n):
    rs = [f() for _ in range(n)]
    keys = rs[0].keys()
    return {k: statistics.median(r[k] for r in rs) if isinstance(rs[0][k], (int, float)) else rs[0][k] for k in keys}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "bin", "vkstat"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--devices", default="cpu,lavapipe")
    ap.add_argument("--procs", type=int, default=os.cpu_count())
    ap.add_argument("--work", default=os.path.join(ROOT, "out", "bench", "stack"))
    ap.add_argument("--cases", default="seed,large")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks", "stack.md"))
    ap.add_argument("--notes", default=os.path.join(HERE, "stack-notes.md"), help="Markdown appended to the page (how to read it)")
    o = ap.parse_args()
    py = sys.executable
    cases = {
        "tiny": (3, "256,256", "4x4", "a smoke test: 3 dates of 256×256"),
        # name: (dates, input shape, looks, what)
        "seed": (5, "4096,4096", "4x4", "the seed's case: 5 dates of 4096×4096 CFloat32 SLC, 4×4 multilook → 1024×1024"),
        "large": (24, "4096,4096", "2x2", "24 dates of 4096×4096 CFloat32 SLC, 2×2 multilook → 2048×2048 (scaled down from 24 × 8192², "
                  "12 GiB, to 3 GiB: the output has the issue's size, the input is 4× smaller)"),
    }
    rows = []
    mem = []
    for name in o.cases.split(","):
        T, shape, looks, what = cases[name]
        d = os.path.join(o.work, name)
        make_stack(o.bin, d, T, shape)
        files = [os.path.join(d, f"date_{i + 1:03d}.bin") for i in range(T)]
        size = sum(os.path.getsize(f) for f in files)
        subprocess.run(["cat"] + files, stdout=subprocess.DEVNULL, check=True)  # warm the page cache

        def cat():
            w, rss, _, _ = timed(["sh", "-c", 'cat "$@" > /dev/null', "cat"] + files)
            return {"wall": w, "read": w, "compute": 0.0, "rss": rss}

        r = median_of(cat, o.repeat)
        rows.append((name, "cat > /dev/null (just reading the files)", r))
        read_floor = r["wall"]
        outs = {}
        for dev in o.devices.split(","):
            out = os.path.join(o.work, f"out-{name}-{dev}")

            def vk():
                w, rss, _, err = timed([o.bin, "--device", dev, "--time", "stack", "--looks", looks, "--stat", "mean,std",
                                        "--format", "npy", "--out-dir", out] + files)
                return {"wall": w, "read": ms_field(err, "read"), "compute": ms_field(err, "compute"),
                        "stack": ms_field(err, "stack"), "rss": rss}

            rows.append((name, f"vkstat --device {dev}", median_of(vk, o.repeat)))
            outs[dev] = out
        for variant in ("seq", "mp", "mem"):
            npout = os.path.join(o.work, f"numpy-{name}-{variant}.npy")

            def npy():
                w, rss, out, _ = timed([py, os.path.join(HERE, "peers", "numpy_stack.py"), variant, "--procs", str(o.procs),
                                        "--looks", looks, "--out", npout] + files)
                j = json.loads(out.strip().splitlines()[-1])
                return {"wall": w, "read": j["read_s"], "compute": j["compute_s"], "rss": rss}

            label = {"seq": "NumPy sequential", "mp": f"NumPy multiprocessing, local sums ({o.procs} procs)",
                     "mem": f"NumPy read all, then parallel ({o.procs} procs)"}[variant]
            rows.append((name, label, median_of(npy, o.repeat)))
        # Agreement: vkstat's mean and std against NumPy's sequential.
        try:
            import numpy as np
            ref = np.load(os.path.join(o.work, f"numpy-{name}-seq.npy")).astype(np.float64)
            for dev, out in outs.items():
                m = np.load(os.path.join(out, "mean.npy")).astype(np.float64)
                s = np.load(os.path.join(out, "std.npy")).astype(np.float64)
                dm = np.max(np.abs(m - ref[0]) / np.abs(ref[0]).max())
                ds = np.max(np.abs(s - ref[1]) / np.abs(ref[1]).max())
                rows.append((name, f"agreement {dev} vs NumPy", {"mean": dm, "std": ds}))
        except ImportError:
            pass
        # Memory: one date against all.
        if name == "large":
            for n in (1, T):
                out = os.path.join(o.work, f"out-mem-{n}")
                _, rss, _, _ = timed([o.bin, "--device", "cpu", "stack", "--looks", looks, "--stat", "mean,std",
                                      "--format", "npy", "--out-dir", out] + files[:n])
                mem.append((n, rss))
        rows.append((name, "_what", {"what": what, "bytes": size, "read_floor": read_floor}))

    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True).stdout.strip()
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = re.search(r"model name\s*:\s*(.*)", f.read()).group(1)
    except Exception:
        pass
    load = os.getloadavg()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    L = []
    L.append("# vkstat stack: SAR temporal statistics against NumPy\n")
    L.append(f"Measured {now} at commit {commit}{' (with uncommitted changes)' if dirty else ''} on {cpu} "
             f"({os.cpu_count()} cores, load average {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f} "
             f"at the end; {platform.system()}), no GPU: the Vulkan device is "
             "lavapipe (Mesa's Vulkan on the CPU).\n")
    L.append(f"Command: `python3 bench/report_stack.py --bin {os.path.relpath(o.bin, ROOT)} --repeat {o.repeat} "
             f"--devices {o.devices} --procs {o.procs} --cases {o.cases}`\n")
    L.append("Every figure is the median of the runs; wall is measured from outside, process start to exit "
             "(Python's NumPy import and vkstat's Vulkan start-up included). read and compute are what each program "
             "reports: vkstat's reader goroutine (overlapped with compute, so read + compute can exceed wall) and its "
             "upload + multilook + statistics; NumPy's summed over processes for the multiprocessing variants. The files "
             "are in the page cache (the stack is read once before timing): these are warm-file figures, where reading "
             "is a memory copy; on a cold disk reading dominates everything. Peak RSS is the child's ru_maxrss "
             "(from wait4): for the multiprocessing variants, the largest single process, not their sum.\n")
    for name in o.cases.split(","):
        info = [r for r in rows if r[0] == name and r[1] == "_what"][0][2]
        L.append(f"\n## {name}: {info['what']}\n")
        L.append(f"Input: {info['bytes'] / 2**30:.2f} GiB read per run.\n")
        L.append("| run | wall s | read s | compute s | wall / read-only | peak RSS MiB |")
        L.append("|---|---:|---:|---:|---:|---:|")
        for n, label, r in rows:
            if n != name or label.startswith("agreement") or label == "_what":
                continue
            L.append(f"| {label} | {r['wall']:.3f} | {r['read']:.3f} | {r['compute']:.3f} | {r['wall'] / info['read_floor']:.2f} | {r['rss']:.0f} |")
        for n, label, r in rows:
            if n == name and label.startswith("agreement"):
                L.append(f"\n{label}: largest difference relative to the largest value: mean {r['mean']:.2e}, std {r['std']:.2e}.")
        best = min(r["wall"] for n, label, r in rows if n == name and label.startswith("NumPy"))
        for n, label, r in rows:
            if n == name and label.startswith("vkstat"):
                L.append(f"\n{label}: {best / r['wall']:.2f}× the best NumPy variant's wall time.")
    if mem:
        L.append("\n## Memory: one date against all\n")
        L.append("vkstat --device cpu on the large case's first date alone and on all of them:\n")
        L.append("| dates | peak RSS MiB |")
        L.append("|---:|---:|")
        for n, rss in mem:
            L.append(f"| {n} | {rss:.0f} |")
    L.append("")
    if o.notes and os.path.exists(o.notes):
        with open(o.notes) as f:
            L.append(f.read())
    with open(o.out, "w") as f:
        f.write("\n".join(L) + "\n")
    print("\n".join(L))


if __name__ == "__main__":
    main()
