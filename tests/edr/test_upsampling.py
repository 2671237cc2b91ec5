"""edr.upsampling against scipy.signal.resample_poly: the same fine samples."""

import numpy as np
import pytest
from scipy import signal

from edr.upsampling import MARGIN, neighbourhoods_upsampled


@pytest.mark.parametrize(("up", "half"),
                         [(10, 14), (10, 12), (2, 12), (3, 4), (10, 0), (4, 60), (3, 0)])
def test_neighbourhoods_are_resample_polys_fine_samples(up, half):
    x = np.random.default_rng(up + half).standard_normal(300).cumsum()
    centres = np.array([0, 5, 150, 290, 299])  # edges held beyond both ends
    got = neighbourhoods_upsampled(x, centres, up, half)
    h = half + MARGIN
    rows = np.pad(x, h, mode="edge")[centres[:, None] + h + np.arange(-h, h + 1)[None, :]]
    ref = signal.resample_poly(rows, up, 1, axis=1)
    np.testing.assert_array_equal(got, ref[:, (h - half) * up:(h + half) * up + 1])


def test_upsampling_by_one_keeps_the_samples():
    x = np.random.default_rng(4).standard_normal(100)
    got = neighbourhoods_upsampled(x, np.array([0, 50, 99]), 1, 3)
    np.testing.assert_array_equal(got[1], x[47:54])
    np.testing.assert_array_equal(got[0], np.r_[[x[0]] * 3, x[:4]])  # edge values held
