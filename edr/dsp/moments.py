"""The skewness and the one-sample t test as :mod:`scipy.stats` computes them, without importing
it (``tests/edr/test_dsp_moments.py`` compares them to SciPy)."""

from __future__ import annotations

import numpy as np

__all__ = ["skew", "ttest_1samp_pvalue"]


def skew(a, axis: int = -1) -> np.ndarray:
    """``scipy.stats.skew(a, axis=axis)``: the biased sample skewness ``m3 / m2^1.5``, NaN where
    the values are constant to rounding.

    Parameters
    ----------
    a : array_like
        Values (NaN propagates).
    axis : int, default -1
        The axis along which the skewness is taken.

    Returns
    -------
    ndarray or float
        The skewness of each slice.

    See Also
    --------
    edr.polarity.shape_evidence

    References
    ----------
    .. [1] D. Zwillinger and S. Kokoska, *CRC Standard Probability and Statistics Tables and
       Formulae*, Chapman & Hall, 2000, Sec. 2.2.24.1 (the sample skewness ``g1 = m3 / m2^1.5``).

    Examples
    --------
    >>> import numpy as np
    >>> from edr.dsp.moments import skew
    >>> round(float(skew(np.array([0.0, 0.0, 0.0, 1.0]))), 4)
    1.1547
    """
    a = np.asarray(a, dtype=float)
    mean = a.mean(axis=axis, keepdims=True)
    dev = a - mean
    m2 = np.mean(dev ** 2, axis=axis)
    m3 = np.mean(dev ** 2 * dev, axis=axis)
    with np.errstate(all="ignore"):
        zero = m2 <= (np.finfo(float).eps * np.squeeze(mean, axis=axis)) ** 2
        vals = np.where(zero, np.nan, m3 / m2 ** 1.5)
    return vals[()] if vals.ndim == 0 else vals


def ttest_1samp_pvalue(a, popmean: float = 0.0) -> float:
    """``scipy.stats.ttest_1samp(a, popmean).pvalue``: the two-sided p-value of Student's
    one-sample t test that the mean of ``a`` is ``popmean``.

    Parameters
    ----------
    a : array_like, 1-D
        At least 2 finite values.
    popmean : float, default 0
        The mean under the null hypothesis.

    Returns
    -------
    float
        ``2 P(T_{n-1} > |t|)``, ``t = (mean - popmean) / (s / sqrt(n))``; NaN when the values
        do not spread.

    Raises
    ------
    ValueError
        Fewer than 2 values.

    See Also
    --------
    skew, edr.polarity.shape_evidence

    References
    ----------
    .. [1] Student, "The probable error of a mean," Biometrika 6(1), 1-25, 1908 (the t
       statistic; its distribution through ``scipy.special.stdtr``).

    Examples
    --------
    >>> from edr.dsp.moments import ttest_1samp_pvalue
    >>> round(ttest_1samp_pvalue([1.0, 2.0, 3.0, 4.0]), 4)
    0.0305
    """
    from scipy.special import stdtr  # cheap, and imported with scipy.linalg anyway

    a = np.asarray(a, dtype=float)
    if a.ndim != 1 or a.size < 2:
        raise ValueError(f"need at least 2 values, got shape {a.shape}")
    n = a.size
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (np.mean(a) - popmean) / (np.std(a, ddof=1) / np.sqrt(n))
    return float(2 * stdtr(n - 1, -np.abs(t)))
