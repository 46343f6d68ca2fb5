#!/usr/bin/env python3
"""NumPy peer of vkstat's cov + chol benchmark (docs/benchmarks/covchol.md):
for N sample sets of T samples of P variables, the mean, the covariance with
PACO shrinkage, the Cholesky factor and the inverse of each covariance.

Usage: /usr/bin/python3 bench/peers/numpy_covchol.py --shape 10000,252,49 --dtype float64 --repeat 3

What a NumPy user writes:
    m  = x.mean(axis=1); xc = x - m[:, None, :]
    S  = np.einsum('ntp,ntq->npq', xc, xc) / T        (--cov einsum, the default)
      or xc.transpose(0, 2, 1) @ xc / T                 (--cov matmul: BLAS per set)
    rho, C as in PACO.md: C = (1 - rho) S + rho diag(S)
    L  = np.linalg.cholesky(C); Cinv = np.linalg.inv(C)  (batched)
Steps are timed separately (cov = mean, S and shrinkage; chol+inverse) and
together. Rates use vkstat's nominal operation counts, so that they compare:
cov 2·T·P(P+1)/2, Cholesky P³/3, inverse 2P³/3 per set. Prints one JSON line
per step:
{"peer": "numpy", "op": "cov+chol+inverse", "shape": [...], "dtype": ..., "cov": ..., "median_s": ..., "min_s": ..., "matrices_per_s": ..., "gflops": ...}
"""
import argparse
import json
import statistics

import numpy as np

from peerlib import parse_sets, timed  # beside this script


def cov_paco(x, how):
    n, t, p = x.shape
    m = x.mean(axis=1)
    xc = x - m[:, None, :]
    if how == "einsum":
        s = np.einsum("ntp,ntq->npq", xc, xc) / x.dtype.type(t)
    else:
        s = xc.transpose(0, 2, 1) @ xc / x.dtype.type(t)
    d = np.diagonal(s, axis1=1, axis2=2)
    tr_s2 = (s * s).sum(axis=(1, 2))
    tr_s = d.sum(axis=1)
    sum_d2 = (d * d).sum(axis=1)
    den = (t + 1) * (tr_s2 - sum_d2)
    rho = np.where(den != 0, (tr_s2 + tr_s * tr_s - 2 * sum_d2) / np.where(den != 0, den, 1), 1)
    rho = np.clip(rho, 0, 1).astype(x.dtype)
    c = (1 - rho)[:, None, None] * s
    idx = np.arange(p)
    c[:, idx, idx] = d
    return m, c, rho


def chol_inv(c):
    return np.linalg.cholesky(c), np.linalg.inv(c)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", type=parse_sets, default=[10000, 252, 49], help="N,T,P")
    ap.add_argument("--dtype", default="float64", choices=["float32", "float64"])
    ap.add_argument("--cov", default="einsum", choices=["einsum", "matmul"], help="how S is formed")
    ap.add_argument("--repeat", type=int, default=3, help="timed repetitions")
    ap.add_argument("--warmup", type=int, default=1, help="untimed repetitions first")
    args = ap.parse_args(argv)
    if args.repeat < 1 or args.warmup < 0:
        ap.error("--repeat must be positive, --warmup not negative")

    n, t, p = args.shape
    rng = np.random.default_rng(0)
    dt = np.dtype(args.dtype)
    x = (100 + rng.standard_normal(args.shape)).astype(dt)
    _, c, _ = cov_paco(x, args.cov)

    flops = {
        "cov": 2 * t * p * (p + 1) / 2,
        "chol+inverse": p ** 3 / 3 + 2 * p ** 3 / 3,
    }
    flops["cov+chol+inverse"] = flops["cov"] + flops["chol+inverse"]
    steps = {
        "cov": lambda: cov_paco(x, args.cov),
        "chol+inverse": lambda: chol_inv(c),
        "cov+chol+inverse": lambda: chol_inv(cov_paco(x, args.cov)[1]),
    }
    for op, fn in steps.items():
        times = timed(fn, args.repeat, args.warmup)
        med = statistics.median(times)
        print(json.dumps({
            "peer": "numpy",
            "numpy": np.__version__,
            "op": op,
            "shape": args.shape,
            "dtype": args.dtype,
            "cov": args.cov,
            "median_s": med,
            "min_s": min(times),
            "matrices_per_s": n / med,
            "gflops": n * flops[op] / med / 1e9,
        }), flush=True)


if __name__ == "__main__":
    main()
