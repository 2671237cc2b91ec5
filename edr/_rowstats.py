"""Percentiles of the finite values of every row of a NaN-padded matrix, vectorised.

``np.nanpercentile(rows, q, axis=1)`` runs a Python-level function per row; for the many short
rows of the breath detector (the neighbourhoods of every breath) that is most of its time.
"""

from __future__ import annotations

import numpy as np

__all__ = ["row_percentile"]


def row_percentile(rows, q: float) -> np.ndarray:
    """The ``q``-th percentile (NumPy's default linear interpolation) of the finite values of
    each row of ``rows`` (NaN for a row without one): ``np.nanpercentile(rows, q, axis=1)``.

    Examples
    --------
    >>> import numpy as np
    >>> from edr._rowstats import row_percentile
    >>> row_percentile(np.array([[1.0, 3.0, np.nan], [np.nan, np.nan, np.nan], [4, 1, 2]]),
    ...                50).tolist()
    [2.0, nan, 2.0]
    """
    rows = np.asarray(rows, dtype=float)
    s = np.sort(rows, axis=1)  # NaN last
    n = np.isfinite(s).sum(axis=1)
    pos = q / 100.0 * np.maximum(n - 1, 0)
    lo = np.floor(pos).astype(int)
    hi = np.minimum(lo + 1, np.maximum(n - 1, 0))
    r = np.arange(s.shape[0])
    out = s[r, lo] + (pos - lo) * (s[r, hi] - s[r, lo]) if s.shape[1] else np.full(r.size, np.nan)
    return np.where(n > 0, out, np.nan)
