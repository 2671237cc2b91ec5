"""The respiratory rate of a stitched EDR, judged window by window: :func:`judged_rates`.

Every 32 s rate window (16 s step, :func:`edr.signal.rate_series`) of the
stitched waveform gets its spectral-peak rate and a quality (0-1): the weighted
share of the evidence panel of the analysis window that holds it
(:attr:`edr.windows.WindowAnalysis.panel`) whose own rate agrees with the
EDR's (:func:`edr.fusion.rate_quality`; the panel's rates of all the rate windows one analysis
window judges are computed at once). Below :data:`edr.fusion.QUALITY_THRESHOLD`
the rate is withheld (NaN): the ECG then carries no consistent breathing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from edr.fusion import QUALITY_THRESHOLD, agreement
from edr.signal import RATE_TILT, SEGMENT_S, rate_series, window_rates, window_starts
from edr.windows import Window, WindowAnalysis

__all__ = ["MAX_DROPPED_SHARE", "JudgedRates", "RateSpan", "judged_rates"]

MAX_DROPPED_SHARE = 1 / 3
"""An analysis window in which more than this share of the detected beats were dropped
(ectopic, artefact, clipped) gives no rate: its morphology is not to be trusted
(``docs/design.md#3-generalisation-to-unseen-patients``)."""


@dataclass(frozen=True)
class JudgedRates:
    """Rates per 32 s window: centres ``time`` (s), ``rate_bpm`` (NaN where withheld or
    masked), the unjudged spectral-peak ``raw_bpm`` and the ``quality`` (0-1)."""

    time: np.ndarray
    rate_bpm: np.ndarray
    raw_bpm: np.ndarray
    quality: np.ndarray

    def window_quality(self, window: Window) -> float:
        """Median quality of the rate windows centred in ``window``'s core (0 when none is)."""
        q = self.quality[self._in_core(window)]
        return float(np.median(q)) if q.size else 0.0

    def withheld(self, windows) -> JudgedRates:
        """The same rates with those of the rate windows centred in ``windows``' cores withheld."""
        rate = self.rate_bpm.copy()
        for window in windows:
            rate[self._in_core(window)] = np.nan
        return JudgedRates(self.time, rate, self.raw_bpm, self.quality)

    def _in_core(self, window: Window) -> np.ndarray:
        a, b = window.core
        return (self.time >= a) & (self.time < b)


def judged_rates(waveform, grid, spans, fs_out: float,
                 threshold: float = QUALITY_THRESHOLD, *, tilt: float = RATE_TILT) -> JudgedRates:
    """Rate and quality of every rate window of the stitched ``waveform``.

    Parameters
    ----------
    waveform : ndarray
        Stitched, band-passed EDR on ``grid`` (NaN where masked).
    grid : ndarray
        Record times (s) of the output grid.
    spans : list of RateSpan
        The analysed windows (:meth:`RateSpan.of`); a rate window is judged by the panel of an
        analysis window that contains it whole, preferably the one whose core
        holds its centre. A rate window no analysis window contains gets quality 0.
    fs_out : float
        Grid rate (Hz).
    threshold : float, default :data:`edr.fusion.QUALITY_THRESHOLD`
        Quality below which the rate is withheld.
    tilt : float, default :data:`edr.signal.RATE_TILT`
        Exponent of the rate periodograms' frequency weighting (:func:`edr.signal.window_rates`).

    Returns
    -------
    JudgedRates
    """
    waveform = np.asarray(waveform, dtype=float)
    t0 = float(grid[0]) if np.size(grid) else 0.0
    time, raw = rate_series(waveform, fs=fs_out, t0=t0, tilt=tilt)
    quality = np.zeros(raw.size)
    win = int(round(SEGMENT_S * fs_out))
    judged = [[] for _ in spans]  # per span: the rate windows it judges
    for i, s in enumerate(window_starts(waveform.size, fs_out)):
        inside = [j for j, sp in enumerate(spans) if sp.first <= s and s + win - 1 <= sp.last]
        if inside:
            judged[next((j for j in inside if spans[j].core[0] <= time[i] < spans[j].core[1]),
                        inside[0])].append((i, s))
    for sp, items in zip(spans, judged, strict=True):
        if items:  # the panel's rates of all these windows at once (= rate_quality per window)
            idx, starts = (np.array(v) for v in zip(*items, strict=True))
            rates = {name: window_rates(v, starts - sp.first, fs_out, tilt=tilt)
                     for name, v in sp.panel.items()}
            quality[idx] = agreement(raw[idx], rates, sp.weights)
    rate = np.where(quality >= threshold, raw, np.nan)
    return JudgedRates(time, rate, raw, quality)


@dataclass(frozen=True)
class RateSpan:
    """What :func:`judged_rates` needs of one analysed window, so that the window's analysis
    (its QRS matrices, beats, model) need not be kept: the first and last indices of its output
    grid points, its core (s), its evidence panel (:attr:`edr.windows.WindowAnalysis.panel`)
    and the panel's weights (:attr:`edr.windows.WindowAnalysis.weights`)."""

    first: int
    last: int
    core: tuple
    panel: dict
    weights: dict

    @classmethod
    def of(cls, window: Window, wa: WindowAnalysis) -> RateSpan:
        """The span of ``window`` analysed as ``wa``."""
        idx = np.flatnonzero(wa.grid_mask)
        return cls(int(idx[0]), int(idx[-1]), window.core, wa.panel, wa.weights)
