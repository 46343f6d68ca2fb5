#!/usr/bin/env python3
"""What a call costs from Python, against NumPy's call for the same result,
measured in the same run (issue 39, items 1, 2 and 6): per-call medians at
10³ … 10⁸ elements for map, reduce (mean and std; axis None, −1 and 0), cov and
chol, on the CPU path (and on lavapipe with --lavapipe), and the Python
call's overhead: the call's wall less the library's own
(``Session.last_timing['wall_ms']``).

Each size's vkstat and NumPy calls alternate in rounds (so a load that
comes and goes hits both), and each figure is the median over every call of
every round. The arrays are float64; a call's elements are its input's.

  map      z = 3.5·x² + 2.8·y + 10 on two 1-D arrays of n; NumPy: the
           same expression (its temporaries included).
  mean     1-D n, axis None; NumPy: np.mean.
  mean/-1  (n/100, 100) along the last axis; mean/0 the same along axis 0.
  std, std/-1, std/0
           the same arrays' standard deviation (ddof 0); NumPy: np.std.
  cov      (n/256, 32, 8) sample sets, the estimator none; NumPy: the batch
           of means and (x−m)ᵀ(x−m)/T by matmul.
  chol     (n/64, 8, 8) SPD matrices, L only; NumPy: np.linalg.cholesky.

Usage (the package's library built: make pylib):
  PYTHONPATH=python /usr/bin/python3 bench/callcost.py [--min 1e3] [--max 1e8] [--lavapipe] [--budget 0.25] [--ops mean,std]

It ends with the crossover: per call and device, the size from which
vkstat's call is at least as fast as NumPy's at every size above.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

import vkstat


def _cases(n: int, rng: np.random.Generator):
    """(name, make) for n elements: make() builds the case's arrays and
    gives (vkstat call on a session, NumPy call). A case's arrays are made
    when it is measured and dropped after, so that at 10⁸ one case's
    (up to 2.4 GB with NumPy's temporaries) is all there is."""

    def map_case():
        x, y = rng.standard_normal(n), rng.standard_normal(n)
        return lambda s: s.map(x, y, 3.5, 2.8, 10.0), lambda: 3.5 * x * x + 2.8 * y + 10.0

    def reduce_case(stat, axis):
        def make():
            if axis is None:
                a = rng.standard_normal(n)
                return lambda s: s.reduce(a, stat), lambda: getattr(np, stat)(a)
            m2 = rng.standard_normal((max(n // 100, 1), 100))
            return lambda s: s.reduce(m2, stat, axis=axis), lambda: getattr(np, stat)(m2, axis=axis)
        return make

    def cov_case():
        sets = rng.standard_normal((max(n // 256, 1), 32, 8))

        def np_cov() -> np.ndarray:
            d = sets - sets.mean(axis=1, keepdims=True)
            return d.transpose(0, 2, 1) @ d / sets.shape[1]
        return lambda s: s.cov(sets), np_cov

    def chol_case():
        a = rng.standard_normal((max(n // 64, 1), 8, 8))
        spd = a @ a.transpose(0, 2, 1)
        spd += 8 * np.eye(8)
        del a
        return lambda s: s.chol(spd), lambda: np.linalg.cholesky(spd)

    return [("map", map_case)] + [
        (stat + ("" if axis is None else f"/{axis}"), reduce_case(stat, axis))
        for stat in ("mean", "std") for axis in (None, -1, 0)] + [("cov", cov_case), ("chol", chol_case)]


def _timed(vk, s: vkstat.Session) -> float:
    t0 = time.perf_counter()
    vk(s)
    return time.perf_counter() - t0


def _calls(budget: float, once: float) -> int:
    return int(min(2000, max(3, budget / max(once, 1e-7))))


def measure(s: vkstat.Session, n: int, budget: float, rounds: int, ops: list[str] | None = None) -> list[dict]:
    """One row per case at n elements. A case whose one call takes more
    than a third of the budget is measured in three rounds of one call each,
    or one round where three take more than ten budgets (after the warm-up
    call, which is not counted), so that 10⁸ takes seconds a case."""
    rng = np.random.default_rng(n)
    rows = []
    for name, make in _cases(n, rng):
        if ops and name not in ops:
            continue
        try:
            vk, ref = make()
            t0 = time.perf_counter()
            vk(s)  # warm: pipelines, pages
            once = time.perf_counter() - t0
            ref()
            if once < budget:  # the least of three: one call preempted would cut the count
                once = min(_timed(vk, s) for _ in range(3))
            if once * 3 < budget:
                r, k = rounds, _calls(budget / rounds, once)
            else:  # 10⁷ and up: three rounds of one call where they take under 10 budgets, else one
                r, k = (3 if once * 3 < 10 * budget else 1), 1
            vk_t, lib_t, np_t = [], [], []
            for _ in range(r):
                for _ in range(k):
                    t0 = time.perf_counter()
                    vk(s)
                    t1 = time.perf_counter()
                    vk_t.append(t1 - t0)
                    lib_t.append(s.last_timing["wall_ms"] / 1e3)
                for _ in range(k):
                    t0 = time.perf_counter()
                    ref()
                    np_t.append(time.perf_counter() - t0)
        except (MemoryError, vkstat.Error) as e:  # said in the table, the run goes on
            rows.append({"op": name, "n": n, "failed": f"{type(e).__name__}: {str(e).splitlines()[0][:80]}"})
            continue
        finally:
            vk = ref = None  # the case's arrays go before the next's are made
        over = [a - b for a, b in zip(vk_t, lib_t)]
        rows.append({"op": name, "n": n, "vkstat": statistics.median(vk_t), "lib": statistics.median(lib_t),
                     "over": statistics.median(over), "numpy": statistics.median(np_t), "calls": len(vk_t)})
    return rows


def _fmt(sec: float) -> str:
    if sec < 1e-3:
        return f"{sec * 1e6:.1f} µs"
    if sec < 1:
        return f"{sec * 1e3:.2f} ms"
    return f"{sec:.2f} s"


def table(device: str, rows: list[dict]) -> str:
    out = [f"### {device}", "",
           "| call | elements | vkstat call | library wall | overhead (call − library) | NumPy | NumPy ÷ vkstat | calls |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if "failed" in r:
            out.append(f"| {r['op']} | {r['n']:.0e} | not run: {r['failed']} | | | | | |")
            continue
        out.append(f"| {r['op']} | {r['n']:.0e} | {_fmt(r['vkstat'])} | {_fmt(r['lib'])} | {_fmt(r['over'])} "
                   f"| {_fmt(r['numpy'])} | {r['numpy'] / r['vkstat']:.2f} | {r['calls']} |")
    return "\n".join(out)


_SUP = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def crossover(rows: list[dict]) -> dict[str, str]:
    """Per call, from which size vkstat's call is at least as fast as
    NumPy's at that size and every larger one measured: "10ᵏ", "never"
    (slower at the largest), or "from the smallest"."""
    got = {}
    for op in dict.fromkeys(r["op"] for r in rows):
        mine = [r for r in rows if r["op"] == op and "failed" not in r]
        wins = [r["numpy"] >= r["vkstat"] for r in mine]
        k = len(wins)
        while k > 0 and wins[k - 1]:
            k -= 1
        got[op] = ("never" if k == len(wins) else "from the smallest" if k == 0
                   else "10" + str(round(np.log10(mine[k]["n"]))).translate(_SUP))
    return got


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--min", type=float, default=1e3, help="smallest size (elements)")
    ap.add_argument("--max", type=float, default=1e7, help="largest size (elements)")
    ap.add_argument("--budget", type=float, default=0.25,
                    help="seconds of vkstat calls per case and size; a case whose call takes a third of it or more "
                         "runs three rounds of one call (one round past ten budgets)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--lavapipe", action="store_true", help="also measure a lavapipe session")
    ap.add_argument("--ops", help="comma-separated cases to measure (default all): "
                    "map, mean, mean/-1, mean/0, std, std/-1, std/0, cov, chol")
    args = ap.parse_args()
    ops = args.ops.split(",") if args.ops else None
    if ops:
        known = {c[0] for c in _cases(1, np.random.default_rng(0))}
        if bad := [o for o in ops if o not in known]:
            ap.error(f"unknown case {', '.join(bad)}; the cases are {', '.join(sorted(known))}")
    sizes = [int(10 ** e) for e in range(3, 9) if args.min <= 10 ** e <= args.max]
    free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 2**30
    devices = ["cpu"] + (["lavapipe"] if args.lavapipe else [])
    print(f"vkstat {vkstat.__version__}, NumPy {np.__version__}, Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs, {free:.1f} GiB free, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"command: {' '.join([os.path.basename(sys.executable)] + sys.argv)}")
    wins = {}
    for dev in devices:
        with vkstat.open(dev) as s:
            rows = []
            for n in sizes:
                rows += measure(s, n, args.budget, args.rounds, ops)
            print()
            print(table(f"{dev}: {s.device['name']}", rows), flush=True)
            wins[dev] = crossover(rows)
    print()
    print("### From which size a vkstat call is at least as fast as NumPy's (at that size and every larger one)")
    print()
    print("| call | " + " | ".join(devices) + " |")
    print("|---|" + "---|" * len(devices))
    for op in wins[devices[0]]:
        print(f"| {op} | " + " | ".join(wins[d].get(op, "–") for d in devices) + " |")
    print()
    print("load at the end:", os.popen("uptime").read().strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
