"""Tests of the EDR method registry (edr.methods) on synthetic segments with known respiration."""

from __future__ import annotations

import numpy as np
import pytest

from edr.beats import detect
from edr.errors import SignalError
from edr.methods import (
    METHODS,
    NEUROKIT_VARIANTS,
    Segment,
    get_method,
    kpca_edr,
    rsa_edr,
    series_on_grid,
)
from edr.modulation import robust_beat_matrix
from edr.scoring import correlation, reference_on_grid
from edr.signal import bandpass
from edr.simulate import simulate_recording
from edr.spectra import spectral_concentration


@pytest.fixture(scope="module")
def sim():
    rec = simulate_recording(duration_s=120.0, fs=250.0, random_state=3)
    beats = detect(rec.ecg, rec.fs)
    grid = np.arange(int(rec.duration_s * 4)) / 4.0
    return rec, beats, grid


def _segment(sim):
    rec, beats, grid = sim
    return Segment(rec.ecg, rec.fs, 0.0, beats, grid, 4.0, rec.ecg_channel)


def _agreement(sim, out):
    rec, _, grid = sim
    from edr.methods import series_on_grid as _on_grid

    y = bandpass(_on_grid(_segment(sim), out))
    ref = bandpass(reference_on_grid(rec.resp, rec.resp_fs, grid))
    return correlation(y, ref)


def test_registry_has_required_methods():
    for key in ("kpca", "kpca_fusion", "kpca_positions", "pca", "r_amplitude", "qrs_area", "rsa",
                "kpca_rsa"):
        assert key in METHODS
    for v in NEUROKIT_VARIANTS:
        assert f"neurokit_{v}" in METHODS
    assert all(callable(spec.func) for spec in METHODS.values())
    assert [k for k, s in METHODS.items() if s.uses_sigma2] == ["kpca_fusion", "kpca",
                                                                "kpca_positions",
                                                                "kpca_rsa"]


def test_unknown_method_lists_sorted_keys():
    with pytest.raises(ValueError,
                       match=r"unknown EDR method 'nope'.*"
                             r"\['kpca', 'kpca_fusion', 'kpca_positions'"):
        get_method("nope")


def test_spectral_concentration_sine_vs_noise():
    t = np.arange(0, 120, 0.25)
    rng = np.random.default_rng(0)
    assert spectral_concentration(np.sin(2 * np.pi * 0.25 * t)) > 0.9
    assert spectral_concentration(rng.standard_normal(t.size)) < 0.3
    assert spectral_concentration(np.zeros(t.size)) == 0.0


@pytest.mark.parametrize("method", ["kpca", "pca", "r_amplitude", "kpca_rsa"])
def test_morphological_methods_follow_the_respiration(sim, method):
    kw = {"sigma2": 0.5} if METHODS[method].uses_sigma2 else {}
    out = METHODS[method].func(_segment(sim), **kw)
    assert _agreement(sim, out) > 0.7


def test_kpca_positions_orientation_follows_the_respiration(sim):
    out = kpca_edr(_segment(sim), sigma2=0.5, orientation="positions")
    assert out.kind == "beats" and out.values.size == int(sim[1].valid.sum())
    assert _agreement(sim, out) > 0.6


def test_rsa_is_instantaneous_heart_rate(sim):
    _, beats, _ = sim
    out = rsa_edr(_segment(sim))
    t = beats.times
    ok = beats.valid[1:] & beats.valid[:-1]
    np.testing.assert_allclose(out.values, 60.0 / np.diff(t)[ok])
    np.testing.assert_allclose(out.times, t[1:][ok])
    assert _agreement(sim, out) > 0.5


def test_neurokit_peer_runs_on_the_grid(sim):
    out = METHODS["neurokit_vangent2019"].func(_segment(sim))
    assert out.kind == "grid" and out.values.shape == sim[2].shape
    assert np.all(np.isfinite(out.values))


def test_fusion_weights_sum_to_one(sim):
    out = METHODS["kpca_rsa"].func(_segment(sim), sigma2=0.5)
    assert out.quality["weight_kpca"] + out.quality["weight_rsa"] == pytest.approx(1.0)
    assert out.sigma2 == 0.5


