"""Block Lanczos for the leading eigenpairs of the implicitly centred kernel ``H K H``.

``H = I - (1/N) 1 1^T``. The Krylov basis is kept centred (orthogonal to ``1``), so
``H K H q = K q - mean(K q)``: one BLAS product ``K @ V`` per block and a column-mean
correction, never forming ``H K H``. Full re-orthogonalisation (classical Gram-Schmidt,
twice), Rayleigh-Ritz on the exact projection ``Q^T H K H Q`` and a thick restart when the
basis reaches ``max_basis``. A block of ``b`` vectors reads ``K`` once for ``b`` products
(several times faster per vector than ``K @ v`` for ``N`` in the thousands) and converges at
the rate of the gap between ``lambda_k`` and ``lambda_{b+1}``, so clusters of up to ``b``
eigenvalues around ``lambda_k`` do not slow it down.
"""

from __future__ import annotations

import numpy as np

from kpca._blas import blas_limited_to, blas_limited_to_one_thread, blas_threads

__all__ = ["lanczos_centered_top"]


def _orthonormal_block(W, Q, rng, scale):
    """Orthonormal, centred block spanning ``W`` minus its part in ``range(Q)``; directions
    lost to rank deficiency (an invariant subspace) are replaced by random centred ones."""
    for _ in range(2):
        if Q.shape[1]:
            W -= Q @ (Q.T @ W)
    W -= W.mean(axis=0)
    Qw, R = np.linalg.qr(W)
    bad = np.abs(np.diag(R)) <= 1e-10 * scale
    if np.any(bad):
        Z = rng.uniform(-1.0, 1.0, (W.shape[0], int(bad.sum())))
        Qw[:, bad] = Z - Z.mean(axis=0)
        for _ in range(2):
            if Q.shape[1]:
                Qw -= Q @ (Q.T @ Qw)
        Qw -= Qw.mean(axis=0)
        Qw = np.linalg.qr(Qw)[0]
    return Qw


def lanczos_centered_top(K, k, rng, *, tol=1e-10, block_size=None, max_basis=None,
                         max_iter=None):
    """Leading ``k`` eigenpairs of ``H K H`` for a symmetric ``K`` (not modified).

    Parameters
    ----------
    K : ndarray, shape (N, N)
        Symmetric, uncentred kernel matrix.
    k : int
        Number of eigenpairs, ``1 <= k <= N - 2``.
    rng : numpy.random.Generator
        Draws the start block (and replacement directions), so the result is
        deterministic given the generator state.
    tol : float
        Stop when every wanted Ritz pair has ``||H K H x - theta x|| <= tol * theta_1``
        (eigenvalue error ``<= residual^2 / gap``).
    block_size : int, optional
        Default ``max(2 k, k + 8)`` (at most ``N - 1``).
    max_basis : int, optional
        Basis size at which the basis is compressed to its leading Ritz vectors.
    max_iter : int, optional
        Cap on block steps (default ``max(100, N // block)``).

    Returns
    -------
    eigenvalues : ndarray, shape (k,), descending
    eigenvectors : ndarray, shape (N, k), orthonormal, centred
    n_iter : int
        Block steps taken.
    converged : bool

    Notes
    -----
    Only the products with ``K`` use BLAS's threads (as many as BLAS had at the call); the
    small products with the basis run on one thread, where the threads' start-up and
    synchronisation cost more than the work (and much more when other processes load the
    cores).
    """
    threads = blas_threads()
    with blas_limited_to_one_thread():
        return _lanczos(K, k, rng, tol, block_size, max_basis, max_iter, threads)


def _lanczos(K, k, rng, tol, block_size, max_basis, max_iter, threads):
    K = np.asarray(K, dtype=np.float64)
    N = K.shape[0]
    b = block_size if block_size is not None else max(2 * k, k + 8)
    b = max(1, min(b, N - 1))
    if max_basis is None:
        max_basis = max(k + 2 * b, min(N - 1, 20 * b))
    max_basis = min(max_basis, N - 1)
    if max_iter is None:
        max_iter = max(100, N // b)
    keep = min(max_basis - b, max(k + b, (max_basis - b) // 2))

    V = rng.uniform(-1.0, 1.0, (N, b))
    Q = np.empty((N, 0))
    KQ = np.empty((N, 0))
    T = np.empty((0, 0))
    V = _orthonormal_block(V, Q, rng, 1.0)
    theta = Y = None
    converged = False
    it = 0
    while it < max_iter:
        it += 1
        with blas_limited_to(threads):
            KV = K @ V
        KV -= KV.mean(axis=0)
        m = Q.shape[1]
        C = Q.T @ KV
        D = V.T @ KV
        T_new = np.empty((m + V.shape[1], m + V.shape[1]))
        T_new[:m, :m] = T
        T_new[:m, m:] = C
        T_new[m:, :m] = C.T
        T_new[m:, m:] = 0.5 * (D + D.T)
        T = T_new
        Q = np.hstack([Q, V])
        KQ = np.hstack([KQ, KV])
        theta, Y = np.linalg.eigh(T)
        theta, Y = theta[::-1], Y[:, ::-1]
        scale = max(abs(theta[0]), np.finfo(float).tiny)
        Yk = Y[:, :k]
        R = KQ @ Yk - (Q @ Yk) * theta[:k]
        res = np.sqrt(np.einsum("ij,ij->j", R, R))
        if np.all(res <= tol * scale) or Q.shape[1] + 1 >= N:
            converged = bool(np.all(res <= tol * scale))
            break
        W = KV.copy()
        if Q.shape[1] + b > max_basis:
            # thick restart: keep the leading Ritz vectors; every Ritz residual lies in
            # the span of K V orthogonalised against the full basis, so extend with that
            for _ in range(2):
                W -= Q @ (Q.T @ W)
            Yp = Y[:, :keep]
            Q, KQ, T = Q @ Yp, KQ @ Yp, np.diag(theta[:keep])
        V = _orthonormal_block(W, Q, rng, scale)
        V = V[:, : min(V.shape[1], N - 1 - Q.shape[1])]
    X = Q @ Y[:, :k]
    return theta[:k].copy(), X, it, converged
