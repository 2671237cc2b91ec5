import numpy as np
import pytest

from kpca.base import NotFittedError
from kpca.hebbian import SCHEDULES, GeneralizedHebbianPCA, _gha_pass, _gha_pass_numpy


def _data(n=2000, seed=0):
    """Anisotropic Gaussian cloud with well-separated covariance eigenvalues."""
    rng = np.random.default_rng(seed)
    scales = np.array([3.0, 2.0, 1.2, 0.5, 0.2])
    R, _ = np.linalg.qr(rng.normal(size=(5, 5)))
    return (rng.normal(size=(n, 5)) * scales) @ R.T + 1.5


def _eigh(X):
    w, V = np.linalg.eigh(np.cov(X, rowvar=False))
    return w[::-1], V[:, ::-1]


def test_pass_matches_numpy_twin():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 6))
    W = rng.normal(size=(3, 6))
    order = rng.permutation(40)
    gains = np.linspace(0.05, 0.01, 40)
    W1, W2 = W.copy(), W.copy()
    _gha_pass(W1, X, order, gains)
    _gha_pass_numpy(W2, X, order, gains)
    np.testing.assert_allclose(W1, W2, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("schedule,eta0", [("constant", 0.0005), ("1/t", 0.01)])
def test_converges_to_covariance_eigenvectors(schedule, eta0):
    X = _data()
    w, V = _eigh(X)
    m = GeneralizedHebbianPCA(3, eta0=eta0, schedule=schedule, n_passes=30, random_state=0).fit(X)
    cos = np.abs(np.sum(m.components_ * V[:, :3].T, axis=1))
    # Tolerance: 1 - |cos| < 1e-3 for every component (the constant gain leaves
    # O(eta0) jitter, the 1/t schedule anneals it).
    assert np.all(cos > 0.999), cos
    np.testing.assert_allclose(m.explained_variance_, w[:3], rtol=1e-2)
    # Raw weights converge to unit norm (Sanger's fixed point).
    np.testing.assert_allclose(np.linalg.norm(m.weights_, axis=1), 1.0, atol=2e-2)


def test_transform_and_sign_convention():
    X = _data(500)
    m = GeneralizedHebbianPCA(2, eta0=0.002, n_passes=5, random_state=1)
    Z = m.fit_transform(X)
    np.testing.assert_allclose(Z, (X - X.mean(0)) @ m.components_.T)
    idx = np.argmax(np.abs(m.components_), axis=1)
    assert np.all(m.components_[np.arange(2), idx] > 0)
    np.testing.assert_allclose(m.transform(X[:7]), Z[:7])


def test_reproducible_with_seed():
    X = _data(300)
    a = GeneralizedHebbianPCA(2, eta0=0.002, n_passes=3, random_state=5).fit(X).weights_
    b = GeneralizedHebbianPCA(2, eta0=0.002, n_passes=3, random_state=5).fit(X).weights_
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "kw,match",
    [
        ({"n_components": 0}, "n_components must be >= 1; got n_components=0"),
        ({"n_components": 9}, "n_components must be <= n_samples=5; got n_components=9"),
        ({"eta0": 0.0}, "eta0 must be a finite positive number; got eta0=0.0"),
        ({"schedule": "exp"}, r"schedule must be one of \['1/t', 'constant'\]; got schedule='exp'"),
        ({"n_passes": 0}, "n_passes must be a positive integer; got n_passes=0"),
    ],
)
def test_bad_parameters(kw, match):
    params = {"n_components": 2, "eta0": 0.01} | kw
    with pytest.raises(ValueError, match=match):
        GeneralizedHebbianPCA(**params).fit(_data(50))


def test_divergent_gain_raises():
    with pytest.raises(FloatingPointError, match="GHA diverged with eta0=50.0"):
        GeneralizedHebbianPCA(2, eta0=50.0, n_passes=3, random_state=0).fit(_data(200) * 10)


def test_not_fitted_and_feature_mismatch():
    m = GeneralizedHebbianPCA(1)
    with pytest.raises(NotFittedError, match="not fitted"):
        m.transform(np.zeros((2, 5)))
    m.fit(_data(100))
    with pytest.raises(
        ValueError, match="X has 3 features, but GeneralizedHebbianPCA is expecting 5"
    ):
        m.transform(np.zeros((2, 3)))


def test_schedules_registry():
    assert set(SCHEDULES) == {"constant", "1/t"}
