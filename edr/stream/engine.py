"""The streaming engine: :class:`StreamingEDR`, the offline per-window analysis on a ring buffer.

Every :data:`DEFAULT_HOP_S` seconds of stream (stream time = samples pushed / ``fs``) the
engine takes the last ``span_s`` seconds of every ECG channel, removes the mains line
(:func:`edr.signal.notch_mains`) and analyses them as the offline pipeline analyses one window
(:func:`edr.windows.analyse_window`: the method on every lead, the lead fusion, the evidence
panel and its weights), with the beats detected incrementally, on the newest samples only
(:class:`edr.stream.beats.BeatTracker`). The window's grid series is standardised
over its grid points near a used beat and sign-aligned with the EDR already written, as
:class:`edr.stitch.Stitcher` does; the points not yet emitted take the new window's values,
which see the most ECG after them (a raised-cosine cross-fade from the previous window's over
the :data:`FADE_S` after the emission point keeps the stitched series continuous); the trailing
:data:`BANDPASS_S` seconds are band-passed as offline (:func:`edr.stitch.masked_bandpass`)
and the grid points up to ``delay_s`` before the stream's end are emitted (NaN farther than
:data:`edr.stitch.MAX_GAP_S` from a used beat, as offline).
Each 32 s rate window (every 16 s, :func:`edr.rates.rate_series`'s windows) is reported at the
first update at or after its end, judged by the panel of that update's analysis
(:func:`edr.rates.judged_rates`) and withheld, as offline, below
:data:`edr.rates.QUALITY_THRESHOLD` or when more than :data:`edr.rates.MAX_DROPPED_SHARE` of
the window's beats were dropped.

Kernel widths and mains lines: each lead's σ² is selected by the criterion, and its mains line
found (:func:`edr.signal.mains_frequency`), at the first update, when the span first fills and
every :data:`RESELECT_S` seconds after; the updates in between analyse each lead at its stored
σ² (a lead without one, e.g. unusable at the last selection, selects its own) and notch its
stored line. Latency, in stream time: an EDR sample for time ``t`` is emitted by the first update
at or after ``t + delay_s``, so within ``delay_s + hop_s``; a rate window's rate at its end
when ``hop_s`` divides :data:`edr.signal.RATE_STEP_S` (else within ``hop_s``). Memory is
bounded by ``span_s``. Design and measurements: ``docs/design.md#8-streaming``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from edr.errors import SignalError
from edr.methods import DEFAULT_SIGMA2, Segment
from edr.options import DEFAULT_METHOD, DEFAULT_MULTI_LEAD, EDROptions
from edr.rates import MAX_DROPPED_SHARE, RateSpan, judged_rates
from edr.signal import FS_RANGE, RATE_STEP_S, SEGMENT_S, mains_frequency, notch_mains
from edr.stitch import masked_bandpass, standardised_window, window_sign
from edr.stream.beats import TAIL_S, BeatTracker
from edr.stream.projected import RATES_STRETCH_S, ProjectedPath
from edr.stream.projection import supports
from edr.windows import Window, analyse_window

__all__ = ["BANDPASS_S", "DEFAULT_DELAY_S", "DEFAULT_HOP_S", "DEFAULT_SPAN_S", "FADE_S",
           "REFIT_S", "RESELECT_S", "WARMUP_S", "StreamUpdate", "StreamingEDR"]

DEFAULT_SPAN_S = 240.0
"""Analysis window (s): the ring buffer of ECG each update analyses."""
DEFAULT_HOP_S = 2.0
"""Stream time (s) between updates; divides :data:`edr.signal.RATE_STEP_S` so that every rate
window ends on an update. Each update's stretch of EDR comes from a newer window than the
previous stretch, so the stitched series can step every ``hop_s``: a short hop keeps that
period below most breathing cycles."""
DEFAULT_DELAY_S = 8.0
"""EDR is emitted up to this many seconds before the stream's end (with :data:`DEFAULT_HOP_S`,
every sample within 10 s): the window's series is least reliable near its end."""
WARMUP_S = SEGMENT_S
"""Stream time (s) before the first update: one rate window."""
RESELECT_S = 120.0
"""Stream time (s) between two σ² selections (and mains-line searches) once the span has
filled."""
REFIT_S = 30.0
"""Stream time (s) between two fits of a projected stream's model on the span (at the stored
σ², :mod:`edr.stream.projection`)."""
DETECT_S = 2.0
"""Stream time (s) between two beat detections of a projected stream (at least; also at every
refit and at the end)."""
BANDPASS_S = 240.0
"""Trailing stitched EDR (s) band-passed at each update."""
FADE_S = 1.5
"""Raised-cosine ramp (s) after the emission point over which a new window's values take over
from the previous window's; beyond it the newest window's values stand."""


