#!/usr/bin/env python3
"""NumPy peer of vkstat's quantiles: times np.quantile(x, q, axis).

Usage: /usr/bin/python3 bench/peers/numpy_quantile.py --shape 64,256,256 --axis 0 --q 0.5 --repeat 5

The temporal median of an image stack is np.quantile(x, 0.5, axis=0) (or
np.median). Prints one JSON line:
{"peer": "numpy", "op": "quantile", "shape": [...], "axis": ..., "q": [...], "dtype": ..., "median_s": ..., "min_s": ...}
"""
import argparse
import sys

import numpy as np

from peerlib import parse_shape, report, timed  # beside this script


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", type=parse_shape, default=[64, 256, 256], help="comma-separated, e.g. 64,256,256")
    ap.add_argument("--axis", type=int, default=0, help="axis to take the quantiles along")
    ap.add_argument("--q", default="0.5", help="comma-separated quantiles in [0, 1]")
    ap.add_argument("--repeat", type=int, default=5, help="timed repetitions")
    ap.add_argument("--warmup", type=int, default=1, help="untimed repetitions first")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    args = ap.parse_args(argv)
    q = [float(v) for v in args.q.split(",")]
    if not -len(args.shape) <= args.axis < len(args.shape):
        ap.error(f"axis {args.axis} is out of range for shape {tuple(args.shape)}")
    if not all(0 <= v <= 1 for v in q):
        ap.error("--q: quantiles must be in [0, 1]")
    if args.repeat < 1 or args.warmup < 0:
        ap.error("--repeat must be positive, --warmup not negative")

    rng = np.random.default_rng(0)
    x = rng.random(args.shape, dtype=np.dtype(args.dtype))
    times = timed(lambda: np.quantile(x, q, axis=args.axis), args.repeat, args.warmup)
    report("numpy", "quantile", {"shape": args.shape, "axis": args.axis, "q": q, "n": int(x.size), "dtype": args.dtype},
           times, args.repeat, {"numpy": np.__version__})
    return 0


if __name__ == "__main__":
    sys.exit(main())
