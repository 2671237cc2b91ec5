"""Shannon-entropy width selection (Widjaja et al. 2012, cited by Varon et al. 2015).

Widjaja, Varon, Dorado, Suykens & Van Huffel (2012) choose ``sigma2`` for
kernel-PCA EDR by maximising "the Shannon entropy of the kernel matrix"; the
exact estimator is not given in our papers.  Two estimators are offered:

``"histogram"`` (default)
    entropy ``-sum_b p_b log p_b`` of a ``bins``-bin histogram (default 256)
    of the off-diagonal kernel entries on ``[0, 1]`` — what public
    re-implementations do.  At both ends of the grid the entries collapse into
    one bin (all 0 or all 1), so the entropy has an interior maximum.
``"kde"``
    differential entropy of the kernel entries estimated with a Gaussian
    kernel density (Silverman's bandwidth) on a fine grid over ``[0, 1]`` —
    a bin-free alternative.

The default is the 256-bin histogram (why: ``docs/design.md#4-kpca-core-decisions``).

``n_components`` is not chosen by this criterion (Varon et al. combine it
with MDD's ``n_c``); a fixed value is stored as given.
"""

from __future__ import annotations

import numpy as np

from kpca._validation import check_choice, check_count, check_n_components
from kpca.kernels import squared_distances
from kpca.selection._common import check_data, check_grid, seed_of
from kpca.selection.result import SelectionResult

__all__ = ["kernel_entropy", "select_shannon"]

ESTIMATORS = ("histogram", "kde")
#: Histogram bins on ``[0, 1]`` of the default estimator (why 256: ``docs/design.md``)
BINS = 256
#: entries used by the "kde" estimator (a deterministic, evenly spaced subsample beyond this)
_KDE_MAX_ENTRIES = 20000


def kernel_entropy(K_offdiag, *, estimator="histogram", bins=BINS):
    """Shannon entropy (nats) of kernel values in ``[0, 1]``.

    Parameters
    ----------
    K_offdiag : ndarray
        Kernel entries (e.g. the strict upper triangle).
    estimator : {"histogram", "kde"}
    bins : int
        Histogram bins on ``[0, 1]`` (``"histogram"``) or evaluation points (``"kde"``).

    Returns
    -------
    float
        ``-inf`` for constant values with ``"kde"``.

    See Also
    --------
    select_shannon : the width maximising it.

    References
    ----------
    .. [1] D. Widjaja, C. Varon, A. C. Dorado, J. A. K. Suykens and S. Van Huffel, "Application of
       kernel principal component analysis for single-lead ECG-derived respiration," IEEE Trans.
       Biomed. Eng. 59(4), 1169-1176, 2012. The width of maximal Shannon entropy of the kernel
       matrix (the paper's text is not in the project's collection; the estimators are this
       package's reading, module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.selection.shannon import kernel_entropy
    >>> values = (np.arange(2560) + 0.5) / 2560  # 10 values in each of the 256 bins
    >>> round(kernel_entropy(values), 3), round(float(np.log(256)), 3)
    (5.545, 5.545)
    >>> kernel_entropy(np.full(100, 0.3)) == 0  # all in one bin
    True
    """
    check_choice(estimator, "estimator", ESTIMATORS)
    v = np.asarray(K_offdiag, dtype=np.float64).ravel()
    if estimator == "histogram":
        return _histogram_entropy(v, bins)
    return _kde_entropy(v, bins)


def _histogram_entropy(v, bins):
    """Entropy ``-sum_b p_b log p_b`` of a ``bins``-bin histogram of ``v`` on ``[0, 1]``."""
    counts, _ = np.histogram(v, bins=bins, range=(0.0, 1.0))
    p = counts[counts > 0] / v.size
    return float(-np.sum(p * np.log(p)))


