"""Tests of edr.scoring against hand-computed values and known coherence."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from scipy import signal

from edr import scoring as m
from edr import signal as sig
from edr.errors import RecordError, SignalError

FS = 4.0


def test_correlation_matches_hand_computed_value():
    a = np.array([1.0, 2.0, 3.0, 4.0])
    b = np.array([2.0, 1.0, 4.0, 3.0])
    # deviations (-1.5,-.5,.5,1.5), (-.5,-1.5,1.5,.5): sum prod = .75+.75+.75+.75=3, ss=5 each
    assert m.correlation(a, b) == pytest.approx(0.6)
    assert m.correlation(a, -b) == pytest.approx(0.6)
    with pytest.raises(ValueError, match="same length"):
        m.correlation(a, b[:3])


def test_msc_identical_signals_is_one_and_f_ref_is_the_peak():
    rng = np.random.default_rng(1)
    t = np.arange(0, 480, 1 / FS)
    ref = sig.bandpass(np.sin(2 * np.pi * 0.3 * t) + 0.3 * rng.standard_normal(t.size))
    value, f_ref = m.msc(ref, ref)
    assert value == pytest.approx(1.0)
    assert abs(f_ref - 0.3) <= 1 / 32 / 2 + 1e-12
    value, _ = m.msc(-2 * ref, ref)  # coherence ignores gain and sign
    assert value == pytest.approx(1.0)


def test_msc_independent_noise_is_small():
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((2, int(3600 * FS)))
    value, _ = m.msc(x, y)
    # E[C] for independent series with K ~ 224 averaged segments is about 1/K
    assert value < 0.03


@pytest.mark.parametrize("snr", [0.25, 1.0, 4.0])
def test_msc_matches_analytic_coherence_at_known_snr(snr):
    """x = s + n, y = s with white s and n: coherence = SNR / (1 + SNR) everywhere."""
    rng = np.random.default_rng(3)
    n = int(3 * 3600 * FS)
    s = rng.standard_normal(n)
    noise = rng.standard_normal(n) / np.sqrt(snr)
    value, _ = m.msc(s + noise, s)
    assert value == pytest.approx(snr / (1 + snr), abs=0.02)


def test_msc_needs_one_segment():
    with pytest.raises(SignalError, match="32 s segment"):
        m.msc(np.ones(100), np.ones(100))


def test_rate_error_against_annotations_and_waveform():
    t = np.arange(0, 480, 1 / FS)
    edr = np.sin(2 * np.pi * (18.0 / 60) * t)
    breaths = np.arange(0.5, 480, 60 / 15.0)  # 15 breaths/min
    assert m.rate_error(edr, breath_times=breaths, t_grid=t) == pytest.approx(3.0, abs=0.1)
    ref = np.sin(2 * np.pi * (16.0 / 60) * t)
    assert m.rate_error(edr, ref) == pytest.approx(2.0, abs=0.1)
    with pytest.raises(ValueError, match="needs ref or breath_times"):
        m.rate_error(edr)


def test_score_end_to_end_on_a_known_pair():
    """A broadband breathing process (0.1-0.45 Hz) seen by the EDR with a little noise."""
    rng = np.random.default_rng(4)
    resp_fs = 125.0
    tr = np.arange(0, 480, 1 / resp_fs)
    sos = signal.butter(4, [0.1, 0.45], btype="bandpass", fs=resp_fs, output="sos")
    resp = signal.sosfiltfilt(sos, rng.standard_normal(tr.size))
    rec = SimpleNamespace(name="syn", resp=resp, resp_fs=resp_fs, breath_times=None)
    tg = np.arange(0, 479.75, 0.25)
    clean = np.interp(tg, tr, resp)
    edr = sig.bandpass(-clean + 0.1 * clean.std() * rng.standard_normal(tg.size))
    res = SimpleNamespace(time=tg, waveform=edr, fs=FS)
    sc = m.score(res, rec)
    assert 0.1 <= sc.f_ref <= 0.45
    assert sc.msc > 0.95 and sc.corr > 0.95
    assert sc.rate_error_bpm < 0.5
    # with breath annotations every 4 s the reference rate is 15 /min; the EDR's
    # own peak wanders with the random process, so the error is just finite
    rec.breath_times = np.arange(1.0, 480, 4.0)
    assert np.isfinite(m.score(res, rec).rate_error_bpm)
    # the same EDR against independent noise scores low
    rec_noise = SimpleNamespace(name="noise", resp=rng.standard_normal(tr.size), resp_fs=resp_fs,
                                breath_times=None)
    assert m.score(res, rec_noise).msc < 0.3


def test_score_without_reference_raises():
    res = SimpleNamespace(time=np.arange(200) / FS, waveform=np.zeros(200), fs=FS)
    with pytest.raises(RecordError, match="'x' has no reference"):
        m.score(res, SimpleNamespace(name="x", resp=None, resp_fs=None, breath_times=None))


def test_reference_on_grid_removes_aliasing_noise():
    resp_fs = 125.0
    tr = np.arange(0, 120, 1 / resp_fs)
    # 3.9 Hz aliases to 0.1 Hz
    resp = np.sin(2 * np.pi * 0.2 * tr) + 0.5 * np.sin(2 * np.pi * 3.9 * tr)
    tg = np.arange(1, 119, 0.25)
    ref = m.reference_on_grid(resp, resp_fs, tg)
    np.testing.assert_allclose(ref, np.sin(2 * np.pi * 0.2 * tg), atol=0.02)
    f, p = signal.periodogram(ref - ref.mean(), fs=FS)
    assert p[np.argmin(abs(f - 0.1))] < 1e-3 * p.max()


def test_reference_on_grid_is_scipys_low_pass_then_a_cubic_spline():
    """Written out with SciPy: the anti-alias low-pass designed and run by SciPy itself, NaN
    samples bridged, the spline of the finite samples; the same numbers bit for bit."""
    from scipy import interpolate

    rng = np.random.default_rng(7)
    resp_fs = 125.0
    t = np.arange(int(300 * resp_fs)) / resp_fs
    resp = np.sin(2 * np.pi * 0.3 * t) + 0.2 * rng.standard_normal(t.size) + 3.0
    resp[5000:5100] = np.nan
    tg = np.arange(10.0, 290.0, 1 / FS)
    ok = np.isfinite(resp)
    filled = np.interp(t, t[ok], resp[ok])
    sos = signal.butter(4, 0.4 * FS, btype="lowpass", fs=resp_fs, output="sos")
    low = signal.sosfiltfilt(sos, filled - filled.mean()) + filled.mean()
    want = interpolate.CubicSpline(t[ok], low[ok])(tg)
    np.testing.assert_array_equal(m.reference_on_grid(resp, resp_fs, tg), want)


def test_band_passed_reference_is_the_reference_on_the_grid_band_passed():
    t = np.arange(0, 240, 1 / 50.0)
    rec = SimpleNamespace(resp=np.sin(2 * np.pi * 0.25 * t), resp_fs=50.0)
    res = SimpleNamespace(time=np.arange(5.0, 235.0, 1 / FS), fs=FS)
    np.testing.assert_array_equal(m.band_passed_reference(res, rec),
                                  sig.bandpass(m.reference_on_grid(rec.resp, 50.0, res.time)))


def test_rate_error_takes_the_extraction_rates_and_checks_their_count():
    from edr.scoring import rate_error

    t = np.arange(0, 120, 0.25)
    edr = np.sin(2 * np.pi * 0.25 * t)
    n = 6  # 32 s windows, 16 s step, over 120 s
    withheld = np.full(n, np.nan)
    withheld[0] = 15.0
    assert rate_error(edr, edr, fs=4.0, edr_bpm=withheld) == pytest.approx(0.0, abs=0.1)
    with pytest.raises(ValueError, match="one rate per window"):
        rate_error(edr, edr, fs=4.0, edr_bpm=np.ones(n + 1))


@pytest.mark.parametrize("msc, corr, says", [
    (0.77, 0.99, "MSC sits below |r|"),        # the demo: both high, MSC lower
    (0.78, 0.36, "high MSC, low |r|"),          # rhythm kept, waveform shifted
    (0.90, 0.80, "follows the reference in rhythm and shape"),
    (0.30, 0.90, "low MSC"),                    # MSC decides first
    (0.50, 0.50, "follows the reference"),      # at the threshold both are high
])
def test_the_scores_meaning_follows_the_scores(msc, corr, says):
    from edr.similarity import scores_meaning

    assert says in scores_meaning(msc, corr)

