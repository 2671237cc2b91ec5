"""Tests of edr.rates: rate windows, spectral-peak rates, rate quality and judged rates."""

from __future__ import annotations

import numpy as np
import pytest

from edr import rates, signal
from edr.rates import RateSpan, judged_rates, rate_quality, rate_series, window_starts
from edr.signal import RATE_WINDOW_S


def _judged_one_by_one(waveform, fs, spans, t0=0.0):
    """Reference: ``(time, raw, quality)`` of :func:`edr.rates.rate_quality` of each rate window
    on its own, with the panel of the span holding it whole (preferably the one whose core holds
    its centre) and that span's beats; a window no span holds keeps :func:`rate_series`'s rate
    and quality 0."""
    time, raw = rate_series(waveform, fs=fs, t0=t0)
    win = int(round(RATE_WINDOW_S * fs))
    quality = np.zeros(raw.size)
    for i, s in enumerate(window_starts(waveform.size, fs)):
        inside = [sp for sp in spans if sp.first <= s and s + win - 1 <= sp.last]
        if inside:
            sp = next((x for x in inside if x.core[0] <= time[i] < x.core[1]), inside[0])
            panel = {name: v[s - sp.first:s - sp.first + win] for name, v in sp.panel.items()}
            _, r, q = rate_quality(waveform[s:s + win], panel, sp.weights, fs=fs,
                                   t0=t0 + s / fs, beat_times=sp.beat_times)
            raw[i], quality[i] = r[0], q[0]
    return time, raw, quality


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
    expected = _judged_one_by_one(waveform, fs, spans)[2]
    np.testing.assert_array_equal(res.quality, expected)
    assert 0 < np.count_nonzero(expected) < expected.size
    np.testing.assert_array_equal(res.rate_bpm, np.where(expected >= rates.QUALITY_THRESHOLD,
                                                         res.raw_bpm, np.nan))


