"""Robust beat matrix, concentration-weighted fusion and the default method's abstention."""

from __future__ import annotations

import numpy as np
import pytest

from edr.fusion import (
    LOCAL_S,
    WEIGHT_BAND_HZ,
    fuse,
    local_concentration,
    panel_weights,
    standardised,
)
from edr.modulation import robust_beat_matrix
from edr.rates import QUALITY_THRESHOLD
from edr.series_alignment import shifted
from edr.signal import BAND_HZ
from edr.spectra import spectral_concentration

FS = 4.0
T = np.arange(0, 240, 1 / FS)


def _sine(bpm, phase=0.0):
    return np.sin(2 * np.pi * bpm / 60 * T + phase)


# --------------------------------------------------------------------------- robust matrix
def test_running_median_removes_a_step_and_keeps_the_breathing():
    t = np.arange(0, 300, 0.8)  # beats
    resp = 0.1 * np.sin(2 * np.pi * 0.25 * t)
    step = np.where(t > 150, 1.0, 0.0)
    X = np.column_stack([resp + step, 2 * resp - step, resp])
    R, keep = robust_beat_matrix(X, t, window_s=30.0, outlier_mads=None)
    assert keep.all()
    # the step is gone from every column: the residual follows the breathing alone
    for j, gain in enumerate((1, 2, 1)):
        assert np.corrcoef(R[:, j], gain * resp)[0, 1] > 0.9
        assert abs(R[t > 170, j].mean() - R[t < 130, j].mean()) < 0.02


MEDIAN_PATHS = {"numpy": -1, "compiled": 10**9}
"""``COMPILED_MEDIAN_MAX_ROWS`` that sends every matrix down one path."""


@pytest.mark.parametrize("path", sorted(MEDIAN_PATHS))
def test_running_median_equals_a_brute_force_median(path, monkeypatch):
    import edr.modulation as modulation

    monkeypatch.setattr(modulation, "COMPILED_MEDIAN_MAX_ROWS", MEDIAN_PATHS[path])
    rng = np.random.default_rng(1)
    t = np.cumsum(rng.uniform(0.7, 0.9, 200))
    X = rng.normal(size=(200, 4))
    R, _ = robust_beat_matrix(X, t, window_s=10.0, outlier_mads=None)
    n = max(3, int(round(10.0 / np.median(np.diff(t)))) | 1)
    h = n // 2
    padded = np.concatenate([np.repeat(X[:1], h, 0), X, np.repeat(X[-1:], h, 0)])
    brute = np.array([np.median(padded[i:i + n], axis=0) for i in range(200)])
    np.testing.assert_array_equal(R, X - brute)


@pytest.mark.parametrize("path", sorted(MEDIAN_PATHS))
@pytest.mark.parametrize(("rows", "n"), [(1, 5), (2, 31), (7, 3), (60, 31), (300, 47)])
def test_running_median_of_ties_and_nan_sorts_as_numpy(rows, n, path, monkeypatch):
    """Equal values and NaN (sorted last, as ``numpy.partition`` sorts them), windows longer
    than the matrix: the middle of each sorted, edge-padded window, by either path."""
    import edr.modulation as modulation
    from edr.modulation import _running_median_columns

    monkeypatch.setattr(modulation, "COMPILED_MEDIAN_MAX_ROWS", MEDIAN_PATHS[path])
    rng = np.random.default_rng(rows)
    X = rng.normal(size=(rows, 3))
    X[rng.random(X.shape) < 0.3] = 0.5
    X[rng.random(X.shape) < 0.15] = np.nan
    h = n // 2
    padded = np.concatenate([np.repeat(X[:1], h, 0), X, np.repeat(X[-1:], h, 0)])
    brute = np.array([np.sort(padded[i:i + n], axis=0)[h] for i in range(rows)])
    np.testing.assert_array_equal(_running_median_columns(X, n), brute)


