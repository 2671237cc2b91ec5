"""edr.polarity: which extrema of an EDR end inspiration."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from scipy.interpolate import CubicSpline
from scipy.signal import butter, sosfiltfilt

from edr.breaths import detect_breaths
from edr.evaluate.breaths import score_breaths
from edr.pipeline import extract_edr
from edr.polarity import (
    RR_RANGE,
    coherent_rsa_bpm,
    heart_rate_on_grid,
    inspiration_sign,
    shape_sign,
)
from edr.simulate import simulate_recording


def _slow_heart_rate(beats, time, fs):
    """60 / RR at the RR middles (the RR within RR_RANGE of the median), a not-a-knot cubic
    spline held at the ends, minus its mean, 4th-order Butterworth 0.05-1 Hz forward-backward."""
    rr = np.diff(beats)
    med = np.median(rr)
    keep = [i for i in range(rr.size) if RR_RANGE[0] * med <= rr[i] <= RR_RANGE[1] * med]
    mid = np.array([(beats[i] + beats[i + 1]) / 2 for i in keep])
    hr = CubicSpline(mid, 60.0 / rr[keep])(np.clip(time, mid[0], mid[-1]))
    sos = butter(4, (0.05, 1.0), "bandpass", fs=fs, output="sos")
    return sosfiltfilt(sos, hr - hr.mean(), padlen=min(3 * (2 * len(sos) + 1), hr.size - 1))


def test_heart_rate_against_a_slow_reference():
    rng = np.random.default_rng(0)
    t = np.arange(0.0, 120.0, 0.25)
    rr = (0.8 + 0.05 * np.sin(2 * np.pi * 0.25 * np.arange(150) * 0.8)
          + 0.01 * rng.standard_normal(150))
    beats = np.delete(np.cumsum(rr), [40, 41, 90])  # dropped beats leave long RRs
    np.testing.assert_allclose(heart_rate_on_grid(beats, t, 4.0),
                               _slow_heart_rate(beats, t, 4.0), atol=1e-9)
    assert np.isnan(heart_rate_on_grid(beats[:4], t, 4.0)).all()


def _volume(t):
    return np.sin(np.pi * (t % 4) / 4) ** 4  # brisk breaths, skewed towards the maxima


def _beats_with_arrhythmia(swing_bpm):
    """Beat times of a heart at 70 bpm that beats ``swing_bpm`` faster at each end of
    inspiration (the volume's maxima)."""
    tf = np.arange(0.0, 125.0, 0.01)
    v = _volume(tf)
    cycles = np.cumsum((70 + swing_bpm * (v - v.mean()) / v.std()) / 60 * 0.01)
    return np.interp(np.arange(1, np.floor(cycles[-1])), cycles, tf)


def test_the_arrhythmia_decides_when_strong_and_the_shape_otherwise():
    t = np.arange(0.0, 120.0, 0.25)
    v = (_volume(t) - _volume(t).mean()) / _volume(t).std()
    strong = SimpleNamespace(waveform=-v, time=t, fs=4.0, beat_times=_beats_with_arrhythmia(4))
    assert coherent_rsa_bpm(strong) < -2  # the heart is fastest at the EDR's minima
    assert inspiration_sign(strong) == -1 and inspiration_sign(strong, rsa_min_bpm=np.inf) == -1
    # a weak arrhythmia against the shape does not decide; a strong one does
    weak = SimpleNamespace(waveform=-v, time=t, fs=4.0, beat_times=_beats_with_arrhythmia(-0.5))
    assert 0 < coherent_rsa_bpm(weak) < 2 and inspiration_sign(weak) == -1
    flat = SimpleNamespace(waveform=-v, time=t, fs=4.0, beat_times=np.arange(0.0, 121.0))
    assert abs(coherent_rsa_bpm(flat)) < 1e-9 and inspiration_sign(flat) == -1
    against = SimpleNamespace(waveform=-v, time=t, fs=4.0, beat_times=_beats_with_arrhythmia(-4))
    assert shape_sign(against.waveform) == -1 and inspiration_sign(against) == 1


@pytest.mark.parametrize("sign", [1, -1])
def test_simulated_breathing_with_arrhythmia_breathes_in_on_the_chosen_extrema(sign):
    rec = simulate_recording(240.0, fs=250.0, rsa_bpm=8.0, random_state=3)
    res = extract_edr(rec)
    res.waveform = sign * res.waveform  # whichever sign the EDR has, the heart rate tells
    b = detect_breaths(res)
    assert abs(coherent_rsa_bpm(res)) > 2
    assert score_breaths(b.time, rec.breath_times).f1 > 0.9
