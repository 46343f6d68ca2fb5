"""Arrays in: anything NumPy, ``__array__`` or DLPack gives, lent to the
library by pointer without a copy when it is already what the operation
reads (C-contiguous, aligned, native byte order, a dtype it takes). Arrays
out: memory the caller's NumPy arrays own, given to the library as it asks
for each output (:class:`Outputs`), written there in place."""

from __future__ import annotations

import ctypes
import math
import mmap
import sys
from collections import namedtuple
from collections.abc import Mapping

import numpy as np

from ._lib import InputError

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a first import 5 ms
if TYPE_CHECKING:
    from typing import Any, Iterable


_F32, _F64, _F16 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float16)
_NAMES = {_F32: "float32", _F64: "float64"}  # dtype.name costs a microsecond
_DL_CPU, _DL_CUDA_HOST = 1, 3  # DLPack device types whose memory the CPU reads


def _address_slow(a: np.ndarray) -> int:
    return int(a.ctypes.data)


_data_field = ctypes.c_void_p.from_address


def _address_fast(a: np.ndarray) -> int:
    """The address of a's data, read from the array object's data field
    (NumPy's PyArrayObject: the pointer after the object header), 20× less
    than ``a.ctypes.data``."""
    return _data_field(id(a) + _DATA_OFFSET).value or 0


_DATA_OFFSET = 2 * ctypes.sizeof(ctypes.c_void_p)


def _check_address() -> Any:
    """_address_fast where this Python and NumPy lay arrays out as it
    reads them (checked on a few arrays and views), else a.ctypes.data."""
    try:
        b = np.arange(12.0)
        if all(_address_fast(v) == v.ctypes.data for v in (b, b[3:], b.reshape(3, 4)[1], np.empty(0), np.float32([1]))):
            return _address_fast
    except Exception:
        pass
    return _address_slow


address = _check_address()


def plain(a: np.ndarray) -> bool:
    """Whether NumPy array a is lent as it is: float32 or float64 in native
    byte order, C-contiguous and aligned (the calls' fast path)."""
    d = a.dtype
    return (d is _F64 or d is _F32) and a.flags.c_contiguous and a.flags.aligned


def num_key(v: Any) -> Any:
    """A coefficient as a key: 1 and 1.0 alike (the library reads both as
    1.0), 0.0 and −0.0 apart."""
    return v if v else repr(v)


class Lent:
    """An array lent to the library: the NumPy array whose memory the
    library reads, the dtype name the library sees (``bfloat16`` for 16-bit
    patterns held as uint16), and whether making it took a copy."""

    __slots__ = ("array", "dtype", "copied")

    def __init__(self, array: np.ndarray, dtype: str, copied: bool) -> None:
        self.array, self.dtype, self.copied = array, dtype, copied

    def spec(self, ptr: int) -> dict[str, Any]:
        a = self.array
        return {"dtype": self.dtype, "shape": list(a.shape), "nbytes": int(a.nbytes), "ptr": ptr}


def pin(arrays: Iterable[np.ndarray]) -> list[memoryview]:
    """Holds, for a call, the buffer of the object each array's memory
    belongs to where that object has one (an mmap under np.memmap, a
    bytearray): while it is held, closing the mmap (``m._mmap.close()``)
    or resizing the bytearray raises BufferError in the caller's thread
    instead of taking the memory from under the call, which kills the
    process (Go's "unexpected fault address"). Release with unpin."""
    pins = []
    for a in arrays:
        base = a
        while isinstance(base, np.ndarray) and base.base is not None:
            base = base.base
        if not isinstance(base, np.ndarray):
            try:
                pins.append(memoryview(base))
            except TypeError:  # no buffer (a DLPack capsule's owner, say): nothing to hold
                pass
    return pins


def unpin(pins: list[memoryview]) -> None:
    for m in pins:
        m.release()
    pins.clear()


