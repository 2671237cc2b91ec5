import numpy as np
import pytest

from kpca import kernels as kk


@pytest.mark.parametrize("d", [1, 2, 15, 16, 50])
def test_squared_distances_match_numpy_twin(d):
    rng = np.random.default_rng(d)
    X = rng.normal(size=(37, d))
    Y = rng.normal(size=(11, d))
    np.testing.assert_allclose(
        kk.squared_distances(X), kk.squared_distances_numpy(X), rtol=1e-10, atol=1e-10
    )
    np.testing.assert_allclose(
        kk.squared_distances(X, Y), kk.squared_distances_numpy(X, Y), rtol=1e-10, atol=1e-10
    )


def test_self_distances_symmetric_zero_diagonal():
    X = np.random.default_rng(0).normal(size=(20, 40))
    D = kk.squared_distances(X)
    assert np.array_equal(D, D.T)
    assert np.all(np.diag(D) == 0.0)
    assert np.all(D >= 0.0)


def test_rbf_matches_twin_and_sklearn_gamma_mapping():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 5))
    Y = rng.normal(size=(7, 5))
    K = kk.rbf_kernel(X, Y, sigma2=0.7)
    np.testing.assert_allclose(K, kk.rbf_kernel_numpy(X, Y, sigma2=0.7), rtol=1e-12)
    gamma = kk.sigma2_to_gamma(0.7)
    np.testing.assert_allclose(K, np.exp(-gamma * kk.squared_distances_numpy(X, Y)), rtol=1e-12)
    assert kk.gamma_to_sigma2(gamma) == pytest.approx(0.7)


def test_center_kernel_matches_explicit_centering_matrix():
    X = np.random.default_rng(2).normal(size=(25, 3))
    K = kk.rbf_kernel(X, sigma2=1.3)
    Kc = kk.center_kernel(K)
    np.testing.assert_allclose(Kc, kk.center_kernel_numpy(K), atol=1e-13)
    np.testing.assert_allclose(Kc.sum(axis=0), 0.0, atol=1e-12)


def test_center_test_kernel_eq7_matches_twin_and_training_rows():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(25, 3))
    T = rng.normal(size=(6, 3))
    K = kk.rbf_kernel(X, sigma2=1.3)
    Kt = kk.rbf_kernel(T, X, sigma2=1.3)
    out = kk.center_test_kernel(Kt, K.mean(axis=0), K.mean())
    np.testing.assert_allclose(out, kk.center_test_kernel_numpy(Kt, K), atol=1e-13)
    # Training points centred as test points give the rows of the centred kernel.
    np.testing.assert_allclose(
        kk.center_test_kernel(K, K.mean(axis=0), K.mean()), kk.center_kernel(K), atol=1e-13
    )


@pytest.mark.parametrize("bad", [0.0, -1.0, np.nan, np.inf])
def test_rbf_rejects_bad_sigma2(bad):
    with pytest.raises(ValueError, match="sigma2"):
        kk.rbf_kernel(np.zeros((3, 2)), sigma2=bad)


def test_distances_reject_mismatched_features():
    with pytest.raises(ValueError, match="same number of features"):
        kk.squared_distances(np.zeros((3, 2)), np.zeros((3, 4)))
    with pytest.raises(ValueError, match="2-D"):
        kk.squared_distances(np.zeros(3))


@pytest.mark.parametrize("n, d", [(1, 3), (2, 3), (7, 2), (33, 15), (34, 16), (131, 40)])
def test_fused_rbf_paths_match_twin_symmetric_unit_diagonal(n, d):
    # Exact (d < 16) and Gram (d >= 16) paths, odd/even n for the paired-row
    # triangle loop and sizes across the mirroring tile.
    rng = np.random.default_rng(n + d)
    X = rng.normal(size=(n, d))
    Y = rng.normal(size=(n + 3, d))
    K = kk.rbf_kernel(X, sigma2=0.9 * d)
    assert np.array_equal(K, K.T) and np.all(np.diag(K) == 1.0)
    np.testing.assert_allclose(K, kk.rbf_kernel_numpy(X, sigma2=0.9 * d), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(
        kk.rbf_kernel(X, Y, sigma2=0.9 * d),
        kk.rbf_kernel_numpy(X, Y, sigma2=0.9 * d),
        rtol=1e-12,
        atol=1e-15,
    )
