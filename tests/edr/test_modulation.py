"""Tests of edr.modulation: QRS matrix and the classic series at sub-sample R positions."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate

from edr.beats import Beats, detect
from edr.modulation import qrs_area, qrs_matrix, r_amplitude, rr_intervals, sample_at

FS = 125.0
# (offset from R in s, amplitude, sigma in s); symmetric Q/S so the maximum is at R
WAVES = [(-0.20, 0.15, 0.025), (-0.03, -0.15, 0.01), (0.0, 1.0, 0.01),
         (0.03, -0.15, 0.01), (0.28, 0.3, 0.04)]


def beat_shape(u):
    """One beat as a function of time from R (s)."""
    return sum(a * np.exp(-0.5 * ((u - off) / sd) ** 2) for off, a, sd in WAVES)


def make(r_times, amps, duration, offset=0.0):
    t = np.arange(int(duration * FS)) / FS
    x = np.full(t.size, offset, dtype=float)
    for rt, a in zip(r_times, amps, strict=False):
        x += a * beat_shape(t - rt)
    return x


def truth_beats(r_times, polarity=1):
    n = len(r_times)
    return Beats(peaks=np.asarray(r_times) * FS, fs=FS, valid=np.ones(n, bool), polarity=polarity,
                 n_ectopic=0, n_artifact=0)


@pytest.fixture(scope="module")
def modulated():
    rng = np.random.default_rng(0)
    r_times = 0.7 + np.cumsum(0.8 + 0.02 * rng.standard_normal(60)) + 0.123
    amps = 1.0 + 0.2 * np.sin(2 * np.pi * 0.25 * r_times)
    return r_times, amps, make(r_times, amps, r_times[-1] + 1.0)


def test_sample_at_matches_a_bandlimited_signal():
    n = np.arange(400)
    x = np.sin(2 * np.pi * 0.031 * n) + 0.5 * np.cos(2 * np.pi * 0.11 * n)
    pos = np.array([50.37, 123.9, 300.01])
    off = np.linspace(-3.2, 3.2, 17)
    u = pos[:, None] + off[None, :]
    want = np.sin(2 * np.pi * 0.031 * u) + 0.5 * np.cos(2 * np.pi * 0.11 * u)
    np.testing.assert_allclose(sample_at(x, pos, off), want, atol=5e-3)


def test_qrs_matrix_rows_are_scaled_templates(modulated):
    r_times, amps, x = modulated
    beats = truth_beats(r_times)
    mat = qrs_matrix(x, FS, beats, baseline=None)
    h = int(round(0.06 * FS))
    assert mat.shape == (len(r_times), 2 * h + 1)
    want = amps[:, None] * beat_shape(np.arange(-h, h + 1) / FS)[None, :]
    np.testing.assert_allclose(mat, want, atol=0.02)
    # 64 ms = exactly 8 samples at 125 Hz, 32 at upsample=4: the coarse grid is a subset
    coarse = qrs_matrix(x, FS, beats, baseline=None, half_width_s=0.064)
    fine = qrs_matrix(x, FS, beats, baseline=None, half_width_s=0.064, upsample=4)
    assert fine.shape == (len(r_times), 65)
    np.testing.assert_allclose(fine[:, ::4], coarse, atol=1e-9)
    # an inverted lead with polarity -1 gives exactly the upright matrix (PR baseline included)
    up = qrs_matrix(x + 0.3, FS, beats)
    np.testing.assert_array_equal(qrs_matrix(-(x + 0.3), FS, truth_beats(r_times, polarity=-1)), up)


def test_r_amplitude_recovers_modulation_and_ignores_offset(modulated):
    r_times, amps, x = modulated
    beats = truth_beats(r_times)
    np.testing.assert_allclose(r_amplitude(x, FS, beats, baseline=None), amps, rtol=0.02)
    shifted = x + 0.7 + 0.05 * np.sin(2 * np.pi * 0.05 * np.arange(x.size) / FS)
    np.testing.assert_allclose(r_amplitude(shifted, FS, beats), amps, rtol=0.02)
    # inverted lead with polarity -1 gives the same upright amplitudes
    np.testing.assert_allclose(r_amplitude(-x, FS, truth_beats(r_times, polarity=-1),
                                           baseline=None),
                               amps, rtol=0.02)


def test_qrs_area_matches_the_analytic_integral(modulated):
    r_times, amps, x = modulated
    want, _ = integrate.quad(beat_shape, -0.05, 0.05)
    area = qrs_area(x, FS, truth_beats(r_times), baseline=None)
    np.testing.assert_allclose(area, amps * want, rtol=0.02)


def test_rr_intervals_hand_computed():
    b = Beats(peaks=np.array([10.0, 110.0, 235.0, 335.5]), fs=100.0, valid=np.ones(4, bool),
              polarity=1, n_ectopic=0, n_artifact=0)
    np.testing.assert_allclose(rr_intervals(b), [np.nan, 1.0, 1.25, 1.005])


def test_qrs_matrix_on_detected_beats_with_nan(modulated):
    r_times, amps, x = modulated
    y = x.copy()
    y[int(10 * FS):int(12 * FS)] = np.nan
    b = detect(y, FS)
    mat = qrs_matrix(y, FS, b)
    assert mat.shape[0] == len(b) and np.all(np.isfinite(mat))


def test_bad_arguments_raise(modulated):
    r_times, _, x = modulated
    b = truth_beats(r_times)
    with pytest.raises(ValueError, match="baseline must be 'pr' or None, got 'mean'"):
        qrs_matrix(x, FS, b, baseline="mean")
    with pytest.raises(ValueError, match="fs=250.0 differs from beats.fs=125.0"):
        qrs_matrix(x, 250.0, b)
    with pytest.raises(ValueError, match="half_width_s must be positive, got -0.1"):
        qrs_matrix(x, FS, b, half_width_s=-0.1)
    with pytest.raises(ValueError, match="upsample must be an integer >= 1, got 0"):
        qrs_matrix(x, FS, b, upsample=0)


def test_rail_free_columns_drops_positions_clipped_in_most_beats():
    from types import SimpleNamespace

    from edr.modulation import rail_free_columns

    x = np.sin(np.arange(2000) / 7.0)
    peaks = np.arange(100, 1900, 100).astype(float)
    for p in peaks.astype(int):
        x[p - 1:p + 2] = 1.5  # three central positions at the upper rail in every beat
    beats = SimpleNamespace(peaks=peaks, valid=np.ones(peaks.size, bool))
    keep = rail_free_columns(x, beats, 9)
    np.testing.assert_array_equal(keep, [True] * 3 + [False] * 3 + [True] * 3)
    # symmetric in the sign of the lead; all kept when no beat is valid or nothing is finite
    np.testing.assert_array_equal(rail_free_columns(-x, beats, 9), keep)
    assert rail_free_columns(x,
                             SimpleNamespace(peaks=peaks,
                                             valid=np.zeros(peaks.size, bool)), 9).all()
    assert rail_free_columns(np.full(2000, np.nan), beats, 9).all()


def test_matrix_read_at_a_fixed_rate_is_the_native_one_at_that_rate():
    from edr.beats import detect
    from edr.modulation import MATRIX_RATE_HZ, qrs_matrix
    from edr.simulate import simulate_recording

    rec = simulate_recording(duration_s=30.0, fs=MATRIX_RATE_HZ, random_state=4)
    beats = detect(rec.ecg, rec.fs)
    native = qrs_matrix(rec.ecg, rec.fs, beats)
    at_rate = qrs_matrix(rec.ecg, rec.fs, beats, rate_hz=MATRIX_RATE_HZ)
    np.testing.assert_array_equal(at_rate, native)
    fast = simulate_recording(duration_s=30.0, fs=500.0, random_state=4)
    wide = qrs_matrix(fast.ecg, fast.fs, detect(fast.ecg, fast.fs), rate_hz=MATRIX_RATE_HZ)
    assert wide.shape[1] == native.shape[1]  # same columns whatever the ECG's rate
    with pytest.raises(ValueError, match="rate_hz must be positive"):
        qrs_matrix(rec.ecg, rec.fs, beats, rate_hz=0.0)


def _sample_at_by_whole_resampling(x, positions, offsets):
    """Reference: resample each neighbourhood minus its level (the sample at the position's
    integer part) whole with ``scipy.signal.resample_poly``, and add the level back."""
    from scipy import signal

    base = np.floor(positions).astype(int)
    frac = positions - base
    h = 12 + max(1 - int(np.floor(offsets.min())), int(np.ceil(offsets.max())) + 2)
    seg = x[np.clip(base[:, None] + np.arange(-h, h + 1)[None, :], 0, x.size - 1)]
    level = seg[:, h:h + 1]
    fine = signal.resample_poly(seg - level, 10, 1, axis=1)
    u = (frac[:, None] + offsets[None, :] + h) * 10
    i0 = np.clip(np.floor(u).astype(int), 0, fine.shape[1] - 2)
    w = u - i0
    rows = np.arange(base.size)[:, None]
    return (1 - w) * fine[rows, i0] + w * fine[rows, i0 + 1] + level


@pytest.mark.parametrize("offsets", [np.arange(-7, 8) * 0.8, np.zeros(1), np.arange(-63, 64) / 10])
def test_sample_at_equals_resampling_whole_neighbourhoods(offsets):
    rng = np.random.default_rng(3)
    x = np.cumsum(rng.standard_normal(3000))
    positions = np.sort(rng.uniform(-20.0, 3020.0, 400))  # edge positions included
    np.testing.assert_array_equal(sample_at(x, positions, offsets),
                                  _sample_at_by_whole_resampling(x, positions, offsets))


def test_sample_at_reads_a_constant_offset_as_itself():
    # resample_poly's ten polyphase phases pass a constant with gains 1 +- 7e-4: without the
    # level taken out, an offset of 2048 (ADC counts) would reach the samples as up to +-1.4
    from scipy import signal

    rng = np.random.default_rng(5)
    x = np.cumsum(rng.standard_normal(3000))
    positions = np.sort(rng.uniform(20.0, 2980.0, 300))
    offsets = np.arange(-7, 8) * 0.8
    gains = signal.resample_poly(np.ones(400), 10, 1)[1000:3000]
    assert np.ptp(gains) > 1e-3  # the reference's own ripple: the test can fail
    np.testing.assert_allclose(sample_at(np.full(3000, 2048.0), positions, offsets), 2048.0,
                               rtol=0, atol=1e-9)
    np.testing.assert_allclose(sample_at(x + 2048.0, positions, offsets) - 2048.0,
                               sample_at(x, positions, offsets), rtol=0, atol=1e-9)


def test_beat_series_do_not_depend_on_an_offset_of_the_ecg():
    from edr.simulate import simulate_recording

    rec = simulate_recording(duration_s=30.0, fs=300.0, random_state=2)
    beats = detect(rec.ecg, rec.fs)
    shifted = rec.ecg + 50.0
    np.testing.assert_allclose(r_amplitude(shifted, rec.fs, beats),
                               r_amplitude(rec.ecg, rec.fs, beats), rtol=0, atol=1e-9)
    np.testing.assert_allclose(qrs_matrix(shifted, rec.fs, beats, baseline="pr"),
                               qrs_matrix(rec.ecg, rec.fs, beats, baseline="pr"), rtol=0,
                               atol=1e-9)
