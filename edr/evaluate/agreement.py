"""Window-level agreement of respiratory rates, in the field's conventions (Charlton et al. 2016).

Inputs are paired per-window rates (breaths/min) — the EDR rate and the
reference rate of the same 32 s window, pooled over every window of every
record of one configuration. A window without a reference rate is not a
window of the evaluation; a window with a reference rate but no EDR rate
(NaN: the method abstained or produced nothing usable) counts against the
*coverage* and is left out of every other statistic.

Conventions (``docs/design.md``, section 5):

* error ``e = edr - ref``;
* ``bias`` = mean of ``e``; 95 % limits of agreement = ``bias ± 1.96 s``,
  ``s`` the sample standard deviation of ``e`` (``ddof = 1``; Bland & Altman
  1986) — windows are treated as independent observations;
* ``mae`` = mean ``|e|``; ``rmse`` = ``sqrt(mean e²)``;
* ``within_2bpm`` = share of windows with ``|e| <= 2`` breaths/min;
* ``coverage`` = windows with both rates / windows with a reference rate.

Fractions are in [0, 1]; statistics that need more windows than there are
(any statistic for 0 windows, the limits for 1 window) are NaN.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from edr.io.arrays import as_series

__all__ = ["LOA_Z", "WITHIN_BPM", "Agreement", "agreement", "paired_windows"]

LOA_Z = 1.96
"""Normal quantile of the 95 % limits of agreement."""

WITHIN_BPM = 2.0
"""Tolerance (breaths/min) of :attr:`Agreement.within_2bpm`."""


@dataclass(frozen=True)
class Agreement:
    """Agreement statistics of pooled window rates (breaths/min unless stated).

    Attributes
    ----------
    n_windows : int
        Windows with a reference rate.
    n_paired : int
        Of those, windows with an EDR rate too (the sample of every statistic below).
    coverage : float
        ``n_paired / n_windows`` (NaN when ``n_windows == 0``).
    bias : float
        Mean of ``edr - ref``.
    loa_low, loa_high : float
        ``bias ∓ 1.96 SD`` (SD with ``ddof = 1``; NaN for fewer than 2 windows).
    mae, rmse : float
        Mean absolute error and root-mean-square error.
    within_2bpm : float
        Share of paired windows with ``|edr - ref| <= 2``.

    See Also
    --------
    agreement : what returns it.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.evaluate.agreement import agreement
    >>> a = agreement([15.0, 16.0, np.nan, 14.0], [15.5, 15.0, 12.0, 14.0])
    >>> a.n_windows, a.n_paired, a.coverage, a.mae
    (4, 3, 0.75, 0.5)
    """

    n_windows: int
    n_paired: int
    coverage: float
    bias: float
    loa_low: float
    loa_high: float
    mae: float
    rmse: float
    within_2bpm: float


def paired_windows(edr_bpm, ref_bpm) -> tuple[np.ndarray, np.ndarray, int]:
    """The windows with both rates, and the count of windows with a reference rate.

    Parameters
    ----------
    edr_bpm, ref_bpm : array_like, shape (n,)
        Rates of the same windows; NaN where a rate is missing.

    Returns
    -------
    edr, ref : ndarray
        Rates of the windows where both are finite.
    n_windows : int
        Windows where ``ref_bpm`` is finite.

    Raises
    ------
    ValueError
        The arrays are not 1-D or differ in length.

    See Also
    --------
    agreement

    Examples
    --------
    >>> import numpy as np
    >>> from edr.evaluate.agreement import paired_windows
    >>> paired_windows([15.0, np.nan, 14.0], [15.5, 12.0, np.nan])
    (array([15.]), array([15.5]), 2)
    """
    edr = as_series(edr_bpm, "edr_bpm")
    ref = as_series(ref_bpm, "ref_bpm")
    if edr.shape != ref.shape:
        raise ValueError(f"edr_bpm and ref_bpm must have the same length, got {edr.size} and "
                         f"{ref.size}")
    has_ref = np.isfinite(ref)
    both = has_ref & np.isfinite(edr)
    return edr[both], ref[both], int(has_ref.sum())


def agreement(edr_bpm, ref_bpm) -> Agreement:
    """Bias, 95 % limits of agreement, MAE, RMSE, share within 2 bpm and coverage.

    Parameters
    ----------
    edr_bpm, ref_bpm : array_like, shape (n,)
        Pooled per-window EDR and reference rates (breaths/min), NaN where missing.

    Returns
    -------
    Agreement

    See Also
    --------
    paired_windows, edr.scoring.window_rates : the rates of one record.

    References
    ----------
    .. [1] J. M. Bland and D. G. Altman, "Statistical methods for assessing agreement between two
       methods of clinical measurement," Lancet 327(8476), 307-310, 1986. Bias and 95 % limits of
       agreement.
    .. [2] P. H. Charlton, T. Bonnici, L. Tarassenko, D. A. Clifton, R. Beale and P. J. Watkinson,
       "An assessment of algorithms to estimate respiratory rate from the electrocardiogram and
       photoplethysmogram," Physiol. Meas. 37(4), 610-626, 2016. Window-level rate errors
       pooled over records.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.evaluate.agreement import agreement
    >>> a = agreement([15.0, 16.0, np.nan, 14.0], [15.5, 15.0, 12.0, 14.0])
    >>> round(a.bias, 3), round(a.loa_low, 2), round(a.loa_high, 2), a.within_2bpm
    (0.167, -1.33, 1.66, 1.0)
    """
    edr, ref, n_windows = paired_windows(edr_bpm, ref_bpm)
    e = edr - ref
    n = int(e.size)
    nan = float("nan")
    coverage = n / n_windows if n_windows else nan
    if n == 0:
        return Agreement(n_windows, 0, coverage, nan, nan, nan, nan, nan, nan)
    bias = float(np.mean(e))
    sd = float(np.std(e, ddof=1)) if n >= 2 else nan
    return Agreement(
        n_windows=n_windows,
        n_paired=n,
        coverage=coverage,
        bias=bias,
        loa_low=bias - LOA_Z * sd,
        loa_high=bias + LOA_Z * sd,
        mae=float(np.mean(np.abs(e))),
        rmse=float(np.sqrt(np.mean(e**2))),
        within_2bpm=float(np.mean(np.abs(e) <= WITHIN_BPM)),
    )
