"""edr.dsp.running against scipy.ndimage: the running mean, the sliding extremes and the running
median, bit for bit."""

import numpy as np
import pytest
from scipy import ndimage

from edr.dsp.running import rank_filter_mirror, sliding_max, sliding_min, uniform_filter1d_nearest


def _cases():
    rng = np.random.default_rng(11)
    out = [(np.array([2.5]), 1), (np.array([1.0, -1.0]), 2), (np.zeros(7), 3),
           (np.array([0.0, 1, 1, 1, 0]), 4)]
    for _ in range(300):
        n = int(rng.integers(1, 400))
        x = rng.standard_normal(n) * rng.choice([1e-3, 1.0, 1e4])
        if rng.random() < 0.3:  # ties and plateaus
            x = np.round(x / np.max(np.abs(x)) * 4)
        out.append((x, int(rng.integers(1, n + 1))))
    t = np.arange(5000) / 250.0  # an ECG-like gradient with the detector's kernels
    ecg = np.sin(2 * np.pi * 1.2 * t) ** 15 + 0.01 * rng.standard_normal(t.size)
    grad = np.abs(np.gradient(ecg))
    out += [(grad, 25), (grad, 188), (grad, 500)]
    return out


CASES = _cases()


@pytest.mark.parametrize("k", range(0, len(CASES), 7))
def test_uniform_filter1d_nearest_is_scipys(k):
    x, size = CASES[k]
    for s in {size, max(1, size // 2), min(x.size, 3)}:
        np.testing.assert_array_equal(uniform_filter1d_nearest(x, s),
                                      ndimage.uniform_filter1d(x, s, mode="nearest"))


@pytest.mark.parametrize("k", range(1, len(CASES), 7))
def test_sliding_extremes_are_scipys_valid_part(k):
    x, w = CASES[k]
    valid = slice(w // 2, x.size - (w - 1 - w // 2))
    np.testing.assert_array_equal(sliding_max(x, w), ndimage.maximum_filter1d(x, w)[valid])
    np.testing.assert_array_equal(sliding_min(x, w), ndimage.minimum_filter1d(x, w)[valid])


def test_sliding_extremes_against_brute_force():
    x = np.random.default_rng(3).standard_normal(97)
    for w in (1, 2, 5, 10, 96, 97):
        brute = np.array([x[j:j + w].max() for j in range(x.size - w + 1)])
        np.testing.assert_array_equal(sliding_max(x, w), brute)
        np.testing.assert_array_equal(sliding_min(x, w),
                                      [x[j:j + w].min() for j in range(x.size - w + 1)])


@pytest.mark.parametrize("k", range(2, len(CASES), 7))
def test_rank_filter_mirror_is_scipys_median_filter(k):
    x, size = CASES[k]
    for s in {size, min(x.size, 11), min(x.size, 4)}:
        np.testing.assert_array_equal(rank_filter_mirror(x, s),
                                      ndimage.median_filter(x, size=s, mode="mirror"))


def test_rank_filter_takes_the_upper_middle_for_an_even_window():
    # windows (mirrored) [2, 1, 2, 9], [1, 2, 9, 4], ...: rank 2 of 4, not the mean of the middle
    np.testing.assert_array_equal(rank_filter_mirror([1.0, 2.0, 9.0, 4.0], 4), [2.0, 2.0, 4.0, 9.0])


@pytest.mark.parametrize("call, message", [
    (lambda: uniform_filter1d_nearest([], 1),
     r"non-empty 1-D array and size >= 1, got shape \(0,\)"),
    (lambda: uniform_filter1d_nearest([1.0, 2.0], 0), r"got shape \(2,\), size 0"),
    (lambda: sliding_max(np.ones((2, 2)), 1), r"1 <= w <= its length, got shape \(2, 2\), w 1"),
    (lambda: sliding_min([1.0, 2.0], 3), r"got shape \(2,\), w 3"),
    (lambda: rank_filter_mirror([1.0], 2), r"1 <= size <= its length, got shape \(1,\), size 2"),
])
def test_bad_arguments_raise_and_say_what_they_got(call, message):
    with pytest.raises(ValueError, match=message):
        call()
