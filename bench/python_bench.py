#!/usr/bin/env python3
"""What calling vkstat from Python costs, against NumPy and against
`vkstat bench` in the same run; writes docs/benchmarks/python.md.

    make pylib build
    PYTHONPATH=python /usr/bin/python3 bench/python_bench.py --vkstat bin/vkstat --out docs/benchmarks/python.md

1. Small calls: a 1,000-element float32 map and mean through an open session
   (CPU path and lavapipe): the first call, then the median of 1,000 calls,
   beside NumPy's median for the same expression.
2. The seed document's map, z = 3.5·x² + 2.8·y + 10 on 5·10⁶ elements, from
   arrays in memory on the CPU path: vkstat.map (a new z each call, as
   NumPy gives), vkstat.map with out= (z reused), NumPy, and the kernel time
   `vkstat bench --suite map --device cpu --size paper` reports. Rounds
   alternate bench and Python (A B A B); each figure is the median over the
   rounds of each round's median.
3. The call's overhead: a Python call's wall time less the library's own
   (`Session.last_timing`'s wall_ms), for map, reduce, cov and chol on the
   CPU path and lavapipe, median over the calls. `--only overhead --json
   F` measures only that (with any build of the package: run it with the
   old one to get the figures `--before F` then puts beside the new).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import vkstat

A, B, C = 3.5, 2.8, 10.0


def median_time(fn, n: int) -> float:
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def small_calls(devices: list[str], n: int) -> list[dict]:
    rng = np.random.default_rng(1)
    x = rng.uniform(-2, 2, 1000).astype(np.float32)
    y = rng.uniform(-1, 1, 1000).astype(np.float32)
    rows = []
    for d in devices:
        with vkstat.open(d) as s:
            for name, call, peer in [
                ("map", lambda: s.map(x, y, A, B, C), lambda: np.float32(A) * x * x + np.float32(B) * y + np.float32(C)),
                ("reduce mean", lambda: s.reduce(x, "mean"), lambda: x.mean(dtype=np.float64)),
            ]:
                t0 = time.perf_counter()
                call()
                first = time.perf_counter() - t0
                vk, npy, lib = [], [], []

                def timed():
                    call()
                    lib.append(s.last_timing["wall_ms"])

                for _ in range(3):  # paired: vkstat, NumPy, vkstat, NumPy, ...
                    vk.append(median_time(timed, n // 3))
                    npy.append(median_time(peer, n // 3))
                rows.append({"device": s.device["name"], "op": name, "first_ms": first * 1e3,
                             "median_us": statistics.median(vk) * 1e6, "numpy_us": statistics.median(npy) * 1e6,
                             "pipeline_us": statistics.median(lib) * 1e3})
    return rows


# The overhead's calls: sizes this 2-core machine runs in well under a
# second on lavapipe.
OVERHEAD = [
    ("map 10⁶ f64", lambda rng: (rng.uniform(-2, 2, 1_000_000), rng.uniform(-1, 1, 1_000_000)),
     lambda s, a: s.map(a[0], a[1], A, B, C)),
    ("reduce (16,512,512) f32 axis 0 mean,std", lambda rng: (rng.standard_normal((16, 512, 512), np.float32),),
     lambda s, a: s.reduce(a[0], ["mean", "std"], axis=0)),
    ("cov (1024,64,49) f32 paco", lambda rng: (rng.standard_normal((1024, 64, 49), np.float32),),
     lambda s, a: s.cov(a[0], "paco")),
    ("chol (1024,49,49) f32 L, solve, logdet", lambda rng: (spd(rng, 1024, 49), rng.standard_normal((1024, 49), np.float32)),
     lambda s, a: s.chol(a[0], a[1], logdet=True)),
]


def spd(rng: np.random.Generator, n: int, p: int) -> np.ndarray:
    g = rng.standard_normal((n, p, p), np.float32)
    return g @ g.transpose(0, 2, 1) + np.float32(p) * np.eye(p, dtype=np.float32)


def overhead(devices: list[str], n: int) -> list[dict]:
    """Per call and device, medians of n calls after one warm-up, ms: the
    Python wall, the time inside the C ABI's vks_call, the library's own
    wall (last_timing), and per call the differences: wall − library wall
    (the overhead), wall − vks_call (Python's share: lending, JSON, the
    outputs' arrays and, before, copying the results out) and vks_call −
    library wall (the library's, outside its pipelines' timers)."""
    from vkstat import _lib
    inner: list[float] = []
    plain = _lib.call

    def timed_call(*a, **k):  # the time inside vks_call, any build of the package
        t0 = time.perf_counter()
        try:
            return plain(*a, **k)
        finally:
            inner.append((time.perf_counter() - t0) * 1e3)

    _lib.call = timed_call
    rng = np.random.default_rng(3)
    rows = []
    try:
        for d in devices:
            with vkstat.open(d) as s:
                for name, make, call in OVERHEAD:
                    args = make(rng)
                    call(s, args)  # warm: pipelines built
                    walls, libs, ins = [], [], []
                    for _ in range(n):
                        t0 = time.perf_counter()
                        call(s, args)
                        walls.append((time.perf_counter() - t0) * 1e3)
                        libs.append(s.last_timing["wall_ms"])
                        ins.append(inner[-1])
                    rows.append({"device": s.device["name"], "call": name, "wall_ms": statistics.median(walls),
                                 "lib_ms": statistics.median(libs),
                                 "overhead_ms": statistics.median([w - lb for w, lb in zip(walls, libs)]),
                                 "python_ms": statistics.median([w - i for w, i in zip(walls, ins)]),
                                 "untimed_ms": statistics.median([i - lb for i, lb in zip(ins, libs)])})
    finally:
        _lib.call = plain
    return rows


def merged(files: str) -> dict[tuple[str, str], dict]:
    """The rows of --only overhead's JSON files, each figure the median
    over the files."""
    runs = [json.load(open(f))["rows"] for f in files.split(",")]
    out = {}
    for r in runs[0]:
        key = (r["device"], r["call"])
        same = [x for run in runs for x in run if (x["device"], x["call"]) == key]
        out[key] = {**r, **{k: statistics.median(x[k] for x in same)
                            for k in ("wall_ms", "lib_ms", "overhead_ms", "python_ms", "untimed_ms")}}
    return out


def bench_kernel_ms(vkstat_bin: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "b.json")
        subprocess.run([vkstat_bin, "bench", "--suite", "map", "--device", "cpu", "--size", "paper", "--repeat", "5",
                        "--json", out], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rep = json.load(open(out))
    return {r["precision"]: r["kernel_ms"] for d in rep["devices"] for r in d["results"] if r["op"] == "map"}


def big_map(vkstat_bin: str, rounds: int, repeat: int) -> list[dict]:
    n = 5_000_000
    rng = np.random.default_rng(2)
    rows = []
    with vkstat.open("cpu") as s:
        for dt in (np.float32, np.float64):
            x = rng.uniform(-2, 2, n).astype(dt)
            y = rng.uniform(-1, 1, n).astype(dt)
            z = np.empty_like(x)
            a, b, c = dt(A), dt(B), dt(C)
            figs: dict[str, list[float]] = {"bench": [], "vkstat": [], "go_kernel": [], "out": [], "numpy": [], "alloc": []}
            s.map(x, y, A, B, C)  # warm
            for _ in range(rounds):
                figs["bench"].append(bench_kernel_ms(vkstat_bin)[np.dtype(dt).name])
                ks = []

                def call():
                    s.map(x, y, A, B, C)
                    ks.append(s.last_timing["kernel_ms"])

                figs["vkstat"].append(median_time(call, repeat) * 1e3)
                figs["go_kernel"].append(statistics.median(ks))
                figs["out"].append(median_time(lambda: s.map(x, y, A, B, C, out=z), repeat) * 1e3)
                figs["numpy"].append(median_time(lambda: a * x * x + b * y + c, repeat) * 1e3)
                # what a fresh z costs over a reused one: NumPy's allocation and its page faults
                figs["alloc"].append((median_time(lambda: np.empty(n, dt).fill(1), repeat)
                                      - median_time(lambda: z.fill(1), repeat)) * 1e3)
            rows.append({"dtype": np.dtype(dt).name, **{k: statistics.median(v) for k, v in figs.items()}})
    return rows


def cpu_model() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def overhead_section(over: list[dict], before: dict, b: dict, args: argparse.Namespace) -> list[str]:
    """The markdown of part 3: this build's overhead, beside before's."""
    lines = [
        "",
        "## What a call adds to the library's own time",
        "",
        f"The Python wall time of a call on arrays in memory less the library's own wall time for it "
        f"(`Session.last_timing['wall_ms']`), paired per call, median of {args.overhead_calls} calls after one "
        f"warm-up{'; the median over ' + str(len(args.now.split(','))) + ' runs, alternated with the old build' if args.now else ''}; ms.",
        "",
    ]
    lines += [
        "The overhead splits into Python's share (the call's wall less the time inside the C ABI's `vks_call`: "
        "lending the arrays, the JSON request and description, the outputs' arrays, and before this build the "
        "copy of each result out of Go memory, `vks_result_copy`) and the library's own outside its pipelines' "
        "timers (`vks_call` less `last_timing`: the parameters, plans, tuning look-ups; issue 31's phases will "
        "name it).",
        "",
    ]
    if before:
        lines += [
            f"'Before' is vkstat {b['version']} (main), whose results were made in Go memory and then copied into new "
            f"NumPy arrays (`np.empty` + `vks_result_copy`); 'now', the library writing each result into an array the "
            f"package allocated for it (asked for through a callback, page-aligned when large). The two builds ran "
            f"alternately on the same machine the same hour (`--only overhead --json`, each with its own package).",
            "",
            "| device | call | wall ms | library wall ms | overhead ms (before) | Python's share ms (before) "
            "| library outside its timers ms (before) |",
            "|---|---|---:|---:|---:|---:|---:|",
        ]
    else:
        lines += ["| device | call | wall ms | library wall ms | overhead ms | Python's share ms | library outside its timers ms |",
                  "|---|---|---:|---:|---:|---:|---:|"]
    for r in over:
        o = before.get((r["device"], r["call"]))

        def fig(k: str) -> str:
            return f"{r[k]:.2f}" + (f" ({o[k]:.2f})" if o and k in o else "")

        lines.append(f"| {r['device']} | {r['call']} | {r['wall_ms']:.2f} | {r['lib_ms']:.2f} | {fig('overhead_ms')} | "
                     f"{fig('python_ms')} | {fig('untimed_ms')} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vkstat", default="bin/vkstat")
    ap.add_argument("--out", default="docs/benchmarks/python.md")
    ap.add_argument("--calls", type=int, default=999)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--only", choices=["overhead"], help="measure only this, printed as JSON (or to --json); with "
                    "--now, print its section from those measurements")
    ap.add_argument("--json", help="with --only: write the figures here")
    ap.add_argument("--before", help="--only overhead's JSON files (comma-separated: their medians) of an earlier "
                    "build, shown beside this one's")
    ap.add_argument("--now", help="--only overhead's JSON files of this build (comma-separated: their medians), "
                    "measured alternately with --before's, instead of measuring here")
    ap.add_argument("--overhead-calls", type=int, default=9)
    args = ap.parse_args()
    devs = ["cpu"] + (["lavapipe"] if any(d["name"].startswith("llvmpipe") for d in vkstat.devices()[:-1]) else [])
    if args.only == "overhead" and args.now:  # the section from measurements made already
        before = merged(args.before) if args.before else {}
        b = {"version": json.load(open(args.before.split(",")[0]))["version"]} if args.before else {}
        print("\n".join(overhead_section(list(merged(args.now).values()), before, b, args)))
        return
    if args.only == "overhead":
        rep = {"version": vkstat.__version__, "rows": overhead(devs, args.overhead_calls)}
        text = json.dumps(rep, indent=1)
        print(text)
        if args.json:
            with open(args.json, "w") as f:
                f.write(text + "\n")
        return
    small = small_calls(devs, args.calls)
    big = big_map(args.vkstat, args.rounds, args.repeat)
    over = list(merged(args.now).values()) if args.now else overhead(devs, args.overhead_calls)
    before = merged(args.before) if args.before else {}
    b = {"version": json.load(open(args.before.split(",")[0]))["version"]} if args.before else {}
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    load = os.getloadavg()
    lines = [
        "# Python: the cost of calling vkstat from NumPy",
        "",
        f"`PYTHONPATH=python /usr/bin/python3 bench/python_bench.py --vkstat bin/vkstat` (after `make pylib build`), "
        f"{date}, vkstat {vkstat.__version__}, {cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"NumPy {np.__version__}; load average {load[0]:.2f} at the end (other jobs shared the cores).",
        "",
        "## Small calls through an open session",
        "",
        f"A 1,000-element float32 array; the first call (pipelines built, caches filled), then the median of "
        f"{args.calls} calls in three paired blocks with NumPy's.",
        "",
        "| device | call | first call ms | median µs | of which the Go pipeline µs | NumPy median µs | vkstat / NumPy |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in small:
        lines.append(f"| {r['device']} | {r['op']} | {r['first_ms']:.2f} | {r['median_us']:.0f} | {r['pipeline_us']:.0f} | "
                     f"{r['numpy_us']:.1f} | {r['median_us'] / r['numpy_us']:.0f}× |")
    lines += [
        "",
        "The Go pipeline's time is its own wall time (`Session.last_timing`: the submissions on a device, the "
        "compute on the CPU path); the rest is the call's way there and back: on the Python side lending the "
        "arrays, the JSON request and description, ctypes and allocating the result (about 40 µs here), in the "
        "library the parameters, the tuning look-up and the device buffers. On lavapipe the pipeline's time is "
        "mostly one queue submission and its fence, a round trip through Mesa's threads. NumPy on 1,000 elements "
        "takes a few microseconds: calls this small are worth batching.",
    ]
    lines += [
        "",
        "## The 5·10⁶-element map from arrays in memory, CPU path",
        "",
        f"z = 3.5·x² + 2.8·y + 10; {args.rounds} rounds alternating `vkstat bench --suite map --device cpu --size paper "
        f"--repeat 5` (its kernel time, which on the CPU path includes allocating z) and the Python calls (median of "
        f"{args.repeat} each); medians over the rounds, ms.",
        "",
        "| dtype | vkstat bench kernel | vkstat.map | its Go pipeline (last_timing) | a fresh z (NumPy) | vkstat.map(out=z) | NumPy | vkstat.map / bench |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in big:
        lines.append(f"| {r['dtype']} | {r['bench']:.2f} | {r['vkstat']:.2f} | {r['go_kernel']:.2f} | {r['alloc']:.2f} | "
                     f"{r['out']:.2f} | {r['numpy']:.2f} | {r['vkstat'] / r['bench']:.2f} |")
    lines += [
        "",
        "vkstat.map reads x and y where NumPy holds them and writes z into a NumPy array allocated for it: no copy "
        "on either side, so it costs what the Go pipeline costs (`last_timing`'s kernel time, which takes the page "
        "faults of z's first writes) plus NumPy's allocating and freeing z. "
        "'A fresh z' is what a new array costs over a reused one (`np.empty(n).fill(1)` against `z.fill(1)`): "
        "glibc hands a 20 MB float32 z back from its heap, warm, but maps a 40 MB float64 z afresh (over its 32 MiB "
        "mmap threshold), and its first writes take page faults. `out=z` reuses one and is faster than `vkstat "
        "bench`, whose CPU kernel time includes allocating and zeroing z in Go (from a heap that reuses it).",
    ]
    lines += overhead_section(over, before, b, args)
    text = "\n".join(lines) + "\n"
    print(text)
    with open(args.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    sys.exit(main())
