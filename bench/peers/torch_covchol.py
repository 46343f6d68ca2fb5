#!/usr/bin/env python3
"""GPU peers (PyTorch, CuPy) of vkstat's cov + chol benchmark
(docs/benchmarks/covchol.md): for N sample sets of T samples of P variables,
the mean, the covariance with PACO shrinkage, the Cholesky factor and the
inverse of each covariance; the same workload as numpy_covchol.py.

Usage (on the GPU machine):
  python3 bench/peers/torch_covchol.py --backend torch --shape 10000,252,49 --dtype float32
  python3 bench/peers/torch_covchol.py --backend cupy  --shape 10000,252,49 --dtype float64
  python3 bench/peers/torch_covchol.py --backend torch --device cpu --shape 1000,252,49   (a smoke test)

The steps, as a PyTorch (CuPy) user writes them:
    m  = x.mean(1); xc = x - m[:, None, :]
    S  = xc.transpose(1, 2) @ xc / T              (batched GEMM; --cov einsum: einsum)
    rho, C as in PACO.md: C = (1 - rho) S + rho diag(S)
    L  = linalg.cholesky(C)                       (batched)
    Cinv = cholesky_inverse(L) (torch) / linalg.inv(C) (cupy)
Each step set (cov; chol+inverse; cov+chol+inverse) is timed two ways, each
the median of --repeat runs after --warmup:
  median_s         end to end: host (NumPy) arrays copied to the device, the
                   computation, the results (C for cov; L and C⁻¹ otherwise)
                   copied back — vkstat's wall time;
  kernel_median_s  the computation alone on arrays already on the device,
                   synchronised — vkstat's kernel time.
Rates use vkstat's nominal operation counts: cov 2·T·P(P+1)/2, Cholesky P³/3,
inverse 2P³/3 per set. Prints one JSON line per step set:
{"peer": "torch", "op": "cov+chol+inverse", "shape": [...], "dtype": ..., "median_s": ..., "kernel_median_s": ..., "matrices_per_s": ..., "gflops": ..., ...}
Exits 3 when the backend or its device is missing.
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np

from peerlib import parse_sets  # beside this script


class Torch:
    name = "torch"

    def __init__(self, device):
        import torch
        self.torch = torch
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise RuntimeError("PyTorch sees no CUDA device")
        self.dev = torch.device(device)
        self.version = torch.__version__

    def to_device(self, a):
        return self.torch.from_numpy(a).to(self.dev)

    def to_host(self, a):
        return a.cpu().numpy()

    def sync(self):
        if self.dev.type == "cuda":
            self.torch.cuda.synchronize(self.dev)

    def cov_paco(self, x, how):
        torch = self.torch
        n, t, p = x.shape
        m = x.mean(dim=1)
        xc = x - m[:, None, :]
        if how == "einsum":
            s = torch.einsum("ntp,ntq->npq", xc, xc) / t
        else:
            s = xc.transpose(1, 2) @ xc / t
        d = torch.diagonal(s, dim1=1, dim2=2)
        tr_s2 = (s * s).sum(dim=(1, 2))
        tr_s = d.sum(dim=1)
        sum_d2 = (d * d).sum(dim=1)
        den = (t + 1) * (tr_s2 - sum_d2)
        ok = den != 0
        rho = torch.where(ok, (tr_s2 + tr_s * tr_s - 2 * sum_d2) / torch.where(ok, den, torch.ones_like(den)), torch.ones_like(den))
        rho = rho.clamp(0, 1)
        c = (1 - rho)[:, None, None] * s
        idx = torch.arange(p, device=x.device)
        c[:, idx, idx] = d
        return m, c, rho

    def chol_inv(self, c):
        L = self.torch.linalg.cholesky(c)
        return L, self.torch.cholesky_inverse(L)


class CuPy:
    name = "cupy"

    def __init__(self, device):
        import cupy
        self.cp = cupy
        cupy.cuda.runtime.getDeviceCount()  # raises without a device
        self.version = cupy.__version__

    def to_device(self, a):
        return self.cp.asarray(a)

    def to_host(self, a):
        return self.cp.asnumpy(a)

    def sync(self):
        self.cp.cuda.Device().synchronize()

    def cov_paco(self, x, how):
        cp = self.cp
        n, t, p = x.shape
        m = x.mean(axis=1)
        xc = x - m[:, None, :]
        if how == "einsum":
            s = cp.einsum("ntp,ntq->npq", xc, xc) / x.dtype.type(t)
        else:
            s = cp.matmul(xc.transpose(0, 2, 1), xc) / x.dtype.type(t)
        d = cp.diagonal(s, axis1=1, axis2=2)
        tr_s2 = (s * s).sum(axis=(1, 2))
        tr_s = d.sum(axis=1)
        sum_d2 = (d * d).sum(axis=1)
        den = (t + 1) * (tr_s2 - sum_d2)
        rho = cp.where(den != 0, (tr_s2 + tr_s * tr_s - 2 * sum_d2) / cp.where(den != 0, den, 1), 1)
        rho = cp.clip(rho, 0, 1).astype(x.dtype)
        c = (1 - rho)[:, None, None] * s
        idx = cp.arange(p)
        c[:, idx, idx] = d
        return m, c, rho

    def chol_inv(self, c):
        return self.cp.linalg.cholesky(c), self.cp.linalg.inv(c)


def median_times(fn, sync, repeat, warmup):
    for _ in range(warmup):
        fn()
        sync()
    times = []
    for _ in range(repeat):
        sync()
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="torch", choices=["torch", "cupy"])
    ap.add_argument("--device", default="cuda", help="torch device (default cuda; cpu for a smoke test)")
    ap.add_argument("--shape", type=parse_sets, default=[10000, 252, 49], help="N,T,P")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--cov", default="matmul", choices=["matmul", "einsum"], help="how S is formed")
    ap.add_argument("--repeat", type=int, default=10, help="timed repetitions")
    ap.add_argument("--warmup", type=int, default=2, help="untimed repetitions first")
    args = ap.parse_args(argv)
    if args.repeat < 1 or args.warmup < 0:
        ap.error("--repeat must be positive, --warmup not negative")
    try:
        be = Torch(args.device) if args.backend == "torch" else CuPy(args.device)
    except Exception as e:  # ImportError, no device
        print(f"{args.backend}: {e}", file=sys.stderr)
        sys.exit(3)

    n, t, p = args.shape
    rng = np.random.default_rng(0)
    xh = (100 + rng.standard_normal(args.shape)).astype(np.dtype(args.dtype))
    x = be.to_device(xh)
    _, c, _ = be.cov_paco(x, args.cov)
    ch = be.to_host(c)

    def e2e_cov():
        _, cc, _ = be.cov_paco(be.to_device(xh), args.cov)
        return be.to_host(cc)

    def e2e_chol():
        L, ci = be.chol_inv(be.to_device(ch))
        return be.to_host(L), be.to_host(ci)

    def e2e_all():
        L, ci = be.chol_inv(be.cov_paco(be.to_device(xh), args.cov)[1])
        return be.to_host(L), be.to_host(ci)

    flops = {"cov": 2 * t * p * (p + 1) / 2, "chol+inverse": p ** 3}
    flops["cov+chol+inverse"] = flops["cov"] + flops["chol+inverse"]
    steps = {
        "cov": (e2e_cov, lambda: be.cov_paco(x, args.cov)),
        "chol+inverse": (e2e_chol, lambda: be.chol_inv(c)),
        "cov+chol+inverse": (e2e_all, lambda: be.chol_inv(be.cov_paco(x, args.cov)[1])),
    }
    for op, (e2e, kern) in steps.items():
        med, mn = median_times(e2e, be.sync, args.repeat, args.warmup)
        kmed, kmn = median_times(kern, be.sync, args.repeat, args.warmup)
        print(json.dumps({
            "peer": be.name,
            "version": be.version,
            "device": args.device if be.name == "torch" else "cuda",
            "op": op,
            "shape": args.shape,
            "dtype": args.dtype,
            "cov": args.cov,
            "median_s": med,
            "min_s": mn,
            "kernel_median_s": kmed,
            "kernel_min_s": kmn,
            "matrices_per_s": n / med,
            "kernel_matrices_per_s": n / kmed,
            "gflops": n * flops[op] / med / 1e9,
            "kernel_gflops": n * flops[op] / kmed / 1e9,
        }), flush=True)


if __name__ == "__main__":
    main()
