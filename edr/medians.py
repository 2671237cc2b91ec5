"""NumPy's median of a small array, without NumPy's per-call cost.

:func:`numpy.median` costs the same whatever the size of a small array (argument handling, a
partition, a NaN check and a mean of the middle values); the robust beat matrix and the QRS
baselines take a few of them for a few dozen beats at every update of a stream
(``docs/studies/stream_projection.md``). :func:`median` sorts the rows in one
:func:`numpy.sort` call and takes the same middle value (the mean of the two middle values,
``(a + b) / 2``, for an even count; NaN when a value is NaN): the same numbers as NumPy's
(``tests/edr/test_medians.py``). A compiled loop saved ~15 µs a call on a few dozen values,
lost on larger arrays and cost seconds to compile on a first run
(``docs/studies/first_run.md``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["median"]


def _row_medians(A: np.ndarray) -> np.ndarray:
    """The median of each row of ``A`` (NaN for an empty row or one holding NaN)."""
    n = A.shape[1]
    if n == 0:
        return np.full(A.shape[0], np.nan)
    s = np.sort(A, axis=1)  # NaN sorts last
    middle = s[:, n // 2] if n % 2 else (s[:, n // 2 - 1] + s[:, n // 2]) / 2.0
    return np.where(s[:, n - 1] != s[:, n - 1], np.nan, middle)


def median(a, axis: int | None = None):
    """``numpy.median(a, axis=axis)`` of a one- or two-dimensional real array, as float64.

    Parameters
    ----------
    a : array_like, shape (n,) or (n, m)
    axis : {None, 0, 1, -1}
        None: the median of every value (a float); else along that axis (an array).

    Returns
    -------
    float or ndarray
    """
    a = np.asarray(a, dtype=float)
    if a.ndim not in (1, 2):
        raise ValueError(f"a must be one- or two-dimensional, got shape {a.shape}")
    if axis is None or a.ndim == 1:
        if axis not in (None, 0, -1):
            raise ValueError(f"axis {axis!r} is out of range for a one-dimensional array")
        return float(_row_medians(a.reshape(1, -1))[0])
    if axis not in (0, 1, -1):
        raise ValueError(f"axis must be None, 0, 1 or -1, got {axis!r}")
    return _row_medians(a.T if axis == 0 else a)
