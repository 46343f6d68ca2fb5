#!/usr/bin/python3
"""Writes the NumPy float64 reference for pipelines/stack's tests.

Each case is a tiny stack of SAR dates (complex or real), the pipeline's
parameters, and the statistics NumPy computes in float64: |S|² (or the real
input) with nodata and NaN samples masked, an a×r multilook of the whole
grid with the remainder dropped (as ISCE and SNAP do), the crop, an optional
boxcar, Lee or refined Lee filter, amplitude on request, then the mean, std (ddof), CV,
min, max and count of valid samples over the dates.

Files: cases.json, and per case <name>.in.f32 (dates × samples, raw
little-endian float32; complex samples interleaved re, im) and
<name>.want.f64 (mean, std, cv, min, max, count, each H×W, little-endian
float64). Run: /usr/bin/python3 testdata/stack/make.py
"""
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def multilook(x, a, r):
    h, w = x.shape[0] // a, x.shape[1] // r
    x = x[: h * a, : w * r].reshape(h, a, w, r)
    n = np.sum(~np.isnan(x), axis=(1, 3))
    s = np.nansum(x, axis=(1, 3))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, s / np.maximum(n, 1), np.nan)


# Refined Lee's four edges as signed distances from the dividing line, on
# the window's pixel offsets (di, dj) and on the 3×3 grid of sub-windows
# alike, and the sub-window on each side whose mean is compared with the
# centre's.
EDGES = [
    (lambda di, dj: dj, (0, -1), (0, 1)),
    (lambda di, dj: di, (-1, 0), (1, 0)),
    (lambda di, dj: di + dj, (-1, -1), (1, 1)),
    (lambda di, dj: dj - di, (1, -1), (-1, 1)),
]


def refined_half(img, y, x, k):
    d = k - 1
    M = np.array([[img[y + p * d - 1: y + p * d + 2, x + q * d - 1: x + q * d + 2].sum()
                   for q in (-1, 0, 1)] for p in (-1, 0, 1)])
    P, Q = np.mgrid[-1:2, -1:2]
    g = [abs(M[dist(P, Q) > 0].sum() - M[dist(P, Q) < 0].sum()) for dist, _, _ in EDGES]
    dist, neg, pos = EDGES[int(np.argmax(g))]
    c = M[1, 1]
    neg_side = abs(M[neg[0] + 1, neg[1] + 1] - c) < abs(M[pos[0] + 1, pos[1] + 1] - c)
    di, dj = np.mgrid[-k:k + 1, -k:k + 1]
    win = img[y - k: y + k + 1, x - k: x + k + 1]
    s = dist(di, dj)
    return win[s <= 0] if neg_side else win[s >= 0]


def speckle(img, kind, size, enl):
    h, w = img.shape
    k = size // 2
    out = np.empty_like(img)
    cu2 = 1.0 / enl
    for y in range(h):
        for x in range(w):
            c = img[y, x]
            if np.isnan(c):
                out[y, x] = c
                continue
            win = img[max(y - k, 0): y + k + 1, max(x - k, 0): x + k + 1]
            full = win.shape == (size, size) and not np.isnan(win).any()
            win = win[~np.isnan(win)]
            m = win.mean()
            if kind == "boxcar":
                out[y, x] = m
                continue
            if kind == "refined" and full:
                win = refined_half(img, y, x, k)
                m = win.mean()
            v = win.var()
            wgt = 0.0
            if m > 0 and v > 0:
                wgt = min(max((1 - cu2 / (v / (m * m))) / (1 + cu2), 0.0), 1.0)
            out[y, x] = m + wgt * (c - m)
    return out


