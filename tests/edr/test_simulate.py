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
    kw = dict(amplitude_modulation=0.0, axis_modulation_deg=0.0, baseline_wander=0.0,
              respiratory_baseline=0.0,
              hrv_std_bpm=0.3)
    rec = simulate_recording(180.0, 250.0, rsa_bpm=6.0, random_state=4, **kw)
    _, r, rr, _ = _beat_series(rec, "II")
    assert np.corrcoef(60.0 / rr, r[1:])[0, 1] > 0.7  # faster heart during inspiration
    flat = simulate_recording(180.0, 250.0, rsa_bpm=0.0, random_state=4, **kw)
    _, r0, rr0, _ = _beat_series(flat, "II")
    assert abs(np.corrcoef(60.0 / rr0, r0[1:])[0, 1]) < 0.3


def test_amplitude_modulation_scales_every_lead_with_respiration():
    kw = dict(axis_modulation_deg=0.0, baseline_wander=0.0, respiratory_baseline=0.0, rsa_bpm=0.0,
              noise_std=0.005)
    rec = simulate_recording(120.0, 250.0, leads=("II", "I"), amplitude_modulation=0.2,
                             random_state=5, **kw)
    for lead in ("II", "I"):
        amp, r, _, _ = _beat_series(rec, lead)
        assert np.corrcoef(amp, r)[0, 1] > 0.95
    still = simulate_recording(120.0, 250.0, amplitude_modulation=0.0, random_state=5, **kw)
    amp0, _, _, _ = _beat_series(still, "II")
    assert np.std(amp0) < 0.2 * np.std(_beat_series(rec, "II")[0])


def test_axis_rotation_moves_leads_I_and_III_in_opposite_directions():
    kw = dict(amplitude_modulation=0.0, baseline_wander=0.0, respiratory_baseline=0.0, rsa_bpm=0.0,
              noise_std=0.005)
    rec = simulate_recording(120.0, 250.0, leads=("II", "I", "III"), axis_modulation_deg=15.0,
                             random_state=6, **kw)
    amp_i, r, _, _ = _beat_series(rec, "I")
    amp_iii, _, _, _ = _beat_series(rec, "III")
    # positive rotation turns the (about 55 degree) QRS axis towards III (120) and away from I (0)
    assert np.corrcoef(amp_i, r)[0, 1] < -0.9
    assert np.corrcoef(amp_iii, r)[0, 1] > 0.9


def test_baseline_has_a_respiratory_shift_and_a_slow_drift():
    kw = dict(amplitude_modulation=0.0, axis_modulation_deg=0.0, rsa_bpm=0.0, noise_std=0.005)
    rec = simulate_recording(120.0, 250.0, baseline_wander=0.0, respiratory_baseline=0.1,
                             random_state=8, **kw)
    peaks = _r_peaks(rec.ecg, rec.fs)[1:]
    iso = peaks - int(0.35 * rec.fs)  # between the previous T wave and this P wave: the baseline
    assert np.corrcoef(rec.ecg[iso], rec.resp[iso])[0, 1] > 0.95
    drift = simulate_recording(120.0, 250.0, baseline_wander=0.2, respiratory_baseline=0.0,
                               random_state=8, **kw)
    base = drift.ecg[iso]
    assert abs(np.corrcoef(base, drift.resp[iso])[0, 1]) < 0.3
    assert 0.05 < np.std(base) < 0.5
    # the default 10 s knots keep the drift below the breathing band; 3 s knots put it inside
    clean = simulate_recording(120.0, 250.0, baseline_wander=0.0, respiratory_baseline=0.0,
                               random_state=8, **kw).ecg
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
    # MLII is lead II
    assert np.corrcoef(rec.leads["mlii"], simulate_recording(10.0, 250.0).ecg)[0, 1] > 0.99
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


# --------------------------------------------------------------------------- #
# non-respiratory beat-to-beat variance and the named scenarios
# --------------------------------------------------------------------------- #
from edr.simulate import FAILURE_SCENARIOS, SCENARIOS, simulate_scenario  # noqa: E402

_QUIET = dict(amplitude_modulation=0.0, axis_modulation_deg=0.0, rsa_bpm=0.0, baseline_wander=0.0,
              respiratory_baseline=0.0, hrv_std_bpm=0.3, noise_std=0.005)


def _windows(rec, lead="II", half_s=0.06):
    x = rec.leads[lead]
    peaks = _r_peaks(rec.leads["II"], rec.fs)
    h = int(round(half_s * rec.fs))
    peaks = peaks[(peaks > h) & (peaks < x.size - h)]
    return peaks, np.array([x[p - h : p + h + 1] for p in peaks])


