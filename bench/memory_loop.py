"""A long-running session's resident memory (issue 34, item 7): loop
chol(a, b, inverse=True, logdet=True) and map on small arrays through the
Python package and print the process's RSS as the calls go.

    python3 bench/memory_loop.py --device lavapipe --calls 100000

scripts/bench-memory.sh runs it on lavapipe and the CPU path. A flat
session holds its RSS within a few MiB of where it stood after the
warm-up; before the fix a lavapipe session grew 1.5 KiB a call pair.
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import vkstat  # noqa: E402


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="lavapipe")
    ap.add_argument("--calls", type=int, default=100_000, help="map+chol pairs")
    ap.add_argument("--warmup", type=int, default=1000)
    ap.add_argument("--every", type=int, default=0, help="print every N pairs (default: calls/20)")
    args = ap.parse_args()
    every = args.every or max(args.calls // 20, 1)
    rng = np.random.default_rng(1)
    p = 8
    m = rng.normal(size=(16, p, p))
    a = m @ m.transpose(0, 2, 1) + p * np.eye(p)
    b = rng.normal(size=(16, p))
    x = rng.normal(size=1000)
    s = vkstat.open(args.device)
    print(f"device: {s.device.get('name')}")
    for _ in range(args.warmup):
        s.chol(a, b, inverse=True, logdet=True)
        s.map(x, x, 1, 2, 3)
    base = rss_bytes()
    t0 = time.time()
    print(f"{'pairs':>8} {'seconds':>8} {'RSS MiB':>9} {'since warm-up':>14}")
    print(f"{0:8d} {0:8.1f} {base / 2**20:9.1f} {0:+13.2f}M", flush=True)
    for i in range(1, args.calls + 1):
        s.chol(a, b, inverse=True, logdet=True)
        s.map(x, x, 1, 2, 3)
        if i % every == 0 or i == args.calls:
            r = rss_bytes()
            print(f"{i:8d} {time.time() - t0:8.1f} {r / 2**20:9.1f} {(r - base) / 2**20:+13.2f}M", flush=True)
    grown = rss_bytes() - base
    s.close()
    print(f"grown {grown / 2**20:+.2f} MiB over {args.calls} pairs ({grown / args.calls:+.1f} bytes a pair); "
          f"after close {rss_bytes() / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
