"""Tests of edr.evaluate.agreement against hand-worked numbers."""

import math

import numpy as np
import pytest

from edr.evaluate.agreement import Agreement, agreement, paired_windows


def test_hand_worked_example():
    # windows: ref rate missing in the last one (not a window of the evaluation);
    # EDR abstained in the fourth (counts against coverage only)
    edr = [12.0, 15.0, 10.0, np.nan, 20.0]
    ref = [10.0, 15.0, 13.0, 14.0, np.nan]
    a = agreement(edr, ref)
    # errors e = edr - ref = 2, 0, -3
    assert (a.n_windows, a.n_paired) == (4, 3)
    assert a.coverage == pytest.approx(3 / 4)
    assert a.bias == pytest.approx(-1 / 3)
    # SD (ddof 1): deviations 7/3, 1/3, -8/3 -> (49 + 1 + 64) / 9 / 2 = 19/3
    sd = math.sqrt(19 / 3)
    assert a.loa_low == pytest.approx(-1 / 3 - 1.96 * sd)
    assert a.loa_high == pytest.approx(-1 / 3 + 1.96 * sd)
    assert a.loa_low == pytest.approx(-5.265891, abs=1e-6) and a.loa_high == pytest.approx(4.599225,
                                                                                           abs=1e-6)
    assert a.mae == pytest.approx(5 / 3)
    assert a.rmse == pytest.approx(math.sqrt(13 / 3))
    assert a.within_2bpm == pytest.approx(2 / 3)  # |2| <= 2 counts


def test_perfect_agreement_and_single_window():
    a = agreement([10.0, 12.0], [10.0, 12.0])
    assert (a.bias, a.loa_low, a.loa_high, a.mae, a.rmse, a.within_2bpm, a.coverage) == (0,
                                                                                         0, 0, 0, 0,
                                                                                         1, 1)
    one = agreement([11.0], [10.0])
    assert (one.bias == 1.0 and one.mae == 1.0 and math.isnan(one.loa_low)
            and math.isnan(one.loa_high))


def test_no_windows_and_full_abstention():
    empty = agreement([], [])
    assert isinstance(empty, Agreement) and empty.n_windows == 0 and math.isnan(empty.coverage)
    abstained = agreement([np.nan, np.nan], [12.0, 14.0])
    assert (abstained.n_windows, abstained.n_paired, abstained.coverage) == (2, 0, 0.0)
    assert math.isnan(abstained.bias) and math.isnan(abstained.mae)


def test_paired_windows_and_bad_shapes():
    e, r, n = paired_windows([1.0, np.nan, 3.0], [1.5, 2.0, np.nan])
    assert e.tolist() == [1.0] and r.tolist() == [1.5] and n == 2
    with pytest.raises(ValueError, match="same length"):
        agreement([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="one-dimensional"):
        agreement([[1.0]], [[1.0]])
