"""edr.evaluate.breaths against slow, obviously-correct references."""

from __future__ import annotations

import numpy as np
import pytest

from edr.evaluate.breaths import (
    BreathScores,
    in_stretches,
    interval_errors,
    match_breaths,
    score_breaths,
    score_kept,
    tolerances,
)


def _slow_tolerances(ref, max_tol=1.0, fraction=0.25):
    out = []
    for i, r in enumerate(ref):
        gaps = [abs(r - ref[j]) for j in (i - 1, i + 1) if 0 <= j < len(ref)]
        out.append(min(max_tol, fraction * min(gaps)) if gaps else max_tol)
    return np.array(out)


def _max_matching(det, ref, tol):
    """Size of a maximum one-to-one matching (Kuhn's augmenting paths over every pair within
    the reference breath's tolerance)."""
    adj = [[j for j, d in enumerate(det) if abs(d - r) <= t] for r, t in zip(ref, tol, strict=True)]
    owner = [-1] * len(det)

    def augment(i, seen):
        for j in adj[i]:
            if j not in seen:
                seen.add(j)
                if owner[j] < 0 or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return sum(augment(i, set()) for i in range(len(ref)))


def _random_case(rng):
    """Annotated breaths 1-8 s apart; detections: most of them jittered, plus stray ones."""
    ref = np.cumsum(rng.uniform(1.0, 8.0, rng.integers(0, 40)))
    found = ref[rng.random(ref.size) < 0.85]
    det = np.concatenate([found + rng.normal(0, 0.5, found.size),
                          rng.uniform(0, 300, rng.integers(0, 10))])
    return np.sort(det), ref


@pytest.mark.parametrize("seed", range(40))
def test_matching_is_maximum_and_one_to_one(seed):
    rng = np.random.default_rng(seed)
    det, ref = _random_case(rng)
    tol = _slow_tolerances(ref)
    np.testing.assert_allclose(tolerances(ref), tol)
    ri, di = match_breaths(det, ref)
    assert ri.size == _max_matching(det, ref, tol)
    assert len(set(ri.tolist())) == ri.size and len(set(di.tolist())) == di.size
    assert np.all(np.abs(det[di] - ref[ri]) <= tol[ri])
    assert np.all(np.diff(ri) > 0) and np.all(np.diff(di) > 0)


@pytest.mark.parametrize("seed", range(20))
def test_interval_errors_against_a_loop(seed):
    rng = np.random.default_rng(100 + seed)
    det, ref = _random_case(rng)
    ri, di = match_breaths(det, ref)
    pair = dict(zip(ri.tolist(), di.tolist(), strict=True))
    slow = [abs((det[pair[i + 1]] - det[pair[i]]) - (ref[i + 1] - ref[i]))
            for i in range(len(ref) - 1)
            if i in pair and i + 1 in pair and pair[i + 1] == pair[i] + 1]
    np.testing.assert_allclose(interval_errors(det, ref, ri, di), slow)


def test_scores_by_hand():
    ref = np.arange(0.0, 40.0, 4.0)  # 10 breaths, tolerance 1 s
    det = np.r_[ref[:8] + 0.5, 35.0, 38.0]  # 8 within 0.5 s, 36 found 1.0 s early, one extra
    s = score_breaths(det, ref)
    assert (s.n_reference, s.n_detected, s.n_matched) == (10, 10, 9)
    assert s.sensitivity == pytest.approx(0.9) and s.positive_predictivity == pytest.approx(0.9)
    assert s.f1 == pytest.approx(0.9)
    # 7 pairs of consecutive matches (0-28 s), exact; 32 s is missed, so 36 s has no pair
    np.testing.assert_allclose(s.interval_errors, np.zeros(7), atol=1e-12)


def test_fast_breathing_tightens_the_tolerance():
    ref = np.arange(0.0, 30.0, 1.5)  # 40 /min: tolerance 0.375 s
    assert score_breaths(ref + 0.3, ref).n_matched == ref.size
    assert score_breaths(ref + 0.45, ref).n_matched == 0


def test_bad_inputs():
    with pytest.raises(ValueError, match="increasing"):
        score_breaths([2.0, 1.0], [1.0])
    with pytest.raises(ValueError, match="finite"):
        score_breaths([np.nan], [1.0])
    with pytest.raises(ValueError, match="fraction"):
        tolerances([1.0, 2.0], fraction=0.5)
    s = score_breaths([], [])
    assert np.isnan(s.f1) and s.n_matched == 0


def test_kept_scoring_and_pooling():
    class B:
        time = np.array([4.0, 8.0, 12.0, 30.0])
        low_quality = np.array([False, False, False, True])
        withheld = np.array([[20.0, 40.0]])

    ref = np.array([4.0, 8.0, 12.0, 16.0, 24.0, 28.0, 32.0])
    s = score_kept(B, ref)
    assert (s.n_reference, s.n_detected, s.n_matched, s.n_annotated) == (4, 3, 3, 7)
    assert s.share_kept == pytest.approx(4 / 7)
    p = BreathScores.pooled([s, score_breaths([1.0], [1.0])])
    assert (p.n_reference, p.n_matched, p.n_annotated) == (5, 4, 8)
    assert p.share_kept == pytest.approx(5 / 8)
    np.testing.assert_array_equal(in_stretches([19.9, 20.0, 39.9, 40.0], [[20.0, 40.0]]),
                                  [False, True, True, False])
