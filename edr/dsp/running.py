"""Running statistics over a sliding window: SciPy's ``ndimage`` 1-D filters that beat detection
needs, written with NumPy alone.

Importing ``scipy.ndimage`` costs about as much as the beat detection it would serve
(``docs/studies/first_run.md``); the default path uses three of its filters:

* :func:`uniform_filter1d_nearest`: the running mean, edges extended with the edge sample
  (``ndimage.uniform_filter1d(x, size, mode="nearest")``), computed with SciPy's own recurrence
  so the values are the same to the last bit;
* :func:`sliding_max` / :func:`sliding_min`: the largest / smallest sample of every full
  window (the valid part of ``ndimage.maximum_filter1d``), by the van Herk-Gil-Werman
  algorithm: O(n) whatever the window;
* :func:`rank_filter_mirror`: the running median as SciPy's ``median_filter`` takes it (the
  element of rank ``size // 2``; edges mirrored, ``d c b | a b c d``).

Each is tested against SciPy itself (``tests/edr/test_dsp_running.py``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["rank_filter_mirror", "sliding_max", "sliding_min", "uniform_filter1d_nearest"]


def uniform_filter1d_nearest(x, size: int) -> np.ndarray:
    """The running mean over ``size`` samples, edges extended with the edge sample.

    Parameters
    ----------
    x : array_like, 1-D
        The samples (float64).
    size : int
        Window length, ``>= 1``; the window of sample ``i`` is ``x[i - size // 2 :
        i - size // 2 + size]`` (SciPy's ``origin=0``).

    Returns
    -------
    numpy.ndarray
        Same length as ``x``; identical to ``scipy.ndimage.uniform_filter1d(x, size,
        mode="nearest")``: SciPy's running sum (the first window summed sample by sample, then
        plus the entering minus the leaving sample at each step), each divided by ``size``.

    Raises
    ------
    ValueError
        If ``x`` is not 1-D or empty, or ``size < 1``.

    See Also
    --------
    scipy.ndimage.uniform_filter1d : the reference.

    Examples
    --------
    >>> from edr.dsp.running import uniform_filter1d_nearest
    >>> uniform_filter1d_nearest([0.0, 3.0, 6.0, 9.0], 3)
    array([1., 3., 6., 8.])
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 1 or x.size == 0 or size < 1:
        raise ValueError(f"need a non-empty 1-D array and size >= 1, got shape {x.shape}, "
                         f"size {size}")
    before = size // 2
    padded = np.pad(x, (before, size - 1 - before), mode="edge")
    steps = np.empty(x.size)
    steps[0] = np.add.accumulate(padded[:size])[-1]  # summed in order, as SciPy sums
    steps[1:] = padded[size:] - padded[:x.size - 1]
    return np.add.accumulate(steps) / size


def _sliding_extreme(x, w: int, ufunc) -> np.ndarray:
    """``ufunc.reduce`` of every full window ``x[j : j + w]`` (van Herk-Gil-Werman)."""
    x = np.asarray(x)
    if x.ndim != 1 or not 1 <= w <= x.size:
        raise ValueError(f"need a 1-D array and 1 <= w <= its length, got shape {x.shape}, w {w}")
    n_blocks = -(-x.size // w)
    padded = np.empty(n_blocks * w, dtype=x.dtype)
    padded[:x.size] = x
    padded[x.size:] = x[-1]  # never inside a full window's answer: any sample would do
    blocks = padded.reshape(n_blocks, w)
    prefix = ufunc.accumulate(blocks, axis=1).ravel()  # block start .. i
    suffix = ufunc.accumulate(blocks[:, ::-1], axis=1)[:, ::-1].ravel()  # i .. block end
    m = x.size - w + 1  # window j: the suffix from j, the prefix to j + w - 1 (slices, no gather)
    return ufunc(suffix[:m], prefix[w - 1:w - 1 + m])


def sliding_max(x, w: int) -> np.ndarray:
    """The largest sample of every full window of ``w`` samples.

    Parameters
    ----------
    x : array_like, 1-D
        The samples.
    w : int
        Window length, ``1 <= w <= len(x)``.

    Returns
    -------
    numpy.ndarray
        ``out[j] = max(x[j : j + w])``, ``len(x) - w + 1`` values; the same as
        ``scipy.ndimage.maximum_filter1d(x, w)[w // 2 : len(x) - (w - 1 - w // 2)]``.

    Raises
    ------
    ValueError
        If ``x`` is not 1-D or ``w`` is out of range.

    See Also
    --------
    sliding_min : the smallest sample.

    References
    ----------
    M. van Herk, "A fast algorithm for local minimum and maximum filters on rectangular and
    octagonal kernels", Pattern Recognition Letters 13 (1992) 517-521.

    Examples
    --------
    >>> from edr.dsp.running import sliding_max
    >>> sliding_max([1, 5, 2, 0, 3], 2)
    array([5, 5, 2, 3])
    """
    return _sliding_extreme(x, w, np.maximum)


def sliding_min(x, w: int) -> np.ndarray:
    """The smallest sample of every full window of ``w`` samples (as :func:`sliding_max`).

    Parameters
    ----------
    x : array_like, 1-D
        The samples.
    w : int
        Window length, ``1 <= w <= len(x)``.

    Returns
    -------
    numpy.ndarray
        ``out[j] = min(x[j : j + w])``.

    Raises
    ------
    ValueError
        If ``x`` is not 1-D or ``w`` is out of range.

    See Also
    --------
    sliding_max : the largest sample.

    Examples
    --------
    >>> from edr.dsp.running import sliding_min
    >>> sliding_min([1, 5, 2, 0, 3], 2)
    array([1, 2, 0, 0])
    """
    return _sliding_extreme(x, w, np.minimum)


def rank_filter_mirror(v, size: int) -> np.ndarray:
    """The running median of ``size`` values as SciPy's ``median_filter`` takes it, edges
    mirrored.

    Parameters
    ----------
    v : array_like, 1-D
        The values (no NaN).
    size : int
        Window length, ``1 <= size <= len(v)``; the window of value ``i`` is centred as in
        SciPy (``origin=0``).

    Returns
    -------
    numpy.ndarray
        For each value, the element of rank ``size // 2`` (counting from 0) of its window, the
        edges mirrored about the edge value (``d c b | a b c d``): identical to
        ``scipy.ndimage.median_filter(v, size=size, mode="mirror")``, which for an even
        ``size`` takes the upper middle value rather than the mean of the two.

    Raises
    ------
    ValueError
        If ``v`` is not 1-D or ``size`` is out of range.

    See Also
    --------
    edr.medians.median : the median of a whole small array.

    Examples
    --------
    >>> from edr.dsp.running import rank_filter_mirror
    >>> rank_filter_mirror([1.0, 9.0, 2.0, 3.0, 4.0], 3)
    array([9., 2., 3., 3., 3.])
    """
    v = np.asarray(v, dtype=float)
    if v.ndim != 1 or not 1 <= size <= v.size:
        raise ValueError(f"need a 1-D array and 1 <= size <= its length, got shape {v.shape}, "
                         f"size {size}")
    before = size // 2
    padded = np.pad(v, (before, size - 1 - before), mode="reflect")
    windows = np.lib.stride_tricks.sliding_window_view(padded, size)
    return np.partition(windows, size // 2, axis=1)[:, size // 2]
