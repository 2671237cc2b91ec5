"""edr.dsp.moments against scipy.stats.skew and ttest_1samp."""

import warnings

import numpy as np
import pytest
from scipy import stats

from edr.dsp.moments import skew, ttest_1samp_pvalue


@pytest.mark.parametrize("shape", [(40,), (7, 120), (3, 2)])
def test_skew_is_scipys(shape):
    x = np.random.default_rng(sum(shape)).standard_normal(shape) ** 3
    np.testing.assert_allclose(skew(x, axis=-1), stats.skew(x, axis=-1), rtol=1e-12)
    x[..., 0] = np.nan
    np.testing.assert_array_equal(np.isnan(skew(x)), np.isnan(stats.skew(x, axis=-1)))


def test_skew_of_constant_rows_is_nan_as_scipys():
    x = np.vstack([np.full(10, 3.0), np.arange(10.0) ** 2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # SciPy's precision-loss warning
        want = stats.skew(x, axis=1)
    got = skew(x, axis=1)
    assert np.isnan(got[0]) and np.isnan(want[0])
    assert got[1] == pytest.approx(want[1], rel=1e-12)


@pytest.mark.parametrize("n", [2, 3, 10, 200])
@pytest.mark.parametrize("shift", [0.0, 0.3, 2.0])
def test_ttest_pvalue_is_scipys(n, shift):
    x = np.random.default_rng(n).standard_normal(n) + shift
    for popmean in (0.0, 0.5):
        assert ttest_1samp_pvalue(x, popmean) == pytest.approx(
            float(stats.ttest_1samp(x, popmean).pvalue), rel=1e-10, abs=1e-300)


def test_ttest_needs_two_values():
    with pytest.raises(ValueError):
        ttest_1samp_pvalue([1.0])
