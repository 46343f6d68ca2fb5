#!/usr/bin/env python3
"""The host work around PACO's maps (issue 39, item 5): `vkstat paco` from
files, phase by phase, against the maps alone and the NumPy peer
(bench/peers/numpy_paco.py, file to file), runs interleaved.

Usage:
  /usr/bin/python3 bench/paco_host.py --data DIR [--data DIR2 ...] --vkstat bin/vkstat \
      [--before OLD_BINARY] [--devices cpu,lavapipe] [--rounds 5] [--no-peer] [--alone]

Each DIR holds cube.npy, angles.npy and psf.npy (`vkstat synth paco --format
npy`). Every round runs, for each device, each binary once (the summary's
phases, which add up to its wall, and the process's CPU time) and then the NumPy peer once, as
processes; the tables give medians over the rounds. The ratio is the
command's wall over reads + maps + writes: the three reads, the maps'
phases (on the CPU path centre, lagged products, statistics, detection
map; on a device tables, buffers, pipelines, device run, maps readback)
and the files' writes and commit (the bytes written; encoding them, the
pictures above all, is host work the ratio counts against vkstat).
Where a binary measures the star centre beside the maps' first stages (the
CPU path since issue 39's paco4 branch), those phases take the
measurement's share of the cores too: --alone also runs each binary with
the centre given (--center H/2,W/2, no measurement) and divides the wall by
that run's reads + maps + writes, the raw arrays' alone.
"""
import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

READS = ("read cube", "read angles", "read PSF")
MAPS = ("centre", "lagged products", "statistics", "detection map", "tables", "buffers", "pipelines", "device run", "maps readback")
WRITES = ("write files", "commit outputs")
SHOWN = ("read cube", "open device", "star centre", "maps", "encode outputs", "write files", "commit outputs", "other phases")


def phases(stdout):
    """The summary's phases, {name: ms}, and its wall."""
    m = re.search(r"^time: +([0-9.]+) ms wall, in these phases[^\n]*\n((?:  .*\n)+)", stdout, re.M)
    if not m:
        raise SystemExit("no phases in the summary:\n" + stdout)
    out = {}
    for line in m.group(2).splitlines():
        f = re.match(r"  (.+?) +([0-9.]+) ms", line)
        out[f.group(1)] = out.get(f.group(1), 0) + float(f.group(2))
    return float(m.group(1)), out


def run_vkstat(binary, device, d, out, center=None):
    cmd = [binary, "--device", device, "--quiet", "paco", "--cube", f"{d}/cube.npy", "--angles", f"{d}/angles.npy",
           "--psf", f"{d}/psf.npy", "--quick-contrast", "--out-dir", out]  # maps as the peer's: no calibration runs
    if center:
        cmd[-2:-2] = ["--center", center]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    proc = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise SystemExit(" ".join(cmd) + ":\n" + p.stderr)
    wall, ph = phases(p.stdout)
    # The process's CPU time, user + system: its work, which the other
    # jobs on a loaded machine stretch less than its wall.
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    row = {"process": proc * 1e3, "cpu": cpu * 1e3, "wall": wall}
    row["reads"] = sum(ph.get(n, 0) for n in READS)
    row["maps"] = sum(ph.get(n, 0) for n in MAPS)
    row["writes"] = sum(ph.get(n, 0) for n in WRITES)
    for n in ("read cube", "open device", "star centre", "encode outputs", "write files", "commit outputs"):
        row[n] = ph.get(n, 0)
    row["other phases"] = wall - sum(row[n] for n in ("read cube", "open device", "star centre", "maps", "encode outputs", "write files", "commit outputs"))
    row["ratio"] = wall / (row["reads"] + row["maps"] + row["writes"])
    return row


def geometric(d):
    """The geometric centre H/2,W/2 of DIR's cube, as --center takes it."""
    import numpy as np
    _, h, w = np.load(f"{d}/cube.npy", mmap_mode="r").shape
    return f"{h // 2},{w // 2}"