def _kde_entropy(v, bins):
    """Differential entropy of a binned Gaussian KDE of ``v`` (Silverman's bandwidth) on at
    least 64 points of ``[0, 1]``; ``-inf`` for constant ``v``."""
    if v.size > _KDE_MAX_ENTRIES:
        v = np.sort(v)[np.linspace(0, v.size - 1, _KDE_MAX_ENTRIES).astype(int)]
    sd = v.std()
    if sd == 0:
        return float("-inf")
    iqr = np.subtract(*np.percentile(v, [75, 25]))
    h = 0.9 * min(sd, iqr / 1.34 if iqr > 0 else sd) * v.size ** (-0.2)
    x = np.linspace(0.0, 1.0, max(int(bins), 64))
    # binned KDE: histogram on the evaluation grid convolved with the Gaussian kernel
    counts, edges = np.histogram(v, bins=x.size, range=(0.0, 1.0))
    centers = 0.5 * (edges[:-1] + edges[1:])
    dx = centers[1] - centers[0]
    half = int(np.ceil(5 * h / dx))
    t = np.arange(-half, half + 1) * dx
    w = np.exp(-0.5 * (t / h) ** 2)
    f = np.convolve(counts, w, mode="same")
    f = f / (f.sum() * dx)
    pos = f > 0
    return float(-np.sum(f[pos] * np.log(f[pos])) * dx)


def select_shannon(X, *, n_components=None, grid=None, random_state=None,
                   estimator="histogram", bins=BINS):
    """Width maximising the Shannon entropy of the kernel matrix.

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
    n_components : int, optional
        Stored unchanged (this criterion does not choose it).
    grid : array_like, optional
        ``sigma2`` values; default :func:`kpca.selection._common.default_grid`.
    random_state : ignored
        Deterministic criterion; recorded for the result only.
    estimator : {"histogram", "kde"}
        See the module docstring.
    bins : int
        Histogram bins (default 256).

    Returns
    -------
    SelectionResult
        ``curve`` holds the entropy per ``sigma2``.

    See Also
    --------
    kernel_entropy : the entropy of one kernel.
    select_mdd : MDD, which Varon et al. (2015) combine with it for ``n_c``.

    References
    ----------
    .. [1] D. Widjaja, C. Varon, A. C. Dorado, J. A. K. Suykens and S. Van Huffel, "Application of
       kernel principal component analysis for single-lead ECG-derived respiration," IEEE Trans.
       Biomed. Eng. 59(4), 1169-1176, 2012. Maximal Shannon entropy of the kernel matrix (no
       equation numbers: the paper's text is not in the project's collection).
    .. [2] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. §VI:
       the Shannon criterion compared with MDD, its ``n_c`` chosen by MDD.

    Examples
    --------
    >>> from kpca.datasets import semicircles
    >>> from kpca.selection import select_shannon
    >>> X, _ = semicircles(100, noise=0.1, random_state=0)
    >>> res = select_shannon(X)
    >>> res.criterion, float(res.curve.max()) == float(res.curve[res.index])
    ('widjaja2012', True)
    """
    check_choice(estimator, "estimator", ESTIMATORS)
    bins = check_count(bins, "bins", 2)
    X, n_dup = check_data(X)
    grid = check_grid(grid, X)
    nc = check_n_components(n_components, X.shape[0], optional=True)
    iu = np.triu_indices(X.shape[0], k=1)
    d2 = squared_distances(X)[iu]
    curve = np.array([kernel_entropy(np.exp(-d2 / (2.0 * s)), estimator=estimator,
                                     bins=bins) for s in grid])
    idx = int(np.argmax(curve))
    return SelectionResult(
        criterion="widjaja2012",
        sigma2=float(grid[idx]),
        n_components=nc,
        grid=grid,
        curve=curve,
        n_components_grid=np.full(grid.size, -1 if nc is None else nc, dtype=np.int64),
        random_state=seed_of(random_state),
        details={"estimator": estimator, "bins": int(bins), "n_duplicates": n_dup},
    )
