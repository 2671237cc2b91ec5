"""Beats of a stream, detected incrementally: :class:`BeatTracker`.

At each update :func:`edr.beats.detect` runs on the newest seconds of a lead only (instead of the
whole analysis span): the ECG since the previous update's final line (its end minus
:data:`PROVISIONAL_S`) and :data:`SEARCH_CONTEXT_S` before it, 16 s with a 2 s hop (the whole
ECG given at the first update). Beats before that line were settled by earlier updates and are
kept as they were: their aligned positions and quality flags are those of the search they were
found in, with at least :data:`SEARCH_CONTEXT_S` seconds of ECG before them and
:data:`PROVISIONAL_S` after (the running medians of :func:`edr.beats.detect` reach 5 beats
either side). The search's beats after that line are taken from the new search; those within
:data:`PROVISIONAL_S` of its end are provisional and detected again at the next update. The
span's beats are returned as one :class:`edr.beats.Beats`, as ``detect`` of the span returns
them.

Two things a short search cannot judge well on its own beats are kept across searches:

* the alignment template: every :data:`TEMPLATE_EVERY_S` (and when the polarity changes) a
  search reaches :data:`TEMPLATE_CONTEXT_S` back and builds it from its beats; the searches in
  between align their beats to it, so that the sub-sample positions hold one reference;
* the polarity: NeuroKit2's rule (:func:`edr.beats.inversion_values`) over the 2 s windows of
  the last ``polarity_s`` seconds (:data:`POLARITY_S`, the analysis span). Each window's value
  is computed once, when at least :data:`POLARITY_STEP_S` of new windows lie
  :data:`POLARITY_MARGIN_S` clear of the stream's end (a stretch of ECG with that margin either
  side of them is cleaned for them), and kept while the window is within ``polarity_s`` of the
  stream's end; ``detect`` is given the verdict.
"""

from __future__ import annotations

import numpy as np

from edr.beats import MIN_BEATS, Beats, detect, inversion_values, inverted_by
from edr.errors import SignalError

__all__ = ["EDGE_S", "POLARITY_MARGIN_S", "POLARITY_S", "POLARITY_STEP_S", "PROVISIONAL_S",
           "SEARCH_CONTEXT_S", "SEARCH_MIN_BEATS", "TEMPLATE_CONTEXT_S", "TEMPLATE_EVERY_S",
           "BeatTracker"]

