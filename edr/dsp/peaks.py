"""Local maxima and their prominences as :func:`scipy.signal.find_peaks` finds them, without
importing :mod:`scipy.signal` (``tests/edr/test_dsp_peaks.py`` compares the two)."""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["find_peaks"]


@numba.njit(cache=True, nogil=True)
def _maxima_and_prominences(x):  # pragma: no cover - compiled
    """SciPy's ``_local_maxima_1d`` (a plateau's middle sample, the ends never) and
    ``_peak_prominences`` with no window (bases searched to the array's ends)."""
    n = x.shape[0]
    peaks = np.empty(n // 2 + 1, dtype=np.intp)
    m = 0
    i = 1
    while i < n - 1:
        if x[i - 1] < x[i]:
            ahead = i + 1
            while ahead < n - 1 and x[ahead] == x[i]:
                ahead += 1
            if x[ahead] < x[i]:
                peaks[m] = (i + ahead - 1) // 2
                m += 1
                i = ahead
        i += 1
    prom = np.empty(m)
    for k in range(m):
        peak = peaks[k]
        left = x[peak]
        j = peak
        while j >= 0 and x[j] <= x[peak]:
            left = min(left, x[j])
            j -= 1
        right = x[peak]
        j = peak
        while j < n and x[j] <= x[peak]:
            right = min(right, x[j])
            j += 1
        prom[k] = x[peak] - max(left, right)
    return peaks[:m].copy(), prom


def find_peaks(x, prominence=None):
    """``scipy.signal.find_peaks(x, prominence=prominence)``: the local maxima of ``x`` and their
    prominences.

    Parameters
    ----------
    x : array_like, 1-D
        Signal (finite).
    prominence : float or (float or None, float or None), optional
        Smallest prominence kept, or the (min, max) pair; None keeps every maximum and returns
        no prominences.

    Returns
    -------
    peaks : ndarray of int
        Indices of the maxima (a flat top's middle sample, rounded down), the ends excluded.
    properties : dict
        ``"prominences"`` of the peaks kept (with a ``prominence`` only).

    Raises
    ------
    ValueError
        ``x`` not one-dimensional.

    See Also
    --------
    edr.breath_extrema.breath_candidates

    References
    ----------
    .. [1] Wikipedia, "Topographic prominence": the height of a peak above the higher of the
       lowest points between it and a higher point (or the end) on either side.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.dsp.peaks import find_peaks
    >>> idx, props = find_peaks(np.array([0.0, 2, 1, 1, 3, 3, 3, 0]), prominence=0.5)
    >>> idx, props["prominences"]
    (array([1, 5]), array([1., 3.]))
    """
    x = np.ascontiguousarray(np.asarray(x, dtype=np.float64))
    if x.ndim != 1:
        raise ValueError("`x` must be a 1-D array")
    peaks, prom = _maxima_and_prominences(x)
    if prominence is None:
        return peaks, {}
    low, high = (prominence if isinstance(prominence, (tuple, list)) and len(prominence) == 2
                 else (prominence, None))
    keep = np.ones(peaks.size, dtype=bool)
    if low is not None:
        keep &= low <= prom
    if high is not None:
        keep &= prom <= high
    return peaks[keep], {"prominences": prom[keep]}
