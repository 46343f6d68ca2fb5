#!/usr/bin/env python3
"""NumPy peers of vkstat's commands, whole process: np.load the inputs, the
computation as a NumPy user writes it, np.save every output vkstat writes.
Run by bench/e2e/run.py (scripts/bench-e2e.sh), timed from outside with the
interpreter's start-up and NumPy's import included, as vkstat's start-up is.

Usage: /usr/bin/python3 bench/e2e/numpy_e2e.py WORKLOAD ARGS...
  map X.npy Y.npy A B C OUT.npy     z = a·x² + b·y + c
  reduce X.npy AXIS STATS OUTDIR    STATS: comma-separated sum, mean, std (ddof 0)
  cov X.npy OUTDIR                  (N, T, P): mean, covariance with PACO's shrinkage, rho
  latent X.npy OUTDIR               (N, C, F, H, W): moments over H, W, corr, lagcorr
"""
import os
import sys
import time

import numpy as np

# The shrinkage as bench/peers/numpy_cov.py writes it (one copy of the formula).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers"))
import numpy_cov  # noqa: E402


def save(d, name, a):
    np.save(os.path.join(d, name + ".npy"), a)


def map_(x, y, a, b, c, out):
    t0 = time.perf_counter()
    x, y = np.load(x), np.load(y)
    t1 = time.perf_counter()
    a, b, c = (x.dtype.type(float(v)) for v in (a, b, c))
    z = a * x**2 + b * y + c
    t2 = time.perf_counter()
    np.save(out, z)
    t3 = time.perf_counter()
    # Where the time goes, as vkstat --time prints it.
    print(f"read: {(t1 - t0) * 1e3:.3f} ms\ncompute: {(t2 - t1) * 1e3:.3f} ms\nwrite: {(t3 - t2) * 1e3:.3f} ms", file=sys.stderr)


def reduce_(path, axis, stats, d):
    x = np.load(path)
    axis = int(axis)
    os.makedirs(d, exist_ok=True)
    for s in stats.split(","):
        # What a NumPy user writes (bench/peers/numpy_reduce.py): NumPy's
        # own accumulation, results in the input's type.
        if s == "sum":
            r = x.sum(axis=axis)
        elif s == "mean":
            r = x.mean(axis=axis)
        elif s == "std":
            r = x.std(axis=axis)
        else:
            raise SystemExit(f"unknown statistic {s}")
        save(d, s, r)


def cov(path, d):
    m, c, rho = numpy_cov.cov_paco(np, np.load(path), "paco")
    os.makedirs(d, exist_ok=True)
    save(d, "mean", m)
    save(d, "cov", c)
    save(d, "rho", rho)


def latent(path, d):
    a = np.load(path)
    N, C, F, H, W = a.shape
    os.makedirs(d, exist_ok=True)
    # Moments over (H, W), float64 accumulation, float32 results.
    m = a.mean(axis=(3, 4), dtype=np.float64, keepdims=True)
    dv = a - m
    m2 = np.mean(dv * dv, axis=(3, 4))
    m3 = np.mean(dv * dv * dv, axis=(3, 4))
    m4 = np.mean((dv * dv) ** 2, axis=(3, 4))
    del dv
    f32 = np.float32
    save(d, "mean", m[..., 0, 0].astype(f32))
    save(d, "var", m2.astype(f32))
    save(d, "std", np.sqrt(m2).astype(f32))
    save(d, "min", a.min(axis=(3, 4)))
    save(d, "max", a.max(axis=(3, 4)))
    save(d, "skew", (m3 / m2**1.5).astype(f32))
    save(d, "kurt", (m4 / m2**2 - 3).astype(f32))
    # Channel correlation per sample, over frames and pixels.
    x = a.reshape(N, C, -1).astype(np.float64)
    x -= x.mean(axis=2, keepdims=True)
    c = np.einsum("nct,ndt->ncd", x, x)
    del x
    dg = np.sqrt(np.einsum("ncc->nc", c))
    save(d, "corr", (c / dg[:, :, None] / dg[:, None, :]).astype(f32))
    # Frame correlation per sample and channel, over pixels, and its lags.
    x = a.reshape(N, C, F, H * W).astype(np.float64)
    x -= x.mean(axis=3, keepdims=True)
    c = np.einsum("ncft,ncgt->ncfg", x, x)
    del x
    dg = np.sqrt(np.einsum("ncff->ncf", c))
    r = c / dg[..., :, None] / dg[..., None, :]
    save(d, "frame_corr", r.astype(f32))
    lags = [np.mean(np.diagonal(r, offset=k, axis1=2, axis2=3), axis=2) for k in range(1, min(3, F - 1) + 1)]
    save(d, "lagcorr", np.stack(lags, axis=-1).astype(f32))


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    ops = {"map": map_, "reduce": reduce_, "cov": cov, "latent": latent}
    if argv[1] not in ops:
        raise SystemExit(f"unknown workload {argv[1]}\n{__doc__}")
    ops[argv[1]](*argv[2:])


if __name__ == "__main__":
    main(sys.argv)
