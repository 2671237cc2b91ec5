"""Tests of edr.spectra: the spectral concentration and Welch's average over blocks, each
against SciPy's ``welch`` or the definition row by row."""

from __future__ import annotations

import numpy as np
import pytest

from edr import spectra as m
from edr.signal import BAND_HZ, WELCH_SEGMENT_S

FS = 4.0


def test_spectral_concentration_bounds():
    t = np.arange(0, 120, 1 / FS)
    assert m.spectral_concentration(np.sin(2 * np.pi * 0.25 * t)) > 0.9
    assert m.spectral_concentration(np.ones(100)) == 0.0
    assert m.spectral_concentration(np.arange(10.0)) == 0.0


@pytest.mark.parametrize("n,fs", [(1920, 4.0), (700, 3.0), (90, 4.0), (16, 10.0)])
def test_spectral_concentration_equals_scipy_welch(n, fs):
    from scipy import signal as sp_signal

    rng = np.random.default_rng(n)
    x = np.sin(2 * np.pi * 0.3 * np.arange(n) / fs) + 0.5 * rng.standard_normal(n) + 2.0
    nper = min(n, int(round(WELCH_SEGMENT_S * fs)))
    f, p = sp_signal.welch(x - x.mean(), fs=fs, nperseg=nper)
    b = (f >= BAND_HZ[0]) & (f <= BAND_HZ[1])
    fb, pb = f[b], p[b]
    near = np.abs(fb - fb[np.argmax(pb)]) <= m.CONCENTRATION_HALF_WIDTH_HZ
    assert m.spectral_concentration(x, fs) == pb[near].sum() / pb.sum()


@pytest.mark.parametrize("peak_band", [None, (0.1, 0.6)])
def test_spectral_concentration_of_rows_equals_one_row_at_a_time(peak_band):
    rng = np.random.default_rng(3)
    rows = rng.standard_normal((6, 500)).cumsum(axis=1)
    rows[2] = 1.0  # constant
    rows[4, 7] = np.nan  # non-finite
    got = m.spectral_concentration(rows, peak_band=peak_band)
    one = [m.spectral_concentration(r, peak_band=peak_band) for r in rows]
    assert got.shape == (6,) and got.tolist() == one  # identical, not merely close
    assert got[2] == 0.0 and got[4] == 0.0 and np.all(got[[0, 1, 3, 5]] > 0)
    assert m.spectral_concentration(rows[:, :15]).tolist() == [0.0] * 6  # too short
    assert m.spectral_concentration(np.array([])) == 0.0


def test_spectral_concentration_with_a_peak_band_divides_by_the_whole_band():
    t = np.arange(0, 240, 0.25)
    slow, fast = np.sin(2 * np.pi * 4 / 60 * t), 0.5 * np.sin(2 * np.pi * 15 / 60 * t)
    whole = m.spectral_concentration(slow + fast)  # the peak is the slow one
    fast_only = m.spectral_concentration(slow + fast, peak_band=(0.1, 1.0))
    # the 15 /min peak holds about 1/5 of the band power (amplitude 0.5 against 1)
    assert whole > 0.7 and 0.1 < fast_only < 0.3
    assert m.spectral_concentration(fast, peak_band=(0.1, 1.0)) == m.spectral_concentration(fast)
    assert m.spectral_concentration(slow, peak_band=(0.5, 0.6)) < 0.05


@pytest.mark.filterwarnings("ignore:nperseg=1000 is greater than signal length")
@pytest.mark.parametrize("n", [700, 4000, 40_000, 41_234])
def test_welch_in_blocks_is_scipys_welch(n):
    from scipy import signal as sps

    x = np.random.default_rng(n).normal(size=n)
    f_ref, p_ref = sps.welch(x, fs=250.0, nperseg=1000)
    f, p = m.welch_in_blocks(x, 250.0, 1000, block_segments=7)
    np.testing.assert_array_equal(f, f_ref)
    np.testing.assert_allclose(p, p_ref, rtol=1e-12, atol=0)
    x[::97] = np.nan  # NaN samples set to the fill value, the offset removed
    y = np.where(np.isfinite(x), x, 0.25)
    f_ref, p_ref = sps.welch(y - 1.5, fs=250.0, nperseg=1000)
    f, p = m.welch_in_blocks(x, 250.0, 1000, fill=0.25, offset=1.5, block_segments=7)
    np.testing.assert_allclose(p, p_ref, rtol=1e-12, atol=0)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_welch_in_blocks_adds_the_blocks_in_order_whatever_the_threads(monkeypatch, threads):
    """The blocks transformed in threads add up to the bits of one thread's loop over them."""
    from edr.dsp import spectral

    x = np.random.default_rng(8).normal(size=61_111)
    x[::89] = np.nan
    total, n_seg, step = 0.0, (x.size - 1000) // 500 + 1, 500
    for first in range(0, n_seg, 7):
        k = min(7, n_seg - first)
        y = x[first * step:(first + k - 1) * step + 1000]
        total = total + k * spectral.welch(np.where(np.isfinite(y), y, 0.25) - 1.5, 250.0, 1000)[1]
    monkeypatch.setattr(m, "WELCH_THREADS", threads)
    f, p = m.welch_in_blocks(x, 250.0, 1000, fill=0.25, offset=1.5, block_segments=7)
    np.testing.assert_array_equal(p, total / n_seg)


@pytest.mark.parametrize("length", [3, 9, 64, 129, 257])
def test_concentrations_match_the_row_by_row_definition(length):
    # the rows' peaks found at once: bit for bit the per-row first maxima and concentrations
    # (rows without power, ties, magnitudes over ten decades)
    from edr.spectra import _concentrations

    rng = np.random.default_rng(length)
    pb = rng.random((12, length)) ** 3 * 10.0 ** rng.integers(-5, 5, (12, 1))
    pb[3] = 0.0
    pb[5, : length // 2] = pb[5].max()  # tied maxima: the first one
    fb = np.linspace(0.05, 1.0, length)
    search = np.flatnonzero((fb >= 0.1) & (fb <= 0.7)) if length > 3 else np.arange(length)
    expect = []
    for row in pb:
        total = row.sum()
        k = int(search[np.argmax(row[search])])
        expect.append(0.0 if total <= 0 else
                      float(row[np.abs(fb - fb[k]) <= 0.05].sum() / total))
    assert _concentrations(pb, fb, search, 0.05) == expect
