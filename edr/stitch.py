"""Stitching analysed windows into one record-long EDR: :class:`Stitcher`.

Each window's grid series is standardised over its grid points near a used
beat, sign-aligned with what earlier windows wrote on the overlap (sign of the
inner product; with no overlap, its local R-amplitude sign when the method has
a sign reference), and cross-faded in with complementary raised-cosine ramps
(:func:`ramp_weights`). Grid points farther than :data:`MAX_GAP_S` from every
used beat get no weight and, unless another window covers them, are NaN in the
result. :meth:`Stitcher.finish` band-passes the stitched series once
(:func:`edr.signal.bandpass`) and, for methods with a sign reference, flips
it to correlate positively with the record's R-amplitude series. Rationale:
``docs/design.md#edr-windows-stitching-and-sign``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from edr.signal import bandpass
from edr.spectra import spectral_concentration
from edr.window_analysis import WindowAnalysis
from edr.windows import Window

__all__ = ["MAX_GAP_S", "MIN_ALIGN_POINTS", "Stitched", "Stitcher", "WindowPart", "grid_points",
           "local_sign", "masked_bandpass", "near_used_beats", "ramp_weights",
           "standardised_window", "window_sign"]

MAX_GAP_S = 5.0
"""Grid points farther than this (s) from any used beat are masked (NaN)."""
MIN_ALIGN_POINTS = 8
"""Fewest shared grid points for aligning a window's sign on its predecessors."""


@dataclass(frozen=True)
class WindowPart:
    """What one window contributed: beats used / dropped in its core, its series' concentration,
    and the beats of its core with a clipped QRS (:func:`edr.beats.flags.clipped_beats`)."""

    n_used: int
    n_dropped: int
    concentration: float
    n_clipped: int = 0


@dataclass(frozen=True)
class Stitched:
    """The stitched record: band-passed, masked ``waveform`` on the grid and the per-beat values
    (time-ordered, same sign and scale as the waveform)."""

    waveform: np.ndarray
    beat_times: np.ndarray
    beat_values: np.ndarray


def ramp_weights(t, a, b, prev_end, next_start):
    """Cross-fade weights on times ``t`` of a window spanning [a, b]: raised-cosine ramps up over
    ``[a, prev_end]`` and down over ``[next_start, b]`` (none where the limit is None)."""
    w = np.ones(t.size)
    if prev_end is not None and prev_end > a:
        m = t < prev_end
        w[m] *= 0.5 - 0.5 * np.cos(np.pi * (t[m] - a) / (prev_end - a))
    if next_start is not None and next_start < b:
        m = t > next_start
        w[m] *= 0.5 + 0.5 * np.cos(np.pi * (t[m] - next_start) / (b - next_start))
    return w


def _zscored(v, mu, sd):
    return (v - mu) / sd


class Stitcher:
    """Accumulates analysed windows on the record's output grid.

    Parameters
    ----------
    grid : ndarray
        Record times (s) of the output grid.
    fs_out : float
        Its rate (Hz).
    sign_reference : bool
        Whether the method's output is made to correlate positively with the
        R amplitude (per window without overlap, and over the record).
    """

    def __init__(self, grid: np.ndarray, fs_out: float, sign_reference: bool):
        self.grid = grid
        self.fs_out = fs_out
        self.sign_reference = sign_reference
        self._acc = np.zeros(grid.size)
        self._wsum = np.zeros(grid.size)
        self._covered = np.zeros(grid.size, dtype=bool)
        self._beats: list[tuple[np.ndarray, np.ndarray]] = []
        self._reference: list[tuple[np.ndarray, np.ndarray]] = []
        self.n_windows = 0

    def add(self, window: Window, wa: WindowAnalysis) -> WindowPart:
        """Standardise, sign-align and cross-fade one window in; keep its core's per-beat values."""
        gm = grid_points(wa.grid_mask)
        tg = self.grid[gm]
        seg = wa.segment
        z, ok, mu, sd = standardised_window(wa, tg)
        sign = self._sign(gm, ok, z, seg, tg)
        z *= sign
        w = ramp_weights(tg, wa.span[0], wa.span[1], window.prev_end, window.next_start) * ok
        self._acc[gm] += w * z
        self._wsum[gm] += w
        self._covered[gm] |= ok
        self._keep_beats(window, wa, tg, z, sign, mu, sd)
        core_a, core_b = window.core
        bt = seg.beat_times
        core = (bt >= core_a) & (bt < core_b)
        clipped = np.asarray(seg.beats.clipped, dtype=bool)
        self.n_windows += 1
        return WindowPart(int((core & seg.valid).sum()), int((core & ~seg.valid).sum()),
                          spectral_concentration(z[ok], self.fs_out),
                          int((core & clipped).sum()) if clipped.size == core.size else 0)

    def _sign(self, gm, ok, z, seg, tg) -> float:
        """±1: agreement with the windows already written on the overlap, else the local
        reference."""
        prev = self._covered[gm] & ok & (self._wsum[gm] > 0)
        written = np.zeros(z.size)
        written[prev] = self._acc[gm][prev] / self._wsum[gm][prev]
        return window_sign(z, written, prev, seg, tg, self.sign_reference and self.n_windows > 0)

    def _keep_beats(self, window, wa, tg, z, sign, mu, sd) -> None:
        """Per-beat values of the window's core (and its R-amplitude reference)."""
        core_a, core_b = window.core
        seg, out = wa.segment, wa.output
        if out.kind == "beats":
            vt = np.asarray(out.times)
            vv = sign * _zscored(np.asarray(out.values), mu, sd)
            m = (vt >= core_a) & (vt < core_b)
            self._beats.append((vt[m], vv[m]))
        else:
            bt = seg.beat_times
            m = (bt >= core_a) & (bt < core_b) & seg.valid
            self._beats.append((bt[m], np.interp(bt[m], tg, z)))
        if self.sign_reference:
            used_t = seg.beat_times[seg.valid]
            ra = seg.r_amplitudes()[seg.valid]
            ra = (ra - ra.mean()) / (ra.std() if ra.std() > 0 else 1.0)
            m = (used_t >= core_a) & (used_t < core_b)
            self._reference.append((used_t[m], ra[m]))

    def finish(self) -> Stitched:
        """Band-pass the stitched series, apply the record-level sign, mask uncovered points."""
        wsum = self._wsum
        raw = np.where(wsum > 0, self._acc / np.where(wsum > 0, wsum, 1.0), 0.0)
        beat_times = np.concatenate([t for t, _ in self._beats]) if self._beats else np.empty(0)
        beat_values = np.concatenate([v for _, v in self._beats]) if self._beats else np.empty(0)
        flip = 1.0
        if self.sign_reference and self._reference:
            rt = np.concatenate([t for t, _ in self._reference])
            rv = np.concatenate([v for _, v in self._reference])
            if rt.size > 2 and np.dot(np.interp(rt, self.grid, raw) - raw.mean(), rv) < 0:
                flip = -1.0
        waveform = flip * masked_bandpass(raw, self._covered, self.fs_out)
        order = np.argsort(beat_times, kind="stable")
        return Stitched(waveform, beat_times[order], (flip * beat_values)[order])


