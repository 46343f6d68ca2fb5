"""Writes the astropy_*.fits reference files and their expected values.

Run from this folder with astropy (Debian: apt-get install python3-astropy):
    python3 make_astropy.py
Each NAME.fits gets NAME.npy: the float64 values a reader must return after
BSCALE/BZERO/BLANK (NaN where BLANK), in C order (T, H, W).
"""
import gzip
import shutil

import numpy as np
from astropy.io import fits

rng = np.random.default_rng(7)


def save(name, hdus, expected):
    fits.HDUList(hdus).writeto(name + ".fits", overwrite=True, checksum=True)
    np.save(name + ".npy", np.asarray(expected, dtype=np.float64))


# uint16: BITPIX 16 with BZERO 32768.
u16 = rng.integers(0, 65536, size=(3, 4, 5), dtype=np.uint16)
save("astropy_u16", [fits.PrimaryHDU(u16)], u16)

# int8: BITPIX 8 with BZERO -128.
i8 = rng.integers(-128, 128, size=(4, 6), dtype=np.int8)
save("astropy_i8", [fits.PrimaryHDU(i8)], i8)

# Floats stored as scaled int16: BSCALE 0.01, BZERO 100.
f = np.round(rng.normal(100, 50, size=(5, 7)), 2)
h = fits.PrimaryHDU(f.copy())
h.scale("int16", bscale=0.01, bzero=100)
raw = np.round((f - 100) / 0.01).astype(np.int16)
save("astropy_scaled_i16", [h], raw.astype(np.float64) * 0.01 + 100)

# int32 with BLANK: blank pixels read as NaN.
i32 = rng.integers(-2**31, 2**31 - 1, size=(2, 3, 4), dtype=np.int64).astype(np.int32)
i32[0, 1, 2] = -999
h = fits.PrimaryHDU(i32)
h.header["BLANK"] = -999
exp = i32.astype(np.float64)
exp[0, 1, 2] = np.nan
save("astropy_i32_blank", [h], exp)

# int64 near its limits.
i64 = np.array([[-2**62, -1, 0], [1, 2**40 + 3, 2**62]], dtype=np.int64)
save("astropy_i64", [fits.PrimaryHDU(i64)], i64)

# An empty primary HDU, a binary table, then a float32 cube in an IMAGE
# extension: the reader skips the table and returns the cube.
cube = rng.normal(size=(3, 5, 4)).astype(np.float32)
table = fits.BinTableHDU.from_columns([fits.Column(name="a", format="J", array=np.arange(10))])
save("astropy_ext", [fits.PrimaryHDU(), table, fits.ImageHDU(cube, name="SCI")], cube)

# float64 with a NaN, gzip-compressed.
f64 = rng.normal(size=(6,))
f64[2] = np.nan
save("astropy_f64", [fits.PrimaryHDU(f64)], f64)
with open("astropy_f64.fits", "rb") as src, gzip.open("astropy_f64.fits.gz", "wb") as dst:
    shutil.copyfileobj(src, dst)
shutil.copy("astropy_f64.npy", "astropy_f64.fits.gz.npy")