SEARCH_CONTEXT_S = 6.0
"""ECG (s) searched before the beats an update settles or finds: the cleaning filter's edge and
the running medians of :func:`edr.beats.detect` (5 beats either side)."""
TEMPLATE_CONTEXT_S = 30.0
"""The same for a search that builds the lead's alignment template: 40 s with a 2 s hop, the
beats of the template the stream's detection had before its searches were short."""
TEMPLATE_EVERY_S = 30.0
"""Stream time (s) between two searches that build the alignment template; the searches in
between align their beats to it (``detect(template=...)``), so that the sub-sample positions of
the beats successive searches settle hold one reference (a template built by every short search
from its few beats moves from one search to the next, and the positions with it: steps every
2 s, in the breathing band; measurements: ``docs/studies/stream_projection.md``). A new
polarity also builds a new template."""
SEARCH_MIN_BEATS = 8
"""Fewest beats a search accepts: 16 s at 30 beats/min (the span's beats still need
:data:`edr.beats.MIN_BEATS`)."""
POLARITY_S = 240.0
"""ECG (s) whose 2 s windows judge the lead's polarity: the default analysis span
(:data:`edr.stream.engine.DEFAULT_SPAN_S`), as the offline detection judges a lead over the
whole of it (over a single search the verdict on a lead whose R and S are of a size can change
from one update to the next; ``docs/studies/stream_projection.md``)."""
POLARITY_MARGIN_S = 3.0
"""A window's value is taken from ECG that reaches this many seconds (s) either side of it (the
cleaning filters' edges), or from the stream's first samples."""
POLARITY_STEP_S = 8.0
"""Windows (s of window starts) evaluated together: the cleaning's cost is mostly per call."""
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
    polarity_s : float, optional
        ECG (s) over which the lead's polarity is judged (default :data:`POLARITY_S`).

    See Also
    --------
    edr.beats.detect : the offline detection each search runs, and the beats it returns.
    edr.stream.engine.StreamingEDR : keeps one tracker per channel.
    edr.beats.inversion_values : the per-window polarity values judged over ``polarity_s``.

    Examples
    --------
    The beats of a simulated minute, updated every 2 s from 32 s on (the span: all the ECG so
    far), are those of the offline detection of the whole minute, within a tenth of a sample:

    >>> import numpy as np
    >>> from edr.beats import detect
    >>> from edr.simulate import simulate_recording
    >>> from edr.stream.beats import BeatTracker
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> tracker = BeatTracker(rec.fs)
    >>> for end in range(8000, rec.ecg.size + 1, 500):
    ...     beats = tracker.update(rec.ecg[:end], end)
    >>> offline = detect(rec.ecg, rec.fs)
    >>> beats.peaks.size, offline.peaks.size, beats.polarity
    (69, 69, 1)
    >>> bool(np.abs(beats.peaks - offline.peaks).max() < 0.1)
    True
    >>> tracker.settled_before / rec.fs  # beats after it are detected again at the next update
    52.0
    """

    def __init__(self, fs: float, polarity_s: float | None = None):
        self.fs = float(fs)
        self.polarity_s = float(POLARITY_S if polarity_s is None else polarity_s)
        self._kept = {k: np.empty(0, dtype=bool if k in ("valid", "clipped", "ectopic")
                                  else float) for k in _FIELDS}  # absolute sample positions
        self._provisional = {k: v[:0] for k, v in self._kept.items()}
        self._final = 0.0  # absolute sample: beats before it are settled
        self._end = 0  # samples pushed at the last advance
        self._polarity = 1
        self._windows = np.empty(0, dtype=np.float32)  # inversion values, consecutive starts
        self._windows_end = 0  # absolute start of the next window to evaluate
        self._verdict = 1  # the polarity the kept windows give
        self._template = None  # alignment template of the last long search
        self._template_at = -np.inf  # samples pushed at that search

    def update(self, x: np.ndarray, n_total: int) -> Beats:
        """The beats of the span ``x`` (the last ``x.size`` samples of ``n_total`` pushed), with
        peaks in samples from the span's start: :meth:`advance` then :meth:`since`.
        ``n_artifact`` counts the invalid beats not flagged ectopic, ``n_masked`` the span's NaN
        samples.

        Raises
        ------
        SignalError
            Fewer than :data:`edr.beats.MIN_BEATS` beats in the span.

        See Also
        --------
        settled_times : the settled valid beats, for the breaths of the stream.
        edr.beats.detect : the detection of each search.
        """
        start = n_total - x.size
        self.advance(x, n_total, start)
        return self.since(start, n_masked=int(np.isnan(x).sum()))

    def advance(self, tail: np.ndarray, n_total: int, keep_from: int) -> None:
        """Detect the beats of the newest seconds of ``tail`` (the last ``tail.size`` samples of
        ``n_total`` pushed; module docstring), settle those before the provisional stretch and
        forget the beats before sample ``keep_from`` (absolute)."""
        polarity = self._judged(tail, n_total)
        long = (self._template is None or polarity != self._polarity
                or n_total - self._template_at >= TEMPLATE_EVERY_S * self.fs)
        context = TEMPLATE_CONTEXT_S if long else SEARCH_CONTEXT_S
        search_n = min(tail.size, int(round(n_total - self._final + context * self.fs))
                       if self._end else tail.size)
        search0 = n_total - search_n
        final = max(n_total - PROVISIONAL_S * self.fs, 0.0)
        fresh = None
        try:
            fresh = detect(tail[tail.size - search_n:], self.fs, polarity=polarity,
                           min_beats=SEARCH_MIN_BEATS, template=None if long else self._template)
        except SignalError:
            pass
        if fresh is not None and long:
            self._template, self._template_at = fresh.template, n_total
        kept = self._kept
        if fresh is not None:
            self._polarity = fresh.polarity
            pos = search0 + fresh.peaks
            new = pos >= max(self._final, search0)
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

    def _judged(self, tail: np.ndarray, n_total: int) -> int | None:
        """The lead's polarity over its last ``polarity_s`` (module docstring), the window
        values of ``tail`` (its last ``tail.size`` samples of ``n_total``) not yet evaluated
        added; None (``detect`` judges the search itself) while no window is known."""
        fs, w = self.fs, int(2.0 * self.fs)
        margin = int(round(POLARITY_MARGIN_S * fs))
        tail0 = n_total - tail.size
        first = self._windows_end  # absolute start of the first window to evaluate
        start = first - margin
        if start < tail0:  # the stream's start, or ECG missed since the last values
            start = tail0
            first = first if tail0 == 0 else max(first, tail0 + margin)
        stop = n_total - margin - w + 1  # one past the last window start evaluated now
        chunk = tail[start - tail0:]
        enough = stop - first >= POLARITY_STEP_S * fs or (not self._windows.size and stop > first)
        if enough and np.isfinite(chunk).all():
            values = inversion_values(chunk, fs)[first - start:stop - start]
            if first > self._windows_end:  # windows skipped: the values kept are another stretch
                self._windows = self._windows[:0]
            keep = int(round(self.polarity_s * fs)) - w + 1
            self._windows = np.concatenate([self._windows, values])[-keep:]
            self._windows_end = stop
            self._verdict = -1 if inverted_by(self._windows) else 1
        return self._verdict if self._windows.size else None

    def settled_times(self) -> np.ndarray:
        """Times (s of stream) of the settled valid beats kept (those of the span): the heart
        beats :class:`edr.stream.breaths.StreamBreaths` reads the polarity of the breaths
        from."""
        return self._kept["peaks"][self._kept["valid"]] / self.fs

    @property
    def settled_before(self) -> float:
        """Absolute sample before which the beats are settled (kept as they are)."""
        return self._final

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