def grid_points(mask: np.ndarray):
    """The points of a window's ``grid_mask`` as a slice when they are one run (a window on a
    sorted grid), else the mask: the same elements in the same order, without a pass over the
    whole grid each time they are read (a day's grid has 345 600 points).

    Examples
    --------
    >>> import numpy as np
    >>> from edr.stitch import grid_points
    >>> grid_points(np.array([False, True, True, False]))
    slice(1, 3, None)
    >>> grid_points(np.array([True, False, True]))
    array([ True, False,  True])
    """
    idx = np.flatnonzero(mask)
    if idx.size and idx[-1] - idx[0] + 1 == idx.size:
        return slice(int(idx[0]), int(idx[-1]) + 1)
    return mask


def masked_bandpass(values, covered, fs_out: float) -> np.ndarray:
    """The stitched ``values`` band-passed (:func:`edr.signal.bandpass`, the points not
    ``covered`` entering as 0) and NaN where not ``covered``."""
    out = bandpass(np.where(covered, values, 0.0), fs=fs_out)
    out[~covered] = np.nan
    return out


def near_used_beats(tg, used_t) -> np.ndarray:
    """Grid times within :data:`MAX_GAP_S` of a used beat."""
    k = np.clip(np.searchsorted(used_t, tg), 1, max(used_t.size - 1, 1))
    dist = np.minimum(np.abs(tg - used_t[k - 1]),
                      np.abs(tg - used_t[np.minimum(k, used_t.size - 1)]))
    return dist <= MAX_GAP_S


def standardised_window(wa: WindowAnalysis, tg: np.ndarray):
    """``(z, ok, mu, sd)``: the window's grid series ``wa.series`` (at the grid times ``tg``)
    standardised over its points near a used beat (``ok``, :func:`near_used_beats`), with the
    mean and standard deviation used (``sd`` 1 for a constant series; ``mu`` 0 and ``sd`` 1
    when no point is near a used beat)."""
    seg = wa.segment
    ok = near_used_beats(tg, seg.beat_times[seg.valid])
    mu, sd = (wa.series[ok].mean(), wa.series[ok].std()) if ok.any() else (0.0, 1.0)
    sd = sd if sd > 0 else 1.0
    return _zscored(wa.series, mu, sd), ok, mu, sd


def window_sign(z, written, shared, seg, tg, use_reference: bool) -> float:
    """±1 for a window's standardised series ``z``: the sign of its inner product with the
    values already ``written`` on the ``shared`` grid points when there are at least
    :data:`MIN_ALIGN_POINTS`, else its :func:`local_sign` when ``use_reference``, else +1."""
    if shared.sum() >= MIN_ALIGN_POINTS:
        return -1.0 if np.dot(z[shared], written[shared]) < 0 else 1.0
    if use_reference:
        return local_sign(seg, tg, z)
    return 1.0


def local_sign(seg, tg, z) -> float:
    """Sign making ``z`` correlate positively with the window's R amplitude (no overlap to align
    on)."""
    v = seg.valid
    ra = seg.r_amplitudes()[v]
    zi = np.interp(seg.beat_times[v], tg, z)
    return -1.0 if np.dot(zi - zi.mean(), ra - ra.mean()) < 0 else 1.0
