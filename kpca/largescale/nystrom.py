"""Nyström feature maps and kernel PCA in an explicit low-rank feature space.

Both large-scale solvers of Varon, Alzate & Suykens (2015, Sec. V) replace the
``N x N`` kernel by a rank-``r`` approximation built from ``M`` basis points
``B`` (FS2 support vectors or ICF pivots)::

    Omega ~= F F^T,   F = K(X, B) T,   T^T K(B, B) T = I_r.

The rows ``f(x) = T^T k_B(x)`` are coordinates of ``phi(x)`` projected onto
``span{phi(b)}`` in the orthonormal basis ``e_j = sum_b T_bj phi(b)``, so

* kernel PCA with the proper (training-set) centring is linear PCA of the
  centred rows ``F - mean(F)`` — the Nyström extension of Williams & Seeger
  (2001) with centring done on the extended matrix, not on ``K(B, B)``;
* a feature-space point with coordinates ``u`` is ``sum_b (T u)_b phi(b)``,
  which is what the fixed-point pre-image of Mika et al. (1999) needs.

For the Nyström map ``T = E Lambda^{-1/2}`` with ``K(B, B) = E Lambda E^T``
(eigenvalues below ``rcond * max`` dropped); for ICF ``T = L^{-T}`` with ``L``
the pivot block of the Cholesky factor, and ``F`` is the factor ``G`` itself.

For ``N`` points ``F`` is never formed whole: :func:`pca_of_feature_rows`
takes its rows :data:`~kpca.largescale._blocks.ROW_BLOCK` at a time and
eigendecomposes the ``r x r`` centred scatter ``F_c^T F_c``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike

from kpca._signs import column_signs
from kpca._validation import check_array, check_n_components, check_sigma2
from kpca.kernels import rbf_kernel
from kpca.largescale._blocks import row_block, row_slices

__all__ = ["NystromEigen", "nystrom_map", "nystrom_kpca", "pca_of_feature_rows", "pca_of_features"]

# Eigenvalues of K(B, B) below this fraction of the largest are treated as zero.
_RCOND = 1e-10


class NystromEigen(NamedTuple):
    """Result of :func:`nystrom_kpca`.

    Attributes
    ----------
    eigenvalues : ndarray, shape (n_components,)
        Approximate leading eigenvalues of the centred ``N x N`` kernel.
    eigenvectors : ndarray, shape (N, n_components)
        Approximate unit-norm eigenvectors (largest-magnitude entry positive).
    rank : int
        Rank ``r`` of the Nyström map (basis size after dropping null directions).

    See Also
    --------
    nystrom_kpca : returns it.

    References
    ----------
    .. [1] C. K. I. Williams and M. Seeger, "Using the Nyström method to speed up kernel machines,"
       Advances in Neural Information Processing Systems 13, MIT Press, 2001. The Nyström
       approximation (no equation numbers: not in the project's collection).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.datasets import semicircles
    >>> from kpca.largescale import nystrom_kpca
    >>> X, _ = semicircles(200, noise=0.1, random_state=0)
    >>> res = nystrom_kpca(X, np.arange(0, 200, 10), 0.3, 2)
    >>> res.eigenvectors.shape, res.rank
    ((200, 2), 20)
    """

    eigenvalues: np.ndarray
    eigenvectors: np.ndarray
    rank: int


def nystrom_map(K_bb: ArrayLike) -> np.ndarray:
    """Nyström map ``T`` with ``T^T K_bb T = I``: ``T = E Lambda^{-1/2}``.

    Parameters
    ----------
    K_bb : ndarray, shape (M, M)
        Kernel matrix of the basis points.

    Returns
    -------
    ndarray, shape (M, r)
        ``r`` = number of eigenvalues above ``1e-10`` times the largest.

    See Also
    --------
    nystrom_kpca : kernel PCA of all points in the features it defines.

    References
    ----------
    .. [1] C. K. I. Williams and M. Seeger, "Using the Nyström method to speed up kernel machines,"
       Advances in Neural Information Processing Systems 13, MIT Press, 2001. The Nyström extension
       ``K(X, B) K(B, B)^{-1/2}`` (no equation numbers: not in the project's collection).
    .. [2] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Sec.
       V: the low-rank approximation of the kernel matrix from ``M`` basis points.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca import rbf_kernel
    >>> from kpca.largescale import nystrom_map
    >>> B = np.random.default_rng(0).normal(size=(5, 2))
    >>> K = rbf_kernel(B, sigma2=1.0)
    >>> T = nystrom_map(K)
    >>> bool(np.allclose(T.T @ K @ T, np.eye(T.shape[1])))
    True
    """
    lam, E = scipy.linalg.eigh(np.asarray(K_bb, dtype=np.float64))
    keep = lam > _RCOND * lam[-1]
    return E[:, keep] / np.sqrt(lam[keep])


def pca_of_features(F: ArrayLike, n_components: int
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Linear PCA of the rows of ``F`` = kernel PCA of ``F F^T`` with centring.

    Parameters
    ----------
    F : ndarray, shape (n, r)
    n_components : int

    Returns
    -------
    mean : ndarray, shape (r,)
    axes : ndarray, shape (r, n_components)
        Orthonormal principal axes (right singular vectors of ``F - mean``).
    eigenvalues : ndarray, shape (n_components,)
        Squared singular values = eigenvalues of ``M_c F F^T M_c``.
    alphas : ndarray, shape (n, n_components)
        Unit-norm eigenvectors of ``M_c F F^T M_c`` (left singular vectors),
        largest-magnitude entry positive; ``axes`` carries the same sign.

    See Also
    --------
    pca_of_feature_rows : the same for ``F`` given in row blocks.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Eqs.
       (4)-(6): the eigenproblem of the centred kernel, here of ``F F^T``.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.largescale import pca_of_features
    >>> F = np.random.default_rng(0).normal(size=(30, 4))
    >>> mean, axes, lam, alphas = pca_of_features(F, 2)
    >>> Fc = F - F.mean(axis=0)
    >>> bool(np.allclose(lam, np.linalg.eigvalsh(Fc @ Fc.T)[::-1][:2]))
    True
    """
    mean = F.mean(axis=0)
    Fc = F - mean
    U, s, Vt = scipy.linalg.svd(Fc, full_matrices=False)
    k = n_components
    U, s, V = U[:, :k], s[:k], Vt[:k].T
    signs = column_signs(U)
    return mean, V * signs, s**2, U * signs


def pca_of_feature_rows(features: Callable[[slice], np.ndarray], n_rows: int, n_components: int
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`pca_of_features` of ``F`` given as row blocks, in ``O(ROW_BLOCK r + r^2)`` memory.

    Up to :data:`~kpca.largescale._blocks.ROW_BLOCK` rows, ``F`` is built and
    passed to :func:`pca_of_features` (SVD). Beyond, two passes over the
    blocks: the first accumulates the mean and the centred scatter
    ``S = F_c^T F_c`` (``r x r``), merging the per-block centred scatters
    (Chan, Golub & LeVeque's pairwise update, so no ``F^T F - N m m^T``
    cancellation); ``S = V Lambda V^T`` (:func:`scipy.linalg.eigh`) gives the
    axes and eigenvalues; the second pass gives
    ``alphas = F_c V Lambda^{-1/2}``. Same eigenpairs as the SVD up to
    rounding: the eigenvalues of ``S`` carry an absolute error of about
    ``eps * lambda_1``, so component ``k`` agrees to about
    ``eps * lambda_1 / lambda_k`` relative (eigenvectors: over the gap to
    the next eigenvalue); measured ``< 1e-12`` for the leading components in
    ``tests/kpca/test_largescale_blocks.py``.

    Parameters
    ----------
    features : callable
        ``features(rows)`` returns ``F[rows]``, shape ``(rows length, r)``,
        for a ``slice`` ``rows``; called twice per block.
    n_rows : int
        Number of rows ``n`` of ``F``.
    n_components : int

    Returns
    -------
    mean, axes, eigenvalues, alphas
        As :func:`pca_of_features`.

    Raises
    ------
    ValueError
        In the blocked case, if a requested eigenvalue is not above ``1e-10``
        times the largest (its ``alphas`` column would be rounding noise;
        the SVD's is an arbitrary null vector): ask for fewer components.

    See Also
    --------
    pca_of_features : the same for ``F`` in one array.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Eqs.
       (4)-(6): the eigenproblem of the centred kernel ``F F^T``.
    .. [2] T. F. Chan, G. H. Golub and R. J. LeVeque, "Algorithms for computing the sample
       variance: analysis and recommendations," Amer. Statist. 37(3), 242-247, 1983. The pairwise
       update of the centred scatter (no equation numbers: not in the project's collection).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.largescale.nystrom import pca_of_feature_rows, pca_of_features
    >>> F = np.random.default_rng(0).normal(size=(30, 4))
    >>> lam_rows = pca_of_feature_rows(lambda rows: F[rows], 30, 2)[2]
    >>> bool(np.allclose(lam_rows, pca_of_features(F, 2)[2]))
    True
    """
    if n_rows <= row_block():
        return pca_of_features(features(slice(0, n_rows)), n_components)
    n = 0
    for rows in row_slices(n_rows):
        F = features(rows)
        block_mean = F.mean(axis=0)
        Fc = F - block_mean
        if n == 0:
            mean, S = block_mean, Fc.T @ Fc
        else:
            delta = block_mean - mean
            nb = F.shape[0]
            mean = mean + delta * (nb / (n + nb))
            S += Fc.T @ Fc
            S += np.outer(delta, delta) * (n * nb / (n + nb))
        n += F.shape[0]
    lam, V = scipy.linalg.eigh(S)
    k = n_components
    lam, V = lam[::-1][:k], V[:, ::-1][:, :k]
    if not lam[-1] > _RCOND * lam[0]:
        n_ok = int(np.sum(lam > _RCOND * lam[0]))
        raise ValueError(
            f"n_components={k} exceeds the {n_ok} components of the centred features with "
            f"eigenvalue above {_RCOND:g} times the largest; ask for at most {n_ok}"
        )
    alphas = np.empty((n_rows, k))
    for rows in row_slices(n_rows):
        alphas[rows] = (features(rows) - mean) @ V
    alphas /= np.sqrt(lam)
    signs = column_signs(alphas)
    return mean, V * signs, lam, alphas * signs


def nystrom_kpca(X: ArrayLike, support: ArrayLike, sigma2: float,
                 n_components: int) -> NystromEigen:
    """Nyström approximation of the dense kernel PCA of all ``N`` points.

    Builds ``F = K(X, X_support) T`` (:func:`nystrom_map`) row block by row
    block, centres it over all ``N`` rows and returns its leading principal
    directions (:func:`pca_of_feature_rows`): the approximate eigenpairs of
    ``M_c Omega M_c`` for the full ``N x N`` kernel, at ``O(N M (M + d))``
    cost and ``O(N d + ROW_BLOCK M + M^2)`` memory. With every point as
    support vector the result is the dense eigendecomposition (tested against
    ``scipy.linalg.eigh``).

    Parameters
    ----------
    X : array_like, shape (N, d)
    support : array_like of int, shape (M,)
        Row indices of the support vectors.
    sigma2 : float
    n_components : int
        ``1 <= n_components <= rank``.

    Returns
    -------
    NystromEigen

    See Also
    --------
    nystrom_map : the map ``T``.
    FixedSizeKernelPCA : the estimator (``train_on='all'``).

    References
    ----------
    .. [1] C. K. I. Williams and M. Seeger, "Using the Nyström method to speed up kernel machines,"
       Advances in Neural Information Processing Systems 13, MIT Press, 2001. The Nyström method
       (no equation numbers: not in the project's collection).
    .. [2] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Sec.
       V: kernel PCA of ``N`` points from ``M`` support vectors; Eqs. (4)-(6).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca import KernelPCA
    >>> from kpca.datasets import semicircles
    >>> from kpca.largescale import nystrom_kpca
    >>> X, _ = semicircles(100, noise=0.1, random_state=0)
    >>> approx = nystrom_kpca(X, np.arange(100), 0.3, 3)  # every point a support vector: exact
    >>> dense = KernelPCA(3, 0.3, eigen_solver="dense").fit(X)
    >>> bool(np.allclose(approx.eigenvalues, dense.eigenvalues_))
    True
    """
    X = check_array(X, "X")
    sigma2 = check_sigma2(sigma2)
    support = np.asarray(support, dtype=np.intp)
    B = X[support]
    T = nystrom_map(rbf_kernel(B, sigma2=sigma2))
    n_components = check_n_components(n_components, T.shape[1])
    _, _, lam, alphas = pca_of_feature_rows(
        lambda rows: rbf_kernel(X[rows], B, sigma2=sigma2) @ T, X.shape[0], n_components
    )
    return NystromEigen(eigenvalues=lam, eigenvectors=alphas, rank=T.shape[1])
