"""The rate windows and their spectral-peak rates (``edr.rate_spectra``, re-exported by
``edr.rates``) against their definition, window by window."""

import numpy as np
import pytest

from edr import rate_spectra as rs
from edr import rates, signal


def _reference_rate(seg, fs, tilt, limit):
    """One window's spectral-peak rate from its definition (cf. ``test_rates``): the
    demeaned, Hann-windowed, zero-padded periodogram's local maxima in the band at or below
    ``limit``, the largest ``f**tilt`` times power; NaN without power or without a maximum."""
    if not np.all(np.isfinite(seg)):
        return np.nan
    win = seg.size
    nfft = max(signal.RATE_NFFT, win)
    spec = np.abs(np.fft.rfft((seg - seg.mean()) * np.hanning(win), n=nfft)) ** 2
    f = 60.0 * np.fft.rfftfreq(nfft, d=1.0 / fs)
    band = (f >= signal.RATE_BAND_BPM[0]) & (f <= signal.RATE_BAND_BPM[1])
    fb, sb = f[band], spec[band]
    best, best_score = np.nan, -1.0
    for i in range(sb.size):
        left = i == 0 or sb[i] >= sb[i - 1]
        right = i == sb.size - 1 or sb[i] >= sb[i + 1]
        if left and right and fb[i] <= limit and sb[i] * fb[i] ** tilt > best_score:
            best, best_score = fb[i], sb[i] * fb[i] ** tilt
    return best if np.any(sb > 0) else np.nan


@pytest.mark.parametrize("block", [None, 5])
def test_spectral_peak_rates_are_the_rates_of_each_window(monkeypatch, block):
    if block is not None:
        monkeypatch.setattr(rs, "RATE_BLOCK", block)
    rng = np.random.default_rng(21)
    fs = 4.0
    t = np.arange(3000) / fs
    x = np.sin(2 * np.pi * 0.3 * t) + 0.8 * np.sin(2 * np.pi * 0.7 * t)
    x = x + rng.standard_normal(t.size)
    x[1300:1310] = np.nan
    starts = rs.window_starts(x.size, fs)
    win = int(round(signal.RATE_WINDOW_S * fs))
    limits = rng.uniform(10.0, 60.0, starts.size)
    for tilt, limit in ((0.0, None), (signal.RATE_TILT, None), (1.0, limits), (0.5, 30.0)):
        got = rs.spectral_peak_rates(x, starts, fs, tilt=tilt, max_bpm=limit)
        lim = np.broadcast_to(np.inf if limit is None else limit, starts.shape)
        expect = [_reference_rate(x[s:s + win], fs, tilt, lim[i]) for i, s in enumerate(starts)]
        np.testing.assert_array_equal(got, expect)
    assert np.isnan(rs.spectral_peak_rates(x, starts, fs)).sum() == 2  # the windows with NaN
    assert rs.spectral_peak_rates(x, [], fs).size == 0
    assert rates.spectral_peak_rates is rs.spectral_peak_rates  # one home, re-exported


def test_rated_starts_are_the_windows_a_span_holds_whole():
    for n, first, last in ((480, 0, 479), (480, 60, 479), (1000, 33, 700), (100, 0, 99)):
        win = int(round(signal.RATE_WINDOW_S * 4.0))
        expect = [s for s in rs.window_starts(n, 4.0) if s >= first and s + win - 1 <= last]
        np.testing.assert_array_equal(rs.rated_starts(n, 4.0, first, last), expect)
