"""Tests of :mod:`edr.breath_rates`: window rates counted from breaths, and the extraction's
rates chosen by the breaths of its own EDR, against slow per-window references."""

from __future__ import annotations

import numpy as np
import pytest

import edr.pipeline as pipeline
from edr.breath_rates import (
    MIN_BREATHS,
    breath_rate_series,
    counted_rates,
    with_counted_rates,
)
from edr.breaths import detect_breaths
from edr.rates import AGREEMENT_BPM
from edr.scoring import window_rates
from edr.signal import RATE_BAND_BPM, RATE_NFFT, RATE_TILT, RATE_WINDOW_S, carried_bpm
from edr.simulate import SCENARIOS, simulate_recording

FS = 4.0


def _slow_breath_rates(breaths, starts, window_s=RATE_WINDOW_S, min_breaths=MIN_BREATHS):
    """Reference: each window's breaths by a Python loop, 60 / their median interval."""
    out = []
    for s in starts:
        inside = sorted(b for b in breaths if s <= b < s + window_s)
        intervals = [inside[k + 1] - inside[k] for k in range(len(inside) - 1)]
        out.append(60.0 / float(np.median(intervals)) if len(inside) >= min_breaths
                   else np.nan)
    return np.array(out)


def _slow_counted(x, rate, centres, breaths, beats):
    """Reference of :func:`counted_rates`, one window at a time: the periodogram's local maxima
    within the agreement of the count (and below the beats' limit), the largest
    ``f**tilt * S(f)`` of them, else the count."""
    win = int(RATE_WINDOW_S * FS)
    f = 60.0 * np.fft.rfftfreq(RATE_NFFT, 1.0 / FS)
    out = np.array(rate, dtype=float)
    for i, c in enumerate(centres):
        start = c - RATE_WINDOW_S / 2
        count = _slow_breath_rates(breaths, [start])[0]
        limit = carried_bpm(beats, [start])[0]
        if not (np.isfinite(rate[i]) and np.isfinite(count) and count <= limit
                and abs(count - rate[i]) > AGREEMENT_BPM):
            continue
        seg = x[int(round(start * FS)):int(round(start * FS)) + win]
        spec = np.abs(np.fft.rfft((seg - seg.mean()) * np.hanning(win), RATE_NFFT)) ** 2
        best, best_score = np.nan, -1.0
        band = np.flatnonzero((f >= RATE_BAND_BPM[0]) & (f <= RATE_BAND_BPM[1]))
        for j in band:
            left = spec[j - 1] if j > band[0] else -np.inf
            right = spec[j + 1] if j < band[-1] else -np.inf
            near = count - AGREEMENT_BPM <= f[j] <= min(count + AGREEMENT_BPM, limit)
            if spec[j] >= left and spec[j] >= right and near:
                if spec[j] * f[j] ** RATE_TILT > best_score:
                    best, best_score = f[j], spec[j] * f[j] ** RATE_TILT
        out[i] = best if np.isfinite(best) else count
    return out


def test_breath_rate_series_hand_computed():
    # breaths every 4 s (15 /min) in [0, 32); every 5 s (12 /min) from 32 s on
    b = np.concatenate([np.arange(0, 32, 4.0), np.arange(32, 80, 5.0)])
    r = breath_rate_series(b, np.array([0.0, 32.0, 200.0]))
    np.testing.assert_allclose(r[:2], [15.0, 12.0])
    assert np.isnan(r[2])  # no breaths there


def test_breath_rate_series_equals_a_loop_over_windows():
    rng = np.random.default_rng(3)
    breaths = np.cumsum(rng.uniform(1.5, 9.0, 120))
    starts = np.arange(0.0, breaths[-1], 16.0)
    np.testing.assert_array_equal(breath_rate_series(breaths, starts),
                                  _slow_breath_rates(breaths, starts))
    # unsorted and NaN breath times count as the sorted finite ones
    shuffled = np.r_[rng.permutation(breaths), np.nan]
    np.testing.assert_array_equal(breath_rate_series(shuffled, starts),
                                  _slow_breath_rates(breaths, starts))


