"""Sessions: a device kept open across calls (:class:`Session`), the worker
thread that runs long calls where Ctrl-C cancels them, opening and closing,
the default session of the module-level functions, and those functions,
made from the Session's methods (:func:`on_default`)."""

from __future__ import annotations

import atexit
import ctypes
import inspect
import operator
import os
import queue
import sys
import threading
import time
import warnings
import weakref

import numpy as np

from . import _array_ops, _latent, _lib, _linalg, _paco, _params, _quantile, _shader, _stack, _verify
from ._arrays import _ALIGN_MIN, Lent, Outputs, address, empty, pin, unpin
from ._lib import Error, InputError

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a first import 5 ms
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Mapping, TypeVar

    from typing_extensions import Concatenate, ParamSpec  # typing's from Python 3.10

    P = ParamSpec("P")
    R = TypeVar("R")


def _options(validate: bool, memory: str | int | None, disable: str | Iterable[str] | None) -> dict[str, Any]:
    if isinstance(disable, (list, tuple, set, frozenset)):
        disable = ",".join(disable)
    return {"validate": validate, "memory": "" if memory is None else str(memory), "disable": disable or ""}


def defaults() -> dict[str, dict[str, Any]]:
    """The library's defaults of the operations' parameters, by operation
    and parameter name: what a parameter left None (or not given) takes.

    Examples
    --------
    >>> vkstat.defaults()["paco"]["radius"]                 # doctest: +SKIP
    4
    """
    return _lib.defaults()


def devices(*, validate: bool = False, disable: str | Iterable[str] | None = None) -> list[dict[str, Any]]:
    """List the Vulkan devices and the CPU path.

    Parameters
    ----------
    validate : bool, optional
        Load the Vulkan validation layer while listing.
    disable : str or iterable of str, optional
        Features to report as absent: ``float64``, ``float16``, ``subgroup``.

    Returns
    -------
    list of dict
        One dict per device: ``path`` (``"vulkan"`` or ``"cpu"``), ``index``
        (what :func:`open` takes; -1 for the CPU path), ``name``, ``type``,
        ``float64``, and for Vulkan devices the full report under
        ``vulkan`` (driver, API version, memory heaps, limits, subgroup
        size, features). The CPU path is last.

    Warns
    -----
    RuntimeWarning
        When Vulkan is unusable (no loader or no driver): the list then holds
        the CPU path only.
    """
    rep = _lib.devices(_params.encode(_options(validate, None, disable)))
    if rep.get("vulkan_error"):
        warnings.warn(f"no Vulkan devices: {rep['vulkan_error']}", RuntimeWarning, stacklevel=2)
    return rep["devices"]


# ---- the worker: calls run on a thread of their own ---------------------------

class _Done:
    """A job's end, waited for through a bare lock's timed acquire, which a
    Ctrl-C interrupts cleanly: threading.Event waits on a Condition, and a
    KeyboardInterrupt landing inside it can leave that half released
    (RuntimeError: release unlocked lock, in place of the interrupt)."""
    __slots__ = ("_lock", "_set")

    def __init__(self) -> None:
        self._lock, self._set = threading.Lock(), False
        self._lock.acquire()

    def set(self) -> None:
        self._set = True
        self._lock.release()

    def is_set(self) -> bool:
        return self._set

    def wait(self, timeout: float) -> bool:
        if self._set:
            return True
        if self._lock.acquire(timeout=timeout):
            self._lock.release()  # for the next waiter
            return True
        return self._set


class _Job:
    __slots__ = ("fn", "done", "result", "exc")

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn, self.done, self.result, self.exc = fn, _Done(), None, None

    def run(self) -> None:
        try:
            self.result = self.fn()
        except BaseException as e:  # handed to the waiting thread
            self.exc = e
        finally:
            self.fn = None
            self.done.set()


def _memory_of(arrays: Mapping[str, Lent], out: Mapping[str, Any] | None) -> list[np.ndarray]:
    """The arrays whose memory a call reads or writes: the lent ones and
    the out= arrays."""
    got = [a.array for a in arrays.values()]
    if out:
        got += [v for v in out.values() if isinstance(v, np.ndarray)]
    return got


