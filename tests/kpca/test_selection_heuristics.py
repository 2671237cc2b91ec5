import numpy as np
import pytest

from kpca.selection import heuristics as h


@pytest.fixture
def X():
    return np.random.default_rng(0).normal(size=(40, 3)) * [1.0, 2.0, 0.5]


def _pairwise(X):
    return np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=-1))


def test_rule_of_thumb_eq20(X):
    assert h.rule_of_thumb_sigma2(X) == pytest.approx(0.1 * 3 * np.mean(X.var(axis=0)))


def test_distance_heuristics_against_brute_force(X):
    D = _pairwise(X)
    iu = np.triu_indices(len(X), 1)
    assert h.median_distance_sigma2(X) == pytest.approx(np.median(D[iu]) ** 2)
    assert h.mean_distance_sigma2(X) == pytest.approx(np.mean(D[iu]) ** 2)
    assert h.max_distance_to_mean_sigma2(X) == pytest.approx(
        max(np.linalg.norm(x - X.mean(0)) for x in X) ** 2
    )
    Dn = D + np.diag(np.full(len(X), np.inf))
    for k in (1, 5):
        ref = np.mean(np.sort(Dn, axis=1)[:, :k]) ** 2
        assert h.knn_distance_sigma2(X, k) == pytest.approx(ref)


def test_component_rules():
    ev = [10.0, 6.0, 3.0, 0.5, 0.45, 0.44, 0.43]
    assert h.guttman_kaiser(ev) == 3  # mean is 2.97
    # differences 4, 3, 2.5, .05, .01, .01: the first below 5% of 4 (=0.2) is at index 3
    assert h.scree(ev) == 3


def test_heuristic_errors():
    with pytest.raises(ValueError, match="X is constant"):
        h.rule_of_thumb_sigma2(np.ones((12, 2)))
    with pytest.raises(ValueError, match="k must be an int"):
        h.knn_distance_sigma2(np.random.default_rng(0).normal(size=(5, 2)), 5)
    with pytest.raises(ValueError, match="eigenvalues must hold at least 2"):
        h.scree([1.0])
