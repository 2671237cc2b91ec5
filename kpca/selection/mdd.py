"""Model selection based on distance distributions (MDD), Varon, Alzate & Suykens (2015), §IV.

Algorithm (equation numbers of the paper):

1. Split the data at random into a training set ``D_t`` (``N_t`` points) and
   a validation set ``D_v`` (default: half each, as in Fig. 7).
2. Distances ``r_ij = ||x_i - x_j||`` for ``x_i`` in ``D_t`` and ``x_j`` in
   ``D_t ∪ D_v`` (ordered pairs, ``j != i``); their mean, standard deviation,
   skewness and kurtosis (population moments, as MATLAB's ``std(x, 1)``,
   ``skewness`` and ``kurtosis``), and ``r_max``, their maximum.
3. Monte-Carlo draw ``m = 1..q`` (``q = 100``): ``N_r = N_t (N_t - 1) / 2``
   values from the Pearson distribution with those four moments
   (MATLAB's ``pearsrnd`` type choice, :mod:`kpca.pearson`) truncated to
   ``[0, r_max]`` (drawn directly as order statistics, no sort); sorted
   decreasingly and written column by column into the strict lower triangle
   of the noise distance matrix ``R_hat`` (Appendix, Eq. (21): this order
   guarantees the triangle inequality), symmetric, zero diagonal.
4. For every ``sigma2``: ``K_N = exp(-R_hat^2 / (2 sigma2))`` (Eq. (12)),
   centred (``M_c K_N M_c``, Eq. (13)), eigenvalues; ``tau_hat_i`` = 95th
   percentile over the ``q`` draws.  ``lambda_i`` are the eigenvalues of the
   centred kernel of the training set (Eq. (4)).
5. ``n_c(sigma2)`` by Eq. (14), ``I_s(sigma2) = sum_{i <= n_c} (lambda_i -
   tau_hat_i)`` (Eq. (15)), ``sigma2 = argmax I_s``.  With ``n_c`` fixed
   (EDR: ``n_c = 1``) the sum over the first ``n_c`` components is maximised
   ("it is also possible to maximize I_s for a known number of components").

The noise matrices do not depend on ``sigma2``; only the leading eigenvalues
are computed when ``n_c`` is fixed (see :mod:`kpca.selection._spectrum`).

``stop="sequential"`` and ``search="coarse-to-fine"`` are shortcuts that are not in the paper:
``q`` becomes a cap and the Monte-Carlo draws stop once the selected width is settled, and the
grid is searched coarse first, then around the coarse maxima (:mod:`kpca.selection._adaptive`).
The registry key ``"varon2015-fast"`` (alias ``"mdd-fast"``) runs MDD with both.
"""

from __future__ import annotations

import numbers
import time
from collections.abc import Mapping
from dataclasses import replace

import numba
import numpy as np

from kpca._blas import single_threaded_blas
from kpca._validation import check_count, check_n_components
from kpca.kernels import squared_distances
from kpca.pearson import SortedPearsonSampler, in_pearson_region
from kpca.selection._adaptive import BATCH, FIRST_BATCH, adaptive_noise_levels, check_strategy
from kpca.selection._common import (
    check_data,
    check_grid,
    check_n_eigenvalues,
    excess_curve,
    pick,
    rng_of,
    seed_of,
)
from kpca.selection._null import null_spectra, percentile95
from kpca.selection._spectrum import SpectrumPlan, unpack_full
from kpca.selection.result import SelectionResult

__all__ = ["MIN_TRAINING_POINTS", "N_DRAWS", "distance_moments", "noise_distance_matrix",
           "noise_distances_packed", "noise_sampler", "select_mdd", "select_mdd_fast"]

#: Monte-Carlo noise matrices per width, ``q = 100`` in Varon et al. (2015, §IV)
N_DRAWS = 100
#: Fewest training points (rows of the noise distance matrices) MDD accepts
MIN_TRAINING_POINTS = 5


