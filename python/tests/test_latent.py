"""vkstat.latent against the command line's files on the same data (every
array, and the summary's numbers), and against NumPy for the statistics it
computes independently, on the CPU path and lavapipe."""

import json

import numpy as np
import pytest

import vkstat

RNG = np.random.default_rng(20261127)


def to_bf16(a):
    """float32 rounded to bfloat16 (nearest, ties to even), as raw uint16
    patterns, and those values widened back to float32."""
    u = np.ascontiguousarray(a, np.float32).view(np.uint32)
    b = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return b, (b.astype(np.uint32) << 16).view(np.float32)


def latent_data(shape=(3, 4, 5, 8, 8), odd=True):
    """A latent with correlated channels and frames; with odd, a NaN (the
    last sample and channel) and a constant channel (sample 1, the last
    channel but one), so that the notes say something."""
    n, c, f, h, w = shape
    z = RNG.standard_normal((n, c, f, h, w))
    z[:, 1] = 0.8 * z[:, 0] + 0.6 * z[:, 1]                # channel 1 follows channel 0
    z[:, :, 1:] = 0.7 * z[:, :, :-1] + 0.5 * z[:, :, 1:]    # frame f follows frame f − 1
    z = z * np.arange(1, c + 1)[None, :, None, None, None] + 3
    if odd:
        z[1, c - 2] = 5.0
        z[n - 1, c - 1, f // 2, h // 2, w // 2] = np.nan
    return z


def as_dtype(z, dt):
    """z in dtype dt ("bfloat16": '<V2' patterns, as ml_dtypes saves them),
    and the values the library reads."""
    if dt == "bfloat16":
        b, wide = to_bf16(z.astype(np.float32))
        return b.view(np.dtype("V2")), wide.astype(np.float64)
    x = z.astype(dt)
    return x, x.astype(np.float64)


def run_cli(cli, dev, tmp_path, x, *args):
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "out"
    cli(dev, "latent", "--in", tmp_path / "x.npy", "--out-dir", out, *args)
    return out, json.loads((out / "summary.json").read_text(encoding="utf-8"))


MOMENTS = ("mean", "var", "std", "min", "max", "skew", "kurt")


def same(a, b, what, computed="float64"):
    """Bit-identical, NaN where NaN: the command and the package run the
    same library on the same values. The command writes float64 files;
    Python's moments are float32 when computed in float32 or 16-bit (as
    NumPy's mean of float32): the command's values rounded."""
    want = np.float64 if computed == "float64" or what not in MOMENTS else np.float32
    assert a.shape == b.shape and a.dtype == want and b.dtype == np.float64, (what, a.shape, b.shape, a.dtype)
    np.testing.assert_array_equal(a, b.astype(want), err_msg=what)


# The arrays named otherwise than the command's files: the PCA's components
# are rows in Python (scikit-learn's components_), columns in pca_vectors.npy.
FILE = {"pca_components": "pca_vectors"}


def command_file(out, name):
    """The command's file of array name, as Python gives it."""
    a = np.load(out / f"{FILE.get(name, name)}.npy")
    return a.swapaxes(-1, -2) if name == "pca_components" else a


def nums(v):
    """summary.json's numbers (null for NaN) as floats."""
    return np.array([np.nan if x is None else x for x in v], dtype=np.float64)


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16"])
def test_latent_matches_the_command(dev, cli, tmp_path, dt):
    x, _ = as_dtype(latent_data(), dt)
    r = dev.latent(x, "all", axes=(0, 3, 4))
    assert dev._last_copied == ()  # every one of these dtypes is read where it lies
    out, summary = run_cli(cli, dev, tmp_path, x, "--stat", "all", "--axes", "0,3,4")
    files = sorted(p.stem for p in out.glob("*.npy"))
    assert sorted(FILE.get(n, n) for n in r.names) == files and len(files) == 21
    for name, a in r.arrays().items():
        same(a, command_file(out, name), name, r.computed_as)
    assert r.notes == summary["notes"] and r.notes  # the NaN and the constant channel
    assert (r.nans, r.infs) == (summary["nans"], summary["infs"]) == (1, 0)
    assert list(r.axes) == summary["moments"]["axes"] == [0, 3, 4]
    assert r.computed_as == summary["input"]["computed_as"]
    np.testing.assert_array_equal(r.mean_corr.ravel(), nums(summary["corr"]["mean_over_samples"]))
    np.testing.assert_array_equal(r.lag_means, nums(summary["lagcorr"]["mean_by_lag"]))
    np.testing.assert_array_equal(r.pca_mean_ratio, nums(summary["pca"]["mean_ratio"]))
    np.testing.assert_array_equal(r.pca_mean_cumulative, nums(summary["pca"]["mean_cumulative"]))
    np.testing.assert_array_equal(r.radial_bin_radius, nums(summary["spectra"]["radial_bin_mean_radius"]))
    assert r.lags == summary["lagcorr"]["lags"] == 3
    assert r.batches["batches"] == summary["batches"]["batches"] == 1


def test_latent_skip_and_options_match_the_command(dev, cli, tmp_path):
    x, _ = as_dtype(latent_data((2, 3, 4, 6, 6)), "bfloat16")
    r = dev.latent(x, "moments,corr-frames,lagcorr,pca", axes=(1, 3), lags=2, nan="skip", ddof=1, precision="f32")
    out, summary = run_cli(cli, dev, tmp_path, x, "--stat", "moments,corr-frames,lagcorr,pca", "--axes", "1,3",
                           "--lags", "2", "--nan", "skip", "--ddof", "1")
    assert r.computed_as == "float32" and summary["input"]["computed_as"] == "bfloat16"
    # the command computes as stored (bfloat16 widened exactly): the same values as the float32 conversion
    for name, a in r.arrays().items():
        tol = 1e-12 if a.dtype == np.float64 else 1e-7  # the moments are float32 (computed in float32)
        np.testing.assert_allclose(a, command_file(out, name), rtol=tol, atol=tol * 1e-2, err_msg=name)
    assert r.notes == summary["notes"] and r.nan_policy == "skip" and r.lags == 2


def corrcoef_rows(v):
    """np.corrcoef of the rows of v (variables × observations)."""
    return np.corrcoef(v)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_latent_against_numpy(dev, dt):
    x, ref = as_dtype(latent_data((2, 3, 4, 6, 7), odd=False), dt)
    r = dev.latent(x, "moments,corr,corr-frames,lagcorr,pca", axes=(1, 3, 4), ddof=1)
    rtol = 1e-5 if dt == "float32" else 1e-11
    ax = (1, 3, 4)
    m = ref.mean(axis=ax, keepdims=True)
    m2, m3, m4 = (((ref - m) ** k).mean(axis=ax) for k in (2, 3, 4))
    want = {"mean": ref.mean(axis=ax), "var": ref.var(axis=ax, ddof=1), "std": ref.std(axis=ax, ddof=1),
            "min": ref.min(axis=ax), "max": ref.max(axis=ax), "skew": m3 / m2 ** 1.5, "kurt": m4 / m2 ** 2 - 3}
    for name, w in want.items():
        assert getattr(r, name).dtype == x.dtype, name  # as np.mean(float32) is float32
        np.testing.assert_allclose(getattr(r, name), w, rtol=rtol, atol=rtol, err_msg=name)
    n, c, f = ref.shape[:3]
    for s in range(n):
        np.testing.assert_allclose(r.corr[s], corrcoef_rows(ref[s].reshape(c, -1)), rtol=rtol, atol=rtol)
        for t in range(f):
            np.testing.assert_allclose(r.corr_frames[s, t], corrcoef_rows(ref[s, :, t].reshape(c, -1)), rtol=rtol, atol=rtol)
        for ch in range(c):
            fc = corrcoef_rows(ref[s, ch].reshape(f, -1))
            np.testing.assert_allclose(r.frame_corr[s, ch], fc, rtol=rtol, atol=rtol)
            lagged = [np.mean([fc[i, i + lag] for i in range(f - lag)]) for lag in (1, 2, 3)]
            np.testing.assert_allclose(r.lagcorr[s, ch], lagged, rtol=rtol, atol=rtol)
        cv = np.cov(ref[s].reshape(c, -1))
        ev = np.linalg.eigvalsh(cv)[::-1]
        np.testing.assert_allclose(r.pca_values[s], ev, rtol=rtol * 10, atol=rtol * ev[0])
        np.testing.assert_allclose(r.pca_ratio[s], ev / ev.sum(), rtol=rtol * 10, atol=rtol)
        # the components are rows, as scikit-learn's components_: C·v_k = λ_k·v_k
        # for v_k = pca_components[s, k], orthonormal
        comp = r.pca_components[s]
        np.testing.assert_allclose(comp @ cv, ev[:, None] * comp, atol=rtol * 10 * ev[0])
        np.testing.assert_allclose(comp @ comp.T, np.eye(c), atol=rtol * 10)
    np.testing.assert_allclose(r.mean_corr, r.corr.mean(axis=0), rtol=1e-14)


def test_latent_nan_skip_is_nanmean(dev):
    z = latent_data((2, 3, 2, 5, 5))
    r = dev.latent(z, "moments", axes=(-2, -1), nan="skip")
    np.testing.assert_allclose(r.mean, np.nanmean(z, axis=(-2, -1)), rtol=1e-13)
    np.testing.assert_allclose(r.var, np.nanvar(z, axis=(-2, -1)), rtol=1e-12, atol=1e-15)
    p = dev.latent(z, "moments")  # propagate: the frame with the NaN is NaN, no other
    np.testing.assert_array_equal(np.isnan(p.mean), np.isnan(z).any(axis=(-2, -1)))
    assert np.isnan(p.mean).sum() == 1


def test_latent_bad_input(dev):
    x = np.zeros((2, 3, 4, 5, 5), np.float32)
    with pytest.raises(ValueError, match="lags must be 1..F−1 = 3, got 4"):
        dev.latent(x, "lagcorr", lags=4)
    with pytest.raises(ValueError, match="axis 5 is out of range"):
        dev.latent(x, "moments", axes=(5,))
    with pytest.raises(ValueError, match='unknown "mom"'):
        dev.latent(x, "mom")
    with pytest.raises(ValueError, match=r"want a 5-d \(N, C, F, H, W\) or 4-d"):
        dev.latent(np.zeros((3, 4)), "corr")
    with pytest.raises(ValueError, match="unknown NaN policy"):
        dev.latent(x, nan="drop")
    with pytest.warns(RuntimeWarning, match=r"^ddof 2 with 2 value\(s\) over axes \[0\]: var and std are NaN \(they divide by n − ddof\)$"):
        dev.latent(x, "moments", axes=(0,), ddof=2)


def test_latent_corr_at_extreme_values(dev):
    """Values whose variances' product overflows float64 (1e100): the
    correlations are np.corrcoef's ±1, not ∓0."""
    x = np.array([[1e-100, 1e100], [1e100, 1e-100]]).reshape(1, 2, 1, 1, 2)
    got = dev.latent(x, "corr").corr[0]
    np.testing.assert_array_equal(got, np.corrcoef(x[0].reshape(2, -1)))
    np.testing.assert_array_equal(got, [[1, -1], [-1, 1]])


def svd_flip_v(vt):
    """Rows of vt signed as scikit-learn's PCA signs components_ (since
    1.5: svd_flip(U, Vt, u_based_decision=False)): each row's first
    largest-magnitude entry positive."""
    big = np.argmax(np.abs(vt), axis=1)
    return vt * np.sign(vt[np.arange(len(vt)), big])[:, None]


def test_latent_pca_signs_are_scikit_learns(dev):
    """pca_components against scikit-learn's PCA made from NumPy's SVD of
    the centred observations (observations = frames × pixels, features =
    channels), signed as svd_flip signs them: equal signs on every
    component, not up to sign. With scikit-learn installed, against its
    PCA too (≥ 1.5; older ones sign by the scores, see docs/latent.md)."""
    x = latent_data((3, 5, 4, 6, 6), odd=False)
    r = dev.latent(x, "pca")
    n, c = x.shape[:2]
    for s in range(n):
        obs = x[s].reshape(c, -1).T
        _, _, vt = np.linalg.svd(obs - obs.mean(axis=0), full_matrices=False)
        want = svd_flip_v(vt)
        np.testing.assert_allclose(r.pca_components[s], want, atol=1e-9)
        np.testing.assert_array_equal(np.sign(r.pca_components[s]), np.sign(want))
    try:
        import sklearn
        from sklearn.decomposition import PCA
    except ImportError:
        return
    if tuple(int(p) for p in sklearn.__version__.split(".")[:2]) < (1, 5):
        return
    for s in range(n):
        pca = PCA().fit(x[s].reshape(c, -1).T)
        np.testing.assert_allclose(r.pca_components[s], pca.components_, atol=1e-9)


def test_latent_moments_of_empty_slices(dev):
    """Moments over an axis of length 0 are NaN with a RuntimeWarning, as
    np.mean and np.var give them, on every device (lavapipe raised
    DeviceError, the CPU path InputError)."""
    x = np.zeros((2, 3, 4, 0, 5), np.float32)
    with pytest.warns(RuntimeWarning, match=r"an axis of length 0\): every moment is NaN"):
        r = dev.latent(x, "moments")
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        want = np.mean(x, axis=(-2, -1))
    for name in ("mean", "var", "std", "min", "max", "skew", "kurt"):
        got = getattr(r, name)
        assert got.shape == want.shape and np.isnan(got).all(), name


def test_latent_spatial_slope_per_sample(dev):
    """spatial_slope is (N, C), as every other spectrum output (issue 40,
    item 10): each (sample, channel)'s least-squares log-log slope of its
    radial spectrum over bins 1 … K−1, as np.polyfit fits it."""
    x = np.random.default_rng(4).standard_normal((3, 2, 2, 12, 12)).cumsum(axis=-1)
    r = dev.latent(x, "spectra")
    assert r.spatial_slope.shape == r.spatial_centroid.shape == (3, 2)
    k = np.log(r.radial_bin_radius[1:])
    for n in range(3):
        for c in range(2):
            want = np.polyfit(k, np.log(r.spatial_spectrum[n, c, 1:]), 1)[0]
            np.testing.assert_allclose(r.spatial_slope[n, c], want, rtol=1e-10)
