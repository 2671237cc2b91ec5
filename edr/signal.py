"""Signal steps and protocol constants shared by the methods, the pipeline and the evaluation.

The one home of the uniform output grid (:data:`GRID_FS`), the respiratory
band (:data:`BAND_HZ`) and its band-pass, the filters' designs (:func:`butter_sos`; the stream's
FIR high-pass :func:`fir_highpass`), the cubic-spline resampling of
beat-sampled series, the constants of the rate windows (their rates: :mod:`edr.rates`; the
spectral concentration: :mod:`edr.spectra`),
and the limits every layer above shares (:data:`FS_RANGE`, :data:`MIN_BEATS`).
It sits below :mod:`edr.methods` and imports only :mod:`edr.errors`, :mod:`edr.names`,
:mod:`edr.beats` and the layer-0 steps (:mod:`edr.zero_phase`, :mod:`edr.dsp`: SciPy's designs,
Welch and spline without importing ``scipy.signal`` or ``scipy.interpolate``; see
``docs/design.md#1-architecture-a-one-way-stack``);
the evaluation protocol these steps implement is
``docs/design.md#5-evaluation-protocol-and-report``.
"""

from __future__ import annotations

import functools

import numpy as np

from edr import zero_phase
from edr.beats import MIN_BEATS
from edr.dsp import filters
from edr.dsp.spline import cubic_spline
from edr.errors import SignalError
from edr.io.arrays import as_series
from edr.names import FS_RANGE

__all__ = [
    "BAND_HZ",
    "FILTER_ORDER",
    "FS_RANGE",
    "GRID_FS",
    "MIN_BEATS",
    "RATE_BAND_BPM",
    "RATE_NFFT",
    "RATE_STEP_S",
    "RATE_TILT",
    "NYQUIST_MARGIN_BPM",
    "RATE_WINDOW_S",
    "WELCH_SEGMENT_S",
    "as_series",
    "butter_sos",
    "carried_bpm",
    "bandpass",
    "fir_highpass",
    "fir_highpass_taps",
    "positive_rate",
    "to_uniform_grid",
]

GRID_FS = 4.0
"""Rate (Hz) of the uniform grid every respiratory series is put on."""

BAND_HZ = (0.05, 1.0)
"""Respiratory band (Hz): the band-pass, the reference-peak search, the concentration."""

FILTER_ORDER = 4
"""Order of the Butterworth filters (applied forward and backward)."""

RATE_WINDOW_S = 32.0
"""Length (s) of a respiratory-rate window (one rate every :data:`RATE_STEP_S`): several breaths
of the slowest rate in :data:`RATE_BAND_BPM`, short enough to follow a change of rate."""

WELCH_SEGMENT_S = 32.0
"""Length (s) of a Welch segment of the spectra that score and judge a series: the coherence
(MSC) of :mod:`edr.scoring`, :func:`edr.spectra.spectral_concentration`, the cross-spectrum of
:func:`edr.polarity.rsa_evidence`. Equal to :data:`RATE_WINDOW_S` by the evaluation protocol, not
by necessity: a rate window is one spectrum, a Welch segment one of those averaged."""

RATE_STEP_S = 16.0
"""Step (s) between respiratory-rate windows."""

RATE_BAND_BPM = (4.0, 60.0)
"""Band (breaths/min) in which a rate window's spectral peak is searched."""

RATE_NFFT = 4096
"""Zero-padded length of a rate window's periodogram."""

RATE_TILT = 0.5
"""Exponent ``a`` of the frequency weighting that picks a rate window's peak: of the local maxima
of the periodogram ``S(f)``, the one with the largest ``f**a S(f)``; its rate is read from
``S`` (the weighting moves no peak). Between the highest peak (0), which a slow drift or the
low-frequency heart-rate variability (spectra falling like ``1/f``) can win over a faster,
shallower breathing, and the peak with the most power per unit of log-frequency (1), which a
harmonic of the breathing can win over the breathing itself. Chosen by nested
leave-one-subject-out (``docs/tuned_constants.md``)."""

