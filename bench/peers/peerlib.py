"""What the peer scripts share: the --shape argument, parsed one way for all
of them, and the NumPy peers' timing loop and JSON line.

    from peerlib import parse_shape, parse_sets  # beside the peer scripts
    ap.add_argument("--shape", type=parse_shape)   # any rank: 64,1024,1024 or 64x1024x1024
    ap.add_argument("--shape", type=parse_sets)    # N,T,P sample sets
    times = timed(lambda: op(x), args.repeat, args.warmup)
    report("numpy", "cov", {"shape": ..., "dtype": ...}, times, args.repeat, {"numpy": np.__version__})
"""
import argparse
import json
import statistics
import time


def _sizes(s, want):
    try:
        return [int(v) for v in s.replace("x", ",").split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad shape {s!r} (want {want})")


def parse_shape(s):
    """A shape of any rank, every size positive."""
    shape = _sizes(s, "e.g. 64,1024,1024")
    if not shape or any(v < 1 for v in shape):
        raise argparse.ArgumentTypeError(f"bad shape {s!r} (want positive sizes)")
    return shape


def parse_sets(s):
    """N sets of T samples of P variables: three positive sizes."""
    shape = _sizes(s, "N,T,P")
    if len(shape) != 3 or any(v < 1 for v in shape):
        raise argparse.ArgumentTypeError(f"bad shape {s!r} (want three positive sizes N,T,P)")
    return shape


def timed(op, repeat, warmup):
    """The wall times (s) of repeat calls of op, after warmup untimed ones."""
    for _ in range(warmup):
        op()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        op()
        times.append(time.perf_counter() - t0)
    return times


def report(peer, op, fields, times, repeat, versions):
    """Prints the peer's JSON line: peer, op, the workload's fields, the
    median and least of times, repeat, then the library versions."""
    print(json.dumps({"peer": peer, "op": op, **fields, "median_s": statistics.median(times), "min_s": min(times),
                      "repeat": repeat, **versions}))
