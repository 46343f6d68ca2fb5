"""The --shape argument of the peer scripts, parsed one way for all of them.

    from peershape import parse_shape, parse_sets  # beside the peer scripts
    ap.add_argument("--shape", type=parse_shape)   # any rank: 64,1024,1024 or 64x1024x1024
    ap.add_argument("--shape", type=parse_sets)    # N,T,P sample sets
"""
import argparse


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