@pytest.mark.parametrize(("window_s", "min_breaths"), [(32.0, 2), (32.0, 5), (60.0, 3), (9.0, 1)])
def test_breath_rate_series_equals_the_loop_with_any_window_and_count(window_s, min_breaths):
    rng = np.random.default_rng(7)
    breaths = np.cumsum(rng.uniform(0.5, 12.0, 300))  # 0 to ~60 breaths a window
    starts = np.r_[np.arange(-40.0, breaths[-1] + 40.0, 7.0), 3.0]  # unsorted, past both ends
    got = breath_rate_series(breaths, starts, window_s=window_s, min_breaths=min_breaths)
    want = _slow_breath_rates(breaths, starts, window_s, max(min_breaths, 2))
    np.testing.assert_array_equal(got, want)
    assert np.isfinite(want).any() and np.isnan(want).any()
    assert np.isnan(breath_rate_series([], starts)).all()


def _alternating(seconds=320.0, seed=0):
    """Deep breaths at 6 /min and shallow ones at 24 /min, alternating every 20 s, the breath
    times at the maxima, beats at 80 /min."""
    t = np.arange(int(seconds * FS)) / FS
    fast = (t // 20.0) % 2 == 1
    phase = 2 * np.pi * np.cumsum(np.where(fast, 0.4, 0.1)) / FS
    x = np.where(fast, 1.0, 3.0) * np.cos(phase) + \
        0.05 * np.random.default_rng(seed).standard_normal(t.size)
    k = np.flatnonzero(np.diff(np.floor(phase / (2 * np.pi))) > 0) + 1
    return x, t[k], np.arange(0.0, seconds, 0.75)


def test_counted_rates_equal_the_slow_reference():
    x, breaths, beats = _alternating()
    centres = np.arange(16.0, 320.0 - 16.0 + 1e-9, 16.0)
    from edr.rate_spectra import spectral_peak_rates

    rate = spectral_peak_rates(x, np.round((centres - 16.0) * FS).astype(int), FS)
    rate[3] = np.nan  # a withheld rate stays withheld
    got = counted_rates(x, rate, centres, breaths, beats, fs=FS)
    np.testing.assert_allclose(got, _slow_counted(x, rate, centres, breaths, beats), atol=1e-9)
    assert np.isnan(got[3])
    assert np.sum(got != rate) > 3  # the breaths changed some windows' rates


def test_regular_breathing_keeps_the_spectral_peak():
    """Where the count agrees with the peak already chosen, the rate is that peak, to the bit,
    even where another local maximum near the count scores higher."""
    t = np.arange(int(320 * FS)) / FS
    x = np.cos(2 * np.pi * 0.27 * t)
    breaths = np.arange(0.0, 320.0, 1 / 0.27)
    centres = np.arange(16.0, 305.0, 16.0)
    from edr.rate_spectra import spectral_peak_rates

    rate = spectral_peak_rates(x, np.round((centres - 16.0) * FS).astype(int), FS)
    np.testing.assert_array_equal(
        counted_rates(x, rate, centres, breaths, np.arange(0.0, 320.0, 0.8), fs=FS), rate)
    # a count 1.9 /min above a peak at 15 /min, a larger one at 17.5 /min within reach of it
    two = np.cos(2 * np.pi * 0.25 * t) + 1.5 * np.cos(2 * np.pi * (17.5 / 60) * t)
    counted = np.arange(0.0, 320.0, 60.0 / 16.9)
    np.testing.assert_array_equal(
        counted_rates(two, np.full(centres.size, 15.0), centres, counted,
                      np.arange(0.0, 320.0, 0.8), fs=FS), np.full(centres.size, 15.0))


def test_a_count_the_beats_cannot_carry_changes_nothing():
    """Breaths counted faster than half the beat rate less the margin are not a rate."""
    t = np.arange(int(96 * FS)) / FS
    x = np.cos(2 * np.pi * 0.1 * t)
    breaths = np.arange(0.0, 96.0, 60.0 / 34.0)  # 34 /min
    beats = np.arange(0.0, 96.0, 60.0 / 70.0)  # 70 /min: 31.25 /min carried
    rate = np.array([6.0, 6.0])
    np.testing.assert_array_equal(counted_rates(x, rate, [16.0, 48.0], breaths, beats, fs=FS),
                                  rate)


def test_too_few_breaths_and_no_peak_but_the_count():
    t = np.arange(int(64 * FS)) / FS
    x = np.cos(2 * np.pi * 0.1 * t)  # one peak, at 6 /min
    beats = np.arange(0.0, 64.0, 0.75)
    rate = np.array([6.0])
    two = np.array([3.0, 13.0])  # fewer than MIN_BREATHS in the window
    np.testing.assert_array_equal(counted_rates(x, rate, [16.0], two, beats, fs=FS), rate)
    fast = np.arange(0.0, 64.0, 2.5)  # 24 /min counted; only the 6 /min peak's side lobes there
    got = counted_rates(x, rate, [16.0], fast, beats, fs=FS)[0]
    assert got != 6.0 and abs(got - 24.0) <= AGREEMENT_BPM
    flat = np.zeros_like(x)  # no local maximum at all: the count itself
    np.testing.assert_allclose(counted_rates(flat, rate, [16.0], fast, beats, fs=FS), [24.0])


@pytest.fixture(scope="module")
def switching_records():
    """Paced breathing switching between 6 /min and 24 /min every 45 s, weak respiratory sinus
    arrhythmia: the deep slow breaths own the periodogram of a window that holds both."""
    params = {**SCENARIOS["paced_breathing"], "resp_rate_schedule_hz": (0.1, 0.4),
              "resp_rate_step_s": 45.0, "rsa_bpm": 2.0}
    return [simulate_recording(480.0, 250.0, leads=("II",), random_state=s, **params)
            for s in (0, 1)]


def test_the_extraction_counts_its_own_breaths(switching_records, monkeypatch):
    rec = switching_records[0]
    res = pipeline.extract_edr(rec)
    monkeypatch.setattr(pipeline, "with_counted_rates", lambda r: r)
    spectral = pipeline.extract_edr(rec)
    # the breaths are the same with either rates (only whether a window has a rate counts)
    again = detect_breaths(spectral)
    np.testing.assert_array_equal(res.breaths.time, again.time)
    np.testing.assert_array_equal(res.breaths.low_quality, again.low_quality)
    expected = counted_rates(spectral.waveform, spectral.rate_bpm, spectral.rate_time,
                             res.breaths.time, spectral.beat_times, fs=spectral.fs,
                             t0=spectral.time[0])
    np.testing.assert_array_equal(res.rate_bpm, expected)
    np.testing.assert_array_equal(np.isfinite(res.rate_bpm), np.isfinite(spectral.rate_bpm))
    np.testing.assert_array_equal(with_counted_rates(spectral).rate_bpm, expected)


def test_switching_breathing_gets_the_breaths_rate(switching_records, monkeypatch):
    """The windows that hold both rhythms: the spectral peak reports the slow one, off the
    reference's count by more than 5 /min; the breaths' count reports the rate counted."""
    def off_by_more_than_5(records):
        n = 0
        for rec in records:
            _, edr_bpm, ref_bpm = window_rates(pipeline.extract_edr(rec), rec)
            given = np.isfinite(edr_bpm) & np.isfinite(ref_bpm)
            n += int(np.sum(np.abs(edr_bpm - ref_bpm)[given] > 5.0))
        return n

    counted = off_by_more_than_5(switching_records)
    monkeypatch.setattr(pipeline, "with_counted_rates", lambda r: r)
    spectral = off_by_more_than_5(switching_records)
    assert spectral >= 6 and counted <= spectral // 2, (spectral, counted)