def test_running_median_paths_agree_by_size(monkeypatch):
    """Small matrices (a stream's stretches) go to the compiled sorted windows, large ones to
    NumPy; both give the same bits on a stream-sized and an offline-sized matrix."""
    import edr.modulation as modulation

    rng = np.random.default_rng(9)
    for rows in (modulation.COMPILED_MEDIAN_MAX_ROWS, 700):
        X = rng.normal(size=(rows, 17))
        got = {}
        for path, limit in MEDIAN_PATHS.items():
            monkeypatch.setattr(modulation, "COMPILED_MEDIAN_MAX_ROWS", limit)
            got[path] = modulation._running_median_columns(X, 47).tobytes()
        assert got["numpy"] == got["compiled"]
    assert modulation._running_median_columns(np.zeros((0, 3)), 5).shape == (0, 3)
    monkeypatch.undo()
    calls = []
    monkeypatch.setattr(modulation, "_running_median_sorted", lambda *a: calls.append(a[0].shape))
    limit = modulation.COMPILED_MEDIAN_MAX_ROWS
    modulation._running_median_columns(np.zeros((limit, 2)), 5)
    modulation._running_median_columns(np.zeros((limit + 1, 2)), 5)
    assert calls == [(limit, 2)]


def test_compiled_running_median_is_taken_on_request_whatever_the_size(monkeypatch):
    """``compiled=True`` (a stream's span) takes the compiled windows above the size limit too,
    with the brute-force medians; the default keeps such a matrix in NumPy."""
    import edr.modulation as modulation

    rows = modulation.COMPILED_MEDIAN_MAX_ROWS + 200
    rng = np.random.default_rng(11)
    X = rng.normal(size=(rows, 5))
    n = 31
    h = n // 2
    padded = np.concatenate([np.repeat(X[:1], h, 0), X, np.repeat(X[-1:], h, 0)])
    brute = np.array([np.sort(padded[i:i + n], axis=0)[h] for i in range(rows)])
    calls = []
    compiled = modulation._running_median_sorted
    monkeypatch.setattr(modulation, "_running_median_sorted",
                        lambda *a: calls.append(a[0].shape) or compiled(*a))
    np.testing.assert_array_equal(modulation._running_median_columns(X, n, compiled=True), brute)
    assert calls == [(rows, 5)]
    np.testing.assert_array_equal(modulation._running_median_columns(X, n), brute)
    assert calls == [(rows, 5)]  # by size: NumPy
    t = np.cumsum(rng.uniform(0.7, 0.9, rows))
    for a, b in zip(robust_beat_matrix(X, t, compiled=True), robust_beat_matrix(X, t),
                    strict=True):
        np.testing.assert_array_equal(a, b)


def test_running_median_blocks_join_without_seams(monkeypatch):
    """Blocks of rows (a few rows here) give the medians of the whole matrix at once."""
    import edr.modulation as modulation

    monkeypatch.setattr(modulation, "COMPILED_MEDIAN_MAX_ROWS", -1)
    rng = np.random.default_rng(5)
    X = rng.normal(size=(53, 2))
    whole = modulation._running_median_columns(X, 9)
    monkeypatch.setattr(modulation, "_MEDIAN_BLOCK_ROWS", 4)
    np.testing.assert_array_equal(modulation._running_median_columns(X, 9), whole)
    h = 4
    padded = np.concatenate([np.repeat(X[:1], h, 0), X, np.repeat(X[-1:], h, 0)])
    np.testing.assert_array_equal(whole, [np.median(padded[i:i + 9], axis=0) for i in range(53)])


def test_outlier_beats_are_flagged():
    rng = np.random.default_rng(2)
    t = np.arange(300) * 0.8
    X = rng.normal(scale=0.05, size=(300, 5))
    X[[40, 41, 42, 200]] += 3.0  # an ectopic run and a lone artefact
    _, keep = robust_beat_matrix(X, t, window_s=None, outlier_mads=5.0)
    assert not keep[[40, 41, 42, 200]].any() and keep.sum() >= 290


def test_robust_matrix_rejects_bad_shapes_and_passes_tiny_input():
    with pytest.raises(ValueError, match="one time per beat"):
        robust_beat_matrix(np.zeros((5, 3)), np.arange(4.0))
    X, keep = robust_beat_matrix(np.ones((2, 3)), np.arange(2.0))
    assert X.shape == (2, 3) and keep.all()


