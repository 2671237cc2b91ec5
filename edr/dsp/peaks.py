"""Local maxima and their prominences as :func:`scipy.signal.find_peaks` finds them, with NumPy
alone: neither :mod:`scipy.signal` imported nor a loop compiled (``tests/edr/test_dsp_peaks.py``
compares the two)."""

from __future__ import annotations

import numpy as np

__all__ = ["find_peaks"]


def _plateau_maxima(x: np.ndarray) -> np.ndarray:
    """SciPy's ``_local_maxima_1d``: each run of equal samples higher than both neighbouring
    runs, the ends excluded, by its middle sample (rounded down)."""
    if x.size < 3:
        return np.empty(0, dtype=np.intp)
    change = np.flatnonzero(x[1:] != x[:-1]) + 1
    starts, ends = np.r_[0, change], np.r_[change - 1, x.size - 1]
    v = x[starts]
    k = np.arange(1, v.size - 1)
    top = k[(v[k - 1] < v[k]) & (v[k + 1] < v[k])]
    return ((starts[top] + ends[top]) // 2).astype(np.intp)


def _base_minima(heights: np.ndarray, gaps: np.ndarray) -> np.ndarray:
    """For each peak (in search order), the lowest sample between it and the nearest earlier
    peak strictly higher (or the array's end): ``gaps[k]`` is the lowest sample between peak
    ``k`` and the one before it. A stack of the peaks not yet exceeded, each with the lowest
    sample it spans (SciPy's ``_peak_prominences`` walks the samples instead: the same bases,
    since between two peaks no sample rises above both)."""
    out = np.empty(heights.size)
    stack_h, stack_min = [], []
    for k in range(heights.size):
        lowest = gaps[k]
        while stack_h and stack_h[-1] <= heights[k]:
            stack_h.pop()
            lowest = min(lowest, stack_min.pop())
        out[k] = lowest
        stack_h.append(heights[k])
        stack_min.append(lowest)
    return out


def _prominences(x: np.ndarray, peaks: np.ndarray) -> np.ndarray:
    """SciPy's ``peak_prominences(x, peaks)`` with no window: each peak's height above the
    higher of its two bases, the lowest samples either side before a strictly higher sample
    or the end."""
    if peaks.size == 0:
        return np.empty(0)
    heights = x[peaks]
    left_gaps = np.minimum.reduceat(x[:peaks[-1] + 1], np.r_[0, peaks[:-1]])  # [p_(k-1), p_k]
    right_gaps = np.minimum.reduceat(x, peaks)  # [p_k, p_(k+1)); [p_last, n)
    left = _base_minima(heights, left_gaps)
    right = _base_minima(heights[::-1], right_gaps[::-1])[::-1]
    return heights - np.maximum(left, right)


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
    peaks = _plateau_maxima(x)
    prom = _prominences(x, peaks)
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
