"""No rate above what the beats carry.

A series sampled once per beat carries no rhythm above half the beat rate. A beat-to-beat
alternation — electrical alternans, or bigeminy (a premature ectopic beat after every sinus beat:
RR and morphology alternate) — puts a peak exactly there, and it used to be reported as the
breathing rate with a high quality (every morphology series agrees on it). The rate search and
the fusion weights stop at :func:`edr.signal.carried_bpm`; a rate close to that limit is judged
by the morphology series alone (:func:`edr.rates.near_carried`). Measurements:
``docs/studies/carried_rates.md``.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from edr import rates, signal
from edr.fusion import carried_band, carried_hz
from edr.pipeline import extract_edr
from edr.scoring import score
from edr.signal import NYQUIST_MARGIN_BPM, RATE_WINDOW_S, carried_bpm
from edr.simulate import simulate_recording


# ----------------------------------------------------------------- the limit and its search
def _carried_by_hand(beats, starts, length):
    out = []
    for s in starts:
        b = [t for t in beats if s <= t < s + length]
        out.append(max(30.0 * (len(b) - 1) / (b[-1] - b[0]) - NYQUIST_MARGIN_BPM, 0.0)
                   if len(b) >= 2 else 0.0)
    return np.array(out)


def test_carried_bpm_equals_half_the_beat_rate_less_the_margin_window_by_window():
    rng = np.random.default_rng(3)
    beats = np.cumsum(rng.uniform(0.4, 1.2, 400))
    beats = np.delete(beats, np.arange(50, 70))  # a stretch of dropped beats
    starts = np.arange(-10.0, beats[-1] + 10, 7.3)
    np.testing.assert_allclose(carried_bpm(beats, starts), _carried_by_hand(beats, starts, 32.0))
    np.testing.assert_allclose(carried_bpm(beats, starts, 5.0),
                               _carried_by_hand(beats, starts, 5.0))
    assert NYQUIST_MARGIN_BPM == pytest.approx(60.0 * 2 / RATE_WINDOW_S)


def test_carried_hz_covers_every_beat_and_lowers_the_band():
    beats = np.arange(0, 300, 0.8)  # 75 /min
    assert carried_hz(beats) * 60 == pytest.approx(37.5 - NYQUIST_MARGIN_BPM)
    assert carried_hz([1.0]) is None
    assert carried_band((0.1, 1.0), None) == (0.1, 1.0)
    assert carried_band((0.1, 1.0), 0.5) == (0.1, 0.5)
    assert carried_band((0.1, 1.0), 2.0) == (0.1, 1.0)
    assert carried_band((0.1, 1.0), 0.05) == (0.1, 0.1)


def _limited_one_by_one(x, starts, fs, limit, tilt=signal.RATE_TILT):
    """Reference: each window's periodogram, its local maxima over the whole band, the best
    tilted one at or below the window's limit."""
    win = int(round(RATE_WINDOW_S * fs))
    nfft = max(signal.RATE_NFFT, win)
    f = 60.0 * np.fft.rfftfreq(nfft, d=1.0 / fs)
    band = (f >= signal.RATE_BAND_BPM[0]) & (f <= signal.RATE_BAND_BPM[1])
    out = []
    for s, lim in zip(starts, limit, strict=True):
        seg = x[s:s + win] - x[s:s + win].mean()
        sb = (np.abs(np.fft.rfft(seg * np.hanning(win), n=nfft)) ** 2)[band]
        fb = f[band]
        peaks = [i for i in range(sb.size)
                 if (i == 0 or sb[i] >= sb[i - 1]) and (i == sb.size - 1 or sb[i] >= sb[i + 1])
                 and fb[i] <= lim]
        out.append(fb[max(peaks, key=lambda i: (sb[i] * fb[i] ** tilt, -i))] if peaks
                   else np.nan)
    return np.array(out)


