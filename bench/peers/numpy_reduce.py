#!/usr/bin/env python3
"""NumPy peer of vkstat's reduction: times m = x.mean(axis); s = x.std(axis).

Usage: /usr/bin/python3 bench/peers/numpy_reduce.py --shape 64,1024,1024 --axis 0 --repeat 5

The two calls are what a NumPy user writes for a per-pixel mean and standard
deviation of an image stack. Prints one JSON line:
{"peer": "numpy", "op": "mean_std", "shape": [...], "axis": ..., "dtype": ..., "median_s": ..., "min_s": ...}
"""
import argparse
import sys

import numpy as np

from peerlib import parse_shape, report, timed  # beside this script


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", type=parse_shape, default=[64, 1024, 1024], help="comma-separated, e.g. 64,1024,1024")
    ap.add_argument("--axis", type=int, default=0, help="axis to reduce (negative counts from the end)")
    ap.add_argument("--repeat", type=int, default=5, help="timed repetitions")
    ap.add_argument("--warmup", type=int, default=2, help="untimed repetitions first")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--ddof", type=int, default=0)
    args = ap.parse_args(argv)
    if not -len(args.shape) <= args.axis < len(args.shape):
        ap.error(f"axis {args.axis} is out of range for shape {tuple(args.shape)}")
    if args.repeat < 1 or args.warmup < 0:
        ap.error("--repeat must be positive, --warmup not negative")

    rng = np.random.default_rng(0)
    dt = np.dtype(args.dtype)
    x = rng.random(args.shape, dtype=dt)

    def op():
        m = x.mean(axis=args.axis)
        s = x.std(axis=args.axis, ddof=args.ddof)
        return m, s

    times = timed(op, args.repeat, args.warmup)
    report("numpy", "mean_std", {"shape": args.shape, "axis": args.axis, "n": int(x.size), "dtype": dt.name},
           times, args.repeat, {"numpy": np.__version__})
    return 0


if __name__ == "__main__":
    sys.exit(main())
