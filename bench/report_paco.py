#!/usr/bin/env python3
"""Writes docs/benchmarks/paco.md from `go test -bench PACO` output and the
NumPy peer's JSON lines: per-stage times and end-to-end ratios. The part of
the current file from the KEEP line on (measurements made by hand: the
whole command from files) is kept, after the tables.

Usage: report_paco.py paco-go.txt paco-numpy.jsonl > docs/benchmarks/paco.new
"""
import datetime
import json
import os
import re
import subprocess
import sys

KEEP = "<!-- report_paco.py keeps what follows -->"
DOC = os.path.join(os.path.dirname(__file__), "..", "docs", "benchmarks", "paco.md")


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def main():
    rows = []
    pat = re.compile(r"^BenchmarkPACO(CPU|Vulkan)/(?:(.+)/)?(\d+)x(\d+)x(\d+)(?:-\d+)?\s+\d+\s+(\d+) ns/op(.*)$")
    for line in open(sys.argv[1]):
        m = pat.match(line.strip())
        if not m:
            continue
        kind, dev, T, H, W, ns, rest = m.groups()
        stages = {k.replace("_", " "): float(v) for v, k in re.findall(r"([\d.]+) (\S+?)-ms/op", rest)}
        dev = "CPU path (native Go)" if kind == "CPU" else dev.replace("_", " ")
        rows.append(((int(T), int(H), int(W)), dev, int(ns) / 1e6, stages))
    peers = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
    numpy = {tuple(p["shape"]): p for p in peers}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    out = ["# PACO benchmarks (CPU machine)", "",
           f"- date: {datetime.date.today().isoformat()}",
           f"- machine: {cpu_model()}, {os.cpu_count()} cores, no GPU (Vulkan on lavapipe)",
           f"- vkstat commit: {commit}; NumPy {peers[0].get('numpy', '?') if peers else '?'}",
           "- command: `make bench-paco` (Go benchmarks `-bench PACO`, and bench/peers/numpy_paco.py, the same algorithm "
           "with the same lagged-product statistics in NumPy, in the same run)",
           "- input: stationary Gaussian noise cube, rotation 0–60°, R = 4 (49-pixel patches), Gaussian PSF FWHM 4",
           "",
           "Ratio = NumPy time / vkstat time (above 1: vkstat faster). Times are from host cube to host maps; for",
           "Vulkan the stages are GPU timestamps and the device was already open. The seed documents quote about",
           "8 hours serial and 10 minutes on 8 CPUs for 100×100×252 with the original Python PACO.", ""]
    for shape in sorted({r[0] for r in rows}, key=lambda s: (s[1] * s[2], s[0])):
        T, H, W = shape
        out += [f"## {H}×{W} pixels, {T} frames", "",
                "| implementation | total (ms) | centre | lagged products | statistics | detection map | upload | download | ratio vs NumPy |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        peer = numpy.get(shape)
        if peer:
            s = peer["stages"]
            out.append(f"| NumPy | {peer['median_s']*1e3:.0f} | {s['centre']*1e3:.0f} | (in statistics) | {s['statistics']*1e3:.0f} | "
                       f"{s['detection map']*1e3:.0f} | | | 1.00 |")
        for sh, dev, ms, st in rows:
            if sh != shape:
                continue
            f = lambda k: f"{st[k]:.1f}" if k in st else ""
            ratio = f"{peer['median_s']*1e3/ms:.2f}" if peer else "n/a"
            out.append(f"| vkstat, {dev} | {ms:.0f} | {f('centre')} | {f('lagged products')} | {f('statistics')} | {f('detection map')} | "
                       f"{f('upload')} | {f('download')} | {ratio} |")
        out.append("")
    try:
        old = open(DOC, encoding="utf-8").read()
        if KEEP in old:
            out.append(old[old.index(KEEP):].rstrip("\n"))
    except OSError:
        pass
    print("\n".join(out))


if __name__ == "__main__":
    main()
