"""The rate windows and their spectral-peak rates (re-exported by :mod:`edr.rates`).

A rate is the spectral peak of a :data:`~edr.signal.RATE_WINDOW_S` window every
:data:`~edr.signal.RATE_STEP_S` (:func:`window_starts`; those an analysis window holds whole:
:func:`rated_starts`): the Hann-windowed periodogram of the demeaned window, zero-padded to
:data:`~edr.signal.RATE_NFFT` points, its peak within :data:`~edr.signal.RATE_BAND_BPM` chosen by
a frequency weighting, up to a limit (:func:`spectral_peak_rates`). What the rates are used for
(their quality, the judged rates) is :mod:`edr.rates`'.
"""

from __future__ import annotations

import numpy as np

from edr.signal import (
    GRID_FS,
    RATE_BAND_BPM,
    RATE_NFFT,
    RATE_STEP_S,
    RATE_TILT,
    RATE_WINDOW_S,
    as_series,
    positive_rate,
)

__all__ = ["RATE_BLOCK", "rated_starts", "spectral_peak_rates", "window_starts"]

RATE_BLOCK = 32
"""Rate windows transformed together (~1 MB of zero-padded windows and spectra at once)."""


def window_starts(n: int, fs: float) -> np.ndarray:
    """Sample indices where the :data:`~edr.signal.RATE_WINDOW_S` rate windows (every
    :data:`~edr.signal.RATE_STEP_S`) of an ``n``-sample series start.

    See Also
    --------
    edr.rates.rate_series : the rates of these windows.

    Examples
    --------
    >>> from edr.rate_spectra import window_starts
    >>> window_starts(480, 4.0)  # 32 s windows every 16 s of a 120 s series at 4 Hz
    array([  0,  64, 128, 192, 256, 320])
    """
    win = int(round(RATE_WINDOW_S * fs))
    step = int(round(RATE_STEP_S * fs))
    if n < win:
        return np.empty(0, dtype=int)
    return np.arange(0, n - win + 1, step)


def rated_starts(n: int, fs: float, first: int, last: int) -> np.ndarray:
    """The :func:`window_starts` of an ``n``-point grid whose windows lie whole within its
    points ``first`` to ``last``: the rate windows an analysis window over those points judges.

    Examples
    --------
    >>> from edr.rate_spectra import rated_starts
    >>> rated_starts(480, 4.0, 60, 479)
    array([ 64, 128, 192, 256, 320])
    """
    win = int(round(RATE_WINDOW_S * fs))
    starts = window_starts(n, fs)
    return starts[(starts >= first) & (starts + win - 1 <= last)]


def spectral_peak_rates(x, starts, fs: float = GRID_FS, *, tilt: float = RATE_TILT,
                        max_bpm=None, min_bpm=None) -> np.ndarray:
    """Spectral-peak rate (breaths/min) of the :data:`~edr.signal.RATE_WINDOW_S` windows of ``x``
    starting at the sample indices ``starts`` (each window inside ``x``): the peak of the
    Hann-windowed periodogram of the demeaned window, zero-padded to
    :data:`~edr.signal.RATE_NFFT` points, within :data:`~edr.signal.RATE_BAND_BPM`: of its
    local maxima (band edges included), the one with the largest ``f**tilt`` times its power
    (:data:`~edr.signal.RATE_TILT`; 0 takes the highest peak); NaN for a window with a
    non-finite sample or no power in the band.

    ``max_bpm`` / ``min_bpm`` (a float, or one per window): only the local maxima at or below /
    at or above it compete (the maxima are those of the whole band, so a spectrum still rising
    at the limit offers none there); NaN for a window with none. Default: no limit.

    All windows are transformed at once, :data:`RATE_BLOCK` at a time (the same values as one
    by one).

    See Also
    --------
    edr.rates.rate_series : the same over every rate window.
    edr.signal.carried_bpm : a ``max_bpm`` per window.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(480) / 4.0  # two minutes on the 4 Hz grid
    >>> x = np.sin(2 * np.pi * 0.25 * t)  # 15 breaths/min
    >>> from edr.rates import spectral_peak_rates
    >>> spectral_peak_rates(x, [0, 64], 4.0)
    array([15., 15.])
    >>> spectral_peak_rates(x, [0, 64], 4.0, max_bpm=[20.0, 4.0])  # no peak below 4 /min
    array([15., nan])
    """
    fs = positive_rate(fs)
    x = as_series(x, "x")
    win = int(round(RATE_WINDOW_S * fs))
    starts = np.asarray(starts, dtype=int)
    bpm = np.full(starts.size, np.nan)
    if starts.size == 0:
        return bpm
    lo, hi = (np.broadcast_to(d if v is None else np.asarray(v, dtype=float), starts.shape)
              for v, d in ((min_bpm, -np.inf), (max_bpm, np.inf)))
    nfft = max(RATE_NFFT, win)
    f_bpm = 60.0 * np.fft.rfftfreq(nfft, d=1.0 / fs)
    inside = np.flatnonzero((f_bpm >= RATE_BAND_BPM[0]) & (f_bpm <= RATE_BAND_BPM[1]))
    band = slice(inside[0], inside[-1] + 1) if inside.size else slice(0, 0)  # ascending bins
    taper = np.hanning(win)
    emphasis = f_bpm[band] ** float(tilt)
    for c in range(0, starts.size, RATE_BLOCK):  # bounded memory: RATE_BLOCK spectra at once
        segs = x[starts[c:c + RATE_BLOCK, None] + np.arange(win)[None, :]]
        ok = np.flatnonzero(np.isfinite(segs).all(axis=1))
        if ok.size == 0:
            continue
        segs = segs[ok] - segs[ok].mean(axis=1, keepdims=True)
        # the band's bins only squared (the same values as squaring all of them first)
        spec = np.abs(np.fft.rfft(segs * taper, n=nfft, axis=1)[:, band]) ** 2
        f = f_bpm[band]
        candidate = _local_maxima(spec) & (f >= lo[c + ok, None]) & (f <= hi[c + ok, None])
        score = np.where(candidate, spec * emphasis, -1.0)
        found = np.any(spec > 0, axis=1) & candidate.any(axis=1)
        bpm[c + ok] = np.where(found, f[np.argmax(score, axis=1)], np.nan)
    return bpm


def _local_maxima(spec: np.ndarray) -> np.ndarray:
    """Where each row of ``spec`` is at least both its neighbours (one, at the ends)."""
    ge_left = np.ones(spec.shape, dtype=bool)
    ge_right = np.ones(spec.shape, dtype=bool)
    ge_left[:, 1:] = spec[:, 1:] >= spec[:, :-1]
    ge_right[:, :-1] = spec[:, :-1] >= spec[:, 1:]
    return ge_left & ge_right