def test_settled_spans_judge_the_same_rates():
    """Spans holding their panel's rates instead of the panel (a day's memory) judge every rate
    window as the spans with the panels do: rates, raw rates and qualities, bit for bit, with
    and without the beats' limit, on a grid that does not start at 0."""
    fs, t0 = 4.0, 100.0
    rng = np.random.default_rng(5)
    t = np.arange(int(900 * fs)) / fs
    waveform = np.sin(2 * np.pi * 0.3 * t) + 0.9 * rng.standard_normal(t.size)
    waveform[1500:1504] = np.nan
    beats = np.cumsum(rng.uniform(1.0, 2.0, size=700))  # ~40/min: limits near the rates
    spans = []
    for a, b, core, limited in ((0, 1439, (0.0, 330.0), True), (1100, 2639, (330.0, 630.0), True),
                                (2300, 3599, (630.0, 900.0), False)):
        n = b - a + 1
        panel = {"edr": waveform[a:b + 1].copy(), "rr": rng.standard_normal(n),
                 "slow": np.sin(2 * np.pi * 0.31 * t[a:b + 1]) + rng.standard_normal(n)}
        spans.append(RateSpan(a, b, tuple(t0 + c for c in core), panel,
                              {"edr": 0.5, "rr": 0.2, "slow": 0.3},
                              t0 + beats if limited else None))
    want = judged_rates(waveform, t0 + t, spans, fs, tilt=1.0)
    settled = [rates.settled_span(sp, t.size, fs, t0, tilt=1.0) for sp in spans]
    assert all(sp.panel == {} and sp.rated.size for sp in settled)
    got = judged_rates(waveform, t0 + t, settled, fs, tilt=1.0)
    for name in ("time", "rate_bpm", "raw_bpm", "quality"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
    assert 0 < np.count_nonzero(want.quality) < want.quality.size
    assert np.isfinite(want.rate_bpm).any() and np.isnan(want.rate_bpm).any()
    with pytest.raises(ValueError, match="tilt"):
        judged_rates(waveform, t0 + t, settled, fs)


def test_judged_rates_of_many_spans_equal_the_windows_one_by_one():
    """Many spans, overlapping, one out of time order, some limited by their beats, and rate
    windows no span holds whole: each window's rate and quality are those of
    :func:`edr.rates.rate_quality` on its own with the panel of the span a plain search over
    every span chooses (the first holding it whole whose core holds its centre, else the first),
    and an unjudged window's rate is :func:`rate_series`'s."""
    fs, t0 = 4.0, 50.0
    rng = np.random.default_rng(11)
    t = t0 + np.arange(int(1500 * fs)) / fs
    waveform = np.sin(2 * np.pi * 0.27 * t) + 0.9 * rng.standard_normal(t.size)
    waveform[2000:2003] = np.nan
    beats = t0 + np.cumsum(rng.uniform(0.9, 2.2, size=1200))
    limits = [(0, 1199), (900, 2099), (1800, 2999), (3400, 4599), (4300, 5999), (1000, 1900),
              (2700, 3199)]  # 3200-3399 held whole by none; the last two out of time order
    spans = []
    for k, (a, b) in enumerate(limits):
        n = b - a + 1
        panel = {"edr": waveform[a:b + 1].copy(), "rr": rng.standard_normal(n),
                 "slow": np.sin(2 * np.pi * 0.26 * t[a:b + 1]) + rng.standard_normal(n)}
        core = (t[a] + 60.0, t[b] - 150.0)  # many windows held whole by two, in neither core
        spans.append(RateSpan(a, b, core, panel, {"edr": 0.5, "rr": 0.2, "slow": 0.3},
                              beats if k % 2 else None))
    got = judged_rates(waveform, t, spans, fs)
    time, raw, quality = _judged_one_by_one(waveform, fs, spans, t0)
    np.testing.assert_array_equal(got.time, time)
    np.testing.assert_array_equal(got.raw_bpm, raw)
    np.testing.assert_array_equal(got.quality, quality)
    unjudged = (time > t[3199]) & (time < t[3400])
    assert unjudged.any() and np.all(got.quality[unjudged] == 0)
    assert 0 < np.count_nonzero(quality) < quality.size


# ------------------------------------------------------- rate windows and spectral-peak rates

def _sine(bpm, phase=0.0):
    """A 240 s sine of ``bpm`` breaths/min on the 4 Hz grid."""
    return np.sin(2 * np.pi * bpm / 60 * np.arange(0, 240, 0.25) + phase)


def test_rate_series_finds_the_breathing_rate():
    t = np.arange(0, 320, 0.25)
    x = np.sin(2 * np.pi * (13.0 / 60) * t)
    tc, bpm = rates.rate_series(x, t0=10.0)
    # 320 s -> windows start 0,16,...,288 -> 19 windows centred at 16 s + k*16 s (+ t0)
    assert tc.size == 19
    np.testing.assert_allclose(tc, 10.0 + 16.0 + 16.0 * np.arange(19))
    np.testing.assert_allclose(bpm, 13.0, atol=0.1)


def test_window_starts():
    np.testing.assert_array_equal(rates.window_starts(320 * 4, 4.0), np.arange(0, 289 * 4, 64))
    assert rates.window_starts(100, 4.0).size == 0


def _rates_one_by_one(x, fs, tilt=signal.RATE_TILT):
    """Reference for :func:`edr.rates.spectral_peak_rates`: each window on its own."""
    win = int(round(signal.RATE_WINDOW_S * fs))
    out = []
    for s in rates.window_starts(x.size, fs):
        seg = x[s:s + win]
        if not np.all(np.isfinite(seg)):
            out.append(np.nan)
            continue
        seg = seg - seg.mean()
        nfft = max(signal.RATE_NFFT, win)
        spec = np.abs(np.fft.rfft(seg * np.hanning(win), n=nfft)) ** 2
        f = 60.0 * np.fft.rfftfreq(nfft, d=1.0 / fs)
        band = (f >= signal.RATE_BAND_BPM[0]) & (f <= signal.RATE_BAND_BPM[1])
        fb, sb = f[band], spec[band]
        peaks = [i for i in range(sb.size)
                 if (i == 0 or sb[i] >= sb[i - 1]) and (i == sb.size - 1 or sb[i] >= sb[i + 1])]
        best = max(peaks, key=lambda i: (sb[i] * fb[i] ** tilt, -i))  # first among ties
        out.append(fb[best] if np.any(sb > 0) else np.nan)
    return np.array(out)


@pytest.mark.parametrize("fs", [4.0, 2.5, 10.0])
def test_spectral_peak_rates_equal_the_windows_one_by_one(fs):
    rng = np.random.default_rng(7)
    n = int(300 * fs)
    x = np.sin(2 * np.pi * 0.25 * np.arange(n) / fs) + rng.standard_normal(n)
    x[int(100 * fs)] = np.nan
    x[: int(40 * fs)] = 0.0  # windows without power
    _, bpm = rates.rate_series(x, fs=fs)
    np.testing.assert_array_equal(bpm, _rates_one_by_one(x, fs))
    starts = np.array([0, 3, int(50 * fs)])
    np.testing.assert_array_equal(rates.spectral_peak_rates(x, starts, fs), [
        _rates_one_by_one(x[s:s + int(round(signal.RATE_WINDOW_S * fs))], fs)[0] for s in starts])


@pytest.mark.parametrize("tilt", [0.0, 0.5, 2.0])
def test_spectral_peak_rates_with_any_tilt_equal_the_windows_one_by_one(tilt):
    rng = np.random.default_rng(9)
    x = np.sin(2 * np.pi * 0.3 * np.arange(1200) / 4.0) + 2 * rng.standard_normal(1200)
    _, bpm = rates.rate_series(x, tilt=tilt)
    np.testing.assert_array_equal(bpm, _rates_one_by_one(x, 4.0, tilt))


def test_the_tilt_lets_fast_shallow_breathing_outweigh_a_slow_drift():
    t = np.arange(0, 32, 0.25)
    # power ratio slow/fast 2 (a 1/f background), fast/slow per log-frequency 25/6 / 2 ~ 2
    x = np.sqrt(2) * np.sin(2 * np.pi * 6 / 60 * t) + np.sin(2 * np.pi * 25 / 60 * t)
    assert rates.spectral_peak_rates(x, [0], tilt=0.0)[0] == pytest.approx(6, abs=0.5)
    assert rates.spectral_peak_rates(x, [0], tilt=1.0)[0] == pytest.approx(25, abs=0.5)
    # the tilt picks a peak, it does not move it
    pure = np.sin(2 * np.pi * 13 / 60 * np.arange(0, 32, 0.25))
    assert (rates.spectral_peak_rates(pure, [0], tilt=1.0)[0]
            == rates.spectral_peak_rates(pure, [0], tilt=0.0)[0])


@pytest.mark.parametrize("block", [None, 7, 256])
def test_spectral_peak_rates_in_blocks_equal_the_windows_one_by_one(monkeypatch, block):
    from edr import rate_spectra

    if block is not None:
        monkeypatch.setattr(rate_spectra, "RATE_BLOCK", block)
    rng = np.random.default_rng(8)
    x = np.sin(2 * np.pi * 0.2 * np.arange(40000) / 4.0) + rng.standard_normal(40000)
    x[20000:20010] = np.nan  # in the second block of windows
    _, bpm = rates.rate_series(x)
    assert bpm.size > 2 * max(rate_spectra.RATE_BLOCK, 256)
    np.testing.assert_array_equal(bpm, _rates_one_by_one(x, 4.0))


def test_rate_quality_is_the_weighted_share_that_agrees():
    edr = _sine(15)
    panel = {"same": _sine(15, 1.0), "near": _sine(15 + rates.AGREEMENT_BPM / 2),
             "far": _sine(30)}
    weights = {"same": 0.5, "near": 0.3, "far": 0.2}
    t, rate, q = rates.rate_quality(edr, panel, weights, fs=4.0)
    assert np.allclose(rate, 15, atol=0.3)
    np.testing.assert_allclose(q, 0.8)


def test_rate_quality_is_zero_where_the_edr_is_masked():
    edr = _sine(15).copy()
    edr[400:500] = np.nan
    t, rate, q = rates.rate_quality(edr, {"x": _sine(15)}, {"x": 1.0}, fs=4.0)
    masked = ~np.isfinite(rate)
    assert masked.any() and np.all(q[masked] == 0) and np.all(q[~masked] == 1)


def test_a_record_shorter_than_a_rate_window_is_called_too_short():
    """A 30 s ECG that breathes holds no 32 s rate window: its status says it is too short and
    how long a record must be, not that the ECG shows no breathing."""
    from edr.pipeline import extract_edr
    from edr.simulate import simulate_recording

    ecg = simulate_recording(30.0, 250.0, random_state=3).ecg
    result = extract_edr(ecg, fs=250.0)
    assert result.status.startswith("too short for a rate")
    assert f"give at least {RATE_WINDOW_S:g} s of ECG" in result.status
    assert "breathing" not in result.status
    assert result.window_frame()["status"].str.startswith("too short").all()
    assert result.time.size == 120 and result.rate_frame().empty  # the grid spans the record
