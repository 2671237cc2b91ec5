"""Kernel parallel analysis (kPA), Jørgensen & Hansen (2012), Algorithm 1.

For every width, the eigenvalues ``lambda_i`` of the centred kernel of the
data are compared with thresholds ``T_i``: the 95th percentiles of the
eigenvalues of ``p`` replicates whose columns were permuted independently
(``Generator.permuted(X, axis=0)``), which keeps the marginals and destroys
all joint structure.  ``q(sigma)`` is the number of leading components with
``lambda_i > T_i`` (Eq. (6), read as in :func:`~kpca.selection._common.leading_excess`),
the energy ``E(sigma) = sum_{i <= q} (lambda_i - T_i)`` (Eq. (7)) is
maximised.  With a fixed number of components ``n_c`` the sum runs over the
first ``n_c`` components.

Widths are ``sigma2`` here (the paper tunes ``sigma``; ``sigma2 = sigma**2``,
same kernel ``exp(-||x - y||^2 / (2 sigma^2))``).  One permuted replicate per
thread is in memory at a time (the paper's §VI remark in Varon et al. 2015).
"""

from __future__ import annotations

import time

from kpca._blas import single_threaded_blas
from kpca._validation import check_count, check_n_components
from kpca.kernels import squared_distances
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
from kpca.selection._spectrum import SpectrumPlan
from kpca.selection.result import SelectionResult

__all__ = ["select_kpa"]


@single_threaded_blas
def select_kpa(X, *, n_components=None, grid=None, random_state=None, n_permutations=49,
               n_eigenvalues=None, n_jobs=None):
    """Kernel width (and number of components) by kernel parallel analysis.

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
    n_components : int, optional
        ``None``: choose ``q`` by Eq. (6) and maximise ``E`` (Eq. (7)); an int
        fixes ``n_c`` and maximises ``sum_{i <= n_c} (lambda_i - T_i)``.
    grid : array_like, optional
        ``sigma2`` values (default: around the rule of thumb, see
        :func:`~kpca.selection._common.default_grid`).
    random_state : None, int or Generator
    n_permutations : int
        ``p``, number of permuted replicates (49 in the paper).
    n_eigenvalues : int, optional
        With ``n_components=None``, compute only this many leading eigenvalues
        per matrix (Lanczos; ``q`` is then capped at it). Default: full spectra.
    n_jobs : int, optional
        Threads (default: all cores, at most 8).

    Returns
    -------
    SelectionResult
        ``curve`` = ``E``; ``noise_spectra`` = ``T``; ``details["n_permutations"]``.

    See Also
    --------
    select : the entry point for every criterion.
    select_mdd : MDD: noise from the distance distribution instead of permutations.

    References
    ----------
    .. [1] K. W. Jørgensen and L. K. Hansen, "Model selection for Gaussian kernel PCA denoising,"
       IEEE Trans. Neural Netw. Learn. Syst. 23(1), 163-168, 2012. Algorithm 1: the thresholds
       ``T_i`` (95th percentiles of the permuted data's eigenvalues), ``q(sigma)`` of Eq. (6) and
       the energy ``E(sigma)`` of Eq. (7).
    .. [2] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. §III:
       why permutations overestimate the noise in low dimensions.

    Examples
    --------
    >>> from kpca.datasets import semicircles
    >>> from kpca.selection import select_kpa
    >>> X, _ = semicircles(100, noise=0.1, random_state=0)
    >>> res = select_kpa(X, n_permutations=5, random_state=0)
    >>> res.criterion, res.noise_spectra.shape == res.data_spectra.shape
    ('jorgensen2012', True)
    """
    t0 = time.perf_counter()
    n_permutations = check_count(n_permutations, "n_permutations", 2)
    X, n_dup = check_data(X)
    n = X.shape[0]
    grid = check_grid(grid, X)
    nc = check_n_components(n_components, n - 1, optional=True)
    k = check_n_eigenvalues(nc, n_eigenvalues, n)
    rng = rng_of(random_state)
    plan = SpectrumPlan(grid, k, n)

    def permuted_D2(r):
        return squared_distances(r.permuted(X, axis=0))

    null, lam = null_spectra(permuted_D2, n_permutations, plan, rng, n_jobs=n_jobs,
                             data_D2=squared_distances(X))
    T = percentile95(null)
    curve, nc_grid = excess_curve(lam, T, nc)
    sigma2, n_sel, details = pick(grid, curve, nc_grid, nc, "jorgensen2012",
                                  fallback_curve=(lam - T)[:, 0] if nc is None else None)
    details.update({"n_permutations": n_permutations, "n_duplicates": n_dup,
                    "seconds": time.perf_counter() - t0})
    return SelectionResult(
        criterion="jorgensen2012", sigma2=sigma2, n_components=n_sel, grid=grid, curve=curve,
        n_components_grid=nc_grid, data_spectra=lam, noise_spectra=T,
        random_state=seed_of(random_state), details=details,
    )