# --------------------------------------------------------------------------- fusion
def test_fusion_weights_follow_concentration_and_align_signs():
    rng = np.random.default_rng(3)
    resp = standardised(_sine(15))
    noise = standardised(rng.normal(size=T.size))
    panel = {"resp": resp, "flipped": -resp + 0.3 * noise, "noise": noise}
    f = fuse(panel, FS, power=2)
    assert f.best in ("resp", "flipped") and f.signs["flipped"] == -f.signs["resp"]
    assert sum(f.weights.values()) == pytest.approx(1.0)
    assert f.weights["noise"] < 0.1
    assert f.weights == pytest.approx(_weights_by_hand(panel, power=2))
    assert abs(np.corrcoef(f.series, resp)[0, 1]) > 0.95


def test_fusion_shifts_each_series_onto_the_heaviest_within_the_largest_lag():
    rng = np.random.default_rng(4)
    resp = standardised(_sine(15) + 0.2 * rng.normal(size=T.size))
    panel = {"resp": resp, "late": -np.roll(resp, 2), "early": np.roll(resp, -1)}
    f = fuse(panel, FS, power=2, max_lag_s=0.5)
    assert f.best == "resp" and f.lags == {"resp": 0, "late": -2, "early": 1}
    assert f.signs["late"] == -1.0 and f.signs["early"] == 1.0
    expected = sum(f.weights[k] * f.signs[k] * shifted(panel[k] / panel[k].std(), f.lags[k])
                   for k in panel)
    np.testing.assert_allclose(f.series, expected, atol=1e-12)
    core = slice(4, -4)  # away from the held edges the shifted copies are the anchor itself
    assert np.corrcoef(f.series[core], resp[core])[0, 1] > 0.999
    # the lag is the brute-force argmax of |correlation| over the allowed shifts
    for k in ("late", "early"):
        c = {lag: abs(np.dot(shifted(panel[k], lag), resp)) for lag in range(-2, 3)}
        assert f.lags[k] == max(c, key=c.get)


def test_the_heart_rate_never_anchors_while_a_morphology_series_weighs():
    # the heart rate lags the breath and is the cleaner series: the fusion keeps the phase of the
    # morphology (the heart rate is shifted onto it), unless told that nothing lags
    rng = np.random.default_rng(5)
    resp = standardised(_sine(15))
    morph = standardised(resp + 0.6 * rng.normal(size=T.size))
    panel = {"II/r_amplitude": morph, "II/rsa": np.roll(resp, 2)}
    f = fuse(panel, FS, power=2, max_lag_s=0.5)
    assert f.weights["II/rsa"] > f.weights["II/r_amplitude"]
    assert f.best == "II/r_amplitude" and f.lags["II/rsa"] == -2
    g = fuse(panel, FS, power=2, max_lag_s=0.5, delayed=())
    assert g.best == "II/rsa" and g.lags["II/r_amplitude"] == 2

    def delay(x):  # samples by which x follows the breath
        core = slice(8, -8)
        return max(range(-4, 5), key=lambda k: np.dot(np.roll(x, -k)[core], resp[core]))

    assert delay(f.series) == 0 and delay(g.series) == 2
    # a panel of the heart rate alone is anchored on it
    assert fuse({"rsa": resp}, FS).best == "rsa"


def test_fusion_without_lags_aligns_signs_only():
    resp = standardised(_sine(15))
    f = fuse({"resp": resp, "late": np.roll(resp, 2)}, FS, power=2, max_lag_s=0.0)
    assert f.lags == {"resp": 0, "late": 0}
    with pytest.raises(ValueError, match="max_lag_s"):
        fuse({"resp": resp}, FS, max_lag_s=-1.0)


def test_shifted_holds_the_edges():
    x = np.arange(5.0)
    np.testing.assert_array_equal(shifted(x, 2), [0, 0, 0, 1, 2])
    np.testing.assert_array_equal(shifted(x, -1), [1, 2, 3, 4, 4])
    assert shifted(x, 0) is x