@dataclass(frozen=True)
class StreamUpdate:
    """What one update adds.

    Attributes
    ----------
    time_s : float
        Stream time (s) of the update: samples pushed so far / ``fs``.
    edr_time, edr : ndarray
        The new EDR samples: grid times (s, ``k / fs_out``) and values (NaN where masked).
    rate_time, rate_bpm, quality : ndarray
        The rate windows completed since the previous update: centres (s), rates
        (breaths/min; NaN where withheld or masked) and qualities (0-1).
    sigma2 : dict
        Kernel width in use per lead (kernel methods; empty otherwise).
    reselected : bool
        Whether the kernel widths were selected at this update.
    status : str
        "ok", or why the update's window gave no analysis (its EDR is then masked).
    """

    time_s: float
    edr_time: np.ndarray
    edr: np.ndarray
    rate_time: np.ndarray
    rate_bpm: np.ndarray
    quality: np.ndarray
    sigma2: dict = field(default_factory=dict)
    reselected: bool = False
    status: str = "ok"


class _Ring:
    """The last ``capacity`` samples of ``n_channels`` unbounded streams (circular buffer)."""

    def __init__(self, n_channels: int, capacity: int):
        self.buf = np.zeros((n_channels, capacity))
        self.cap = capacity
        self.n_total = 0

    def append(self, x: np.ndarray) -> None:
        """Append ``x`` of shape (n_channels, n)."""
        x = x[:, -self.cap:]
        n = x.shape[1]
        i = self.n_total % self.cap
        k = min(n, self.cap - i)
        self.buf[:, i:i + k] = x[:, :k]
        self.buf[:, :n - k] = x[:, k:]
        self.n_total += n

    def last(self, n: int) -> np.ndarray:
        """The last ``n`` samples (at most the capacity), shape (n_channels, n)."""
        n = min(n, self.cap, self.n_total)
        i = self.n_total % self.cap
        if n <= i:
            return self.buf[:, i - n:i].copy()
        return np.concatenate([self.buf[:, self.cap - (n - i):], self.buf[:, :i]], axis=1)


