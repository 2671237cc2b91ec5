import numpy as np
import pytest
from kernel_references import gha_pass_numpy

from kpca.base import NotFittedError
from kpca.hebbian import (
    SCHEDULES,
    GeneralizedHebbianPCA,
    ModulatedHebbOjaPCA,
    mmho_mean_update,
    mmho_pass,
)
from kpca.hebbian_rules import _gha_pass


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
    gha_pass_numpy(W2, X, order, gains)
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
        ({"n_components": 0}, "n_components must be an int >= 1; got n_components=0"),
        ({"n_components": 9}, "n_components must be <= n_samples=5; got n_components=9"),
        ({"eta0": 0.0}, "eta0 must be a finite positive number; got eta0=0.0"),
        ({"schedule": "exp"}, r"schedule must be one of \['1/t', 'constant'\]; got schedule='exp'"),
        ({"n_passes": 0}, "n_passes must be an int >= 1; got n_passes=0"),
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


# --- MMHO (Jankovic et al., Eq. (7)) ---------------------------------------------------------


def _mmho_step_reference(W, x, alpha):
    """Eq. (7) for one input, neuron by neuron, written as printed (per unit gain)."""
    y = W @ x
    S = x @ x
    IP = y @ y
    dW = np.zeros_like(W)
    for k in range(W.shape[0]):
        O_k = x * y[k] - W[k] * y[k] ** 2
        A_k = sum(y[j] ** 2 for j in range(k)) + y[k] ** 2
        dW[k] = O_k * ((1 + alpha) * S - IP) - alpha * O_k * A_k
    return dW


def test_mmho_pass_matches_reference():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 5)) * 0.5
    W = rng.normal(size=(3, 5)) * 0.4
    gains = np.linspace(0.05, 0.01, 30)
    ref = W.copy()
    for x, g in zip(X, gains, strict=True):
        ref += g * _mmho_step_reference(ref, x, 0.5)
    out = mmho_pass(W.copy(), X, gains, alpha=0.5)
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-14)


def _gauss_hermite_nodes(C):
    """Nodes and weights integrating polynomials of degree <= 5 exactly under N(0, C)."""
    t, w = np.polynomial.hermite_e.hermegauss(3)  # probabilists' Hermite: N(0, 1)
    w = w / w.sum()
    d = C.shape[0]
    grid = np.stack(np.meshgrid(*[t] * d, indexing="ij"), -1).reshape(-1, d)
    weights = np.prod(np.stack(np.meshgrid(*[w] * d, indexing="ij"), -1).reshape(-1, d), axis=1)
    return grid @ np.linalg.cholesky(C).T, weights


def _random_cov(rng, d, eigenvalues):
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    return (Q * eigenvalues) @ Q.T


def test_mmho_mean_update_gaussian_matches_quadrature():
    rng = np.random.default_rng(0)
    C = _random_cov(rng, 4, [1.0, 0.6, 0.3, 0.1])
    W = rng.normal(size=(3, 4)) * 0.6
    nodes, weights = _gauss_hermite_nodes(C)  # the update is a quartic polynomial in x
    exact = sum(wt * _mmho_step_reference(W, x, 0.5) for x, wt in zip(nodes, weights, strict=True))
    np.testing.assert_allclose(mmho_mean_update(W, C, alpha=0.5), exact, rtol=1e-10, atol=1e-13)


def test_mmho_mean_update_independent_sources_matches_enumeration():
    # Sources u_m = +-s_m with probability 1/2 (fourth cumulant -2 s_m^4), mixed by B.
    rng = np.random.default_rng(1)
    s = np.array([1.0, 0.7, 0.5, 0.2])
    B = rng.normal(size=(4, 4)) * 0.5
    signs = np.array(np.meshgrid(*[[-1.0, 1.0]] * 4, indexing="ij")).reshape(4, -1).T
    X = (signs * s) @ B.T
    W = rng.normal(size=(2, 4)) * 0.5
    exact = np.mean([_mmho_step_reference(W, x, 0.3) for x in X], axis=0)
    got = mmho_mean_update(W, (B * s**2) @ B.T, alpha=0.3, mixing=B, cumulants=-2 * s**4)
    np.testing.assert_allclose(got, exact, rtol=1e-10, atol=1e-13)


def test_eigenvectors_are_a_fixed_point_of_the_mean_flow_for_gaussian_data():
    rng = np.random.default_rng(2)
    lam = np.array([0.9, 0.5, 0.3, 0.12, 0.05])
    C = _random_cov(rng, 5, lam)
    V = np.linalg.eigh(C)[1][:, ::-1]
    W = V[:, :3].T * np.array([1.0, -1.0, 1.0])[:, None]  # signs are free
    np.testing.assert_allclose(mmho_mean_update(W, C), 0.0, atol=1e-14)
    # Not every point is fixed: a rotated or rescaled set moves.
    R = np.linalg.qr(np.eye(3) + 0.1 * rng.normal(size=(3, 3)))[0]
    assert np.abs(mmho_mean_update(R @ W, C)).max() > 1e-3
    assert np.abs(mmho_mean_update(1.1 * W, C)).max() > 1e-3


def test_eigenvectors_not_fixed_for_kurtotic_sources_behind_a_skew_mixture():
    # The mechanism behind the Fig. 2 failures: fourth cumulants move the fixed point
    # off the eigenvectors unless the mixture is orthogonal.
    rng = np.random.default_rng(3)
    var = np.array([1.0, 0.5, 0.3, 0.12, 0.05])
    kappa = -1.5 * var**2  # sub-Gaussian sources (a sine has -1.5 var^2)
    for B, moved in ((rng.normal(size=(5, 5)), True),
                     (np.linalg.qr(rng.normal(size=(5, 5)))[0], False)):
        C = (B * var) @ B.T
        W = np.linalg.eigh(C)[1][:, ::-1][:, :3].T
        step = np.abs(mmho_mean_update(W, C, mixing=B, cumulants=kappa)).max()
        assert (step > 1e-3) if moved else (step < 1e-13), step


def test_mmho_converges_to_covariance_eigenvectors():
    X = _data(3000) / 3.0
    w, V = _eigh(X)
    m = ModulatedHebbOjaPCA(3, eta0=0.01, n_passes=20, random_state=0).fit(X)
    cos = np.abs(np.sum(m.components_ * V[:, :3].T, axis=1))
    assert np.all(cos > 0.999), cos
    np.testing.assert_allclose(np.linalg.norm(m.weights_, axis=1), 1.0, atol=2e-2)


def test_mmho_parameters_and_divergence():
    with pytest.raises(ValueError, match=r"alpha must be a finite number >= 0; got alpha=-1"):
        ModulatedHebbOjaPCA(2, alpha=-1).fit(_data(50))
    with pytest.raises(FloatingPointError, match="MMHO diverged with eta0=5.0"):
        ModulatedHebbOjaPCA(2, eta0=5.0, n_passes=3, random_state=0).fit(_data(200))
    with pytest.raises(ValueError, match="C-contiguous 2-D float64"):
        mmho_pass(np.zeros((2, 3), dtype=np.float32), np.zeros((4, 3)), np.ones(4))
    with pytest.raises(ValueError, match=r"X must have shape \(n, 3\)"):
        mmho_pass(np.zeros((2, 3)), np.zeros((4, 2)), np.ones(4))
    with pytest.raises(ValueError, match="give both mixing and cumulants"):
        mmho_mean_update(np.zeros((1, 2)), np.eye(2), mixing=np.eye(2))