def _reraise(job: _Job) -> None:
    """Raises the exception the worker's job raised without a reference
    cycle: the exception's traceback holds the job's frames, so neither the
    job nor this frame may hold the exception, or the arrays lent to a
    failed call would stay alive until the cyclic garbage collector ran. A
    call its waiting caller did not cancel (Ctrl-C raises at once, not
    here) was cancelled by close() from another thread: that is a closed
    session, not a KeyboardInterrupt."""
    exc, job.exc = job.exc, None
    try:
        if isinstance(exc, _lib.Cancelled):
            raise InputError("the session was closed (from another thread) during the call") from None
        raise exc
    finally:
        del exc


def _work(q: queue.SimpleQueue) -> None:
    while True:
        job = q.get()
        if job is None:
            return
        job.run()
        del job


# How often the waiting thread wakes to let Python run signal handlers
# (Ctrl-C), and how long it waits for a cancelled call to stop before it
# raises KeyboardInterrupt anyway.
_POLL_S = 0.05
_CANCEL_GRACE_S = 1.5
# Calls on arrays of at most this many bytes in all (besides _LONG_OPS) run
# on the calling thread, the GIL released: they take milliseconds at most,
# so a Ctrl-C raises as soon as they return, and they save the two thread
# switches of the worker (~50 µs, and hundreds on a loaded machine: more
# than a 10⁶-element mean takes). On the CPU path map and reduce (_QUICK_OPS),
# whose time is the arrays' reading, run inline up to 32 MiB: 10 ms at most
# on two cores.
_INLINE_BYTES = 1 << 20
_INLINE_BYTES_CPU = 32 << 20
_QUICK_OPS = frozenset({"map", "reduce"})
# Operations that may run long whatever their arrays' size: always on the
# session's thread, where Ctrl-C cancels them.
_LONG_OPS = frozenset({"verify", "paco", "shader"})
# Calls a session keeps for repeats without JSON (see _Prepared), at most.
_MAX_PREPARED = 64
_LAZY = object()  # last_timing: the library's, made when asked
_np_empty, _c_void_p, _c_int64, _byref = np.empty, ctypes.c_void_p, ctypes.c_int64, ctypes.byref
_NO_TOKEN = ctypes.c_int64(0)  # _fast_call's calls are never cancelled
# The sets of outputs a kept call keeps for its repeats, at most (see
# _Prepared.claim): two, as `m = s.reduce(x)` still holds the last result
# while the next call runs.
_RING = 2
_VIEW = operator.itemgetter(Ellipsis)  # a[...]: a new view of the whole of a
_refs = getattr(sys, "getrefcount", lambda _: 1 << 62)  # no refcounts (not CPython): every set held


def _held(bases: tuple) -> bool:
    """Whether anything but the tuple bases holds one of its arrays: a
    view of one (a view of a view has the same base), a memoryview or
    anything else that holds a view."""
    for b in bases:
        if _refs(b) > _IDLE:
            return True
    return False


def _calibrate() -> int:
    """The count _held sees for an array nothing but its tuple holds (the
    tuple, the loop's name, getrefcount's argument: 3 on CPython 3.11),
    checked to grow by one for a view held; -1 where it does not, and then
    every set is held and none reused."""
    global _IDLE
    bases = (_np_empty(1),)
    for _IDLE in range(1, 9):
        if not _held(bases):
            view = _VIEW(bases[0])
            seen = _held(bases)
            del view
            if seen and not _held(bases):
                return _IDLE
            break
    return -1


_IDLE = _calibrate()


