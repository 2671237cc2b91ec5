"""Pauses in breathing: good ECG, no breath for longer than a threshold.

A pause is an interval between two consecutive breaths of one stretch of finite EDR (no masked
sample between them) that exceeds the typical interval around it (the median of the up to
:data:`CONTEXT_BREATHS` intervals on each side; 0 when there is none) by more than
:data:`PAUSE_S`: breathing stopped for longer than :data:`PAUSE_S` beyond a normal breath. Slow
breathing (6 /min: 10 s intervals) is then no string of pauses, and two breaths missed in fast
breathing are no pause. Both breaths of a pause must be judged (a rate is given around each,
:func:`edr.breaths.judged_around`): stretches where the ECG shows no consistent breathing are
withheld, not taken for pauses; a long pause, whose own rate windows may lose their rate, is
still reported when the breathing on both sides is consistent.
Measurements: ``docs/studies/breath_detection.md``.
"""

from __future__ import annotations

import numpy as np

from edr._rowstats import row_percentile

__all__ = ["CONTEXT_BREATHS", "PAUSE_S", "find_pauses", "typical_intervals"]

PAUSE_S = 10.0
"""Shortest pause (s) beyond a normal breath: the 10 s of the clinical definition of an
apnoea."""

CONTEXT_BREATHS = 5
"""Intervals on each side of an interval that give its typical interval."""


def typical_intervals(interval, *, context: int = CONTEXT_BREATHS) -> np.ndarray:
    """For every interval, the median of the finite intervals among the ``context`` before and
    the ``context`` after it (NaN when there is none).

    See Also
    --------
    find_pauses

    Examples
    --------
    >>> import numpy as np
    >>> from edr.pauses import typical_intervals
    >>> typical_intervals(np.array([np.nan, 4.0, 4.0, 30.0, 5.0, 5.0])).tolist()
    [5.0, 5.0, 5.0, 4.5, 4.5, 4.5]
    """
    v = np.asarray(interval, dtype=float)
    offsets = np.r_[np.arange(-context, 0), np.arange(1, context + 1)]
    cols = np.arange(v.size)[:, None] + offsets[None, :]
    rows = np.append(v, np.nan)[np.where((cols >= 0) & (cols < v.size), cols, v.size)]
    return row_percentile(rows, 50.0)


def find_pauses(time, interval, good, *, pause_s: float = PAUSE_S):
    """The pauses among breaths.

    Parameters
    ----------
    time : array_like, shape (n,)
        Breath times (s), increasing.
    interval : array_like, shape (n,)
        Time since the previous breath (s); NaN where the previous breath lies across a masked
        stretch, or there is none.
    good : array_like of bool, shape (n,)
        Breaths around which the ECG shows consistent breathing
        (:func:`edr.breaths.judged_around`).
    pause_s : float, default :data:`PAUSE_S`
        A pause exceeds its typical interval (:func:`typical_intervals`, 0 where there is
        none) by more than this (s).

    Returns
    -------
    pauses : ndarray, shape (k, 2)
        Start (the breath before) and end (the breath after) of each pause (s).
    after_pause : ndarray of bool, shape (n,)
        The breaths that end a pause.

    Raises
    ------
    ValueError
        Arrays of different lengths, or a ``pause_s`` that is not positive.

    See Also
    --------
    typical_intervals, edr.breaths.detect_breaths : the breaths whose intervals it reads.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.pauses import find_pauses
    >>> t = np.array([0.0, 4.0, 8.0, 30.0, 34.0, 38.0, 42.0])
    >>> iv = np.r_[np.nan, np.diff(t)]
    >>> pauses, after = find_pauses(t, iv, np.ones(7, bool))
    >>> pauses.tolist(), after.tolist()
    ([[8.0, 30.0]], [False, False, False, True, False, False, False])
    """
    time = np.asarray(time, dtype=float)
    interval = np.asarray(interval, dtype=float)
    good = np.asarray(good, dtype=bool)
    if not (time.shape == interval.shape == good.shape) or time.ndim != 1:
        raise ValueError(f"time, interval and good must be 1-D of one length, got shapes "
                         f"{time.shape}, {interval.shape}, {good.shape}")
    if not (np.isfinite(pause_s) and pause_s > 0):
        raise ValueError(f"pause_s must be a positive number, got {pause_s!r}")
    typical = np.nan_to_num(typical_intervals(interval), nan=0.0)
    after = np.isfinite(interval) & (interval > pause_s + typical)
    after[1:] &= good[1:] & good[:-1]
    after[:1] = False
    pauses = np.column_stack([time[after] - interval[after], time[after]]).reshape(-1, 2)
    return pauses, after