# Every new option at a value that switches it on.
_ON = {
    "morphology_step_rate_per_min": 1.0,
    "morphology_drift": 0.3,
    "ectopic_runs_per_min": 2.0,
    "motion_artifact_rate_per_min": 3.0,
    "noise_burst_rate_per_min": 3.0,
    "ventilator_depth": 0.5,
    "bigeminy_prematurity": 0.3,
    "alternans": 0.1,
}


def test_new_options_off_by_default_leave_the_record_bit_identical():
    base = simulate_recording(60.0, 125.0, leads=("II", "V"), random_state=3)
    off = simulate_recording(60.0, 125.0, leads=("II", "V"), random_state=3,
                             morphology_step_rate_per_min=0.0,
                             morphology_step_size=0.9, morphology_drift=0.0,
                             ectopic_runs_per_min=0.0,
                             ectopic_width=3.0, motion_artifact_rate_per_min=0.0,
                             motion_contact_change_deg=30.0,
                             noise_burst_rate_per_min=0.0, noise_burst_std=1.0,
                             ventilator_depth=None, bigeminy_prematurity=0.0, alternans=0.0)
    for lead in base.leads:
        np.testing.assert_array_equal(base.leads[lead], off.leads[lead])
    np.testing.assert_array_equal(base.resp, off.resp)
    np.testing.assert_array_equal(base.breath_times, off.breath_times)
    clean = simulate_scenario("clean", duration_s=60.0, fs=125.0, random_state=3)
    np.testing.assert_array_equal(clean.ecg, base.ecg)


@pytest.mark.parametrize("option", sorted(_ON))
def test_each_option_is_deterministic_for_a_seed_and_changes_the_ecg(option):
    kw = {option: _ON[option]}
    a = simulate_recording(120.0, 125.0, random_state=11, **kw)
    b = simulate_recording(120.0, 125.0, random_state=np.random.default_rng(11), **kw)
    np.testing.assert_array_equal(a.ecg, b.ecg)
    np.testing.assert_array_equal(a.resp, b.resp)
    assert not np.array_equal(a.ecg, simulate_recording(120.0, 125.0, random_state=11).ecg)
    assert not np.array_equal(a.ecg, simulate_recording(120.0, 125.0, random_state=12, **kw).ecg)


def test_artefacts_keep_the_respiration_of_the_clean_record():
    # the respiration and heart rhythm are drawn first: same seed, same breathing
    clean = simulate_recording(120.0, 125.0, random_state=5)
    for option in ("morphology_step_rate_per_min", "morphology_drift", "ectopic_runs_per_min",
                   "motion_artifact_rate_per_min", "noise_burst_rate_per_min"):
        rec = simulate_recording(120.0, 125.0, random_state=5, **{option: _ON[option]})
        np.testing.assert_array_equal(rec.resp, clean.resp)
        np.testing.assert_array_equal(rec.breath_times, clean.breath_times)


def test_a_morphology_step_changes_the_mean_beat_shape():
    kw = dict(_QUIET, morphology_step_rate_per_min=1.0, morphology_step_size=0.3)
    rec = simulate_recording(240.0, 250.0, random_state=2, **kw)
    still = simulate_recording(240.0, 250.0, random_state=2, **_QUIET)

    def shape_change(r):
        _, w = _windows(r)
        q = w.shape[0] // 4
        # last vs first quarter's mean beat
        return np.linalg.norm(w[-q:].mean(axis=0) - w[:q].mean(axis=0))

    assert shape_change(rec) > 0.2  # mV over the R +- 60 ms window
    assert shape_change(rec) > 5 * shape_change(still)


def test_morphology_drift_is_slow_and_not_respiratory():
    rec = simulate_recording(480.0, 125.0, morphology_drift=0.4, morphology_drift_period_s=60.0,
                             random_state=4,
                             **_QUIET)
    peaks, w = _windows(rec)
    dev = w - w.mean(axis=0)
    assert np.sqrt((dev ** 2).sum(axis=1)).mean() > 0.1  # the shape wanders by > 0.1 mV
    u, s, _ = np.linalg.svd(dev, full_matrices=False)
    assert s[0] ** 2 / (s ** 2).sum() > 0.5  # mostly along one direction (one slow process)
    pc = u[:, 0]
    assert abs(np.corrcoef(pc, rec.resp[peaks])[0, 1]) < 0.3
    # slow: consecutive beats differ far less than the spread over the record
    assert np.std(np.diff(pc)) < 0.3 * np.std(pc)


