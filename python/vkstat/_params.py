"""Parameters on their way to the library: names from lists or comma
strings, storage types by name."""

from __future__ import annotations

from typing import Sequence, Union

import numpy as np

DTypeLike = Union[str, type, np.dtype, None]


def _names(v: str | Sequence[str]) -> list[str]:
    """A list of names from a sequence or a comma-separated string."""
    if isinstance(v, str):
        return [n.strip() for n in v.split(",") if n.strip()]
    return [str(n).strip() for n in v]


def _precision(p: DTypeLike) -> str:
    """A storage type's name for the library: "" (the input's own), or
    NumPy's or the command line's name of a float type."""
    if p is None:
        return ""
    if isinstance(p, str):
        return p
    return np.dtype(p).name
