"""Emission of a projected stream (:mod:`edr.stream.projection`): :class:`ProjectedPath`.

At each update the stream gives the recent stretch of every lead (:data:`STRETCH_S` of notched
ECG with its beats); the path projects it onto the current :class:`FusionModel`, removes the
local mean with the zero-phase high-pass :func:`edr.stream.projection.local_mean_removed`
(half-length the emission delay less :data:`SPLINE_MARGIN_S`: a point is emitted once the ECG
after it fills the filter) and emits the grid points up to the delay, scaled and signed as fixed at
the model's refresh: unit standard deviation over the span, the sign that agrees with the EDR
already emitted (the R amplitude's for the first model). Right after a refresh the emitted points
cross-fade from the previous model's values to the new one's. Rates are judged as offline
(:func:`edr.rates.judged_rates`) from the stretch's band-passed sum and its panel.
"""

from __future__ import annotations

import math

import numpy as np

from edr.fusion import shifted, standardised
from edr.rates import MAX_DROPPED_SHARE, RateSpan, judged_rates
from edr.signal import RATE_STEP_S, SEGMENT_S
from edr.stitch import MIN_ALIGN_POINTS, local_sign, masked_bandpass, near_used_beats
from edr.stream.projection import FusionModel, local_mean_removed

__all__ = ["HISTORY_S", "PHASE_LAG_S", "RATES_STRETCH_S", "SPLINE_MARGIN_S", "ProjectedPath"]

RATES_STRETCH_S = 64.0
"""ECG (s) before the stream's end projected to judge the rate windows that end at an update:
the 32 s window with as much again before it for the band-pass and the running median of the
robust beat matrix."""
PHASE_LAG_S = 1.0
"""Largest shift (s) by which a new model's output is moved onto the EDR already emitted. Series
of the panel follow the breathing with different phases (a lead's R amplitude, another lead's
kernel component); when a refresh changes the fusion's anchor, its output would jump in phase,
and the phase of an EDR must hold over the record for its coherence with the breathing."""
SPLINE_MARGIN_S = 1.0
"""ECG (s) the high-pass leaves after its reach before the emission point's delay: the last beat
before the stream's end may be up to a beat interval old, and the spline holds beyond it."""
HISTORY_S = 60.0
"""Emitted EDR (s) a new model's sign is aligned on."""


