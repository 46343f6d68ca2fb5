"""pip install . as a new user runs it (README, From Python)."""

import subprocess
import sys
import venv
from pathlib import Path

import numpy as np

PYTHON_DIR = Path(__file__).resolve().parents[1]  # python/: the build backend


def test_build_refuses_a_python_without_numpy(tmp_path):
    """Issue 41, unclear items: the README's venv made from a Python without
    NumPy (a pyenv Python, a venv without --system-site-packages) failed
    after the minutes of the Go build ("No matching distribution found for
    numpy" where PyPI is out of reach). The build backend refuses at once,
    naming the interpreter and one that has NumPy (this test's)."""
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)  # sees no system site-packages: no NumPy
    py = env_dir / "bin" / "python"
    hook = f"import sys; sys.path.insert(0, {str(PYTHON_DIR)!r}); import build_wheel; build_wheel.build_wheel({str(tmp_path)!r})"
    p = subprocess.run([str(py), "-c", hook], capture_output=True, text=True, timeout=120,
                       env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"})
    assert p.returncode != 0
    msg = p.stderr.strip().splitlines()[-1]
    assert msg.startswith(f"vkstat needs NumPy, and {py} (Python "), msg
    assert f"(NumPy {np.__version__}) has it: make the virtual environment from it" in msg, msg
    assert "-m venv --system-site-packages .venv" in msg and f"{py} -m pip install numpy" in msg, msg
    assert not list(tmp_path.glob("*.whl"))