def _weights_by_hand(panel, power):
    """panel_weights written out: mean concentration over half-overlapping 64 s stretches,
    raised to ``power``, times the base-weighted mean |r| with the other series, normalised."""
    n, step = int(LOCAL_S * FS), int(LOCAL_S * FS) // 2
    base = {}
    for k, v in panel.items():
        c = [spectral_concentration(v[i:i + n], FS, peak_band=WEIGHT_BAND_HZ)
             for i in range(0, v.size - n + 1, step)]
        base[k] = np.mean(c) ** power
    raw = {}
    for k in panel:
        others = [j for j in panel if j != k]
        agree = sum(base[j] * abs(np.corrcoef(panel[k], panel[j])[0, 1]) for j in others)
        raw[k] = base[k] * agree / sum(base[j] for j in others)
    total = sum(raw.values())
    return {k: v / total for k, v in raw.items()}


def test_a_concentrated_series_that_stands_alone_cannot_anchor_the_fusion():
    # an aliased mains line in the beat series: a pure 11 /min tone, more concentrated than the
    # breathing at 15 /min, which three noisy series share; the consensus keeps the tone light
    rng = np.random.default_rng(5)
    resp = _sine(15)
    panel = {f"m{i}": standardised(resp + 0.8 * rng.normal(size=T.size)) for i in range(3)}
    panel["tone"] = standardised(_sine(11))
    assert fuse(panel, FS, consensus=False).best == "tone"
    f = fuse(panel, FS)
    assert f.best != "tone" and f.weights["tone"] < min(f.weights[f"m{i}"] for i in range(3))
    assert abs(np.corrcoef(f.series, resp)[0, 1]) > 0.8


