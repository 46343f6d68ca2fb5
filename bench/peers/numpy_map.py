#!/usr/bin/env python3
"""NumPy peer of vkstat's grade-2 map: times z = a*x**2 + b*y + c.

Usage: /usr/bin/python3 bench/peers/numpy_map.py --n 5000000 --repeat 10

Prints one JSON line:
{"peer": "numpy", "op": "grade2", "n": ..., "dtype": ..., "median_s": ..., "min_s": ...}
"""
import argparse
import sys

import numpy as np

from peerlib import report, timed  # beside this script


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=5_000_000, help="number of elements")
    ap.add_argument("--repeat", type=int, default=10, help="timed repetitions")
    ap.add_argument("--warmup", type=int, default=2, help="untimed repetitions first")
    ap.add_argument("--dtype", default="float64", choices=["float32", "float64"])
    ap.add_argument("--a", type=float, default=3.5)
    ap.add_argument("--b", type=float, default=2.8)
    ap.add_argument("--c", type=float, default=10.0)
    args = ap.parse_args(argv)
    if args.n < 1 or args.repeat < 1 or args.warmup < 0:
        ap.error("--n and --repeat must be positive, --warmup not negative")

    rng = np.random.default_rng(0)
    dt = np.dtype(args.dtype)
    x = rng.random(args.n).astype(dt, copy=False)
    y = rng.random(args.n).astype(dt, copy=False)
    # Scalars of the array's type, so float32 stays float32 under any
    # NumPy promotion rules.
    a, b, c = dt.type(args.a), dt.type(args.b), dt.type(args.c)

    times = timed(lambda: a * x**2 + b * y + c, args.repeat, args.warmup)
    report("numpy", "grade2", {"n": args.n, "dtype": dt.name}, times, args.repeat, {"numpy": np.__version__})
    return 0


if __name__ == "__main__":
    sys.exit(main())