class StreamingEDR:
    """Incremental EDR from a stream of ECG samples, one or several channels (see the module
    docstring).

    Parameters
    ----------
    fs : float
        ECG sampling rate (Hz), within :data:`edr.signal.FS_RANGE`.
    leads : sequence of str, default ("ECG",)
        Channel names, in the order of the rows pushed. With several, ``lead=None`` fuses them
        all (:data:`edr.options.DEFAULT_MULTI_LEAD`), as offline.
    method : str, default :data:`edr.options.DEFAULT_METHOD`
        Key of :data:`edr.methods.METHODS`.
    sigma2 : float or str, default :data:`edr.methods.DEFAULT_SIGMA2`
        Kernel width, or the :mod:`kpca.selection` criterion run on the schedule above.
    lead : str, optional
        As :func:`edr.pipeline.extract_edr`'s ``lead``: a channel name or a mode of
        :data:`edr.options.LEAD_MODES`.
    span_s, hop_s, delay_s : float
        Analysis window, update period and emission delay (s).
    reselect_s : float, default :data:`RESELECT_S`
    fs_out : float, default :data:`edr.signal.GRID_FS`
    random_state : int, default 0
        Passed to the method (its σ² criterion): deterministic output.
    **method_options
        Further options of the method, as offline.

    Raises
    ------
    SignalError
        ``fs`` outside the supported range.
    ValueError
        Unknown method or lead, bad options, spans (``span_s < WARMUP_S``, ``hop_s <= 0``,
        ``delay_s`` outside ``[0, span_s / 2]``).
    """

    def __init__(self, fs: float, *, leads=("ECG",), method: str = DEFAULT_METHOD,
                 sigma2=DEFAULT_SIGMA2, lead: str | None = None, span_s: float = DEFAULT_SPAN_S,
                 hop_s: float = DEFAULT_HOP_S, delay_s: float = DEFAULT_DELAY_S,
                 reselect_s: float = RESELECT_S, fs_out: float | None = None,
                 random_state: int = 0, **method_options):
        fs = float(fs)
        if not (FS_RANGE[0] <= fs <= FS_RANGE[1]):
            raise SignalError(f"fs={fs:g} Hz is outside {FS_RANGE[0]:g}-{FS_RANGE[1]:g} Hz")
        self.leads = [str(n) for n in leads]
        if not self.leads or len(set(self.leads)) != len(self.leads):
            raise ValueError(f"leads must be distinct names, got {list(leads)!r}")
        if lead is None and len(self.leads) > 1:
            lead = DEFAULT_MULTI_LEAD
        extra = {} if fs_out is None else {"fs_out": fs_out}
        self.opts = EDROptions(method=method, sigma2=sigma2, lead=lead, random_state=random_state,
                               method_options=method_options, **extra)
        if self.opts.lead_mode is None:
            self._lead = self._lead_name(lead)
        for name, value, low in (("span_s", span_s, WARMUP_S), ("hop_s", hop_s, 0.0),
                                 ("reselect_s", reselect_s, 0.0)):
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > low):
                raise ValueError(f"{name} must be a number of seconds > {low:g}, got {value!r}")
        if not (isinstance(delay_s, (int, float)) and 0 <= delay_s <= span_s / 2):
            raise ValueError(f"delay_s must be in [0, span_s / 2], got {delay_s!r}")
        self.fs, self.fs_out = fs, self.opts.fs_out
        self.span_s, self.hop_s, self.delay_s = float(span_s), float(hop_s), float(delay_s)
        self.reselect_s = float(reselect_s)
        self._kernel = self.opts.spec.uses_sigma2 and not isinstance(sigma2, (int, float))
        self._ring = _Ring(len(self.leads), int(round(self.span_s * fs)))
        self._beats = {name: BeatTracker(fs) for name in self.leads}
        self._hist_n = int(round(BANDPASS_S * self.fs_out))
        self._raw = np.zeros(self._hist_n)  # stitched, not band-passed, grid points < _k_emit
        self._covered = np.zeros(self._hist_n, dtype=bool)
        self._k_emit = 0  # next grid index to emit
        self._prev = None  # previous window: (first grid index, standardised series, near-beat)
        self._rate_next = 0  # index of the next rate window to report
        self._j = int(math.ceil(WARMUP_S / self.hop_s - 1e-9))  # next update: time j * hop_s
        self._sigma2: dict = {}
        self._last_schedule = -math.inf
        self._mains: dict = {}
        self._span_filled = False
        self._projected = ProjectedPath(self.fs_out, self.delay_s,
                                        self.opts.spec.sign_reference is not None) \
            if supports(self.opts) else None
        self._last_fit = self._last_detect = -math.inf
        self.n_updates = self.n_selections = 0

    def _lead_name(self, lead) -> str:
        if lead is None:
            return self.leads[0]
        for name in self.leads:
            if name.lower() == str(lead).strip().lower():
                return name
        raise ValueError(f"lead {lead!r} is not among the stream's channels {self.leads}")

    @property
    def n_samples(self) -> int:
        """Samples per channel pushed so far."""
        return self._ring.n_total

    def push(self, block) -> list[StreamUpdate]:
        """Append samples and run the updates they complete.

        Parameters
        ----------
        block : array_like, shape (n,) or (n, n_channels)
            New samples (one row per instant, one column per channel; NaN allowed).

        Returns
        -------
        list of StreamUpdate
        """
        x = np.asarray(block, dtype=float)
        if x.ndim == 1 and len(self.leads) == 1:
            x = x[:, None]
        if x.ndim != 2 or x.shape[1] != len(self.leads):
            raise ValueError(f"block must have shape (n, {len(self.leads)}), got {x.shape}")
        out = []
        start = 0
        while start < x.shape[0]:
            due = int(math.ceil(self._j * self.hop_s * self.fs - 1e-9))
            take = min(x.shape[0] - start, max(due - self.n_samples, 0))
            self._ring.append(x[start:start + take].T)
            start += take
            if self.n_samples >= due:
                out.append(self._update(final=False))
                self._j += 1
        return out

    def flush(self) -> list[StreamUpdate]:
        """End of the stream: one last update emitting every remaining grid point."""
        n_grid = int(math.floor(self.n_samples / self.fs * self.fs_out + 1e-9))
        if self._k_emit >= n_grid or self.n_samples / self.fs < WARMUP_S:
            return []
        return [self._update(final=True)]

    # ------------------------------------------------------------------ one update
    def _update(self, final: bool) -> StreamUpdate:
        if self._projected is not None:
            return self._update_projected(final)
        n = self.n_samples
        t_end = n / self.fs
        n_win = min(n, self._ring.cap)
        t0 = (n - n_win) / self.fs
        k0 = int(math.ceil(t0 * self.fs_out - 1e-9))
        k_last = int(math.floor((n - 1) / self.fs * self.fs_out + 1e-9))
        grid = np.arange(k0, k_last + 1) / self.fs_out - t0
        due = self._schedule_due(t_end, n_win)
        select = self._kernel and (due or not self._sigma2)
        wa, status = self._analyse(n_win, grid, select, due)
        reselected = wa is not None and select
        if wa is not None:
            self._write(wa, k0, grid)
        n_grid = int(math.floor(t_end * self.fs_out + 1e-9))
        k_target = n_grid if final else min(int(math.floor((t_end - self.delay_s) * self.fs_out
                                                           + 1e-9)) + 1, n_grid)
        wave, covered, kb = self._stitched(k_last + 1)
        bp = masked_bandpass(wave, covered, self.fs_out)
        rt, rb, rq = self._rates(bp, kb, k_last, wa, k0)
        k_emit = self._k_emit
        k_target = max(k_target, k_emit)
        emitted = bp[k_emit - kb:k_target - kb]
        self._freeze(wave[k_emit - kb:k_target - kb], covered[k_emit - kb:k_target - kb])
        self.n_updates += 1
        return StreamUpdate(t_end, np.arange(k_emit, k_target) / self.fs_out, emitted, rt, rb, rq,
                            dict(self._sigma2), reselected, status)

    def _update_projected(self, final: bool) -> StreamUpdate:
        """One update of a projected stream (:mod:`edr.stream.projected`)."""
        path = self._projected
        n = self.n_samples
        t_end = n / self.fs
        n_win = min(n, self._ring.cap)
        due = self._schedule_due(t_end, n_win)
        names = self.leads if self.opts.lead_mode is not None else [self._lead]
        span = self._ring.last(n_win)
        detect = final or due or t_end - self._last_detect >= DETECT_S - 1e-9 \
            or t_end - self._last_fit >= REFIT_S - 1e-9
        tails = {}
        for name in names:
            row = span[self.leads.index(name)]
            if due or name not in self._mains:
                self._mains[name] = mains_frequency(row, self.fs)
            m = min(row.size, int(round(RATES_STRETCH_S * self.fs)))
            tails[name] = notch_mains(row[row.size - m:], self.fs, self._mains[name])
            if detect:
                self._beats[name].advance(tails[name], n, n - n_win)
        if detect:
            self._last_detect = t_end
        segments, errors = self._stretch(tails, TAIL_S)
        recent = functools.cache(lambda: self._stretch(tails, RATES_STRETCH_S)[0])
        status = "ok" if segments else "no analysis: " + "; ".join(errors)
        reselected = False
        if segments and (due or path.model is None
                         or t_end - self._last_fit >= REFIT_S - 1e-9):
            select = self._kernel and (due or not self._sigma2 or not self._span_filled)
            status, reselected = self._refit(span, names, select)
        n_grid = int(math.floor(t_end * self.fs_out + 1e-9))
        k_target = n_grid if final else min(int(math.floor((t_end - self.delay_s) * self.fs_out
                                                           + 1e-9)) + 1, n_grid)
        k_last = int(math.floor((n - 1) / self.fs * self.fs_out + 1e-9))
        rt, rb, rq = path.rates(recent, k_last)
        k, values = path.emit(segments, k_target, final)
        self.n_updates += 1
        return StreamUpdate(t_end, k / self.fs_out, values, rt, rb, rq, dict(self._sigma2),
                            reselected, status)

    def _stretch(self, tails: dict, seconds: float):
        """``(segments, errors)``: each lead's last ``seconds`` of ``tails`` (notched ECG ending
        at the stream's end) as a :class:`edr.methods.Segment` on the grid points it covers, with
        its tracked beats; the leads with too few beats give their error instead."""
        n = self.n_samples
        segments, errors = {}, []
        for name, tail in tails.items():
            m = min(tail.size, int(round(seconds * self.fs)))
            t0 = (n - m) / self.fs
            ks = int(math.ceil(t0 * self.fs_out - 1e-9))
            k_last = int(math.floor((n - 1) / self.fs * self.fs_out + 1e-9))
            x = tail[tail.size - m:]
            try:
                beats = self._beats[name].since(n - m, int(np.isnan(x).sum()))
            except SignalError as exc:
                errors.append(f"{name}: {str(exc).splitlines()[0]}")
                continue
            segments[name] = Segment(x, self.fs, t0, beats, np.arange(ks, k_last + 1)
                                     / self.fs_out, self.fs_out, name)
        return segments, errors

    def _refit(self, span: np.ndarray, names, select: bool):
        """Analyse the span as offline and refresh the projected model: ``(status, selected)``."""
        n = self.n_samples
        leads, beats = {}, {}
        for name in names:
            try:
                beats[name] = self._beats[name].since(n - span.shape[1])
            except SignalError:
                continue
            leads[name] = notch_mains(span[self.leads.index(name)], self.fs, self._mains[name])
        t0 = (n - span.shape[1]) / self.fs
        k0 = int(math.ceil(t0 * self.fs_out - 1e-9))
        k_last = int(math.floor((n - 1) / self.fs * self.fs_out + 1e-9))
        grid = np.arange(k0, k_last + 1) / self.fs_out
        if not leads:
            return "no analysis: no lead has enough beats", False
        try:
            wa = analyse_window(Window(0.0, span.shape[1] / self.fs), leads, self.fs, grid - t0,
                                self.opts, sigma2=None if select else self._sigma2, beats=beats)
        except SignalError as exc:
            return f"no analysis: {str(exc).splitlines()[0]}", False
        if self._kernel:
            if select:
                self._sigma2 = {}
                self.n_selections += 1
            self._sigma2.update(wa.lead_sigma2)
        self._projected.refresh(wa, {name: Segment(leads[name], self.fs, t0, beats[name], grid,
                                                   self.fs_out, name) for name in leads})
        self._last_fit = n / self.fs
        return "ok", select

    def _schedule_due(self, t_end: float, n_win: int) -> bool:
        """Whether the mains lines and kernel widths are chosen again at this update."""
        filled = n_win >= self._ring.cap and not self._span_filled
        if filled:
            self._span_filled = True
        due = filled or t_end - self._last_schedule >= self.reselect_s - 1e-9
        if due:
            self._last_schedule = t_end
        return due

    def _analyse(self, n_win: int, grid: np.ndarray, select: bool, due: bool):
        """``(WindowAnalysis or None, status)`` of the last ``n_win`` samples."""
        x = self._ring.last(n_win)
        if self.opts.lead_mode is None:
            names = [self._lead]
            x = x[[self.leads.index(self._lead)]]
        else:
            names = self.leads
        leads, beats, errors = {}, {}, []
        for name, row in zip(names, x, strict=True):
            if due or name not in self._mains:
                self._mains[name] = mains_frequency(row, self.fs)
            row = notch_mains(row, self.fs, self._mains[name])
            try:
                beats[name] = self._beats[name].update(row, self.n_samples)
            except SignalError as exc:
                errors.append(f"{name}: {str(exc).splitlines()[0]}")
                continue
            leads[name] = row
        if not leads:
            return None, "no analysis: " + "; ".join(errors)
        try:
            wa = analyse_window(Window(0.0, n_win / self.fs), leads, self.fs, grid, self.opts,
                                sigma2=None if select else self._sigma2, beats=beats)
        except SignalError as exc:
            return None, f"no analysis: {str(exc).splitlines()[0]}"
        if self._kernel:
            if select:
                self._sigma2 = {}
                self.n_selections += 1
            self._sigma2.update(wa.lead_sigma2)
        return wa, "ok"

    def _write(self, wa, k0: int, grid: np.ndarray) -> None:
        """Standardise and sign-align the window's series (as :class:`edr.stitch.Stitcher`) and
        keep it as the values of the grid points not yet emitted."""
        gm = wa.grid_mask
        tg = grid[gm]
        kw = k0 + np.flatnonzero(gm)
        seg = wa.segment
        z, ok, _, _ = standardised_window(wa, tg)
        if not ok.any():
            return
        written, have = self._written(kw)
        z *= window_sign(z, written, have & ok, seg, tg, self.opts.spec.sign_reference is not None)
        self._prev = (int(kw[0]), z, ok) if self._prev is None else self._faded(kw, z, ok)

    def _written(self, kw):
        """Stitched values already held at the grid indices ``kw`` and whether there are any."""
        vals = np.zeros(kw.size)
        have = np.zeros(kw.size, dtype=bool)
        k_hist = self._k_emit - self._hist_n
        h = (kw >= k_hist) & (kw < self._k_emit)
        vals[h] = self._raw[kw[h] - k_hist]
        have[h] = self._covered[kw[h] - k_hist]
        if self._prev is not None:
            p0, pz, pok = self._prev
            j = kw - p0
            p = (kw >= self._k_emit) & (j >= 0) & (j < pz.size)
            vals[p] = pz[j[p]]
            have[p] = pok[j[p]]
        return vals, have

    def _faded(self, kw, z, ok):
        """The new window's values, cross-faded from the previous window's over the
        :data:`FADE_S` after the emission point (where both cover a grid point)."""
        p0, pz, pok = self._prev
        j = kw - p0
        shared = (kw >= self._k_emit) & (j < pz.size) & ok
        shared[shared] &= pok[j[shared]]
        if shared.any():
            ramp_n = max(int(round(FADE_S * self.fs_out)), 1)
            r = np.clip((kw[shared] - self._k_emit + 1) / (ramp_n + 1), 0.0, 1.0)
            w = 0.5 - 0.5 * np.cos(np.pi * r)
            z = z.copy()
            z[shared] = (1 - w) * pz[j[shared]] + w * z[shared]
        return int(kw[0]), z, ok

    def _stitched(self, k_end: int):
        """(values, covered, first grid index) of the stitched EDR over the band-pass buffer:
        the emitted history then the held values of the points up to ``k_end``."""
        kb = self._k_emit - self._hist_n
        n = k_end - kb
        wave = np.zeros(n)
        covered = np.zeros(n, dtype=bool)
        wave[:self._hist_n] = self._raw
        covered[:self._hist_n] = self._covered
        if self._prev is not None:
            p0, pz, pok = self._prev
            k = np.arange(max(self._k_emit, p0), min(k_end, p0 + pz.size))
            wave[k - kb] = pz[k - p0]
            covered[k - kb] = pok[k - p0]
        start = max(0, -kb)  # grid indices before 0 do not exist
        return wave[start:], covered[start:], kb + start

    def _rates(self, bp, kb: int, k_last: int, wa, k0: int):
        """Centres, judged rates and qualities of the rate windows that end by ``k_last``."""
        win = int(round(SEGMENT_S * self.fs_out))
        step = int(round(RATE_STEP_S * self.fs_out))
        first = self._rate_next
        count = max((k_last + 1 - win) // step + 1 - first, 0)
        self._rate_next += count
        if count == 0:
            return np.empty(0), np.empty(0), np.empty(0)
        g0 = first * step
        centres = (g0 + np.arange(count) * step + win / 2) / self.fs_out
        if g0 < kb or wa is None:  # before the buffer (a long silence), or no analysis
            return centres, np.full(count, np.nan), np.zeros(count)
        wave = bp[g0 - kb:g0 - kb + (count - 1) * step + win]
        idx = np.flatnonzero(wa.grid_mask)
        a = k0 + int(idx[0]) - g0  # the panel's first point in ``wave``'s indices
        span = RateSpan(a, a + idx.size - 1, (-math.inf, math.inf),
                        wa.panel, wa.weights)
        rates = judged_rates(wave, np.arange(wave.size) / self.fs_out, [span], self.fs_out)
        bpm = rates.rate_bpm[:count]
        seg = wa.segment
        if (~seg.valid).sum() > MAX_DROPPED_SHARE * seg.valid.size:
            bpm = np.full(count, np.nan)
        return centres, bpm, rates.quality[:count]

    def _freeze(self, raw, covered) -> None:
        """Move the emitted points into the history (the last :data:`BANDPASS_S` seconds)."""
        m = raw.size
        if m == 0:
            return
        if m >= self._hist_n:
            self._raw, self._covered = raw[-self._hist_n:].copy(), covered[-self._hist_n:].copy()
        else:
            self._raw = np.concatenate([self._raw[m:], raw])
            self._covered = np.concatenate([self._covered[m:], covered])
        self._k_emit += m
        if self._prev is not None and self._prev[0] + self._prev[1].size <= self._k_emit:
            self._prev = None
