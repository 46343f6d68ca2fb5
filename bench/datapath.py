#!/usr/bin/env python3
"""The GPU data path, measured end to end on one machine in one run
(issue: GPU data path). Writes DIR/datapath.md and DIR/datapath.json.

  1. start-up: `vkstat devices` and a 1,000-element `vkstat --device gpu map`,
     process wall time (median of --repeat);
  2. link: host→device and device→host bandwidth of vkstat (bench's link
     row) beside PyTorch's pinned and pageable copies of the same size;
  3. file to result: mean and std over axis 0 of a (T, 1024, 1024) float32
     .npy stack, read from disk and written back as .npy, by vkstat on the
     GPU and on the CPU path (process wall time, start-up included) and by
     NumPy and PyTorch (in-process, imports and CUDA start-up excluded);
  4. memory: peak RSS (and device memory, from vkstat --time) of the reduce
     over a stack several times the --device-memory budget.

Usage (on the GPU machine, from gpu-run.sh; --dry-run on any machine):
  python3 bench/datapath.py --vkstat bin/vkstat --out DIR [--repeat 5] [--dry-run]
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np


def run(cmd, env=None):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[-2000:]}")
    return dt, p.stdout, p.stderr


def median_wall(cmd, repeat, env=None):
    run(cmd, env)  # warm-up: page cache, pipeline cache
    return statistics.median(run(cmd, env)[0] for _ in range(repeat))


def peak_rss(cmd, env=None):
    """Peak RSS in MiB of cmd: the last VmHWM read from /proc while it runs.
    (wait4's ru_maxrss would count this Python process's own memory too: a
    forked child's high-water mark survives exec.)"""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    hwm = 0
    while p.poll() is None:
        try:
            for line in open(f"/proc/{p.pid}/status"):
                if line.startswith("VmHWM:"):
                    hwm = max(hwm, int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.005)
    err = p.stderr.read().decode()
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {err.strip()[-2000:]}")
    return hwm / 1024, err


def write_stack(path, T, H=1024, W=1024):
    x = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(T, H, W))
    rng = np.random.default_rng(1)
    for t in range(T):
        x[t] = rng.standard_normal((H, W), dtype=np.float32) + 1000
    x.flush()
    del x


def numpy_file(path, out):
    t0 = time.perf_counter()
    x = np.load(path)
    m, s = x.mean(axis=0, dtype=np.float64), x.std(axis=0, dtype=np.float64)
    np.save(os.path.join(out, "mean.npy"), m.astype(np.float32))
    np.save(os.path.join(out, "std.npy"), s.astype(np.float32))
    return time.perf_counter() - t0


def torch_file(path, out, torch, dev):
    t0 = time.perf_counter()
    x = torch.from_numpy(np.load(path)).to(dev)
    m = x.mean(dim=0, dtype=torch.float64)
    s = x.to(torch.float64).std(dim=0, correction=0)
    np.save(os.path.join(out, "mean.npy"), m.float().cpu().numpy())
    np.save(os.path.join(out, "std.npy"), s.float().cpu().numpy())
    if dev.type == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - t0