def run_numpy(d, out):
    here = os.path.dirname(os.path.abspath(__file__))
    cmd = [sys.executable, os.path.join(here, "peers", "numpy_paco.py"), "--cube", f"{d}/cube.npy", "--angles", f"{d}/angles.npy",
           "--psf", f"{d}/psf.npy", "--radius", "4", "--out", os.path.join(out, "snr.npy")]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(" ".join(cmd) + ":\n" + p.stderr)
    return (time.perf_counter() - t0) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", action="append", required=True)
    ap.add_argument("--vkstat", required=True)
    ap.add_argument("--before")
    ap.add_argument("--devices", default="cpu,lavapipe")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-peer", action="store_true", help="leave the NumPy peer out (it takes minutes from 256×256 up)")
    ap.add_argument("--alone", action="store_true", help="also run each binary with --center H/2,W/2 (no measurement) and give the wall "
                    "over that run's reads + maps + writes: the maps alone, where a binary runs the centre's measurement beside them")
    args = ap.parse_args()
    bins = [("after", args.vkstat)] + ([("before", args.before)] if args.before else [])
    devices = args.devices.split(",")
    rows, peer = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for d in args.data:
                for dev in devices:
                    for name, b in (bins if r % 2 == 0 else bins[::-1]):
                        out = os.path.join(tmp, f"{name}-{dev}-{r}")
                        row = run_vkstat(b, dev, d, out)
                        if args.alone:
                            # The same run with its centre given (the one the
                            # measurement leaves it at here): no measurement,
                            # so its reads + maps + writes are the raw arrays'
                            # alone, whatever a binary runs beside its maps.
                            a = run_vkstat(b, dev, d, out + "-alone", geometric(d))
                            row["alone"] = a["reads"] + a["maps"] + a["writes"]
                            row["ratio alone"] = row["wall"] / row["alone"]
                            row["cpu alone"] = a["cpu"]
                        rows.setdefault((d, dev, name), []).append(row)
                if not args.no_peer:
                    peer.setdefault(d, []).append(run_numpy(d, tmp))
            print(f"round {r + 1} of {args.rounds} done", file=sys.stderr)
    med = lambda v: statistics.median(v)
    for d in args.data:
        npy = med(peer[d]) if d in peer else float("nan")
        print(f"\n#### {d}: NumPy peer file to file (process) {npy:.0f} ms\n")
        alone = " reads + maps + writes, centre given | wall / that | process CPU ms, centre given |" if args.alone else ""
        print("| device | binary | process ms | process CPU ms | wall ms | " + " | ".join(SHOWN) + " | reads + maps + writes | wall / (reads + maps + writes) |" + alone + " NumPy / process |")
        print("|---|---|" + "---:|" * (len(SHOWN) + 6 + (3 if args.alone else 0)))
        for dev in devices:
            for name, _ in bins:
                rs = rows[(d, dev, name)]
                base = med([x["reads"] + x["maps"] + x["writes"] for x in rs])
                cells = [f"{med([x[n] for x in rs]):.1f}" for n in SHOWN]
                print(f"| {dev} | {name} | {med([x['process'] for x in rs]):.0f} | {med([x['cpu'] for x in rs]):.0f} | {med([x['wall'] for x in rs]):.1f} | " +
                      " | ".join(cells) +
                      f" | {base:.1f} | {med([x['ratio'] for x in rs]):.2f} |" +
                      (f" {med([x['alone'] for x in rs]):.1f} | {med([x['ratio alone'] for x in rs]):.2f} | {med([x['cpu alone'] for x in rs]):.0f} |"
                       if args.alone else "") +
                      f" {npy / med([x['process'] for x in rs]):.2f} |")
    print("\n(medians over the rounds; ratio: the median of each run's wall / (reads + maps + writes))")
    json.dump({f"{d}|{dev}|{n}": v for (d, dev, n), v in rows.items()}, open(os.path.join(tempfile.gettempdir(), "paco_host.json"), "w"))


if __name__ == "__main__":
    main()
