import numpy as np
import pytest
from kernel_references import center_kernel_numpy, rbf_kernel_numpy

from kpca import KernelPCA
from kpca.preimage import expansion_coefficients, fixed_point_preimage


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(4)
    t = rng.uniform(0, np.pi, 80)
    X = np.c_[np.cos(t), np.sin(t)] + 0.05 * rng.standard_normal((80, 2))
    model = KernelPCA(4, 0.3).fit(X)
    Xte = X[:12] + 0.1 * rng.standard_normal((12, 2))
    return model, X, Xte


def _reference_iteration(gamma_tilde, X, sigma2, z0, tol, max_iter):
    """Slow, obviously-correct Eq. (10) for a single pattern."""
    z = z0.copy()
    for _ in range(max_iter):
        k = np.exp(-np.sum((X - z) ** 2, axis=1) / (2 * sigma2))
        w = gamma_tilde * k
        z_new = w @ X / w.sum()
        if np.linalg.norm(z_new - z) <= tol * (1 + np.linalg.norm(z)):
            return z_new
        z = z_new
    raise AssertionError("reference did not converge")


def test_gamma_tilde_expands_the_projection(fitted):
    # sum_i gamma~_i phi(x_i) = sum_k beta_k v_k + mean phi
    # (Jørgensen & Hansen 2012, Eqs. (3), (5)).
    model, X, Xte = fitted
    beta = model.transform(Xte)
    gt = expansion_coefficients(beta, model.alphas_, model.eigenvalues_)
    np.testing.assert_allclose(gt.sum(axis=1), 1.0, atol=1e-12)
    c = gt - 1.0 / X.shape[0]  # coefficients of the centred images
    Kc = center_kernel_numpy(rbf_kernel_numpy(X, sigma2=0.3))
    proj = c @ Kc @ model.alphas_ / np.sqrt(model.eigenvalues_)
    np.testing.assert_allclose(proj, beta, atol=1e-10)
    # and nothing outside the q axes: ||sum c_i phi~(x_i)||^2 = ||beta||^2
    np.testing.assert_allclose(
        np.einsum("ij,jk,ik->i", c, Kc, c), np.sum(beta**2, axis=1), atol=1e-10
    )


def test_matches_slow_reference_and_is_a_fixed_point(fitted):
    model, X, Xte = fitted
    gt = expansion_coefficients(model.transform(Xte), model.alphas_, model.eigenvalues_)
    res = fixed_point_preimage(gt, X, 0.3, z0=Xte, tol=1e-12, max_iter=2000)
    assert res.converged.all() and not res.n_restarts.any()
    for i in range(len(Xte)):
        ref = _reference_iteration(gt[i], X, 0.3, Xte[i], 1e-12, 2000)
        np.testing.assert_allclose(res.z[i], ref, atol=1e-9)
    # z = sum w_i x_i / sum w_i with w_i = gamma~_i k(z, x_i): Eq. (10) at z.
    w = gt * rbf_kernel_numpy(res.z, X, sigma2=0.3)
    np.testing.assert_allclose(w @ X / w.sum(axis=1, keepdims=True), res.z, atol=1e-10)
    # Equivalently the gradient of rho(z) = sum gamma~_i k(z, x_i) vanishes.
    grad = np.einsum("mi,mid->md", w, X[None] - res.z[:, None]) / 0.3
    np.testing.assert_allclose(grad, 0.0, atol=1e-9)


def test_default_start_is_training_point_with_largest_weight(fitted):
    model, X, Xte = fitted
    gt = expansion_coefficients(model.transform(Xte), model.alphas_, model.eigenvalues_)
    res = fixed_point_preimage(gt, X, 0.3, max_iter=1)
    z0 = X[np.argmax(gt, axis=1)]
    w = gt * rbf_kernel_numpy(z0, X, sigma2=0.3)
    np.testing.assert_allclose(res.z, w @ X / w.sum(axis=1, keepdims=True), atol=1e-12)


