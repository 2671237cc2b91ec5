"""edr.dsp.peaks.find_peaks against scipy.signal.find_peaks: the same indices and prominences,
bit for bit."""

import numpy as np
import pytest
from scipy import signal

from edr.dsp.peaks import find_peaks


def _signals():
    rng = np.random.default_rng(5)
    out = [np.array([]), np.array([1.0]), np.array([0.0, 1.0]), np.array([0.0, 1.0, 0.0]),
           np.zeros(9), np.array([0.0, 1, 1, 1, 0]), np.array([0.0, 1, 1, 2, 2, 1, 1, 0]),
           np.array([1.0, 0, 0, 1]), np.array([0.0, 2, 2, 2, 2, 3])]
    for _ in range(200):  # rounded: plateaus and ties
        out.append(np.round(rng.standard_normal(int(rng.integers(3, 300))) * 2) / 2)
    for _ in range(20):  # smooth, breathing-like
        t = np.arange(int(rng.integers(50, 2000))) / 4.0
        out.append(np.sin(2 * np.pi * 0.25 * t) + 0.3 * rng.standard_normal(t.size))
    for sign in (1.0, -1.0):  # peak heights rising (or falling) all along: long base searches
        t = np.arange(3000) / 4.0
        out.append(sign * (1 + t / 100) * np.sin(2 * np.pi * 0.25 * t)
                   + 0.05 * rng.standard_normal(t.size))
    return out


@pytest.mark.parametrize("prominence", [None, 0.0, 0.5, 1.3, (None, None), (0.2, 1.0),
                                        (None, 0.7)])
def test_find_peaks_is_scipys(prominence):
    for x in _signals():
        idx, props = find_peaks(x, prominence=prominence)
        want, want_props = signal.find_peaks(x, prominence=prominence)
        np.testing.assert_array_equal(idx, want)
        if prominence is not None:
            np.testing.assert_array_equal(props["prominences"], want_props["prominences"])


def test_find_peaks_rejects_2d():
    with pytest.raises(ValueError):
        find_peaks(np.zeros((3, 3)))
