#!/usr/bin/env python3
"""NumPy peer of `vkstat paco`: the same fast PACO (Algorithm 2) with the
same lagged-product statistics, vectorised with NumPy, timed per stage.

Usage:
  /usr/bin/python3 bench/peers/numpy_paco.py --size 100 --frames 252 --radius 4 [--repeat 3]
  /usr/bin/python3 bench/peers/numpy_paco.py --cube cube.npy --angles angles.npy --psf psf.npy --out snr.npy

Without --cube it times a synthetic stationary cube (Gaussian noise) of the
given size. Prints one JSON line per run:
{"peer": "numpy", "op": "paco", "shape": [T, H, W], "radius": R, "median_s": ..., "stages": {...}}
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np


def offsets(r):
    return [(dy, dx) for dy in range(-r, r + 1) for dx in range(-r, r + 1) if dy * dy + dx * dx <= r * r]


def round_half_away(v):
    # PACO.md rounds half away from zero; np.round rounds half to even.
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def gauss_psf(n, fwhm):
    s = fwhm / 2.3548
    c = n // 2
    y, x = np.mgrid[0:n, 0:n]
    p = np.exp(-((y - c) ** 2 + (x - c) ** 2) / (2 * s * s))
    return p / p.sum()


def paco(cube, angles, psf, r):
    """Returns snr, flux, sigma maps (H, W) and per-stage seconds."""
    T, H, W = cube.shape
    N = H * W
    st = {}
    t0 = time.perf_counter()
    y = cube.reshape(T, N).astype(np.float64)
    yc = y - y.mean(axis=0)
    st["centre"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    offs = offsets(r)
    P = len(offs)
    # Canonical displacements and, per pair i <= j, where S lives in G.
    disp, index, pairs = [], {}, []
    for i, (yi, xi) in enumerate(offs):
        for j in range(i, P):
            dy, dx = offs[j][0] - yi, offs[j][1] - xi
            base = i
            if not (dy > 0 or (dy == 0 and dx >= 0)):
                dy, dx, base = -dy, -dx, j
            if (dy, dx) not in index:
                index[(dy, dx)] = len(disp)
                disp.append((dy, dx))
            pairs.append((i, j, base, index[(dy, dx)]))
    D = len(disp)
    img = yc.reshape(T, H, W)
    G = np.zeros((D, H, W))
    for d, (dy, dx) in enumerate(disp):
        ys, xs = slice(0, H - dy), slice(max(0, -dx), W - max(0, dx))
        ys2, xs2 = slice(dy, H), slice(max(0, dx), W + min(0, dx))
        G[d, ys, xs] = np.einsum("tyx,tyx->yx", img[:, ys, xs], img[:, ys2, xs2]) / T
    G = G.reshape(D, N)
    # Locations whose patch is inside the frame.
    ky, kx = np.mgrid[r:H - r, r:W - r]
    k = (ky * W + kx).ravel()
    K = len(k)
    S = np.empty((K, P, P))
    for i, j, base, d in pairs:
        v = G[d, k + offs[base][0] * W + offs[base][1]]
        S[:, i, j] = v
        S[:, j, i] = v
    diag = np.einsum("kii->ki", S)
    tr = diag.sum(1)
    tr2 = (S * S).sum((1, 2))
    d2 = (diag * diag).sum(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.clip((tr2 + tr * tr - 2 * d2) / ((T + 1) * (tr2 - d2)), 0, 1)
    rho = np.where(tr2 - d2 > 0, rho, 1.0)
    C = S * (1 - rho)[:, None, None]
    idx = np.arange(P)
    C[:, idx, idx] = diag
    c = psf.shape[0] // 2
    h = np.array([psf[c + dy, c + dx] if abs(dy) <= c and abs(dx) <= c else 0.0 for dy, dx in offs]) / psf.sum()
    L = np.linalg.cholesky(C)
    z = np.linalg.solve(L, np.broadcast_to(h, (K, P))[..., None])
    u_in = np.linalg.solve(np.swapaxes(L, 1, 2), z)[..., 0]
    u = np.zeros((N, P))
    alpha = np.full(N, np.nan)
    u[k] = u_in
    alpha[k] = u_in @ h
    st["statistics"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    cy, cx = H // 2, W // 2
    yy, xx = np.mgrid[0:H, 0:W]
    dy0, dx0 = (yy - cy).ravel().astype(float), (xx - cx).ravel().astype(float)
    th = np.deg2rad(angles)
    a = np.zeros(N)
    b = np.zeros(N)
    ok = np.ones(N, bool)
    off = np.array([oy * W + ox for oy, ox in offs])
    for l in range(T):
        yl = round_half_away(cy + (dy0 * np.cos(th[l]) - dx0 * np.sin(th[l])))
        xl = round_half_away(cx + (dx0 * np.cos(th[l]) + dy0 * np.sin(th[l])))
        inside = (yl >= 0) & (yl < H) & (xl >= 0) & (xl < W)
        kl = np.where(inside, yl * W + xl, 0).astype(np.int64)
        al = alpha[kl]
        ok &= inside & ~np.isnan(al)
        a += np.where(ok, al, 0)
        kk = np.clip(kl[:, None] + off[None, :], 0, N - 1)
        b += np.where(ok, (u[kl] * yc[l, kk]).sum(1), 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        snr = np.where(ok, b / np.sqrt(a), np.nan)
        flux = np.where(ok, b / a, np.nan)
        sigma = np.where(ok, 1 / np.sqrt(a), np.nan)
    st["detection map"] = time.perf_counter() - t0
    return snr.reshape(H, W), flux.reshape(H, W), sigma.reshape(H, W), st


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=100)
    ap.add_argument("--frames", type=int, default=252)
    ap.add_argument("--radius", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cube")
    ap.add_argument("--angles")
    ap.add_argument("--psf")
    ap.add_argument("--out", help="write the SNR map (.npy)")
    args = ap.parse_args(argv)
    if args.cube:
        cube, angles, psf = np.load(args.cube), np.load(args.angles), np.load(args.psf)
    else:
        rng = np.random.default_rng(0)
        cube = (10 + rng.standard_normal((args.frames, args.size, args.size))).astype(np.float32)
        angles = np.linspace(0, 60, args.frames)
        psf = gauss_psf(21, 4)
    times, stages = [], []
    for _ in range(max(1, args.repeat)):
        t0 = time.perf_counter()
        snr, flux, sigma, st = paco(cube, angles, psf, args.radius)
        times.append(time.perf_counter() - t0)
        stages.append(st)
    if args.out:
        np.save(args.out, snr)
    best = stages[times.index(min(times))]
    print(json.dumps({"peer": "numpy", "op": "paco", "shape": list(cube.shape), "radius": args.radius,
                      "median_s": statistics.median(times), "min_s": min(times),
                      "stages": best, "numpy": np.__version__}))


if __name__ == "__main__":
    sys.exit(main())