def torch_link(torch, nbytes, repeat):
    dev = torch.device("cuda")
    n = nbytes // 4
    res = {}
    for pinned in (True, False):
        h = torch.empty(n, dtype=torch.float32, pin_memory=pinned)
        h.fill_(1)
        d = torch.empty(n, dtype=torch.float32, device=dev)
        up, down = [], []
        for i in range(repeat + 1):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            d.copy_(h, non_blocking=pinned)
            torch.cuda.synchronize()
            t1 = time.perf_counter()
            h.copy_(d, non_blocking=pinned)
            torch.cuda.synchronize()
            t2 = time.perf_counter()
            if i:
                up.append(t1 - t0)
                down.append(t2 - t1)
        key = "pinned" if pinned else "pageable"
        res[key] = {"h2d": nbytes / min(up) / 1e9, "d2h": nbytes / min(down) / 1e9}
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vkstat", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dry-run", action="store_true", help="small sizes, on lavapipe")
    ap.add_argument("--device", default=None, help="vkstat's --device for the Vulkan rows (default gpu; lavapipe with --dry-run)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    vk = os.path.abspath(a.vkstat)
    gpu = a.device or ("lavapipe" if a.dry_run else "gpu")
    frames = 16 if a.dry_run else 256        # 64 MiB or 1 GiB
    big_frames = 64 if a.dry_run else 1024   # 256 MiB or 4 GiB
    budget = "32MiB" if a.dry_run else "1GiB"
    res = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "dry_run": a.dry_run, "repeat": a.repeat, "device": gpu,
           "env": {k: v for k, v in os.environ.items() if k.startswith("VKSTAT_")}}
    try:
        import torch
        has_cuda = torch.cuda.is_available()
    except ImportError:
        torch, has_cuda = None, False
    work = tempfile.mkdtemp(prefix="vkstat-datapath-")
    try:
        # 1. start-up
        x = os.path.join(work, "x.npy")
        y = os.path.join(work, "y.npy")
        np.save(x, np.linspace(0, 1, 1000))
        np.save(y, np.linspace(1, 2, 1000))
        res["devices_s"] = median_wall([vk, "devices"], a.repeat)
        res["map1k_s"] = median_wall([vk, "--device", gpu, "map", "--x", x, "--y", y, "--out", os.path.join(work, "z.npy")], a.repeat)
        _, _, err = run([vk, "--device", gpu, "--time", "map", "--x", x, "--y", y, "--out", os.path.join(work, "z.npy")])
        res["map1k_time"] = err
        # 2. link
        _, _, err = run([vk, "--device", gpu, "bench", "--suite", "map", "--size", "small", "--repeat", str(a.repeat), "--json", os.path.join(work, "b.json")])
        rep = json.load(open(os.path.join(work, "b.json")))
        link = next((d.get("link") for d in rep["devices"] if d.get("link")), None)
        res["vkstat_link"] = link
        res["vkstat_copy"] = [{"device": d["device"].get("label"), "engine": d.get("copy_engine"), "shader": d.get("shader_copy")} for d in rep["devices"]]
        if has_cuda and link:
            res["torch_link"] = torch_link(torch, link["bytes"], a.repeat)
        # 3. file to result
        stack = os.path.join(work, "stack.npy")
        write_stack(stack, frames)
        res["stack_shape"] = [frames, 1024, 1024]
        outdir = os.path.join(work, "out")
        for name, dev in (("vkstat_gpu", gpu), ("vkstat_cpu", "cpu")):
            res[name + "_s"] = median_wall([vk, "--device", dev, "reduce", "--in", stack, "--axis", "0", "--stat", "mean,std", "--out-dir", outdir], a.repeat)
        _, _, res["vkstat_gpu_time"] = run([vk, "--device", gpu, "--time", "reduce", "--in", stack, "--axis", "0", "--stat", "mean,std", "--out-dir", outdir])
        ref = np.load(stack).astype(np.float64)
        got = np.load(os.path.join(outdir, "std.npy"))
        res["vkstat_gpu_std_max_rel_err"] = float(np.max(np.abs(got - ref.std(axis=0)) / ref.std(axis=0)))
        del ref
        os.makedirs(os.path.join(work, "np"), exist_ok=True)
        numpy_file(stack, os.path.join(work, "np"))
        res["numpy_s"] = statistics.median(numpy_file(stack, os.path.join(work, "np")) for _ in range(a.repeat))
        if has_cuda:
            dev = torch.device("cuda")
            torch_file(stack, os.path.join(work, "np"), torch, dev)
            res["torch_s"] = statistics.median(torch_file(stack, os.path.join(work, "np"), torch, dev) for _ in range(a.repeat))
        os.remove(stack)
        # 4. bounded memory
        big = os.path.join(work, "big.npy")
        write_stack(big, big_frames)
        res["big_shape"] = [big_frames, 1024, 1024]
        res["big_budget"] = budget
        rss, err = peak_rss([vk, "--device", gpu, "--device-memory", budget, "--time", "reduce", "--in", big, "--axis", "0", "--stat", "mean,std", "--out-dir", outdir])
        res["big_peak_rss_mib"] = rss
        res["big_time"] = err
        os.remove(big)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    json.dump(res, open(os.path.join(a.out, "datapath.json"), "w"), indent=1)
    open(os.path.join(a.out, "datapath.md"), "w").write(report(res))
    print(report(res))