class _Prepared:
    """A call the library keeps for repeats (capi.CallPrepared): its
    operation, its id, the outputs it asks memory for, in order (name,
    dtype, shape, nbytes), and its result's description (outputs by
    buffer, warnings, bytes the library copied), which every repeat gives
    again."""

    __slots__ = ("op", "id", "allocs", "outputs", "byname", "names", "warnings", "copied", "small", "run", "cid",
                 "in_ptrs", "out_ptrs", "picks", "ring")

    def __init__(self, op: str, id: int, allocs: list, desc: dict[str, Any], nptrs: int) -> None:
        self.op, self.id, self.allocs = op, id, allocs
        # the outputs as np.empty makes them: small enough to need no page alignment (_arrays.empty)
        self.small = [(shape, dt) for _, dt, shape, nb in allocs] if all(nb < _ALIGN_MIN for *_, nb in allocs) else None
        self.outputs = desc["outputs"]
        self.byname = [(d["name"], d["buffer"]) for d in self.outputs]
        # the names when each buffer is one output, in order (the usual case)
        self.names = [n for n, _ in self.byname] if [k for _, k in self.byname] == list(range(len(allocs))) else None
        # what _fast_call passes: the library's entry, this call's id and the pointer arrays' types. The
        # entry is vks_run without _lib's argtypes, whose conversions cost 0.4 µs a call: so each argument
        # must be what C takes, a ctypes int64 for an int64_t, a Python int for an int (nptrs, nouts), a
        # ctypes array or byref for a pointer, None for NULL (see _lib's vks_run).
        self.run, self.cid = _lib.lib["vks_run"], ctypes.c_int64(id)
        self.run.restype = ctypes.c_int
        self.in_ptrs, self.out_ptrs = _lib._Ptrs[nptrs], _lib._Ptrs[len(allocs)]
        self.warnings = desc.get("warnings") or []
        self.copied = desc.get("copied_bytes", 0)
        self.picks: dict[type, Callable] = {}  # _fast_call's: a result type's fields from the outputs
        self.ring: list[tuple] = []  # _fast_call's sets of outputs, oldest first (see claim)

    def pick(self, result: type) -> Callable:
        """What takes the NamedTuple result's fields, in order, from the
        outputs as allocated with None after them (a field no output
        has)."""
        got = self.picks.get(result)
        if got is None:
            at = {name: k for name, k in self.byname}
            got = self.picks[result] = operator.itemgetter(*(at.get(f, -1) for f in result._fields))
        return got

    def claim(self) -> tuple:
        """A set of outputs for _fast_call, as allocated (small), the
        pointer array of their addresses and one for the inputs' (filled
        by each call): the oldest set in the ring whose
        arrays nothing but the set holds, else a new one. The set's arrays
        are never handed out, only views of them (_VIEW): a result the
        caller holds, or any view of it, holds its base, so the library
        never writes into it. A set is taken out of the ring while a call
        writes it (list.pop: no other thread can take it too) and put back
        after (with the views made first). A held set is kept while the
        ring has room, so that `m = s.reduce(x)` alternates between two."""
        ring = self.ring
        for _ in range(len(ring)):
            try:
                got = ring.pop(0)
            except IndexError:  # another thread took it
                break
            if not _held(got[0]):
                return got
            if len(ring) < _RING - 1:
                ring.append(got)
        bases = tuple([_np_empty(shape, dt) for shape, dt in self.small])
        return bases, self.out_ptrs(*map(address, bases)), self.in_ptrs()


