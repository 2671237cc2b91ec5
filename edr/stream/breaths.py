"""Breaths of a stream, each reported once within its latency bound: :class:`StreamBreaths`.

The breaths are found by the offline detector (:func:`edr.breaths.detect_breaths`) on what the
stream emitted: its EDR, its rate windows and the heart beats its tracker settled, over the last
:data:`CONTEXT_S` seconds, at every update (one home for the detection). A breath found there is
reported once, at the first update where it has settled:

* the emitted EDR reaches :data:`BREATH_SETTLE_S` beyond it (the trough after the slowest
  breath, 6 /min, and the next breath's rise: its prominence is then that of the whole record);
* the rate window whose centre is nearest it has been reported (its quality is the breath's);
* or, whatever the above, ``latency_bound_s - hop_s`` of stream time have passed since it (its
  estimated time can move a little from one update to the next as the EDR grows).

A breath after the first :data:`edr.signal.RATE_WINDOW_S` of the stream that the detector finds only
after its bound has passed (it was not there, or not settled, before) is not reported
(:attr:`StreamBreaths.n_late`): every breath reported meets the bound.

A pause needs both of its breaths judged by a rate window with a rate
(:func:`edr.breaths.judged_around`); the windows after the last one reported are still to come,
and a breath one of them would judge counts as judged (at :meth:`StreamBreaths.finish`, none is
to come): the window that judges the breath ending a pause is reported after that breath's bound.

Which extrema end inspiration is tested as offline (:func:`edr.polarity.decide_polarity`), but
only at fixed looks, each at its share of the level (:class:`edr.stream.polarity_looks.
SequentialPolarity`: a test repeated at every update would decide by chance), with the shape
pooled over all the stream's EDR; until a look decides, the breaths reported are marked
``uncertain_polarity``; once decided, the decision is kept for the rest of the stream (one
polarity per record, as offline).

Latency, in stream time: a breath at time ``t`` (end of inspiration) is reported by
``t + max(BREATH_SETTLE_S + delay_s, 1.5 RATE_STEP_S) + hop_s`` (:func:`latency_bound_s`: 26 s
with the stream's defaults): the EDR up to ``t + BREATH_SETTLE_S`` is out within
``delay_s + hop_s``, and the rate window centred within :data:`edr.signal.RATE_STEP_S` / 2
after ``t`` at its end, :data:`edr.signal.RATE_STEP_S` after its centre (within ``hop_s``). At
the stream's end (:meth:`StreamBreaths.finish`) the breaths not reported yet are. Its columns
are those of the offline breath CSV (:data:`edr.io.annotations.BREATH_COLUMNS`: ``time_s`` the
end of inspiration, ``onset_s`` the start of inspiration before it, as offline), found on the
last :data:`CONTEXT_S` of the stream's EDR instead of the whole record's offline EDR: close to
the offline breaths, not identical (measured: ``docs/studies/breath_detection.md``, tested in
``tests/edr/test_breath_outputs.py``).
"""

from __future__ import annotations

import numpy as np

from edr.breaths import Breaths, detect_breaths
from edr.signal import RATE_STEP_S, RATE_WINDOW_S
from edr.stream.engine import DEFAULT_DELAY_S, DEFAULT_HOP_S
from edr.stream.polarity_looks import SequentialPolarity

__all__ = ["BREATH_SETTLE_S", "CONTEXT_S", "StreamBreaths", "latency_bound_s"]

BREATH_SETTLE_S = 16.0
"""EDR (s) emitted beyond a breath before it is reported."""
CONTEXT_S = 240.0
"""EDR (s) the detector sees at each update: twice the span of the typical breath's depth
(:data:`edr.breaths.TYPICAL_SPAN_S`), so that a breath being reported has the whole of it
before it."""


def latency_bound_s(delay_s: float, hop_s: float) -> float:
    """Stream time (s) within which a breath is reported after its end of inspiration, for a
    stream of emission delay ``delay_s`` and update period ``hop_s`` (module docstring): the
    later of the EDR :data:`BREATH_SETTLE_S` past it and the rate window nearest it, plus one
    update.

    See Also
    --------
    StreamBreaths : reports every breath within this bound.
    edr.stream.engine.StreamingEDR : its ``delay_s`` and ``hop_s``.

    Examples
    --------
    >>> from edr.stream.breaths import latency_bound_s
    >>> latency_bound_s(8.0, 2.0)
    26.0
    """
    return float(max(BREATH_SETTLE_S + delay_s, RATE_STEP_S / 2 + RATE_STEP_S) + hop_s)


