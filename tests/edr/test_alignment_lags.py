"""The alignment's Pearson correlation at every lag (compiled lagged products, running-sum
norms) against its definition, one window at a time."""

import numpy as np

from edr.beats.alignment import _pearson_lags


def test_pearson_lags_are_the_correlations_of_each_window():
    rng = np.random.default_rng(3)
    m, max_lag = 21, 6
    template = np.sin(np.linspace(0, 3, m)) + 0.1 * rng.normal(size=m)
    fine = rng.normal(size=(5, m + 2 * max_lag)).cumsum(axis=1)
    fine[4, 2:2 + m] = 1.5  # a flat window: correlation 0
    got = _pearson_lags(fine, template, max_lag)
    assert got.shape == (5, 2 * max_lag + 1)
    for i in range(5):
        for k in range(2 * max_lag + 1):
            window = fine[i, k:k + m]
            expect = 0.0 if np.ptp(window) == 0 else np.corrcoef(window, template)[0, 1]
            assert abs(got[i, k] - expect) < 1e-10, (i, k)