NYQUIST_MARGIN_BPM = 2 * 60.0 / RATE_WINDOW_S
"""Margin (breaths/min, 3.75) that a beat-sampled series' rate keeps below half the local beat
rate (:func:`carried_bpm`): the half-width of the main lobe of a rate window's Hann periodogram
(``2 / RATE_WINDOW_S`` Hz). A series sampled once per beat carries no rhythm above half the beat
rate; a beat-to-beat alternation (electrical alternans, bigeminy) sits exactly there and its lobe
reaches this far below it, and a rhythm ``f`` closer to the limit cannot be told from the image at
``HR - f`` that the interpolation between beats leaves (``docs/studies/carried_rates.md``)."""

# FS_RANGE — supported ECG sampling rates (Hz, defined in :mod:`edr.names`), and MIN_BEATS —
# fewest beats an analysis needs, are those :func:`edr.beats.detect` enforces; re-exported here
# for the layers above.


def positive_rate(fs: float, name: str = "fs") -> float:
    """``fs`` as a positive finite float (Hz); ``ValueError`` naming ``name`` otherwise.

    See Also
    --------
    edr.names.check_fs : the supported ECG rates.

    Examples
    --------
    >>> from edr.signal import positive_rate
    >>> positive_rate(250)
    250.0
    """
    fs = float(fs)
    if not np.isfinite(fs) or fs <= 0:
        raise ValueError(f"{name} must be a positive finite rate in Hz, got {fs!r}")
    return fs


def carried_bpm(beat_times, starts_s, length_s: float = RATE_WINDOW_S) -> np.ndarray:
    """Fastest rate (breaths/min) a series sampled at ``beat_times`` carries in each window
    ``[s, s + length_s)`` of ``starts_s``: half its beats' rate there, less
    :data:`NYQUIST_MARGIN_BPM`.

    Parameters
    ----------
    beat_times : array_like, shape (n,)
        Times (s) of the beats the series is sampled at, increasing.
    starts_s : array_like, shape (m,)
        Window starts (s, same time origin).
    length_s : float, default :data:`RATE_WINDOW_S`
        Window length (s).

    Returns
    -------
    ndarray, shape (m,)
        ``30 (k - 1) / (t_last - t_first) - NYQUIST_MARGIN_BPM`` for the ``k`` beats inside a
        window (a stretch without beats lowers the rate as it lowers the sampling), at least 0;
        0 for a window with fewer than two beats.

    See Also
    --------
    edr.rates.near_carried, edr.fusion.carried_hz

    Examples
    --------
    >>> import numpy as np
    >>> from edr.signal import carried_bpm
    >>> beats = np.arange(0, 64, 0.8)  # 75 beats/min
    >>> carried_bpm(beats, [0.0, 16.0])  # 37.5 - 3.75
    array([33.75, 33.75])
    """
    t = as_series(beat_times, "beat_times")
    starts = np.asarray(starts_s, dtype=float).reshape(-1)
    lo = np.searchsorted(t, starts, side="left")
    hi = np.searchsorted(t, starts + float(length_s), side="left") - 1
    out = np.zeros(starts.size)
    ok = hi > lo
    span = t[hi[ok]] - t[lo[ok]]
    out[ok] = np.maximum(30.0 * (hi[ok] - lo[ok]) / span - NYQUIST_MARGIN_BPM, 0.0)
    return out


