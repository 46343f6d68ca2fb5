"""The devices every test runs on: the CPU path, and lavapipe with the
Vulkan validation layer on (any validation message fails the call). Without
lavapipe the lavapipe tests skip, except under CI (CI=true), where they
fail. The tests that compare with the command line run bin/vkstat (make
build; $VKSTAT_CLI names another), and skip without it outside CI."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import vkstat

DEVICES = ["cpu", "lavapipe"]


@pytest.fixture(scope="session", params=DEVICES)
def dev(request):
    """A session on each device, kept open for the whole run (as a user
    would keep one): every test reuses its pipelines and caches."""
    try:
        s = vkstat.open(request.param, validate=request.param != "cpu")
    except vkstat.Error as e:
        if os.environ.get("CI") == "true":
            raise
        pytest.skip(f"{request.param}: {e}")
    yield s
    s.close()  # raises on validation messages (leaks)


@pytest.fixture(scope="session")
def cpu():
    with vkstat.open("cpu") as s:
        yield s


@pytest.fixture(scope="session")
def cli_exe():
    """The vkstat command's path: $VKSTAT_CLI, bin/vkstat, or on the PATH."""
    exe = os.environ.get("VKSTAT_CLI") or str(Path(__file__).resolve().parents[2] / "bin" / "vkstat")
    if not Path(exe).is_file():
        exe = shutil.which("vkstat") or ""
    if not exe:
        if os.environ.get("CI") == "true":
            pytest.fail("no vkstat command: make build, or set VKSTAT_CLI")
        pytest.skip("no vkstat command (make build, or set VKSTAT_CLI)")
    return exe


@pytest.fixture(scope="session")
def cli(cli_exe):
    """Runs the vkstat command on the device a session runs on; returns its
    standard output, failing on a non-zero exit with its standard error."""
    exe = cli_exe

    def run(session, *args):
        where = "cpu" if session.device["path"] == "cpu" else str(session.device["index"])
        p = subprocess.run([exe, "--device", where, *map(str, args)], capture_output=True, text=True, encoding="utf-8")
        assert p.returncode == 0, f"vkstat {' '.join(map(str, args))}: exit {p.returncode}\n{p.stderr}"
        return p.stdout

    return run