def _torch_bfloat16(obj: Any) -> np.ndarray | None:
    """A CPU torch.bfloat16 tensor's 16-bit patterns as uint16, without a
    copy (NumPy has no bfloat16, so DLPack cannot hand it over as is)."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(obj, torch.Tensor) or obj.dtype != torch.bfloat16:
        return None
    if obj.device.type != "cpu":
        raise ValueError(f"the tensor is on {obj.device}; vkstat reads arrays in CPU memory (move it with .cpu())")
    return np.from_dlpack(obj.detach().view(torch.int16)).view(np.uint16)


Peeked = namedtuple("Peeked", "array tag converted", defaults=(False,))
Peeked.__doc__ = """An input as NumPy sees it (array), and tag "bfloat16" when its uint16
elements are bfloat16 patterns; converted when making it took new memory (a
list, a scalar)."""


def as_numpy(obj: Any, name: str) -> Peeked:
    """obj as a NumPy array without a copy where it can be, and "bfloat16"
    when its elements are bfloat16 patterns held as uint16."""
    if type(obj) is np.ndarray and obj.dtype.kind == "f":  # the common case, at once
        return Peeked(obj, None)
    if isinstance(obj, Peeked):
        return obj
    if isinstance(obj, np.ma.MaskedArray):
        raise ValueError(f"{name} is a masked array, whose mask vkstat would not see: pass np.ma.filled({name}, np.nan) "
                         "(with skipnan, NaNs are left out) or its data")
    if isinstance(obj, np.ndarray):
        a = obj
    else:
        bf = _torch_bfloat16(obj)
        if bf is not None:
            return Peeked(bf, "bfloat16")
        if hasattr(obj, "__dlpack__"):
            where = getattr(obj, "__dlpack_device__", None)
            kind = where()[0] if where is not None else _DL_CPU
            if kind not in (_DL_CPU, _DL_CUDA_HOST):
                raise ValueError(f"{name} is on a device (DLPack device type {kind}), not in CPU memory; "
                                 "vkstat reads host arrays and moves them itself (move it with .cpu())")
            try:
                a = np.from_dlpack(obj)
            except (BufferError, RuntimeError, TypeError) as e:
                if not hasattr(obj, "__array__"):
                    raise ValueError(f"{name}: cannot read it through DLPack ({e}); vkstat reads arrays in CPU memory") from e
                a = np.asarray(obj)
        else:
            a = np.asarray(obj)
            if not (hasattr(obj, "__array__") or hasattr(obj, "__array_interface__")):
                return Peeked(a, None, True)  # built from Python objects
    if a.dtype.name == "bfloat16":  # ml_dtypes' bfloat16
        return Peeked(a.view(np.uint16), "bfloat16")
    if a.dtype.kind == "V" and a.dtype.itemsize == 2 and a.dtype.names is None:
        # np.load of a .npy that ml_dtypes saved ('<V2'): bfloat16, as the
        # command line reads it (no NumPy numeric type saves as V2)
        return Peeked(a.view(np.uint16), "bfloat16")
    return Peeked(a, None)


def float_result(**arrays: Peeked) -> np.dtype:
    """The dtype inputs compute in together: float64 when any is float64
    or an integer, else float32. Wider floats (long double) are refused,
    not computed in less than they hold."""
    out = _F32
    for name, p in arrays.items():
        d, tag = p.array.dtype, p.tag
        if tag is None and d.kind == "f" and d.itemsize > 8:
            raise ValueError(f"{name} has dtype {d}; vkstat computes in float32 or float64 (convert it first, "
                             "or pass dtype=)")
        if tag is None and (d.kind in "biu" or (d.kind == "f" and d.itemsize == 8)):
            out = _F64
    return out


def _widen_bf16(u: np.ndarray) -> np.ndarray:
    """bfloat16 patterns (uint16) as float32: exact, one copy."""
    return (u.astype(np.uint32) << 16).view(np.float32)


def lend(obj: Any, name: str, *, dtype: Any = None, half: bool = False) -> Lent:
    """Makes obj an array the library can read.

    dtype, when given (float32 or float64), is the precision to compute in.
    Otherwise float32 and float64 stay as they are; float16 and bfloat16
    stay 16-bit where the operation takes 16-bit storage (half), else become
    float32; integers and booleans become float64. Anything that is not
    already C-contiguous, aligned, in native byte order and of that dtype is
    copied once.
    """
    if type(obj) is np.ndarray or type(obj) is Peeked:
        a = obj if type(obj) is np.ndarray else obj.array
        d = a.dtype
        if ((d is _F64 or d is _F32) and (dtype is None or dtype is d) and (type(obj) is np.ndarray or obj.tag is None)
                and a.flags.c_contiguous and a.flags.aligned):
            return Lent(a, _NAMES[d], type(obj) is Peeked and obj.converted)  # as it is: no copy
    orig, tag, converted = as_numpy(obj, name)
    a = orig
    if tag is None and a.dtype.kind not in "biuf":
        also = ", float16, bfloat16" if half else ""
        raise ValueError(f"{name} has dtype {a.dtype}; vkstat takes real numbers "
                         f"(float32, float64{also}; integers become float64)")
    if dtype is not None:
        want = np.dtype(dtype)
        if want not in (_F32, _F64):
            raise ValueError(f"dtype {want}: vkstat computes in float32 or float64")
        if tag == "bfloat16":
            a, tag = _widen_bf16(a), None
    elif tag == "bfloat16":
        if half:
            want = np.dtype(np.uint16)
        else:
            a, tag, want = _widen_bf16(a), None, _F32
    else:
        kind, size = a.dtype.kind, a.dtype.itemsize
        if kind == "f" and size in (4, 8):
            want = np.dtype(a.dtype.type)  # native byte order
        elif kind == "f" and size == 2:
            want = _F16 if half else _F32
        elif kind in "biu":
            want = _F64
        else:  # long double
            raise ValueError(f"{name} has dtype {a.dtype}; vkstat computes in float32 or float64 (convert it first)")
    b = np.require(a, dtype=want, requirements=("C", "A"))
    copied = converted or (b.size > 0 and not np.may_share_memory(orig, b))
    return Lent(b, tag or b.dtype.name, copied)


# Outputs of at least this many bytes are page-aligned, whole pages, so
# that a device can import their memory and write into it directly.
_ALIGN_MIN = 1 << 20
_PAGE = mmap.PAGESIZE


def empty(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A new array for an output: np.empty, page-aligned and of whole pages
    when large (a view of a uint8 array that owns the memory)."""
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes < _ALIGN_MIN:
        return np.empty(shape, dtype)
    buf = np.empty(-(-nbytes // _PAGE) * _PAGE + _PAGE, np.uint8)
    off = -buf.ctypes.data % _PAGE
    return buf[off:off + nbytes].view(dtype).reshape(shape)


class Outputs:
    """Where a call's outputs go: the library asks for each (its name,
    dtype and shape, known before it computes) and writes it there. An
    output the caller passed in ``out`` goes into that array when the
    library can write it as it is (writeable, C-contiguous, aligned, native
    byte order, of the output's dtype, not overlapping an input but where
    an elementwise operation reads and writes the same elements); otherwise,
    when NumPy's rules allow it (the same shape, a ``same_kind`` cast),
    through a temporary copied into it after the call. Every other output
    is a new array (:func:`empty`).

    An instance is the call's giver (see ``_lib.call``): it refuses an
    output that cannot go where asked, keeping the reason for ``raise_()``.
    """

    __slots__ = ("out", "label", "inputs", "elementwise", "arrays", "back", "exc", "asked")

    def __init__(self, out: Mapping[str, Any] | None, inputs: Iterable[np.ndarray], *, elementwise: bool = False,
                 label: str | None = None) -> None:
        self.out = {k: v for k, v in (out or {}).items() if v is not None}
        self.label = label  # how messages name the one out array ("out"); else out['name']
        self.inputs, self.elementwise = list(inputs), elementwise
        self.arrays: list[np.ndarray] = []  # by buffer, what the caller gets
        self.back: list[tuple[np.ndarray, np.ndarray]] = []  # (written, out) to copy after the call
        self.exc: BaseException | None = None
        self.asked: list[tuple[str, np.dtype, tuple, int]] = []  # (name, dtype, shape, nbytes) as asked

    def __call__(self, name: str, dtype: str, shape: tuple, nbytes: int) -> int | None:
        try:
            dt = np.dtype(dtype)
            self.asked.append((name, dt, shape, nbytes))
            o = self.out.get(name)
            a = empty(shape, dt) if o is None else self._into(name, o, dt, shape)
        except BaseException as e:  # the library sees a refusal; the caller gets e
            e.__traceback__ = None
            self.exc = e
            return None
        self.arrays.append(a if o is None else o)
        return address(a)

    def _into(self, name: str, o: Any, dt: np.dtype, shape: tuple) -> np.ndarray:
        """The array output name is written into, for the caller's o."""
        what = self.label or f"out[{name!r}]"
        if not isinstance(o, np.ndarray):
            raise TypeError(f"{what} must be a NumPy array, got {type(o).__name__}")
        if o.shape != shape:
            raise ValueError(f"{what} has shape {o.shape}; the output {name} has shape {shape}")
        if not o.flags.writeable:
            raise ValueError(f"{what} is read-only")
        if (o.dtype == dt and o.flags.c_contiguous and o.flags.aligned and o.dtype.isnative
                and not any(self._clash(o, i) for i in self.inputs)):
            return o
        if not np.can_cast(dt, o.dtype, casting="same_kind"):
            raise TypeError(f"{what} is {o.dtype}: cannot cast the output {name} from {dt} to it with casting rule 'same_kind'")
        tmp = np.empty(shape, dt)
        self.back.append((tmp, o))
        return tmp

    def _clash(self, o: np.ndarray, i: np.ndarray) -> bool:
        """Whether writing o while reading i may go wrong: they may share
        memory, and are not the same elements of an elementwise operation."""
        if not np.may_share_memory(o, i):
            return False
        same = (o.ctypes.data == i.ctypes.data and o.shape == i.shape and o.strides == i.strides
                and o.dtype.itemsize == i.dtype.itemsize)
        return not (self.elementwise and same)

    def raise_(self) -> None:
        """Raises the reason an output was refused, if one was."""
        exc, self.exc = self.exc, None
        if exc is not None:
            raise exc

    def take(self, outputs: Iterable[Mapping[str, Any]] | None) -> dict[str, np.ndarray]:
        """The outputs by name, as the call's description lists them, once
        the temporaries are copied into their out= arrays."""
        for tmp, o in self.back:
            np.copyto(o, tmp, casting="same_kind")
        got = {d["name"]: self.arrays[d["buffer"]] for d in outputs or ()}
        unused = sorted(set(self.out) - set(got))
        if unused:
            raise InputError(f"out: no output named {', '.join(unused)} in this call (it gives {', '.join(got)})")
        return got


def out_names(out: Any, names: tuple[str, ...]) -> dict[str, Any] | None:
    """out= of an operation with several outputs as a dict by name: a dict
    as it is, or a tuple in the order of names (None: a new array)."""
    if out is None or isinstance(out, Mapping):
        return out
    if isinstance(out, (tuple, list)):
        if len(out) > len(names):
            raise ValueError(f"out: {len(out)} arrays for {len(names)} outputs ({', '.join(names)})")
        return dict(zip(names, out))
    raise TypeError(f"out: want a dict by output name or a tuple in the order {', '.join(names)}; got {type(out).__name__}")


_C64 = np.dtype(np.complex64)


def lend_date(obj: Any, name: str) -> Lent:
    """Makes obj a date of a stack the library reads: complex64 (SLC, read
    as interleaved float32 pairs) or float32 (intensity), as it is when it
    is C-contiguous and aligned in native byte order, else converted once
    (complex128 to complex64; float64, float16, bfloat16 and integers to
    float32)."""
    orig, tag, converted = as_numpy(obj, name)
    a = orig
    if tag == "bfloat16":
        a = _widen_bf16(a)
    kind = a.dtype.kind
    if kind == "c":
        want = _C64
    elif kind in "biuf":
        want = _F32
    else:
        raise ValueError(f"{name} has dtype {a.dtype}; a date is complex (SLC) or real (intensity)")
    b = np.require(a, dtype=want, requirements=("C", "A"))
    copied = converted or tag is not None or (b.size > 0 and not np.may_share_memory(orig, b))
    return Lent(b, b.dtype.name, copied)