def case(rng, name, T, H, W, cplx, looks=(1, 1), crop=None, quantity="intensity",
         filt=None, size=0, enl=0.0, ddof=0, nodata=None, holes=0.0, change=False):
    a, r = looks
    refl = rng.uniform(0.5, 4.0, size=(H, W))
    dates = []
    for t in range(T):
        rr = refl * (3.0 if change and t >= T // 2 else 1.0)
        if cplx:
            s = np.sqrt(rr / 2) * (rng.standard_normal((H, W)) + 1j * rng.standard_normal((H, W)))
            s = s.astype(np.complex64)
            if holes:
                m = rng.uniform(size=(H, W)) < holes
                s[m] = nodata if nodata is not None else np.nan
            raw = np.stack([s.real, s.imag], axis=-1).astype(np.float32)
            inten = s.real.astype(np.float64) ** 2 + s.imag.astype(np.float64) ** 2
            bad = np.isnan(s.real) | np.isnan(s.imag)
            if nodata is not None:
                bad |= (s.real == nodata) & (s.imag == nodata)
        else:
            v = (rr * rng.exponential(size=(H, W))).astype(np.float32)
            if holes:
                m = rng.uniform(size=(H, W)) < holes
                v[m] = nodata if nodata is not None else np.nan
            raw = v
            inten = v.astype(np.float64)
            bad = np.isnan(v)
            if nodata is not None:
                bad |= v == nodata
        inten = np.where(bad, np.nan, inten)
        ml = multilook(inten, a, r)
        y, x, h, w = crop if crop else (0, 0, ml.shape[0], ml.shape[1])
        img = ml[y: y + h, x: x + w]
        if filt:
            img = speckle(img, filt, size, enl if enl else float(a * r))
        if quantity == "amplitude":
            img = np.sqrt(img)
        dates.append(img)
        with open(os.path.join(HERE, name + ".in.f32"), "ab" if t else "wb") as f:
            f.write(raw.astype("<f4").tobytes())
    st = np.stack(dates)
    cnt = np.sum(~np.isnan(st), axis=0).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"), __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("ignore")
        mean = np.nanmean(st, axis=0)
        std = np.where(cnt - ddof > 0, np.nanstd(st, axis=0, ddof=0) * np.sqrt(cnt / np.maximum(cnt - ddof, 1)), np.nan)
        cv = std / mean
        mn = np.nanmin(st, axis=0)
        mx = np.nanmax(st, axis=0)
    want = np.stack([mean, std, cv, mn, mx, cnt]).astype("<f8")
    with open(os.path.join(HERE, name + ".want.f64"), "wb") as f:
        f.write(want.tobytes())
    return dict(name=name, dates=T, height=H, width=W, complex=cplx, looks=list(looks),
                crop=list(crop) if crop else [0, 0, 0, 0], quantity=quantity,
                filter=filt or "none", size=size, enl=enl, ddof=ddof,
                nodata=nodata, out=[int(want.shape[1]), int(want.shape[2])])


def main():
    rng = np.random.default_rng(11)
    cases = [
        case(rng, "slc_ml", 4, 13, 11, True, looks=(2, 3), nodata=0.0, holes=0.05),
        case(rng, "slc_crop", 5, 13, 11, True, looks=(2, 3), crop=(1, 1, 4, 2), ddof=1),
        case(rng, "real_amp", 3, 7, 9, False, quantity="amplitude", ddof=1, holes=0.1),
        case(rng, "slc_boxcar", 4, 12, 14, True, looks=(2, 2), filt="boxcar", size=3, change=True),
        case(rng, "slc_lee", 5, 11, 13, True, looks=(1, 2), filt="lee", size=5, holes=0.03),
        case(rng, "slc_refined", 4, 26, 30, True, looks=(2, 2), filt="refined", size=7, holes=0.01, change=True),
        case(rng, "real_refined5", 3, 12, 13, False, filt="refined", size=5, quantity="amplitude"),
        case(rng, "real_lee_nodata", 4, 10, 9, False, looks=(2, 1), filt="lee", size=3, enl=4.0,
             quantity="amplitude", nodata=-1.0, holes=0.1),
    ]
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