def test_ectopic_runs_are_premature_wide_and_followed_by_a_pause():
    rec = simulate_recording(300.0, 125.0, ectopic_runs_per_min=2.0, ectopic_run_beats=4.0,
                             random_state=6,
                             **_QUIET)
    still = simulate_recording(300.0, 125.0, random_state=6, **_QUIET)
    peaks = _r_peaks(rec.ecg, rec.fs)
    rr = np.diff(peaks) / rec.fs
    m = np.median(rr)
    assert np.sum(rr < 0.85 * m) >= 5  # premature beats
    assert np.sum(rr > 1.2 * m) >= 3  # compensatory pauses
    # wider QRS: the width at half maximum of the widest beats exceeds the normal one
    h = int(0.1 * rec.fs)

    def widths(x, pk):
        out = []
        for p in pk[(pk > h) & (pk < x.size - h)]:
            seg = (x[p - h : p + h + 1] - np.median(x[p - 3 * h : p - h]) if p > 3 * h
                   else x[p - h : p + h + 1])
            out.append(np.sum(seg > 0.5 * seg.max()))
        return np.array(out)

    w_rec, w_still = widths(rec.ecg, peaks), widths(still.ecg, _r_peaks(still.ecg, still.fs))
    assert np.max(w_rec) >= np.max(w_still) + 2
    # same number of beats: ectopic beats replace sinus beats
    assert abs(peaks.size - _r_peaks(still.ecg, still.fs).size) <= 2


def test_motion_artifact_and_noise_bursts_are_local_bursts():
    clean = simulate_recording(300.0, 125.0, random_state=7)
    for kw, lo in ((dict(motion_artifact_rate_per_min=1.0, motion_artifact_amplitude=0.5), 0.2),
                   (dict(noise_burst_rate_per_min=1.0, noise_burst_std=0.3), 0.15)):
        rec = simulate_recording(300.0, 125.0, random_state=7, **kw)
        d = rec.ecg - clean.ecg
        # the bursts are additive and drawn after the rest: outside them the record is the clean one
        sd = np.array([d[i : i + 125].std() for i in range(0, d.size - 125, 125)])  # 1 s blocks
        assert np.mean(sd < 0.05) > 0.5  # outside the bursts: at most the white-noise difference
        assert sd.max() > lo
    motion = simulate_recording(300.0, 125.0, random_state=7, motion_artifact_rate_per_min=1.0,
                                motion_artifact_amplitude=0.5)
    d = motion.ecg - clean.ecg
    f = np.fft.rfftfreq(d.size, 1 / 125.0)
    p = np.abs(np.fft.rfft(d)) ** 2
    assert p[f < 2.0].sum() > 0.5 * p.sum()  # motion: mostly low-frequency
    burst = simulate_recording(300.0, 125.0, random_state=7,
                               noise_burst_rate_per_min=1.0).ecg - clean.ecg
    p = np.abs(np.fft.rfft(burst)) ** 2
    assert p[f > 10.0].sum() > 0.7 * p.sum()  # muscle-like: broadband above 10 Hz


