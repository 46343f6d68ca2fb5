#!/usr/bin/env python3
"""NumPy peers of `vkstat stack`: the SAR seed's three Python variants.

Each reads a stack of ENVI SLC dates (complex float32 .bin files with their
.hdr, as `vkstat synth stack --type cfloat32 --format envi` writes them),
computes |S|², an a×r multilook (remainder dropped), and the per-pixel
temporal mean and standard deviation (ddof 0) of the multilooked intensity,
accumulated in float64:

  seq   sequential: read a date, reduce it, next date (the seed's baseline);
  mp    multiprocessing, the list of dates split among P processes, each
        accumulating locally (n, sum, sum of squares) and returning only its
        sums (the seed's v2, less traffic between processes);
  mem   read every date into RAM first, then parallelise only the compute
        over P processes (forked, so the dates are shared, not copied), each
        on a band of output rows (the seed's "mp4_mem").

Usage:
  python3 bench/peers/numpy_stack.py seq --looks 4x4 DIR/date_*.bin
  python3 bench/peers/numpy_stack.py mp --procs 2 --looks 4x4 --out mean_std.npy DIR/date_*.bin

Prints one JSON line: {"peer": "numpy", "variant": ..., "dates": ...,
"wall_s": ..., "read_s": ..., "compute_s": ..., ...}; read_s and compute_s
are summed over processes for mp, so they can exceed wall_s. --out saves
the (2, H, W) float32 mean and std, to compare with vkstat's outputs.
Threads of BLAS are pinned to one per process (as the seed did).
"""
import argparse
import json
import os
import sys
import time

for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(v, "1")

import numpy as np  # noqa: E402

ENVI_TYPES = {4: np.float32, 6: np.complex64}


def header(path):
    hdr = os.path.splitext(path)[0] + ".hdr"
    if not os.path.exists(hdr):
        hdr = path + ".hdr"
    keys = {}
    with open(hdr) as f:
        for line in f:
            if "=" in line:
                k, v = line.split("=", 1)
                keys[k.strip().lower()] = v.strip()
    w, h = int(keys["samples"]), int(keys["lines"])
    dt = np.dtype(ENVI_TYPES[int(keys["data type"])])
    if keys.get("byte order", "0") == "1":
        dt = dt.newbyteorder(">")
    off = int(keys.get("header offset", "0"))
    return w, h, dt, off


def read_date(path, a, r):
    """The window a multilook of a×r uses, as an (H·a, W·r) array."""
    w, h, dt, off = header(path)
    hh, ww = h // a, w // r
    with open(path, "rb") as f:
        f.seek(off)
        x = np.fromfile(f, dtype=dt, count=hh * a * w).reshape(hh * a, w)
    return x[:, : ww * r]


def intensity_ml(x, a, r):
    if np.iscomplexobj(x):
        i = x.real.astype(np.float32) ** 2 + x.imag.astype(np.float32) ** 2
    else:
        i = x.astype(np.float32)
    hh, ww = i.shape[0] // a, i.shape[1] // r
    return i.reshape(hh, a, ww, r).mean(axis=(1, 3), dtype=np.float64)


def accumulate(paths, a, r):
    n, s, s2 = 0, None, None
    tr = tc = 0.0
    for p in paths:
        t0 = time.perf_counter()
        x = read_date(p, a, r)
        t1 = time.perf_counter()
        ml = intensity_ml(x, a, r)
        if s is None:
            s, s2 = np.zeros_like(ml), np.zeros_like(ml)
        s += ml
        s2 += ml * ml
        n += 1
        tc += time.perf_counter() - t1
        tr += t1 - t0
    return n, s, s2, tr, tc


def finish(n, s, s2):
    mean = s / n
    var = np.maximum(s2 / n - mean * mean, 0)
    return mean, np.sqrt(var)


def _mp_worker(args):
    return accumulate(*args)


_MEM = None


def _mem_worker(args):
    lo, hi, a, r = args
    t0 = time.perf_counter()
    s = s2 = None
    for x in _MEM:
        ml = intensity_ml(x[lo * a: hi * a], a, r)
        if s is None:
            s, s2 = np.zeros_like(ml), np.zeros_like(ml)
        s += ml
        s2 += ml * ml
    return lo, hi, s, s2, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variant", choices=["seq", "mp", "mem"])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--looks", default="4x4", help="a×r, e.g. 4x4")
    ap.add_argument("--procs", type=int, default=os.cpu_count(), help="processes for mp and mem")
    ap.add_argument("--out", help="save mean and std (2, H, W) float32 here")
    o = ap.parse_args()
    a, r = (int(v) for v in o.looks.lower().split("x"))
    t0 = time.perf_counter()
    if o.variant == "seq":
        n, s, s2, tr, tc = accumulate(o.files, a, r)
        mean, std = finish(n, s, s2)
    elif o.variant == "mp":
        import multiprocessing as mp
        parts = [o.files[i:: o.procs] for i in range(o.procs) if o.files[i:: o.procs]]
        with mp.get_context("fork").Pool(len(parts)) as pool:
            res = pool.map(_mp_worker, [(p, a, r) for p in parts])
        n = sum(x[0] for x in res)
        s = sum(x[1] for x in res)
        s2 = sum(x[2] for x in res)
        tr = sum(x[3] for x in res)
        tc = sum(x[4] for x in res)
        mean, std = finish(n, s, s2)
    else:
        import multiprocessing as mp
        global _MEM
        tr0 = time.perf_counter()
        _MEM = [read_date(p, a, r) for p in o.files]
        tr = time.perf_counter() - tr0
        rows = _MEM[0].shape[0] // a
        cols = _MEM[0].shape[1] // r
        step = (rows + o.procs - 1) // o.procs
        jobs = [(lo, min(lo + step, rows), a, r) for lo in range(0, rows, step)]
        tc0 = time.perf_counter()
        with mp.get_context("fork").Pool(len(jobs)) as pool:
            res = pool.map(_mem_worker, jobs)
        s = np.zeros((rows, cols))
        s2 = np.zeros((rows, cols))
        for lo, hi, ps, ps2, _ in res:
            s[lo:hi], s2[lo:hi] = ps, ps2
        tc = time.perf_counter() - tc0
        n = len(_MEM)
        mean, std = finish(n, s, s2)
    wall = time.perf_counter() - t0
    if o.out:
        np.save(o.out, np.stack([mean, std]).astype(np.float32))
    print(json.dumps({"peer": "numpy", "variant": o.variant, "dates": len(o.files), "looks": o.looks,
                      "procs": o.procs if o.variant != "seq" else 1, "shape": list(mean.shape),
                      "wall_s": round(wall, 4), "read_s": round(tr, 4), "compute_s": round(tc, 4)}))


if __name__ == "__main__":
    sys.exit(main())
