"""The QRS slopes (``edr.qrs_shape``) and where the default's panel holds them: one lead alone,
not several leads pooled (``docs/studies/unseen_conditions.md``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from edr.beats import detect
from edr.methods import Segment, fusion_beat_series, kpca_fusion_edr
from edr.modulation import MATRIX_RATE_HZ
from edr.pipeline import extract_edr
from edr.qrs_shape import SHAPE_SERIES, qrs_slopes
from edr.simulate import simulate_recording, simulate_scenario


def _slow(X, rate):
    """Row by row, sample by sample: the definitions of the docstring."""
    out = {k: [] for k in SHAPE_SERIES}
    for row in X:
        c = len(row) // 2
        out["up_slope"].append(max((row[i + 1] - row[i]) * rate for i in range(c)))
        out["down_slope"].append(-min((row[i + 1] - row[i]) * rate
                                      for i in range(c, len(row) - 1)))
    return {k: np.array(v) for k, v in out.items()}


def test_matches_the_definitions_sample_by_sample():
    X = np.random.default_rng(0).standard_normal((40, 15))
    fast, slow = qrs_slopes(X, 125.0), _slow(X, 125.0)
    assert list(fast) == list(SHAPE_SERIES)
    for k in SHAPE_SERIES:
        np.testing.assert_allclose(fast[k], slow[k], rtol=1e-12, atol=1e-12)


def test_a_triangular_qrs_gives_its_slopes():
    """A QRS drawn as straight lines: up at 10 mV/s, down at 25 mV/s to an S of -0.2 mV."""
    t = (np.arange(17) - 8) / 125.0
    up = np.clip(1.0 + 10.0 * t, 0.0, None)
    down = np.maximum(1.0 - 25.0 * t, -0.2)
    row = np.where(t <= 0, up, down)
    out = qrs_slopes(row[None, :] * np.array([[1.0], [0.5]]), 125.0)
    np.testing.assert_allclose(out["up_slope"], [10.0, 5.0], rtol=1e-9)
    np.testing.assert_allclose(out["down_slope"], [25.0, 12.5], rtol=1e-9)


@pytest.mark.parametrize("shape", [(5,), (3, 4), (3, 1)])
def test_refuses_what_is_not_a_centred_window_matrix(shape):
    with pytest.raises(ValueError, match="odd number"):
        qrs_slopes(np.zeros(shape), 125.0)
    with pytest.raises(ValueError, match="rate_hz"):
        qrs_slopes(np.zeros((3, 5)), 0.0)


def test_follows_the_breathing_when_amplitude_and_axis_move():
    """A ventilated lead (no RSA, amplitude and axis modulation only): both slopes follow the
    simulated respiration beat by beat."""
    rec = simulate_scenario("ventilated", duration_s=120.0, fs=300.0, leads=("II",),
                            random_state=0)
    seg = Segment(rec.ecg, rec.fs, 0.0, detect(rec.ecg, rec.fs), np.arange(480) / 4.0)
    v = seg.valid
    slopes = qrs_slopes(seg.matrix("none")[v], MATRIX_RATE_HZ)
    resp = np.interp(seg.beat_times[v], np.arange(rec.resp.size) / rec.resp_fs, rec.resp)
    for k in SHAPE_SERIES:
        assert abs(np.corrcoef(slopes[k], resp)[0, 1]) > 0.7, k


def _panel_names(res):
    return {k.rsplit("/", 1)[-1] for w in res.windows for k in w.quality["weights"]}


def test_one_lead_alone_adds_the_shape_series_several_leads_do_not():
    one = simulate_recording(120.0, 250.0, leads=("II",), random_state=1)
    three = simulate_recording(120.0, 250.0, leads=("I", "II", "V2"), random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alone = extract_edr(one)
        pooled = extract_edr(three)
        off = extract_edr(one, shape=False)
    assert set(SHAPE_SERIES) <= _panel_names(alone)
    assert not set(SHAPE_SERIES) & _panel_names(pooled)
    assert not set(SHAPE_SERIES) & _panel_names(off)


def test_the_projection_gives_the_fitted_panel():
    """A fit with the shape series projects them too (what a stream re-fuses)."""
    rec = simulate_recording(60.0, 250.0, random_state=0)
    seg = Segment(rec.ecg, rec.fs, 0.0, detect(rec.ecg, rec.fs), np.arange(240) / 4.0)
    out = kpca_fusion_edr(seg, shape=True, random_state=0)
    assert sorted(fusion_beat_series(seg, out.model)) == sorted(out.weights)
    assert set(SHAPE_SERIES) <= set(out.weights)
    assert not set(SHAPE_SERIES) & set(kpca_fusion_edr(seg, random_state=0).weights)
