"""The stream's ring buffer: the last span of every channel, its glitches read as missing.

:class:`Ring` holds the last ``capacity`` samples of each channel of
:class:`edr.stream.engine.StreamingEDR`; it judges each channel's glitch limits
(:func:`edr.beats.mask.glitch_limits`) on the samples as recorded and counts the glitches and
the clipped samples (:class:`edr.stream.faults.RailRuns`) as they arrive.
"""

from __future__ import annotations

import numpy as np

from edr.beats.mask import glitch_limits
from edr.signal import RATE_WINDOW_S
from edr.stream.faults import RailRuns

__all__ = ["Ring"]


class Ring:
    """The last ``capacity`` samples of ``n_channels`` unbounded streams (circular buffer), read
    with their impulse glitches as NaN (:meth:`renew_limits`); their glitches and clipped
    samples counted."""

    def __init__(self, n_channels: int, capacity: int):
        self.buf = np.zeros((n_channels, capacity))
        self.cap = capacity
        self.n_total = 0
        self.limits, self.n_limits = [None] * n_channels, None
        self.glitches, self.n_judged = np.zeros(n_channels, dtype=np.int64), 0
        self.clipped, self.rails = np.zeros(n_channels, dtype=np.int64), None

    def append(self, x: np.ndarray) -> None:
        """Append ``x`` of shape (n_channels, n)."""
        x = x[:, -self.cap:]
        n = x.shape[1]
        i = self.n_total % self.cap
        k = min(n, self.cap - i)
        self.buf[:, i:i + k] = x[:, :k]
        self.buf[:, :n - k] = x[:, k:]
        self.n_total += n

    def renew_limits(self, fs: float) -> None:
        """Judge each channel's glitch limits (:func:`edr.beats.mask.glitch_limits`) on the
        samples held as recorded, at the first call and then every :data:`~edr.signal.RATE_WINDOW_S`
        of stream (a lasting shift of the level is learnt, a glitch is not), and add the
        samples appended since the previous call that lie beyond them to ``glitches``, those
        of them at a rail to ``clipped`` (:class:`edr.stream.faults.RailRuns`; per channel)."""
        if self.n_limits is None or self.n_total - self.n_limits >= RATE_WINDOW_S * fs:
            n = min(self.cap, self.n_total)
            self.limits = [glitch_limits(c, fs) for c in self._raw(n)]
            self.n_limits = self.n_total
        fresh = self.n_total - self.n_judged
        if fresh:
            x = self._raw(min(fresh, self.cap))
            with np.errstate(invalid="ignore"):
                for c, limits in enumerate(self.limits):
                    if limits is not None:
                        beyond = np.abs(x[c] - limits[0]) > limits[1]
                        self.glitches[c] += np.count_nonzero(beyond)
                        x[c, beyond] = np.nan
            self.rails = RailRuns(fs, x.shape[0]) if self.rails is None else self.rails
            self.clipped += self.rails.push(x.T)
            self.n_judged = self.n_total

    def last(self, n: int) -> np.ndarray:
        """The last ``n`` samples (at most the capacity), shape (n_channels, n), a sample beyond
        its channel's glitch limits NaN."""
        out = self._raw(n)
        with np.errstate(over="ignore", invalid="ignore"):
            for c, limits in enumerate(self.limits):
                if limits is not None:
                    out[c, np.abs(out[c] - limits[0]) > limits[1]] = np.nan
        return out

    def _raw(self, n: int) -> np.ndarray:
        """The last ``n`` samples as appended (a copy)."""
        n = min(n, self.cap, self.n_total)
        i = self.n_total % self.cap
        if n <= i:
            return self.buf[:, i - n:i].copy()
        return np.concatenate([self.buf[:, self.cap - (n - i):], self.buf[:, :i]], axis=1)
