"""Tests of edr.signal: the uniform grid, the band-pass, the rate series (the spectral
concentration: ``test_spectra.py``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from edr import signal as m
from edr.errors import SignalError
from edr.mains import mains_frequency, remove_mains

FS = 4.0


def test_to_uniform_grid_reproduces_a_cubic_exactly():
    t = np.sort(np.random.default_rng(0).uniform(0, 10, 40))
    poly = lambda u: 0.3 * u**3 - u**2 + 2 * u - 1  # noqa: E731
    tg, xg = m.to_uniform_grid(t, poly(t), fs=FS)
    assert tg[0] == t[0] and np.allclose(np.diff(tg), 0.25)
    assert tg[-1] <= t[-1]
    np.testing.assert_allclose(xg, poly(tg), rtol=1e-9, atol=1e-9)


def test_to_uniform_grid_holds_ends_and_skips_nan():
    t = np.arange(10.0)
    x = np.arange(10.0)
    x[4] = np.nan
    tg, xg = m.to_uniform_grid(t, x, fs=1.0, t_start=-2.0, t_end=11.0)
    np.testing.assert_allclose(tg, np.arange(-2.0, 12.0))
    np.testing.assert_allclose(xg, np.clip(tg, 0, 9))


def test_to_uniform_grid_of_several_series_equals_one_call_each():
    t = np.sort(np.random.default_rng(1).uniform(0, 20, 30))
    x = np.column_stack([np.sin(t), np.cos(0.3 * t), t**2])
    x[5, 1] = np.nan  # a sample with a non-finite value is dropped from every column
    tg, xg = m.to_uniform_grid(t, x, fs=FS, t_start=-1.0, t_end=21.0)
    keep = np.arange(t.size) != 5
    for j in range(3):
        _, one = m.to_uniform_grid(t[keep], x[keep, j], fs=FS, t_start=-1.0, t_end=21.0)
        np.testing.assert_allclose(xg[:, j], one, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="x must have shape"):
        m.to_uniform_grid(t, x[:-1])


def test_to_uniform_grid_bad_input():
    with pytest.raises(SignalError, match="3 finite samples"):
        m.to_uniform_grid([0, 1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="strictly increasing"):
        m.to_uniform_grid([0, 2, 1, 3], [1, 2, 3, 4])
    with pytest.raises(ValueError, match="fs must be a positive"):
        m.to_uniform_grid([0, 1, 2, 3], [1, 2, 3, 4], fs=-1)


def test_bandpass_passes_band_and_rejects_outside():
    t = np.arange(0, 600, 1 / FS)
    inband = np.sin(2 * np.pi * 0.25 * t)
    slow = np.sin(2 * np.pi * 0.005 * t)
    fast = np.sin(2 * np.pi * 1.8 * t)
    y = m.bandpass(inband + slow + fast)
    core = slice(400, -400)
    np.testing.assert_allclose(y[core], inband[core], atol=0.03)
    # zero phase: the in-band sinusoid is not shifted
    assert np.corrcoef(y[core], inband[core])[0, 1] > 0.999


def test_bandpass_bad_input():
    with pytest.raises(ValueError, match="high=3"):
        m.bandpass(np.zeros(100), high=3.0)
    x = np.zeros(100)
    x[5] = np.nan
    with pytest.raises(SignalError, match="1 non-finite"):
        m.bandpass(x)


def test_protocol_constants():
    assert m.GRID_FS == 4.0 and m.BAND_HZ == (0.05, 1.0)
    assert m.RATE_WINDOW_S == 32.0 and m.RATE_STEP_S == 16.0 and m.RATE_BAND_BPM == (4.0, 60.0)
    assert m.WELCH_SEGMENT_S == 32.0 and not hasattr(m, "SEGMENT_S")  # one name, one meaning
    assert m.MIN_BEATS == 20 and m.FS_RANGE == (100.0, 10_000.0)


# --------------------------------------------------------------------------- mains line
def _ecg_like(fs, seconds=60.0, line_hz=None, line_mv=0.0, seed=0):
    from edr.simulate import simulate_recording

    rec = simulate_recording(seconds, fs, random_state=seed)
    x = np.asarray(rec.ecg, dtype=float).copy()
    if line_hz:
        x += line_mv * np.sin(2 * np.pi * line_hz * np.arange(x.size) / fs + 0.3)
    return x


def _line_power(x, fs, hz):
    from scipy import signal as sg

    f, p = sg.welch(x, fs=fs, nperseg=int(4 * fs))
    return p[np.argmin(np.abs(f - hz))]


@pytest.mark.parametrize("line_hz", [50.0, 60.0])
def test_remove_mains_notches_the_line_and_its_harmonics(line_hz):
    fs = 500.0
    x = _ecg_like(fs, line_hz=line_hz, line_mv=0.1)
    x += 0.05 * np.sin(2 * np.pi * 2 * line_hz * np.arange(x.size) / fs)
    assert mains_frequency(x, fs) == line_hz
    y = remove_mains(x, fs)
    for hz in (line_hz, 2 * line_hz):
        assert _line_power(y, fs, hz) < 1e-3 * _line_power(x, fs, hz)
    # the ECG itself is kept: away from the lines the two agree closely
    clean = _ecg_like(fs)
    assert np.std(y - clean) < 0.1 * np.std(clean)


def test_remove_mains_leaves_a_clean_lead_alone_and_keeps_nan():
    fs = 250.0
    x = _ecg_like(fs)
    assert mains_frequency(x, fs) is None
    assert remove_mains(x, fs) is x
    x = _ecg_like(fs, line_hz=50.0, line_mv=0.1)
    x[1000:1100] = np.nan
    y = remove_mains(x, fs)
    assert np.isnan(y[1000:1100]).all() and np.isfinite(np.delete(y, np.s_[1000:1100])).all()


def test_a_60_hz_line_just_below_the_nyquist_rate_is_found_and_notched():
    # 125 Hz (BIDMC's rate): the 60 Hz notch (59-61 Hz) lies below 62.5 Hz
    fs = 125.0
    x = _ecg_like(fs, line_hz=60.0, line_mv=0.1)
    assert mains_frequency(x, fs) == 60.0
    y = remove_mains(x, fs)
    assert _line_power(y, fs, 60.0) < 1e-3 * _line_power(x, fs, 60.0)
    clean = _ecg_like(fs)
    assert np.std(y - clean) < 0.1 * np.std(clean)


def test_mains_at_the_nyquist_rate_is_not_searched():
    # at 100 Hz a 50 Hz line is a constant alternation a notch cannot isolate
    fs = 100.0
    x = _ecg_like(fs, line_hz=50.0, line_mv=0.1)
    assert mains_frequency(x, fs) is None and remove_mains(x, fs) is x


def test_butter_sos_is_scipys_design_made_once():
    from scipy import signal as sps

    a = m.butter_sos(4, (0.05, 1.0), "bandpass", 4.0)
    ref = sps.butter(4, [0.05, 1.0], btype="bandpass", fs=4.0, output="sos")
    np.testing.assert_array_equal(a, ref)
    assert m.butter_sos(4, (0.05, 1.0), "bandpass", 4.0) is a and not a.flags.writeable
    x = np.random.default_rng(0).normal(size=400)
    np.testing.assert_array_equal(m.bandpass(x), sps.sosfiltfilt(ref, x - x.mean(), padlen=27))


def test_fir_highpass_matches_a_slow_least_squares_design():
    # The reference: the same least squares written out tap by tap, the taps' zero sum imposed by
    # eliminating the last tap (not by a Lagrange multiplier), the filter applied point by point.
    fs, before, after = 4.0, 20, 8
    f = np.linspace(0.0, fs / 2, 512)
    lags = list(range(-after, before + 1))
    target = []
    for fk in f:
        if fk == 0:
            target.append(0.0)
        else:
            edge = math.tan(math.pi * m.BAND_HZ[0] / fs)
            r = edge / math.tan(math.pi * min(fk, fs / 2 * (1 - 1e-9)) / fs)
            target.append(1.0 / (1.0 + r ** (2 * m.FILTER_ORDER)))
    rows, rhs = [], []
    for fk, tk in zip(f, target, strict=True):
        for part, want in ((math.cos, tk), (math.sin, 0.0)):
            full = [part(2 * math.pi * fk * lag / fs) for lag in lags]
            rows.append([c - full[-1] for c in full[:-1]])  # h_last = -(h_0 + ... + h_{m-2})
            rhs.append(want)
    free = np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)[0]
    ref_taps = np.append(free, -free.sum())
    taps = m.fir_highpass_taps(fs, before, after)
    np.testing.assert_allclose(taps, ref_taps, atol=1e-9)
    assert not taps.flags.writeable
    x = np.random.default_rng(0).normal(size=120)
    ref = [sum(ref_taps[k] * x[i - lags[k]] for k in range(len(lags)))
           for i in range(before, x.size - after)]
    np.testing.assert_allclose(m.fir_highpass(x, fs, before, after), ref, atol=1e-9)
    np.testing.assert_allclose(m.fir_highpass(np.full(60, 3.0), fs, before, after), 0.0,
                               atol=1e-9)
    assert m.fir_highpass(x[:before + after], fs, before, after).size == 0


def test_fir_highpass_follows_the_band_pass_lower_edge_where_zero_phase_cannot():
    # The stream's reach (72 grid points before, 24 after at 4 Hz): its gain within 0.07 of the
    # band-pass's lower edge from 0.08 Hz to 1 Hz and its phase within 5 degrees from 0.1 Hz on;
    # the zero-phase design of the same reach after (24 either side) misses the edge by 0.15.
    from scipy import signal as sps

    fs = 4.0
    f = np.linspace(0.08, 1.0, 200)
    edge = np.abs(sps.sosfreqz(sps.butter(m.FILTER_ORDER, m.BAND_HZ[0], "high", fs=fs,
                                          output="sos"), worN=f, fs=fs)[1]) ** 2

    def gain(before, after):
        lags = np.arange(-after, before + 1)
        return np.exp(-2j * np.pi * np.outer(f, lags) / fs) @ m.fir_highpass_taps(fs, before, after)

    g = gain(72, 24)
    assert np.max(np.abs(np.abs(g) - edge)) < 0.07
    assert np.max(np.abs(np.degrees(np.angle(g[f >= 0.1])))) < 5
    assert np.max(np.abs(np.abs(gain(24, 24)) - edge)) > 0.14


