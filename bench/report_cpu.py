#!/usr/bin/env python3
"""Turns `go test -bench` output and NumPy peer JSON lines into
docs/benchmarks/cpu.md: times per workload and ratios against NumPy.

Usage: report_cpu.py go.txt numpy.jsonl > docs/benchmarks/cpu.md
"""
import datetime
import json
import os
import platform
import re
import subprocess
import sys

WORKLOADS = {
    # name: (Go benchmark prefix, numpy op, description)
    "grade2": ("Grade2", "grade2", "z = 3.5·x² + 2.8·y + 10 on 5·10⁶ float64 (host arrays in, host array out)"),
    "mean_std": ("MeanStd", "mean_std", "mean and std over axis 0 of a 64×1024×1024 float32 stack"),
}


def parse_go(path):
    rows = []
    pat = re.compile(r"^Benchmark(\w+?)(CPU|Vulkan)(?:/(\S+?))?(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(.*)$")
    for line in open(path):
        m = pat.match(line.strip())
        if not m:
            continue
        name, kind, dev, ns, rest = m.groups()
        k = re.search(r"([\d.]+) kernel-ms/op", rest)
        dev = "CPU path (native Go)" if kind == "CPU" else dev.replace("_", " ")
        rows.append((name, dev, float(ns) / 1e9, float(k.group(1)) / 1e3 if k else None))
    return rows


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main():
    go_rows = parse_go(sys.argv[1])
    peers = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
    numpy = {p["op"]: p["median_s"] for p in peers}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    out = []
    w = out.append
    w("# CPU-machine benchmarks")
    w("")
    w(f"- date: {datetime.date.today().isoformat()}")
    w(f"- machine: {cpu_model()}, {os.cpu_count()} cores, no GPU (Vulkan on lavapipe)")
    w(f"- vkstat commit: {commit}; NumPy {peers[0].get('numpy', '?') if peers else '?'} (Debian python3-numpy)")
    w("- command: `make bench-cpu` (Go benchmarks, 10 iterations each, and the NumPy peers in bench/peers, median of 10, in the same run)")
    w("")
    w("Ratio = NumPy time / vkstat time: above 1 means vkstat is faster. Times are end to end from host")
    w("arrays to host arrays; for Vulkan the kernel-only time (GPU timestamps) is shown beside it.")
    w("")
    for key, (prefix, op, desc) in WORKLOADS.items():
        w(f"## {desc}")
        w("")
        w("| implementation | time (ms) | kernel only (ms) | ratio vs NumPy |")
        w("|---|---:|---:|---:|")
        ref = numpy.get(op)
        if ref is not None:
            w(f"| NumPy | {ref*1e3:.1f} | | 1.00 |")
        for name, dev, sec, kernel in go_rows:
            if name != prefix:
                continue
            ratio = f"{ref/sec:.2f}" if ref else "n/a"
            k = f"{kernel*1e3:.1f}" if kernel is not None else ""
            w(f"| vkstat, {dev} | {sec*1e3:.1f} | {k} | {ratio} |")
        w("")
    print("\n".join(out))


if __name__ == "__main__":
    main()
