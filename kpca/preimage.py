"""Fixed-point pre-images for Gaussian-kernel PCA (Mika et al. 1999).

Given the projection ``P_q phi(x)`` of a pattern onto the leading ``q`` kernel
principal axes, written as an expansion over the training images,

    P_q phi(x) = sum_i gamma~_i phi(x_i),

the approximate pre-image ``z`` maximises ``(phi(z) . P_q phi(x))`` and, for the
RBF kernel ``k(x, y) = exp(-||x - y||^2 / (2 sigma2))``, satisfies the fixed-point
equation (Mika et al. 1999, Eq. (10); Jørgensen & Hansen 2012, Eq. (5))::

    z_{t+1} = sum_i gamma~_i k(z_t, x_i) x_i / sum_i gamma~_i k(z_t, x_i).

The expansion coefficients with the centring correction of Jørgensen & Hansen
(2012, Eq. (5)) are ``gamma_i = sum_k beta_k a_ki`` and
``gamma~_i = gamma_i + (1/N) (1 - sum_j gamma_j)``, where ``beta_k`` are the
scores and ``a_k = alpha_k / sqrt(lambda_k)`` the expansion coefficients of the
unit-norm feature-space axes (``alpha_k`` unit-norm eigenvectors of the centred
kernel, ``lambda_k`` its eigenvalues).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from kpca._validation import check_array, check_count, check_nonnegative, check_sigma2

__all__ = ["PREIMAGE_MAX_ITER", "PREIMAGE_TOL", "PreimageResult", "expansion_coefficients",
           "fixed_point_preimage"]

#: Default relative step tolerance of the fixed-point iteration (the ``preimage_tol`` of every
#: estimator): stop when ``||z_{t+1} - z_t|| <= tol * (1 + ||z_t||)``.
PREIMAGE_TOL = 1e-9
#: Default iteration cap per start of the fixed-point iteration (``preimage_max_iter``).
PREIMAGE_MAX_ITER = 500

# The denominator sum_i gamma~_i k(z, x_i) = (phi(z) . P_q phi(x)) "vanishes" when
# it is not positive or smaller than this fraction of sum_i |gamma~_i k(z, x_i)|
# (cancellation leaves it at rounding level); the iteration then restarts.
_DENOMINATOR_RTOL = 1e-10


class PreimageResult(NamedTuple):
    """Result of :func:`fixed_point_preimage`.

    Attributes
    ----------
    z : ndarray, shape (m, d)
        Pre-images.
    n_iter : ndarray of int, shape (m,)
        Iterations used by the final (successful or last) start of each point.
    converged : ndarray of bool, shape (m,)
        True where ``||z_{t+1} - z_t|| <= tol * (1 + ||z_t||)`` was reached.
    n_restarts : ndarray of int, shape (m,)
        Restarts caused by a vanishing denominator.

    See Also
    --------
    fixed_point_preimage : returns it.

    References
    ----------
    .. [1] S. Mika, B. Schölkopf, A. Smola, K.-R. Müller, M. Scholz and G. Rätsch, "Kernel PCA and
       de-noising in feature spaces," Advances in Neural Information Processing Systems 11, MIT
       Press, 1999, 536-542. Eq. (10) and Sec. 3: the iteration and its restarts.

    Examples
    --------
    >>> from kpca.preimage import PreimageResult
    >>> PreimageResult._fields
    ('z', 'n_iter', 'converged', 'n_restarts')
    """

    z: np.ndarray
    n_iter: np.ndarray
    converged: np.ndarray
    n_restarts: np.ndarray


def expansion_coefficients(scores: ArrayLike, alphas: ArrayLike,
                           eigenvalues: ArrayLike) -> np.ndarray:
    """Centring-corrected expansion ``gamma~`` of ``P_q phi(x)`` over the training images.

    Parameters
    ----------
    scores : ndarray, shape (m, q)
        Projections ``beta`` onto the unit-norm feature-space axes
        (``Kc_test @ alphas / sqrt(eigenvalues)``).
    alphas : ndarray, shape (N, q)
        Unit-norm eigenvectors of the centred training kernel.
    eigenvalues : ndarray, shape (q,)
        Their eigenvalues. Components with a non-positive eigenvalue carry no
        variance and are dropped from the expansion.

    Returns
    -------
    ndarray, shape (m, N)
        ``gamma~`` of Jørgensen & Hansen (2012), Eq. (5): ``gamma = beta @ a.T``
        with ``a = alphas / sqrt(eigenvalues)``, then
        ``gamma~_i = gamma_i + (1/N)(1 - sum_j gamma_j)`` so that
        ``sum_i gamma~_i phi(x_i) = sum_k beta_k v_k + mean_i phi(x_i)``.

    See Also
    --------
    fixed_point_preimage : the pre-image of the expansion.

    References
    ----------
    .. [1] K. W. Jørgensen and L. K. Hansen, "Model selection for Gaussian kernel PCA denoising,"
       IEEE Trans. Neural Netw. Learn. Syst. 23(1), 163-168, 2012. Eq. (5): ``gamma_i = sum_k
       beta_k alpha_ki`` and ``gamma~_i``; Eqs. (1)-(3): the unit-norm axes and the projection
       ``P_q phi(x)``.
    .. [2] S. Mika, B. Schölkopf, A. Smola, K.-R. Müller, M. Scholz and G. Rätsch, "Kernel PCA and
       de-noising in feature spaces," Advances in Neural Information Processing Systems 11, MIT
       Press, 1999, 536-542. Eq. (4): the projection onto the leading axes.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.preimage import expansion_coefficients
    >>> alphas = np.array([[0.6], [-0.8], [0.0]])
    >>> g = expansion_coefficients([[2.0]], alphas, [4.0])  # beta = 2, lambda = 4
    >>> np.round(g, 3), round(float(g.sum()), 12)  # the mean's weight 1/N each, total 1
    (array([[ 1. , -0.4,  0.4]]), 1.0)
    """
    scores = np.atleast_2d(np.asarray(scores, dtype=np.float64))
    alphas = np.asarray(alphas, dtype=np.float64)
    lam = np.asarray(eigenvalues, dtype=np.float64)
    inv_sqrt = np.zeros_like(lam)
    pos = lam > 0
    inv_sqrt[pos] = 1.0 / np.sqrt(lam[pos])
    gamma = scores @ (alphas * inv_sqrt).T
    N = alphas.shape[0]
    return gamma + (1.0 - gamma.sum(axis=1, keepdims=True)) / N


def _restart_order(gamma_tilde, n_starts):
    # Restart candidates: the training points with the largest expansion
    # weights gamma~_i, which attract the iteration most strongly (Mika et al.
    # 1999, Sec. 3: z is drawn towards training points with positive gamma).
    k = min(n_starts, gamma_tilde.shape[1])
    idx = np.argpartition(-gamma_tilde, k - 1, axis=1)[:, :k]
    order = np.argsort(-np.take_along_axis(gamma_tilde, idx, axis=1), axis=1)
    return np.take_along_axis(idx, order, axis=1)


def fixed_point_preimage(gamma_tilde: ArrayLike, X_fit: ArrayLike, sigma2: float, *,
                         z0: ArrayLike | None = None, tol: float = PREIMAGE_TOL,
                         max_iter: int = PREIMAGE_MAX_ITER,
                         max_restarts: int = 10) -> PreimageResult:
    """Approximate RBF pre-images by the fixed-point iteration of Mika et al. (1999).

    Iterates Eq. (10) of Mika et al. (1999) with the centring-corrected weights
    of Jørgensen & Hansen (2012, Eq. (5)) for all ``m`` patterns at once::

        z_{t+1} = sum_i gamma~_i k(z_t, x_i) x_i / sum_i gamma~_i k(z_t, x_i)

    Parameters
    ----------
    gamma_tilde : ndarray, shape (m, N)
        Expansion of each target ``P_q phi(x)`` over the training images
        (see :func:`expansion_coefficients`).
    X_fit : ndarray, shape (N, d)
        Training points ``x_i``.
    sigma2 : float
        Kernel width, ``k(x, y) = exp(-||x - y||^2 / (2 sigma2))``.
    z0 : ndarray, shape (m, d), optional
        Starting points. For de-noising use the noisy patterns themselves
        (Mika et al. 1999, Sec. 4). Default: the training point with the
        largest ``gamma~_i``.
    tol : float
        Stop when ``||z_{t+1} - z_t|| <= tol * (1 + ||z_t||)``.
    max_iter : int
        Iteration cap per start; a point that reaches it keeps its last
        iterate and is reported with ``converged=False``.
    max_restarts : int
        When the denominator ``(phi(z_t) . P_q phi(x))`` vanishes (not positive,
        or below ``1e-10`` times ``sum_i |gamma~_i k(z_t, x_i)|``; e.g. all
        kernel values underflow far from the data), the iteration restarts
        (Mika et al. 1999, Sec. 3) from the training points with the largest
        ``gamma~_i``, in decreasing order, at most ``max_restarts`` times. A
        point whose restarts are exhausted keeps its last iterate and is
        reported with ``converged=False``.

    Returns
    -------
    PreimageResult
        ``(z, n_iter, converged, n_restarts)``.

    See Also
    --------
    expansion_coefficients : the weights ``gamma~`` of a kernel PCA projection.
    kpca.KernelPCA.inverse_transform : pre-images of scores.
    kpca.KernelPCA.denoise : pre-images of projections of patterns.

    References
    ----------
    .. [1] S. Mika, B. Schölkopf, A. Smola, K.-R. Müller, M. Scholz and G. Rätsch, "Kernel PCA and
       de-noising in feature spaces," Advances in Neural Information Processing Systems 11, MIT
       Press, 1999, 536-542. Eq. (10), the fixed-point iteration for Gaussian kernels, from the
       extremum condition of Eq. (9); Sec. 3: restarts when the denominator vanishes; Sec. 4: the
       noisy pattern as the starting point for de-noising.
    .. [2] K. W. Jørgensen and L. K. Hansen, "Model selection for Gaussian kernel PCA denoising,"
       IEEE Trans. Neural Netw. Learn. Syst. 23(1), 163-168, 2012. Eq. (5): the same iteration with
       the centring-corrected weights ``gamma~``.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.preimage import fixed_point_preimage
    >>> X_fit = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> res = fixed_point_preimage([[1.0, 0.0, 0.0]], X_fit, 0.5)  # phi(x_0) itself
    >>> res.z, bool(res.converged[0])
    (array([[0., 0.]]), True)
    """
    gamma_tilde, X_fit, sigma2, tol, max_iter, max_restarts = _checked_preimage_inputs(
        gamma_tilde, X_fit, sigma2, tol, max_iter, max_restarts)
    m = gamma_tilde.shape[0]
    starts, z, next_start = _starting_points(gamma_tilde, X_fit, z0, max_restarts)

    # Kernel rows k(z_t, x_i) by the Gram identity in plain NumPy: the many
    # small products of this loop run faster without Numba's thread start-up.
    x_sq = np.einsum("ij,ij->i", X_fit, X_fit)
    inv_2s2 = 1.0 / (2.0 * sigma2)

    n_iter = np.zeros(m, dtype=int)
    converged = np.zeros(m, dtype=bool)
    n_restarts = np.zeros(m, dtype=int)
    active = np.arange(m)
    while active.size:
        w = _weighted_kernel_rows(z[active], X_fit, x_sq, inv_2s2, gamma_tilde[active])
        denom = w.sum(axis=1)
        scale = np.abs(w).sum(axis=1)
        ok = (denom > 0) & (denom > _DENOMINATOR_RTOL * scale)

        # Vanishing denominator: restart from the next candidate, or give up.
        bad = active[~ok]
        can = (n_restarts[bad] < max_restarts) & (next_start[bad] < starts.shape[1])
        if bad.size:
            _restart(bad[can], z, X_fit, starts, next_start, n_restarts, n_iter)
        still = np.concatenate([active[ok], bad[can]])
        finished = _step(active[ok], w[ok], denom[ok], z, X_fit, tol, max_iter, n_iter,
                         converged)
        active = np.setdiff1d(still, finished, assume_unique=True)
    return PreimageResult(z=z, n_iter=n_iter, converged=converged, n_restarts=n_restarts)


def _restart(rs, z, X_fit, starts, next_start, n_restarts, n_iter):
    """Restart the patterns ``rs`` from their next candidate training point (in place)."""
    z[rs] = X_fit[starts[rs, next_start[rs]]]
    next_start[rs] += 1
    n_restarts[rs] += 1
    n_iter[rs] = 0


def _step(good, w, denom, z, X_fit, tol, max_iter, n_iter, converged):
    """One fixed-point update (Mika et al. 1999, Eq. (10)) of the patterns ``good`` in place,
    from their weighted kernel rows ``w`` and denominators; returns the patterns that are
    finished (converged, or at ``max_iter``)."""
    z_new = (w @ X_fit) / denom[:, None]
    step = np.linalg.norm(z_new - z[good], axis=1)
    done = step <= tol * (1.0 + np.linalg.norm(z[good], axis=1))
    z[good] = z_new
    n_iter[good] += 1
    converged[good[done]] = True
    capped = good[(~done) & (n_iter[good] >= max_iter)]
    return np.concatenate([good[done], capped])


def _checked_preimage_inputs(gamma_tilde, X_fit, sigma2, tol, max_iter, max_restarts):
    """The inputs of :func:`fixed_point_preimage`, validated and converted."""
    X_fit = check_array(X_fit, "X_fit")
    N = X_fit.shape[0]
    gamma_tilde = np.atleast_2d(np.asarray(gamma_tilde, dtype=np.float64))
    if gamma_tilde.ndim != 2 or gamma_tilde.shape[1] != N:
        raise ValueError(
            f"gamma_tilde must have shape (m, {N}) to match X_fit; got shape {gamma_tilde.shape}"
        )
    if not np.isfinite(gamma_tilde).all():
        raise ValueError("gamma_tilde must contain only finite values")
    sigma2 = check_sigma2(sigma2)
    tol = check_nonnegative(tol, "tol")
    max_iter = check_count(max_iter, "max_iter", 1)
    max_restarts = check_count(max_restarts, "max_restarts", 0)
    return gamma_tilde, X_fit, sigma2, tol, max_iter, max_restarts


def _starting_points(gamma_tilde, X_fit, z0, max_restarts):
    """``(starts, z, next_start)``: each pattern's candidate training points in restart
    order, its first iterate (``z0``, or the first candidate) and the index of its next
    candidate."""
    m, d = gamma_tilde.shape[0], X_fit.shape[1]
    starts = _restart_order(gamma_tilde, max_restarts + 1)  # (m, n_starts)
    if z0 is None:
        z = X_fit[starts[:, 0]].copy()
        next_start = np.ones(m, dtype=int)
    else:
        z = check_array(z0, "z0", n_features=d).copy()
        if z.shape[0] != m:
            raise ValueError(f"z0 must have {m} rows (one per pattern); got z0.shape={z.shape}")
        next_start = np.zeros(m, dtype=int)
    return starts, z, next_start


def _weighted_kernel_rows(za, X_fit, x_sq, inv_2s2, gamma):
    """``gamma_i k(z, x_i)`` for each row ``z`` of ``za`` (kernel rows by the Gram identity)."""
    d2 = za @ X_fit.T
    d2 *= -2.0
    d2 += np.einsum("ij,ij->i", za, za)[:, None]
    d2 += x_sq
    np.maximum(d2, 0.0, out=d2)
    d2 *= -inv_2s2
    w = np.exp(d2, out=d2)
    w *= gamma
    return w
