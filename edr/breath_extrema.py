"""Candidate breaths of an EDR: its prominent extrema, thinned by the local breathing period and
judged against the typical prominence around them (:func:`breath_peaks`), the step of
:func:`edr.breaths.detect_breaths` that reads the waveform alone.
"""

from __future__ import annotations

from bisect import bisect_left, insort

import numpy as np

from edr._rowstats import row_percentile
from edr.dsp.peaks import find_peaks
from edr.rates import rate_series, window_starts
from edr.signal import RATE_WINDOW_S

__all__ = ["MIN_CYCLE_FRACTION", "PROMINENCE", "RELATIVE_PROMINENCE", "TYPICAL_PERCENTILE",
           "TYPICAL_SPAN_S", "breath_candidates", "breath_onsets", "breath_peaks", "finite_runs",
           "local_period"]

PROMINENCE = 0.25
"""Smallest prominence (standard deviations of the standardised EDR) of a breath's extremum."""

RELATIVE_PROMINENCE = 0.0
"""A breath's prominence is also at least this fraction of the typical prominence around it
(:data:`TYPICAL_SPAN_S`). 0: with the spacing of :data:`MIN_CYCLE_FRACTION` no relative depth is
needed for listing a breath (chosen leave-one-subject-out among 0-0.5); pauses keep their own
depth, ``edr.breaths.PAUSE_RELATIVE``."""

TYPICAL_SPAN_S = 120.0
"""The typical prominence at a breath is the upper quartile (:data:`TYPICAL_PERCENTILE`) of the
prominences of the candidate breaths within half this span (s) on either side."""

TYPICAL_PERCENTILE = 75.0
"""Percentile of the candidates' prominences that is the typical breath's: a full breath's
depth even when up to three quarters of the candidates of the span are noise (a long pause)."""

MIN_CYCLE_FRACTION = 0.6
"""Two breaths closer than this fraction of the local breathing period are one: the less
prominent goes (a breath is not shorter than 0.6 of the period of the fastest rate window around
it; 0.4-0.7 measured, ``docs/studies/breath_detection.md``)."""


