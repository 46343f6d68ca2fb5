#!/usr/bin/env python3
"""NumPy peer of vkstat's batched Cholesky: factor N SPD P×P matrices, solve
one right-hand side each and take log det.

Usage: /usr/bin/python3 bench/peers/numpy_chol.py --n 4096 --p 49 --repeat 10

What a NumPy user writes without SciPy (NumPy has no batched triangular
solve): L = np.linalg.cholesky(A); x = np.linalg.solve(A, b);
logdet = 2 Σ log diag(L). Prints one JSON line:
{"peer": "numpy", "op": "chol", "n": ..., "p": ..., "dtype": ..., "median_s": ..., "min_s": ...}
"""
import argparse
import sys

import numpy as np

from peerlib import report, timed  # beside this script


def spd(rng, n, p, dt):
    """N well-conditioned SPD matrices M·Mᵀ/P + I and right-hand sides."""
    m = rng.standard_normal((n, p, p))
    a = m @ m.transpose(0, 2, 1) / p + np.eye(p)
    return a.astype(dt), rng.standard_normal((n, p)).astype(dt)


def chol_solve(xp, a, b):
    """L, x = A⁻¹b and log det A with array module xp (numpy or cupy)."""
    L = xp.linalg.cholesky(a)
    x = xp.linalg.solve(a, b[..., None])[..., 0]
    logdet = 2 * xp.log(xp.diagonal(L, axis1=1, axis2=2)).sum(axis=1)
    return L, x, logdet


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=4096, help="number of matrices")
    ap.add_argument("--p", type=int, default=49, help="matrix size")
    ap.add_argument("--repeat", type=int, default=10, help="timed repetitions")
    ap.add_argument("--warmup", type=int, default=2, help="untimed repetitions first")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    args = ap.parse_args(argv)
    if args.n < 1 or args.p < 1 or args.repeat < 1 or args.warmup < 0:
        ap.error("--n, --p and --repeat must be positive, --warmup not negative")

    rng = np.random.default_rng(0)
    dt = np.dtype(args.dtype)
    a, b = spd(rng, args.n, args.p, dt)
    times = timed(lambda: chol_solve(np, a, b), args.repeat, args.warmup)
    report("numpy", "chol", {"n": args.n, "p": args.p, "dtype": dt.name}, times, args.repeat, {"numpy": np.__version__})
    return 0


if __name__ == "__main__":
    sys.exit(main())
