"""Parameters on their way to the library: names from lists or comma
strings, storage types by name, and the request as JSON, which carries
numbers, strings and lists as Python holds them (the library checks them:
an integer where it wants one, its ranges) but cannot carry NaN or ±Inf."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

import numpy as np

from ._lib import InputError

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a first import 5 ms
if TYPE_CHECKING:
    from typing import Any, Sequence, Union

    DTypeLike = Union[str, type, np.dtype, None]


def _names(v: str | Sequence[str]) -> list[str]:
    """A list of names from a sequence or a comma-separated string; bytes
    and other non-strings are refused (b"mean" would read as 109, 101, ...)."""
    if isinstance(v, str):
        return [n.strip() for n in v.split(",") if n.strip()]
    if isinstance(v, (bytes, bytearray)):
        raise TypeError(f"want a name as str, got bytes {bytes(v)[:40]!r}; decode it first (.decode())")
    try:
        items = list(v)
    except TypeError:
        raise TypeError(f"want a name (str) or a sequence of names, got {type(v).__name__}") from None
    for n in items:
        if not isinstance(n, str):
            raise TypeError(f"want names as str, got {type(n).__name__} {n!r:.40}")
    return [n.strip() for n in items]


def _ddof(v: Any) -> Any:
    """ddof as NumPy takes it: an integral float (1.0, np.float64(1)) is
    that integer; anything else goes on as given, for the library to
    word."""
    if isinstance(v, (float, np.floating)) and not isinstance(v, bool) and math.isfinite(v) and float(v).is_integer():
        return int(v)
    return v


def _precision(p: DTypeLike) -> str:
    """A storage type's name for the library: "" (the input's own), or
    NumPy's or the command line's name of a float type."""
    if p is None:
        return ""
    if isinstance(p, str):
        return p
    return np.dtype(p).name


def _plain(v: Any, key: str) -> Any:
    """v as JSON takes it: NumPy scalars as Python's, tuples as lists; a
    NaN or ±Inf refused, as the command line refuses it, naming key."""
    if v is None or isinstance(v, (bool, str, np.bool_)):
        return bool(v) if isinstance(v, np.bool_) else v
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if not math.isfinite(f):
            raise InputError(f"{key}: want a finite number, got {f}")
        return f
    if isinstance(v, Mapping):
        return {str(k): _plain(x, str(k)) for k, x in v.items()}
    if isinstance(v, (list, tuple, np.ndarray)):
        return [_plain(x, key) for x in v]
    raise InputError(f"{key}: want a number, a string or a list of them, got {type(v).__name__}")


encodes = 0  # requests encoded (see _lib.json_codings)


def encode(request: Mapping[str, Any]) -> bytes:
    """The request as the library reads it (JSON, UTF-8)."""
    global encodes
    encodes += 1
    return json.dumps(_plain(request, "request"), allow_nan=False).encode()


_SCALARS = frozenset((int, bool, str, type(None)))
_ITEMS = frozenset((int, str))  # in a tuple or list (a bool there would equal 1)


def key(params: Mapping[str, Any]) -> tuple | None:
    """params as a hashable key, equal only for parameters the library reads
    alike (each value with its type: 1, 1.0 and True differ, and 0.0 and
    −0.0); None when a value is not a plain scalar or a tuple or list of
    them (such calls are not kept for repeats)."""
    k = []
    for v in params.values():
        t = type(v)
        if t is float:
            if v == 0.0:
                v = repr(v)  # 0.0 and -0.0
        elif t is list or t is tuple:
            v = tuple(v)
            for x in v:
                if type(x) not in _ITEMS:
                    return None
        elif t not in _SCALARS:
            return None
        k.append(t)
        k.append(v)
    return tuple(k)
