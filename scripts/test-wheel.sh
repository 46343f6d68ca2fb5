#!/usr/bin/env bash
# The Python package as a user gets it: builds the wheel (python/build_wheel.py,
# from python/vkstat and the library make pylib built), installs it with pip
# into a fresh venv that sees the system's NumPy (python3 -m venv
# --system-site-packages, no network: pip --no-index), and runs vkstat from
# there, outside the source tree: devices(), a map, a reduce, a latent and a
# stack checked against NumPy, and a paco's maps and tables, on the CPU path
# and, when present, lavapipe; then the worked example
# (examples/python/paco_adi.py) on the CPU path, checked against bin/vkstat.
set -euo pipefail
PYTHON=${PYTHON:-/usr/bin/python3}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PYTHON" "$root/python/build_wheel.py" --version "$("$root/scripts/version.sh")" --out "$tmp/dist" >/dev/null
"$PYTHON" -m venv --system-site-packages "$tmp/venv"
"$tmp/venv/bin/pip" install --quiet --no-index --disable-pip-version-check "$tmp"/dist/vkstat-*.whl
cd "$tmp"
"$tmp/venv/bin/python" - "$tmp/venv" <<'PY'
import sys
import numpy as np
import vkstat
assert vkstat.__file__.startswith(sys.argv[1]), vkstat.__file__
devs = vkstat.devices()
import importlib.metadata
assert vkstat.__version__ == importlib.metadata.version("vkstat"), (vkstat.__version__, importlib.metadata.version("vkstat"))
print("vkstat", vkstat.__version__, "from the wheel:", ", ".join(d["name"] for d in devs))
x = np.linspace(-2, 2, 1001)
for d in ["cpu"] + (["lavapipe"] if any(v["name"].startswith("llvmpipe") for v in devs[:-1]) else []):
    with vkstat.open(d) as s:
        np.testing.assert_allclose(s.map(x, x, 3.5, 2.8, 10), 3.5 * x * x + 2.8 * x + 10, rtol=1e-14)
        np.testing.assert_allclose(s.reduce(x.reshape(7, 143), "std", axis=1, ddof=1), x.reshape(7, 143).std(axis=1, ddof=1), rtol=1e-13)
        lat = x[:1000].reshape(2, 5, 1, 10, 10)
        np.testing.assert_allclose(s.latent(lat, "moments").mean, lat.mean(axis=(3, 4)), rtol=1e-13)
        np.testing.assert_allclose(s.stack(x[:1000].reshape(10, 10, 10) ** 2, looks=2, stat="mean").mean,
                                   (x[:1000].reshape(10, 5, 2, 5, 2) ** 2).mean(axis=(0, 2, 4)), rtol=1e-5)
        pc = s.paco(np.sin(np.arange(8 * 16 * 16.0)).reshape(8, 16, 16), np.linspace(0, 90, 8), fwhm=2, radius=2, center=(8, 8))
        assert pc.snr.shape == (16, 16) and pc.center["used"] == [8, 8] and pc.detections.dtype.names[:3] == ("rank", "y", "x")
print("the wheel works")
PY
env -u PYTHONPATH VKSTAT_CLI="$root/bin/vkstat" "$tmp/venv/bin/python" "$root/examples/python/paco_adi.py" --device cpu | tail -n 1
