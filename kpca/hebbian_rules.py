"""The Hebbian update rules of :mod:`kpca.hebbian`: one pass of Sanger's GHA and of the MMHO
rule over the samples (compiled with Numba, cached on disk), and MMHO's averaged (mean-flow)
update.

The rules and their sources (Sanger 1989; Jankovic et al., Eq. (7), and its reading) are stated
in :mod:`kpca.hebbian`, whose estimators run these passes.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import ArrayLike

__all__ = ["mmho_mean_update", "mmho_pass"]


@numba.njit(cache=True)
def _gha_pass(W, X, order, gains):  # pragma: no cover - compiled
    """One pass of Eq. (2) over ``X[order]`` with per-sample gains, in place."""
    r, d = W.shape
    y = np.empty(r)
    run = np.empty(d)
    for n in range(order.shape[0]):
        p = order[n]
        g = gains[n]
        for i in range(r):
            s = 0.0
            for c in range(d):
                s += W[i, c] * X[p, c]
            y[i] = s
        # Row i of lt(y y^T) W is y_i * sum_{j<=i} y_j W_j; W_t is used on the
        # right-hand side, so accumulate the running sum before updating row i.
        for c in range(d):
            run[c] = 0.0
        for i in range(r):
            for c in range(d):
                run[c] += y[i] * W[i, c]
                W[i, c] += g * (y[i] * X[p, c] - y[i] * run[c])


@numba.njit(cache=True)
def _mmho_loop(W, X, order, gains, alpha):  # pragma: no cover - compiled
    """One pass of Eq. (7) (Jankovic et al.) over ``X[order]``, in place."""
    r, d = W.shape
    y = np.empty(r)
    A = np.empty(r)
    for n in range(order.shape[0]):
        p = order[n]
        g = gains[n]
        S = 0.0
        for c in range(d):
            S += X[p, c] * X[p, c]
        acc = 0.0
        for k in range(r):
            s = 0.0
            for c in range(d):
                s += W[k, c] * X[p, c]
            y[k] = s
            acc += s * s
            A[k] = acc
        IP = A[r - 1]
        # Row k uses only w_k(i) and the outputs y(i), all computed above.
        for k in range(r):
            m = g * ((1.0 + alpha) * S - IP - alpha * A[k])
            yk = y[k]
            for c in range(d):
                W[k, c] += m * (X[p, c] * yk - W[k, c] * yk * yk)


def mmho_pass(W: np.ndarray, X: ArrayLike, gains: ArrayLike, *,
              alpha: float = 0.5) -> np.ndarray:
    """Apply the MMHO update, Eq. (7) of Jankovic et al., once per row of ``X``, in order.

    Parameters
    ----------
    W : ndarray of float64, shape (r, d)
        Weights, one neuron per row (the paper's ``W`` transposed); updated
        in place.
    X : array_like, shape (n, d)
        Inputs ``x(i)`` in presentation order (not centred here).
    gains : array_like, shape (n,)
        Learning rates ``gamma(i)``.
    alpha : float
        Weight of the individual (hierarchical) part; the paper uses 0.5.

    Returns
    -------
    ndarray, shape (r, d)
        ``W`` itself. Entries become ``inf``/``nan`` if the gains are too large
        for the data; the caller checks.

    See Also
    --------
    ModulatedHebbOjaPCA : the estimator that runs it.
    mmho_mean_update : the averaged update.

    References
    ----------
    .. [1] M. Jankovic et al., "Modified Modulated Hebb-Oja learning rule," Neural Information
       Processing (ICONIP 2007), LNCS 4984, Springer, 2008. Eq. (7), for neuron ``k``: ``w_k(i+1) =
       w_k(i) + gamma(i) O_k(i) [(1 + alpha) ||x(i)||^2 - IP(i)] - alpha gamma(i) O_k(i) A_k(i)``
       (our reading of the scrambled print, module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.hebbian import mmho_pass
    >>> X = np.random.default_rng(0).normal(size=(2000, 2)) * [1.0, 0.3]
    >>> W = np.array([[0.3, 0.3]])
    >>> w = mmho_pass(W, X, np.full(2000, 0.01))[0]
    >>> np.round(np.abs(w), 1)  # the leading unit eigenvector
    array([1., 0.])
    """
    if not (isinstance(W, np.ndarray) and W.dtype == np.float64 and W.ndim == 2
            and W.flags.c_contiguous):
        raise ValueError("W must be a C-contiguous 2-D float64 array (updated in place)")
    X = np.ascontiguousarray(X, dtype=np.float64)
    gains = np.ascontiguousarray(gains, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != W.shape[1] or gains.shape != (X.shape[0],):
        raise ValueError(
            f"X must have shape (n, {W.shape[1]}) and gains shape (n,); got X.shape={X.shape}, "
            f"gains.shape={gains.shape}"
        )
    _mmho_loop(W, X, np.arange(X.shape[0]), gains, float(alpha))
    return W


def mmho_mean_update(W: ArrayLike, cov: ArrayLike, *, alpha: float = 0.5,
                     mixing: ArrayLike | None = None,
                     cumulants: ArrayLike | None = None) -> np.ndarray:
    """Averaged MMHO update ``E[Delta w_k] / gamma`` (the mean flow of Eq. (7)).

    For zero-mean inputs ``x = B u`` with independent sources ``u_m`` (fourth
    cumulants ``kappa_m``) and covariance ``C``, the fourth moments are
    ``E[x_a x_b x_c x_d] = C_ab C_cd + C_ac C_bd + C_ad C_bc
    + sum_m kappa_m B_am B_bm B_cm B_dm``, so with the quadratic form
    ``q_k(x) = (1 + alpha) S - IP - alpha A_k = x^T M_k x``,
    ``M_k = (1 + alpha) I - W^T W - alpha W_{1..k}^T W_{1..k}``::

        E[q_k x x^T] = tr(M_k C) C + 2 C M_k C + sum_m kappa_m (b_m^T M_k b_m) b_m b_m^T
        E[Delta w_k] / gamma = E[q_k x x^T] w_k - w_k (w_k^T E[q_k x x^T] w_k).

    Parameters
    ----------
    W : array_like, shape (r, d)
        Weights, one neuron per row.
    cov : array_like, shape (d, d)
        Input covariance ``C`` (symmetric).
    alpha : float
        Weight of the individual part of Eq. (7).
    mixing : array_like, shape (d, m), optional
        Mixing matrix ``B`` of the independent sources (columns ``b_m``).
    cumulants : array_like, shape (m,), optional
        Fourth cumulants ``kappa_m = E[u_m^4] - 3 E[u_m^2]^2`` of the sources.
        Omit ``mixing`` and ``cumulants`` for Gaussian inputs.

    Returns
    -------
    ndarray, shape (r, d)
        The expected update per unit gain.

    See Also
    --------
    mmho_pass : the stochastic update it averages.

    References
    ----------
    .. [1] M. Jankovic et al., "Modified Modulated Hebb-Oja learning rule," Neural Information
       Processing (ICONIP 2007), LNCS 4984, Springer, 2008. Eq. (7): the update averaged over the
       inputs (our derivation, module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.hebbian import mmho_mean_update
    >>> C = np.diag([3.0, 1.0, 0.5])
    >>> W = np.eye(2, 3)  # the leading unit eigenvectors: a fixed point for Gaussian inputs
    >>> bool(np.allclose(mmho_mean_update(W, C), 0.0))
    True
    """
    W = np.atleast_2d(np.asarray(W, dtype=np.float64))
    C = np.asarray(cov, dtype=np.float64)
    r, d = W.shape
    if C.shape != (d, d):
        raise ValueError(f"cov must have shape ({d}, {d}); got {C.shape}")
    if (mixing is None) != (cumulants is None):
        raise ValueError("give both mixing and cumulants, or neither (Gaussian inputs)")
    out = np.empty_like(W)
    for k in range(r):
        M = (1.0 + alpha) * np.eye(d) - W.T @ W - alpha * W[: k + 1].T @ W[: k + 1]
        B = np.trace(M @ C) * C + 2.0 * C @ M @ C
        if mixing is not None:
            Bm = np.asarray(mixing, dtype=np.float64)
            kap = np.asarray(cumulants, dtype=np.float64)
            B = B + (Bm * (kap * np.einsum("am,ab,bm->m", Bm, M, Bm))) @ Bm.T
        Bw = B @ W[k]
        out[k] = Bw - W[k] * (W[k] @ Bw)
    return out
