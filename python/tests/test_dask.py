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


LATENT_CHUNKS = [
    ((7,), 3, 4, 8, 8),
    ((2, 1, 4), 1, 4, 8, 8),          # uneven, a one-sample chunk; C split: made one chunk
    ((1,) * 7, 3, 2, 8, 8),
]


def compare_results(got, want, rel=1e-12):
    import dataclasses
    for f in dataclasses.fields(want):
        a, b = getattr(got, f.name), getattr(want, f.name)
        if isinstance(b, np.ndarray):
            assert a is not None, f.name
            close(a, b, rel)
        elif f.name == "notes":
            assert a == b


@pytest.mark.parametrize("chunks", LATENT_CHUNKS)
def test_latent_equals_one_process(client, chunks):
    x = np.random.default_rng(11).normal(1, 2, size=(7, 3, 4, 8, 8))
    x[2, 1, 0, 3, 3] = np.nan
    d = da.from_array(x, chunks=chunks)
    for axes, nan in (((0, 3, 4), "skip"), ((-2, -1), "propagate")):
        got = vd.latent(d, "all", axes=axes, nan=nan, ddof=1, split_every=2)
        compare_results(got, vkstat.latent(x, "all", axes=axes, nan=nan, ddof=1))


# Chunks inside the samples: along the frames, rows and columns (and the
# channels for the statistics that allow it), each cut unevenly and into
# chunks of one element.
LATENT_BLOCK_CHUNKS = [
    ((5,), 3, (1, 3, 2), 8, 8),            # frames: uneven, one of one frame
    ((2, 3), 3, 6, (1, 4, 3), (1,) * 8),   # rows uneven, columns one by one
    ((1,) * 5, 3, (1,) * 6, 8, (5, 3)),    # samples and frames one by one, columns uneven
]
BLOCK_STATS = [  # statistics, the chunks along C, the axes made one chunk
    (("moments", "corr", "corr-frames", "pca"), (1, 2), {1}),  # every channel in a chunk
    (("moments", "lagcorr"), (2, 1), {2}),                     # C cut unevenly; every frame in a chunk
    (("moments",), (1, 1, 1), set()),                          # the moments cut anything
]


def tasks(r, name):
    return sum(1 for k in dict(r.__dask_graph__()) if str(k).startswith(name))


@pytest.mark.parametrize("chunks", LATENT_BLOCK_CHUNKS)
def test_latent_chunks_inside_samples(client, chunks):
    """Chunks that cut the samples along F, H, W (and C where the
    statistics allow) run as they are, one task per chunk, and merge to
    the single-process results (1e-12 for float64)."""
    x = np.random.default_rng(12).normal(1, 2, size=(5, 3, 6, 8, 8))
    x[2, 1, 0, 3, 3] = np.nan
    x[4, 0, 5, 7, 1] = np.inf
    for stats, cchunks, whole in BLOCK_STATS:
        ch = list(chunks)
        ch[1] = cchunks
        d = da.from_array(x, chunks=tuple(ch))
        for axes, nan in (((0, 3, 4), "skip"), ((-2, -1), "propagate"), ((2, 3), "skip"), ((1,), "propagate")):
            r = vd.latent(d, stats, axes=axes, nan=nan, ddof=1, split_every=3, compute=False)
            assert tasks(r, "_latent_block") == np.prod([1 if a in whole else len(c) for a, c in enumerate(d.chunks)])
            got = r.compute()
            compare_results(got, vkstat.latent(x, list(stats), axes=axes, nan=nan, ddof=1))


def test_latent_chunks_refused_where_they_cut_variables(client):
    """The library itself refuses a chunk that cuts the variables of a
    correlation (vkstat.dask makes them one chunk first)."""
    from vkstat.dask import _latent_block
    x = np.ones((2, 2, 3, 4, 4))
    with pytest.raises(vkstat.InputError, match="every channel"):
        _latent_block(x, (0, 0, 0, 0, 0), (2, 3, 3, 4, 4), {"stats": ["corr"]})


STACK_CHUNKS = [((9,), 16, 12), ((4, 1, 4), 8, 12), ((1,) * 9, 16, 5)]


