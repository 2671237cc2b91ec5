"""What the judged rates need of one analysed window: :class:`RateSpan`.

A span keeps, of an offline analysis window (:meth:`RateSpan.of`) or of a stream's analysis
(:meth:`RateSpan.on_stretch`), only what :func:`edr.rates.judged_rates` reads: where its grid
points are, its core, its evidence panel and weights, and the times of the beats its series are
sampled at (so that no rate above what they carry is searched). It is imported as
``edr.rates.RateSpan``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from edr.window_analysis import WindowAnalysis
from edr.windows import Window

__all__ = ["RateSpan"]


@dataclass(frozen=True)
class RateSpan:
    """What :func:`judged_rates` needs of one analysed window, so that the window's analysis
    (its QRS matrices, beats, model) need not be kept: the first and last indices of its output
    grid points, its core (s), its evidence panel (:attr:`WindowAnalysis.panel`),
    the panel's weights (:attr:`WindowAnalysis.weights`) and the times of the beats
    its series are sampled at (the valid beats, on the grid's time axis; None: rates not
    limited). A settled span (:func:`edr.rates.settled_span`) holds, instead of its panel, the
    panel's rates at every rate window it contains whole (``rated``: their first grid indices;
    ``rates``: per series, computed with the periodogram tilt ``tilt``), so that a long record's
    spans keep a few numbers per rate window, not every panel series.

    See Also
    --------
    judged_rates, edr.rates.settled_span

    Examples
    --------
    >>> import numpy as np
    >>> from edr.rates import RateSpan
    >>> span = RateSpan(0, 479, (0.0, 120.0), {"edr": np.zeros(480)}, {"edr": 1.0})
    >>> span.beat_times is None  # rates not limited by the beats
    True
    """

    first: int
    last: int
    core: tuple
    panel: dict
    weights: dict
    beat_times: np.ndarray | None = None
    rated: np.ndarray | None = None
    rates: dict | None = None
    tilt: float | None = None

    @classmethod
    def of(cls, window: Window, wa: WindowAnalysis) -> RateSpan:
        """The span of ``window`` analysed as ``wa``."""
        idx = np.flatnonzero(wa.grid_mask)
        seg = wa.segment
        return cls(int(idx[0]), int(idx[-1]), window.core, wa.panel, wa.weights,
                   seg.beat_times[seg.valid])

    @classmethod
    def on_stretch(cls, first: int, n: int, panel: dict, weights: dict, segment,
                   fs_out: float) -> RateSpan:
        """The span of a stream's rate stretch, its beats on the stretch's time.

        A stream judges the rate windows of a stretch of its EDR (a grid series whose index 0 is
        time 0, as it passes it to :func:`judged_rates`) by the panel of one analysis. The span
        holds the panel's ``n`` points from the stretch's index ``first`` on, no core, and the
        valid beats of ``segment`` moved onto the stretch's time, so the stream's rates are
        searched below what its beats carry and judged near that limit exactly as offline
        (:func:`edr.signal.carried_bpm`, :func:`near_carried`).

        Parameters
        ----------
        first : int
            Index in the stretch of the panel's first point (``segment.grid[0]``).
        n : int
            Number of the panel's points.
        panel, weights : dict
            The analysis' evidence panel (each series on ``segment``'s grid) and its weights.
        segment : edr.methods.Segment
            The segment whose beats the panel's series are sampled at (``grid``,
            ``beat_times``, ``valid``; its own time axis).
        fs_out : float
            Grid rate (Hz).

        Returns
        -------
        RateSpan

        See Also
        --------
        RateSpan.of : the span of an offline analysis window (record time throughout).

        Examples
        --------
        >>> import numpy as np
        >>> from types import SimpleNamespace
        >>> from edr.rates import RateSpan
        >>> seg = SimpleNamespace(grid=100.0 + np.arange(8) / 4.0,
        ...                       beat_times=np.array([100.2, 101.0, 101.8]),
        ...                       valid=np.array([True, False, True]))
        >>> span = RateSpan.on_stretch(4, 8, {}, {}, seg, 4.0)  # seg.grid[0] is the stretch's 1 s
        >>> span.first, span.last, span.beat_times
        (4, 11, array([1.2, 2.8]))
        """
        seg_t0 = float(segment.grid[0]) - first / fs_out  # segment time of the stretch's index 0
        return cls(first, first + n - 1, (-np.inf, np.inf), panel, weights,
                   segment.beat_times[segment.valid] - seg_t0)