def to_uniform_grid(t, x, *, fs: float = GRID_FS, t_start: float | None = None,
                    t_end: float | None = None):
    """Interpolate a (possibly irregularly) sampled series onto a uniform grid.

    Parameters
    ----------
    t : array_like, shape (n,)
        Sample times in s, strictly increasing (after dropping non-finite values).
    x : array_like, shape (n,) or (n, k)
        Values (``k`` series sampled at the same times); samples with a non-finite value are
        ignored.
    fs : float, default :data:`GRID_FS`
        Grid rate in Hz.
    t_start, t_end : float, optional
        Grid limits in s (default: first and last finite sample). Grid points
        outside the sampled span take the value of the nearest end sample
        (constant extension).

    Returns
    -------
    t_grid, x_grid : ndarray
        ``t_grid = t_start + k / fs`` for ``k = 0 .. floor((t_end - t_start) fs)``;
        ``x_grid`` (one column per series for a 2-D ``x``) from the not-a-knot cubic
        interpolating spline (:func:`edr.dsp.spline.cubic_spline`, SciPy's ``CubicSpline``).

    Raises
    ------
    SignalError
        Fewer than 4 finite samples.
    ValueError
        Bad shapes, ``fs``, non-increasing ``t`` or ``t_end < t_start``.

    See Also
    --------
    edr.methods.series_on_grid : a method's beat series onto its window's grid.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.signal import to_uniform_grid
    >>> beats = np.arange(0.0, 10.0, 0.8)
    >>> t_grid, x_grid = to_uniform_grid(beats, np.sin(2 * np.pi * 0.2 * beats), fs=4.0)
    >>> t_grid[:3], t_grid.size
    (array([0.  , 0.25, 0.5 ]), 39)
    >>> bool(np.allclose(x_grid, np.sin(2 * np.pi * 0.2 * t_grid), atol=0.03))
    True
    """
    fs = positive_rate(fs)
    t = as_series(t, "t")
    x = np.asarray(x, dtype=float)
    if x.ndim not in (1, 2) or x.shape[0] != t.size:
        raise ValueError(f"x must have shape ({t.size},) or ({t.size}, k) for {t.size} times, got "
                         f"{x.shape}")
    ok = np.isfinite(t) & (np.isfinite(x) if x.ndim == 1 else np.isfinite(x).all(axis=1))
    t, x = t[ok], x[ok]
    if t.size < 4:
        raise SignalError(f"x has {t.size} finite samples; at least 4 are needed for a "
                          "cubic spline")
    if not (t[1:] > t[:-1]).all():
        raise ValueError("t must be strictly increasing")
    t_start = t[0] if t_start is None else float(t_start)
    t_end = t[-1] if t_end is None else float(t_end)
    if t_end < t_start:
        raise ValueError(f"t_end must be >= t_start, got t_start={t_start}, t_end={t_end}")
    n = int(np.floor((t_end - t_start) * fs + 1e-9)) + 1
    t_grid = t_start + np.arange(n) / fs
    return t_grid, cubic_spline(t, x, np.minimum(np.maximum(t_grid, t[0]), t[-1]))


@functools.lru_cache(maxsize=32)
def butter_sos(order: int, band, btype: str, fs: float) -> np.ndarray:
    """``scipy.signal.butter(order, band, btype=btype, fs=fs, output="sos")``, designed once per
    set of arguments (``band`` a float or a tuple; the array returned is read-only: SciPy's
    filters need a writeable copy).

    See Also
    --------
    bandpass, edr.dsp.filters.butter : the design (SciPy's, without importing it).

    Examples
    --------
    >>> from edr.signal import butter_sos
    >>> butter_sos(2, (0.05, 1.0), "bandpass", 4.0).shape
    (2, 6)
    """
    sos = filters.butter(order, band, btype, fs)
    sos.flags.writeable = False
    return sos


def bandpass(x, *, fs: float = GRID_FS, low: float = BAND_HZ[0], high: float = BAND_HZ[1]):
    """Zero-phase Butterworth band-pass (order :data:`FILTER_ORDER`, forward-backward).

    Parameters
    ----------
    x : array_like, shape (n,)
        Uniformly sampled series without NaN.
    fs : float, default :data:`GRID_FS`
        Sampling rate in Hz.
    low, high : float, default :data:`BAND_HZ`
        Pass band in Hz, ``0 < low < high < fs / 2``.

    Returns
    -------
    ndarray
        Filtered series (``scipy.signal.sosfiltfilt`` of ``x`` minus its mean, as
        :func:`edr.zero_phase.sosfiltfilt` runs it), same length.

    See Also
    --------
    butter_sos, edr.fusion.band_passed

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(480) / 4.0
    >>> b = np.sin(2 * np.pi * 0.25 * t)
    >>> from edr.signal import bandpass
    >>> y = bandpass(b + 0.5 + 0.01 * t)  # offset and drift removed
    >>> bool(abs(y.mean()) < 0.02 and np.corrcoef(y, b)[0, 1] > 0.99)
    True
    """
    fs = positive_rate(fs)
    x = as_series(x, "x")
    if not 0 < low < high < fs / 2:
        raise ValueError(f"need 0 < low < high < fs/2, got low={low}, high={high}, fs={fs}")
    if not np.all(np.isfinite(x)):
        raise SignalError(f"x has {int(np.sum(~np.isfinite(x)))} non-finite samples; interpolate "
                          "first")
    sos = butter_sos(FILTER_ORDER, (low, high), "bandpass", fs)
    padlen = min(3 * (2 * len(sos) + 1), x.size - 1)
    return zero_phase.sosfiltfilt(sos, x - np.mean(x), padlen=padlen)


