"""One result type for every model-selection criterion."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["SelectionResult", "SelectionWarning"]


class SelectionWarning(UserWarning):
    """A criterion found no grid value with a positive score and fell back (see ``details``).

    See Also
    --------
    SelectionResult : its ``details["fallback"]`` says what the criterion fell back to.

    Examples
    --------
    >>> import warnings
    >>> from kpca.selection import SelectionWarning
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", SelectionWarning)  # make a fallback an error
    ...     issubclass(SelectionWarning, UserWarning)
    True
    """


@dataclass(frozen=True)
class SelectionResult:
    """Outcome of a kernel-width / component-number selection.

    Everything needed to draw Fig. 7(c, d) and Fig. 9 of Varon et al. (2015)
    (and Figs. 1-2 of Jørgensen & Hansen 2012): the criterion curve over the
    grid, the number of components per width and, where the criterion has
    them, the data and noise eigenvalue spectra per width.

    Attributes
    ----------
    criterion : str
        Canonical registry key (e.g. ``"varon2015"``).
    sigma2 : float
        Selected RBF width, ``k(x, y) = exp(-||x - y||^2 / (2 sigma2))``.
    n_components : int or None
        Selected number of components (``n_c`` of Eq. (14) of Varon et al.,
        ``q`` of Eq. (6) of Jørgensen & Hansen), the fixed value when one was
        given, 0 when no component beats the noise anywhere, ``None`` for
        criteria that do not choose it (Shannon, distance heuristics).
    grid : ndarray, shape (n_grid,)
        ``sigma2`` values examined, ascending.
    curve : ndarray, shape (n_grid,)
        Criterion value per grid point (``I_s`` of Eq. (15), ``E`` of Eq. (7),
        an entropy, ...); the selection maximises it.
    n_components_grid : ndarray of int, shape (n_grid,)
        Number of components per grid point (the fixed value when fixed).
    data_spectra : ndarray, shape (n_grid, k), or None
        Leading eigenvalues ``lambda_i`` of the centred data kernel per width.
    noise_spectra : ndarray, shape (n_grid, k), or None
        Noise levels per width (``tau_hat_i`` of Eq. (13) for MDD, ``T_i`` of
        kPA): the 95th percentiles of the Monte-Carlo/permutation eigenvalues.
    random_state : int or None
        The integer seed used (``None`` when a ``Generator`` or nothing was given).
    details : dict
        Criterion-specific extras (moments and Pearson type for MDD, the
        training indices, the fallback reason, timings, ...).

    See Also
    --------
    kpca.selection.select : returns it for every criterion.
    kpca.KernelPCA : keeps it as ``selection_`` when a criterion chose its model.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. MDD:
       ``n_c`` of Eq. (14), ``I_s`` of Eq. (15), the noise levels ``tau_hat_i`` of Eq. (13); Figs.
       7(c, d) and 9.
    .. [2] K. W. Jørgensen and L. K. Hansen, "Model selection for Gaussian kernel PCA denoising,"
       IEEE Trans. Neural Netw. Learn. Syst. 23(1), 163-168, 2012. kPA: ``q`` of Eq. (6), the
       energy ``E`` of Eq. (7), the thresholds ``T_i`` of Algorithm 1.

    Examples
    --------
    >>> from kpca.datasets import semicircles
    >>> from kpca.selection import select
    >>> X, _ = semicircles(120, noise=0.1, random_state=0)
    >>> res = select(X, "kpa", random_state=0, n_permutations=5)
    >>> res.criterion, res.grid.shape == res.curve.shape, bool(res.sigma2 == res.grid[res.index])
    ('jorgensen2012', True, True)
    """

    criterion: str
    sigma2: float
    n_components: int | None
    grid: np.ndarray
    curve: np.ndarray
    n_components_grid: np.ndarray
    data_spectra: np.ndarray | None = None
    noise_spectra: np.ndarray | None = None
    random_state: int | None = None
    details: dict = field(default_factory=dict)

    @property
    def index(self) -> int:
        """Index of the selected width in :attr:`grid`."""
        return int(np.argmin(np.abs(self.grid - self.sigma2)))

    def plot(self, ax=None):
        """Criterion curve against ``sigma2`` (log axis), selected point marked
        (Fig. 7(d) / Fig. 9 of Varon et al. 2015).  Matplotlib is imported lazily."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        ax.semilogx(self.grid, self.curve, "-o", ms=3, label=self.criterion)
        ax.axvline(self.sigma2, ls="--", color="k", lw=0.8)
        ax.set_xlabel(r"$\sigma^2$")
        ax.set_ylabel("criterion")
        return ax
