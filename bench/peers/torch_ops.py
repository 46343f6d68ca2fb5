#!/usr/bin/env python3
"""PyTorch peer of vkstat's operations on a CUDA GPU: map, reduce, cov and chol.

Usage:
  python3 bench/peers/torch_ops.py map --n 5000000 --dtype float64 --repeat 10
  python3 bench/peers/torch_ops.py reduce --shape 64,1024,1024 --axis 0 --dtype float32
  python3 bench/peers/torch_ops.py cov --shape 2048,64,49 --estimator paco --dtype float32
  python3 bench/peers/torch_ops.py chol --n 4096 --p 49 --dtype float32

map is z = a*x**2 + b*y + c (a=3.5, b=2.8, c=10); reduce is the mean and the
standard deviation (ddof) along one axis, what a PyTorch user writes for the
per-pixel statistics of an image stack; cov is the batched mean, covariance
and PACO shrinkage of numpy_cov.py; chol factors N SPD matrices, solves one
right-hand side each and takes log det, as numpy_chol.py. The arguments are those of
bench/peers/numpy_map.py, numpy_reduce.py and numpy_cov.py, which
`vkstat bench --json` records for each case. cov is the batched mean, covariance and PACO
shrinkage of numpy_cov.py; chol factors N SPD matrices, solves one
right-hand side each and takes log det, as numpy_chol.py.

Two times per workload, each the median of --repeat runs after --warmup:
  median_s         end to end: host (NumPy) arrays copied to the GPU, the
                   computation, the results copied back (vkstat's wall time);
  kernel_median_s  the computation alone on tensors already on the GPU,
                   timed with CUDA events (vkstat's kernel time).
Prints one JSON line like the NumPy peers:
{"peer": "torch", "op": "grade2", "n": ..., "dtype": ..., "median_s": ..., "kernel_median_s": ..., ...}
Exits 3 when PyTorch or a CUDA device is missing.
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
        p.add_argument("--device", default="cuda", help="torch device (default cuda)")
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
        import torch
    except ImportError as e:
        print(f"torch_ops.py: PyTorch is not installed: {e}", file=sys.stderr)
        return 3
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("torch_ops.py: no CUDA device visible to PyTorch", file=sys.stderr)
        return 3
    dev = torch.device(args.device)
    cuda = dev.type == "cuda"

    def sync():
        if cuda:
            torch.cuda.synchronize(dev)

    rng = np.random.default_rng(0)
    dt = np.dtype(args.dtype)
    info = {"peer": "torch", "dtype": dt.name}
    if args.op == "map":
        hosts = [rng.random(args.n).astype(dt, copy=False), rng.random(args.n).astype(dt, copy=False)]
        a, b, c = args.a, args.b, args.c

        def compute(x, y):
            return (a * x * x + b * y + c,)

        info.update(op="grade2", n=args.n)
    elif args.op == "chol":
        from numpy_chol import spd  # beside this script
        hosts = list(spd(rng, args.n, args.p, dt))

        def compute(a, b):
            L = torch.linalg.cholesky(a)
            x = torch.cholesky_solve(b[..., None], L)[..., 0]
            logdet = 2 * torch.log(torch.diagonal(L, dim1=1, dim2=2)).sum(dim=1)
            return (L, x, logdet)

        info.update(op="chol", n=args.n, p=args.p)
    elif args.op == "cov":
        if len(args.shape) != 3:
            ap.error("cov takes --shape N,T,P")
        hosts = [(100 + rng.standard_normal(args.shape)).astype(dt)]
        est = args.estimator

        def compute(x):
            n, t, p = x.shape
            m = x.mean(dim=1)
            xc = x - m[:, None, :]
            s = xc.transpose(1, 2) @ xc / t
            if est == "none":
                return (m, s, torch.zeros(n, dtype=x.dtype, device=x.device))
            d = torch.diagonal(s, dim1=1, dim2=2)
            tr_s2 = (s * s).sum(dim=(1, 2))
            tr_s = d.sum(dim=1)
            sum_d2 = (d * d).sum(dim=1)
            den = (t + 1) * (tr_s2 - sum_d2)
            rho = torch.where(den > 0, (tr_s2 + tr_s * tr_s - 2 * sum_d2) / torch.where(den > 0, den, torch.ones_like(den)),
                              torch.ones_like(den)).clamp(0, 1)
            c = (1 - rho)[:, None, None] * s
            idx = torch.arange(p, device=x.device)
            c[:, idx, idx] = d
            return (m, c, rho)

        info.update(op="cov", shape=args.shape, estimator=est, n=int(hosts[0].size))
    else:
        if not -len(args.shape) <= args.axis < len(args.shape):
            ap.error(f"axis {args.axis} is out of range for shape {tuple(args.shape)}")
        hosts = [rng.random(args.shape, dtype=dt)]
        axis, ddof = args.axis, args.ddof

        def compute(x):
            try:
                s = torch.std(x, dim=axis, correction=ddof)
            except TypeError:  # PyTorch < 2.0
                s = torch.std(x, dim=axis, unbiased=bool(ddof))
            return (torch.mean(x, dim=axis), s)

        info.update(op="mean_std", shape=args.shape, axis=args.axis, ddof=args.ddof, n=int(hosts[0].size))

    def end_to_end():
        xs = [torch.from_numpy(h).to(dev) for h in hosts]
        outs = [o.cpu().numpy() for o in compute(*xs)]
        sync()
        return outs

    for _ in range(args.warmup):
        end_to_end()
    wall = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        end_to_end()
        wall.append(time.perf_counter() - t0)

    xs = [torch.from_numpy(h).to(dev) for h in hosts]
    sync()
    for _ in range(args.warmup):
        compute(*xs)
    kernel = []
    for _ in range(args.repeat):
        if cuda:
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            compute(*xs)
            stop.record()
            stop.synchronize()
            kernel.append(start.elapsed_time(stop) / 1e3)
        else:
            t0 = time.perf_counter()
            compute(*xs)
            kernel.append(time.perf_counter() - t0)

    info.update(
        median_s=statistics.median(wall),
        min_s=min(wall),
        kernel_median_s=statistics.median(kernel),
        kernel_min_s=min(kernel),
        repeat=args.repeat,
        torch=torch.__version__,
        device=torch.cuda.get_device_name(dev) if cuda else str(dev),
        cuda=torch.version.cuda,
    )
    print(json.dumps(info))
    return 0


if __name__ == "__main__":
    sys.exit(main())
