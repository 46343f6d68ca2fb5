"""vkstat.stack against NumPy (the mean and std of multilooked intensity)
and against ``vkstat stack --format npy`` on the same dates, in memory and
as files, on the CPU path and lavapipe."""

import numpy as np
import pytest

import vkstat

RNG = np.random.default_rng(20261128)
STATS = ("mean", "std", "cv", "min", "max", "count")


def slc_dates(t=6, h=11, w=13):
    """t complex64 SLC dates of h × w, with a bright, varying scatterer."""
    s = (RNG.standard_normal((t, h, w)) + 1j * RNG.standard_normal((t, h, w))) * np.sqrt(0.5)
    s[:, h // 2, w // 2] *= 1 + 3 * np.arange(t)
    return s.astype(np.complex64)


def multilook(intensity, a, r):
    """(T, H, W) float64 intensity averaged over a×r boxes, the remainder
    dropped."""
    t, h, w = intensity.shape
    hh, ww = h // a * a, w // r * r
    return intensity[:, :hh, :ww].reshape(t, h // a, a, w // r, r).mean(axis=(2, 4))


@pytest.mark.parametrize("quantity", ["intensity", "amplitude"])
def test_stack_against_numpy(dev, quantity):
    s = slc_dates()
    r = dev.stack(list(s), looks=(2, 3), window=(3, 2, 0, 0), quantity=quantity, ddof=1)  # GDAL's -srcwin 3 2 ...
    assert dev._last_copied == ()  # complex64 dates are read where they lie
    ml = multilook(np.abs(s.astype(np.complex128)) ** 2, 2, 3)[:, 1:, 1:]  # (6, 4, 3)
    if quantity == "amplitude":
        ml = np.sqrt(ml)
    assert r.mean.shape == (4, 3) and r.mean.dtype == np.float32 and r.dates == 6 and r.complex
    np.testing.assert_allclose(r.mean, ml.mean(axis=0), rtol=2e-6)
    np.testing.assert_allclose(r.std, ml.std(axis=0, ddof=1), rtol=2e-5)
    np.testing.assert_allclose(r.cv, ml.std(axis=0, ddof=1) / ml.mean(axis=0), rtol=2e-5)
    np.testing.assert_allclose(r.min, ml.min(axis=0), rtol=2e-6)
    np.testing.assert_allclose(r.max, ml.max(axis=0), rtol=2e-6)
    np.testing.assert_array_equal(r.count, 6)
    assert r.count.dtype == np.int32
    assert r.window == (3, 2, 9, 8) and r.geotransform is None and r.projection is None


def test_stack_window_is_gdals_srcwin_in_input_pixels(dev):
    """window=(xoff, yoff, xsize, ysize) in input pixels, looks from its
    corner (issue 40, item 7): a window not on the boxes' grid of the whole
    image is the multilook of that slice; the old crop= (multilooked
    pixels, rows first) still cuts what it did, with a DeprecationWarning
    giving the window."""
    s = slc_dates()  # (6, 11, 13)
    r = dev.stack(list(s), looks=(2, 3), window=(1, 2, 7, 9), stat="mean")
    i = np.abs(s.astype(np.complex128)) ** 2
    want = multilook(i[:, 2:11, 1:8], 2, 3).mean(axis=0)  # 9 rows, 7 columns → 4×2 boxes
    assert r.mean.shape == (4, 2) and r.window == (1, 2, 6, 8)
    np.testing.assert_allclose(r.mean, want, rtol=2e-6)
    with pytest.warns(DeprecationWarning, match=r"window=\(column·r, row·a, columns·r, rows·a\)"):
        old = dev.stack(list(s), looks=(2, 3), crop=(1, 1, 2, 2), stat="mean")
    np.testing.assert_array_equal(old.mean, dev.stack(list(s), looks=(2, 3), window=(3, 2, 6, 4), stat="mean").mean)
    with pytest.raises(ValueError, match="one window"):
        dev.stack(list(s), window=(0, 0, 2, 2), crop=(0, 0, 1, 1))


def test_stack_intensity_cube_nodata_and_nan(dev):
    x = RNG.gamma(2.0, 1.0, (5, 6, 8)).astype(np.float32)  # real dates: intensity as it is
    x[0, :2, :2] = -1  # nodata: the whole first box of date 0
    x[1, 0, 0] = np.nan  # NaN: left out of the box
    x[:, 4:, 6:] = -1  # no valid sample in any date
    r = dev.stack(x, looks=2, nodata=-1, stat="mean,count,samples")
    assert r.names == ("mean", "count", "samples") and r.std is None and not r.complex
    v = np.where(x == -1, np.nan, x.astype(np.float64))
    boxes = v.reshape(5, 3, 2, 4, 2).transpose(0, 1, 3, 2, 4).reshape(5, 3, 4, 4)  # date, row, column, sample
    n = (~np.isnan(boxes)).sum(axis=3)
    ml = np.where(n > 0, np.nansum(boxes, axis=3) / np.maximum(n, 1), np.nan)  # a box with no sample is missing
    dates = (~np.isnan(ml)).sum(axis=0)
    np.testing.assert_array_equal(r.count, dates)
    np.testing.assert_array_equal(r.samples, n.sum(axis=0))  # valid samples per look box, over the dates
    assert r.samples.dtype == np.int32 and r.samples[0, 0] == 4 * 5 - 4 - 1
    assert r.count[0, 0] == 4 and r.count[2, 3] == 0 and np.isnan(r.mean[2, 3])
    want = np.where(dates > 0, np.nansum(ml, axis=0) / np.maximum(dates, 1), np.nan)
    np.testing.assert_allclose(r.mean, want, rtol=2e-6)


def write_envi(path, a, map_info=None):
    """a (H, W) as an ENVI file GDAL and vkstat read: complex64 (data type
    6) or float32 (4), band-sequential, little-endian."""
    h, w = a.shape
    code = 6 if a.dtype == np.complex64 else 4
    a.astype(a.dtype.newbyteorder("<")).tofile(path)
    hdr = ["ENVI", f"samples = {w}", f"lines = {h}", "bands = 1", "header offset = 0", "file type = ENVI Standard",
           f"data type = {code}", "interleave = bsq", "byte order = 0"]
    if map_info:
        hdr.append(f"map info = {{{map_info}}}")
    path.with_suffix(".hdr").write_text("\n".join(hdr) + "\n")


STACK_ARGS = {"looks": (2, 3), "window": (0, 2, 0, 6), "filter": "lee", "filter_size": 3, "ddof": 1}
CLI_ARGS = ["--looks", "2x3", "--window", "0,2,0,6", "--filter", "lee", "--filter-size", "3", "--ddof", "1"]


def test_stack_matches_the_command(dev, cli, tmp_path):
    s = slc_dates()
    paths = []
    for i, d in enumerate(s):
        paths.append(tmp_path / f"d{i}.slc")
        write_envi(paths[-1], d, "UTM, 1, 1, 500000, 4000000, 10, 5, 32, North, WGS-84")
    out = tmp_path / "out"
    cli(dev, "stack", *CLI_ARGS, "--format", "npy", "--out-dir", out, *paths)
    mem = dev.stack(list(s), **STACK_ARGS)
    files = dev.stack(paths, **STACK_ARGS)
    for name in STATS:
        want = np.load(out / f"{name}.npy")
        assert want.dtype == (np.int32 if name == "count" else np.float32) and want.shape == (3, 4)
        np.testing.assert_array_equal(getattr(mem, name), want, err_msg=name)
        np.testing.assert_array_equal(getattr(files, name), want, err_msg=name)
    # the outputs' grid: the first date's, moved by the window's yoff (2
    # input rows) and scaled by the looks
    assert files.geotransform == (500000.0, 30.0, 0.0, 4000000.0 - 2 * 5.0, 0.0, -10.0)
    assert "\"central_meridian\",9]" in files.projection and files.dates == 6 and files.complex  # UTM zone 32


def test_stack_real_npy_dates_match_the_command(dev, cli, tmp_path):
    x = RNG.gamma(3.0, 2.0, (4, 9, 10)).astype(np.float32)
    paths = [tmp_path / f"i{k}.npy" for k in range(4)]
    for p, d in zip(paths, x):
        np.save(p, d)
    out = tmp_path / "out"
    cli(dev, "stack", "--looks", "3", "--quantity", "amplitude", "--filter", "refined-lee", "--filter-size", "5",
        "--format", "npy", "--stat", "mean,std", "--out-dir", out, *paths)
    for dates, copied in ((x, ()), (paths, ()), (list(x.astype(np.float64)), ("date0", "date1", "date2", "date3"))):
        r = dev.stack(dates, looks="3x3", quantity="amplitude", filter="refined-lee", stat=["mean", "std"])
        assert dev._last_copied == copied  # a float32 cube lent as it is; float64 dates converted once
        assert r.names == ("mean", "std") and r.cv is None
        for name in r.names:
            np.testing.assert_array_equal(getattr(r, name), np.load(out / f"{name}.npy"), err_msg=name)


def test_stack_bad_input(dev, tmp_path):
    s = slc_dates(3, 6, 6)
    with pytest.raises(ValueError, match="every date must have the first's shape and type"):
        dev.stack([s[0], s[1][:5]])
    with pytest.raises(ValueError, match=r"window 0,0,2,8 \(xoff, yoff, xsize, ysize, as GDAL's -srcwin, in input pixels\) lies outside the 6×6 \(width×height\) image"):
        dev.stack(s, looks=2, window=(0, 0, 2, 8))
    with pytest.raises(ValueError, match=r"^filter_size: want an odd window of at least 3 for filter boxcar, got 4$"):
        dev.stack(s, filter="boxcar", filter_size=4)
    with pytest.raises(ValueError, match=r"^enl goes with the Lee filters \(filter lee or refined-lee\)$"):
        dev.stack(s, filter="boxcar", enl=3)
    with pytest.raises(ValueError, match='^quantity: want intensity or amplitude, got "power"$'):
        dev.stack(s, quantity="power")
    with pytest.raises(ValueError, match='unknown "median"'):
        dev.stack(s, stat="median")
    with pytest.raises(ValueError, match="paths or arrays, not both"):
        dev.stack([s[0], str(tmp_path / "x.npy")])
    with pytest.raises(ValueError, match=r"dates has shape \(6, 6\); want one \(T, H, W\) array"):
        dev.stack(s[0])
    with pytest.raises(FileNotFoundError):
        dev.stack([str(tmp_path / "missing.tif")])
    a = tmp_path / "a.npy"
    np.save(a, np.ones((4, 4), np.float32))
    b = tmp_path / "b.npy"
    np.save(b, np.ones((4, 5), np.float32))
    with pytest.raises(ValueError, match="every date must have the first's size"):
        dev.stack([a, b])


def test_stack_on_files_runs_on_the_worker(tmp_path):
    """Reading files may take long whatever the arrays' size: the call runs
    on the session's thread, where Ctrl-C cancels it between strips."""
    paths = [tmp_path / f"i{k}.npy" for k in range(2)]
    for k, p in enumerate(paths):
        np.save(p, np.full((4, 4), k + 1, np.float32))
    with vkstat.open("cpu") as s:
        r = s.stack(paths, stat="mean")
        assert s._q is not None
    np.testing.assert_array_equal(r.mean, 1.5)


def georeferenced(tmp_path):
    """Three ENVI dates on a 10 m × 5 m UTM grid, and their stack with
    2×3 looks."""
    s = slc_dates(3, 8, 9)
    paths = []
    for i, d in enumerate(s):
        paths.append(tmp_path / f"d{i}.slc")
        write_envi(paths[-1], d, "UTM, 1, 1, 500000, 4000000, 10, 5, 32, North, WGS-84")
    return vkstat.stack(paths, looks=(2, 3), stat="mean,count")


def test_stack_affine(tmp_path):
    """Issue 33, item 10: the outputs' grid as rasterio's Affine."""
    affine = pytest.importorskip("affine", reason="the affine package (rasterio's transform type) is not installed")
    r = georeferenced(tmp_path)
    a = r.affine()
    assert isinstance(a, affine.Affine) and a.to_gdal() == r.geotransform
    assert a * (0, 0) == (500000.0, 4000000.0) and a * (1, 1) == (500030.0, 4000000.0 - 10.0)  # columns of 3×10 m, rows of 2×5 m
    with pytest.raises(ValueError, match="no geotransform"):
        vkstat.stack(slc_dates(2, 4, 4)).affine()


def test_stack_to_xarray(tmp_path):
    """Issue 33, item 10: the statistics as an xarray Dataset on the map's
    coordinates (pixel centres), with rioxarray's CRS where it is
    installed."""
    pytest.importorskip("xarray", reason="xarray is not installed")
    r = georeferenced(tmp_path)
    ds = r.to_xarray()
    assert list(ds.data_vars) == ["mean", "count"] and ds["mean"].dims == ("y", "x")
    np.testing.assert_array_equal(ds["mean"].values, r.mean)
    np.testing.assert_array_equal(ds.x.values, 500000 + 30 * (np.arange(3) + 0.5))
    np.testing.assert_array_equal(ds.y.values, 4000000 - 10 * (np.arange(4) + 0.5))
    assert ds.attrs["geotransform"] == r.geotransform and "WGS" in ds.attrs["crs_wkt"]
    try:
        import rioxarray  # noqa: F401
    except ImportError:
        return
    assert ds.rio.crs is not None and ds.rio.transform().to_gdal() == r.geotransform


@pytest.mark.parametrize("quantity,k", [("intensity", 10), ("amplitude", 20)])
def test_stack_db(dev, quantity, k):
    """db=True (--db): mean, min and max in decibels, std and cv linear."""
    s = slc_dates()
    lin = dev.stack(list(s), looks=2, quantity=quantity)
    db = dev.stack(list(s), looks=2, quantity=quantity, db=True)
    for name in ("mean", "min", "max"):
        np.testing.assert_allclose(getattr(db, name), k * np.log10(getattr(lin, name).astype(np.float64)), rtol=1e-6,
                                   atol=1e-5)
    for name in ("std", "cv", "count", "samples"):
        np.testing.assert_array_equal(getattr(db, name), getattr(lin, name))


def test_stack_to_xarray_time(tmp_path):
    """Issue 40, item 8: to_xarray() has a time coordinate of the dates the
    statistics are over: from the file names (Sentinel-1's YYYYMMDDTHHMMSS,
    or YYYY-MM-DD), or given; NaT where a name holds no date."""
    pytest.importorskip("xarray", reason="xarray is not installed")
    s = slc_dates(3, 8, 9)
    names = ["S1A_IW_SLC__1SDV_20240103T052614_x.slc", "S1A_IW_SLC__1SDV_20240115T052613_x.slc", "rtc_2024-01-27.slc"]
    paths = []
    for n, d in zip(names, s):
        paths.append(tmp_path / n)
        write_envi(paths[-1], d, "UTM, 1, 1, 500000, 4000000, 10, 5, 32, North, WGS-84")
    r = vkstat.stack(paths, looks=(2, 3), stat="mean,count")
    assert r.date_names == tuple(names)
    ds = r.to_xarray()
    want = np.array(["2024-01-03", "2024-01-15", "2024-01-27"], dtype="datetime64[ns]")
    np.testing.assert_array_equal(ds.time.values, want)
    assert list(ds.date.values) == names and ds["count"].dtype == np.int32
    given = r.to_xarray(times=["2020-05-01", "2020-05-13", "2020-05-25"])
    assert given.time.values[1] == np.datetime64("2020-05-13", "ns")
    with pytest.raises(ValueError, match="one per date"):
        r.to_xarray(times=["2020-05-01"])
    ds = vkstat.stack(s, stat="mean").to_xarray()  # arrays: no date in their names
    assert ds.sizes["time"] == 3 and np.isnat(ds.time.values).all()


def test_stack_band_of_a_npy_date(cpu, tmp_path):
    """Issue 34: band= on .npy dates, which have one band, is refused, not
    ignored; band 0 is refused everywhere."""
    paths = [tmp_path / f"i{k}.npy" for k in range(2)]
    for p in paths:
        np.save(p, np.ones((4, 4), np.float32))
    np.testing.assert_array_equal(cpu.stack(paths, band=1, stat="mean").mean, 1)
    with pytest.raises(ValueError, match="band 2: a .npy or FITS date has one band"):
        cpu.stack(paths, band=2)
    with pytest.raises(ValueError, match="bands are numbered from 1, got 0"):
        cpu.stack(paths, band=0)
    with pytest.raises(ValueError, match="band is for dates read from files"):
        cpu.stack(np.ones((2, 4, 4), np.float32), band=2)


def test_stack_looks_as_the_command_takes_them(cpu):
    """The multilook box is parsed by the library, as --looks is: 4, (2, 8),
    "2x8", "2×8"; anything else refused in its words."""
    x = np.ones((2, 8, 16), np.float32)
    for looks in (2, (2, 4), "2x4", "2×4", "2,4", [2, 4]):
        r = cpu.stack(x, looks=looks, stat="mean")
        assert r.mean.shape == (4, 8 if looks == 2 else 4), looks
    for bad, words in (("3x4x5", 'looks "3x4x5": want a×r'), (0, 'looks "0": want two positive integers'),
                       ((2, 3, 4), 'looks "2,3,4": want a×r'), (2.5, 'looks "2.5": want two positive integers')):
        with pytest.raises(ValueError, match=words):
            cpu.stack(x, looks=bad)
