"""Tests of the synthetic ECG generator ``edr.simulate``."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.signal import find_peaks

from edr.io.recording import Recording
from edr.simulate import LEAD_DIRECTIONS, simulate_recording


def _r_peaks(x, fs):
    """R peaks of a clean synthetic lead: the largest local maxima, >= 0.3 s apart."""
    x = x - np.median(x)
    peaks, _ = find_peaks(x, distance=int(0.3 * fs), height=0.5 * np.percentile(x, 99.5))
    return peaks


def test_returns_recording_with_known_respiration():
    rec = simulate_recording(60.0, 250.0, leads=("II", "V1"), random_state=1)
    assert isinstance(rec, Recording)
    assert rec.fs == 250.0 and rec.ecg.shape == (15000,) and rec.ecg.dtype == np.float64
    assert rec.ecg_channel == "II" and list(rec.leads) == ["II", "V1"]
    assert rec.leads["II"] is rec.ecg
    assert rec.resp.shape == rec.ecg.shape and rec.resp_fs == 250.0 and rec.resp_channel == "RESP"
    assert rec.channels == ["II", "V1", "RESP"]
    assert rec.duration_s == pytest.approx(60.0)


def test_deterministic_for_a_seed():
    a = simulate_recording(30.0, 200.0, random_state=7)
    b = simulate_recording(30.0, 200.0, random_state=np.random.default_rng(7))
    c = simulate_recording(30.0, 200.0, random_state=8)
    np.testing.assert_array_equal(a.ecg, b.ecg)
    np.testing.assert_array_equal(a.resp, b.resp)
    np.testing.assert_array_equal(a.breath_times, b.breath_times)
    assert not np.allclose(a.ecg, c.ecg)


def test_breath_times_are_the_peaks_of_resp_and_rate_is_as_asked():
    rec = simulate_recording(300.0, 100.0, resp_rate_hz=0.3, random_state=3)
    peaks, _ = find_peaks(rec.resp, distance=int(1.5 * rec.fs))
    t_peaks = peaks / rec.fs
    # every annotated breath has a waveform peak within 0.2 s, and vice versa
    assert np.abs(t_peaks[:, None] - rec.breath_times[None, :]).min(axis=0).max() < 0.2
    assert abs(t_peaks.size - rec.breath_times.size) <= 1
    assert 1.0 / np.median(np.diff(rec.breath_times)) == pytest.approx(0.3, rel=0.1)
    # irregular breathing: interval spread and amplitude spread are both visible
    assert np.std(np.diff(rec.breath_times)) > 0.05
    assert np.std(rec.resp[peaks]) > 0.03


def test_heart_rate_and_beat_shape():
    rec = simulate_recording(120.0, 250.0, heart_rate_bpm=72.0, baseline_wander=0.0, random_state=2)
    peaks = _r_peaks(rec.ecg, rec.fs)
    assert peaks.size == pytest.approx(120 * 72 / 60, abs=4)
    r_amp = rec.ecg[peaks]
    assert 0.9 < np.median(r_amp) < 1.6  # lead II R wave ~1.2 mV
    # the S wave follows the R wave and is negative in lead II
    s_win = np.array([rec.ecg[p : p + int(0.06 * rec.fs)].min() for p in peaks[:-1]])
    assert np.median(s_win) < -0.1


def _beat_series(rec, lead):
    x = rec.leads[lead]
    peaks = _r_peaks(rec.leads["II"], rec.fs)
    # R amplitude at the lead-II R peak (lead-specific value), resp at the beat
    return x[peaks], rec.resp[peaks], np.diff(peaks) / rec.fs, peaks


def test_rsa_heart_rate_follows_respiration():
    kw = dict(amplitude_modulation=0.0, axis_modulation_deg=0.0, baseline_wander=0.0, respiratory_baseline=0.0,
              hrv_std_bpm=0.3)
    rec = simulate_recording(180.0, 250.0, rsa_bpm=6.0, random_state=4, **kw)
    _, r, rr, _ = _beat_series(rec, "II")
    assert np.corrcoef(60.0 / rr, r[1:])[0, 1] > 0.7  # faster heart during inspiration
    flat = simulate_recording(180.0, 250.0, rsa_bpm=0.0, random_state=4, **kw)
    _, r0, rr0, _ = _beat_series(flat, "II")
    assert abs(np.corrcoef(60.0 / rr0, r0[1:])[0, 1]) < 0.3


def test_amplitude_modulation_scales_every_lead_with_respiration():
    kw = dict(axis_modulation_deg=0.0, baseline_wander=0.0, respiratory_baseline=0.0, rsa_bpm=0.0, noise_std=0.005)
    rec = simulate_recording(120.0, 250.0, leads=("II", "I"), amplitude_modulation=0.2, random_state=5, **kw)
    for lead in ("II", "I"):
        amp, r, _, _ = _beat_series(rec, lead)
        assert np.corrcoef(amp, r)[0, 1] > 0.95
    still = simulate_recording(120.0, 250.0, amplitude_modulation=0.0, random_state=5, **kw)
    amp0, _, _, _ = _beat_series(still, "II")
    assert np.std(amp0) < 0.2 * np.std(_beat_series(rec, "II")[0])


def test_axis_rotation_moves_leads_I_and_III_in_opposite_directions():
    kw = dict(amplitude_modulation=0.0, baseline_wander=0.0, respiratory_baseline=0.0, rsa_bpm=0.0, noise_std=0.005)
    rec = simulate_recording(120.0, 250.0, leads=("II", "I", "III"), axis_modulation_deg=15.0, random_state=6, **kw)
    amp_i, r, _, _ = _beat_series(rec, "I")
    amp_iii, _, _, _ = _beat_series(rec, "III")
    # positive rotation turns the (about 55 degree) QRS axis towards III (120) and away from I (0)
    assert np.corrcoef(amp_i, r)[0, 1] < -0.9
    assert np.corrcoef(amp_iii, r)[0, 1] > 0.9


def test_baseline_has_a_respiratory_shift_and_a_slow_drift():
    kw = dict(amplitude_modulation=0.0, axis_modulation_deg=0.0, rsa_bpm=0.0, noise_std=0.005)
    rec = simulate_recording(120.0, 250.0, baseline_wander=0.0, respiratory_baseline=0.1, random_state=8, **kw)
    peaks = _r_peaks(rec.ecg, rec.fs)[1:]
    iso = peaks - int(0.35 * rec.fs)  # between the previous T wave and this P wave: the baseline
    assert np.corrcoef(rec.ecg[iso], rec.resp[iso])[0, 1] > 0.95
    drift = simulate_recording(120.0, 250.0, baseline_wander=0.2, respiratory_baseline=0.0, random_state=8, **kw)
    base = drift.ecg[iso]
    assert abs(np.corrcoef(base, drift.resp[iso])[0, 1]) < 0.3
    assert 0.05 < np.std(base) < 0.5
    # the default 10 s knots keep the drift below the breathing band; 3 s knots put it inside
    clean = simulate_recording(120.0, 250.0, baseline_wander=0.0, respiratory_baseline=0.0, random_state=8, **kw).ecg
    f = np.fft.rfftfreq(clean.size, 1 / 250.0)

    def in_band_fraction(period_s):
        x = simulate_recording(120.0, 250.0, baseline_wander=0.2, wander_period_s=period_s,
                               respiratory_baseline=0.0, random_state=8, **kw).ecg - clean
        p = np.abs(np.fft.rfft((x - x.mean()) * np.hanning(x.size))) ** 2
        return p[(f > 0.1) & (f < 1.0)].sum() / p.sum()

    assert in_band_fraction(10.0) < 1e-3
    assert in_band_fraction(3.0) > 0.1


def test_lead_names_aliases_and_case():
    rec = simulate_recording(10.0, 250.0, leads=["mlii", "v1", "AVR"])
    assert list(rec.leads) == ["mlii", "v1", "AVR"]
    assert np.corrcoef(rec.leads["mlii"], simulate_recording(10.0, 250.0).ecg)[0, 1] > 0.99  # MLII is lead II
    assert set(LEAD_DIRECTIONS) >= {"I", "II", "III", "AVR", "AVL", "AVF", "V1", "V6"}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"duration_s": 0.0}, "duration_s must be a finite number > 0, got 0.0"),
        ({"fs": -250.0}, "fs must be a finite number > 0"),
        ({"resp_rate_hz": float("nan")}, "resp_rate_hz must be"),
        ({"heart_rate_bpm": "70"}, "heart_rate_bpm must be a finite number > 0, got '70'"),
        ({"rsa_bpm": -1.0}, "rsa_bpm must be a finite number >= 0, got -1.0"),
        ({"amplitude_modulation": 0.7}, "amplitude_modulation must be < 0.5, got 0.7"),
        ({"noise_std": -0.1}, "noise_std must be"),
        ({"wander_period_s": 0.0}, "wander_period_s must be a finite number > 0"),
        ({"respiratory_baseline": -0.05}, "respiratory_baseline must be a finite number >= 0"),
        ({"leads": ("II", "XYZ")}, r"leads: unknown lead 'XYZ'; valid names are \["),
        ({"leads": ()}, "leads must name at least one lead"),
        ({"leads": ("II", "II")}, "leads must not repeat a name"),
        ({"duration_s": 0.001, "fs": 100.0}, "at least 2 samples"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        simulate_recording(**{"duration_s": 10.0, **kwargs})
