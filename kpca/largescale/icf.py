"""Incomplete Cholesky factorisation (ICF) of an RBF kernel and the reduced eigenproblem.

Varon, Alzate & Suykens (2015), Sec. V-2: a pivoted, incomplete Cholesky
factor ``G`` (N x Q) with ``Omega ~= G G^T`` is built greedily (Golub & Van
Loan; Bach & Jordan 2003, Fine & Scheinberg 2001): at each step the point with
the largest remaining diagonal ``d_i = Omega_ii - sum_q G_iq^2`` becomes the
next pivot, and the factorisation stops once the trace of the remainder,
``sum_i d_i = tr(Omega - G G^T)``, falls below ``eta`` (the trace bounds
``||Omega - G G^T||_2`` from above). Only the ``Q`` pivot columns of the kernel
are ever evaluated: ``O(N Q (Q + d))`` time, ``O(N Q)`` memory.

The kernel PCA eigenproblem is then solved in the ``Q``-dimensional space of
the left singular vectors of ``G`` (Eqs. (16)-(19)).

Numba was not used: each step is one BLAS matrix-vector product over the
stored columns plus one kernel column, which NumPy runs at memory speed; the
columns are kept as contiguous rows (grown by doubling), so memory is
``O(N Q)``, never ``O(N^2)`` (timings in ``benchmarks/bench_largescale.py``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike

from kpca._signs import column_signs
from kpca._validation import check_array, check_n_components, check_positive, check_sigma2

__all__ = ["ICFResult", "ReducedEigen", "incomplete_cholesky", "reduced_eigenproblem"]


class ICFResult(NamedTuple):
    """Result of :func:`incomplete_cholesky`.

    Attributes
    ----------
    G : ndarray, shape (N, Q)
        Factor with ``Omega ~= G G^T``; ``G[pivots]`` is lower triangular.
    pivots : ndarray of int, shape (Q,)
        Row indices of the pivots, in the order chosen.
    residual_trace : ndarray, shape (Q + 1,)
        ``tr(Omega - G_q G_q^T)`` after ``q = 0, ..., Q`` pivots.

    See Also
    --------
    incomplete_cholesky : returns it.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Sec.
       V-2: the incomplete Cholesky factor ``G`` with ``Omega ~= G G^T``.

    Examples
    --------
    >>> from kpca.datasets import semicircles
    >>> from kpca.largescale import incomplete_cholesky
    >>> X, _ = semicircles(200, noise=0.1, random_state=0)
    >>> res = incomplete_cholesky(X, 0.3, 1e-2)
    >>> res.G.shape[1] == res.pivots.size, bool(res.residual_trace[-1] < 1e-2)
    (True, True)
    """

    G: np.ndarray
    pivots: np.ndarray
    residual_trace: np.ndarray


class ReducedEigen(NamedTuple):
    """Result of :func:`reduced_eigenproblem` (Varon et al. 2015, Eqs. (16)-(19)).

    Attributes
    ----------
    eigenvalues : ndarray, shape (n_components,)
        ``lambda_l`` of Eq. (19), descending.
    alphas : ndarray, shape (N, n_components)
        ``alpha_l ~= U rho_l``, scaled to unit norm, sign fixed so that the
        largest-magnitude entry is positive.
    rho : ndarray, shape (Q, n_components)
        Eigenvectors ``rho_l`` of ``U^T M_c U Sigma^2`` (same scaling and sign as
        ``alphas``: ``alphas = U @ rho``).
    U : ndarray, shape (N, Q)
    singular_values : ndarray, shape (Q,)
    Vt : ndarray, shape (Q, Q)
        ``G = U diag(singular_values) Vt`` (Eq. (16)).

    See Also
    --------
    reduced_eigenproblem : returns it.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Eqs.
       (16)-(19): the SVD of the factor, the reduced eigenproblem and its eigenvectors ``rho``.

    Examples
    --------
    >>> from kpca.datasets import semicircles
    >>> from kpca.largescale import incomplete_cholesky, reduced_eigenproblem
    >>> X, _ = semicircles(200, noise=0.1, random_state=0)
    >>> red = reduced_eigenproblem(incomplete_cholesky(X, 0.3, 1e-2).G, 3)
    >>> red.alphas.shape, bool((red.eigenvalues[:-1] >= red.eigenvalues[1:]).all())
    ((200, 3), True)
    """

    eigenvalues: np.ndarray
    alphas: np.ndarray
    rho: np.ndarray
    U: np.ndarray
    singular_values: np.ndarray
    Vt: np.ndarray


def incomplete_cholesky(X: ArrayLike, sigma2: float, eta: float, *,
                        max_rank: int | None = None) -> ICFResult:
    """Pivoted incomplete Cholesky factor of the RBF kernel matrix of ``X``.

    Parameters
    ----------
    X : array_like, shape (N, d)
    sigma2 : float
        Kernel width, ``k(x, y) = exp(-||x - y||^2 / (2 sigma2))``.
    eta : float
        Stop when ``tr(Omega - G G^T) < eta`` (``eta > 0``). Varon et al. (2015)
        use ``eta = 1e-2``.
    max_rank : int, optional
        Cap on the number of pivots ``Q`` (default ``N``).

    Returns
    -------
    ICFResult
        ``(G, pivots, residual_trace)``.

    See Also
    --------
    reduced_eigenproblem : kernel PCA from the factor.
    IncompleteCholeskyKernelPCA : the estimator built on both.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Sec.
       V-2: the factor with ``||Omega - G G^T|| <= eta`` (here the trace of the remainder, which
       bounds its norm).
    .. [2] G. H. Golub and C. F. Van Loan, *Matrix Computations*, 3rd ed., Johns Hopkins University
       Press, 1996. Pivoted Cholesky factorisation.
    .. [3] F. R. Bach and M. I. Jordan, "Kernel independent component analysis," J. Mach. Learn.
       Res. 3, 1-48, 2002. The incomplete Cholesky factorisation of kernel matrices (no equation
       numbers: not in the project's collection).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca import rbf_kernel
    >>> from kpca.datasets import semicircles
    >>> from kpca.largescale import incomplete_cholesky
    >>> X, _ = semicircles(200, noise=0.1, random_state=0)
    >>> res = incomplete_cholesky(X, 0.3, 1e-6)
    >>> bool(np.abs(rbf_kernel(X, sigma2=0.3) - res.G @ res.G.T).max() < 1e-6)
    True
    """
    X = check_array(X, "X")
    N = X.shape[0]
    sigma2 = check_sigma2(sigma2)
    eta = check_positive(eta, "eta")
    Qmax = N if max_rank is None else check_n_components(max_rank, N, "max_rank")
    d = np.ones(N)  # diag of the remainder; k(x, x) = 1 for the RBF kernel
    # Columns of G stored as rows of Gt (contiguous), grown by doubling.
    Gt = np.empty((min(Qmax, 64), N))
    pivots = np.empty(Qmax, dtype=np.intp)
    trace = [float(N)]
    q = 0
    while q < Qmax and trace[-1] >= eta:
        p = int(np.argmax(d))
        if d[p] <= 0.0:  # numerically exhausted (rank of Omega reached)
            break
        if q == Gt.shape[0]:
            Gt = np.concatenate([Gt, np.empty((min(Qmax, 2 * q) - q, N))])
        diff = X - X[p]
        col = np.exp(-np.einsum("ij,ij->i", diff, diff) / (2.0 * sigma2))
        col -= Gt[:q, p] @ Gt[:q]
        col /= np.sqrt(d[p])
        col[pivots[:q]] = 0.0  # exact zeros above the diagonal of G[pivots]
        Gt[q] = col
        pivots[q] = p
        d -= col**2
        d[p] = 0.0
        np.maximum(d, 0.0, out=d)
        trace.append(float(d.sum()))
        q += 1
    G = np.ascontiguousarray(Gt[:q].T)
    return ICFResult(G=G, pivots=pivots[:q].copy(), residual_trace=np.asarray(trace))


def reduced_eigenproblem(G: ArrayLike, n_components: int) -> ReducedEigen:
    """Leading kernel PCA eigenpairs from a low-rank factor, Varon et al. (2015) Eqs. (16)-(19).

    With the thin SVD ``G = U Sigma V^T`` (Eq. (16)), ``Omega ~= U Sigma^2 U^T``
    (Eq. (17)) and the centred eigenproblem ``M_c U Sigma^2 U^T alpha = lambda
    alpha`` (Eq. (18)) becomes, with ``rho = U^T alpha``, the ``Q x Q`` problem
    (Eq. (19))::

        U^T M_c U Sigma^2 rho = lambda rho.

    It is solved in the equivalent symmetric form ``Sigma (U^T M_c U) Sigma y =
    lambda y``, ``rho = Sigma^{-1} y`` (so ``eigh`` can be used), and the
    eigenvectors are approximated by ``alpha ~= U rho`` (Remark 2; the
    paper's ``U^T rho`` is a typo for ``U rho``, the only product of the right
    size).

    The eigenvalues are exactly those of the centred low-rank kernel
    ``M_c G G^T M_c``. ``U rho`` is the projection of its exact eigenvector onto
    ``range(U)`` and equals it when ``M_c range(U) = range(U)`` (e.g. a complete
    factorisation, ``Q = N``); for RBF kernels the constant vector lies almost
    in ``range(U)`` and the difference is small (measured in the tests).

    Parameters
    ----------
    G : ndarray, shape (N, Q)
        Low-rank factor, ``Omega ~= G G^T``.
    n_components : int
        ``1 <= n_components <= Q``.

    Returns
    -------
    ReducedEigen

    See Also
    --------
    incomplete_cholesky : the factor.
    kpca.KernelPCA : the dense eigenproblem it approximates.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Eqs.
       (16)-(19) and Remark 2 (``alpha ~= U rho``).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca import KernelPCA
    >>> from kpca.datasets import semicircles
    >>> from kpca.largescale import incomplete_cholesky, reduced_eigenproblem
    >>> X, _ = semicircles(200, noise=0.1, random_state=0)
    >>> red = reduced_eigenproblem(incomplete_cholesky(X, 0.3, 1e-10).G, 3)
    >>> dense = KernelPCA(3, 0.3, eigen_solver="dense").fit(X)
    >>> bool(np.allclose(red.eigenvalues, dense.eigenvalues_, rtol=1e-8))
    True
    """
    G = check_array(G, "G")
    N, Q = G.shape
    n_components = check_n_components(n_components, Q)
    U, s, Vt = scipy.linalg.svd(G, full_matrices=False)
    u1 = U.sum(axis=0)  # U^T 1
    UMU = np.eye(Q) - np.outer(u1, u1) / N  # U^T M_c U
    B = s[:, None] * UMU * s[None, :]
    lam, Y = scipy.linalg.eigh(B, subset_by_index=[Q - n_components, Q - 1])
    lam, Y = lam[::-1], Y[:, ::-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.where(s[:, None] > 0, Y / s[:, None], 0.0)
    alphas = U @ rho
    norms = np.linalg.norm(alphas, axis=0)
    norms[norms == 0] = 1.0
    alphas /= norms
    rho /= norms
    signs = column_signs(alphas)
    return ReducedEigen(
        eigenvalues=lam, alphas=alphas * signs, rho=rho * signs, U=U, singular_values=s, Vt=Vt
    )
