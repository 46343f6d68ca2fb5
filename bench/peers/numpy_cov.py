#!/usr/bin/env python3
"""NumPy peer of vkstat's batched covariance: mean, covariance and shrinkage
weight of N sample sets of T samples of P variables.

Usage: /usr/bin/python3 bench/peers/numpy_cov.py --shape 2048,64,49 --estimator paco --repeat 10

What a NumPy user writes: centre each set, S = XcᵀXc/T as one batched
matmul, then PACO's shrinkage (PACO.md; pipelines/cov's documentation)
    rho = [tr(S²) + tr(S)² − 2 Σ S_ii²] / [(T+1)(tr(S²) − Σ S_ii²)], clipped to [0, 1]
    C   = (1 − rho) S + rho diag(S)
(--estimator none keeps C = S). Prints one JSON line:
{"peer": "numpy", "op": "cov", "shape": [...], "estimator": ..., "dtype": ..., "median_s": ..., "min_s": ...}
"""
import argparse
import sys

import numpy as np

from peerlib import parse_sets, report, timed  # beside this script


def cov_paco(xp, x, estimator):
    """Mean (N, P), covariance (N, P, P) and rho (N,) with array module xp
    (numpy or cupy)."""
    n, t, p = x.shape
    m = x.mean(axis=1)
    xc = x - m[:, None, :]
    s = xc.transpose(0, 2, 1) @ xc / x.dtype.type(t)
    if estimator == "none":
        return m, s, xp.zeros(n, dtype=x.dtype)
    d = xp.diagonal(s, axis1=1, axis2=2)
    tr_s2 = (s * s).sum(axis=(1, 2))
    tr_s = d.sum(axis=1)
    sum_d2 = (d * d).sum(axis=1)
    den = (t + 1) * (tr_s2 - sum_d2)
    rho = xp.where(den > 0, (tr_s2 + tr_s * tr_s - 2 * sum_d2) / xp.where(den > 0, den, 1), 1)
    rho = xp.clip(rho, 0, 1).astype(x.dtype)
    c = (1 - rho)[:, None, None] * s
    idx = xp.arange(p)
    c[:, idx, idx] = d
    return m, c, rho


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", type=parse_sets, default=[2048, 64, 49], help="N,T,P")
    ap.add_argument("--estimator", default="paco", choices=["none", "paco"])
    ap.add_argument("--repeat", type=int, default=10, help="timed repetitions")
    ap.add_argument("--warmup", type=int, default=2, help="untimed repetitions first")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    args = ap.parse_args(argv)
    if args.repeat < 1 or args.warmup < 0:
        ap.error("--repeat must be positive, --warmup not negative")

    rng = np.random.default_rng(0)
    dt = np.dtype(args.dtype)
    x = (100 + rng.standard_normal(args.shape)).astype(dt)

    times = timed(lambda: cov_paco(np, x, args.estimator), args.repeat, args.warmup)
    report("numpy", "cov", {"shape": args.shape, "estimator": args.estimator, "n": int(x.size), "dtype": dt.name},
           times, args.repeat, {"numpy": np.__version__})
    return 0


if __name__ == "__main__":
    sys.exit(main())
