"""The reference of scale.comp for scale_reference_sweep.json: vkstat calls
scale(**inputs_and_constants) with the bindings as NumPy arrays (x, y) and
the push constants as numbers (a, n), and compares y with what it returns."""
import numpy as np


def scale(x, a, **_):
    return a * x.astype(np.float64)
