"""Errors become exceptions with the library's messages: ValueError for bad
input, vkstat.DeviceError for device trouble."""

import numpy as np
import pytest

import vkstat


def test_bad_input_is_value_error(dev):
    with pytest.raises(ValueError, match=r"^shape mismatch: x is \(3,\) but y is \(2,\)$"):
        dev.map(np.ones(3), np.ones(2))
    with pytest.raises(ValueError, match=r"axis 2 is out of range for an array of 2 dimension\(s\) \(valid: -2..1\)"):
        dev.reduce(np.ones((2, 3)), "mean", axis=2)
    with pytest.raises(ValueError, match='unknown statistic "median"'):
        dev.reduce(np.ones(3), "median")
    with pytest.raises(ValueError, match="axis 1 given twice"):
        dev.reduce(np.ones((2, 3, 4)), "sum", axis=(1, -2))
    with pytest.raises(ValueError, match="ddof must be 0 or 1, got 2"):
        dev.cov(np.ones((5, 2)), ddof=2)
    with pytest.raises(ValueError, match='unknown estimator "bogus"'):
        dev.cov(np.ones((5, 2)), "bogus")
    with pytest.raises(ValueError, match=r"the matrices are not square \(2×3\)"):
        dev.chol(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"b has shape \(3,\), which does not fit"):
        dev.chol(np.eye(2), np.ones(3))
    with pytest.raises(ValueError, match="complex"):
        dev.map(np.ones(3, complex), np.ones(3))
    with pytest.raises(ValueError, match='no operation or suite "nope"'):
        dev.verify("nope")


def test_input_error_is_both(cpu):
    with pytest.raises(vkstat.Error) as e:
        cpu.map(np.ones(3), np.ones(2))
    assert isinstance(e.value, ValueError) and isinstance(e.value, vkstat.InputError)


def test_device_errors():
    with pytest.raises(ValueError, match='unknown device'):
        vkstat.open("no-such-device")
    if not any(d["type"] in ("discrete", "integrated") for d in vkstat.devices()[:-1]):
        with pytest.raises(vkstat.DeviceError, match="no GPU"):
            vkstat.open("gpu")


def test_float64_on_a_device_without_it_is_a_device_error():
    try:
        s = vkstat.open("lavapipe", disable="float64")
    except vkstat.Error as e:
        pytest.skip(f"lavapipe: {e}")
    with s:
        with pytest.raises(vkstat.DeviceError, match="float64"):
            s.map(np.ones(3), np.ones(3))
        z = s.map(np.ones(3, np.float32), np.ones(3, np.float32))  # float32 still runs
        np.testing.assert_array_equal(z, 2)


def test_closed_session(cpu):
    s = vkstat.open("cpu")
    s.close()
    s.close()  # a no-op
    assert s.closed
    with pytest.raises(ValueError, match="the session is closed"):
        s.map(np.ones(2), np.ones(2))


