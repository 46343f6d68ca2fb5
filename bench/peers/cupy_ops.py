#!/usr/bin/env python3
"""CuPy peer of vkstat's operations on a CUDA GPU: map, reduce, cov and chol.

Usage:
  python3 bench/peers/cupy_ops.py map --n 5000000 --dtype float64 --repeat 10
  python3 bench/peers/cupy_ops.py reduce --shape 64,1024,1024 --axis 0 --dtype float32
  python3 bench/peers/cupy_ops.py cov --shape 2048,64,49 --estimator paco --dtype float32
  python3 bench/peers/cupy_ops.py chol --n 4096 --p 49 --dtype float32

map is z = a*x**2 + b*y + c (a=3.5, b=2.8, c=10); reduce is x.mean(axis) and
x.std(axis, ddof). The arguments are those of bench/peers/numpy_map.py and
numpy_reduce.py, which `vkstat bench --json` records for each case.

Two times per workload, each the median of --repeat runs after --warmup:
  median_s         end to end: host (NumPy) arrays copied to the GPU, the
                   computation, the results copied back (vkstat's wall time);
  kernel_median_s  the computation alone on arrays already on the GPU,
                   timed with CUDA events (vkstat's kernel time).
Prints one JSON line like the NumPy peers:
{"peer": "cupy", "op": "grade2", "n": ..., "dtype": ..., "median_s": ..., "kernel_median_s": ..., ...}
Exits 3 when CuPy or a CUDA device is missing.
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np

from peerlib import parse_shape  # beside this script


# The workloads this script implements; report_cpu.py reads this tuple
# (without importing the script) to tell them from the ones it has not.
OPS = ("map", "reduce", "cov", "chol")


def parser():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="op", required=True)
    for name in OPS:
        p = sub.add_parser(name)
        p.add_argument("--repeat", type=int, default=10, help="timed repetitions")
        p.add_argument("--warmup", type=int, default=2, help="untimed repetitions first")
        p.add_argument("--dtype", default="float64" if name == "map" else "float32", choices=["float32", "float64"])
    m = sub.choices["map"]
    m.add_argument("--n", type=int, default=5_000_000, help="number of elements")
    m.add_argument("--a", type=float, default=3.5)
    m.add_argument("--b", type=float, default=2.8)
    m.add_argument("--c", type=float, default=10.0)
    r = sub.choices["reduce"]
    r.add_argument("--shape", type=parse_shape, default=[64, 1024, 1024])
    r.add_argument("--axis", type=int, default=0)
    r.add_argument("--ddof", type=int, default=0)
    v = sub.choices["cov"]
    v.add_argument("--shape", type=parse_shape, default=[2048, 64, 49], help="N,T,P")
    v.add_argument("--estimator", default="paco", choices=["none", "paco"])
    h = sub.choices["chol"]
    h.add_argument("--n", type=int, default=4096, help="number of matrices")
    h.add_argument("--p", type=int, default=49, help="matrix size")
    return ap


def main(argv=None):
    ap = parser()
    args = ap.parse_args(argv)
    if args.repeat < 1 or args.warmup < 0:
        ap.error("--repeat must be positive, --warmup not negative")
    try:
        import cupy as cp
        if cp.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device")
    except Exception as e:  # ImportError, or CUDA runtime errors
        print(f"cupy_ops.py: CuPy or a CUDA device is missing: {e}", file=sys.stderr)
        return 3

    rng = np.random.default_rng(0)
    dt = np.dtype(args.dtype)
    info = {"peer": "cupy", "dtype": dt.name}
    if args.op == "map":
        hosts = [rng.random(args.n).astype(dt, copy=False), rng.random(args.n).astype(dt, copy=False)]
        # Scalars of the array's type, so float32 stays float32.
        a, b, c = dt.type(args.a), dt.type(args.b), dt.type(args.c)

        def compute(x, y):
            return (a * x * x + b * y + c,)

        info.update(op="grade2", n=args.n)
    elif args.op == "chol":
        from numpy_chol import spd, chol_solve  # beside this script
        hosts = list(spd(rng, args.n, args.p, dt))

        def compute(a, b):
            return chol_solve(cp, a, b)

        info.update(op="chol", n=args.n, p=args.p)
    elif args.op == "cov":
        if len(args.shape) != 3:
            ap.error("cov takes --shape N,T,P")
        from numpy_cov import cov_paco  # beside this script
        hosts = [(100 + rng.standard_normal(args.shape)).astype(dt)]
        est = args.estimator

        def compute(x):
            return cov_paco(cp, x, est)

        info.update(op="cov", shape=args.shape, estimator=est, n=int(hosts[0].size))
    else:
        if not -len(args.shape) <= args.axis < len(args.shape):
            ap.error(f"axis {args.axis} is out of range for shape {tuple(args.shape)}")
        hosts = [rng.random(args.shape, dtype=dt)]
        axis, ddof = args.axis, args.ddof

        def compute(x):
            return (x.mean(axis=axis), x.std(axis=axis, ddof=ddof))

        info.update(op="mean_std", shape=args.shape, axis=args.axis, ddof=args.ddof, n=int(hosts[0].size))

    sync = cp.cuda.Device().synchronize

    def end_to_end():
        xs = [cp.asarray(h) for h in hosts]
        outs = [cp.asnumpy(o) for o in compute(*xs)]
        sync()
        return outs

    for _ in range(args.warmup):
        end_to_end()
    wall = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        end_to_end()
        wall.append(time.perf_counter() - t0)

    xs = [cp.asarray(h) for h in hosts]
    sync()
    for _ in range(args.warmup):
        compute(*xs)
    kernel = []
    for _ in range(args.repeat):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        compute(*xs)
        stop.record()
        stop.synchronize()
        kernel.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)

    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    name = props.get("name", b"")
    info.update(
        median_s=statistics.median(wall),
        min_s=min(wall),
        kernel_median_s=statistics.median(kernel),
        kernel_min_s=min(kernel),
        repeat=args.repeat,
        cupy=cp.__version__,
        device=name.decode() if isinstance(name, bytes) else str(name),
    )
    print(json.dumps(info))
    return 0


if __name__ == "__main__":
    sys.exit(main())
