"""The shared library (cmd/libvkstat) through ctypes: loading, status codes
to exceptions, and the raw calls, whose outputs go into memory the caller
gives through a callback. Nothing here knows about operations.

The library is loaded at its first use, not at import (get): loading it
starts Go's runtime, whose threads do not survive os.fork(). A process
forked from one that had loaded it cannot use it (the child's calls could
hang for good on a lock of Go's scheduler that a thread of the parent held
at the fork): there every use raises Error (FORKED), at once; a process
forked from one that only imported vkstat loads its own."""

from __future__ import annotations

import ctypes
import itertools
import json
import os
import sys
import threading
from pathlib import Path

import numpy as np

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a first import 5 ms
if TYPE_CHECKING:
    from typing import Any, Callable, Optional, Sequence


class Error(RuntimeError):
    """A vkstat call failed (base class of vkstat's exceptions)."""


class DeviceError(Error):
    """The device failed, or cannot do what was asked (no Vulkan loader or
    driver, no such device, no float64, out of device memory, a validation
    message, a timeout)."""


class InputError(Error, ValueError):
    """Bad input: a wrong shape, dtype, parameter or device name. A
    ValueError, so ``except ValueError`` catches it."""


class AxisError(InputError, np.AxisError):
    """An axis out of range of the array's dimensions: NumPy's
    :class:`numpy.AxisError` (a ValueError and an IndexError), and an
    InputError."""

    def __init__(self, msg: str) -> None:
        np.AxisError.__init__(self, msg)
        self.args = (msg,)


class Cancelled(Exception):
    """The call's token was cancelled (internal: becomes KeyboardInterrupt)."""


STATUS_OK, STATUS_VALUE, STATUS_DEVICE, STATUS_CANCELLED, STATUS_ERROR, STATUS_AXIS = range(6)

_LIBNAME = "libvkstat.dylib" if sys.platform == "darwin" else "libvkstat.so"

# vks_alloc: the memory of one output (ctx, name, name length, dtype, dtype
# length, ndim, shape, nbytes, out) -> its address in *out, or NULL to
# refuse it; storing nothing (an exception in the callback, Ctrl-C landing
# there before its first line) interrupts the call.
_ALLOC = ctypes.CFUNCTYPE(None, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p,
                          ctypes.c_int64, ctypes.c_int, ctypes.POINTER(ctypes.c_int64), ctypes.c_int64,
                          ctypes.POINTER(ctypes.c_void_p))


