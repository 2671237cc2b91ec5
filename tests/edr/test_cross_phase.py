"""The heart rate rotated onto the morphology frequency by frequency (edr.cross_phase, fuse)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import signal as sps

from edr.cross_phase import filtered, phase_filter, phase_onto
from edr.fusion import band_passed, fuse, shifted, standardised

FS = 4.0


def _slow_unit(y, ref, fs, segment_s):
    """Reference: the cross-spectrum's unit phasor, summed segment by segment with explicit DFT
    sums; (frequencies, phasor, segment length)."""
    n = int(round(segment_s * fs))
    step = n // 2
    win = sps.get_window("hann", n)
    k = np.arange(n // 2 + 1)
    basis = np.exp(-2j * np.pi * np.outer(k, np.arange(n)) / n)
    cross = np.zeros(k.size, dtype=complex)
    for s in range(0, y.size - n + 1, step):
        yy, rr = y[s:s + n], ref[s:s + n]
        cross += np.conj(basis @ (win * (yy - yy.mean()))) * (basis @ (win * (rr - rr.mean())))
    return k * fs / n, cross / np.abs(cross), n


def _slow_phase_onto(y, ref, fs, segment_s):
    """Reference: the slow phasor interpolated, applied by an explicit inverse DFT."""
    f, unit, _ = _slow_unit(y, ref, fs, segment_s)
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
    gains = []
    for seed in range(5):
        breath, panel = _paced(seed)
        shifted_only = fuse(panel, FS, phase=False)
        rotated = fuse(panel, FS, phase=True)
        assert rotated.weights["rsa"] < 0.5  # the morphology outweighs it: the rule applies
        assert rotated.best == "r_amplitude"
        gains.append(_coherence(rotated.series, breath) - _coherence(shifted_only.series, breath))
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


# --------------------------------------------------------------------------- the stream's filter
def _slow_taps(y, ref, fs, segment_s, reach_s):
    """Reference: the phasor's impulse response by an explicit inverse DFT sum over the whole
    spectrum (conjugate-symmetric), one tap at a time, times the squared sinc."""
    _, unit, n = _slow_unit(y, ref, fs, segment_s)
    full = np.concatenate([unit, np.conj(unit[1:n // 2][::-1])])
    reach = int(round(reach_s * fs))
    taps = []
    for m in range(-reach, reach + 1):
        h = np.sum(full * np.exp(2j * np.pi * np.arange(n) * m / n)).real / n
        x = m / n
        taps.append(h * (1.0 if m == 0 else (np.sin(np.pi * x) / (np.pi * x)) ** 2))
    return np.array(taps)


def test_phase_filter_and_filtered_equal_the_slow_references():
    rng = np.random.default_rng(1)
    y, ref = rng.normal(size=480), rng.normal(size=480)
    taps = phase_filter(y, ref, FS, 32.0, 6.0)
    np.testing.assert_allclose(taps, _slow_taps(y, ref, FS, 32.0, 6.0), atol=1e-12)
    x = rng.normal(size=50)
    slow = [sum(taps[j] * x[min(max(i + 24 - j, 0), x.size - 1)] for j in range(taps.size))
            for i in range(x.size)]  # tap 24 + m weighs the point m before, ends held
    np.testing.assert_allclose(filtered(x, taps), slow, atol=1e-12)
    assert phase_filter(y, ref, FS, 32.0, 100.0).size == 2 * 63 + 1  # at most half a segment
    with pytest.raises(ValueError, match="points"):
        phase_filter(y, ref[:-1], FS, 32.0, 6.0)


def test_the_filter_rotates_as_phase_onto_and_carries_the_rotation_to_later_stretches():
    # compared within the breathing band (band_passed), where the phasor is smooth: on the span
    # the taps were estimated on, they follow phase_onto's rotation; on a later stretch of the
    # same process (other noise), the filtered heart rate follows the breath, its best shift and
    # sign does not (60 degrees at one rate, 170 at the other)
    for seed in range(3):
        breath, panel = _paced(seed)
        _, later = _paced(seed + 10)
        taps = phase_filter(panel["rsa"], panel["r_amplitude"], FS, 64.0, 16.0)
        got = band_passed(filtered(panel["rsa"], taps), FS)[40:-40]
        want = band_passed(phase_onto(panel["rsa"], panel["r_amplitude"], FS, 64.0), FS)[40:-40]
        assert np.corrcoef(got, want)[0, 1] > 0.9
        taps = phase_filter(panel["rsa"], panel["r_amplitude"], FS, 64.0, 8.0)
        b = breath[40:-40]
        rotated = np.corrcoef(band_passed(filtered(later["rsa"], taps), FS)[40:-40], b)[0, 1]
        best_shift = max(abs(np.corrcoef(band_passed(shifted(later["rsa"], k), FS)[40:-40],
                                         b)[0, 1]) for k in range(-2, 3))
        assert rotated > best_shift + 0.2