def test_spectral_peak_rates_below_a_limit_equal_the_windows_one_by_one():
    rng = np.random.default_rng(11)
    t = np.arange(0, 400, 0.25)
    x = (np.sin(2 * np.pi * 12 / 60 * t) + 1.5 * np.sin(2 * np.pi * 37 / 60 * t)
         + rng.standard_normal(t.size))
    starts = rates.window_starts(x.size, 4.0)
    limit = rng.uniform(5.0, 70.0, starts.size)
    limit[:3] = (4.0, 36.0, 2.0)  # at the band edge, just below the strong peak, below the band
    got = rates.spectral_peak_rates(x, starts, 4.0, max_bpm=limit)
    np.testing.assert_array_equal(got, _limited_one_by_one(x, starts, 4.0, limit))
    assert np.isnan(got[2])
    unlimited = rates.spectral_peak_rates(x, starts, 4.0)
    np.testing.assert_array_equal(rates.spectral_peak_rates(x, starts, 4.0, max_bpm=np.inf),
                                  unlimited)


def test_a_spectrum_rising_into_the_limit_offers_no_peak_there():
    t = np.arange(0, 32, 0.25)
    x = 0.3 * np.sin(2 * np.pi * 12 / 60 * t) + np.sin(2 * np.pi * 37 / 60 * t)
    assert rates.spectral_peak_rates(x, [0], max_bpm=37 - NYQUIST_MARGIN_BPM)[0] == \
        pytest.approx(12, abs=0.5)


def test_a_rate_near_the_limit_is_judged_by_the_morphology_alone():
    t = np.arange(0, 32, 0.25)
    near = np.sin(2 * np.pi * 31 / 60 * t)
    slow = np.sin(2 * np.pi * 12 / 60 * t)
    beats = np.arange(0, 40, 60 / 70)  # 70 /min: limit 35 - 3.75 = 31.25, 31 /min is near it
    panel = {"rsa": near, "r_amplitude": slow, "qrs_area": near}
    weights = {"rsa": 0.5, "r_amplitude": 0.3, "qrs_area": 0.2}
    _, rate, q = rates.rate_quality(near, panel, weights, beat_times=beats)
    assert rate[0] == pytest.approx(31, abs=0.3)
    assert rates.near_carried(rate, carried_bpm(beats, [0.0]))[0]
    assert q[0] == pytest.approx(0.2)  # the heart rate's 0.5 does not count
    _, _, q_free = rates.rate_quality(near, panel, weights)
    assert q_free[0] == pytest.approx(0.7)
    # far from the limit the heart rate counts as ever
    _, rate, q = rates.rate_quality(slow, {**panel, "rsa": slow}, weights, beat_times=beats)
    assert rate[0] == pytest.approx(12, abs=0.3) and q[0] == pytest.approx(0.8)


# ------------------------------------------------------- alternation on top of slow breathing
ALTERNATION = {
    "alternans": dict(alternans=0.15),
    "bigeminy, wide ectopic beats": dict(bigeminy_prematurity=0.3),
    "bigeminy, narrow ectopic beats": dict(bigeminy_prematurity=0.3, ectopic_width=1.0),
}
SLOW = dict(heart_rate_bpm=74.0, resp_rate_hz=0.2, amplitude_modulation=0.05, rsa_bpm=2.0)


@functools.cache
def _alternating(name, seed):
    rec = simulate_recording(300.0, 250.0, leads=("II",), random_state=seed,
                             **SLOW, **ALTERNATION[name])
    return rec, extract_edr(rec)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", sorted(ALTERNATION))
def test_no_rate_at_a_beat_to_beat_alternation(name, seed):
    rec, res = _alternating(name, seed)
    given = np.isfinite(res.rate_bpm)
    # 74 beats/min: the alternation sits at 37 /min; the breathing at 12 /min
    assert given.mean() >= 0.6, f"{name}: rates given in {given.mean():.0%} of the windows"
    assert np.all(res.rate_bpm[given] < 20.0), f"{name}: {np.round(res.rate_bpm[given], 1)}"
    assert np.all(np.abs(res.rate_bpm[given] - 12.0) <= 2.5)
    assert score(res, rec).msc >= 0.55