def _load() -> ctypes.CDLL:
    path = os.environ.get("VKSTAT_LIBRARY") or str(Path(__file__).with_name(_LIBNAME))
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(
            f"vkstat: cannot load its shared library {path} ({e}); "
            "install the wheel (make wheel; pip install dist/*.whl) or build it with "
            "make pylib") from e
    vp, i64, cint = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int
    pvp, pi64 = ctypes.POINTER(vp), ctypes.POINTER(i64)
    cs = ctypes.c_char_p
    sigs = {
        "vks_version": (vp, []),
        "vks_free": (None, [vp]),
        "vks_defaults": (cint, [pvp, pvp]),
        "vks_params": (cint, [pvp, pvp]),
        "vks_devices": (cint, [cs, pvp, pvp]),
        "vks_open": (cint, [cs, pi64, pvp, pvp]),
        "vks_close": (cint, [i64, pvp]),
        "vks_token_new": (i64, []),
        "vks_token_cancel": (None, [i64]),
        "vks_token_end": (None, [i64]),
        "vks_call": (cint, [i64, i64, cs, cs, pvp, cint, _ALLOC, ctypes.c_size_t, pvp, pvp]),
        "vks_live": (None, [pi64, pi64]),
        "vks_run": (cint, [i64, i64, i64, pvp, cint, pvp, cint, ctypes.POINTER(ctypes.c_double), pvp]),
        "vks_forget": (None, [i64, i64]),
        "vks_last_timing": (cint, [i64, pvp, pvp]),
        "vks_json_codings": (i64, []),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


FORKED = ("vkstat cannot run in a process made by os.fork() from one that had used it (multiprocessing's 'fork' "
          "start method, Linux's default before Python 3.14): Go's runtime does not survive a fork, and the "
          "child's calls could hang. Use multiprocessing.get_context('forkserver') or get_context('spawn'), or "
          "fork before the parent's first vkstat call (importing vkstat loads nothing)")
_forked = False  # this process was forked from one that had loaded the library
_load_lock = threading.Lock()


def get() -> ctypes.CDLL:
    """The library, loaded at the first use."""
    global lib
    try:
        return lib
    except NameError:
        pass
    with _load_lock:
        if _forked:
            raise Error(FORKED)
        if "lib" not in globals():
            lib = _load()
    return lib


def __getattr__(name: str) -> Any:  # _lib.lib before the first use: loads it
    if name == "lib":
        return get()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def forget_in_child() -> None:
    """In a child of os.fork(): a library the parent had loaded is not
    this process's to use (get raises FORKED from now on); one it had not
    loaded is loaded here at the first use, as in any process."""
    global _forked, _load_lock
    _load_lock = threading.Lock()  # another thread may have held it at the fork
    if "lib" in globals():
        del globals()["lib"]
        _forked = True


def _take(p: ctypes.c_void_p) -> str:
    """The malloc'd string at p, freed."""
    if not p.value:
        return ""
    try:
        return ctypes.string_at(p.value).decode("utf-8", "replace")
    finally:
        get().vks_free(p.value)


def check(status: int, err: ctypes.c_void_p) -> None:
    """Raises the exception for status, with the library's message."""
    msg = _take(err)
    if status == STATUS_OK:
        return
    if status == STATUS_VALUE:
        raise InputError(msg)
    if status == STATUS_AXIS:
        raise AxisError(msg)
    if status == STATUS_DEVICE:
        raise DeviceError(msg)
    if status == STATUS_CANCELLED:
        raise Cancelled(msg)
    raise Error(msg)


def version() -> str:
    return _take(ctypes.c_void_p(get().vks_version()))


def defaults() -> dict[str, dict[str, Any]]:
    """The operations' defaults, by operation and parameter: the library's."""
    out, err = ctypes.c_void_p(), ctypes.c_void_p()
    check(get().vks_defaults(ctypes.byref(out), ctypes.byref(err)), err)
    return json.loads(_take(out))


def params() -> dict[str, list[dict[str, Any]]]:
    """The operations' parameters as the library describes them, by
    operation: each {name, kind, default, help} and, where they apply, key
    (the JSON key where not name), choices and none (None is a value of its
    own)."""
    out, err = ctypes.c_void_p(), ctypes.c_void_p()
    check(get().vks_params(ctypes.byref(out), ctypes.byref(err)), err)
    return json.loads(_take(out))


def devices(options: bytes) -> dict[str, Any]:
    """The devices report; options as JSON."""
    out, err = ctypes.c_void_p(), ctypes.c_void_p()
    st = get().vks_devices(options, ctypes.byref(out), ctypes.byref(err))
    check(st, err)
    return json.loads(_take(out))


def open_session(request: bytes) -> tuple[int, dict[str, Any]]:
    """Opens the session request (JSON: the device and the options) asks
    for; returns its handle and its device record."""
    h, info, err = ctypes.c_int64(), ctypes.c_void_p(), ctypes.c_void_p()
    st = get().vks_open(request, ctypes.byref(h), ctypes.byref(info), ctypes.byref(err))
    check(st, err)
    return h.value, json.loads(_take(info))


def close_session(handle: int) -> None:
    err = ctypes.c_void_p()
    check(get().vks_close(handle, ctypes.byref(err)), err)


# A giver answers the library's requests for output memory during one
# call: (name, dtype, shape, nbytes) -> an address, or None to refuse (it
# keeps its own reason, raised after the call).
if TYPE_CHECKING:
    Giver = Callable[[str, str, tuple, int], Optional[int]]

_givers: dict[int, Giver] = {}
_raised: dict[int, BaseException] = {}  # by call: what the callback raised (Ctrl-C, say), raised after the call
_keys = itertools.count(1)

# JSON documents this package encoded or decoded for calls (the request and
# the description): a repeated call adds none (see json_codings).
codings = 0


def _give(key: int, name: int, name_len: int, dtype: int, dtype_len: int, ndim: int, shape: Any, nbytes: int,
          out: Any) -> None:
    try:
        giver = _givers.get(key)
        if giver is not None:
            out[0] = giver(ctypes.string_at(name, name_len).decode(), ctypes.string_at(dtype, dtype_len).decode(),
                           tuple(shape[i] for i in range(ndim)), nbytes)
        else:
            out[0] = None
    except BaseException as e:  # a KeyboardInterrupt landing here is the caller's, not a refusal
        e.__traceback__ = None
        _raised.setdefault(key, e)


_give_c = _ALLOC(_give)  # one callback for the process: calls name their giver by key


def call(handle: int, token: int, op: str, request: bytes, ptrs: Sequence[int], give: Giver) -> dict[str, Any]:
    """Runs op, its outputs going where give says; returns the call's
    description."""
    arr = (ctypes.c_void_p * max(len(ptrs), 1))(*ptrs)
    desc, err = ctypes.c_void_p(), ctypes.c_void_p()
    key = next(_keys)
    _givers[key] = give
    try:
        st = get().vks_call(handle, token, op.encode(), request, arr, len(ptrs), _give_c, key, ctypes.byref(desc), ctypes.byref(err))
    finally:
        del _givers[key]
        raised = _raised.pop(key, None)
    if raised is not None:
        _take(desc), _take(err)
        raise raised
    check(st, err)
    global codings
    codings += 1
    return json.loads(_take(desc))


_Ptrs = [ctypes.c_void_p * n for n in range(9)]


def run(handle: int, token: int, prepared: int, ptrs: Sequence[int], outs: Sequence[int]) -> float:
    """Repeats a prepared call (see capi.CallPrepared) with its arrays'
    and its outputs' addresses; returns the library's wall in ms."""
    wall, err = ctypes.c_double(), ctypes.c_void_p()
    st = get().vks_run(handle, token, prepared, _Ptrs[len(ptrs)](*ptrs), len(ptrs), _Ptrs[len(outs)](*outs), len(outs),
                     ctypes.byref(wall), ctypes.byref(err))
    if st:
        check(st, err)
    return wall.value


def last_timing(handle: int) -> dict[str, Any] | None:
    """The timing of the session's last call (JSON, made when asked)."""
    out, err = ctypes.c_void_p(), ctypes.c_void_p()
    check(get().vks_last_timing(handle, ctypes.byref(out), ctypes.byref(err)), err)
    return json.loads(_take(out))


def json_codings() -> tuple[int, int]:
    """JSON documents the calls have encoded or decoded so far: this
    package's and the library's (tests: a repeated call adds none)."""
    from . import _params
    return codings + _params.encodes, int(get().vks_json_codings())


def live() -> tuple[int, int]:
    """Sessions and tokens the library holds (tests: no leaks)."""
    s, t = ctypes.c_int64(), ctypes.c_int64()
    get().vks_live(ctypes.byref(s), ctypes.byref(t))
    return s.value, t.value