def test_contact_change_turns_the_lead_after_a_motion_burst():
    kw = dict(_QUIET, motion_artifact_rate_per_min=0.5, motion_artifact_amplitude=0.0)
    rec = simulate_recording(300.0, 125.0, motion_contact_change_deg=20.0, random_state=8, **kw)
    still = simulate_recording(300.0, 125.0, motion_contact_change_deg=0.0, random_state=8, **kw)
    _, w = _windows(rec)
    _, w0 = _windows(still)
    assert np.ptp(w[:, w.shape[1] // 2]) > 3 * np.ptp(w0[:, w0.shape[1] // 2])  # R height changes
    np.testing.assert_array_equal(rec.resp, still.resp)


def test_ventilator_breathing_is_regular_and_weakly_modulated():
    spont = simulate_recording(300.0, 125.0, random_state=9, baseline_wander=0.0)
    vent = simulate_recording(300.0, 125.0, random_state=9, baseline_wander=0.0,
                              ventilator_depth=0.3)
    cv = lambda rec: np.std(np.diff(rec.breath_times)) / np.mean(np.diff(rec.breath_times))  # noqa: E731
    assert cv(vent) < 0.3 * cv(spont) and cv(vent) < 0.03
    assert 1.0 / np.mean(np.diff(vent.breath_times)) == pytest.approx(0.25, rel=0.02)
    a_s, r_s, _, _ = _beat_series(spont, "II")
    a_v, r_v, _, _ = _beat_series(vent, "II")
    slope = lambda a, r: np.polyfit(r, a, 1)[0]  # noqa: E731
    assert slope(a_v, r_v) == pytest.approx(0.3 * slope(a_s, r_s), rel=0.25)


def test_alternans_and_bigeminy_alternate_beat_by_beat():
    quiet = dict(_QUIET, heart_rate_bpm=70.0)
    rec = simulate_recording(60.0, 250.0, leads=("II",), random_state=2, alternans=0.2, **quiet)
    peaks = _r_peaks(rec.ecg, rec.fs)
    r = rec.ecg[peaks]
    ratio = r[1:] / r[:-1]  # beat k over beat k - 1: (1 -+ 0.2) / (1 +- 0.2), alternating
    assert np.all(np.abs(np.log(ratio)) > 0.7 * np.log(1.2 / 0.8))
    assert np.all(np.sign(np.diff(r))[1:] == -np.sign(np.diff(r))[:-1])
    rec = simulate_recording(60.0, 250.0, leads=("II",), random_state=2,
                             bigeminy_prematurity=0.3, ectopic_width=1.0, **quiet)
    rr = np.diff(_r_peaks(rec.ecg, rec.fs)) / rec.fs
    short, long_ = rr[::2], rr[1::2]
    if short.mean() > long_.mean():
        short, long_ = long_, short
    n = min(short.size, long_.size)
    # the premature beat at 0.7 of the sinus RR, the next sinus beat on time: 0.7 and 1.3 RR
    np.testing.assert_allclose(short[:n] / (short[:n] + long_[:n]), 0.35, atol=0.03)


def test_scenarios_are_icu_like_recordings():
    assert set(SCENARIOS) >= {"clean", "morphology_steps", "morphology_drift", "ectopic_clusters",
                              "electrode_motion", "noise_bursts", "ventilator_weak", "mixed_icu"}
    assert set(FAILURE_SCENARIOS) <= set(SCENARIOS) and "clean" not in FAILURE_SCENARIOS
    for name in SCENARIOS:
        rec = simulate_scenario(name, duration_s=30.0, random_state=1)
        assert rec.fs == 125.0 and list(rec.leads) == ["II", "V"] and rec.name == name
        assert rec.ecg.size == 30 * 125 and np.all(np.isfinite(rec.ecg))
        assert np.percentile(np.abs(rec.ecg), 99) < 3.0  # mV: comparable to the clean beats
    with pytest.raises(ValueError, match=r"unknown scenario 'nope'; valid scenarios are \["):
        simulate_scenario("nope")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"morphology_step_rate_per_min": -1.0},
         "morphology_step_rate_per_min must be a finite number >= 0"),
        ({"morphology_step_size": 1.5},
         r"morphology_step_size must be a finite number in \[0, 1\], got 1.5"),
        ({"morphology_drift": float("nan")},
         r"morphology_drift must be a finite number in \[0, 1\]"),
        ({"morphology_drift_period_s": 0.0},
         "morphology_drift_period_s must be a finite number > 0"),
        ({"ectopic_runs_per_min": "2"},
         "ectopic_runs_per_min must be a finite number >= 0, got '2'"),
        ({"ectopic_run_beats": 0.5}, r"ectopic_run_beats must be a finite number in \[1, 30\]"),
        ({"ectopic_prematurity": 0.9},
         r"ectopic_prematurity must be a finite number in \[0, 0.6\]"),
        ({"ectopic_width": 0.5}, r"ectopic_width must be a finite number in \[1, 5\]"),
        ({"ectopic_amplitude": -1.0}, r"ectopic_amplitude must be a finite number in \[0, 3\]"),
        ({"motion_artifact_rate_per_min": float("inf")},
         "motion_artifact_rate_per_min must be a finite number"),
        ({"motion_artifact_amplitude": -0.1},
         "motion_artifact_amplitude must be a finite number >= 0"),
        ({"motion_contact_change_deg": 120.0},
         r"motion_contact_change_deg must be a finite number in \[0, 90\]"),
        ({"noise_burst_rate_per_min": -0.5},
         "noise_burst_rate_per_min must be a finite number >= 0"),
        ({"noise_burst_std": -0.3}, "noise_burst_std must be a finite number >= 0"),
        ({"noise_burst_min_s": 0.0}, "noise_burst_min_s must be a finite number > 0"),
        ({"noise_burst_min_s": 5.0, "noise_burst_max_s": 2.0},
         "noise_burst_max_s must be >= noise_burst_min_s"),
        ({"ventilator_depth": 0.0}, r"ventilator_depth must be None or in \(0, 1\], got 0.0"),
        ({"ventilator_depth": 1.5},
         r"ventilator_depth must be a finite number in \[0, 1\], got 1.5"),
        ({"ventilator_depth": True},
         r"ventilator_depth must be a finite number in \[0, 1\], got True"),
        ({"resp_rate_step_s": 0.0}, "resp_rate_step_s must be a finite number > 0, got 0.0"),
        ({"resp_rate_schedule_hz": (0.2, -0.1)},
         "resp_rate_schedule_hz must be a finite number > 0, got -0.1"),
        ({"resp_rate_schedule_hz": ()},
         "resp_rate_schedule_hz must be None or hold at least one rate"),
    ],
)
def test_bad_artefact_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        simulate_recording(**{"duration_s": 10.0, **kwargs})
