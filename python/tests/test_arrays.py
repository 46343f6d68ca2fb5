"""Arrays in by pointer without a copy when they are already what the
library reads, one copy otherwise; results that own their memory (out=:
test_out.py)."""

import tracemalloc

import numpy as np
import pytest

import vkstat

N = 1 << 18  # 1 MiB of float32


def peak_bytes(fn):
    """The most memory Python's allocators (NumPy's data included) held at
    once during fn, over what they held before."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - base


def test_map_lends_inputs_and_writes_output_in_place(dev):
    x = np.ones(N, np.float32)
    y = np.ones(N, np.float32)
    dev.map(x, y)  # warm: pipelines built
    peak = peak_bytes(lambda: dev.map(x, y))
    assert dev._last_copied == ()
    # z (1 MiB) is the only array allocated: no copy of x or y, and the
    # result is not copied out of the library either
    assert x.nbytes <= peak < 1.5 * x.nbytes, peak
    # the check can fail: strided inputs are copied, and it shows
    xs = np.ones(2 * N, np.float32)[::2]
    peak = peak_bytes(lambda: dev.map(xs, xs))
    assert dev._last_copied == ("x", "y") and peak >= 3 * x.nbytes, peak


def test_reduce_cov_chol_lend_their_inputs(dev):
    a = np.random.default_rng(1).normal(0, 1, (20, 30, 4))
    dev.reduce(a, "mean", axis=1)
    assert dev._last_copied == ()
    dev.cov(a)
    assert dev._last_copied == ()
    dev.chol(np.eye(3)[None].repeat(4, axis=0), np.ones((4, 3)))
    assert dev._last_copied == ()


@pytest.mark.parametrize("make,copied", [
    (lambda a: a.T.copy().T, ("a",)),                     # Fortran order
    (lambda a: a[:, ::2], ("a",)),                        # strided
    (lambda a: a.astype(">f8"), ("a",)),                  # big-endian
    (lambda a: a.astype(np.int32), ("a",)),               # integers become float64
    (lambda a: a[1:], ()),                                # a C-contiguous view: lent as is
    (lambda a: a.tolist(), ("a",)),                       # a list
])
def test_one_copy_when_needed(cpu, make, copied):
    a = np.arange(24.0).reshape(4, 6)
    arr = make(a)
    want = np.asarray(arr, dtype=np.float64).sum(axis=1)
    np.testing.assert_allclose(cpu.reduce(arr, "sum", axis=1), want)
    assert cpu._last_copied == copied


class ArrayOnly:
    """An object with only __array__ (as many array libraries)."""

    def __init__(self, a):
        self.a = a

    def __array__(self, dtype=None, copy=None):
        return self.a


class DLPackOnly:
    """An object with only the DLPack protocol (as a CPU PyTorch tensor)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None, **kw):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


@pytest.mark.parametrize("wrap", [ArrayOnly, DLPackOnly])
def test_array_protocols_are_lent_too(cpu, wrap):
    x = np.linspace(0, 1, 100, dtype=np.float32)
    z = cpu.map(wrap(x), wrap(x), 2, 0, 1)
    np.testing.assert_allclose(z, 2 * x * x + 1, rtol=1e-6)
    assert cpu._last_copied == ()


def test_dlpack_elsewhere_than_the_cpu_is_refused(cpu):
    class OnGPU(DLPackOnly):
        def __dlpack__(self, stream=None, **kw):
            raise BufferError("the tensor is on cuda:0")

    with pytest.raises(ValueError, match="CPU memory"):
        cpu.map(OnGPU(np.ones(3)), np.ones(3))

    class CudaTensor(ArrayOnly):  # as a torch tensor on a GPU: both protocols, device type 2
        def __dlpack__(self, stream=None, **kw):
            raise AssertionError("not to be read")

        def __dlpack_device__(self):
            return (2, 0)

    with pytest.raises(ValueError, match=r"x is on a device \(DLPack device type 2\)"):
        cpu.map(CudaTensor(np.ones(3)), np.ones(3))


def test_results_own_their_memory(cpu):
    r = cpu.chol(np.eye(3) * 4, inverse=True)
    for a in (r.l, r.inverse, r.info):
        assert a.flags.owndata and a.base is None


def test_torch_tensors_if_present(cpu):
    torch = pytest.importorskip("torch")
    t = torch.linspace(0, 1, 64)
    np.testing.assert_allclose(cpu.reduce(t, "sum"), t.double().sum().item(), rtol=1e-6)
    assert cpu._last_copied == ()
    bf = t.to(torch.bfloat16)
    np.testing.assert_allclose(cpu.reduce(bf, "mean"), bf.double().mean().item(), rtol=1e-6)
    assert cpu._last_copied == ()


def test_ml_dtypes_bfloat16_if_present(cpu):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    a = np.linspace(-3, 3, 99).astype(ml_dtypes.bfloat16)
    want = a.astype(np.float64)
    got = cpu.reduce(a, ["mean", "max"])
    assert cpu._last_copied == () and got["mean"].dtype == np.float32
    np.testing.assert_allclose(got["mean"], want.mean(), rtol=1e-6, atol=1e-7)
    assert got["max"] == want.max()


def test_latent_and_stack_lend_their_inputs(dev):
    """No copy of a latent or of a stack's dates on the Python side: the
    peak is the outputs' (small here), not the inputs' (1 MiB each)."""
    x = np.ones((4, 2, 2, 64, 32), np.float32)  # 1 MiB
    dates = [np.ones((128, 128), np.complex64) for _ in range(8)]  # 1 MiB
    for fn in (lambda: dev.latent(x, "moments", axes=(2, 3, 4)), lambda: dev.stack(dates, looks=8, stat="mean")):
        fn()
        peak = peak_bytes(fn)
        assert dev._last_copied == () and peak < x.nbytes / 8, peak
    wide = [d.astype(np.complex128) for d in dates]
    peak = peak_bytes(lambda: dev.stack(wide, looks=8, stat="mean"))
    assert dev._last_copied == tuple(f"date{i}" for i in range(8)) and peak > x.nbytes, peak  # the check can fail