def test_local_concentration_follows_a_rate_that_changes_every_minute():
    # paced breathing: 8, 14, 23, 14 /min a minute each; over the whole window the power is
    # spread over three peaks, within each 64 s stretch it is not
    rate = np.repeat([8.0, 14.0, 23.0, 14.0, 8.0], int(60 * FS))[:T.size] / 60.0
    y = standardised(np.sin(2 * np.pi * np.cumsum(rate) / FS))
    whole = local_concentration(y, FS, local_s=None)
    assert whole == pytest.approx(spectral_concentration(y, FS, peak_band=WEIGHT_BAND_HZ))
    assert local_concentration(y, FS) > 1.5 * whole
    n = int(round(LOCAL_S * FS))  # the mean over the half-overlapping stretches, one by one
    stretches = [spectral_concentration(y[i:i + n], FS, peak_band=WEIGHT_BAND_HZ)
                 for i in range(0, y.size - n + 1, n // 2)]
    assert local_concentration(y, FS) == float(np.mean(stretches))
    # several series as rows: each one's, in one call (the spectra batched: equal to rounding)
    rows = np.array([y, y[::-1], np.roll(y, 500)])
    for local_s in (LOCAL_S, None):
        np.testing.assert_allclose(local_concentration(rows, FS, local_s=local_s),
                                   [local_concentration(r, FS, local_s=local_s) for r in rows],
                                   rtol=1e-12)


def test_a_slow_shared_component_cannot_anchor_the_fusion():
    # two series share a 4 /min oscillation (slow drift or step transients of both leads),
    # one series breathes at 15 /min with some noise: measured over the whole 3-60 /min band
    # the slow pair is the more concentrated and anchors; in WEIGHT_BAND_HZ (6-60 /min) it is not
    rng = np.random.default_rng(4)
    slow = standardised(_sine(4))
    resp = standardised(_sine(15) + 0.6 * rng.normal(size=T.size))
    panel = {"slow_a": slow, "slow_b": standardised(slow + 0.2 * rng.normal(size=T.size)),
             "resp": resp}
    assert fuse(panel, FS, band=BAND_HZ).best.startswith("slow")
    f = fuse(panel, FS)
    assert f.best == "resp" and f.weights["resp"] > 0.5
    assert abs(np.corrcoef(f.series, resp)[0, 1]) > 0.8


def test_fusion_by_hand():
    a, b = standardised(_sine(12)), standardised(_sine(12, 0.3))
    w = panel_weights({"a": a, "b": b}, FS, power=1)
    f = fuse({"a": a, "b": b}, FS, power=1, max_lag_s=0.0)
    np.testing.assert_allclose(f.series, w["a"] * a / a.std() + w["b"] * b / b.std())


def test_fusion_rejects_an_empty_or_ragged_panel():
    with pytest.raises(ValueError, match="no series"):
        fuse({})
    with pytest.raises(ValueError, match="points"):
        fuse({"a": _sine(12), "b": _sine(12)[:-4]})


# --------------------------------------------------------------------------- rate quality


# --------------------------------------------------------------------------- the pipeline
def test_default_method_fuses_and_abstains_without_breathing():
    from edr.pipeline import extract_edr
    from edr.scoring import score
    from edr.simulate import simulate_recording

    rec = simulate_recording(duration_s=180.0, fs=250.0, random_state=5)
    res = extract_edr(rec)
    assert res.method == "kpca_fusion" and res.status == "ok"
    w = res.windows[0].quality["weights"]
    assert sum(w.values()) == pytest.approx(1.0) and {"kpca_1", "r_amplitude", "qrs_area"} <= set(w)
    assert np.isfinite(res.rate_bpm).mean() > 0.85 and score(res, rec).corr > 0.9
    # no respiratory modulation at all (and no slow drift, which every series would share at the
    # band's lower edge): the panel disagrees, the rate is withheld
    flat = simulate_recording(duration_s=180.0, fs=250.0, random_state=5, amplitude_modulation=0.0,
                              axis_modulation_deg=0.0, rsa_bpm=0.0, respiratory_baseline=0.0,
                              baseline_wander=0.0)
    none = extract_edr(flat)
    assert np.isfinite(none.rate_bpm).mean() < 0.5
    assert np.median(none.rate_quality) < QUALITY_THRESHOLD
    assert none.status.startswith("no usable breathing")
    # the status counts the rate windows that still reach the threshold, as the rates show
    assert f"rates given only for the {np.isfinite(none.rate_bpm).sum()} of " \
           f"{none.rate_bpm.size} rate windows" in none.status
    assert none.windows[0].quality["status"].startswith("low quality")


def test_grid_columns_carry_the_nearest_window():
    from edr.pipeline import extract_edr
    from edr.simulate import simulate_recording

    res = extract_edr(simulate_recording(duration_s=120.0, fs=250.0, random_state=6))
    cols = res.grid_columns()
    assert list(cols) == ["time_s", "edr", "rate_bpm", "quality"]
    k = np.argmin(np.abs(res.time - res.rate_time[2]))
    assert cols["rate_bpm"][k] == res.rate_bpm[2] and cols["quality"][k] == res.rate_quality[2]


@pytest.mark.realdata
def test_ventricular_tachycardia_alarm_record_is_not_ok(data_dir):
    # wfdb-samples/v102s: an ICU alarm episode, 42-52 % of the beats dropped as artefacts; the
    # extraction must say it found no usable breathing instead of reporting rates
    from edr.io import read_record
    from edr.pipeline import extract_edr

    res = extract_edr(read_record(data_dir / "wfdb-samples" / "v102s.hea"))
    assert res.status.startswith("no usable breathing")
    assert not np.isfinite(res.rate_bpm).any()
    assert all(w.quality["status"].startswith("low quality") for w in res.windows)
    assert res.windows[0].quality["dropped_share"] > 1 / 3


def test_windows_with_mostly_dropped_beats_withhold_their_rates():
    from edr.rates import MAX_DROPPED_SHARE, JudgedRates
    from edr.windows import Window

    t = np.arange(16.0, 300.0, 16.0)
    rates = JudgedRates(t, np.full(t.size, 15.0), np.full(t.size, 15.0), np.ones(t.size))
    first, second = Window(0.0, 160.0, None, 120.0), Window(120.0, 300.0, 160.0, None)
    kept = rates.withheld([first])
    assert np.isnan(kept.rate_bpm[t < 140]).all() and np.isfinite(kept.rate_bpm[t >= 140]).all()
    assert rates.window_quality(second) == 1.0 and 0 < MAX_DROPPED_SHARE < 0.5
