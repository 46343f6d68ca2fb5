"""Compares two runs of scripts/compare-outputs.sh (DIR_A DIR_B): the logs
(stdout, stderr, exit status) and every file written, with timings, the run
folders and host fields masked; FITS without DATE/CREATOR cards, PNG by
decoded pixels, NPY bytes (with the largest difference when they differ).
Prints one line per difference; exit status 1 when there is one."""
import difflib
import json
import os
import re
import struct
import sys
import zlib

A, B = sys.argv[1], sys.argv[2]
MAXLINES = 12
TIME = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?\s?(?:ns|µs|us|ms|s|min|h|[kKMGT]i?B/s|GFLOP/s|matrices/s|×)(?![\w/])")
TIMEKEY = re.compile(r"time|wall|elapsed|duration|second|(^|_)(ms|s|us|ns)$|host|pid|started|finished|created|gbps|gflops|per_s|speed|budget|^date$")


def mask_text(s, root, rel=""):
    s = TIME.sub("T", s.replace(root, "RUN"))
    if rel.endswith(".vkstat-outputs"):  # the outputs' list: the files' device,
        # inode, size and mtime vary (each file listed is compared itself)
        s = re.sub(r'^(".*?") \d+ \d+ \d+ \d+ ', r"\1 D I S M ", s, flags=re.M)
    if "timings" in rel:  # survey-timings.csv: seconds by design
        s = re.sub(r"\d+\.\d+", "T", s)
    s = re.sub(r"[\d.]+ (\w+)( budget)? \((\d+% of MemAvailable)\)", r"M \1\2 (\3)", s)  # free memory
    s = re.sub(r"\((\d+(\.\d+)? ?% (of it|named))\)", "(P)", s)  # --time's phases
    s = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "DATE", s)
    s = re.sub(r"^(start-up: .*)", lambda m: re.sub(r"\d+(\.\d+)?", "N", m[1]), s, flags=re.M)
    s = re.sub(r"(?<=T )\S+(?= T)", "R", re.sub(r" +", " ", s))  # a rate between times
    if rel.endswith(".vkstat-outputs"):  # the order of files closed together
        # (GDAL's .hdr and .aux.xml) varies
        s = "\n".join(sorted(s.splitlines()))
    return s


def mask_json(v, root):
    if isinstance(v, dict):
        return {k: ("T" if TIMEKEY.search(k.lower()) else mask_json(x, root)) for k, x in v.items()}
    if isinstance(v, list):
        return [mask_json(x, root) for x in v]
    if isinstance(v, str):
        return mask_text(v, root)
    return v


def fits_cards(b):
    """The FITS file with its DATE and CREATOR cards blanked."""
    out, head = bytearray(), False
    for i in range(0, len(b), 2880):
        blk = bytearray(b[i:i + 2880])
        head = head or blk[:9] in (b"SIMPLE  =", b"XTENSION=")
        if head:
            for j in range(0, len(blk), 80):
                key = bytes(blk[j:j + 8]).rstrip()
                if key in (b"DATE", b"CREATOR"):
                    blk[j:j + 80] = b" " * 80
                if key == b"END":
                    head = False
                    break
        out += blk
    return bytes(out)


def png_pixels(b):
    assert b[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    i, idat, hdr = 8, b"", None
    while i < len(b):
        n, t = struct.unpack(">I4s", b[i:i + 8])
        d = b[i + 8:i + 8 + n]
        if t == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", d)
        elif t == b"IDAT":
            idat += d
        elif t == b"PLTE":
            hdr = hdr + (d,)
        i += 12 + n
    w, h, depth, ctype = hdr[:4]
    ch = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    bpp = max(1, ch * depth // 8)
    stride = (w * ch * depth + 7) // 8
    raw, rows, prev = zlib.decompress(idat), [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            c = prev[x - bpp] if x >= bpp else 0
            u = prev[x]
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + u) & 255
            elif f == 3:
                line[x] = (line[x] + (a + u) // 2) & 255
            elif f == 4:
                p = a + u - c
                pa, pb, pc = abs(p - a), abs(p - u), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else u if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return (w, h, depth, ctype, hdr[5:] if ctype == 3 else None), b"".join(rows)


def npy_diff(a, b):
    try:
        import io
        import numpy as np
        x, y = np.load(io.BytesIO(a)), np.load(io.BytesIO(b))
        if x.shape != y.shape or x.dtype != y.dtype:
            return f"shape/dtype {x.shape} {x.dtype} vs {y.shape} {y.dtype}"
        if x.dtype.kind not in "fc":
            return f"{int((x != y).sum())} elements differ"
        d = np.abs(x.astype(np.float64) - y.astype(np.float64))
        same_nan = np.isnan(x) == np.isnan(y)
        scale = np.nanmax(np.abs(x.astype(np.float64))) if x.size else 0
        return f"max |Δ| {np.nanmax(d) if d.size else 0:.3g} (rel to max |x| {np.nanmax(d) / scale if scale else 0:.3g}), NaNs {'same' if same_nan.all() else 'differ'}"
    except Exception as e:  # noqa: BLE001
        return f"bytes differ ({e})"


def compare(rel, pa, pb):
    a, b = open(pa, "rb").read(), open(pb, "rb").read()
    if a == b:
        return None
    ext = rel.rsplit(".", 1)[-1].lower()
    if ext in ("fits", "fit", "fts"):
        return None if fits_cards(a) == fits_cards(b) else "FITS differs beyond DATE/CREATOR"
    if ext == "png":
        pxa, pxb = png_pixels(a), png_pixels(b)
        return None if pxa == pxb else "PNG pixels differ"
    if ext == "npy":
        return "NPY " + npy_diff(a, b)
    for load in (json.loads, None):
        try:
            ta, tb = a.decode(), b.decode()
        except UnicodeDecodeError:
            return "bytes differ"
        if load:
            try:
                ja, jb = mask_json(load(ta), A), mask_json(load(tb), B)
            except ValueError:
                continue
            return None if ja == jb else "JSON differs: " + first_json_diff(ja, jb)
        ma, mb = mask_text(ta, A, rel), mask_text(tb, B, rel)
        if ma == mb:
            return None
        d = [x[:200] for x in difflib.unified_diff(ma.splitlines(), mb.splitlines(), n=0, lineterm="")
             if x[:1] in "+-" and x[:3] not in ("---", "+++")]
        return "\n    " + "\n    ".join(d[:MAXLINES] + ([f"... {len(d) - MAXLINES} more"] if len(d) > MAXLINES else []))
    return "differs"


def first_json_diff(a, b, path=""):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k} only in {'b' if k not in a else 'a'}"
            if a[k] != b[k]:
                return first_json_diff(a[k], b[k], f"{path}.{k}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return first_json_diff(x, y, f"{path}[{i}]")
    return f"{path}: {json.dumps(a)[:160]} → {json.dumps(b)[:160]}"


def files(root):
    out = set()
    for d, _, fs in os.walk(root):
        for f in fs:
            rel = os.path.relpath(os.path.join(d, f), root)
            if not rel.startswith("cache/"):
                out.add(rel)
    return out


fa, fb = files(A), files(B)
n = 0
for rel in sorted(fa | fb):
    if rel not in fa or rel not in fb:
        print(f"{rel}: only in {'b' if rel not in fa else 'a'}")
        n += 1
        continue
    d = compare(rel, os.path.join(A, rel), os.path.join(B, rel))
    if d:
        print(f"{rel}: {d}")
        n += 1
print(f"{len(fa | fb)} files compared, {n} differ", file=sys.stderr)
sys.exit(1 if n else 0)