def test_detrended_and_pr_baselines_resist_slow_wander():
    rec = simulate_recording(duration_s=120.0, fs=250.0, random_state=3, baseline_wander=0.2)
    beats = detect(rec.ecg, rec.fs)
    grid = np.arange(int(rec.duration_s * 4)) / 4.0
    wander = (rec, beats, grid)
    seg = Segment(rec.ecg, rec.fs, 0.0, beats, grid, 4.0, "II")
    detrended = _agreement(wander, kpca_edr(seg, sigma2=0.5, baseline="detrend", robust=False))
    pr = _agreement(wander, kpca_edr(seg, sigma2=0.5, baseline="pr", robust=False))
    raw = _agreement(wander, kpca_edr(seg, sigma2=0.5, baseline="none", robust=False))
    assert detrended > 0.9 and pr > 0.9 and raw < detrended - 0.2
    # the robust matrix removes the slow wander from every column, even of the raw windows
    robust_raw = _agreement(wander, kpca_edr(seg, sigma2=0.5, baseline="none", robust=True))
    assert robust_raw > 0.9 and robust_raw > raw + 0.1


def test_centred_matrix_is_blind_to_beat_offsets_and_follows_the_breathing():
    # each window minus its own mean: an offset added to a beat's window leaves its row unchanged,
    # and the components of the centred matrix follow the breathing where a large per-beat
    # offset that does not breathe takes the first component of the raw matrix
    rec = simulate_recording(duration_s=120.0, fs=250.0, random_state=3, baseline_wander=0.0)
    beats = detect(rec.ecg, rec.fs)
    grid = np.arange(int(rec.duration_s * 4)) / 4.0
    seg = Segment(rec.ecg, rec.fs, 0.0, beats, grid, 4.0, "II")
    raw = seg.matrix("none")
    centred = seg.matrix("centred")
    np.testing.assert_allclose(centred, raw - raw.mean(axis=1, keepdims=True), atol=1e-12)
    np.testing.assert_allclose(centred.mean(axis=1), 0.0, atol=1e-9)
    rng = np.random.default_rng(0)
    offset = np.zeros_like(rec.ecg)
    idx = beats.peaks.astype(int)
    for i, o in zip(idx, rng.normal(scale=2.0, size=idx.size), strict=True):
        offset[max(i - 40, 0):i + 40] += o  # a step under each QRS window, not breathing
    noisy = Segment(rec.ecg + offset, rec.fs, 0.0, beats, grid, 4.0, "II")
    np.testing.assert_allclose(noisy.matrix("centred"), centred, atol=1e-9)
    case = (rec, beats, grid)
    assert _agreement(case, kpca_edr(noisy, sigma2=0.5, baseline="centred", robust=False)) > 0.8
    assert _agreement(case, kpca_edr(noisy, sigma2=0.5, baseline="none", robust=False)) < 0.5


def test_kpca_criterion_string_goes_through_selection(sim):
    pytest.importorskip("kpca.selection", reason="kpca.selection not available")
    from kpca.selection import select  # noqa: F401  (skip cleanly until it exists)

    out = kpca_edr(_segment(sim), sigma2="rule-of-thumb")
    assert out.selection is not None and out.sigma2 == pytest.approx(out.selection.sigma2)


@pytest.mark.parametrize("bad", [0.0, -1.0, np.nan, None, True, [1.0]])
def test_bad_sigma2(sim, bad):
    # the message is kpca's, the one check of a kernel width's value
    with pytest.raises(ValueError, match=r"sigma2 must be a finite positive number; got sigma2="):
        kpca_edr(_segment(sim), sigma2=bad)


def test_bad_baseline(sim):
    with pytest.raises(ValueError, match="baseline must be one of"):
        kpca_edr(_segment(sim), sigma2=1.0, baseline="median")


def test_bad_orientation(sim):
    with pytest.raises(ValueError, match="orientation must be one of"):
        kpca_edr(_segment(sim), sigma2=1.0, orientation="columns")


def test_selection_options_need_a_criterion(sim):
    with pytest.raises(TypeError, match="apply to a sigma2 criterion only"):
        kpca_edr(_segment(sim), sigma2=1.0, n_noise=10)


def test_too_few_valid_beats(sim):
    rec, beats, grid = sim
    import dataclasses

    few = dataclasses.replace(beats, valid=np.arange(beats.valid.size) < 10)
    seg = Segment(rec.ecg, rec.fs, 0.0, few, grid, 4.0, "II")
    with pytest.raises(SignalError, match="only 10 valid beats"):
        kpca_edr(seg, sigma2=1.0)


