"""Series aligned onto an anchor and summed: the average every fusion of ``edr`` takes.

:func:`aligned_sum` scales each series of a panel to unit standard deviation, shifts it onto the
anchor by the lag (within a bound) that best matches it (:func:`shifted`), gives it the anchor's
sign and adds it with its weight: the panel fusion (:func:`edr.fusion.fuse`), the fusion of
leads' EDRs (:func:`edr.leads.fuse_edrs`), the fused kernel components and the stream's
projection use it. The weights are the callers'.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

__all__ = ["aligned_sum", "shifted", "unit_sd"]


def aligned_sum(panel: Mapping[str, np.ndarray], weights: Mapping[str, float], anchor: str,
                max_lag: int = 0) -> tuple[np.ndarray, dict, dict]:
    """``sum_k w_k s_k y_k(n - l_k)``: each series of ``panel`` with a weight, scaled to unit
    standard deviation (``y_k``), shifted onto ``panel[anchor]`` by the lag ``l_k`` within
    ``±max_lag`` samples that maximises the absolute inner product (edge samples held; 0 for the
    anchor) and given that product's sign ``s_k``. The one weighted, aligned average of the
    package (:func:`fuse`, :func:`edr.leads.fuse_edrs`, ``kpca_rsa``).

    Returns
    -------
    series : ndarray
    signs, lags : dict
        ``s_k`` and ``l_k`` per weighted series.

    See Also
    --------
    edr.fusion.fuse, shifted

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(480) / 4.0  # two minutes on the 4 Hz grid
    >>> b = np.sin(2 * np.pi * 0.25 * t)  # breathing at 15 breaths/min
    >>> noise = np.random.default_rng(0).standard_normal(t.size)
    >>> from edr.series_alignment import aligned_sum, shifted
    >>> s, signs, lags = aligned_sum({"a": b, "b": shifted(-b, 2)}, {"a": 0.5, "b": 0.5}, "a", 4)
    >>> signs, lags
    ({'a': 1.0, 'b': -1.0}, {'a': 0, 'b': -2})
    """
    ref = np.asarray(panel[anchor], dtype=float)
    max_lag = min(max_lag, max(ref.size - 1, 0))
    acc = np.zeros(ref.size)
    signs, lags = {}, {}
    for name, w in weights.items():
        y = np.asarray(panel[name], dtype=float)
        if y.shape != ref.shape:
            raise ValueError(f"panel series {name!r} has {y.size} points, {anchor!r} has "
                             f"{ref.size}")
        y = unit_sd(y)
        lags[name] = 0 if name == anchor else _best_lag(y, ref, max_lag)
        y = shifted(y, lags[name])
        signs[name] = -1.0 if np.dot(y, ref) < 0 else 1.0
        acc += w * signs[name] * y
    return acc, signs, lags


def shifted(x: np.ndarray, lag: int) -> np.ndarray:
    """``x`` delayed by ``lag`` samples (advanced when negative), its edge samples held.

    See Also
    --------
    aligned_sum

    Examples
    --------
    >>> import numpy as np
    >>> from edr.series_alignment import shifted
    >>> shifted(np.array([1.0, 2.0, 3.0, 4.0]), 1), shifted(np.array([1.0, 2.0, 3.0, 4.0]), -1)
    (array([1., 1., 2., 3.]), array([2., 3., 4., 4.]))
    """
    if lag == 0:
        return x
    out = np.empty_like(x)
    if lag > 0:
        out[lag:], out[:lag] = x[:-lag], x[0]
    else:
        out[:lag], out[lag:] = x[-lag:], x[-1]
    return out


def _best_lag(y: np.ndarray, ref: np.ndarray, max_lag: int) -> int:
    """The lag in ``[-max_lag, max_lag]`` maximising ``|<shifted(y, lag), ref>|`` (the smallest
    shift among ties)."""
    lags = sorted(range(-max_lag, max_lag + 1), key=abs)
    c = [abs(float(np.dot(shifted(y, k), ref))) for k in lags]
    return lags[int(np.argmax(c))]


def unit_sd(x) -> np.ndarray:
    """``x`` (float) over its standard deviation (as is when that is 0)."""
    y = np.asarray(x, dtype=float)
    sd = y.std()
    return y / sd if sd > 0 else y