def report(r):
    L = [f"# GPU data path ({r['date']}{', dry run' if r['dry_run'] else ''}; medians of {r['repeat']}; --device {r['device']}"
         + "".join(f", {k}={v}" for k, v in sorted(r['env'].items())) + ")", ""]
    L += ["## Start-up", "", "| command | wall |", "|---|---:|",
          f"| vkstat devices | {r['devices_s']*1e3:.1f} ms |",
          f"| vkstat --device {r['device']} map, 1,000 elements | {r['map1k_s']*1e3:.1f} ms |",
          f"| difference (target ≤ 30 ms) | {(r['map1k_s']-r['devices_s'])*1e3:.1f} ms |", "", "```", r["map1k_time"].strip(), "```", ""]
    link = r.get("vkstat_link")
    if link:
        L += ["## Host↔device bandwidth", "", f"{link['bytes']>>20} MiB each way.", "",
              "| who | host→device GB/s | device→host GB/s |", "|---|---:|---:|",
              f"| vkstat ({link['method']}) | {link['host_to_device_gb_per_s']:.1f} | {link['device_to_host_gb_per_s']:.1f} |"]
        tl = r.get("torch_link")
        if tl:
            for k in ("pinned", "pageable"):
                L.append(f"| PyTorch {k} | {tl[k]['h2d']:.1f} | {tl[k]['d2h']:.1f} |")
            L.append(f"| vkstat / PyTorch pinned (target ≥ 0.70) | {link['host_to_device_gb_per_s']/tl['pinned']['h2d']:.2f} | {link['device_to_host_gb_per_s']/tl['pinned']['d2h']:.2f} |")
        L.append("")
    for c in r.get("vkstat_copy", []):
        eng, sh = c.get("engine") or {}, c.get("shader") or {}
        L.append(f"Device copy bandwidth on {c['device']}: copy engine {eng.get('gb_per_s', 0):.0f} GB/s, copy shader {sh.get('gb_per_s', 0):.0f} GB/s (read + write).")
    T = r["stack_shape"][0]
    L += ["", f"## File to result: mean and std over axis 0 of a ({T}, 1024, 1024) float32 .npy ({T*4} MiB)", "",
          "| who | wall | vs NumPy |", "|---|---:|---:|"]
    for k, name in (("vkstat_gpu_s", f"vkstat --device {r['device']} (process, start-up included)"), ("vkstat_cpu_s", "vkstat --device cpu (process)"),
                    ("numpy_s", "NumPy np.load + mean/std + np.save (in-process)"), ("torch_s", "PyTorch, CUDA (in-process, warm)")):
        if k in r:
            L.append(f"| {name} | {r[k]*1e3:.0f} ms | {r['numpy_s']/r[k]:.2f}× |")
    if "torch_s" in r:
        L.append(f"\nvkstat GPU vs PyTorch end to end: {r['torch_s']/r['vkstat_gpu_s']:.2f}× (target ≥ 1.5×).")
    L += [f"\nLargest relative error of vkstat's std against NumPy float64: {r['vkstat_gpu_std_max_rel_err']:.2e}.", "", "```", r["vkstat_gpu_time"].strip(), "```", ""]
    B = r["big_shape"][0]
    L += ["## Bounded memory", "", f"reduce over a ({B}, 1024, 1024) float32 stack ({B*4} MiB) with --device-memory {r['big_budget']}: "
          f"peak RSS {r['big_peak_rss_mib']:.0f} MiB.", "", "```", r["big_time"].strip(), "```", ""]
    return "\n".join(L)


if __name__ == "__main__":
    sys.exit(main())
