"""Block Lanczos on the implicitly centred kernel against LAPACK ``eigh``."""

import numpy as np
import pytest
import scipy.linalg

from kpca import KernelPCA
from kpca._blas import blas_limited_to, blas_limited_to_one_thread, blas_threads
from kpca._lanczos import lanczos_centered_top
from kpca.kernels import center_kernel, rbf_kernel


def _reference(K, k):
    N = K.shape[0]
    lam, vec = scipy.linalg.eigh(center_kernel(K), subset_by_index=[N - k, N - 1])
    return lam[::-1], vec[:, ::-1]


def _assert_same_vectors(a, b, atol=1e-6):
    signs = np.sign(np.sum(a * b, axis=0))
    np.testing.assert_allclose(a * signs, b, atol=atol)


@pytest.mark.parametrize("N, k", [(120, 1), (300, 5), (600, 3), (600, 12), (1000, 20)])
def test_matches_lapack(N, k):
    X = np.random.default_rng(N + k).standard_normal((N, 4)) * np.array([3.0, 1.0, 0.5, 0.2])
    K = rbf_kernel(X, sigma2=2.0)
    K0 = K.copy()
    lam, vec, _, converged = lanczos_centered_top(K, k, np.random.default_rng(0))
    assert converged
    np.testing.assert_array_equal(K, K0)  # K is not modified
    lam_ref, vec_ref = _reference(K, k)
    np.testing.assert_allclose(lam, lam_ref, rtol=1e-8)
    _assert_same_vectors(vec, vec_ref)
    np.testing.assert_allclose(vec.T @ vec, np.eye(k), atol=1e-10)
    np.testing.assert_allclose(vec.sum(axis=0), 0.0, atol=1e-10)


def test_degenerate_spectrum_and_invariant_subspace():
    # block-diagonal K with identical blocks: every eigenvalue of H K H is (at least)
    # double and the Krylov space of a rank-6 kernel becomes invariant after one block
    rng = np.random.default_rng(3)
    B = rbf_kernel(rng.standard_normal((40, 2)), sigma2=1.0)
    K = np.kron(np.eye(2), B)
    lam_ref, vec_ref = _reference(K, 6)
    lam, vec, _, converged = lanczos_centered_top(K, 6, np.random.default_rng(1))
    assert converged
    np.testing.assert_allclose(lam, lam_ref, rtol=1e-8)
    # vectors of a multiple eigenvalue are fixed only up to rotation: compare subspaces
    Kc = center_kernel(K)
    np.testing.assert_allclose(Kc @ vec, vec * lam, atol=1e-8 * lam[0])
    P, P_ref = vec @ vec.T, vec_ref @ vec_ref.T
    np.testing.assert_allclose(P, P_ref, atol=1e-6)
    # low-rank kernel: more components than the Krylov space can supply from the start
    Z = rng.standard_normal((80, 3))
    K_low = Z @ Z.T
    lam, vec, _, converged = lanczos_centered_top(K_low, 5, np.random.default_rng(2))
    lam_ref, _ = _reference(K_low, 5)
    assert converged
    np.testing.assert_allclose(lam[:3], lam_ref[:3], rtol=1e-8)
    np.testing.assert_allclose(lam[3:], 0.0, atol=1e-8 * lam[0])


def test_restart_path_matches_lapack():
    X = np.random.default_rng(5).standard_normal((400, 3))
    K = rbf_kernel(X, sigma2=0.3)
    lam, vec, _, converged = lanczos_centered_top(
        K, 4, np.random.default_rng(0), block_size=2, max_basis=12, max_iter=2000
    )
    assert converged
    lam_ref, vec_ref = _reference(K, 4)
    np.testing.assert_allclose(lam, lam_ref, rtol=1e-8)
    _assert_same_vectors(vec, vec_ref)


def test_deterministic_given_random_state():
    X = np.random.default_rng(7).standard_normal((300, 3))
    K = rbf_kernel(X, sigma2=1.0)
    a = lanczos_centered_top(K, 3, np.random.default_rng(11))
    b = lanczos_centered_top(K, 3, np.random.default_rng(11))
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


@pytest.mark.parametrize("N, k", [(400, 5), (800, 2)])
def test_estimator_solver_matches_dense(N, k):
    X = np.random.default_rng(N).standard_normal((N, 5))
    ours = KernelPCA(k, 5.0, eigen_solver="lanczos", random_state=0).fit(X)
    ref = KernelPCA(k, 5.0, eigen_solver="dense").fit(X)
    assert ours.eigen_solver_ == "lanczos"
    np.testing.assert_allclose(ours.eigenvalues_, ref.eigenvalues_, rtol=1e-8)
    np.testing.assert_allclose(ours.alphas_, ref.alphas_, atol=1e-6)  # same sign convention
    np.testing.assert_allclose(ours.transform(X[:7]), ref.transform(X[:7]), atol=1e-6)
    np.testing.assert_allclose(ours._K_fit_col_mean, ref._K_fit_col_mean, rtol=1e-14)


def test_estimator_falls_back_to_dense_for_large_n_components():
    X = np.random.default_rng(0).standard_normal((60, 3))
    model = KernelPCA(10, 3.0, eigen_solver="lanczos", random_state=0).fit(X)
    assert model.eigen_solver_ == "dense"


def test_blas_thread_helpers_restore_the_count():
    before = blas_threads()
    with blas_limited_to_one_thread():
        assert blas_threads() == 1
        with blas_limited_to(before):
            assert blas_threads() == before
        assert blas_threads() == 1
    assert blas_threads() == before