class ProjectedPath:
    """The emission state of a projected stream (module docstring).

    Parameters
    ----------
    fs_out : float
        Output grid rate (Hz).
    delay_s : float
        Emission delay (s).
    sign_reference : bool
        Whether the first model's sign follows the R amplitude (the method's sign reference).
    """

    def __init__(self, fs_out: float, delay_s: float, sign_reference: bool):
        self.fs_out = fs_out
        self.max_lag = int(round(PHASE_LAG_S * fs_out))
        self.half_n = max(int(math.floor((delay_s - SPLINE_MARGIN_S) * fs_out)) - self.max_lag,
                          1)
        self.delay_s = delay_s
        self.sign_reference = sign_reference
        self.model: FusionModel | None = None
        self._look = (1.0, 1.0, 0)  # (sign, scale, lag) of the current model's output
        self._prev = None  # (model, look) of the model before the last refresh
        self._hist = np.full(int(round(HISTORY_S * fs_out)), np.nan)  # last emitted values
        self.k_emit = 0
        self.rate_next = 0

    # ------------------------------------------------------------------ refresh
    def refresh(self, wa, segments: dict) -> None:
        """Take the model of the span analysed as ``wa`` (``segments``: its leads), with its
        output's scale over the span and its sign and lag onto the emitted EDR."""
        model = FusionModel.of(wa, self.fs_out)
        k0 = _first_index(segments, self.fs_out)
        raw, near = self._raw(model, segments)
        y = local_mean_removed(raw, self.half_n) if raw is not None else None
        if y is None or not near[self.half_n:near.size - self.half_n].any():
            return
        ok = near[self.half_n:near.size - self.half_n]
        sd = y[ok].std()
        y = y / (sd if sd > 0 else 1.0)
        sign, lag = self._alignment(y, ok, k0 + self.half_n, segments.get(model.anchor))
        if self.model is not None:
            self._prev = (self.model, self._look)
        self.model, self._look = model, (sign, sd if sd > 0 else 1.0, lag)

    def _alignment(self, y, ok, k_first: int, seg) -> tuple[float, int]:
        """``(sign, lag)`` moving ``y`` (grid indices from ``k_first``) onto the emitted history:
        the shift within :data:`PHASE_LAG_S` and the sign maximising their inner product on the
        shared points; without :data:`edr.stitch.MIN_ALIGN_POINTS` of them, no shift and the sign
        of the R amplitude of ``seg`` (with a sign reference), else +1."""
        k = k_first + np.arange(y.size)
        j = k - (self.k_emit - self._hist.size)
        h = (j >= 0) & (k < self.k_emit) & ok
        h[h] &= np.isfinite(self._hist[j[h]])
        if h.sum() >= MIN_ALIGN_POINTS:
            z = np.where(ok, y, 0.0)
            past = np.where(h, self._hist[np.clip(j, 0, self._hist.size - 1)], 0.0)
            lags = sorted(range(-self.max_lag, self.max_lag + 1), key=abs)
            c = [float(np.dot(shifted(z, lag), past)) for lag in lags]
            best = int(np.argmax(np.abs(c)))
            return (-1.0 if c[best] < 0 else 1.0), lags[best]
        if self.sign_reference and seg is not None:
            tg = seg.grid[self.half_n:seg.grid.size - self.half_n]
            return local_sign(seg, tg, np.where(ok, y, 0.0)), 0
        return 1.0, 0

    @staticmethod
    def _raw(model: FusionModel, segments: dict, panel: dict | None = None):
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

    # ------------------------------------------------------------------ one update
    def emit(self, segments: dict, k_target: int, final: bool):
        """``(grid indices, values)`` of the points ``k_emit .. k_target - 1`` from the recent
        stretch of every lead (``segments``, one grid); ``final`` holds the stretch's ends for
        the filter instead of waiting for more ECG."""
        k = np.arange(self.k_emit, max(k_target, self.k_emit))
        values = np.full(k.size, np.nan)
        if self.model is not None and k.size and segments:
            ks = _first_index(segments, self.fs_out)
            y, near = self._output(self.model, self._look, segments, ks, final)
            if y is not None:
                values = self._take(y, near, ks, k)
                if self._prev is not None:
                    values = self._faded(values, segments, ks, k, final)
        self._prev = None
        self._remember(values)
        self.k_emit = int(k[-1]) + 1 if k.size else self.k_emit
        return k, values

    def _output(self, model, look, segments, ks: int, final: bool):
        """(signed, scaled high-passed sum, near mask) on grid indices from ``ks``, ends held
        where the stretch begins the record (or ``final``)."""
        raw, near = self._raw(model, segments)
        if raw is None:
            return None, None
        h = self.half_n
        front = h if ks == 0 else 0
        back = h if final else 0
        padded = np.concatenate([np.full(front, raw[0]), raw, np.full(back, raw[-1])])
        y = local_mean_removed(padded, h)
        sign, sd, lag = look
        lead = np.full(h - front, np.nan)
        y = np.concatenate([lead, sign * y / sd, np.full(h - back, np.nan)])
        return shifted(y, lag), shifted(near, lag)

    @staticmethod
    def _take(y, near, ks: int, k):
        j = k - ks
        ok = (j >= 0) & (j < y.size)
        out = np.full(k.size, np.nan)
        out[ok] = np.where(near[j[ok]], y[j[ok]], np.nan)
        return out

    def _faded(self, values, segments, ks, k, final):
        """``values`` cross-faded from the previous model's over the points emitted now."""
        model, look = self._prev
        y, near = self._output(model, look, segments, ks, final)
        if y is None or k.size == 0:
            return values
        old = self._take(y, near, ks, k)
        w = 0.5 - 0.5 * np.cos(np.pi * (np.arange(k.size) + 1) / (k.size + 1))
        both = np.isfinite(old) & np.isfinite(values)
        out = values.copy()
        out[both] = (1 - w[both]) * old[both] + w[both] * values[both]
        return out

    def _remember(self, values) -> None:
        m = values.size
        if m >= self._hist.size:
            self._hist = values[-self._hist.size:].copy()
        elif m:
            self._hist = np.concatenate([self._hist[m:], values])

    # ------------------------------------------------------------------ rates
    def rates(self, stretch, k_last: int):
        """Centres, judged rates and qualities of the rate windows ending by ``k_last``;
        ``stretch()`` gives the segments of the last :data:`RATES_STRETCH_S` of every lead."""
        win = int(round(SEGMENT_S * self.fs_out))
        step = int(round(RATE_STEP_S * self.fs_out))
        first = self.rate_next
        count = max((k_last + 1 - win) // step + 1 - first, 0)
        self.rate_next += count
        if count == 0:
            return np.empty(0), np.empty(0), np.empty(0)
        g0 = first * step
        centres = (g0 + np.arange(count) * step + win / 2) / self.fs_out
        nothing = (centres, np.full(count, np.nan), np.zeros(count))
        segments = stretch() if self.model is not None else {}
        if not segments or g0 < _first_index(segments, self.fs_out):
            return nothing
        ks = _first_index(segments, self.fs_out)
        panel = self.model.panel(segments)
        raw, near = self._raw(self.model, segments, panel)
        if raw is None:
            return nothing
        sign, sd, lag = self._look
        bp = masked_bandpass(shifted(sign * raw / sd, lag), shifted(near, lag), self.fs_out)
        wave = bp[g0 - ks:g0 - ks + (count - 1) * step + win]
        total = sum(self.model.weights[n] for n in panel)
        weights = {n: self.model.weights[n] / total for n in panel}
        a = ks - g0
        span = RateSpan(a, a + raw.size - 1, (-math.inf, math.inf),
                        {n: standardised(v, self.fs_out) for n, v in panel.items()}, weights)
        rates = judged_rates(wave, np.arange(wave.size) / self.fs_out, [span], self.fs_out)
        bpm = rates.rate_bpm[:count]
        seg = segments.get(self.model.anchor) or next(iter(segments.values()))
        if (~seg.valid).sum() > MAX_DROPPED_SHARE * seg.valid.size:
            bpm = np.full(count, np.nan)
        return centres, bpm, rates.quality[:count]


def _first_index(segments: dict, fs_out: float) -> int:
    """Grid index of the segments' first grid point."""
    return int(round(next(iter(segments.values())).grid[0] * fs_out))
