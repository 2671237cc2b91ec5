import numpy as np
import pytest

from kpca.selection import select
from kpca.selection.shannon import kernel_entropy


def test_histogram_entropy_brute_force():
    rng = np.random.default_rng(0)
    v = rng.random(5000) ** 3
    counts = np.zeros(256)
    for x in v:
        counts[min(int(x * 256), 255)] += 1
    p = counts[counts > 0] / v.size
    assert kernel_entropy(v) == pytest.approx(-np.sum(p * np.log(p)))


def test_kde_entropy_of_uniform_is_near_zero():
    v = np.random.default_rng(1).random(20000)
    assert (
        abs(kernel_entropy(v, estimator="kde", bins=512)) < 0.05
    )  # differential entropy of U(0,1) is 0


def test_curve_has_interior_maximum_and_matches_manual_curve():
    X = np.random.default_rng(2).normal(size=(80, 2))
    grid = 2.0 ** np.arange(-10, 11)
    res = select(X, "shannon", grid=grid, n_components=1)
    iu = np.triu_indices(80, 1)
    d2 = np.sum((X[:, None] - X[None]) ** 2, axis=-1)[iu]
    manual = [kernel_entropy(np.exp(-d2 / (2 * s))) for s in grid]
    np.testing.assert_allclose(res.curve, manual)
    assert 0 < res.index < grid.size - 1
    assert res.criterion == "widjaja2012" and res.n_components == 1


def test_bad_estimator():
    X = np.random.default_rng(3).normal(size=(20, 2))
    with pytest.raises(ValueError, match="estimator must be one of"):
        select(X, "shannon", estimator="renyi")
    with pytest.raises(ValueError, match="bins must be an int"):
        select(X, "shannon", bins=1)
