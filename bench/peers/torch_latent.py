#!/usr/bin/env python3
"""PyTorch peer for vkstat latent on a CUDA GPU: the statistics of
numpy_latent.py written the way a PyTorch user writes them (torch.var,
torch.fft.fft2, torch.linalg.eigh, batched einsum), in float32 on the GPU.

Usage: python3 torch_latent.py LATENT.npy STAT[,STAT...] [REPEAT]

Prints one line per statistic:
  "<stat> <end-to-end median ms> <end-to-end min ms> <kernel median ms>"
end to end: the array in host memory copied to the GPU, the statistic, its
results copied back (vkstat's upload + kernel + download); kernel: the
statistic alone on the tensor already on the GPU, timed with CUDA events.
Each is the median of REPEAT runs after one warm-up. Exits 3 when PyTorch
or a CUDA device is missing.
"""
import statistics
import sys
import time

import numpy as np

try:
    import torch
except ImportError:
    print("torch_latent: PyTorch is not installed", file=sys.stderr)
    sys.exit(3)
if not torch.cuda.is_available():
    print("torch_latent: no CUDA device", file=sys.stderr)
    sys.exit(3)

a = np.load(sys.argv[1])
if a.dtype.kind == "V":  # ml_dtypes' bfloat16 as np.save writes it
    a = (np.frombuffer(a.tobytes(), "<u2").astype(np.uint32) << 16).view(np.float32).reshape(a.shape)
a = np.ascontiguousarray(a, dtype=np.float32)
N, C, F, H, W = a.shape
stats = sys.argv[2].split(",")
repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 3
dev = torch.device("cuda")


def moments(x):
    m = x.mean(dim=(3, 4), keepdim=True)
    d = x - m
    m2 = (d * d).mean(dim=(3, 4))
    m3 = (d * d * d).mean(dim=(3, 4))
    m4 = ((d * d) ** 2).mean(dim=(3, 4))
    mn = x.amin(dim=(3, 4))
    mx = x.amax(dim=(3, 4))
    return m, m2, m2.sqrt(), mn, mx, m3 / m2**1.5, m4 / m2**2 - 3


def covs(x, ddof):
    y = x.reshape(N, C, -1)
    y = y - y.mean(dim=2, keepdim=True)
    return torch.einsum("nct,ndt->ncd", y, y) / (y.shape[2] - ddof)


def corr(x):
    c = covs(x, 0)
    d = torch.diagonal(c, dim1=1, dim2=2).sqrt()
    return (c / d[:, :, None] / d[:, None, :],)


def lagcorr(x):
    y = x.reshape(N, C, F, H * W)
    y = y - y.mean(dim=3, keepdim=True)
    c = torch.einsum("ncft,ncgt->ncfg", y, y)
    d = torch.diagonal(c, dim1=2, dim2=3).sqrt()
    r = c / d[..., :, None] / d[..., None, :]
    lags = [torch.diagonal(r, offset=l, dim1=2, dim2=3).mean(dim=2) for l in range(1, min(3, F - 1) + 1)]
    return (r, *lags)


def pca(x):
    w, v = torch.linalg.eigh(covs(x, 1))
    w = w.flip(1)
    return w / w.sum(dim=1, keepdim=True), v.flip(2)


fy, fx = np.fft.fftfreq(H), np.fft.fftfreq(W)
rad = np.rint(min(H, W) * np.sqrt(fy[:, None] ** 2 + fx[None, :] ** 2)).astype(int).ravel()
K = min(H, W) // 2 + 1
keep = rad < K
onehot_np = np.zeros((H * W, K), dtype=np.float32)
onehot_np[np.arange(H * W)[keep], rad[keep]] = 1
onehot = torch.from_numpy(onehot_np).to(dev)
counts = onehot.sum(dim=0)


def spectra(x):
    y = x - x.mean(dim=(3, 4), keepdim=True)
    p = torch.fft.fft2(y).abs() ** 2 / float(H * W) ** 2
    radial = (p.reshape(-1, H * W) @ onehot / counts).reshape(N, C, F, K).mean(dim=2)
    z = x - x.mean(dim=2, keepdim=True)
    q = torch.fft.rfft(z, dim=2).abs() ** 2 / float(F) ** 2
    q[:, :, 1 : (F + 1) // 2] *= 2
    return radial, q.mean(dim=(3, 4))


ops = {"moments": moments, "corr": corr, "lagcorr": lagcorr, "pca": pca, "spectra": spectra}
for s in stats:
    if s not in ops:
        print(f"torch_latent: unknown statistic {s!r} (want {', '.join(ops)})", file=sys.stderr)
        sys.exit(2)


def end_to_end(f):
    t = time.perf_counter()
    out = f(torch.from_numpy(a).to(dev))
    [o.cpu() for o in out]
    torch.cuda.synchronize()
    return (time.perf_counter() - t) * 1e3


def kernel(f, x):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    f(x)
    stop.record()
    torch.cuda.synchronize()
    return start.elapsed_time(stop)


x = torch.from_numpy(a).to(dev)
for s in stats:
    f = ops[s]
    end_to_end(f)  # warm-up: cuFFT plans, cuSOLVER handles
    e2e = sorted(end_to_end(f) for _ in range(repeat))
    kern = [kernel(f, x) for _ in range(repeat)]
    print(f"{s} {statistics.median(e2e):.2f} {e2e[0]:.2f} {statistics.median(kern):.3f}")