def test_without_a_vulkan_loader():
    """No loader: devices() lists the CPU path with a warning, "auto" falls
    back to it with a warning, a named device is a DeviceError."""
    import os
    import subprocess
    import sys

    child = """
import warnings, numpy as np, vkstat
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    print([d["path"] for d in vkstat.devices()], "|", w[0].message)
    s = vkstat.open("auto")
    print(s.device["path"], "|", w[1].message, "|", s.map(np.ones(2), np.ones(2)).tolist())
try:
    vkstat.open("lavapipe")
except vkstat.DeviceError as e:
    print("DeviceError |", e)
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), VKSTAT_VULKAN_LIB="/nonexistent/libvulkan.so.1")
    out = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True, text=True, timeout=60)
    lines = out.stdout.splitlines()
    assert len(lines) == 3, out.stderr
    assert lines[0].startswith("['cpu'] | no Vulkan devices: vulkan loader not found")
    assert lines[1] == "cpu | vkstat: no usable Vulkan device (no Vulkan loader); running on the CPU path | [2.0, 2.0]"
    assert lines[2].startswith('DeviceError | device "lavapipe": vulkan loader not found')
    assert "apt-get install libvulkan1" in lines[2]


# ---- issue 34: the Python surface as strict as the command line -----------------

CUBE = np.random.default_rng(0).standard_normal((6, 16, 16))
ANGLES = np.linspace(0, 90, 6)
NONFINITE = [
    ("paco threshold", lambda s, v: s.paco(CUBE, ANGLES, fwhm=2, radius=2, threshold=v)),
    ("paco fwhm", lambda s, v: s.paco(CUBE, ANGLES, fwhm=v, radius=2)),
    ("paco center", lambda s, v: s.paco(CUBE, ANGLES, fwhm=2, radius=2, center=(8, v))),
    ("paco north_offset", lambda s, v: s.paco(CUBE, ANGLES, fwhm=2, radius=2, north_offset=v)),
    ("paco min_sep", lambda s, v: s.paco(CUBE, ANGLES, fwhm=2, radius=2, min_sep=v)),
    ("paco star_flux", lambda s, v: s.paco(CUBE, ANGLES, fwhm=2, radius=2, star_flux=v)),
    ("paco pixel_scale", lambda s, v: s.paco(CUBE, ANGLES, fwhm=2, radius=2, pixel_scale=v)),
    ("map a", lambda s, v: s.map(np.ones(3), np.ones(3), a=v)),
    ("map b", lambda s, v: s.map(np.ones(3), np.ones(3), b=v)),
    ("map c", lambda s, v: s.map(np.ones(3), np.ones(3), c=v)),
    ("stack enl", lambda s, v: s.stack(np.ones((2, 6, 6), np.float32), filter="lee", enl=v)),
    ("stack nodata", lambda s, v: s.stack(np.ones((2, 6, 6), np.float32), nodata=v)),
]


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -np.inf, np.float32("nan")])
@pytest.mark.parametrize("what,call", NONFINITE, ids=[n for n, _ in NONFINITE])
def test_nonfinite_keywords_are_refused(cpu, what, call, value):
    key = what.split()[1]
    if what == "stack nodata" and np.isnan(value):
        pytest.skip("NaN nodata is taken, as None: test_stack_nodata_nan_is_taken")
    with pytest.raises(ValueError, match=rf"^{key}: want a finite number, got (nan|inf|-inf)$"):
        call(cpu, value)


@pytest.mark.parametrize("call,words", [
    (lambda s: s.reduce(np.ones(3), axis=1.5), "axis 1.5: want an axis (0, -1), axes (1,2 or 0,2) or all"),
    (lambda s: s.reduce(np.ones(3), axis="0"), 'axis "0": want an axis (0, -1), axes (1,2 or 0,2) or all'),
    (lambda s: s.reduce(np.ones(3), axis=1.0), "axis 1.0: want an axis (0, -1), axes (1,2 or 0,2) or all"),
    (lambda s: s.reduce(np.ones(3), ddof=1.5), "ddof: want an integer, got 1.5"),
    (lambda s: s.reduce(np.ones(3), ddof=2 ** 63), "ddof: 9223372036854775808 is out of range"),
    (lambda s: s.cov(np.ones((3, 4, 4)), radius=2.7), "radius: want an integer, got 2.7"),
    (lambda s: s.paco(CUBE, ANGLES, fwhm=2, radius=2.9), "radius: want an integer, got 2.9"),
    (lambda s: s.stack(np.ones((2, 6, 6), np.float32), window=(0, 0, 2.5, 0)), 'window "0,0,2.5,0": want integers, comma-separated'),
    (lambda s: s.verify(["map", 3]), "ops: want a string, got a number"),
    (lambda s: s.latent(np.ones((2, 2, 4, 4)), "moments", lags="x"), "lags: want an integer, got a string"),
])
def test_non_integers_and_types_are_refused_in_the_callers_words(cpu, call, words):
    with pytest.raises(ValueError) as e:
        call(cpu)
    msg = str(e.value)
    assert msg == words or msg.startswith(words), msg
    assert "json" not in msg and "Go struct" not in msg and "unmarshal" not in msg, msg


def test_devices_options_are_worded():
    with pytest.raises(ValueError, match="^disable: want a string, got a number$"):
        vkstat.devices(disable=123)


def test_long_double_and_masked_arrays_are_refused(cpu):
    x = np.full(3, 3.0000001, np.longdouble)
    if np.finfo(np.longdouble).bits <= 64:
        pytest.skip("long double is float64 here")
    for call in (lambda: cpu.map(x, x), lambda: cpu.chol(np.eye(2, dtype=np.longdouble)), lambda: cpu.reduce(x)):
        with pytest.raises(ValueError, match=f"has dtype {x.dtype}; vkstat computes in float32 or float64"):
            call()
    np.testing.assert_allclose(cpu.map(x, x, 1, 0, 0, dtype="float64"), 9.0000006, rtol=1e-12)  # asked for
    m = np.ma.masked_array([1.0, 2.0, 100.0], mask=[0, 0, 1])
    with pytest.raises(ValueError, match="a is a masked array"):
        cpu.reduce(m)
    np.testing.assert_allclose(cpu.reduce(np.ma.filled(m, np.nan), skipnan=True), 1.5)  # the way the message gives


def test_huge_ddof_is_the_same_everywhere(dev):
    """ddof beyond the axis length: a warning and NaN var on every device
    (lavapipe refused it as a push constant out of uint32's range)."""
    with pytest.warns(RuntimeWarning, match="var and std are NaN"):
        v = dev.reduce(np.ones((2, 3)), "var", axis=1, ddof=2 ** 62)
    assert v.shape == (2,) and np.isnan(v).all()


def test_a_shape_whose_bytes_overflow_is_bad_input(cpu):
    """A C-ABI array of shape [2**61] and 0 bytes: its size in bytes
    overflows int64 to 0; refused as bad input, not a Go panic."""
    from vkstat import _lib, _params
    x = np.ones(1)
    req = _params.encode({"params": {"stats": ["mean"]},
                          "arrays": {"a": {"dtype": "float64", "shape": [2 ** 61], "nbytes": 0, "ptr": 0}}})
    with pytest.raises(vkstat.InputError, match=r"a: shape \[2305843009213693952\] is too large"):
        _lib.call(cpu._handle, 0, "reduce", req, [x.ctypes.data], lambda *a: None)


def test_device_specs():
    """open('') and a name with a NUL are refused; -1, the CPU path's index
    in devices(), opens it."""
    with pytest.raises(ValueError, match="device: an empty name"):
        vkstat.open("")
    with pytest.raises(ValueError, match=r'device "cpu\\x00lavapipe": unknown device'):
        vkstat.open("cpu\x00lavapipe")
    assert vkstat.devices()[-1]["index"] == -1
    with vkstat.open(-1) as s:
        assert s.device["path"] == "cpu"


def test_close_from_another_thread_is_no_keyboard_interrupt():
    """close() from another thread cancels the call in flight, which raises
    ValueError (a closed session), not KeyboardInterrupt."""
    import threading
    import time
    s = vkstat.open("cpu")
    s.map(np.ones(3), np.ones(3))
    got = []

    def call():
        try:
            s.verify()  # every operation: seconds
            got.append("finished")
        except BaseException as e:  # reported below
            got.append(e)

    t = threading.Thread(target=call)
    t.start()
    time.sleep(0.3)
    s.close()
    t.join(30)
    assert len(got) == 1 and isinstance(got[0], ValueError) and "closed" in str(got[0]), got


def test_c_abi_misuse_gives_a_status_and_a_short_message(cpu):
    """Issue 41: a NULL allocation callback (a crash on 68d6905), desc =
    NULL (a Go panic with its goroutine stack) and a 50 MB statistic name
    (echoed whole) give a status and a short message."""
    import ctypes

    from vkstat import _lib
    lib = _lib.lib
    h = cpu._handle
    req = b'{"params": {}, "arrays": {}}'
    desc, err = ctypes.c_void_p(), ctypes.c_void_p()
    st = lib.vks_call(h, 0, b"map", req, None, 0, _lib._ALLOC(), 0, ctypes.byref(desc), ctypes.byref(err))
    msg = ctypes.string_at(err.value).decode()
    lib.vks_free(err)
    assert st == 1 and "allocation callback is NULL" in msg, (st, msg)
    err = ctypes.c_void_p()
    st = lib.vks_call(h, 0, b"map", req, None, 0, _lib._give_c, 0, None, ctypes.byref(err))
    msg = ctypes.string_at(err.value).decode()
    lib.vks_free(err)
    assert st == 1 and "desc is NULL" in msg and "goroutine" not in msg, (st, msg)
    with pytest.raises(ValueError) as e:
        cpu.reduce(np.ones((2, 3)), stat="m" * 50_000_000)
    assert len(str(e.value)) < 5000 and "bytes left out" in str(e.value)


def test_names_as_bytes_are_refused(cpu):
    """Issue 41: stat=b'mean' was read as the statistic "109"."""
    with pytest.raises(TypeError, match="bytes b'mean'"):
        cpu.reduce(np.ones((2, 3)), stat=b"mean")
    with pytest.raises(TypeError, match="want names as str"):
        cpu.reduce(np.ones((2, 3)), stat=["mean", 3.5])
    assert cpu.reduce(np.ones((2, 3)), stat=("mean", " max"), axis=0)["max"].tolist() == [1.0, 1.0, 1.0]


def test_map_coefficient_none_is_refused(cpu):
    """Issue 41: map(a=None) was taken as a=1 silently."""
    x = np.ones(3)
    for k in "abc":
        with pytest.raises(TypeError, match=f"map: {k}=None"):
            cpu.map(x, x, **{k: None})


def test_stack_nodata_nan_is_taken(cpu):
    """Issue 41: stack(nodata=nan), GDAL's common nodata, was refused; NaN
    samples are left out whatever nodata says, so it is nodata=None."""
    d = np.ones((3, 4, 4), np.float32)
    d[0, 0, 0] = np.nan
    r = cpu.stack(d, nodata=float("nan"), stat=["mean", "count"])
    assert r.count[0, 0] == 2 and r.count[1, 1] == 3 and r.mean[0, 0] == 1.0
    assert np.array_equal(r.count, cpu.stack(d, stat=["count"]).count)


def test_ddof_integral_float_is_taken(cpu):
    """Issue 41: ddof=np.float64(1.0) was refused where NumPy takes
    integral floats; 1.5 still is."""
    x = np.arange(12.0).reshape(3, 4)
    for d in (1.0, np.float64(1.0), np.float32(1)):
        assert np.allclose(cpu.reduce(x, "var", axis=0, ddof=d), np.var(x, axis=0, ddof=1))
    with pytest.raises(ValueError, match="ddof: want an integer, got 1.5"):
        cpu.reduce(x, "var", ddof=1.5)
