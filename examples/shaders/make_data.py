#!/usr/bin/env python3
"""Writes the inputs and expected outputs of the example shaders (NumPy,
float64 arithmetic rounded to float32). Run from anywhere:

    python3 examples/shaders/make_data.py
"""
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(12)


def save(name, a):
    np.save(os.path.join(here, name), a)


# saxpy: y = a·x + y, n = 1000 (not a multiple of the 256-wide workgroup).
x = rng.standard_normal(1000).astype(np.float32)
y = rng.standard_normal(1000).astype(np.float32)
save("saxpy_x.npy", x)
save("saxpy_y.npy", y)
save("saxpy_expected.npy", (2.5 * x.astype(np.float64) + y).astype(np.float32))

# reduce_shared / subgroup_sum: 16 sums of 250 elements each.
data = rng.uniform(-1, 1, 4000).astype(np.float32)
save("reduce_in.npy", data)
save("reduce_expected.npy", data.astype(np.float64).reshape(16, 250).sum(axis=1).astype(np.float32))

# tile_transpose: a 40×48 matrix (not a multiple of the tile).
m = np.arange(40 * 48, dtype=np.float32).reshape(40, 48) / 7
save("tile_in.npy", m)
save("tile_expected.npy", np.ascontiguousarray(m.T))

# saxpy_f16: float16 buffers, the arithmetic in float64 rounded once.
x = rng.standard_normal(1000).astype(np.float16)
y = rng.standard_normal(1000).astype(np.float16)
save("saxpy_f16_x.npy", x)
save("saxpy_f16_y.npy", y)
save("saxpy_f16_expected.npy", (2.5 * x.astype(np.float64) + y).astype(np.float16))

# uniform_params: y = 2·x + 0.5 over the first 999 elements of saxpy's x
# (the last stays 0).
x = np.load(os.path.join(here, "saxpy_x.npy"))
u = (2 * x.astype(np.float64) + 0.5).astype(np.float32)
u[999] = 0
save("uniform_expected.npy", u)

# scale: y = 2.5·x over 3 shapes and 2 types (scale_sweep.json); the values
# (i mod 37 − 18)/8 and 2.5 times them are exact in float16.
for t in ("float32", "float16"):
    for n in (100, 1000, 4099):
        x = ((np.arange(n) % 37 - 18) / 8).astype(t)
        save(f"scale_x_{t}_{n}.npy", x)
        save(f"scale_expected_{t}_{n}.npy", (2.5 * x.astype(np.float64)).astype(t))

# reduce_two_pass.json: reduce_shared twice, the 16 sums of 250 and then
# their sum, against the float64 total of reduce_in.npy.
data = np.load(os.path.join(here, "reduce_in.npy"))
save("reduce_total_expected.npy", np.array([data.astype(np.float64).sum()]).astype(np.float32))

# logreg.json: 100 steps of gradient descent (lr 0.5) for a logistic
# regression on 256 samples of 2 features, from w = 0, in float64.
lr_rng = np.random.default_rng(45)
x = lr_rng.standard_normal((256, 2)).astype(np.float32)
y = (x @ np.array([1.5, -2.0]) + 0.25 + 0.5 * lr_rng.standard_normal(256) > 0).astype(np.float32)
save("logreg_x.npy", x)
save("logreg_y.npy", y)
w = np.zeros(3)
xa = np.hstack([x.astype(np.float64), np.ones((256, 1))])
for _ in range(100):
    d = 1 / (1 + np.exp(-(xa @ w))) - y
    w -= 0.5 * (xa.T @ d) / 256
save("logreg_expected_w.npy", w.astype(np.float32))
