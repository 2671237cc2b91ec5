"""Rates judged window by window (:func:`edr.rates.judged_rates`)."""

from __future__ import annotations

import numpy as np

from edr.fusion import rate_quality
from edr.rates import RateSpan, judged_rates
from edr.signal import SEGMENT_S, rate_series, window_starts


def _judged_one_by_one(waveform, fs, spans):
    """Reference: :func:`edr.fusion.rate_quality` of each rate window on its own, with the panel
    of the span holding it whole (preferably the one whose core holds its centre)."""
    time, raw = rate_series(waveform, fs=fs)
    win = int(round(SEGMENT_S * fs))
    quality = np.zeros(raw.size)
    for i, s in enumerate(window_starts(waveform.size, fs)):
        inside = [sp for sp in spans if sp.first <= s and s + win - 1 <= sp.last]
        if inside:
            sp = next((x for x in inside if x.core[0] <= time[i] < x.core[1]), inside[0])
            k = s - sp.first
            panel = {name: v[k:k + win] for name, v in sp.panel.items()}
            quality[i] = rate_quality(waveform[s:s + win], panel, sp.weights, fs=fs)[2][0]
    return quality


def test_judged_rates_equal_rate_quality_window_by_window():
    fs = 4.0
    rng = np.random.default_rng(2)
    t = np.arange(int(600 * fs)) / fs
    waveform = np.sin(2 * np.pi * 0.25 * t) + 0.8 * rng.standard_normal(t.size)
    waveform[900:905] = np.nan
    spans = []
    for a, b, core in ((0, 1439, (0.0, 330.0)), (1200, 2399, (330.0, 600.0))):
        n = b - a + 1
        tt = t[a:b + 1]
        panel = {"edr": waveform[a:b + 1].copy(),
                 "slow": np.sin(2 * np.pi * 0.2 * tt) + rng.standard_normal(n),
                 "noise": rng.standard_normal(n)}
        spans.append(RateSpan(a, b, core, panel, {"edr": 0.5, "slow": 0.3, "noise": 0.2}))
    res = judged_rates(waveform, t, spans, fs)
    expected = _judged_one_by_one(waveform, fs, spans)
    np.testing.assert_array_equal(res.quality, expected)
    assert 0 < np.count_nonzero(expected) < expected.size
    np.testing.assert_array_equal(res.rate_bpm, np.where(expected >= 0.5, res.raw_bpm, np.nan))
