"""Timestamped samples onto the uniform sample clock the engine assumes.

A Lab Streaming Layer stream gives every sample a timestamp. The engine counts samples (stream
time = samples / fs), so a dropout must become missing samples of its length, and a sample that
jumps back in time must not be taken for a new one. :class:`TimestampGaps` keeps the expected
time of the next sample:

* a sample later than expected by more than :data:`GAP_PERIODS` sample periods follows a gap:
  ``round(lateness * fs)`` NaN rows go before it (its length on the uniform clock), unless it is
  later by more than :data:`MAX_DROPOUT_S`: the clock jumped forward (a device clock set, a bad
  timestamp), no dropout is that long, and the sample is taken as the next one;
* a sample earlier than expected by more than :data:`JUMP_BACK_S` jumped back: it is dropped;
* anything in between is taken as the next sample. A sample that is late (within the tolerance)
  moves the expected clock on to it, so jitter never accumulates into a gap; an early one does
  not move it back, so a burst of samples pushed together (one timestamp each, taken at the
  push) lines up behind the previous burst.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["GAP_PERIODS", "JUMP_BACK_S", "MAX_DROPOUT_S", "TimestampGaps"]

GAP_PERIODS = 4.0
"""A sample later than expected by more than this many sample periods follows a gap."""
MAX_DROPOUT_S = 3600.0
"""Longest dropout (s) filled with NaN samples; a sample later than that jumped forward in time
(filling it would cost memory and engine time without bound)."""
JUMP_BACK_S = 1.0
"""A sample earlier than expected by more than this (s) jumped back in time and is dropped;
earlier by less, it is a burst or jitter and is kept."""


@dataclass
class TimestampGaps:
    """Uniform rows from timestamped chunks: gaps filled with NaN, jumps back dropped.

    Parameters
    ----------
    fs : float
        Nominal sampling rate (Hz).

    Attributes
    ----------
    gaps, gap_samples : int
        Gaps found and the NaN rows inserted for them.
    jumps : int
        Jumps forward beyond :data:`MAX_DROPOUT_S` (no row inserted).
    dropped : int
        Samples dropped for jumping back in time.

    See Also
    --------
    edr.stream.sources.lsl_blocks : applies it to every chunk of a Lab Streaming Layer inlet.
    edr.stream.faults.FaultLedger : counts the gaps and jumps back it reports.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.stream.timestamps import TimestampGaps
    >>> clock = TimestampGaps(100.0)
    >>> t = np.array([0.00, 0.01, 0.02, 0.10, 0.11, -5.0, 0.12])  # 70 ms lost; a jump back
    >>> rows, events = clock.apply(np.arange(7.0)[:, None], t)
    >>> rows[:, 0].tolist()
    [0.0, 1.0, 2.0, nan, nan, nan, nan, nan, nan, nan, 3.0, 4.0, 6.0]
    >>> events
    [('gap', 3, 7), ('jump_back', 12, 1)]
    >>> clock.gaps, clock.gap_samples, clock.dropped
    (1, 7, 1)
    """

    fs: float
    gaps: int = 0
    gap_samples: int = 0
    jumps: int = 0
    dropped: int = 0
    _next: float = math.nan  # expected timestamp of the next sample

    def apply(self, x: np.ndarray, timestamps) -> tuple[np.ndarray, list]:
        """The rows of ``x`` on the uniform clock.

        Parameters
        ----------
        x : ndarray, shape (n, n_channels)
            Samples in arrival order.
        timestamps : array_like, shape (n,)
            Their timestamps (s), one clock for the whole stream.

        Returns
        -------
        rows : ndarray, shape (m, n_channels)
            ``x`` with NaN rows inserted before every sample that follows a gap, and the samples
            that jumped back left out.
        events : list of (kind, row, count)
            ``("gap", i, k)``: ``k`` NaN rows inserted at output row ``i``; ``("jump_back", i,
            k)``: ``k`` samples dropped before output row ``i``; ``("time_jump", i, s)``: output
            row ``i`` is ``s`` seconds (rounded) later than expected, taken as the next sample.

        See Also
        --------
        edr.stream.faults.FaultLedger.note : counts the events.
        """
        x = np.asarray(x, dtype=float)
        t = np.asarray(timestamps, dtype=float)
        if t.shape != (x.shape[0],):
            raise ValueError(f"{x.shape[0]} samples but {t.size} timestamps")
        dt, tol = 1.0 / self.fs, GAP_PERIODS / self.fs
        out, events, n_out = [], [], 0
        for i, ti in enumerate(t):
            late = ti - self._next if math.isfinite(self._next) else 0.0
            if late < -JUMP_BACK_S:
                self.dropped += 1
                if events and events[-1][0] == "jump_back" and events[-1][1] == n_out:
                    events[-1] = ("jump_back", n_out, events[-1][2] + 1)
                else:
                    events.append(("jump_back", n_out, 1))
                continue
            if late > MAX_DROPOUT_S:
                events.append(("time_jump", n_out, int(round(late))))
                self.jumps += 1
                late = 0.0
            elif late > tol:
                k = int(round(late * self.fs))
                out.append(np.full((k, x.shape[1]), np.nan))
                events.append(("gap", n_out, k))
                self.gaps += 1
                self.gap_samples += k
                n_out += k
                late -= k * dt
            out.append(x[i:i + 1])
            n_out += 1
            self._next = (ti if late > 0 else ti - late) + dt
        rows = np.concatenate(out) if out else np.empty((0, x.shape[1]))
        return rows, events
