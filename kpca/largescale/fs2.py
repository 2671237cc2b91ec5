"""FS2 support-vector selection: k-means start, quadratic Rényi entropy ascent.

Varon, Alzate & Suykens (2015), Sec. V-1, modify the fixed-size (FS) method of
Suykens et al. (2002) in two ways:

1. the initial ``M`` support vectors are the centroids of ``M`` k-means
   clusters instead of random points;
2. the support vector that is replaced is not drawn at random: it is "the
   candidate support vector that indicates the maximum similarity with the rest
   of the training points", replaced "with another vector in the remaining set".

Both steps maximise the quadratic Rényi entropy of the support set,
Eqs. (9)-(10),

    H_R = -log( (1/M^2) 1^T Omega 1 ),     Omega_ij = k(s_i, s_j).

Readings of the parts the paper leaves open (documented choices)
-----------------------------------------------------------------
* **Centroids -> data points.** k-means centroids are not data points, but the
  Nyström extension needs support vectors that are training points. Each
  centroid (in k-means' order) is mapped to its nearest data point that is not
  already taken, so the ``M`` support vectors are distinct.
* **Which support vector is replaced.** "The rest of the training points" is
  read as the rest of the *support set* (the training set of FS2 is the support
  set, Sec. VI-A): the candidate is ``argmax_i sum_{j != i} Omega_ij`` — the
  most redundant support vector, whose removal lowers ``1^T Omega 1`` most.
* **Which point replaces it.** The paper does not say how the replacement is
  drawn from the remaining set. We evaluate every remaining point at once (the
  change of ``1^T Omega 1`` is ``2 (sum_{j != i} k(x, s_j) - sum_{j != i}
  Omega_ij)`` and is computed for all ``x`` from running row sums) and take the
  one that raises the entropy most. The swap is accepted only if ``H_R``
  strictly increases; otherwise the candidate is locally optimal and the search
  has converged. ``H_R`` therefore never decreases. Each swap costs
  ``O(N d)`` (one kernel column to add, one to remove).

Memory
------
``O(N d + ROW_BLOCK M + M^2)``: no ``N x M`` array is formed. The k-means
start is :func:`scipy.cluster.vq.kmeans2` (``minit="++"``, 20 iterations)
re-implemented draw for draw (same seeding, same labels, same centroids)
with a running minimum in the k-means++ seeding instead of SciPy's ``i x N``
distance matrix at step ``i`` (which also costs ``O(M^2 N d)`` time), and the
labels computed
:data:`~kpca.largescale._blocks.ROW_BLOCK` rows at a time; the centroid to
data point mapping and the kernel row sums of FS2 work in blocks too.

BLAS runs on one thread during the k-means start and the entropy swaps: their
BLAS calls are small and multi-threaded BLAS made them several times slower
(``docs/design.md#4-kpca-core-decisions``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy.cluster.vq import vq
from scipy.spatial.distance import cdist

from kpca._blas import single_threaded_blas
from kpca._validation import (
    check_array,
    check_count,
    check_n_components,
    check_random_state,
    check_sigma2,
)
from kpca.kernels import rbf_kernel, squared_distances
from kpca.largescale._blocks import row_block, row_slices

__all__ = ["FS2Result", "renyi_entropy", "kmeans_support_vectors", "fs2_support_vectors"]


class FS2Result(NamedTuple):
    """Result of :func:`fs2_support_vectors`.

    Attributes
    ----------
    support : ndarray of int, shape (M,)
        Row indices of the support vectors in ``X``.
    entropy : ndarray, shape (n_swaps + 1,)
        Quadratic Rényi entropy ``H_R`` of the support set after the k-means
        start (entry 0) and after each accepted swap; non-decreasing.
    initial_support : ndarray of int, shape (M,)
        The support vectors mapped from the k-means centroids.
    converged : bool
        True if the search stopped because no swap raised ``H_R`` (False if it
        hit ``max_iter``).

    See Also
    --------
    fs2_support_vectors : returns it.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Sec.
       V-1 (FS2) and the quadratic Rényi entropy of Eqs. (9)-(10).

    Examples
    --------
    >>> from kpca.datasets import semicircles
    >>> from kpca.largescale import fs2_support_vectors
    >>> X, _ = semicircles(200, noise=0.1, random_state=0)
    >>> res = fs2_support_vectors(X, 20, 0.3, random_state=0)
    >>> res.support.shape, bool(res.entropy[-1] >= res.entropy[0])
    ((20,), True)
    """

    support: np.ndarray
    entropy: np.ndarray
    initial_support: np.ndarray
    converged: bool


def renyi_entropy(K: ArrayLike) -> float:
    """Quadratic Rényi entropy of a kernel matrix, Varon et al. (2015) Eqs. (9)-(10).

    Parameters
    ----------
    K : ndarray, shape (M, M)
        Kernel matrix ``Omega`` of the support vectors.

    Returns
    -------
    float
        ``H_R = -log( (1/M^2) 1^T Omega 1 )``.

    See Also
    --------
    fs2_support_vectors : maximises it over the support set.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Eqs.
       (9)-(10): ``H_R`` and its estimate from the kernel matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.largescale import renyi_entropy
    >>> bool(renyi_entropy(np.eye(4)) == np.log(4))  # four far-apart points
    True
    """
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape[0] == 0:
        raise ValueError(f"K must be a non-empty square matrix; got shape {K.shape}")
    return float(-np.log(K.sum() / K.shape[0] ** 2))


def check_n_support(n_support: int, n_samples: int) -> int:
    """Validate the number of support vectors, ``1 <= n_support <= n_samples``."""
    return check_n_components(n_support, n_samples, "n_support",
                              bound_note=" (more support vectors than points)")


def _kmeans_plus_plus(X, k, rng):
    # k-means++ seeding with the draws of scipy.cluster.vq._kpp (SciPy 1.17):
    # same distances (cdist "sqeuclidean"), same cumulative-sum search, but a
    # running minimum over the chosen centres instead of an i x N matrix.
    init = np.empty((k, X.shape[1]))
    init[0] = X[rng.integers(X.shape[0])]
    D2 = None
    for i in range(1, k):
        d = cdist(init[i - 1 : i], X, metric="sqeuclidean")[0]
        D2 = d if D2 is None else np.minimum(D2, d, out=D2)
        cumprobs = (D2 / D2.sum()).cumsum()
        init[i] = X[int(np.searchsorted(cumprobs, rng.uniform()))]
    return init


def _kmeans(X, k, rng, n_iter=20):
    """Centroids of ``scipy.cluster.vq.kmeans2(X, k, iter=n_iter, minit="++", rng=rng)``.

    Same seeding (:func:`_kmeans_plus_plus`), same Lloyd iterations (labels
    by :func:`scipy.cluster.vq.vq`, here on row blocks; means accumulated in
    row order; an empty cluster keeps its centroid), hence the same
    centroids, without ``N x k`` arrays.
    """
    N, d = X.shape
    code = _kmeans_plus_plus(X, k, rng)
    label = np.empty(N, dtype=np.intp)
    for _ in range(n_iter):
        for rows in row_slices(N):
            label[rows] = vq(X[rows], code, check_finite=False)[0]
        counts = np.bincount(label, minlength=k)
        sums = np.column_stack([np.bincount(label, weights=X[:, j], minlength=k)
                                for j in range(d)])
        has_members = counts > 0
        code[has_members] = sums[has_members] / counts[has_members, None]
    return code


@single_threaded_blas
def kmeans_support_vectors(X: ArrayLike, n_support: int, *,
                           random_state: int | np.random.Generator | None = None) -> np.ndarray:
    """Distinct data points nearest to ``n_support`` k-means centroids (FS2 start).

    k-means is that of :func:`scipy.cluster.vq.kmeans2` (k-means++ seeding,
    20 iterations) with a generator from ``random_state``, re-implemented with
    the same draws and results in ``O(N d + ROW_BLOCK M)`` memory (see the
    module docstring). Each centroid, in order, takes its nearest data point
    not yet taken (among equidistant ones, the first in :func:`numpy.argsort`
    order), so the result has ``n_support`` distinct indices. The distances
    are those of :func:`~kpca.kernels.squared_distances` for
    ``max(1, ROW_BLOCK * M // N)`` centroids at a time; for ``d >= 16`` they
    go through BLAS, whose rounding depends on that count, so a centroid
    equidistant in exact arithmetic from two points (a two-point cluster) may
    take the other one than with all ``M`` centroids at once.

    Parameters
    ----------
    X : array_like, shape (N, d)
    n_support : int
        ``1 <= n_support <= N``.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    ndarray of int, shape (n_support,)

    See Also
    --------
    fs2_support_vectors : starts from these support vectors.
    scipy.cluster.vq.kmeans2 : the k-means re-implemented here draw for draw.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Sec.
       V-1 and Remark 1: the initial support vectors from the centroids of k-means clusters.

    Examples
    --------
    >>> from kpca.datasets import semicircles
    >>> from kpca.largescale import kmeans_support_vectors
    >>> X, _ = semicircles(200, noise=0.1, random_state=0)
    >>> sv = kmeans_support_vectors(X, 10, random_state=0)
    >>> sv.shape, len(set(sv.tolist()))
    ((10,), 10)
    """
    X = check_array(X, "X")
    N = X.shape[0]
    M = check_n_support(n_support, N)
    rng = check_random_state(random_state)
    if M == N:
        return np.arange(M)
    centroids = _kmeans(X, M, rng)
    taken = np.zeros(N, dtype=bool)
    support = np.empty(M, dtype=np.intp)
    # Distances of a few centroids at a time: at most ROW_BLOCK * M entries.
    step = max(1, row_block() * M // N)
    for c0 in range(0, M, step):
        D2 = squared_distances(centroids[c0 : c0 + step], X)
        for c, row in enumerate(D2, start=c0):
            free = np.where(taken, np.inf, row)
            j = np.argmin(free)
            if np.count_nonzero(free == free[j]) > 1:
                # Equidistant points (the centroid of a two-point cluster is their
                # midpoint): the first free one in np.argsort order, as always.
                order = np.argsort(row)
                j = order[np.argmin(taken[order])]
            support[c] = j
            taken[j] = True
    return support


def _kernel_column(X, j, sigma2):
    # One kernel column in NumPy (cheaper than a parallel compiled call).
    diff = X - X[j]
    return np.exp(np.einsum("ij,ij->i", diff, diff) * (-0.5 / sigma2))


@single_threaded_blas
def fs2_support_vectors(X: ArrayLike, n_support: int, sigma2: float, *,
                        max_iter: int | None = None,
                        random_state: int | np.random.Generator | None = None) -> FS2Result:
    """Select ``n_support`` support vectors by FS2 (Varon et al. 2015, Sec. V-1).

    k-means start (:func:`kmeans_support_vectors`), then repeated replacement
    of the support vector with the largest similarity to the rest of the
    support set by the remaining point that increases the quadratic Rényi
    entropy (Eqs. (9)-(10)) most; a swap is kept only if the entropy increases.
    See the module docstring for the reading of the replacement rule.

    Parameters
    ----------
    X : array_like, shape (N, d)
    n_support : int
        Number of support vectors ``M`` (``1 <= M <= N``).
    sigma2 : float
        RBF kernel width used for the entropy.
    max_iter : int, optional
        Cap on accepted swaps (default ``10 * M``).
    random_state : None, int or numpy.random.Generator
        Seeds k-means.

    Returns
    -------
    FS2Result

    See Also
    --------
    kmeans_support_vectors : the k-means start.
    renyi_entropy : the entropy it ascends.
    FixedSizeKernelPCA : kernel PCA on the support vectors.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Sec.
       V-1: FS2, the fixed-size method with a k-means start and the replacement of the most similar
       support vector, maximising the quadratic Rényi entropy of Eqs. (9)-(10).
    .. [2] J. A. K. Suykens, T. Van Gestel, J. De Brabanter, B. De Moor and J. Vandewalle, *Least
       Squares Support Vector Machines*, World Scientific, 2002. The fixed-size method (no equation
       numbers: the book is not in the project's collection).

    Examples
    --------
    >>> from kpca.datasets import semicircles
    >>> from kpca.largescale import fs2_support_vectors
    >>> X, _ = semicircles(200, noise=0.1, random_state=0)
    >>> res = fs2_support_vectors(X, 20, 0.3, random_state=0)
    >>> bool(all(res.entropy[1:] > res.entropy[:-1])), res.converged
    (True, True)
    """
    X = check_array(X, "X")
    N = X.shape[0]
    M = check_n_support(n_support, N)
    sigma2 = check_sigma2(sigma2)
    max_iter = 10 * M if max_iter is None else check_count(max_iter, "max_iter", 0)
    support = kmeans_support_vectors(X, M, random_state=random_state)
    initial = support.copy()

    in_support = np.zeros(N, dtype=bool)
    in_support[support] = True
    Ksv = rbf_kernel(X[support], sigma2=sigma2)  # Omega
    # c[x] = sum_j k(x, s_j) for every data point (running row sums).
    c = np.empty(N)
    for rows in row_slices(N):
        c[rows] = rbf_kernel(X[rows], X[support], sigma2=sigma2).sum(axis=1)
    total = Ksv.sum()
    history = [-np.log(total / M**2)]
    converged = M == N
    for _ in range(max_iter if M < N else 0):
        row = Ksv.sum(axis=1) - 1.0  # similarity of each SV to the rest (k(s,s)=1)
        i = int(np.argmax(row))
        k_old = _kernel_column(X, support[i], sigma2)
        # Similarity of each remaining point to the support set without s_i.
        gain = c - k_old
        gain[in_support] = np.inf
        r = int(np.argmin(gain))
        new_total = total + 2.0 * (gain[r] - row[i])
        # Require a gain above rounding so the recorded entropy is monotone.
        if not new_total < total * (1.0 - 1e-12):
            converged = True
            break
        k_new = _kernel_column(X, r, sigma2)
        in_support[support[i]] = False
        in_support[r] = True
        support[i] = r
        Ksv[i, :] = k_new[support]
        Ksv[:, i] = k_new[support]
        c += k_new - k_old
        total = Ksv.sum()  # recomputed (M^2) to avoid drift in the running sum
        history.append(-np.log(total / M**2))
    return FS2Result(
        support=support, entropy=np.asarray(history), initial_support=initial, converged=converged
    )