class Session:
    """A device kept open across calls: its Vulkan device, compiled
    pipelines and caches stay until :meth:`close` (or the end of a ``with``
    block).

    Parameters
    ----------
    device : str or int, optional
        ``"auto"`` (the best GPU, else the CPU path; the default), ``"cpu"``
        (the native Go CPU path, no Vulkan), ``"gpu"``, ``"lavapipe"``, a
        device index from :func:`devices` (-1: the CPU path), or part of a
        device's name.
    validate : bool, optional
        Turn the Vulkan validation layer on: any message it reports makes
        the call raise :class:`DeviceError`. ``VKSTAT_VALIDATE=1`` does the
        same.
    memory : str or int, optional
        Cap on the device memory vkstat allocates, e.g. ``"2GiB"``; work is
        split to stay under it.
    disable : str or iterable of str, optional
        Features to treat as absent (``float64``, ``float16``,
        ``subgroup``): the pipelines take the kernels written for devices
        without them.

    Raises
    ------
    DeviceError
        When the device cannot be opened, or Vulkan is unusable and the
        device was named explicitly.
    ValueError
        When ``device`` names no device.

    Warns
    -----
    RuntimeWarning
        When ``"auto"`` falls back to the CPU path because Vulkan is
        unusable.

    Notes
    -----
    Calls on one session run one at a time, with the GIL released. Calls on
    more than 1 MiB of arrays, verify and paco, run on a thread of the
    session's own while the calling thread waits, responsive to Ctrl-C,
    which cancels the call; smaller calls (milliseconds at most) run on the
    calling thread. Sessions are independent: calls on two sessions run
    concurrently. A small call repeated (map, reduce, cov, chol on arrays
    of the same dtypes and shapes) writes its outputs into arrays the
    session keeps, two sets per call at most, never into one a result
    still held (or any view of it) lives in; its results are views of them.
    """

    def __init__(self, device: str | int = "auto", *, validate: bool = False,
                 memory: str | int | None = None, disable: str | Iterable[str] | None = None) -> None:
        self._handle = 0
        self._q: queue.SimpleQueue | None = None
        self._tokens: set[int] = set()
        self._lock = threading.Lock()
        self._last_copied: tuple[str, ...] = ()  # the inputs converted (copied) for the last call
        self._last_out_copied = 0  # bytes of its outputs the library copied into their arrays
        self._timing: Any = None
        self._prepared: dict[tuple, _Prepared] = {}  # by (op, parameters, arrays' dtypes and shapes)
        self._fast: dict[tuple, _Prepared] = {}  # the same calls by the operations' own keys (see _fast_call)
        handle, info = _lib.open_session(_params.encode({"device": device, **_options(validate, memory, disable)}))
        self._handle = handle
        _open_sessions.add(self)
        self.device: dict[str, Any] = info["device"]
        self._quick_bytes = _INLINE_BYTES_CPU if self.device.get("type") == "cpu" else _INLINE_BYTES  # _QUICK_OPS' inline
        """Where the session runs: the record :func:`devices` lists, and
        for ``"auto"`` why it was chosen (``"reason"``)."""
        if info.get("note"):
            warnings.warn(f"vkstat: {info['note']}", RuntimeWarning, stacklevel=2)

    # -- life --------------------------------------------------------------

    @property
    def last_timing(self) -> dict[str, Any] | None:
        """Where the library's time went in the last call, as ``vkstat
        --time`` reports it: ``upload_ms``, ``kernel_ms`` (GPU timestamps
        when ``gpu_timed``; the compute on the CPU path), ``download_ms``,
        ``wall_ms`` (the pipeline's), ``up_bytes``, ``down_bytes``,
        ``phases``, ``other_ms`` and ``counts``. None after verify. After a
        repeated call the report is made when first read (the session's
        last call's: read it before the next call from another thread)."""
        t = self._timing
        if t is _LAZY:
            t = self._timing = _lib.last_timing(self._handle) if self._handle else None
        return t

    @last_timing.setter
    def last_timing(self, t: dict[str, Any] | None) -> None:
        self._timing = t

    @property
    def closed(self) -> bool:
        """True once the session is closed."""
        return self._handle == 0

    def close(self) -> None:
        """Release the device. A call still running (one abandoned by
        Ctrl-C, or one another thread waits for, which then raises
        ValueError) is cancelled first and waited for, 1.5 s at most: a
        call that does not stop by then (blocked reading a FIFO nobody
        writes, say) releases the device when it returns, with a
        RuntimeWarning saying so, and close() returns.

        Raises
        ------
        DeviceError
            When closing reports validation messages (leaks).
        """
        with self._lock:
            h, self._handle = self._handle, 0
            q, self._q = self._q, None
            tokens = list(self._tokens)
        if not h:
            return
        _open_sessions.discard(self)
        for t in tokens:
            _lib.lib.vks_token_cancel(t)
        if q is None:
            _lib.close_session(h)
            return
        if sys.is_finalizing():
            # The worker thread cannot run Python any more: leave the
            # device to the process's end.
            return
        job = _Job(lambda: _lib.close_session(h))
        q.put(job)
        q.put(None)
        deadline = time.monotonic() + _CANCEL_GRACE_S
        while not job.done.wait(_POLL_S):
            if tokens and time.monotonic() > deadline:
                warnings.warn("vkstat: a cancelled call is still running (blocked in a read?); the session's device "
                              "is released when it returns", RuntimeWarning, stacklevel=2)
                return
        if job.exc is not None:
            _reraise(job)

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            if self._handle:
                self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        state = "closed" if self.closed else self.device.get("name")
        return f"<vkstat.Session {state}>"

    # -- the call ----------------------------------------------------------

    def _run(self, op: str, params: Mapping[str, Any], arrays: Mapping[str, Lent],
             out: Mapping[str, Any] | None = None, *, reads_files: bool = False, elementwise: bool = False,
             label: str | None = None, repeat: bool = False, fast: tuple | None = None
             ) -> tuple[dict[str, np.ndarray], Any, list[str]]:
        """Runs op, on the session's thread (waiting for it there, so that
        Ctrl-C cancels it) unless its arrays are small and it reads no
        files. Its outputs go into new arrays, or those of ``out`` by name
        (see :class:`Outputs`: ``elementwise`` and ``label`` are its).
        Returns the outputs by name, the Info and the warnings.

        With ``repeat`` (map, reduce, cov, chol: outputs that follow from
        the parameters and the arrays' shapes) the library keeps the call,
        and a later call with equal parameters on arrays of the same dtypes
        and shapes repeats it (:meth:`_repeat`): no JSON, no callback.
        ``fast`` is the operation's own key for the call when its arrays are
        NumPy's, lent as they are, with no ``out``: a small call kept under
        it is repeated by :meth:`_fast_call` before any of this."""
        pkey = None
        if repeat:
            pkey = _params.key(params)
            if pkey is not None:
                pkey = (op, pkey, tuple((n, a.dtype, a.array.shape) for n, a in arrays.items()))
                p = self._prepared.get(pkey)
                if p is not None:
                    return self._repeat(p, arrays, out, elementwise, label)
        names = list(arrays)
        specs = {n: arrays[n].spec(i) for i, n in enumerate(names)}
        req: dict[str, Any] = {"params": params, "arrays": specs}
        if pkey is not None:
            req["prepare"] = True
        request = _params.encode(req)
        nbytes = sum(a.array.nbytes for a in arrays.values())
        inline = (op not in _LONG_OPS and not reads_files
                  and nbytes <= (self._quick_bytes if op in _QUICK_OPS else _INLINE_BYTES))
        # a call long enough for another thread to act holds the memory's
        # owners (pin), from before its token exists
        pins = [] if inline else pin(_memory_of(arrays, out))
        handle, token, q = self._begin(inline)
        ptrs = [address(arrays[n].array) for n in names]
        # outs holds the lent arrays too: their memory lives as long as the job
        outs = Outputs(out, (a.array for a in arrays.values()), elementwise=elementwise, label=label)
        self._last_copied = tuple(n for n in names if arrays[n].copied)

        def job_fn() -> tuple[dict[str, np.ndarray], Any, list[str], dict[str, Any] | None, int]:
            try:
                desc = _lib.call(handle, token, op, request, ptrs, outs)
            except BaseException:
                outs.raise_()  # an output refused: the caller's reason
                raise
            finally:
                unpin(pins)
                if token:
                    _lib.lib.vks_token_end(token)
                    with self._lock:
                        self._tokens.discard(token)
            got = outs.take(desc["outputs"])
            if desc.get("prepared"):
                self._keep(pkey, handle, _Prepared(op, desc["prepared"], outs.asked, desc, len(ptrs)), fast if inline else None)
            return got, desc.get("info"), desc.get("warnings") or [], desc.get("timing"), desc.get("copied_bytes", 0)

        if inline:
            try:
                result = job_fn()
            except _lib.Cancelled:
                raise KeyboardInterrupt from None
            return self._finish(result)
        job = _Job(job_fn)
        self._wait(q, job, token)
        return self._finish(job.result)

    def _begin(self, inline: bool) -> tuple[int, int, queue.SimpleQueue | None]:
        """The session's handle, and for a call not run inline a token that
        cancels it and the session's thread (started on first use) to run
        it on; an inline call is never cancelled (it is short)."""
        with self._lock:
            handle = self._handle
            if not handle:
                if _lib._forked:
                    raise Error(_lib.FORKED)
                raise InputError("the session is closed")
            if inline:
                return handle, 0, None
            if self._q is None:
                self._q = queue.SimpleQueue()
                threading.Thread(target=_work, args=(self._q,), name="vkstat", daemon=True).start()
            token = _lib.lib.vks_token_new()
            self._tokens.add(token)
            return handle, token, self._q

    def _wait(self, q: queue.SimpleQueue, job: _Job, token: int) -> None:
        """Runs job on the session's thread (q) while the calling thread
        waits, responsive to Ctrl-C: that cancels token, waits for the call
        to stop (its grace at most), leaves a worker that does not stop to
        its read and raises KeyboardInterrupt. Raises the job's exception."""
        q.put(job)
        try:
            while not job.done.wait(_POLL_S):
                pass
        except KeyboardInterrupt:
            _lib.lib.vks_token_cancel(token)
            job.done.wait(_CANCEL_GRACE_S)
            self._abandon_worker(q, job)
            raise
        if job.exc is not None:
            _reraise(job)

    def _keep(self, pkey: tuple | None, handle: int, p: _Prepared, fast: tuple | None) -> None:
        """Remembers the prepared call p under pkey (and under fast, when
        _fast_call can repeat it); the oldest goes (in the library too)
        when the session keeps too many."""
        if pkey is None:
            _lib.lib.vks_forget(handle, p.id)
            return
        with self._lock:
            kept = self._prepared
            while len(kept) >= _MAX_PREPARED:
                # its fast keys go before the library forgets it, so that a Ctrl-C between leaves none
                # naming a forgotten call; the others' stay
                old = kept.pop(next(iter(kept)))
                for k in [k for k, q in self._fast.items() if q is old]:
                    del self._fast[k]
                _lib.lib.vks_forget(handle, old.id)
            kept[pkey] = p
            if fast is not None and p.small is not None and not p.warnings:
                self._fast[fast] = p

    def _fast_call(self, fast: tuple, ins: tuple, result: type | None = None) -> Any:
        """The outputs by name of the small call kept under the operation's
        key fast (see _run), repeated on the NumPy arrays ins (lent as they
        are, no out=) on this thread; with result np.ndarray the output
        itself where there is one, with a NamedTuple that result, its
        fields the outputs of their names (None where none); None when no
        call is kept under it. What _repeat does, without what such a call
        cannot need, its outputs views of a set of arrays kept for the next
        repeats (see _Prepared.claim)."""
        p = self._fast.get(fast)
        if p is None:
            return None
        slot = p.claim()
        bases, optrs, iptrs = slot
        for k, a in enumerate(ins):
            iptrs[k] = address(a)
        err = _c_void_p()
        st = p.run(_c_int64(self._handle), _NO_TOKEN, p.cid, iptrs, len(ins), optrs, len(bases), None, _byref(err))
        made = [] if st else list(map(_VIEW, bases))
        if len(p.ring) < _RING:
            p.ring.append(slot)
        if st:
            _lib.check(st, err)
        self._timing, self._last_out_copied, self._last_copied = _LAZY, p.copied, ()
        if result is not None:
            if result is np.ndarray:
                if len(made) == 1:
                    return made[0]
            else:
                made.append(None)
                return tuple.__new__(result, p.pick(result)(made))
        if p.names is not None:  # the outputs in the order they were asked for
            return dict(zip(p.names, made))
        return {name: made[k] for name, k in p.byname}

    def _repeat(self, p: _Prepared, arrays: Mapping[str, Lent], out: Mapping[str, Any] | None, elementwise: bool,
                label: str | None) -> tuple[dict[str, np.ndarray], Any, list[str]]:
        """Repeats the prepared call p on arrays: the outputs allocated (or
        out='s taken, as the library would ask for them) before the call,
        their addresses passed with the inputs', the description the first
        call's."""
        ins = [a.array for a in arrays.values()]
        outs = None
        if out and any(v is not None for v in out.values()):
            outs = Outputs(out, ins, elementwise=elementwise, label=label)
            optrs = []
            for name, dt, shape, nb in p.allocs:
                ptr = outs(name, dt.name, shape, nb)
                if ptr is None:
                    outs.raise_()
                optrs.append(ptr)
        else:
            made = [empty(shape, dt) for _, dt, shape, _ in p.allocs]
            optrs = [address(a) for a in made]
        ptrs = [address(a) for a in ins]
        nbytes = 0
        for a in ins:
            nbytes += a.nbytes
        inline = nbytes <= (self._quick_bytes if p.op in _QUICK_OPS else _INLINE_BYTES)
        self._last_copied = tuple(n for n, a in arrays.items() if a.copied)
        handle, token, q = self._begin(inline)
        if inline:
            try:
                _lib.run(handle, 0, p.id, ptrs, optrs)
            except _lib.Cancelled:
                raise KeyboardInterrupt from None
        else:
            pins = pin(_memory_of(arrays, out))

            def job_fn() -> None:
                try:
                    _lib.run(handle, token, p.id, ptrs, optrs)
                finally:
                    unpin(pins)
                    _lib.lib.vks_token_end(token)
                    with self._lock:
                        self._tokens.discard(token)

            self._wait(q, _Job(job_fn), token)
        if outs is not None:
            got = outs.take(p.outputs)
        else:
            got = {name: made[k] for name, k in p.byname}
        self._timing, self._last_out_copied = _LAZY, p.copied
        for w in p.warnings:
            warnings.warn(w, RuntimeWarning, stacklevel=4)
        return got, None, p.warnings

    def _abandon_worker(self, q: queue.SimpleQueue, job: "_Job") -> None:
        """A cancelled job still running (blocked reading a FIFO nobody
        writes) keeps its thread: the next call starts a new one, and the
        old thread ends when the job returns. (The library opens files
        before it takes the session's lock, so the next call does not wait
        for the read.)"""
        if job.done.is_set():
            return
        with self._lock:
            if self._q is q:
                self._q = None
        q.put(None)

    def _finish(self, result: tuple[dict[str, np.ndarray], Any, list[str], dict[str, Any] | None, int]
                ) -> tuple[dict[str, np.ndarray], Any, list[str]]:
        got, info, warns, self.last_timing, self._last_out_copied = result
        for w in warns:
            warnings.warn(w, RuntimeWarning, stacklevel=4)
        return got, info, warns

    # -- operations, one module per family: each a function of the session --

    map = _array_ops.map
    reduce = _array_ops.reduce
    quantile = _quantile.quantile
    cov = _linalg.cov
    chol = _linalg.chol
    cho_solve = _linalg.cho_solve
    latent = _latent.latent
    stack = _stack.stack
    paco = _paco.paco
    verify = _verify.verify
    shader = _shader.shader