def _n_train(n_train, n):
    if isinstance(n_train, bool):
        raise ValueError(f"n_train must be an int or a fraction in (0, 1]; got n_train={n_train!r}")
    if isinstance(n_train, numbers.Integral):
        nt = int(n_train)
    elif isinstance(n_train, numbers.Real) and 0.0 < float(n_train) <= 1.0:
        nt = int(round(float(n_train) * n))
    else:
        raise ValueError(f"n_train must be an int or a fraction in (0, 1]; got n_train={n_train!r}")
    if not MIN_TRAINING_POINTS <= nt <= n:
        raise ValueError(f"n_train must give between {MIN_TRAINING_POINTS} and n_samples={n} "
                         "training points; got "
                         f"n_train={n_train!r}")
    return nt


@numba.njit(cache=True, nogil=True)
def _central_moments(r):  # pragma: no cover - compiled
    """Mean, and the 2nd/3rd/4th central moments (population: divided by ``n``), and the max,
    in two passes (the mean first: no cancellation of raw power sums)."""
    n = r.size
    s = 0.0
    top = -np.inf
    for x in r:
        s += x
        top = x if x > top else top  # max(top, x), without compiling the builtin
    mean = s / n
    s2 = s3 = s4 = 0.0
    for x in r:
        d = x - mean
        d2 = d * d
        s2 += d2
        s3 += d2 * d
        s4 += d2 * d2
    return mean, s2 / n, s3 / n, s4 / n, top


def distance_moments(X_train, X_all, train_index=None):
    """Distances between training points and all points, and their four moments.

    Parameters
    ----------
    X_train : ndarray, shape (n_t, d)
    X_all : ndarray, shape (n, d)
        Training ∪ validation points.
    train_index : ndarray of int, optional
        Row of each training point in ``X_all`` (those self-pairs are skipped).

    Returns
    -------
    r : ndarray
        The distances ``r_ij`` (ordered pairs, self-pairs excluded).
    moments : dict
        ``mean``, ``std``, ``skew``, ``kurtosis`` (non-excess), ``r_max``.

    See Also
    --------
    noise_sampler : the Pearson distribution with these moments.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. §IV:
       the four moments of the training-to-all distances and their maximum ``r_max``.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.selection.mdd import distance_moments
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> r, mom = distance_moments(X[:10], X, np.arange(10))
    >>> r.size, sorted(mom)
    (390, ['kurtosis', 'mean', 'r_max', 'skew', 'std'])
    """
    D = squared_distances(X_train, X_all)
    np.sqrt(np.maximum(D, 0.0, out=D), out=D)  # in place: no two (n_t, n) temporaries
    mask = np.ones(D.shape, dtype=bool)
    if train_index is not None:
        mask[np.arange(D.shape[0]), train_index] = False
    r = D[mask]
    mean, var, m3, m4, r_max = _central_moments(r)
    std = float(np.sqrt(var))
    if std > 1e-12 * max(mean, np.finfo(float).tiny):
        skew, kurt = m3 / std**3, m4 / var**2
    else:  # all distances equal: a two-point-like distribution, outside the Pearson region
        std, skew, kurt = 0.0, float("nan"), float("nan")
    moments = {"mean": mean, "std": std, "skew": skew, "kurtosis": kurt, "r_max": r_max}
    return r, moments


def noise_sampler(moments):
    """The Pearson distribution with the four distance moments, truncated to ``[0, r_max]``
    (§IV), as a :class:`~kpca.pearson.SortedPearsonSampler` (its tables are built once and
    shared by all Monte-Carlo draws).

    See Also
    --------
    distance_moments : the moments.
    noise_distances_packed : one noise matrix's draws.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. §IV
       and footnote 3: the noise distances drawn from the Pearson system with the data's four
       distance moments, ``0 <= r_hat <= r_max``.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.selection.mdd import distance_moments, noise_sampler
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> _, mom = distance_moments(X[:10], X, np.arange(10))
    >>> draws = noise_sampler(mom).draw(45, 0)
    >>> bool(draws.min() >= 0 and draws.max() <= mom["r_max"])
    True
    """
    return SortedPearsonSampler(moments["mean"], moments["std"], moments["skew"],
                                moments["kurtosis"],
                                truncate=(0.0, moments["r_max"]))


