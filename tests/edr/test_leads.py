"""Tests of edr.leads (per-lead quality, lead choice, fusion) and edr.multilead (joint beats,
multi-lead kPCA)."""

from __future__ import annotations

import numpy as np
import pytest

from edr.beats import detect
from edr.errors import SignalError
from edr.leads import (
    LeadQuality,
    assess_leads,
    choose_lead,
    fuse_edrs,
    lead_quality,
    matched_beats,
)
from edr.modulation import QRS_HALF_WIDTH_S, r_amplitude
from edr.multilead import joint_beats, multilead_kpca, multilead_matrix
from edr.scoring import correlation
from edr.signal import bandpass, to_uniform_grid
from edr.simulate import simulate_recording
from edr.spectra import spectral_concentration


@pytest.fixture(scope="module")
def rec():
    return simulate_recording(duration_s=120.0, fs=125.0, leads=("II", "V5", "aVR"), random_state=3)


@pytest.fixture(scope="module")
def rec_beats(rec):
    return {n: detect(x, rec.fs) for n, x in rec.leads.items()}


def _edr(x, fs, beats, t_grid):
    v = beats.valid
    _, y = to_uniform_grid(beats.times[v], r_amplitude(x, fs, beats)[v], t_start=t_grid[0],
                           t_end=t_grid[-1])
    return bandpass(y)


def _q(name, score, usable=True):
    return LeadQuality(lead=name, usable=usable, reason="ok" if usable else "flat",
                       masked_fraction=0.0, score=score if usable else 0.0)


def test_flat_lead_is_unusable_and_never_chosen(rec, rec_beats):
    leads = dict(rec.leads)
    leads["V5"] = np.full(leads["V5"].size, 0.25)  # disconnected electrode
    t_grid = np.arange(1.0, 119.0, 0.25)
    beats = {n: b for n, b in rec_beats.items() if n != "V5"}
    edrs = {n: _edr(leads[n], rec.fs, b, t_grid) for n, b in beats.items()}
    q = assess_leads(leads, rec.fs, beats=beats, edrs=edrs)
    assert list(q) == ["II", "V5", "aVR"]
    assert not q["V5"].usable and q["V5"].score == 0.0
    assert "beat detection failed" in q["V5"].reason
    assert q["II"].usable and q["aVR"].usable
    assert q["II"].agreement == 1.0 and q["aVR"].agreement == 1.0
    assert choose_lead(q) in {"II", "aVR"}
    edrs["V5"] = np.zeros(t_grid.size)
    fused = fuse_edrs(edrs, q)
    assert np.all(np.isfinite(fused))
    # the flat lead has weight 0: the fusion equals the fusion without it
    np.testing.assert_allclose(fused, fuse_edrs({n: edrs[n] for n in ("II", "aVR")}, q))
    d = q["V5"].as_dict()
    assert d["concentration"] is None and d["usable"] is False


def test_mostly_nan_lead_is_unusable(rec):
    x = rec.leads["II"].copy()
    x[: int(0.7 * x.size)] = np.nan
    q = lead_quality(x, rec.fs, lead="II")
    assert not q.usable and "70 % of the samples" in q.reason


def test_noisy_lead_loses_to_clean_lead(rec):
    rng = np.random.default_rng(1)
    leads = {"II": rec.leads["II"],
             "noisy": rec.leads["II"] + 0.15 * rng.standard_normal(rec.leads["II"].size)}
    t_grid = np.arange(1.0, 119.0, 0.25)
    beats = {n: detect(x, rec.fs) for n, x in leads.items()}
    edrs = {n: _edr(leads[n], rec.fs, b, t_grid) for n, b in beats.items()}
    q = assess_leads(leads, rec.fs, beats=beats, edrs=edrs)
    assert q["II"].concentration > q["noisy"].concentration
    assert choose_lead(q) == "II"


def test_choose_lead_without_usable_lead_raises():
    with pytest.raises(SignalError, match="no usable ECG lead .*I: flat"):
        choose_lead({"I": _q("I", 0.5, usable=False)})
    # a lead whose EDR failed upstream is reported by name and reason only
    q = {"V": LeadQuality(lead="V", usable=False, reason="only 3 beats"), "II": _q("II", 0.2)}
    assert choose_lead(q) == "II"


def test_fuse_edrs_hand_computed_weights_and_signs():
    a = np.array([1.0, -1.0, 1.0, -1.0])
    b = np.array([-2.0, 2.0, -2.0, 2.0])  # anti-phase, other gain
    c = np.array([1.0, 1.0, -1.0, -1.0])
    q = {"a": _q("a", 0.6), "b": _q("b", 0.3), "c": _q("c", 0.1)}
    fused = fuse_edrs({"a": a, "b": b, "c": c}, q)
    # z(a)=a, sign-aligned z(b)=a, z(c)=c orthogonal to a (sign +): (0.6a+0.3a+0.1c)/1.0
    np.testing.assert_allclose(fused, 0.9 * a + 0.1 * c)
    with pytest.raises(ValueError, match=r"one grid, got lengths \[3, 4\]"):
        fuse_edrs({"a": a, "b": b[:3]}, q)


