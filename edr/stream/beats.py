"""Beats of a stream, detected incrementally: :class:`BeatTracker`.

At each update :func:`edr.beats.detect` runs on the last :data:`TAIL_S` seconds of a lead only
(instead of the whole analysis span). Beats before the previous update's final line (the
update's end minus :data:`PROVISIONAL_S`) were settled by earlier updates and are kept as they
were: their aligned positions and quality flags are those of the tail they were found in, with
at least ``TAIL_S - hop - PROVISIONAL_S`` seconds of ECG before them and
:data:`PROVISIONAL_S` after (the running medians of :func:`edr.beats.detect` reach 5 beats
either side). The tail's beats after that line are taken from the new tail; those within
:data:`PROVISIONAL_S` of its end are provisional and detected again at the next update. The
span's beats are returned as one :class:`edr.beats.Beats`, as ``detect`` of the span returns
them; the polarity is the latest tail's.
"""

from __future__ import annotations

import numpy as np

from edr.beats import MIN_BEATS, Beats, detect
from edr.errors import SignalError

__all__ = ["EDGE_S", "PROVISIONAL_S", "TAIL_S", "BeatTracker"]

TAIL_S = 40.0
"""ECG (s) searched for beats at each update: holds :data:`edr.beats.MIN_BEATS` beats down to
30 beats/min."""
PROVISIONAL_S = 8.0
"""Beats within this many seconds (s) of the stream's end are detected again at the next update."""
EDGE_S = 0.1
"""Beats within this many seconds (s) after a span's first sample are left out of it (their QRS
window would reach before the span)."""
_FIELDS = ("peaks", "valid", "template_corr", "clipped", "ectopic")


class BeatTracker:
    """The beats of one lead over the analysis span, kept across updates (module docstring).

    Parameters
    ----------
    fs : float
        ECG sampling rate (Hz).
    """

    def __init__(self, fs: float):
        self.fs = float(fs)
        self._kept = {k: np.empty(0, dtype=bool if k in ("valid", "clipped", "ectopic")
                                  else float) for k in _FIELDS}  # absolute sample positions
        self._provisional = {k: v[:0] for k, v in self._kept.items()}
        self._final = 0.0  # absolute sample: beats before it are settled
        self._end = 0  # samples pushed at the last advance
        self._polarity = 1

    def update(self, x: np.ndarray, n_total: int) -> Beats:
        """The beats of the span ``x`` (the last ``x.size`` samples of ``n_total`` pushed), with
        peaks in samples from the span's start: :meth:`advance` then :meth:`since`.
        ``n_artifact`` counts the invalid beats not flagged ectopic, ``n_masked`` the span's NaN
        samples.

        Raises
        ------
        SignalError
            Fewer than :data:`edr.beats.MIN_BEATS` beats in the span.
        """
        start = n_total - x.size
        self.advance(x, n_total, start)
        return self.since(start, n_masked=int(np.isnan(x).sum()))

    def advance(self, tail: np.ndarray, n_total: int, keep_from: int) -> None:
        """Detect the beats of the last :data:`TAIL_S` of ``tail`` (the last ``tail.size``
        samples of ``n_total`` pushed), settle those before the provisional stretch and forget
        the beats before sample ``keep_from`` (absolute)."""
        tail_n = min(tail.size, int(round(TAIL_S * self.fs)))
        tail0 = n_total - tail_n
        final = max(n_total - PROVISIONAL_S * self.fs, 0.0)
        fresh = None
        try:
            fresh = detect(tail[tail.size - tail_n:], self.fs)
        except SignalError:
            pass
        kept = self._kept
        if fresh is not None:
            self._polarity = fresh.polarity
            pos = tail0 + fresh.peaks
            new = pos >= max(self._final, tail0)
            if kept["peaks"].size:
                new &= pos > kept["peaks"][-1] + 0.2 * self.fs
            parts = {k: getattr(fresh, k)[new] for k in _FIELDS}
            parts["peaks"] = pos[new]
        else:
            parts = {k: v[:0] for k, v in kept.items()}
        settle = parts["peaks"] < final
        keep = kept["peaks"] >= keep_from + 0.1 * self.fs
        self._kept = {k: np.concatenate([kept[k][keep], parts[k][settle]]) for k in _FIELDS}
        self._provisional = {k: parts[k][~settle] for k in _FIELDS}
        self._final = final
        self._end = n_total

    def since(self, start: int, n_masked: int = 0) -> Beats:
        """The settled and provisional beats from sample ``start`` (absolute; the first
        :data:`EDGE_S` after it left out, as the span's edge), peaks in samples from ``start``.

        Raises
        ------
        SignalError
            Fewer than :data:`edr.beats.MIN_BEATS` beats.
        """
        span = {k: np.concatenate([self._kept[k], self._provisional[k]]) for k in _FIELDS}
        inside = span["peaks"] >= start + EDGE_S * self.fs
        span = {k: v[inside] for k, v in span.items()}
        if span["peaks"].size < MIN_BEATS:
            raise SignalError(f"only {span['peaks'].size} heart beats found in the last "
                              f"{self._span_s(start):.1f} s of ECG; an EDR needs at least "
                              f"{MIN_BEATS}")
        ectopic, valid = span["ectopic"], span["valid"]
        return Beats(peaks=span["peaks"] - start, fs=self.fs, valid=valid,
                     polarity=self._polarity, n_ectopic=int(ectopic.sum()),
                     n_artifact=int((~valid & ~ectopic).sum()),
                     template_corr=span["template_corr"], clipped=span["clipped"],
                     ectopic=ectopic, n_masked=n_masked)

    def _span_s(self, start: int) -> float:
        return max(self._end - start, 0) / self.fs