def open(device: str | int = "auto", *, validate: bool = False, memory: str | int | None = None,  # noqa: A001
         disable: str | Iterable[str] | None = None) -> Session:
    """Open a session on a device; see :class:`Session`.

    Examples
    --------
    >>> import vkstat
    >>> with vkstat.open("cpu") as dev:
    ...     dev.device["path"]
    'cpu'
    """
    return Session(device, validate=validate, memory=memory, disable=disable)


# ---- the default session -------------------------------------------------------

_default: Session | None = None
_default_lock = threading.Lock()


def default_session() -> Session:
    """The session the module-level functions use, opened on first use on
    ``$VKSTAT_DEVICE`` (default ``"auto"``)."""
    global _default
    with _default_lock:
        if _default is None or _default.closed:
            _default = Session(os.environ.get("VKSTAT_DEVICE", "auto"))
        return _default


def set_default(device: str | int = "auto", **options: Any) -> Session:
    """Close the default session and open another on ``device``
    (options as :class:`Session`'s); returns it."""
    global _default
    with _default_lock:
        old, _default = _default, None
    if old is not None:
        old.close()
    s = Session(device, **options)
    with _default_lock:
        _default = s
    return s


# Sessions still open when the interpreter exits are closed by an atexit
# hook, while their worker threads can still run.
_open_sessions: "weakref.WeakSet[Session]" = weakref.WeakSet()


