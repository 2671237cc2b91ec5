"""edr.pauses against slow, obviously-correct references."""

from __future__ import annotations

import numpy as np
import pytest

from edr.pauses import find_pauses, typical_intervals


def _slow_typical(iv, context=5):
    out = []
    for i in range(len(iv)):
        around = [iv[j] for j in range(i - context, i + context + 1)
                  if j != i and 0 <= j < len(iv) and np.isfinite(iv[j])]
        out.append(np.median(around) if around else np.nan)
    return np.array(out)


def _slow_pauses(t, iv, good, pause_s=10.0):
    typ = _slow_typical(iv)
    after = [i > 0 and np.isfinite(iv[i]) and iv[i] - (typ[i] if np.isfinite(typ[i]) else 0)
             > pause_s and good[i] and good[i - 1] for i in range(len(t))]
    return [[t[i] - iv[i], t[i]] for i in range(len(t)) if after[i]], after


@pytest.mark.parametrize("seed", range(30))
def test_pauses_against_a_loop(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 60))
    iv = rng.choice([3.0, 4.0, 6.0, 11.0, 25.0, 40.0], n, p=[0.3, 0.3, 0.2, 0.1, 0.05, 0.05])
    iv = iv + rng.uniform(-0.5, 0.5, n)
    t = np.cumsum(iv)
    iv[rng.random(n) < 0.1] = np.nan
    if n:
        iv[0] = np.nan
    good = rng.random(n) < 0.9
    np.testing.assert_allclose(typical_intervals(iv), _slow_typical(iv))
    pauses, after = find_pauses(t, iv, good)
    slow, slow_after = _slow_pauses(t, iv, good)
    np.testing.assert_allclose(pauses.reshape(-1, 2), np.reshape(slow, (-1, 2)))
    np.testing.assert_array_equal(after, slow_after)


def test_a_pause_is_time_beyond_a_normal_breath():
    t = np.arange(0.0, 200.0, 10.0)  # 6 /min
    iv = np.r_[np.nan, np.diff(t)]
    assert find_pauses(t, iv, np.ones(t.size, bool))[0].size == 0
    t2 = np.r_[t[:10], t[10:] + 10.5]  # one 20.5 s gap in 10 s breathing
    p, after = find_pauses(t2, np.r_[np.nan, np.diff(t2)], np.ones(t2.size, bool))
    assert p.tolist() == [[90.0, 110.5]] and after.sum() == 1
    fast = np.arange(0.0, 100.0, 3.0)
    missed = np.delete(fast, [10, 11, 12])  # 12 s without a detected breath at 20 /min
    assert find_pauses(missed, np.r_[np.nan, np.diff(missed)],
                       np.ones(missed.size, bool))[0].size == 0


def test_bad_arguments():
    with pytest.raises(ValueError, match="one length"):
        find_pauses([1.0, 2.0], [np.nan], [True, True])
    with pytest.raises(ValueError, match="pause_s"):
        find_pauses([1.0], [np.nan], [True], pause_s=0)


@pytest.mark.parametrize("seed", range(5))
def test_row_percentile_is_nanpercentile(seed):
    from edr._rowstats import row_percentile

    rng = np.random.default_rng(seed)
    rows = rng.standard_normal((50, 7))
    rows[rng.random(rows.shape) < 0.4] = np.nan
    rows[3] = np.nan
    for q in (0.0, 25.0, 50.0, 75.0, 100.0):
        with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
            expected = np.nanpercentile(rows, q, axis=1)
        np.testing.assert_allclose(row_percentile(rows, q), expected, equal_nan=True)