def test_fusion_of_noisy_copies_beats_each_copy():
    rng = np.random.default_rng(2)
    t = np.arange(0, 300, 0.25)
    s = bandpass(np.sin(2 * np.pi * 0.25 * t) + 0.5 * np.sin(2 * np.pi * 0.31 * t))
    edrs = {f"L{i}": (-1) ** i * s + 0.8 * s.std() * bandpass(rng.standard_normal(t.size))
            for i in range(3)}
    q = {n: _q(n, spectral_concentration(v)) for n, v in edrs.items()}
    fused = fuse_edrs(edrs, q)
    assert correlation(fused, s) > max(correlation(v, s) for v in edrs.values()) + 0.05


def test_joint_beats_and_multilead_kpca(rec, rec_beats):
    from dataclasses import replace

    beats = {n: replace(b, valid=b.valid.copy()) for n, b in rec_beats.items()}
    q = assess_leads(rec.leads, rec.fs, beats=beats)
    joint, offsets = joint_beats(beats, q)
    assert offsets[choose_lead(q)] == 0.0 and set(offsets) == set(rec.leads)
    assert len(joint) == len(beats[choose_lead(q)]) and joint.valid.mean() > 0.9
    # breaking one lead's beat invalidates that beat jointly
    other = next(n for n in rec.leads if n != choose_lead(q))
    beats[other].valid[10:15] = False
    j2, _ = joint_beats(beats, q)
    assert j2.valid.sum() <= joint.valid.sum() - 4
    X = multilead_matrix(rec.leads, rec.fs, joint, offsets)
    assert X.shape == (len(joint), 3 * (2 * round(QRS_HALF_WIDTH_S * rec.fs) + 1))
    t, v, model = multilead_kpca(rec.leads, rec.fs, joint, offsets, sigma2="rule-of-thumb")
    tg, y = to_uniform_grid(t, v, t_start=2.0, t_end=118.0)
    ref_resp = np.interp(tg, np.arange(rec.resp.size) / rec.resp_fs, rec.resp)
    assert correlation(bandpass(y), bandpass(ref_resp)) > 0.6


def test_agreement_survives_a_constant_channel_delay():
    """Monitor channels can be shifted (BIDMC bidmc03: lead II 180 ms after V)."""
    from edr.beats import Beats

    rng = np.random.default_rng(5)
    t = np.cumsum(0.8 + 0.03 * rng.standard_normal(300))
    fs = 125.0
    mk = lambda tt: Beats(peaks=tt * fs, fs=fs, valid=np.ones(tt.size, bool), polarity=1,  # noqa: E731
                          n_ectopic=0, n_artifact=0, template_corr=np.ones(tt.size),
                          clipped=np.zeros(tt.size, bool))
    shifted = t + 0.18 + 0.004 * rng.standard_normal(t.size)
    shifted = np.delete(shifted, [50, 51])  # two beats missed by the other lead
    n = int(t[-1] * fs) + 200
    leads = {"II": rng.standard_normal(n), "V": rng.standard_normal(n)}  # only the beats matter
    q = assess_leads(leads, fs, beats={"II": mk(t), "V": mk(shifted)})
    assert q["II"].agreement == pytest.approx(1 - 2 / t.size)
    assert q["V"].agreement == 1.0
    q["II"].score, q["V"].score = 1.0, 0.9
    joint, offsets = joint_beats({"II": mk(t), "V": mk(shifted)}, q)
    assert offsets["V"] == pytest.approx(0.18 * fs, abs=0.2)
    assert np.flatnonzero(~joint.valid).tolist() == [50, 51]
    # a lead scoring below 0.8 of the best is not joined
    q["V"].score = 0.5
    joint, offsets = joint_beats({"II": mk(t), "V": mk(shifted)}, q)
    assert offsets == {"II": 0.0} and joint.valid.all()


def test_matched_beats_removes_the_pairs_offset_and_finds_the_nearest_beat():
    rng = np.random.default_rng(0)
    a = np.cumsum(rng.uniform(0.7, 1.1, 200))
    keep = np.ones(a.size, bool)
    keep[[10, 50, 51, 120]] = False  # beats the other lead missed
    b = a[keep] + 0.037 + rng.normal(0.0, 0.004, keep.sum())  # a constant offset and jitter
    hit, index = matched_beats(a, b)
    # slow reference: the nearest beat of b to each shifted time, matched within the tolerance
    shift = np.median(b - a[keep])
    nearest = np.array([int(np.argmin(np.abs(b - (t + shift)))) for t in a])
    assert hit.tolist() == keep.tolist()
    assert index[hit].tolist() == nearest[hit].tolist()
    # the 37 ms offset is taken out first: within 20 ms every kept beat still matches
    assert (np.abs(b - a[keep]) > 0.02).mean() > 0.9
    assert matched_beats(a, b, 0.02)[0][keep].all()
    assert matched_beats(a, np.array([]))[0].tolist() == [False] * a.size