def _take(b: Breaths, keep: np.ndarray) -> Breaths:
    """The breaths of ``b`` where ``keep`` (pauses and withheld stretches left out)."""
    return Breaths(b.time[keep], b.interval[keep], b.quality[keep], b.low_quality[keep],
                   b.after_gap[keep], b.after_pause[keep], np.empty((0, 2)), np.empty((0, 2)),
                   b.sign, b.uncertain_polarity[keep], b.polarity, b.onset[keep])


class StreamBreaths:
    """Breaths from the updates of a stream, each reported once (module docstring).

    Parameters
    ----------
    fs_out : float
        The stream's EDR grid rate (Hz).
    delay_s, hop_s : float, default :data:`edr.stream.engine.DEFAULT_DELAY_S`, ``DEFAULT_HOP_S``
        The stream's emission delay and update period: the latency bound
        (:func:`latency_bound_s`).

    Attributes
    ----------
    n_reported, n_late : int
        Breaths reported so far; breaths found only after their bound, not reported.
    bound_s : float
        The latency bound (s).

    See Also
    --------
    edr.breaths.detect_breaths : the offline detector it runs on what the stream emitted.
    latency_bound_s : the stream time within which a breath is reported.
    edr.stream.sinks.StreamOutputs.write_breaths : writes the breaths reported.
    edr.stream.polarity_looks.SequentialPolarity : which extrema end inspiration.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.stream.breaths import StreamBreaths
    >>> from edr.stream.engine import StreamUpdate
    >>> t = np.arange(0, 200, 0.25)
    >>> x = np.exp(2 * np.sin(2 * np.pi * t / 4))  # 15 /min, sharp maxima at 1, 5, 9, ... s
    >>> sb, times, latency = StreamBreaths(4.0), [], []
    >>> for now in np.arange(32.0, 202.0, 2.0):  # an update every 2 s, the EDR 8 s behind
    ...     new = (t >= now - 10) & (t < now - 8) if now > 32 else t < now - 8
    ...     c = np.arange(16.0, 200.0, 16.0)
    ...     c = c[(c + 16 <= now) & (c + 16 > now - 2)]  # rate windows reported at their end
    ...     u = StreamUpdate(now, t[new], x[new], c, np.full(c.size, 15.0), np.full(c.size, 0.9))
    ...     b = sb.add(u, beat_times=np.arange(0, now - 8, 0.8))
    ...     times += b.time.tolist()
    ...     latency += (now - b.time[b.time >= 32]).tolist()
    >>> len(times) == sb.n_reported > 40, max(latency) <= sb.bound_s, sb.n_late
    (True, True, 0)
    """

    def __init__(self, fs_out: float, delay_s: float = DEFAULT_DELAY_S,
                 hop_s: float = DEFAULT_HOP_S):
        self.fs_out = float(fs_out)
        self.hop_s = float(hop_s)
        self.bound_s = latency_bound_s(delay_s, hop_s)
        self.n_late = 0
        self._time = np.empty(0)
        self._edr = np.empty(0)
        self._rates = np.empty((0, 3))  # centre, rate, quality
        self._beats = np.empty(0)
        self._last = -np.inf  # time of the last breath reported
        self._polarity = SequentialPolarity(self.fs_out)
        self.n_reported = 0

    def add(self, update, beat_times=()) -> Breaths:
        """Take one update (:class:`edr.stream.engine.StreamUpdate`) and the valid beats settled
        so far (stream time, s; those already given are skipped); return the breaths reported
        at it (possibly none).

        See Also
        --------
        finish : the breaths not reported yet, at the end of the stream.
        edr.stream.beats.BeatTracker.settled_times : the valid beats settled so far.
        """
        self._time = np.concatenate([self._time, np.asarray(update.edr_time, dtype=float)])
        self._edr = np.concatenate([self._edr, np.asarray(update.edr, dtype=float)])
        self._polarity.add_edr(update.edr)
        new = np.column_stack([update.rate_time, update.rate_bpm, update.quality]).reshape(-1, 3)
        self._rates = np.concatenate([self._rates, new.astype(float)])
        beats = np.asarray(beat_times, dtype=float)
        last_beat = self._beats[-1] if self._beats.size else -np.inf
        self._beats = np.concatenate([self._beats, np.sort(beats[beats > last_beat])])
        self._trim()
        now = float(update.time_s)
        ready = -np.inf if not self._rates.shape[0] else min(
            self._time[-1] - BREATH_SETTLE_S, self._rates[-1, 0] + RATE_STEP_S / 2)
        return self._report(max(ready, now - (self.bound_s - self.hop_s)), now)

    def finish(self, time_s: float) -> Breaths:
        """The breaths not reported yet, at the stream's end (stream time ``time_s``).

        See Also
        --------
        add : the breaths reported at each update.
        """
        return self._report(np.inf, float(time_s), final=True)

    def _trim(self) -> None:
        """Keep the last :data:`CONTEXT_S` of EDR, and the rate windows and beats of it."""
        if not self._time.size:
            return
        start = self._time[-1] - CONTEXT_S
        keep = self._time >= start
        self._time, self._edr = self._time[keep], self._edr[keep]
        self._rates = self._rates[self._rates[:, 0] >= start - RATE_WINDOW_S / 2]
        self._beats = self._beats[self._beats >= start - RATE_WINDOW_S / 2]

    def _report(self, ready: float, now: float, final: bool = False) -> Breaths:
        """The breaths found at stream time ``now`` after the last reported one and up to
        ``ready`` (s), those found only after their bound (after the first
        :data:`edr.signal.RATE_WINDOW_S`) left out and counted; ``final``: no rate window is to
        come."""
        found = self._detect(final)
        if found is None:
            return _take(_empty(), np.zeros(0, bool))
        keep = (found.time > self._last + 0.5 / self.fs_out) & (found.time <= ready)
        late = keep & (found.time >= RATE_WINDOW_S) & (now - found.time > self.bound_s)
        if late.any():
            self.n_late += int(late.sum())
            self._last = max(self._last, float(found.time[late].max()))
            keep &= ~late
        out = _take(found, keep)
        if len(out):
            self._last = float(out.time[-1])
            self.n_reported += len(out)
        return out

    def _detect(self, final: bool = False) -> Breaths | None:
        """:func:`edr.breaths.detect_breaths` of the kept EDR, rate windows and beats (None
        while there is less than one rate window of EDR or no rate window); the rate windows
        after the last reported one are still to come (unless ``final``): a breath they would
        judge counts as judged for the pauses (:func:`edr.breaths.judged_around`)."""
        from edr.pipeline import EDRResult

        if self._time.size / self.fs_out < RATE_WINDOW_S or not self._rates.shape[0]:
            return None
        t0 = self._time[0]
        rates = self._rates
        result = EDRResult(time=self._time - t0, waveform=self._edr, fs=self.fs_out,
                           beat_times=self._beats - t0, beat_values=np.empty(0),
                           rate_time=rates[:, 0] - t0, rate_bpm=rates[:, 1], method="stream",
                           lead="stream", sigma2=None, selection=None, windows=[], n_beats=0,
                           n_beats_dropped=0, params={}, rate_quality=rates[:, 2])
        pending = np.inf if final else rates[-1, 0] + RATE_STEP_S - t0
        decided = self._polarity.decide(result, final=final)
        b = detect_breaths(result, polarity="peaks" if decided.sign > 0 else "troughs",
                           rates_pending_from=pending)
        return Breaths(b.time + t0, b.interval, b.quality, b.low_quality, b.after_gap,
                       b.after_pause, b.pauses + t0, b.withheld + t0, b.sign,
                       np.full(b.time.size, not decided.confident), decided, b.onset + t0)


def _empty() -> Breaths:
    e = np.empty(0)
    return Breaths(e, e, e, e.astype(bool), e.astype(bool), e.astype(bool), np.empty((0, 2)),
                   np.empty((0, 2)), 1)
