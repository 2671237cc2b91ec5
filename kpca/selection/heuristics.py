"""Classic heuristics for the RBF width and the number of components.

Widths (the list compared in Jørgensen & Hansen 2012, §III-B; each sets the
kernel scale ``sigma`` to a distance, so ``sigma2 = distance**2``):

1. maximal distance of a training point to the mean of all training points
   (Teixeira et al.);
2. median of all pairwise distances (Thorstensen et al.);
3. mean of all pairwise distances (Kwok & Tsang);
4. mean distance to the nearest neighbour and
5. mean distance to the 5 nearest neighbours (Arias et al.);

plus the rule of thumb of Varon et al. (2015), Eq. (20):
``sigma2 = 0.1 * d * mean_j Var[x_j]`` (per-dimension variances, ddof=0).

Numbers of components (Jørgensen & Hansen 2012, §III-B):

* Guttman–Kaiser: eigenvalues greater than their mean;
* scree: the first index where the difference between consecutive sorted
  eigenvalues falls below 5 % of the largest consecutive difference.
"""

from __future__ import annotations

import numpy as np

from kpca._validation import check_array
from kpca.kernels import squared_distances

__all__ = [
    "rule_of_thumb_sigma2",
    "max_distance_to_mean_sigma2",
    "median_distance_sigma2",
    "mean_distance_sigma2",
    "knn_distance_sigma2",
    "guttman_kaiser",
    "scree",
]


def rule_of_thumb_sigma2(X):
    """Rule of thumb of Varon et al. (2015), Eq. (20): ``0.1 * d * mean(Var[x_j])``.

    ``Var`` is the population variance (``ddof=0``) of each of the ``d``
    input dimensions.  Equivalently ``0.1 * trace(Cov)``.

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
        At least 2 samples.

    Returns
    -------
    float
        ``sigma2``.

    Raises
    ------
    ValueError
        If the data are constant (the rule gives 0).

    See Also
    --------
    kpca.selection.select : the default ``sigma2`` grid is centred on it.
    median_distance_sigma2 : a distance heuristic.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Eq.
       (20), the factor 0.1 chosen experimentally there; §VI-A: the width of ICF + MDD and an upper
       bound of the search grid (Fig. 9).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.selection import rule_of_thumb_sigma2
    >>> X = np.array([[0.0, 0.0], [2.0, 4.0]])  # variances 1 and 4
    >>> round(rule_of_thumb_sigma2(X), 12)
    0.5
    """
    X = check_array(X, "X", min_samples=2)
    s2 = 0.1 * X.shape[1] * float(np.mean(np.var(X, axis=0)))
    if not s2 > 0:
        raise ValueError("X is constant: the rule of thumb (Eq. (20)) gives sigma2=0")
    return s2


def max_distance_to_mean_sigma2(X):
    """``sigma2 = (max_i ||x_i - mean(X)||)**2`` (heuristic 1 of Jørgensen & Hansen).

The largest distance of a training point to the mean of all training points (Teixeira et
    al., cited there).

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
        At least 2 samples.

    Returns
    -------
    float
        ``sigma2``.

    See Also
    --------
    rule_of_thumb_sigma2 : Eq. (20) of Varon et al. (2015).
    kpca.selection.select : runs each as a criterion (``'median-distance'``, ...).

    References
    ----------
    .. [1] K. W. Jørgensen and L. K. Hansen, "Model selection for Gaussian kernel PCA denoising,"
       IEEE Trans. Neural Netw. Learn. Syst. 23(1), 163-168, 2012. §III-B: the heuristic widths
       compared with kPA (each sets ``sigma`` to a distance; here ``sigma2 = distance**2``).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.selection.heuristics import max_distance_to_mean_sigma2
    >>> X = np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]])
    >>> max_distance_to_mean_sigma2(X)
    25.0
    """
    X = check_array(X, "X", min_samples=2)
    return float(np.max(np.sum((X - X.mean(axis=0)) ** 2, axis=1)))


def median_distance_sigma2(X):
    """``sigma2 = median pairwise distance**2`` (heuristic 2 of Jørgensen & Hansen).

The median distance between training points (Thorstensen et al., cited there).

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
        At least 2 samples.

    Returns
    -------
    float
        ``sigma2``.

    See Also
    --------
    mean_distance_sigma2 : the mean instead of the median.
    rule_of_thumb_sigma2 : Eq. (20) of Varon et al. (2015).
    kpca.selection.select : runs each as a criterion (``'median-distance'``, ...).

    References
    ----------
    .. [1] K. W. Jørgensen and L. K. Hansen, "Model selection for Gaussian kernel PCA denoising,"
       IEEE Trans. Neural Netw. Learn. Syst. 23(1), 163-168, 2012. §III-B: the heuristic widths
       compared with kPA (each sets ``sigma`` to a distance; here ``sigma2 = distance**2``).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.selection.heuristics import median_distance_sigma2
    >>> X = np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]])
    >>> median_distance_sigma2(X)
    25.0
    """
    from scipy.spatial.distance import pdist  # imported when used (scipy.spatial is heavy)

    X = check_array(X, "X", min_samples=2)
    return float(np.median(pdist(X))) ** 2