def noise_distances_packed(n, moments, rng, *, sampler=None):
    """The ``n (n - 1) / 2`` Pearson draws of one noise matrix, truncated to ``[0, r_max]``,
    sorted decreasingly: the strict lower triangle of ``R_hat`` in column-major order
    (Appendix of Varon et al. 2015), as :func:`~kpca.selection._spectrum.pack_lower` stores it.
    The draws come sorted (:class:`~kpca.pearson.SortedPearsonSampler`, the order statistics of
    ``n (n - 1) / 2`` independent draws), so no sort is needed; pass ``sampler`` (from
    :func:`noise_sampler`) to reuse its tables.

    See Also
    --------
    noise_distance_matrix : the same draws as a full matrix.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015.
       Appendix: the sorted draws written column by column into the lower triangle, so that Eq.
       (21), hence the triangle inequality of Eq. (11), holds.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.selection.mdd import distance_moments, noise_distances_packed
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> _, mom = distance_moments(X[:10], X, np.arange(10))
    >>> d = noise_distances_packed(10, mom, np.random.default_rng(1))
    >>> d.shape, bool(np.all(np.diff(d) <= 0))
    ((45,), True)
    """
    if sampler is None:
        sampler = noise_sampler(moments)
    return sampler.draw(n * (n - 1) // 2, rng)[::-1].copy()


def noise_distance_matrix(n, moments, rng, *, sampler=None):
    """One Monte-Carlo noise distance matrix ``R_hat`` (Appendix of Varon et al. 2015).

    ``n (n - 1) / 2`` Pearson draws truncated to ``[0, r_max]``, sorted
    decreasingly, filled column-major into the strict lower triangle.

    Returns
    -------
    ndarray, shape (n, n)
        Symmetric, zero diagonal, satisfying Eq. (21).

    See Also
    --------
    noise_distances_packed : its lower triangle, packed.
    select_mdd : uses the packed form.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015.
       Appendix, Eq. (21), and the metric conditions of Eq. (11).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.selection.mdd import distance_moments, noise_distance_matrix
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> _, mom = distance_moments(X[:10], X, np.arange(10))
    >>> R = noise_distance_matrix(10, mom, np.random.default_rng(1))
    >>> bool(np.allclose(R, R.T) and np.all(np.diag(R) == 0))
    True
    """
    R = np.empty((n, n))
    unpack_full(noise_distances_packed(n, moments, rng, sampler=sampler), n, R)
    return R


@single_threaded_blas
def select_mdd(X, *, n_components=None, grid=None, random_state=None, n_draws=N_DRAWS, n_train=0.5,
               n_eigenvalues=None, n_jobs=None, stop="fixed", search="full", first_batch=BATCH):
    """Kernel width (and number of components) by MDD (Varon et al. 2015, §IV).

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
    n_components : int, optional
        ``None``: ``n_c`` by Eq. (14), maximise ``I_s`` (Eq. (15)); an int fixes
        ``n_c`` and maximises ``sum_{i <= n_c} (lambda_i - tau_hat_i)``.
    grid : array_like, optional
        ``sigma2`` values; default around the rule of thumb (Eq. (20)), see
        :func:`~kpca.selection._common.default_grid`.
    random_state : None, int or Generator
        Seeds the split and the Monte-Carlo draws.
    n_draws : int
        ``q``, Monte-Carlo repetitions (100 in the paper).
    n_train : int or float
        Training-set size, or its fraction of the data (default 0.5, the split
        of Fig. 7); the rest is the validation set.
    n_eigenvalues : int, optional
        With ``n_components=None``, compute only this many leading eigenvalues
        per matrix (``n_c`` is capped at it). Default: full spectra.
    n_jobs : int, optional
        Threads for the Monte-Carlo draws (default: all cores, at most 8).
    stop : {"fixed", "sequential"}
        ``"fixed"``: ``n_draws`` draws (the paper). ``"sequential"``: batches of draws until
        the selected width is settled, at most ``n_draws``
        (:mod:`kpca.selection._adaptive`).
    search : {"full", "coarse-to-fine"}
        ``"full"``: every grid value (the paper). ``"coarse-to-fine"``: every third value,
        then the values around each local maximum of that coarse curve.
    first_batch : int
        With ``stop="sequential"``: replicates drawn before the first look at the criterion
        (at least 2; default :data:`~kpca.selection._adaptive.BATCH`, 5; later batches are
        of 5).

    Returns
    -------
    SelectionResult
        ``curve`` = ``I_s``; ``data_spectra`` = ``lambda``; ``noise_spectra`` =
        ``tau_hat``; ``details`` holds the moments, the Pearson type, the
        training indices, a density histogram of the data and of one noise
        draw (Fig. 7(b)), ``n_draws`` (the draws made) and ``stop`` and ``search``.
        With ``search="coarse-to-fine"``, ``grid`` and the arrays hold the evaluated
        widths only.

    Raises
    ------
    ValueError
        Bad parameters, or distance moments outside the Pearson region
        (``kurtosis <= skew**2 + 1``, e.g. all distances equal).

    See Also
    --------
    select_mdd_fast : the same criterion with the sequential stop and the coarse-to-fine search.
    mdd_on_split : MDD on a given training/validation split (Fig. 8).
    select_kpa : kernel parallel analysis.
    select : the entry point for every criterion.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. §IV:
       the distance moments, the Pearson noise distances truncated to ``[0, r_max]`` (footnote 3),
       the noise kernel of Eq. (12) and its spectrum, Eq. (13), ``n_c`` by Eq. (14) and ``I_s`` of
       Eq. (15); the noise matrix of the Appendix, Eq. (21); the default grid around Eq. (20).

    Examples
    --------
    >>> from kpca.datasets import semicircles
    >>> from kpca.selection import select_mdd
    >>> X, _ = semicircles(100, noise=0.1, random_state=0)
    >>> res = select_mdd(X, n_draws=5, random_state=0)
    >>> res.criterion, res.n_components >= 1, res.details["pearson_type"] in range(8)
    ('varon2015', True, True)
    """
    t0 = time.perf_counter()
    n_draws = check_count(n_draws, "n_draws", 2)
    first_batch = check_count(first_batch, "first_batch", 2)
    stop, search = check_strategy(stop, search)
    X, n_dup = check_data(X)
    nt = _n_train(n_train, X.shape[0])
    grid = check_grid(grid, X)
    nc = check_n_components(n_components, nt - 1, optional=True)
    k = check_n_eigenvalues(nc, n_eigenvalues, nt)
    rng = rng_of(random_state)
    train = np.sort(rng.permutation(X.shape[0])[:nt])
    Xt = X[train]
    _, mom = distance_moments(Xt, X, train)
    _check_pearson_region(mom)
    sampler = noise_sampler(mom)
    grid, lam, tau, curve, nc_grid, n_used = _noise_levels(
        Xt, mom, sampler, grid, k, nc, rng, n_draws=n_draws, stop=stop, search=search,
        n_jobs=n_jobs, first_batch=first_batch)
    sigma2, n_sel, details = pick(grid, curve, nc_grid, nc, "varon2015",
                                  fallback_curve=(lam - tau)[:, 0] if nc is None else None)
    details.update({
        "moments": mom, "pearson_type": sampler.params.type, "pearson_name": sampler.params.name,
        "n_train": nt, "train_index": train, "n_draws": n_used, "stop": stop, "search": search,
        "n_duplicates": n_dup,
        "distance_hist": _DistanceHistograms(X, train, mom, rng),
        "seconds": time.perf_counter() - t0,
    })
    return SelectionResult(
        criterion="varon2015", sigma2=sigma2, n_components=n_sel, grid=grid, curve=curve,
        n_components_grid=nc_grid, data_spectra=lam, noise_spectra=tau,
        random_state=seed_of(random_state), details=details,
    )


def _check_pearson_region(mom):
    """Raise ``ValueError`` unless the distance moments lie in the Pearson region."""
    if not (mom["std"] > 0 and in_pearson_region(mom["skew"], mom["kurtosis"])):
        raise ValueError(
            "the distance distribution has moments outside the Pearson region (kurtosis <= skew**2 "
            f"+ 1): mean={mom['mean']:.6g}, std={mom['std']:.6g}, skew={mom['skew']:.6g}, "
            f"kurtosis={mom['kurtosis']:.6g}; MDD cannot model its noise distances"
        )


def _noise_levels(Xt, mom, sampler, grid, k, nc, rng, *, n_draws, stop, search, n_jobs,
                  first_batch):
    """``(grid, lambda, tau_hat, curve, n_c per width, draws made)`` of MDD on the training set
    ``Xt``: every width and ``n_draws`` draws (the paper), or the shortcuts of
    :mod:`kpca.selection._adaptive` (``grid`` is then the evaluated widths only)."""
    nt = Xt.shape[0]

    def noise_D2(r_):  # packed: the full R_hat is never formed
        r2 = noise_distances_packed(nt, mom, r_, sampler=sampler)
        return np.multiply(r2, r2, out=r2)

    if stop == "fixed" and search == "full":
        null, lam = null_spectra(noise_D2, n_draws, SpectrumPlan(grid, k, nt), rng, n_jobs=n_jobs,
                                 data_D2=squared_distances(Xt))
        tau = percentile95(null)
        return (grid, lam, tau, *excess_curve(lam, tau, nc), n_draws)
    at, lam, tau, curve, nc_grid, n_used = adaptive_noise_levels(
        noise_D2, squared_distances(Xt), grid, k, nt, nc, rng, n_draws=n_draws, stop=stop,
        search=search, n_jobs=n_jobs, first_batch=first_batch)
    return grid[at], lam, tau, curve, nc_grid, n_used


class _DistanceHistograms(Mapping):
    """Density histograms (60 bins over ``[0, r_max]``) of the data distances (``"data"``: the
    training points to all points, as :func:`distance_moments`) and of one noise draw's
    distances (``"noise"``: ``R_hat``'s lower triangle; Fig. 7(b)), with their ``"edges"``.

    Each is made when first read, from the selection's data ``X`` and training rows ``train``
    and from the next child of its generator ``rng``: a figure needs them, the selection does
    not (they cost a selection a pass over its distances and one more replicate). It keeps ``X``
    (the array the selection was given, which a fitted model keeps too), the moments and the
    child's seed, not the distances or the draws."""

    def __init__(self, X, train, mom, rng):
        self._X, self._train, self._mom = X, train, dict(mom)
        self._seed, self._gen = rng.bit_generator.seed_seq.spawn(1)[0], type(rng.bit_generator)
        self._made = {}

    def _make(self, key):
        edges = np.linspace(0.0, self._mom["r_max"], 61)
        if key == "edges":
            return edges
        if key == "data":
            r, _ = distance_moments(self._X[self._train], self._X, self._train)
        else:
            r = noise_distances_packed(self._train.size, self._mom,
                                       np.random.Generator(self._gen(self._seed)))
        return np.histogram(r, bins=edges, density=True)[0]

    def __getitem__(self, key):
        if key not in ("edges", "data", "noise"):
            raise KeyError(key)
        if key not in self._made:
            self._made[key] = self._make(key)
        return self._made[key]

    def __iter__(self):
        return iter(("edges", "data", "noise"))

    def __len__(self):
        return 3


def select_mdd_fast(X, *, n_components=None, grid=None, random_state=None, n_draws=N_DRAWS,
                    stop="sequential", search="coarse-to-fine", first_batch=FIRST_BATCH,
                    **options):
    """MDD (:func:`select_mdd`) with the sequential stop and the coarse-to-fine search.

    The same criterion; ``n_draws`` is the cap of the draws, ``first_batch`` (default
    :data:`~kpca.selection._adaptive.FIRST_BATCH`, 2) the draws before the first look at the
    criterion.  The result's ``criterion`` is ``"varon2015-fast"``.  See :func:`select_mdd` for
    the parameters.

    See Also
    --------
    select_mdd : the parameters; the paper's procedure with ``stop='fixed', search='full'``.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. §IV,
       Eqs. (12)-(15): the criterion (the sequential stop and the coarse-to-fine search are not in
       the paper).

    Examples
    --------
    >>> from kpca.datasets import semicircles
    >>> from kpca.selection import select_mdd_fast
    >>> X, _ = semicircles(100, noise=0.1, random_state=0)
    >>> res = select_mdd_fast(X, n_draws=20, random_state=0)
    >>> res.criterion, 2 <= res.details["n_draws"] <= 20
    ('varon2015-fast', True)
    """
    res = select_mdd(X, n_components=n_components, grid=grid, random_state=random_state,
                     n_draws=n_draws, stop=stop, search=search, first_batch=first_batch,
                     **options)
    return replace(res, criterion="varon2015-fast")