def finite_runs(x) -> list[tuple[int, int]]:
    """``(start, stop)`` index ranges of the runs of finite values of ``x``.

    See Also
    --------
    breath_candidates

    Examples
    --------
    >>> import numpy as np
    >>> from edr.breaths import finite_runs
    >>> finite_runs([1.0, np.nan, 2.0, 3.0])
    [(0, 1), (2, 4)]
    """
    ok = np.isfinite(np.asarray(x, dtype=float))
    edges = np.diff(np.concatenate([[0], ok.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(edges == 1).tolist(), np.flatnonzero(edges == -1).tolist(),
                    strict=True))


def local_period(x, fs: float, t0: float = 0.0) -> np.ndarray:
    """Local breathing period (s) at every sample of ``x``: 60 over the fastest spectral-peak
    rate (:func:`edr.rates.rate_series`) of the :data:`~edr.signal.RATE_WINDOW_S` rate windows that
    cover the sample (the nearest window with a rate when none covering it has one; NaN when no
    window of ``x`` has a rate).

    See Also
    --------
    edr.rates.rate_series : the rates it reads.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.breaths import local_period
    >>> t = np.arange(0, 96, 0.25)
    >>> p = local_period(np.sin(2 * np.pi * 0.25 * t), 4.0)
    >>> bool(np.allclose(p, 4.0, atol=0.05))
    True
    """
    x = np.asarray(x, dtype=float)
    centres, bpm = rate_series(x, fs=fs, t0=t0)
    period = np.full(x.size, np.nan)
    ok = np.isfinite(bpm) & (bpm > 0)
    if not ok.any():
        return period
    centres, bpm = centres[ok], bpm[ok]
    win = int(round(RATE_WINDOW_S * fs))
    for a, rate in zip(window_starts(x.size, fs)[ok], bpm, strict=True):  # the fastest rate
        period[a:a + win] = np.fmin(period[a:a + win], 60.0 / rate)  # of the windows covering
    hole = np.flatnonzero(np.isnan(period))
    if hole.size:
        th = t0 + hole / fs
        right = np.minimum(np.searchsorted(centres, th), centres.size - 1)
        left = np.maximum(right - 1, 0)
        near = np.where(np.abs(th - centres[left]) <= np.abs(th - centres[right]), left, right)
        period[hole] = 60.0 / bpm[near]
    return period


def _spaced(peaks: np.ndarray, prominence: np.ndarray, min_gap: np.ndarray) -> np.ndarray:
    """Boolean mask of the ``peaks`` kept when, from the most prominent down, a peak is dropped
    if a kept one lies within its ``min_gap`` samples (what :func:`scipy.signal.find_peaks`'
    ``distance`` does, with a distance per peak)."""
    keep = np.zeros(peaks.size, dtype=bool)
    kept: list[int] = []
    for i in np.argsort(-prominence, kind="stable"):
        p, gap = peaks[i], min_gap[i]
        j = bisect_left(kept, p)
        if (j < len(kept) and kept[j] - p < gap) or (j > 0 and p - kept[j - 1] < gap):
            continue
        insort(kept, p)
        keep[i] = True
    return keep


def _refined(y: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Sub-sample positions of the maxima ``idx`` of ``y`` (parabola through three samples)."""
    a, b, c = y[idx - 1], y[idx], y[idx + 1]
    den = a - 2 * b + c
    off = np.where(den < 0, 0.5 * (a - c) / np.where(den < 0, den, -1.0), 0.0)
    return idx + np.clip(off, -0.5, 0.5)


_TYPICAL_BLOCK = 4096  # peaks whose neighbourhoods are gathered at once


def _typical(idx: np.ndarray, prominence: np.ndarray, half_span: float) -> np.ndarray:
    """:data:`TYPICAL_PERCENTILE` of the ``prominence`` of the peaks within ``half_span`` samples
    of each peak ``idx`` (each neighbourhood gathered into a NaN-padded row)."""
    lo = np.searchsorted(idx, idx - half_span, side="left")
    hi = np.searchsorted(idx, idx + half_span, side="right")
    out = np.empty(idx.size)
    padded = np.append(prominence.astype(float), np.nan)
    for c in range(0, idx.size, _TYPICAL_BLOCK):
        a, b = lo[c:c + _TYPICAL_BLOCK], hi[c:c + _TYPICAL_BLOCK]
        cols = a[:, None] + np.arange(int((b - a).max()))[None, :]
        rows = padded[np.where(cols < b[:, None], cols, prominence.size)]
        out[c:c + _TYPICAL_BLOCK] = row_percentile(rows, TYPICAL_PERCENTILE)
    return out


def breath_peaks(x, fs: float, sign: int, period, *, prominence: float = PROMINENCE,
                 relative: float = RELATIVE_PROMINENCE,
                 min_cycle_fraction: float = MIN_CYCLE_FRACTION) -> np.ndarray:
    """Positions (fractional samples) of the breaths of the EDR ``x``: in every run of finite
    values, the maxima of ``sign * x`` with a prominence of at least ``prominence``
    (:func:`scipy.signal.find_peaks`); thinned so that no two are closer than
    ``min_cycle_fraction`` times the local ``period`` (s, per sample; NaN: no limit), the
    more prominent kept; then those whose prominence is below ``relative`` times the typical
    prominence of the remaining ones within :data:`TYPICAL_SPAN_S` / 2 (their
    :data:`TYPICAL_PERCENTILE`) dropped; each refined by a parabola through its three
    samples.

    See Also
    --------
    breath_candidates, edr.breaths.detect_breaths

    References
    ----------
    .. [1] P. H. Charlton, D. A. Birrenkott, T. Bonnici, M. A. F. Pimentel, A. E. W. Johnson, J.
       Alastruey, L. Tarassenko, P. J. Watkinson, R. Beale and D. A. Clifton, "Breathing rate
       estimation from the electrocardiogram and photoplethysmogram: a review," IEEE Rev. Biomed.
       Eng. 11, 2-20, 2018. Time-domain breath detection from the extrema of a respiratory signal
       (Table IV).

    Examples
    --------
    >>> import numpy as np
    >>> from edr.breaths import local_period
    >>> t = np.arange(0, 96, 0.25)
    >>> x = np.sin(2 * np.pi * 0.25 * t)  # a breath every 4 s on the 4 Hz grid
    >>> from edr.breaths import breath_peaks
    >>> peaks = breath_peaks(x, 4.0, 1, local_period(x, 4.0))
    >>> peaks[:4], peaks.size  # samples: the maxima at 1 s, 5 s, 9 s, 13 s
    (array([ 4., 20., 36., 52.]), 24)
    """
    pos, depth = breath_candidates(x, fs, sign, period, prominence=prominence,
                                   min_cycle_fraction=min_cycle_fraction)
    return pos[depth >= relative]


def breath_candidates(x, fs: float, sign: int, period, *, prominence: float = PROMINENCE,
                      min_cycle_fraction: float = MIN_CYCLE_FRACTION):
    """``(positions, depth)`` of the candidate breaths of :func:`breath_peaks` before the
    relative threshold: fractional sample positions and each one's prominence over the
    typical prominence around it (:func:`breath_peaks` keeps ``depth >= relative``).

    See Also
    --------
    breath_peaks

    Examples
    --------
    >>> import numpy as np
    >>> from edr.breaths import local_period
    >>> t = np.arange(0, 96, 0.25)
    >>> x = np.sin(2 * np.pi * 0.25 * t)  # a breath every 4 s on the 4 Hz grid
    >>> from edr.breath_extrema import breath_candidates
    >>> pos, depth = breath_candidates(x, 4.0, 1, local_period(x, 4.0))
    >>> pos.size, depth[1]
    (24, np.float64(1.0))
    """
    x = np.asarray(x, dtype=float)
    period = np.asarray(period, dtype=float)
    pos, depth = [], []
    for a, b in finite_runs(x):
        y = sign * x[a:b]
        idx, props = find_peaks(y, prominence=prominence)
        if idx.size == 0:
            continue
        gap = np.nan_to_num(min_cycle_fraction * period[a + idx] * fs, nan=0.0)
        keep = _spaced(idx, props["prominences"], gap)
        idx, prom = idx[keep], props["prominences"][keep]
        depth.append(prom / _typical(idx, prom, 0.5 * TYPICAL_SPAN_S * fs))
        pos.append(a + _refined(y, idx))
    if not pos:
        return np.empty(0), np.empty(0)
    return np.concatenate(pos), np.concatenate(depth)


def breath_onsets(x, sign: int, ends, max_back=np.inf) -> np.ndarray:
    """Positions (fractional samples) of the start of inspiration of every breath: the lowest
    point of ``sign * x`` before each end of inspiration ``ends[i]``, after the previous one
    and no more than ``max_back`` samples back, within the run of finite values of the end;
    refined by a parabola through its three samples. NaN where that stretch holds no trough
    (its lowest point is its first sample and the stretch does not start at the previous end:
    the run's start, or ``max_back`` back on a falling flank) or no sample.

    The one home of a breath's onset: the EDR's (:attr:`edr.breaths.Breaths.onset`) and a
    reference waveform's, read before its annotated ends.

    Parameters
    ----------
    x : array_like, shape (n,)
        The waveform (NaN where missing).
    sign : {1, -1}
        +1 when ends of inspiration are the maxima of ``x``, -1 its minima.
    ends : array_like, shape (m,)
        Increasing positions (fractional samples) of the ends of inspiration.
    max_back : float or array_like, shape (m,), default inf
        How far back (samples) a start may lie from its end (NaN: no limit).

    Returns
    -------
    ndarray, shape (m,)

    See Also
    --------
    breath_candidates : the ends of inspiration of an EDR.
    edr.breaths.detect_breaths : gives each breath its onset (at most one local period back).

    Examples
    --------
    >>> import numpy as np
    >>> from edr.breath_extrema import breath_onsets
    >>> t = np.arange(0, 24, 0.25)  # 4 Hz grid, a breath every 4 s: ends at 1 s, 5 s, ...
    >>> x = np.sin(2 * np.pi * 0.25 * t)
    >>> breath_onsets(x, 1, [4.0, 20.0, 36.0])  # the troughs at -1 s (none), 3 s, 7 s
    array([nan, 12., 28.])
    """
    y = sign * np.asarray(x, dtype=float)
    ends = np.asarray(ends, dtype=float).ravel()
    back = np.broadcast_to(np.asarray(max_back, dtype=float), ends.shape)
    back = np.where(np.isnan(back), np.inf, back)
    out = np.full(ends.size, np.nan)
    if ends.size == 0:
        return out
    hi = np.round(ends).astype(np.int64)
    starts = np.array([a for a, _ in finite_runs(y)] or [0], dtype=np.int64)
    run_start = starts[np.maximum(np.searchsorted(starts, hi, side="right") - 1, 0)]
    after_prev = np.r_[-1, hi[:-1] + 1]
    limit = np.where(np.isfinite(back), hi - np.ceil(np.where(np.isfinite(back), back, 0.0)),
                     0).astype(np.int64)
    lo = np.maximum(np.maximum(after_prev, run_start), limit)
    ok = (lo >= 0) & (lo < hi) & (hi <= y.size - 1)
    lo, hi_ok, first_ok = lo[ok], hi[ok], after_prev[ok]
    length = hi_ok - lo
    first = np.cumsum(length) - length  # where each stretch begins among the samples
    seg = np.repeat(np.arange(lo.size), length)  # the samples of every stretch, in order
    pos = np.arange(seg.size) - first[seg] + lo[seg]
    vals = y[pos]
    if seg.size:
        finite = np.logical_and.reduceat(np.isfinite(vals), first)
        vals = np.where(np.isfinite(vals), vals, np.inf)  # one lowest sample in every stretch
        at = np.flatnonzero(vals == np.minimum.reduceat(vals, first)[seg])
        j = pos[at[np.r_[True, seg[at][1:] != seg[at][:-1]]]]  # the first lowest sample
    else:
        j, finite = pos, np.ones(0, dtype=bool)
    trough = finite & ((j > lo) | (lo == first_ok)) & (j >= 1)
    where = np.flatnonzero(ok)[trough]
    out[where] = _refined(-y, j[trough])
    return out