def mean_distance_sigma2(X):
    """``sigma2 = mean pairwise distance**2`` (heuristic 3 of Jørgensen & Hansen).

The mean distance between training points (Kwok & Tsang, cited there).

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
        At least 2 samples.

    Returns
    -------
    float
        ``sigma2``.

    See Also
    --------
    median_distance_sigma2 : the median instead of the mean.
    rule_of_thumb_sigma2 : Eq. (20) of Varon et al. (2015).
    kpca.selection.select : runs each as a criterion (``'median-distance'``, ...).

    References
    ----------
    .. [1] K. W. Jørgensen and L. K. Hansen, "Model selection for Gaussian kernel PCA denoising,"
       IEEE Trans. Neural Netw. Learn. Syst. 23(1), 163-168, 2012. §III-B: the heuristic widths
       compared with kPA (each sets ``sigma`` to a distance; here ``sigma2 = distance**2``).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.selection.heuristics import mean_distance_sigma2
    >>> X = np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]])
    >>> round(mean_distance_sigma2(X), 4)
    44.4444
    """
    from scipy.spatial.distance import pdist  # imported when used (scipy.spatial is heavy)

    X = check_array(X, "X", min_samples=2)
    return float(np.mean(pdist(X))) ** 2


def knn_distance_sigma2(X, k=1):
    """``sigma2 = (mean distance to the k nearest neighbours)**2`` (heuristics 4, 5: k = 1, 5).

    The mean runs over all points and their ``k`` nearest other points (Arias et al., cited
    by Jørgensen & Hansen).

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
        At least 2 samples.
    k : int
        Neighbours per point, ``1 <= k < n_samples``.

    Returns
    -------
    float
        ``sigma2``.

    Raises
    ------
    ValueError
        If ``k`` is not an int in ``[1, n_samples - 1]``.

    See Also
    --------
    rule_of_thumb_sigma2 : Eq. (20) of Varon et al. (2015).
    kpca.selection.select : runs each as a criterion (``'median-distance'``, ...).

    References
    ----------
    .. [1] K. W. Jørgensen and L. K. Hansen, "Model selection for Gaussian kernel PCA denoising,"
       IEEE Trans. Neural Netw. Learn. Syst. 23(1), 163-168, 2012. §III-B: heuristics 4 and 5, the
       mean distance to the nearest and to the 5 nearest neighbours (``sigma`` set to it; here
       ``sigma2 = distance**2``).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.selection.heuristics import knn_distance_sigma2
    >>> X = np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]])
    >>> knn_distance_sigma2(X, 1)
    25.0
    """
    X = check_array(X, "X", min_samples=2)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k < X.shape[0]:
        raise ValueError(f"k must be an int in [1, n_samples - 1={X.shape[0] - 1}]; got k={k!r}")
    D2 = squared_distances(X)
    np.fill_diagonal(D2, np.inf)
    nn = np.partition(D2, k - 1, axis=1)[:, :k]
    return float(np.mean(np.sqrt(np.maximum(nn, 0.0)))) ** 2


def _check_spectrum(eigenvalues):
    ev = np.asarray(eigenvalues, dtype=np.float64).ravel()
    if ev.size < 2 or not np.all(np.isfinite(ev)):
        raise ValueError("eigenvalues must hold at least 2 finite values; got "
                         f"eigenvalues={eigenvalues!r}")
    return np.sort(ev)[::-1]


def guttman_kaiser(eigenvalues):
    """Number of eigenvalues greater than their mean (Guttman–Kaiser criterion).

    Parameters
    ----------
    eigenvalues : array_like
        At least 2 finite values, in any order.

    Returns
    -------
    int

    See Also
    --------
    scree : the elbow of the sorted spectrum instead.
    kpca.selection.select : uses it for ``n_components`` of the width-only criteria.

    References
    ----------
    .. [1] K. W. Jørgensen and L. K. Hansen, "Model selection for Gaussian kernel PCA denoising,"
       IEEE Trans. Neural Netw. Learn. Syst. 23(1), 163-168, 2012. §III-B: the Guttman-Kaiser
       criterion compared with kPA (Fig. 7).

    Examples
    --------
    >>> from kpca.selection import guttman_kaiser
    >>> guttman_kaiser([5.0, 3.0, 1.0, 0.5, 0.5])  # mean 2
    2
    """
    ev = _check_spectrum(eigenvalues)
    return int(np.sum(ev > ev.mean()))


def scree(eigenvalues, fraction=0.05):
    """Scree criterion as in Jørgensen & Hansen (2012), §III-B.

    With ``delta_i = lambda_i - lambda_{i+1}`` (sorted descending), ``q`` is the
    first ``i`` (1-based) with ``delta_i < fraction * max(delta)``: the
    components before the elbow are kept.

    Parameters
    ----------
    eigenvalues : array_like
        At least 2 finite values, in any order.
    fraction : float
        Threshold relative to the largest gap (5 % in the paper).

    Returns
    -------
    int

    See Also
    --------
    guttman_kaiser : eigenvalues above their mean instead.

    References
    ----------
    .. [1] K. W. Jørgensen and L. K. Hansen, "Model selection for Gaussian kernel PCA denoising,"
       IEEE Trans. Neural Netw. Learn. Syst. 23(1), 163-168, 2012. §III-B: the scree criterion, the
       first point where the difference of consecutive eigenvalues falls below 5 % of the largest
       difference.

    Examples
    --------
    >>> from kpca.selection import scree
    >>> scree([10.0, 6.0, 2.0, 1.95, 1.9])  # gaps 4, 4, 0.05, 0.05: elbow after 2
    2
    """
    ev = _check_spectrum(eigenvalues)
    delta = ev[:-1] - ev[1:]
    small = np.flatnonzero(delta < fraction * delta.max())
    return int(small[0]) if small.size else int(ev.size - 1)
