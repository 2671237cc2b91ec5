"""Slow, obviously correct NumPy references of the compiled kernels and of the GHA pass: the
tests check the library's Numba code against them."""

from __future__ import annotations

import numpy as np


def squared_distances_numpy(X, Y=None):
    """Reference twin of :func:`kpca.kernels.squared_distances` by broadcasting (memory
    O(n m d))."""
    X = np.asarray(X, dtype=np.float64)
    Y = X if Y is None else np.asarray(Y, dtype=np.float64)
    diff = X[:, None, :] - Y[None, :, :]
    return np.einsum("ijk,ijk->ij", diff, diff)


def rbf_kernel_numpy(X, Y=None, *, sigma2):
    """Reference twin of :func:`kpca.kernels.rbf_kernel`."""
    return np.exp(-squared_distances_numpy(X, Y) / (2.0 * sigma2))


def rbf_project_numpy(X, Y, C, *, sigma2):
    """Reference twin of :func:`kpca.kernels.rbf_project`: the full kernel matrix times ``C``."""
    return rbf_kernel_numpy(X, Y, sigma2=sigma2) @ np.asarray(C, dtype=np.float64)


def center_kernel_numpy(K):
    """Reference twin of :func:`kpca.kernels.center_kernel`: explicit ``M_c K M_c``."""
    K = np.asarray(K, dtype=np.float64)
    N = K.shape[0]
    M = np.eye(N) - np.full((N, N), 1.0 / N)
    return M @ K @ M


def center_test_kernel_numpy(K_test, K_fit):
    """Reference twin of :func:`kpca.kernels.center_test_kernel` from the full training kernel."""
    K_test = np.asarray(K_test, dtype=np.float64)
    K_fit = np.asarray(K_fit, dtype=np.float64)
    N = K_fit.shape[0]
    m = K_test.shape[0]
    one_N = np.full((N, N), 1.0 / N)
    one_mN = np.full((m, N), 1.0 / N)
    return K_test - one_mN @ K_fit - K_test @ one_N + one_mN @ K_fit @ one_N


def gha_pass_numpy(W, X, order, gains):
    """Twin of :func:`kpca.hebbian_rules._gha_pass`: one pass of Sanger's rule over ``X[order]``, in
    place."""
    for p, g in zip(order, gains, strict=False):
        y = W @ X[p]
        W += g * (np.outer(y, X[p]) - np.tril(np.outer(y, y)) @ W)