def test_restart_when_denominator_vanishes(fitted):
    model, X, Xte = fitted
    gt = expansion_coefficients(model.transform(Xte[:3]), model.alphas_, model.eigenvalues_)
    far = np.full((3, 2), 1e3)  # every k(z, x_i) underflows to 0: denominator 0
    res = fixed_point_preimage(gt, X, 0.3, z0=far, tol=1e-12, max_iter=2000)
    assert (res.n_restarts >= 1).all() and res.converged.all()
    # After the restart it is the iteration from the largest-weight training point.
    ref = fixed_point_preimage(gt, X, 0.3, tol=1e-12, max_iter=2000)
    np.testing.assert_allclose(res.z, ref.z, atol=1e-9)


def test_restarts_exhausted_and_iteration_cap_are_reported(fitted):
    model, X, Xte = fitted
    gt = expansion_coefficients(model.transform(Xte[:2]), model.alphas_, model.eigenvalues_)
    res = fixed_point_preimage(gt, X, 0.3, z0=np.full((2, 2), 1e3), max_restarts=0)
    assert not res.converged.any() and not res.n_restarts.any()
    np.testing.assert_array_equal(res.z, 1e3)
    res = fixed_point_preimage(gt, X, 0.3, z0=Xte[:2], tol=0.0, max_iter=3)
    assert not res.converged.any()
    np.testing.assert_array_equal(res.n_iter, 3)


def test_negative_denominator_triggers_restart():
    # A single training point with negative weight: (phi(z) . P phi) < 0 everywhere
    # near it, so the start is rejected and the positive-weight point is used.
    X = np.array([[0.0, 0.0], [3.0, 0.0]])
    gt = np.array([[-1.0, 2.0]])
    res = fixed_point_preimage(gt, X, 0.5, z0=np.array([[0.0, 0.1]]), tol=1e-12)
    assert res.n_restarts[0] == 1 and res.converged[0]
    assert res.z[0, 0] > 2.9


def test_restarts_stop_when_candidates_run_out():
    # All weights negative: the denominator is negative from every start. With
    # two training points only one restart candidate follows the default start,
    # although ten restarts are allowed.
    X = np.array([[0.0, 0.0], [1.0, 0.0]])
    gt = np.array([[-1.0, -1.0]])  # denominator negative everywhere
    res = fixed_point_preimage(gt, X, 0.5, max_restarts=10)
    assert not res.converged[0] and res.n_restarts[0] == 1


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (
            dict(gamma_tilde=np.ones((2, 5))),
            r"gamma_tilde must have shape \(m, 4\).*got shape \(2, 5\)",
        ),
        (
            dict(gamma_tilde=np.array([[np.nan, 1, 1, 1.0]])),
            r"gamma_tilde must contain only finite",
        ),
        (dict(sigma2=0.0), r"sigma2 must be a finite positive number; got sigma2=0.0"),
        (dict(tol=-1.0), r"tol must be a finite number >= 0; got tol=-1.0"),
        (dict(max_iter=0), r"max_iter must be an int >= 1; got max_iter=0"),
        (dict(max_restarts=-1), r"max_restarts must be an int >= 0; got max_restarts=-1"),
        (
            dict(z0=np.zeros((2, 2))),
            r"z0 must have 1 rows \(one per pattern\); got z0.shape=\(2, 2\)",
        ),
        (dict(z0=np.zeros((1, 3))), r"z0 has 3 features but 2 were expected"),
        (dict(X_fit=np.full((4, 2), np.inf)), r"X_fit must contain only finite values"),
    ],
)
def test_bad_input(kwargs, match):
    args = dict(gamma_tilde=np.full((1, 4), 0.25), X_fit=np.eye(4, 2), sigma2=1.0) | kwargs
    with pytest.raises(ValueError, match=match):
        fixed_point_preimage(**args)
