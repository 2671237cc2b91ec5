"""The default method in a stream: a fusion model fitted now and then, new beats projected onto it.

A refresh analyses the stream's span as offline (:func:`edr.windows.analyse_window` with
``kpca_fusion``) and keeps what the fusion learnt: :class:`FusionModel`, each lead's kernel PCA
(:class:`edr.methods.KernelFit`), the panel's weights and anchor, each series' sign and lag onto
the anchor (:func:`edr.fusion.aligned_sum` on the span's panel) and its scale. Between refreshes
the beats of a recent stretch of every lead are projected onto the stored kernel PCA
(:func:`edr.methods.fusion_beat_series`), splined onto the grid and summed with the stored
weights, signs, lags and scales (:meth:`FusionModel.fused`): the same linear combination the
refresh's fusion made of the span, with no window edge in it. The sum is not band-passed here; the
stream's zero-phase high-pass (:func:`local_mean_removed`) is linear, so filtering the sum equals
summing the filtered series. Design and measurements: ``docs/design.md#8-streaming``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from edr.fusion import ALIGN_LAG_S, HEART_SERIES, aligned_sum, shifted
from edr.methods import Segment, beat_series_on_grid, fusion_beat_series

__all__ = ["ANCHOR_KEEP", "FusionModel", "local_mean_removed", "supports"]

ANCHOR_KEEP = 0.5
"""A refresh keeps the previous model's anchor while it weighs at least this share of the
heaviest series: the panel's series follow the breathing with slightly different phases and
signs, and an anchor that changes with every small change of the weights changes the output's
phase and mix with it."""


def supports(opts) -> bool:
    """Whether the options' method and lead mode stream by projection (``kpca_fusion`` on one
    lead or every lead fused); the others re-analyse their span at every update."""
    return opts.method == "kpca_fusion" and opts.lead_mode in (None, "fuse")


def local_mean_removed(x: np.ndarray, half_n: int) -> np.ndarray:
    """``x`` minus its Hann-weighted mean over the ``half_n`` points either side (a zero-phase FIR
    high-pass with no gain at 0 Hz; about 0.8 at ``fs / (2.6 half_n)``), on the points with
    ``half_n`` neighbours on both sides: the output is ``2 half_n`` points shorter."""
    if x.size <= 2 * half_n:
        return x[:0]
    w = np.hanning(2 * half_n + 3)[1:-1]
    return x[half_n:x.size - half_n] - np.convolve(x, w / w.sum(), mode="valid")


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
    """Series key to grid values of ``fusion_beat_series(seg, fit)``."""
    return beat_series_on_grid(seg, fusion_beat_series(seg, fit))