def _forget_all() -> None:
    """In a forked child: the parent's sessions (their devices, their
    worker threads) are not the child's; mark them closed without touching
    the library, which the child cannot use if the parent had loaded it
    (_lib.forget_in_child), and let the default session open afresh. Locks
    another thread held at the fork are held for good in the child: they
    are made anew."""
    global _default, _default_lock
    for s in list(_open_sessions):
        s._handle, s._q, s._tokens, s._prepared, s._fast, s._lock = 0, None, set(), {}, {}, threading.Lock()
    _open_sessions.clear()
    _default, _default_lock = None, threading.Lock()
    _lib.forget_in_child()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_all)


@atexit.register
def _close_all() -> None:
    for s in list(_open_sessions):
        try:
            s.close()
        except Exception:
            pass


def on_default(meth: Callable[Concatenate[Session, P], R]) -> Callable[P, R]:
    """The module-level function of a Session method: the method on
    :func:`default_session`, with its signature (less ``self``) and its
    docstring."""
    name = meth.__name__
    sig = inspect.signature(meth)

    def f(*args: Any, **kwargs: Any) -> Any:
        return getattr(default_session(), name)(*args, **kwargs)

    f.__name__ = f.__qualname__ = name
    f.__module__ = "vkstat"
    f.__doc__ = meth.__doc__
    f.__signature__ = sig.replace(parameters=list(sig.parameters.values())[1:])  # type: ignore[attr-defined]
    f.__annotations__ = {k: v for k, v in meth.__annotations__.items() if k != "self"}
    return f  # type: ignore[return-value]
