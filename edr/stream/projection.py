"""The default method in a stream: a fusion model fitted now and then, new beats projected onto it.

A refresh analyses the stream's span as offline (:func:`edr.window_analysis.analyse_window` with
``kpca_fusion``) and keeps what the fusion learnt: :class:`FusionModel`, each lead's kernel PCA
(:class:`edr.methods.KernelFit`), the panel's weights and anchor, each series' sign and lag onto
the anchor (:func:`aligned_sum` on the span's panel) and its scale. Between refreshes
the beats of a recent stretch of every lead are projected onto the stored kernel PCA
(:func:`edr.methods.fusion_beat_series`), splined onto the grid and summed with the stored
weights, signs, lags and scales (:meth:`FusionModel.fused`): the linear combination the
refresh's fusion made of the span, with no window edge in it, except that the heart rate is added
by its shift and sign where the offline fusion rotates it (:data:`edr.fusion.HEART_PHASE`: a
rotation would need its all-pass filter carried across blocks; the two correlate above 0.99 on
a span, ``tests/edr/test_stream.py``). The sum is not band-passed here; the
stream's high-pass (:func:`edr.signal.fir_highpass`) is linear, so filtering the sum equals
summing the filtered series. Design and measurements: ``docs/design.md#8-streaming``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from edr.errors import SignalError
from edr.fusion import ALIGN_LAG_S, HEART_SERIES
from edr.methods import Segment, beat_series_on_grid, fusion_beat_series
from edr.rates import spectral_peak_rates
from edr.series_alignment import aligned_sum, shifted
from edr.signal import RATE_WINDOW_S, fir_highpass
from edr.stitch import MIN_ALIGN_POINTS, local_sign, near_used_beats

__all__ = ["ANCHOR_KEEP", "HIGHPASS_PAST_S", "KNOT_MARGIN_S", "MIN_MODEL_AGREEMENT", "PHASE_LAG_S",
           "SPLINE_MARGIN_S", "FusionModel", "Projector", "first_index", "supports"]

ANCHOR_KEEP = 0.5
"""A refresh keeps the previous model's anchor while it weighs at least this share of the
heaviest series: the panel's series follow the breathing with slightly different phases and
signs, and an anchor that changes with every small change of the weights changes the output's
phase and mix with it."""


PHASE_LAG_S = 1.0
"""Largest shift (s) by which a new model's output is moved onto the previous model's when the
refresh changed the fusion's anchor. Series of the panel follow the breathing with different
phases (a lead's R amplitude, another lead's kernel component); a new anchor would make the output
jump in phase, and the phase of an EDR must hold over the record for its coherence with the
breathing. The shift searched is also kept below a quarter of the breathing period (a half
period would pass for a change of sign); with the same anchor the previous shift is kept."""
MIN_MODEL_AGREEMENT = 0.3
"""Least correlation between a new model's output and the previous model's over the span for
the previous one to set the new one's sign and shift; below it the new model takes the sign of
the R amplitude (the method's sign reference), as the first model does."""
KNOT_MARGIN_S = 4.0
"""Beats within this many seconds before a stretch's first grid point still enter its splines
(a few beats, so that the not-a-knot end condition lies outside the grid); the earlier beats of
the stretch serve only the robust matrix's running median."""
HIGHPASS_PAST_S = 18.0
"""Reach (s) of the high-pass (:func:`edr.signal.fir_highpass`) into the grid points before an
emitted one (at least its reach after). The filter may wait for the emission delay only (less
:data:`SPLINE_MARGIN_S` and :data:`PHASE_LAG_S`: 6 s by default); reaching further before lets its
gain follow the offline band-pass's lower edge (0.05 Hz) where a zero-phase filter within the delay
would cut near 0.1 Hz, below which healthy people breathe in the shared records."""
SPLINE_MARGIN_S = 1.0
"""ECG (s) the high-pass leaves after its reach before the emission point's delay: the last beat
before the stream's end may be up to a beat interval old, and the spline holds beyond it."""


def supports(opts) -> bool:
    """Whether the options' method and lead mode stream by projection (``kpca_fusion`` on one
    lead or every lead fused); the others re-analyse their span at every update."""
    return opts.method == "kpca_fusion" and opts.lead_mode in (None, "fuse")


@dataclass(frozen=True)
class FusionModel:
    """A refresh's fusion, applied to the beats of later stretches.

    Attributes
    ----------
    fits : dict
        Lead name to :class:`edr.methods.KernelFit`.
    series : dict
        Panel name to ``(lead, series key of fusion_beat_series)``.
    weights, signs, lags, scales : dict
        Per panel name: fusion weight, sign and lag (grid samples) onto the anchor, and the
        standard deviation of the series' band-passed grid values over the span.
    anchor : str
        The lead whose beats carry the sign reference (the analysis' chosen lead).
    anchor_series : str
        The panel series the others were aligned to.
    """

    fits: dict
    series: dict
    weights: dict
    signs: dict
    lags: dict
    scales: dict
    anchor: str
    anchor_series: str

    @classmethod
    def of(cls, wa, fs_out: float, previous_anchor: str | None = None) -> FusionModel:
        """The model of a span analysed as ``wa`` (``kpca_fusion``). Its anchor is the analysis'
        unless ``previous_anchor`` (the previous model's) still weighs at least
        :data:`ANCHOR_KEEP` times as much as it (:data:`edr.fusion.HEART_SERIES` never)."""
        fits = dict(wa.lead_models)
        only = next(iter(fits)) if len(fits) == 1 else None
        series = {name: tuple(name.split("/", 1)) if "/" in name else (only, name)
                  for name in wa.panel}
        weights = {k: w for k, w in wa.weights.items() if series[k][0] in fits}
        best = wa.output.quality.get("best")
        anchor_name = best if best in weights else max(weights, key=weights.get)
        if previous_anchor in weights and previous_anchor.rsplit("/", 1)[-1] not in HEART_SERIES \
                and weights[previous_anchor] >= ANCHOR_KEEP * weights[anchor_name]:
            anchor_name = previous_anchor
        _, signs, lags = aligned_sum(wa.panel, weights, anchor_name,
                                     int(round(ALIGN_LAG_S * fs_out)))
        scales = {}
        for name, (lead, key) in series.items():
            sd = fits[lead].scales.get(key, 0.0) if lead in fits else 0.0
            scales[name] = sd if sd > 0 else 1.0
        return cls(fits, series, weights, signs, lags, scales, wa.segment.lead, anchor_name)

    def panel(self, segments: dict) -> dict:
        """Panel name to the series' values on the segments' grid (un-filtered), for the panel
        series the segments' beats give (a lead without a segment, or too few beats, gives
        none)."""
        grids = {lead: _grid_series(self.fits[lead], seg) for lead, seg in segments.items()
                 if lead in self.fits}
        out = {}
        for name, (lead, key) in self.series.items():
            y = grids.get(lead, {}).get(key)
            if y is not None and name in self.weights:
                out[name] = y
        return out

    def fused(self, panel: dict) -> np.ndarray | None:
        """``sum_k w_k s_k y_k(n - l_k) / scale_k`` over the series of ``panel``, weights
        renormalised over those present; None when none is."""
        total = sum(self.weights[k] for k in panel)
        if not panel or total <= 0:
            return None
        acc = 0.0
        for name, y in panel.items():
            y = (y - y.mean()) / self.scales[name]
            acc = acc + self.weights[name] * self.signs[name] * shifted(y, self.lags[name])
        return acc / total


def _grid_series(fit, seg: Segment) -> dict:
    """Series key to grid values of ``fusion_beat_series(seg, fit)`` from the beats within
    :data:`KNOT_MARGIN_S` before the segment's grid on (the robust matrix still over all of its
    beats); none when the segment has too few valid beats."""
    try:
        series = fusion_beat_series(seg, fit, since=seg.grid[0] - KNOT_MARGIN_S)
        return beat_series_on_grid(seg, series)
    except SignalError:
        return {}


@dataclass(frozen=True)
class Projector:
    """A model's output on a stretch of beats (:meth:`output`), and a new model's sign and shift
    onto the previous model's (:meth:`refreshed`), for a stream emitting with a given delay.

    Attributes
    ----------
    fs_out : float
        Grid rate (Hz).
    half_n, past_n : int
        Reach (grid points) of the high-pass :func:`edr.signal.fir_highpass` after and before a
        point.
    max_lag : int
        :data:`PHASE_LAG_S` in grid points.
    sign_reference : bool
        Whether the method has a sign reference (the R amplitude) for a model with no previous one.
    """

    fs_out: float
    half_n: int
    past_n: int
    max_lag: int
    sign_reference: bool

    @classmethod
    def of(cls, fs_out: float, delay_s: float, sign_reference: bool) -> Projector:
        """The projector of a stream emitting ``delay_s`` before its end: the high-pass reaches
        the delay less :data:`SPLINE_MARGIN_S` and :data:`PHASE_LAG_S`."""
        max_lag = int(round(PHASE_LAG_S * fs_out))
        half_n = max(int(math.floor((delay_s - SPLINE_MARGIN_S) * fs_out)) - max_lag, 1)
        past_n = max(half_n, int(round(HIGHPASS_PAST_S * fs_out)))
        return cls(float(fs_out), half_n, past_n, max_lag, bool(sign_reference))

    @staticmethod
    def raw(model: FusionModel, segments: dict, panel: dict | None = None):
        """(fused sum, near-a-used-beat mask) on the segments' shared grid, or (None, None);
        ``panel``: the model's panel of the segments, when already computed."""
        raw = model.fused(model.panel(segments) if panel is None else panel)
        if raw is None:
            return None, None
        used = [s.beat_times[s.valid] for n, s in segments.items() if n in model.fits]
        used = np.sort(np.concatenate(used)) if used else np.empty(0)
        grid = next(iter(segments.values())).grid
        near = near_used_beats(grid, used) if used.size else np.zeros(grid.size, dtype=bool)
        return raw, near

    def output(self, model: FusionModel, look: tuple, segments: dict, ks: int, final: bool):
        """(signed, scaled high-passed sum, near mask) on grid indices from ``ks`` (the segments'
        first), ends held where the stretch begins the record (or ``final``); ``look``:
        ``(sign, scale, lag)``."""
        raw, near = self.raw(model, segments)
        if raw is None:
            return None, None
        h, p = self.half_n, self.past_n
        front = p if ks == 0 else 0
        back = h if final else 0
        padded = np.concatenate([np.full(front, raw[0]), raw, np.full(back, raw[-1])])
        y = fir_highpass(padded, self.fs_out, p, h)
        sign, sd, lag = look
        lead = np.full(p - front, np.nan)
        y = np.concatenate([lead, sign * y / sd, np.full(h - back, np.nan)])
        return shifted(y, lag), shifted(near, lag)

    def refreshed(self, wa, segments: dict, model: FusionModel | None, look: tuple):
        """``(model, look)`` of the span analysed as ``wa`` (``segments``: its leads): its
        output's scale over the span and its sign and lag onto the previous ``model`` (whose
        ``look`` is given) over the same span (:meth:`alignment`); None when the span gives no
        output near a used beat."""
        new = FusionModel.of(wa, self.fs_out, model.anchor_series if model is not None else None)
        raw, near = self.raw(new, segments)
        h, p = self.half_n, self.past_n
        y = fir_highpass(raw, self.fs_out, p, h) if raw is not None else None
        if y is None or not near[p:near.size - h].any():
            return None
        sd = y[near[p:near.size - h]].std()
        sd = sd if sd > 0 else 1.0
        y = np.concatenate([np.full(p, np.nan), y / sd, np.full(h, np.nan)])
        aligned = None
        if model is not None:
            same = model.anchor_series == new.anchor_series
            old, _ = self.output(model, look, segments, first_index(segments, self.fs_out),
                                 final=False)
            aligned = self.alignment(y, old, look[2] if same else None)
        if aligned is None:  # the first model, or one unlike the previous: the reference's sign
            seg = segments.get(new.anchor)
            sign = local_sign(seg, seg.grid, np.nan_to_num(y)) \
                if self.sign_reference and seg is not None else 1.0
            aligned = (sign, look[2])
        return new, (aligned[0], sd, aligned[1])

    def alignment(self, y, old, lag: int | None = None) -> tuple[float, int] | None:
        """``(sign, lag)`` moving a new model's output ``y`` onto the previous model's ``old``
        (both over the span, NaN where undefined): the shift (``lag`` when given, else searched
        within :data:`PHASE_LAG_S` and a quarter of ``y``'s breathing period) and the sign
        maximising their inner product; None when they share fewer than
        :data:`edr.stitch.MIN_ALIGN_POINTS` points or correlate less than
        :data:`MIN_MODEL_AGREEMENT` at that shift (the two models then follow different things
        and the previous one cannot vouch for the new one's sign)."""
        both = np.isfinite(y) & np.isfinite(old)
        if both.sum() < MIN_ALIGN_POINTS:
            return None
        z = np.where(both, y, 0.0)
        past = np.where(both, old, 0.0)
        bound = min(self.max_lag, _quarter_period(np.nan_to_num(y), self.fs_out))
        lags = [lag] if lag is not None else sorted(range(-bound, bound + 1), key=abs)
        c = [float(np.dot(shifted(z, k), past)) for k in lags]
        best = int(np.argmax(np.abs(c)))
        norm = float(np.linalg.norm(z) * np.linalg.norm(past))
        if norm <= 0 or abs(c[best]) < MIN_MODEL_AGREEMENT * norm:
            return None
        return (-1.0 if c[best] < 0 else 1.0), lags[best]


def first_index(segments: dict, fs_out: float) -> int:
    """Grid index of the segments' first grid point."""
    return int(round(next(iter(segments.values())).grid[0] * fs_out))


def _quarter_period(y: np.ndarray, fs_out: float) -> int:
    """A quarter of ``y``'s breathing period in grid samples (rounded down): from the median
    spectral-peak rate of its :data:`edr.signal.RATE_WINDOW_S` windows (half-overlapping); 0 when
    ``y`` is shorter than one window or has no rate."""
    win = int(round(RATE_WINDOW_S * fs_out))
    if y.size < win:
        return 0
    rates = spectral_peak_rates(y, np.arange(0, y.size - win + 1, win // 2), fs_out)
    rate = np.nanmedian(rates) if np.isfinite(rates).any() else np.nan
    return int(60.0 / rate * fs_out / 4) if np.isfinite(rate) and rate > 0 else 0

