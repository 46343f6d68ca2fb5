"""vkstat.dask on a real dask.distributed LocalCluster of 2 worker processes:
each workload's results equal vkstat's single-process results to 1e-12
relative (float64 inputs) for several chunkings, uneven ones and chunks of
one element along the reduced axis included; vkstat's errors raised in a
worker reach the caller as vkstat's exceptions. Skipped where dask or
distributed is absent."""

import numpy as np
import pytest

import vkstat

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

import vkstat.dask as vd  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def close(got, want, rel=1e-12):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    nan = np.isnan(want)
    assert (np.isnan(got) == nan).all()
    scale = np.abs(want[~nan]).max() if (~nan).any() else 1.0
    assert np.abs(got[~nan] - want[~nan]).max(initial=0) <= rel * scale


def computed(client, arrays):
    """Computes arrays on the cluster; the workers that ran a task."""
    with distributed.get_task_stream(client) as ts:
        out = dask.compute(*arrays)
    return out, {t["worker"] for t in ts.data}


REDUCE_CHUNKS = [
    ((40,), (6,), (5,)),              # one chunk
    ((13, 1, 26), (6,), (2, 3)),      # uneven, a chunk of one element along axis 0, split kept axis
    ((1,) * 40, (1, 5), (5,)),        # every row its own chunk
]


@pytest.mark.parametrize("chunks", REDUCE_CHUNKS)
@pytest.mark.parametrize("skipnan", [False, True])
def test_reduce_equals_one_process(client, chunks, skipnan):
    rng = np.random.default_rng(43)
    x = rng.normal(3, 2, size=(40, 6, 5))
    x[rng.random(x.shape) < 0.05] = np.nan
    d = da.from_array(x, chunks=chunks)
    for axis in (0, 1, -1, None):
        got = vd.reduce(d, "all", axis=axis, ddof=1, skipnan=skipnan, split_every=3)
        vals, workers = computed(client, list(got.values()))
        for name, g in zip(got, vals):
            close(g, vkstat.reduce(x, name, axis=axis, ddof=1, skipnan=skipnan))
        if d.npartitions > 4:
            assert len(workers) == 2, f"ran on {workers}"


def test_reduce_float32_and_one_stat(client):
    x = np.random.default_rng(1).normal(size=(30, 8)).astype(np.float32)
    got = vd.reduce(da.from_array(x, chunks=(7, 3)), "std", axis=0).compute()
    want = vkstat.reduce(x, "std", axis=0)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-6)


COV_CHUNKS = [
    ((3,), (50,), (6,)),
    ((1, 2), (7, 1, 42), (6,)),
    ((2, 1), (1,) * 50, (4, 2)),      # P split too: made one chunk
]


@pytest.mark.parametrize("chunks", COV_CHUNKS)
def test_cov_equals_one_process(client, chunks):
    x = np.random.default_rng(7).normal(2, 1, size=(3, 50, 6)) * np.arange(1, 7)
    d = da.from_array(x, chunks=chunks)
    for est in ("none", "paco", "ledoit-wolf", "oas"):
        for ddof in (0, 1):
            got = vd.cov(d, est, ddof=ddof, split_every=4)
            (c, m, r), _ = computed(client, [got.cov, got.mean, got.rho])
            want = vkstat.cov(x, est, ddof=ddof)
            close(c, want.cov)
            close(m, want.mean)
            close(r, want.rho)
    one = vd.cov(d[1], "oas").cov.compute()
    close(one, vkstat.cov(x[1], "oas").cov)


def test_worker_errors_are_vkstats(client):
    d = da.from_array(np.ones((10, 3)), chunks=(3, 3))
    with pytest.raises(vkstat.InputError, match="ddof"):
        vd.reduce(d, "var", axis=0, ddof=-1).compute()
    with pytest.raises(vkstat.InputError, match="median"):
        vd.reduce(d, "median", axis=0).compute()
    with pytest.raises(vkstat.InputError, match="estimator"):
        vd.cov(da.from_array(np.ones((2, 5, 3)), chunks=(1, 2, 3)), "bogus").cov.compute()
