"""The devices every test runs on: the CPU path, and lavapipe with the
Vulkan validation layer on (any validation message fails the call). Without
lavapipe the lavapipe tests skip, except under CI (CI=true), where they
fail."""

import os

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
