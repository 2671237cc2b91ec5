"""The heart rate rotated onto the morphology frequency by frequency (edr.cross_phase, fuse)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import signal as sps

from edr.cross_phase import phase_onto
from edr.fusion import fuse, standardised
from edr.series_alignment import shifted

FS = 4.0


def _slow_phase_onto(y, ref, fs, segment_s):
    """Reference: the cross-spectrum summed segment by segment with explicit DFT sums, its phase
    interpolated, applied by an explicit inverse DFT."""
    n = int(round(segment_s * fs))
    step = n // 2
    win = sps.get_window("hann", n)
    k = np.arange(n // 2 + 1)
    basis = np.exp(-2j * np.pi * np.outer(k, np.arange(n)) / n)
    cross = np.zeros(k.size, dtype=complex)
    for s in range(0, y.size - n + 1, step):
        yy, rr = y[s:s + n], ref[s:s + n]
        cross += np.conj(basis @ (win * (yy - yy.mean()))) * (basis @ (win * (rr - rr.mean())))
    f = k * fs / n
    unit = cross / np.abs(cross)
    m = y.size
    fk = np.arange(m // 2 + 1) * fs / m
    rot = np.interp(fk, f, unit.real) + 1j * np.interp(fk, f, unit.imag)
    rot /= np.abs(rot)
    spec = np.array([np.sum(y * np.exp(-2j * np.pi * j * np.arange(m) / m))
                     for j in range(fk.size)]) * rot
    full = np.concatenate([spec, np.conj(spec[1:(m + 1) // 2][::-1])])
    return np.real(np.fft.ifft(full))


def test_phase_onto_equals_the_slow_reference():
    rng = np.random.default_rng(0)
    y, ref = rng.normal(size=480), rng.normal(size=480)
    np.testing.assert_allclose(phase_onto(y, ref, FS, 32.0), _slow_phase_onto(y, ref, FS, 32.0),
                               atol=1e-9)


def test_phase_onto_takes_out_a_frequency_dependent_phase_and_keeps_the_power():
    t = np.arange(1200) / FS
    ref = np.sin(2 * np.pi * 0.12 * t) + np.sin(2 * np.pi * 0.38 * t)
    y = np.sin(2 * np.pi * 0.12 * t + 1.0) - np.sin(2 * np.pi * 0.38 * t + 0.4)  # no shift fits
    assert np.corrcoef(phase_onto(y, ref, FS, 64.0), ref)[0, 1] > 0.99
    assert np.std(phase_onto(y, ref, FS, 64.0)) == pytest.approx(np.std(y), rel=1e-9)
    with pytest.raises(ValueError, match="points"):
        phase_onto(y, ref[:-1], FS, 64.0)


def _paced(seed):
    """Breathing at 8 and 23 /min by turns every minute; a noisy morphology series in phase with
    it and a noisy heart rate 1.25 s behind it (60 degrees at 8 /min, 170 at 23 /min)."""
    t = np.arange(0, 300, 1 / FS)
    rate = np.where((t // 60) % 2 == 0, 8 / 60, 23 / 60)
    breath = np.sin(2 * np.pi * np.cumsum(rate) / FS)
    rng = np.random.default_rng(seed)
    morph = standardised(breath + rng.normal(size=t.size))
    heart = standardised(shifted(breath, 5) + 1.2 * rng.normal(size=t.size))
    return breath, {"r_amplitude": morph, "rsa": heart}


def _coherence(x, breath):
    f, c = sps.coherence(x, breath, fs=FS, nperseg=256)
    return c[(f >= 0.1) & (f <= 0.5)].mean()


def test_the_rotated_heart_rate_is_more_coherent_where_one_shift_cannot_align_it():
    # one shift of up to 0.5 s (twice the default's lag: the stronger rival) against rotation
    gains = []
    for seed in range(5):
        breath, panel = _paced(seed)
        shifted_only = fuse(panel, FS, phase=False, max_lag_s=0.5)
        rotated = fuse(panel, FS, phase=True, max_lag_s=0.5)
        assert rotated.weights["rsa"] < 0.5  # the morphology outweighs it: the rule applies
        assert rotated.best == "r_amplitude"
        gains.append(_coherence(rotated.series, breath) - _coherence(shifted_only.series, breath))
        default_gain = (_coherence(fuse(panel, FS, phase=True).series, breath)
                        - _coherence(fuse(panel, FS, phase=False).series, breath))
        assert default_gain > 0.01  # at the default's own lag as well
        # the output keeps the phase of the morphology (its anchor) and follows the breath closer
        assert np.corrcoef(rotated.series, breath)[0, 1] > np.corrcoef(shifted_only.series,
                                                                        breath)[0, 1] + 0.03
    assert min(gains) > 0.01 and np.mean(gains) > 0.03


def test_a_heavier_heart_rate_is_shifted_as_before_and_without_it_nothing_changes():
    breath, panel = _paced(0)
    heavy = {"r_amplitude": panel["r_amplitude"], "rsa": standardised(panel["rsa"] + 2 * breath)}
    a, b = fuse(heavy, FS, phase=True), fuse(heavy, FS, phase=False)
    assert a.weights["rsa"] > 0.5
    np.testing.assert_array_equal(a.series, b.series)
    morph = {"r_amplitude": panel["r_amplitude"], "qrs_area": -panel["r_amplitude"]}
    np.testing.assert_array_equal(fuse(morph, FS, phase=True).series,
                                  fuse(morph, FS, phase=False).series)


def test_a_series_too_short_for_an_averaged_cross_spectrum_is_shifted_as_before():
    # under PHASE_MIN_LOCAL * LOCAL_S the cross-spectrum would have one segment (coherence 1
    # whatever the series): no rotation; at that length the rule applies again
    from edr.fusion import LOCAL_S, PHASE_MIN_LOCAL

    _, panel = _paced(0)
    n = int(PHASE_MIN_LOCAL * LOCAL_S * FS)
    short = {k: v[:n - 1] for k, v in panel.items()}
    a, b = fuse(short, FS, phase=True), fuse(short, FS, phase=False)
    assert a.weights["rsa"] < 0.5
    np.testing.assert_array_equal(a.series, b.series)
    enough = {k: v[:n] for k, v in panel.items()}
    assert not np.array_equal(fuse(enough, FS, phase=True).series,
                              fuse(enough, FS, phase=False).series)