def test_fusion_follows_rsa_when_only_the_heart_rate_breathes():
    # Healthy-at-rest-like record: strong RSA, almost no morphological modulation. The
    # concentration^FUSION_POWER weights must lean on the RSA series and track the respiration.
    rec = simulate_recording(duration_s=180.0, fs=250.0, rsa_bpm=8.0, amplitude_modulation=0.02,
                             axis_modulation_deg=1.0, respiratory_baseline=0.005, noise_std=0.03,
                             random_state=1)
    beats = detect(rec.ecg, rec.fs)
    grid = np.arange(int(rec.duration_s * 4)) / 4.0
    case = (rec, beats, grid)
    fused = METHODS["kpca_rsa"].func(_segment(case), sigma2=0.5)
    assert fused.quality["weight_rsa"] > 0.7
    assert _agreement(case, fused) > 0.7


@pytest.mark.parametrize("kwargs, match", [
    ({"n_components": 0}, "n_components must be a positive integer"),
    ({"n_components": 2.5}, "n_components must be a positive integer"),
    ({"solver": "fs2"}, "kpca_fusion needs solver='dense'"),
    ({"orientation": "positions"}, "kpca_fusion needs solver='dense'"),
    ({"robust": "yes"}, "robust must be True or False"),
    ({"rsa": 1}, "rsa must be True or False, got 1"),
])
def test_kpca_fusion_bad_options(sim, kwargs, match):
    from edr.methods import kpca_fusion_edr

    with pytest.raises(ValueError, match=match):
        kpca_fusion_edr(_segment(sim), sigma2=0.5, **kwargs)


def test_fusion_beat_series_projects_new_beats_as_the_fit_scored_its_own(sim):
    from edr.methods import fusion_beat_series, kpca_fusion_edr

    seg = _segment(sim)
    out = kpca_fusion_edr(seg, sigma2=0.5)
    fit = out.model
    X, t, _ = seg.beat_matrix(fit.baseline, fit.robust)
    scores = fit.model.fit_transform(X)  # the same estimator refitted: the slow reference
    again = fusion_beat_series(_segment(sim), fit)
    for j in range(scores.shape[1]):
        np.testing.assert_allclose(again[f"kpca_{j + 1}"].times, t)
        np.testing.assert_allclose(np.abs(again[f"kpca_{j + 1}"].values), np.abs(scores[:, j]),
                                   atol=1e-9)
    assert set(again) == set(out.panel)
    # the scales are the band-passed grid series' standard deviations: panel * scale = series
    y = bandpass(series_on_grid(seg, again["r_amplitude"]))
    np.testing.assert_allclose(out.panel["r_amplitude"] * fit.scales["r_amplitude"], y,
                               atol=1e-9)
    # the fit's own rows: its stored scores, equal to projecting them (the slow reference)
    Xk = seg.matrix(fit.baseline)[seg.valid][:, fit.columns]
    rows = robust_beat_matrix(Xk, seg.beat_times[seg.valid])
    Xk = rows[0][rows[1]]
    np.testing.assert_allclose(fit.scores_of(Xk), fit.model.transform(Xk), atol=1e-9)
    np.testing.assert_array_equal(fit.scores_of(Xk), fit.scores)
    other = Xk[::2]  # other rows: projected
    np.testing.assert_array_equal(fit.scores_of(other), fit.model.transform(other))
    # beats of a later stretch: the same model projects them (no refit)
    rec, beats, grid = sim    # beats of a later stretch: the same model projects them (no refit)
    rec, beats, grid = sim
    half = rec.ecg.size // 2
    later = Segment(rec.ecg[half:], rec.fs, half / rec.fs, detect(rec.ecg[half:], rec.fs),
                    grid[grid >= half / rec.fs], 4.0, rec.ecg_channel)
    proj = fusion_beat_series(later, fit)["kpca_1"]
    assert proj.values.size > 20 and np.isfinite(proj.values).all()
    # from a time on: the same values for the beats from then on (the robust matrix still sees
    # every beat of the segment)
    since = float(np.median(t))
    part = fusion_beat_series(_segment(sim), fit, since=since)
    for key, whole in again.items():
        on = whole.times >= since
        np.testing.assert_array_equal(part[key].times, whole.times[on])
        np.testing.assert_allclose(part[key].values, whole.values[on], atol=1e-12)
