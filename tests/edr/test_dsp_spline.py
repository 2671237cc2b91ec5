"""edr.dsp.spline.cubic_spline against scipy.interpolate.CubicSpline (not-a-knot): the same
numbers bit for bit; and make_interp_spline(k=3), the same spline to rounding."""

import numpy as np
import pytest
from scipy import interpolate

from edr.dsp.spline import cubic_spline


@pytest.mark.parametrize("n", [4, 5, 8, 60, 500])
@pytest.mark.parametrize("columns", [None, 1, 3])
def test_cubic_spline_is_scipys(n, columns):
    rng = np.random.default_rng(n)
    x = np.cumsum(rng.uniform(0.3, 1.5, n))  # irregular, as beat times
    y = rng.standard_normal(n if columns is None else (n, columns))
    inside = np.linspace(x[0], x[-1], 4 * n + 3)
    outside = np.r_[x[0] - 2.0, x, x[-1] + 1.0]  # at the knots and beyond the ends
    for q in (inside, outside):
        np.testing.assert_array_equal(cubic_spline(x, y, q), interpolate.CubicSpline(x, y)(q))
    np.testing.assert_allclose(cubic_spline(x, y, inside),
                               interpolate.make_interp_spline(x, y, k=3)(inside),
                               rtol=1e-10, atol=1e-11 * np.abs(y).max())


def test_cubic_spline_reproduces_a_cubic():
    x = np.array([0.0, 0.5, 2.0, 3.0, 4.5])
    q = np.linspace(-1.0, 5.0, 41)
    np.testing.assert_allclose(cubic_spline(x, x ** 3 - x, q), q ** 3 - q, atol=1e-10)


@pytest.mark.parametrize(("x", "y"), [(np.arange(3.0), np.zeros(3)),
                                      (np.array([0.0, 1, 1, 2]), np.zeros(4)),
                                      (np.arange(4.0), np.zeros(5))])
def test_cubic_spline_rejects_bad_knots(x, y):
    with pytest.raises(ValueError):
        cubic_spline(x, y, x)