@functools.lru_cache(maxsize=8)
def fir_highpass_taps(fs: float, before_n: int, after_n: int) -> np.ndarray:
    """Taps of the FIR high-pass :func:`fir_highpass` reaching ``before_n`` points before and
    ``after_n`` points after each output point (``before_n + after_n + 1`` taps, the first for
    the point ``after_n`` ahead; read-only): no gain at 0 Hz, and otherwise the gain closest in
    least squares, over 512 frequencies evenly spaced from 0 to ``fs / 2``, to that of the
    band-pass's lower edge, a Butterworth high-pass at ``BAND_HZ[0]`` of order
    :data:`FILTER_ORDER` applied forward and backward
    (``1 / (1 + (tan(pi f_low / fs) / tan(pi f / fs)) ** (2 FILTER_ORDER))``).

    A zero-phase FIR must reach as far after a point as before it; one that may wait only a few
    seconds for the points after (the stream's emission delay) then cuts far above
    ``BAND_HZ[0]``. Reaching further before moves its edge down to the band's, with a phase
    within a few degrees above it.

    See Also
    --------
    fir_highpass : the filter applied.
    bandpass : the band-pass whose lower edge it follows.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.signal import fir_highpass_taps
    >>> h = fir_highpass_taps(4.0, 72, 24)
    >>> h.size, bool(abs(h.sum()) < 1e-9)  # no gain at 0 Hz
    (97, True)
    """
    f = np.linspace(0.0, fs / 2, 512)
    edge = np.tan(np.pi * BAND_HZ[0] / fs)
    with np.errstate(divide="ignore"):
        ratio = np.where(f > 0, edge / np.tan(np.pi * np.minimum(f, fs / 2 * (1 - 1e-9)) / fs),
                         np.inf)
    target = 1.0 / (1.0 + ratio ** (2 * FILTER_ORDER))
    lags = np.arange(-after_n, before_n + 1)  # tap k weighs x[n - lags[k]]
    phase = 2 * np.pi * np.outer(f, lags) / fs
    a = np.vstack([np.cos(phase), np.sin(phase)])
    b = np.concatenate([target, np.zeros(f.size)])
    m = lags.size  # least squares with the taps summing to 0 (Lagrange)
    kkt = np.zeros((m + 1, m + 1))
    kkt[:m, :m] = a.T @ a
    kkt[:m, m] = kkt[m, :m] = 1.0
    taps = np.linalg.solve(kkt, np.concatenate([a.T @ b, [0.0]]))[:m]
    taps.flags.writeable = False
    return taps


def fir_highpass(x: np.ndarray, fs: float, before_n: int, after_n: int) -> np.ndarray:
    """``x`` high-passed by :func:`fir_highpass_taps` on the points with ``before_n`` points
    before and ``after_n`` after them: the output is ``before_n + after_n`` points shorter, its
    point ``i`` that of ``x[before_n + i]``.

    See Also
    --------
    fir_highpass_taps, bandpass

    Examples
    --------
    >>> import numpy as np
    >>> from edr.signal import fir_highpass
    >>> y = fir_highpass(np.full(200, 3.0), 4.0, 72, 24)  # a constant has no high frequencies
    >>> y.size, bool(np.allclose(y, 0.0))
    (104, True)
    """
    if x.size <= before_n + after_n:
        return x[:0]
    return np.convolve(x, fir_highpass_taps(float(fs), before_n, after_n), mode="valid")
