"""MDD on a given training / validation split (Varon et al. 2015, Fig. 8).

:func:`kpca.selection.select_mdd` draws its own random training/validation
split. The large-scale pipeline of Fig. 8 needs a *given* split: the training
set is the FS2 support vectors (or the ICF pivots) and the validation set is
drawn from the remaining points. This module runs the same criterion on such a
split with the building blocks of :mod:`kpca.selection.mdd` (distance moments
of training-to-all distances, Monte-Carlo noise distance matrices of the
Appendix, 95th percentile noise spectrum, Eqs. (12)-(15)) and returns the same
:class:`~kpca.selection.SelectionResult`. The training set is small (``M`` or
``Q`` points), so dense ``eigvalsh`` is used per width and draw.

The noise matrices always have the size of the training set (``R_hat`` is
``N_t x N_t``, Sec. IV). The data spectrum is by default that of the centred
training kernel (Eq. (4)); ICF + MDD passes instead the ``Q`` eigenvalues of
the reduced problem of Eq. (19) (see
:class:`~kpca.largescale.IncompleteCholeskyKernelPCA`). Used by the large-scale estimators of
:mod:`kpca.largescale` and re-exported there.
"""

from __future__ import annotations

import numpy as np

from kpca._blas import single_threaded_blas
from kpca._validation import check_array, check_count, check_random_state
from kpca.kernels import squared_distances
from kpca.selection._common import check_grid, excess_curve, pick, seed_of
from kpca.selection.mdd import (
    MIN_TRAINING_POINTS,
    N_DRAWS,
    distance_moments,
    noise_distance_matrix,
)
from kpca.selection.result import SelectionResult

__all__ = ["mdd_on_split"]


@single_threaded_blas
def mdd_on_split(X_train, X_val, *, grid=None, n_components=None, n_draws=N_DRAWS,
                 random_state=None, data_spectra=None):
    """MDD model selection with a fixed training set and validation set.

    Parameters
    ----------
    X_train : array_like, shape (n_t, d)
        Training set (support vectors or pivots); the data spectrum ``lambda``
        is that of its centred kernel (Eq. (4)).
    X_val : array_like, shape (n_v, d)
        Validation set; the distance moments use training-to-(training ∪
        validation) distances (Sec. IV).
    grid : array_like, optional
        ``sigma2`` values (default: :func:`kpca.selection` default grid around
        the rule of thumb of Eq. (20), computed on the training set).
    n_components : int, optional
        ``None``: ``n_c`` by Eq. (14) and ``sigma2`` maximising ``I_s``
        (Eq. (15)); an int fixes ``n_c``.
    n_draws : int
        Monte-Carlo repetitions ``q`` (100 in the paper).
    random_state : None, int or numpy.random.Generator
    data_spectra : array_like, shape (n_grid, k) or (k,), optional
        Descending eigenvalues ``lambda_i`` to compare with the noise spectrum
        in Eqs. (14)-(15), one row per width of the sorted grid (a 1-D array
        for a one-width grid), ``2 <= k <= n_t``; the noise spectrum is cut
        to its ``k`` leading values. Default: the spectrum of the centred
        kernel of ``X_train``. ICF + MDD passes the eigenvalues of Eq. (19).

    Returns
    -------
    kpca.selection.SelectionResult
        ``criterion="varon2015"``; ``details`` holds the moments, ``n_train``
        and ``n_validation``.

    See Also
    --------
    select_mdd : MDD with its own random split.
    kpca.largescale.FixedSizeKernelPCA : runs it on the support vectors.
    kpca.largescale.IncompleteCholeskyKernelPCA : runs it on the pivots with the spectrum of Eq.
        (19).

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Fig. 8
       (the large-scale pipeline), §IV, Eqs. (12)-(15), and the reduced spectrum of Eq. (19).

    Examples
    --------
    >>> from kpca.datasets import semicircles
    >>> from kpca.selection import mdd_on_split
    >>> X, _ = semicircles(150, noise=0.1, random_state=0)
    >>> res = mdd_on_split(X[:40], X[40:], n_draws=5, random_state=0)
    >>> res.details["n_train"], res.details["n_validation"]
    (40, 110)
    """
    Xt = check_array(X_train, "X_train", min_samples=MIN_TRAINING_POINTS)
    Xv = check_array(X_val, "X_val", n_features=Xt.shape[1])
    n_draws = check_count(n_draws, "n_draws", 2)
    rng = check_random_state(random_state)
    grid = check_grid(grid, Xt)
    nt = Xt.shape[0]
    if n_components is not None and not 1 <= int(n_components) <= nt - 1:
        raise ValueError(f"n_components must be in [1, {nt - 1}]; got n_components={n_components}")
    _, mom = distance_moments(Xt, np.vstack([Xt, Xv]), np.arange(nt))
    if data_spectra is None:
        lam = _dense_spectra(squared_distances(Xt), grid)
    else:
        lam = _checked_data_spectra(data_spectra, grid.size, nt, n_components)
    null = np.empty((n_draws, grid.size, nt))
    for q in range(n_draws):
        R = noise_distance_matrix(nt, mom, rng)
        null[q] = _dense_spectra(R * R, grid)
    tau = np.percentile(null, 95, axis=0)[:, : lam.shape[1]]
    nc = None if n_components is None else int(n_components)
    curve, nc_grid = excess_curve(lam, tau, nc)
    sigma2, n_sel, details = pick(grid, curve, nc_grid, nc, "varon2015",
                                  fallback_curve=(lam - tau)[:, 0] if nc is None else None)
    details.update({"moments": mom, "n_train": nt, "n_validation": Xv.shape[0],
                    "n_draws": n_draws})
    return SelectionResult(
        criterion="varon2015", sigma2=sigma2, n_components=n_sel, grid=grid, curve=curve,
        n_components_grid=nc_grid, data_spectra=lam, noise_spectra=tau,
        random_state=seed_of(random_state), details=details,
    )


def _dense_spectra(D2, grid):
    """Descending eigenvalues of the centred RBF kernel of the squared distances ``D2`` at every
    width of ``grid`` (Eqs. (12)-(13)), shape ``(grid.size, n)``.

    Plain NumPy with one BLAS thread (the caller's decorator): for these small matrices thread
    start-up and contention cost more than the work.
    """
    out = np.empty((grid.size, D2.shape[0]))
    for g, s in enumerate(grid):
        K = np.exp(D2 * (-0.5 / s))
        m = K.mean(axis=0)
        out[g] = np.linalg.eigvalsh(K - m[:, None] - m[None, :] + m.mean())[::-1]
    return out


def _checked_data_spectra(data_spectra, n_grid, nt, n_components):
    """``data_spectra`` as a finite ``(n_grid, k)`` array, ``2 <= k <= nt``, with at least
    ``n_components`` columns; ``ValueError`` otherwise."""
    lam = np.atleast_2d(np.asarray(data_spectra, dtype=np.float64))
    if lam.shape[0] != n_grid or not 2 <= lam.shape[1] <= nt or not np.all(np.isfinite(lam)):
        raise ValueError(
            f"data_spectra must be finite with shape ({n_grid}, k), 2 <= k <= {nt} (one "
            f"row per grid width); got shape {np.shape(data_spectra)}"
        )
    if n_components is not None and int(n_components) > lam.shape[1]:
        raise ValueError(f"n_components must be <= {lam.shape[1]} (length of data_spectra); "
                         f"got n_components={n_components}")
    return lam