@pytest.mark.parametrize("chunks", STACK_CHUNKS)
def test_stack_equals_one_process(client, chunks):
    rng = np.random.default_rng(5)
    s = (rng.normal(size=(9, 16, 12)) + 1j * rng.normal(size=(9, 16, 12))).astype(np.complex64)
    s[3, :2] = 0
    d = da.from_array(s, chunks=chunks)
    for kw in ({"looks": 2, "ddof": 1, "nodata": 0.0}, {"looks": (1, 2), "filter": "lee", "quantity": "amplitude"}):
        got = vd.stack(d, **kw, split_every=3)
        # float32 statistics of float64 states merged in another order
        compare_results(got, vkstat.stack(s, **kw), rel=1e-6)


def test_latent_and_stack_lazy(client):
    x = np.random.default_rng(2).normal(size=(4, 2, 6, 6))
    r = vd.latent(da.from_array(x, chunks=(1, 2, 6, 6)), "moments", axes=(0,), compute=False)
    assert hasattr(r, "compute")
    close(r.compute().mean, vkstat.latent(x, "moments", axes=(0,)).mean)


def test_stack_xarray_out(client):
    """An xarray DataArray of dates (time, y, x) on a 10 m grid gives a
    Dataset on the 20 m grid of the 2×2 looks, shifted by the crop: by
    hand, the input's first row's centre 4995 and first column's 300005
    put the grid's corner at (300000, 5000); a crop from multilooked row 1
    and column 1 (input row and column 2) puts the output's at (300020,
    4980), and its first pixel centre at (300030, 4970)."""
    xr = pytest.importorskip("xarray")
    rng = np.random.default_rng(0)
    s = (rng.normal(size=(6, 16, 12)) + 1j * rng.normal(size=(6, 16, 12))).astype(np.complex64)
    arr = xr.DataArray(da.from_array(s, chunks=(2, 16, 12)), dims=("time", "y", "x"),
                       coords={"time": np.arange("2020-01-01", "2020-01-07", dtype="datetime64[D]"),
                               "y": 4995.0 - 10 * np.arange(16), "x": 300005.0 + 10 * np.arange(12)},
                       attrs={"crs": "EPSG:32633"})
    ds = vd.stack(arr, looks=2, crop=(1, 1, 0, 0))
    want = vkstat.stack(s, looks=2, crop=(1, 1, 0, 0))
    for name in ("mean", "std", "cv", "min", "max", "count"):
        close(ds[name].values, getattr(want, name), 1e-6)
    assert ds["mean"].dims == ("y", "x")
    np.testing.assert_allclose(ds.y.values, 4970.0 - 20 * np.arange(7))
    np.testing.assert_allclose(ds.x.values, 300030.0 + 20 * np.arange(5))
    assert ds.attrs["geotransform"] == (300020.0, 20.0, 0.0, 4980.0, 0.0, -20.0)
    assert ds.attrs["crs_wkt"] == "EPSG:32633" and ds.attrs["first_date"].startswith("2020-01-01")
    lazy = vd.stack(arr, looks=2, compute=False)
    assert hasattr(lazy, "compute") and lazy.compute()["mean"].shape == (8, 6)


def test_latent_xarray_out(client):
    xr = pytest.importorskip("xarray")
    x = np.random.default_rng(3).normal(size=(5, 3, 4, 8, 8))
    la = xr.DataArray(da.from_array(x, chunks=(2, 3, 4, 8, 8)), dims=("sample", "channel", "frame", "y", "x"),
                      coords={"channel": ["a", "b", "c"], "sample": np.arange(5) + 100})
    ds = vd.latent(la, "all", axes=(0, 3, 4))
    want = vkstat.latent(x, "all", axes=(0, 3, 4))
    assert ds["mean"].dims == ("channel", "frame") and ds["corr"].dims == ("sample", "channel", "channel_2")
    assert list(ds.channel.values) == ["a", "b", "c"] and list(ds.sample.values) == [100, 101, 102, 103, 104]
    close(ds["mean"].values, want.mean)
    close(ds["corr"].values, want.corr)
    close(ds["spatial_slope"].values, want.spatial_slope)
    assert list(ds.lag.values) == [1, 2, 3]
    cut = vd.latent(la.chunk({"y": 3, "frame": 1}), ["moments", "corr", "pca"], axes=(0, 3, 4))  # chunks inside samples
    assert cut["mean"].dims == ("channel", "frame") and list(cut.sample.values) == [100, 101, 102, 103, 104]
    close(cut["mean"].values, want.mean)
    close(cut["pca_components"].values, want.pca_components)
