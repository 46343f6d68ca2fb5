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
    with pytest.raises(ValueError, match="not adjacent"):
        dev.reduce(np.ones((2, 3, 4)), "sum", axis=(0, 2))
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
