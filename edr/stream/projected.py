"""The default method in a stream, by projection: :class:`ProjectedPath`.

Every :data:`REFIT_S` the span is analysed as offline and its fusion kept
(:class:`edr.stream.projection.FusionModel`). At each update the last :data:`PROJECTED_S` of every
lead (notched ECG with its tracked beats) is projected onto the current model, the sum
high-passed by the FIR :func:`edr.signal.fir_highpass` (reaching after a point the emission delay
less :data:`edr.stream.projection.SPLINE_MARGIN_S` and :data:`edr.stream.projection.PHASE_LAG_S`,
before it :data:`edr.stream.projection.HIGHPASS_PAST_S`: a point is emitted once the ECG after it
fills the filter), and the grid points up to the delay are
emitted, scaled, signed and shifted as fixed at the model's refit: unit standard deviation over
the span, the sign and shift that agree with the previous model's output over the same span (the
R amplitude's sign for the first model, or when the two models disagree;
:meth:`edr.stream.projection.Projector.refreshed`). Right after a refit the emitted points
cross-fade from the previous model's values to the new one's. Rates are judged as offline
(:func:`edr.rates.judged_rates`) from the band-passed sum of the last :data:`RATES_STRETCH_S`, its
panel and the beats of the model's lead there: no rate above what the beats carry
(:meth:`edr.rates.RateSpan.on_stretch`, :func:`edr.signal.carried_bpm`).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from edr.errors import SignalError
from edr.fusion import standardised
from edr.methods import Segment
from edr.rates import MAX_DROPPED_SHARE, RateSpan, judged_rates, window_starts
from edr.series_alignment import shifted
from edr.signal import RATE_WINDOW_S
from edr.stitch import masked_bandpass
from edr.stream.features import FeatureCache
from edr.stream.projection import SPLINE_MARGIN_S, FusionModel, Projector, first_index

__all__ = ["DETECT_S", "FILL_REFIT_GROWTH", "FILL_SELECT_GROWTH", "PROJECTED_S",
           "RATES_STRETCH_S", "REFIT_S", "ProjectedPath"]

REFIT_S = 30.0
"""Stream time (s) between two fits of the model on the span (at the stored σ² between
selections)."""
DETECT_S = 2.0
"""Stream time (s) between two beat detections (at least; also at every refit and at the end)."""
PROJECTED_S = 40.0
"""ECG (s) before the stream's end projected at each update: the emitted points with the
high-pass's reach before and after and the 30 s running median of the robust beat matrix
(:data:`edr.modulation.MORPHOLOGY_WINDOW_S`) behind them."""
FILL_REFIT_GROWTH = 1.25
"""While the span fills, the model is also fitted again once the span holds this many times the
ECG of the last fit, before :data:`REFIT_S` has passed (at 32, 40, 50, 64, 80, 100 s, ...): a model
fitted on the first half-minute is applied to the next one otherwise, each refit of a short span
costs little, and the sign and phase of the record are carried from model to model by their
agreement over the span, stronger between spans that differ less (chosen by
leave-one-subject-out: ``docs/studies/stream_design.md``)."""
FILL_SELECT_GROWTH = 4.0
"""While the span fills, a refit selects the kernel widths again once the span holds this many
times the ECG of the last selection: a σ² chosen on a few beats is chosen again once they have
grown (at 32 and 156 s of stream with the refits of :data:`FILL_REFIT_GROWTH`, and when the span
fills at 240 s; chosen by leave-one-subject-out among the schedules that keep the rates of a
beat-to-beat alternation: ``docs/studies/stream_design.md``)."""
RATES_STRETCH_S = 64.0
"""ECG (s) before the stream's end projected to judge the rate windows that end at an update:
the 32 s window with as much again before it for the band-pass and the running median of the
robust beat matrix."""


class ProjectedPath:
    """The model and emission state of a projected stream (module docstring).

    Parameters
    ----------
    engine : edr.stream.engine.StreamingEDR
        The stream whose ring buffer, beats, mains lines and kernel widths it reads (its
        ``delay_s``, ``fs_out`` and method's sign reference set the path's filter and sign).

    Raises
    ------
    ValueError
        ``engine.delay_s`` below :data:`edr.stream.projection.SPLINE_MARGIN_S`.
    """

    def __init__(self, engine):
        if engine.delay_s < SPLINE_MARGIN_S:
            raise ValueError(f"delay_s must be at least {SPLINE_MARGIN_S:g} s for the "
                             f"{engine.opts.method} stream (its filter needs ECG after a point), "
                             f"got {engine.delay_s:g}")
        self.engine = engine
        self.fs_out = engine.fs_out
        self.projector = Projector.of(engine.fs_out, engine.delay_s,
                                      engine.opts.spec.sign_reference is not None)
        self.model: FusionModel | None = None
        self._look = (1.0, 1.0, 0)  # (sign, scale, lag) of the current model's output
        self._prev = None  # (model, look) of the model before the last refit
        self._features = {name: FeatureCache() for name in engine.analysed}
        self._last_fit = self._last_detect = -math.inf
        self._selected_n = 0  # span samples at the last σ² selection
        self._fit_n = 0  # span samples at the last fit
        self.k_emit = 0
        self.rate_next = 0

    # ------------------------------------------------------------------ one update
    def update(self, final: bool):
        """One update: ``(edr_time, edr, rate_time, rate_bpm, quality, reselected, status)``."""
        eng = self.engine
        n = eng.n_samples
        t_end = n / eng.fs
        n_win = min(n, eng.ring.cap)
        due = eng.schedule_due(t_end, n_win)
        span = eng.ring.last(n_win)
        refit = due or self.model is None or t_end - self._last_fit >= REFIT_S - 1e-9 \
            or (not eng.span_filled and n_win >= FILL_REFIT_GROWTH * self._fit_n)
        detect = final or refit or t_end - self._last_detect >= DETECT_S - 1e-9
        tails = {name: eng.notched(name, span, int(round(RATES_STRETCH_S * eng.fs)), due)
                 for name in eng.analysed}
        if due:  # the notch may have changed the ECG the kept features were read from
            for cache in self._features.values():
                cache.clear()
        if detect:
            for name, tail in tails.items():
                eng.beats[name].advance(tail, n, n - n_win)
            self._last_detect = t_end
        reach = self.projector.past_n + self.projector.max_lag + 1  # the filter's and the shift's
        segments, errors = self._stretch(tails, PROJECTED_S, self.k_emit - reach)
        recent = functools.cache(lambda: self._stretch(tails, RATES_STRETCH_S)[0])
        status = "ok" if segments else "no analysis: " + "; ".join(errors)
        reselected = False
        if segments and refit:
            grown = not eng.span_filled and n_win >= FILL_SELECT_GROWTH * self._selected_n
            select = eng.kernel and (due or not eng.sigma2 or grown)
            fitted, reselected = self._refit(span, select)
            if reselected:
                self._selected_n = n_win
            status = fitted if self.model is None else status  # else the last model goes on
        rt, rb, rq = self.rates(recent, int(eng.grid_indices(n_win)[-1]))
        k, values = self.emit(segments, eng.emission_end(final), final)
        return k / eng.fs_out, values, rt, rb, rq, reselected, status

    def _stretch(self, tails: dict, seconds: float, k_from: int | None = None):
        """``(segments, errors)``: each lead's last ``seconds`` of ``tails`` (notched ECG ending
        at the stream's end) as a :class:`edr.methods.Segment` on the grid points it covers (from
        index ``k_from`` on, when given), with its tracked beats; the leads with too few beats
        give their error instead."""
        eng = self.engine
        n = eng.n_samples
        segments, errors = {}, []
        for name, tail in tails.items():
            m = min(tail.size, int(round(seconds * eng.fs)))
            x = tail[tail.size - m:]
            try:
                beats = eng.beats[name].since(n - m, int(np.isnan(x).sum()))
            except SignalError as exc:
                errors.append(f"{name}: {str(exc).splitlines()[0]}")
                continue
            k = eng.grid_indices(m)
            segments[name] = self._segment(name, x, n - m, beats,
                                           k if k_from is None else k[k >= min(k_from, k[-1])])
        return segments, errors

    def _segment(self, name: str, x: np.ndarray, start: int, beats, k: np.ndarray) -> Segment:
        """The segment of lead ``name``'s samples ``x`` from absolute sample ``start``, on the
        grid points ``k``, with the kept features of its settled beats
        (:class:`edr.stream.features.FeatureCache`)."""
        eng = self.engine
        return self._features[name].segment(x, eng.fs, start, beats, k / eng.fs_out, eng.fs_out,
                                            name, eng.beats[name].settled_before,
                                            eng.n_samples - eng.ring.cap)

    def _refit(self, span: np.ndarray, select: bool):
        """Analyse the span as offline (the kept features of its settled beats read, not
        computed again) and take its model, moved onto the previous model's sign and phase
        (:meth:`edr.stream.projection.Projector.refreshed`): ``(status, selected)``."""
        eng = self.engine
        n = eng.n_samples
        leads, beats = {}, {}
        for name in eng.analysed:
            try:
                beats[name] = eng.beats[name].since(n - span.shape[1])
            except SignalError:
                continue
            leads[name] = eng.notched(name, span, span.shape[1], False)
        if not leads:
            return "no analysis: no lead has enough beats", False
        t0 = (n - span.shape[1]) / eng.fs
        k = eng.grid_indices(span.shape[1])
        segments = {name: self._segment(name, leads[name], n - span.shape[1], beats[name], k)
                    for name in leads}
        wa, status = eng.analysis(leads, beats, k / eng.fs_out - t0, select,
                                  {name: seg.features for name, seg in segments.items()})
        if self.model is not None or wa is not None:
            self._last_fit = n / eng.fs  # a stream without a model tries at every update
            self._fit_n = span.shape[1]
        if wa is None:
            return status, False
        refreshed = self.projector.refreshed(wa, segments, self.model, self._look)
        if refreshed is not None:
            if self.model is not None:
                self._prev = (self.model, self._look)
            self.model, self._look = refreshed
        return "ok", select

    # ------------------------------------------------------------------ emission
    def emit(self, segments: dict, k_target: int, final: bool):
        """``(grid indices, values)`` of the points ``k_emit .. k_target - 1`` from the recent
        stretch of every lead (``segments``, one grid); ``final`` holds the stretch's ends for
        the filter instead of waiting for more ECG."""
        k = np.arange(self.k_emit, max(k_target, self.k_emit))
        values = np.full(k.size, np.nan)
        if self.model is not None and k.size and segments:
            ks = first_index(segments, self.fs_out)
            y, near = self.projector.output(self.model, self._look, segments, ks, final)
            if y is not None:
                values = self._take_points(y, near, ks, k)
                if self._prev is not None:
                    values = self._faded(values, segments, ks, k, final)
        self._prev = None
        self.k_emit = int(k[-1]) + 1 if k.size else self.k_emit
        return k, values

    @staticmethod
    def _take_points(y, near, ks: int, k):
        j = k - ks
        ok = (j >= 0) & (j < y.size)
        out = np.full(k.size, np.nan)
        out[ok] = np.where(near[j[ok]], y[j[ok]], np.nan)
        return out

    def _faded(self, values, segments, ks, k, final):
        """``values`` cross-faded from the previous model's over the points emitted now."""
        model, look = self._prev
        y, near = self.projector.output(model, look, segments, ks, final)
        if y is None or k.size == 0:
            return values
        old = self._take_points(y, near, ks, k)
        w = 0.5 - 0.5 * np.cos(np.pi * (np.arange(k.size) + 1) / (k.size + 1))
        both = np.isfinite(old) & np.isfinite(values)
        out = values.copy()
        out[both] = (1 - w[both]) * old[both] + w[both] * values[both]
        return out

    # ------------------------------------------------------------------ rates
    def rates(self, stretch, k_last: int):
        """Centres, judged rates and qualities of the rate windows ending by ``k_last``;
        ``stretch()`` gives the segments of the last :data:`RATES_STRETCH_S` of every lead."""
        starts = window_starts(k_last + 1, self.fs_out)[self.rate_next:]
        self.rate_next += starts.size
        if not starts.size:
            return np.empty(0), np.empty(0), np.empty(0)
        win, count, g0 = int(round(RATE_WINDOW_S * self.fs_out)), starts.size, int(starts[0])
        centres = (starts + win / 2) / self.fs_out
        nothing = (centres, np.full(count, np.nan), np.zeros(count))
        segments = stretch() if self.model is not None else {}
        if not segments or g0 < first_index(segments, self.fs_out):
            return nothing
        ks = first_index(segments, self.fs_out)
        panel = self.model.panel(segments)
        raw, near = self.projector.raw(self.model, segments, panel)
        if raw is None:
            return nothing
        sign, sd, lag = self._look
        bp = masked_bandpass(shifted(sign * raw / sd, lag), shifted(near, lag), self.fs_out)
        wave = bp[g0 - ks:int(starts[-1]) - ks + win]
        total = sum(self.model.weights[n] for n in panel)
        weights = {n: self.model.weights[n] / total for n in panel}
        seg = segments.get(self.model.anchor) or next(iter(segments.values()))
        span = RateSpan.on_stretch(ks - g0, raw.size,
                                   {n: standardised(v, self.fs_out) for n, v in panel.items()},
                                   weights, seg, self.fs_out)
        rates = judged_rates(wave, np.arange(wave.size) / self.fs_out, [span], self.fs_out)
        bpm = rates.rate_bpm[:count]
        if (~seg.valid).sum() > MAX_DROPPED_SHARE * seg.valid.size:
            bpm = np.full(count, np.nan)
        return centres, bpm, rates.quality[:count]
