"""edr.polarity: which extrema of an EDR end inspiration."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from scipy.interpolate import CubicSpline
from scipy.signal import butter, sosfiltfilt
from scipy.stats import skew, ttest_1samp

from edr.breaths import detect_breaths
from edr.evaluate.breaths import score_breaths
from edr.pipeline import extract_edr
from edr.polarity import (
    RR_JUMP,
    RR_RANGE,
    RSA_MIN_BPM,
    RSAEvidence,
    coherence_threshold,
    decide_polarity,
    heart_rate_on_grid,
    inspiration_sign,
    rsa_evidence,
    shape_evidence,
)
from edr.simulate import simulate_recording

FS = 4.0


def _slow_heart_rate(beats, time, fs):
    """60 / RR at the RR middles (the RR within RR_RANGE of the median and within RR_JUMP of
    the RR before it), a not-a-knot cubic spline held at the ends, minus its mean, 4th-order
    Butterworth 0.05-1 Hz forward-backward."""
    rr = np.diff(beats)
    med = np.median(rr)
    keep = [i for i in range(rr.size) if RR_RANGE[0] * med <= rr[i] <= RR_RANGE[1] * med
            and (i == 0 or abs(rr[i] - rr[i - 1]) <= RR_JUMP * rr[i - 1])]
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
    beats = np.sort(np.append(beats, beats[60] + 0.55))  # a premature beat, 0.25 s early
    np.testing.assert_allclose(heart_rate_on_grid(beats, t, 4.0),
                               _slow_heart_rate(beats, t, 4.0), atol=1e-9)
    assert np.isnan(heart_rate_on_grid(beats[:4], t, 4.0)).all()


def _volume(t, period=4.0):
    return np.sin(np.pi * (t % period) / period) ** 4  # brisk breaths, skewed to the maxima


def _beats(drive, duration=330.0, bpm=70.0):
    """Beat times of a heart at ``bpm`` plus ``drive(t)`` bpm."""
    tf = np.arange(0.0, duration, 0.005)
    cycles = np.cumsum((bpm + drive(tf)) / 60 * 0.005)
    return np.interp(np.arange(1, np.floor(cycles[-1])), cycles, tf)


def _standardised(v):
    return (v - v.mean()) / v.std()


def _slow_rsa(x, hr, fs, seg_s=32.0):
    """The cross-spectral evidence by its definition: segment by segment, the DFT as a sum at
    every frequency of the band, the EDR's largest bin, sums over segments."""
    n = int(seg_s * fs)
    w = np.hanning(n)
    sxh, sxx, shh, k_seg = 0j, 0.0, 0.0, 0
    ok = np.isfinite(x) & np.isfinite(hr)
    i = 0
    while i + n <= x.size:
        if not ok[i:i + n].all():
            i += 1
            continue
        xs, hs = x[i:i + n] - x[i:i + n].mean(), hr[i:i + n] - hr[i:i + n].mean()
        best = None
        for k in range(n // 2 + 1):
            if not 4.0 <= 60.0 * k * fs / n <= 60.0:
                continue
            e = np.exp(-2j * np.pi * k * np.arange(n) / n)
            xk, hk = np.sum(w * xs * e), np.sum(w * hs * e)
            if best is None or abs(xk) > abs(best[0]):
                best = (xk, hk)
        sxh += np.conj(best[0]) * best[1]
        sxx += abs(best[0]) ** 2
        shh += abs(best[1]) ** 2
        k_seg += 1
        i += n
    return sxh.real / sxx, abs(sxh) ** 2 / (sxx * shh), k_seg, np.degrees(np.angle(sxh))


def test_rsa_evidence_against_a_slow_reference():
    rng = np.random.default_rng(1)
    t = np.arange(0.0, 320.0, 1 / FS)
    x = _standardised(_volume(t, 3.7) + 0.3 * rng.standard_normal(t.size))
    x[500:530] = np.nan  # a masked stretch: the segments restart after it
    beats = _beats(lambda tf: 3 * np.sin(2 * np.pi * tf / 3.7 - 0.4)
                   + 2 * np.sin(2 * np.pi * tf / 11.0))
    res = SimpleNamespace(waveform=x, time=t, fs=FS, beat_times=beats)
    ev = rsa_evidence(res)
    swing, coh, k, phase = _slow_rsa(x, heart_rate_on_grid(beats, t, FS), FS)
    assert ev.n_segments == k == 8
    np.testing.assert_allclose([ev.swing_bpm, ev.coherence, ev.phase_deg], [swing, coh, phase],
                               rtol=1e-9, atol=1e-9)
    assert ev.swing_bpm > 0.5 and ev.coherent()
    none = rsa_evidence(SimpleNamespace(waveform=x, time=t, fs=FS, beat_times=[]))
    assert (none.swing_bpm, none.coherence, none.n_segments) == (0.0, 0.0, 0)
    assert not none.coherent()


def test_coherence_threshold_holds_its_level():
    """Unrelated series (independent complex Gaussian spectra, K segments) exceed the
    threshold in a share alpha of the trials."""
    rng = np.random.default_rng(2)
    for k in (8, 15, 28):
        x = rng.standard_normal((20000, k)) + 1j * rng.standard_normal((20000, k))
        h = rng.standard_normal((20000, k)) + 1j * rng.standard_normal((20000, k))
        coh = np.abs(np.sum(np.conj(x) * h, 1)) ** 2 / (
            np.sum(np.abs(x) ** 2, 1) * np.sum(np.abs(h) ** 2, 1))
        for alpha in (0.05, 0.01):
            share = np.mean(coh > coherence_threshold(k, alpha))
            assert share == pytest.approx(alpha, abs=4 * np.sqrt(alpha / 20000) + 1e-3)
    assert coherence_threshold(1) == 1.0 and coherence_threshold(2, 0.05) == pytest.approx(0.95)


def test_shape_evidence_against_scipy_per_window():
    rng = np.random.default_rng(3)
    t = np.arange(0.0, 400.0, 1 / FS)
    x = -_volume(t) + 0.2 * rng.standard_normal(t.size)
    x[600:700] = np.nan
    windows = [x[a:a + 128] for a in list(range(0, 600 - 127, 128))
               + list(range(700, x.size - 127, 128))]
    per_window = [skew(w) for w in windows]
    ev = shape_evidence(x, FS)
    assert ev.n_windows == len(windows) == 11
    assert ev.skewness == pytest.approx(np.mean(per_window), rel=1e-12)
    assert ev.p_value == pytest.approx(ttest_1samp(per_window, 0.0).pvalue, rel=1e-9)
    assert ev.sign == -1 and ev.p_value < 1e-3
    short = shape_evidence(x[:300], FS)  # two windows: no test
    assert short.n_windows == 2 and short.p_value == 1.0
    assert shape_evidence(np.full(50, np.nan), FS).n_windows == 0
    clean = shape_evidence(_volume(t), FS)  # every window alike: no spread, decisive
    assert clean.p_value == 0.0 and clean.sign == 1


def _result(waveform, beats):
    t = np.arange(waveform.size) / FS
    return SimpleNamespace(waveform=waveform, time=t, fs=FS, beat_times=beats)


def test_the_arrhythmia_decides_when_coherent_and_strong_and_the_shape_otherwise():
    t = np.arange(0.0, 320.0, 1 / FS)
    v = _standardised(_volume(t))
    strong = _result(-v, _beats(lambda tf: 4 * _standardised(_volume(tf))))  # fastest at minima
    p = decide_polarity(strong)
    assert (p.sign, p.confident, p.source) == (-1, True, "arrhythmia")
    assert p.rsa.swing_bpm < -2 and p.rsa.coherent()
    against = _result(-v, _beats(lambda tf: -4 * _standardised(_volume(tf))))
    assert decide_polarity(against).sign == 1  # a strong arrhythmia outweighs the shape
    assert decide_polarity(against, rsa_min_bpm=np.inf).source == "shape"
    weak = _result(-v, _beats(lambda tf: -0.5 * _standardised(_volume(tf))))
    pw = decide_polarity(weak)
    assert pw.rsa.coherent() and 0 < pw.rsa.swing_bpm < 1.5
    assert (pw.sign, pw.source) == (-1, "shape")
    rng = np.random.default_rng(4)
    wander = rng.standard_normal(400)
    noise = _result(-v, _beats(lambda tf: 3 * np.interp(tf, np.arange(400.0), wander)))
    pn = decide_polarity(noise, rsa_min_bpm=0.0)  # not coherent: never decides
    assert not pn.rsa.coherent() and pn.source == "shape" and pn.sign == -1
    assert inspiration_sign(strong) == -1


def test_no_significant_evidence_is_uncertain():
    t = np.arange(0.0, 320.0, 1 / FS)
    sym = _result(np.sin(2 * np.pi * t / 4), np.arange(0.0, 321.0))  # symmetric, steady heart
    p = decide_polarity(sym)
    assert (p.confident, p.source) == (False, "none") and p.sign in (1, -1)
    with pytest.raises(ValueError, match="alpha"):
        decide_polarity(sym, alpha=1.0)
    with pytest.raises(ValueError, match="rsa_min_bpm"):
        decide_polarity(sym, rsa_min_bpm=-1.0)


@pytest.mark.parametrize("bpm, heart_bpm", [(6.0, 60.0), (15.0, 70.0), (40.0, 110.0)])
@pytest.mark.parametrize("lag_deg", [-40.0, 0.0, 40.0])
def test_the_sign_is_robust_to_the_arrhythmias_lag(bpm, heart_bpm, lag_deg):
    """A heart rate that leads or lags the breathing by up to 40 degrees still tells the
    extrema of inspiration apart, at 6, 15 and 40 /min (a symmetric waveform: no shape)."""
    f = bpm / 60.0
    t = np.arange(0.0, 320.0, 1 / FS)
    for sign in (1, -1):
        x = sign * np.sqrt(2) * np.cos(2 * np.pi * f * t)
        beats = _beats(lambda tf: 8 * np.cos(2 * np.pi * f * tf - np.radians(lag_deg)),
                       bpm=heart_bpm)
        p = decide_polarity(_result(x, beats))
        assert (p.sign, p.source) == (sign, "arrhythmia"), (p.rsa, sign)
        assert p.rsa.in_phase


@pytest.mark.parametrize("bpm, heart_bpm", [(6.0, 60.0), (15.0, 70.0), (40.0, 110.0)])
@pytest.mark.parametrize("lag_deg", [-110.0, -70.0, 70.0, 110.0])
def test_a_heart_rate_near_quadrature_does_not_decide(bpm, heart_bpm, lag_deg):
    """A strong, coherent arrhythmia nearer a quarter of a breath off the EDR than in phase or
    antiphase points to neither extremum: its in-phase part (above
    RSA_MIN_BPM, and of the wrong sign beyond 90 degrees) does not decide, the shape (none:
    a symmetric waveform) is left to."""
    f = bpm / 60.0
    t = np.arange(0.0, 320.0, 1 / FS)
    for sign in (1, -1):
        x = sign * np.sqrt(2) * np.cos(2 * np.pi * f * t)
        beats = _beats(lambda tf: 12 * np.cos(2 * np.pi * f * tf - np.radians(lag_deg)),
                       bpm=heart_bpm)
        p = decide_polarity(_result(x, beats))
        assert p.rsa.coherent() and abs(p.rsa.swing_bpm) > RSA_MIN_BPM, p.rsa
        assert not p.rsa.in_phase and (p.source, p.confident) == ("none", False), p.rsa
        assert decide_polarity(_result(x, beats), rsa_min_bpm=0.0).source == "none"


def test_in_phase_against_the_cross_spectrums_parts():
    """in_phase is |Re| >= |Im| of the cross-spectrum: the phase within 45 degrees of 0 or 180,
    at every quadrant and at the boundaries; no segments is never in phase."""
    for deg in np.arange(-180.0, 180.5, 2.5):
        c = np.exp(1j * np.radians(deg))
        expected = abs(c.real) >= abs(c.imag) - 1e-12
        if abs(abs(c.real) - abs(c.imag)) > 1e-9:  # away from the exact boundaries
            assert RSAEvidence(c.real, 0.9, 10, deg).in_phase == expected, deg
    assert not RSAEvidence(0.0, 0.0, 0, float("nan")).in_phase


@pytest.mark.parametrize("sign", [1, -1])
def test_simulated_breathing_with_arrhythmia_breathes_in_on_the_chosen_extrema(sign):
    rec = simulate_recording(240.0, fs=250.0, rsa_bpm=8.0, random_state=3)
    res = extract_edr(rec)
    res.waveform = sign * res.waveform  # whichever sign the EDR has, the heart rate tells
    b = detect_breaths(res)
    assert b.polarity.source == "arrhythmia" and not b.uncertain_polarity.any()
    assert score_breaths(b.time, rec.breath_times).f1 > 0.9


def _with_premature_beats(sinus, every, coupling):
    """Every ``every``-th sinus beat followed by a premature beat ``coupling`` of the RR after it
    and a full compensatory pause (the next sinus beat is not conducted)."""
    keep = np.ones(sinus.size, dtype=bool)
    idx = np.arange(1, sinus.size - 2, every)
    keep[idx + 1] = False
    premature = sinus[idx] + coupling * (sinus[idx + 1] - sinus[idx])
    return np.sort(np.concatenate([sinus[keep], premature]))


@pytest.mark.parametrize("bpm", [6.0, 15.0])
@pytest.mark.parametrize("every", [2, 3, 5])
def test_frequent_premature_beats_do_not_reverse_the_arrhythmia(bpm, every):
    """Premature beats the beat detector kept (coupling 0.6 of the RR): which of their
    intervals RR_RANGE leaves follows the breathing (the coupling interval falls below it at
    the fastest heart rate only), which reversed the heart rate's swing; from normal-to-normal
    intervals the arrhythmia never decides the wrong extrema."""
    f = bpm / 60.0
    t = np.arange(0.0, 320.0, 1 / FS)
    beats = _with_premature_beats(_beats(lambda tf: 4 * np.cos(2 * np.pi * f * tf)), every, 0.6)
    for sign in (1, -1):
        p = decide_polarity(_result(sign * np.sqrt(2) * np.cos(2 * np.pi * f * t), beats))
        assert p.sign == sign or not p.confident, p.rsa
        if every == 5 and bpm == 6.0:  # normal-to-normal intervals enough: it still decides
            assert (p.sign, p.source) == (sign, "arrhythmia"), p.rsa


@pytest.mark.parametrize("sign", [1, -1])
def test_simulated_record_with_frequent_ectopy_breathes_in_on_the_chosen_extrema(sign):
    rec = simulate_recording(300.0, fs=250.0, rsa_bpm=6.0, random_state=0,
                             ectopic_runs_per_min=12.0, ectopic_run_beats=1.0)
    res = extract_edr(rec)
    res.waveform = sign * res.waveform
    b = detect_breaths(res)
    assert b.polarity.source == "arrhythmia" and not b.uncertain_polarity.any()
    assert score_breaths(b.time, rec.breath_times).f1 > 0.9
