"""Agreement between an EDR and a reference respiration — the DESIGN.md protocol.

Both series go onto a uniform 4 Hz grid (cubic spline for beat-sampled
series) and through a zero-phase Butterworth band-pass 0.05–1.0 Hz. Then:

* **correlation** — ``|Pearson r|`` at zero lag (a morphological EDR has no
  physiological sign);
* **MSC** — mean magnitude-squared coherence (Welch, 32 s Hann segments, 50 %
  overlap) over ``f_ref ± 0.1 Hz``, ``f_ref`` the Welch peak of the reference
  in 0.05–1 Hz;
* **respiratory-rate error** — 32 s windows, 16 s step; the EDR rate is the
  spectral peak in 4–60 breaths/min; the reference rate comes from manual
  breath annotations where they exist (``60 / median inter-breath interval`` of
  the annotated breaths inside the window, at least 3 breaths needed, else the
  window is skipped), otherwise from the reference waveform by the same
  spectral-peak rule as the EDR; the per-record figure is the median absolute
  error in breaths/min over the windows.

Choices the protocol leaves open, fixed here once for every method:

* the band-pass is a 4th-order Butterworth (second-order sections) applied
  forward and backward (``scipy.signal.sosfiltfilt``), so the effective
  magnitude response is the square of a 4th-order one and the phase is zero;
* the reference waveform is low-passed at 0.4 × the grid rate (zero-phase,
  4th-order Butterworth) at its native rate before the spline, so that
  nothing above the grid's Nyquist frequency aliases into the band;
* the spectral peak of a 32 s rate window is searched on a Hann-windowed
  periodogram zero-padded to 4096 points (0.06 breaths/min bins).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import interpolate, signal

from edr.errors import RecordError, SignalError

__all__ = [
    "GRID_FS",
    "Scores",
    "bandpass",
    "correlation",
    "msc",
    "rate_error",
    "rate_series",
    "reference_on_grid",
    "score",
    "to_uniform_grid",
    "breath_rate_series",
]

GRID_FS = 4.0
"""Rate (Hz) of the uniform grid both series are compared on."""

BAND_HZ = (0.05, 1.0)
"""Respiratory band of the band-pass and of the reference-peak search (Hz)."""

MSC_HALF_WIDTH_HZ = 0.1
SEGMENT_S = 32.0
RATE_STEP_S = 16.0
RATE_BAND_BPM = (4.0, 60.0)
_FILTER_ORDER = 4
_RATE_NFFT = 4096


@dataclass(frozen=True)
class Scores:
    """Protocol figures for one record.

    Attributes
    ----------
    msc : float
        Mean magnitude-squared coherence over ``f_ref ± 0.1 Hz``.
    corr : float
        ``|Pearson r|`` at zero lag.
    rate_error_bpm : float
        Median absolute respiratory-rate error (breaths/min); NaN when no
        window has both rates.
    f_ref : float
        Welch peak frequency of the reference (Hz).
    """

    msc: float
    corr: float
    rate_error_bpm: float
    f_ref: float


def _as_1d(x, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {a.shape}")
    return a


def _check_fs(fs: float, name: str = "fs") -> float:
    fs = float(fs)
    if not np.isfinite(fs) or fs <= 0:
        raise ValueError(f"{name} must be a positive finite rate in Hz, got {fs!r}")
    return fs


def to_uniform_grid(t, x, *, fs: float = GRID_FS, t_start: float | None = None,
                    t_end: float | None = None):
    """Interpolate a (possibly irregularly) sampled series onto a uniform grid.

    Parameters
    ----------
    t : array_like, shape (n,)
        Sample times in s, strictly increasing (after dropping non-finite values).
    x : array_like, shape (n,)
        Values; non-finite samples are ignored.
    fs : float, default 4.0
        Grid rate in Hz.
    t_start, t_end : float, optional
        Grid limits in s (default: first and last finite sample). Grid points
        outside the sampled span take the value of the nearest end sample
        (constant extension; a spline extrapolates wildly).

    Returns
    -------
    t_grid, x_grid : ndarray
        ``t_grid = t_start + k / fs`` for ``k = 0 .. floor((t_end - t_start) fs)``;
        ``x_grid`` from a not-a-knot cubic spline (``scipy.interpolate.CubicSpline``).

    Raises
    ------
    SignalError
        Fewer than 4 finite samples.
    ValueError
        Bad shapes, ``fs``, non-increasing ``t`` or ``t_end < t_start``.
    """
    fs = _check_fs(fs)
    t = _as_1d(t, "t")
    x = _as_1d(x, "x")
    if t.shape != x.shape:
        raise ValueError(f"t and x must have the same length, got {t.size} and {x.size}")
    ok = np.isfinite(t) & np.isfinite(x)
    t, x = t[ok], x[ok]
    if t.size < 4:
        raise SignalError(f"x has {t.size} finite samples; at least 4 are needed for a cubic spline")
    if np.any(np.diff(t) <= 0):
        raise ValueError("t must be strictly increasing")
    t_start = t[0] if t_start is None else float(t_start)
    t_end = t[-1] if t_end is None else float(t_end)
    if t_end < t_start:
        raise ValueError(f"t_end must be >= t_start, got t_start={t_start}, t_end={t_end}")
    n = int(np.floor((t_end - t_start) * fs + 1e-9)) + 1
    t_grid = t_start + np.arange(n) / fs
    spline = interpolate.CubicSpline(t, x)
    x_grid = spline(np.clip(t_grid, t[0], t[-1]))
    return t_grid, x_grid


def bandpass(x, *, fs: float = GRID_FS, low: float = BAND_HZ[0], high: float = BAND_HZ[1]):
    """Zero-phase Butterworth band-pass (4th order, forward-backward).

    Parameters
    ----------
    x : array_like, shape (n,)
        Uniformly sampled series without NaN.
    fs : float, default 4.0
        Sampling rate in Hz.
    low, high : float
        Pass band in Hz, ``0 < low < high < fs / 2``.

    Returns
    -------
    ndarray
        Filtered series (``scipy.signal.sosfiltfilt``), same length.
    """
    fs = _check_fs(fs)
    x = _as_1d(x, "x")
    if not 0 < low < high < fs / 2:
        raise ValueError(f"need 0 < low < high < fs/2, got low={low}, high={high}, fs={fs}")
    if not np.all(np.isfinite(x)):
        raise SignalError(f"x has {int(np.sum(~np.isfinite(x)))} non-finite samples; interpolate first")
    sos = signal.butter(_FILTER_ORDER, [low, high], btype="bandpass", fs=fs, output="sos")
    padlen = min(3 * (2 * len(sos) + 1), x.size - 1)
    return signal.sosfiltfilt(sos, x - np.mean(x), padlen=padlen)


def reference_on_grid(resp, resp_fs: float, t_grid):
    """Put a uniformly sampled reference respiration onto the grid ``t_grid``.

    The reference (time ``k / resp_fs``) is low-passed at ``0.4 x`` the grid
    rate (zero-phase 4th-order Butterworth, only when ``resp_fs`` is higher
    than the grid rate), NaN samples are bridged by the spline, and a cubic
    spline is evaluated at ``t_grid``. The result is *not* band-passed.

    Parameters
    ----------
    resp : array_like, shape (n,)
        Reference respiration.
    resp_fs : float
        Its sampling rate in Hz.
    t_grid : array_like
        Uniform grid times in s (same time origin as the reference).
    """
    resp_fs = _check_fs(resp_fs, "resp_fs")
    resp = _as_1d(resp, "resp")
    t_grid = _as_1d(t_grid, "t_grid")
    if t_grid.size < 2:
        raise ValueError(f"t_grid needs at least 2 points, got {t_grid.size}")
    grid_fs = 1.0 / float(np.median(np.diff(t_grid)))
    t = np.arange(resp.size) / resp_fs
    ok = np.isfinite(resp)
    if ok.sum() < 4:
        raise SignalError(f"resp has {int(ok.sum())} finite samples; at least 4 are needed")
    if resp_fs > grid_fs:
        filled = np.interp(t, t[ok], resp[ok])
        sos = signal.butter(_FILTER_ORDER, 0.4 * grid_fs, btype="lowpass", fs=resp_fs, output="sos")
        filled = signal.sosfiltfilt(sos, filled - filled.mean()) + filled.mean()
        resp = np.where(ok, filled, np.nan)
    spline = interpolate.CubicSpline(t[ok], resp[ok])
    return spline(np.clip(t_grid, t[ok][0], t[ok][-1]))


def correlation(edr, ref) -> float:
    """``|Pearson r|`` at zero lag over the samples where both are finite."""
    edr = _as_1d(edr, "edr")
    ref = _as_1d(ref, "ref")
    if edr.shape != ref.shape:
        raise ValueError(f"edr and ref must have the same length, got {edr.size} and {ref.size}")
    ok = np.isfinite(edr) & np.isfinite(ref)
    if ok.sum() < 3:
        raise SignalError(f"only {int(ok.sum())} samples where edr and ref are both finite")
    a, b = edr[ok] - edr[ok].mean(), ref[ok] - ref[ok].mean()
    den = np.sqrt(np.dot(a, a) * np.dot(b, b))
    return float(abs(np.dot(a, b)) / den) if den > 0 else 0.0


def _welch_kwargs(fs: float, n: int) -> dict:
    nperseg = int(round(SEGMENT_S * fs))
    if n < nperseg:
        raise SignalError(
            f"series has {n} samples ({n / fs:.1f} s); the protocol needs at least one "
            f"{SEGMENT_S:.0f} s segment ({nperseg} samples at fs={fs} Hz)"
        )
    return dict(fs=fs, window="hann", nperseg=nperseg, noverlap=nperseg // 2, detrend="constant")


def msc(edr, ref, *, fs: float = GRID_FS):
    """Mean magnitude-squared coherence over ``f_ref ± 0.1 Hz``.

    Parameters
    ----------
    edr, ref : array_like, shape (n,)
        Band-passed series on the same uniform grid, at least 32 s long.
    fs : float, default 4.0
        Grid rate in Hz.

    Returns
    -------
    msc_value : float
        Mean of ``scipy.signal.coherence`` (Welch, Hann, 32 s segments, 50 %
        overlap) over the bins with ``|f - f_ref| <= 0.1 Hz``.
    f_ref : float
        Frequency (Hz) of the Welch PSD peak of ``ref`` within 0.05–1 Hz.
    """
    fs = _check_fs(fs)
    edr = _as_1d(edr, "edr")
    ref = _as_1d(ref, "ref")
    if edr.shape != ref.shape:
        raise ValueError(f"edr and ref must have the same length, got {edr.size} and {ref.size}")
    if not (np.all(np.isfinite(edr)) and np.all(np.isfinite(ref))):
        raise SignalError("edr and ref must be finite for the coherence")
    kw = _welch_kwargs(fs, edr.size)
    f, p_ref = signal.welch(ref, **kw)
    band = (f >= BAND_HZ[0]) & (f <= min(BAND_HZ[1], fs / 2))
    f_ref = float(f[band][np.argmax(p_ref[band])])
    f, cxy = signal.coherence(edr, ref, **kw)
    near = np.abs(f - f_ref) <= MSC_HALF_WIDTH_HZ + 1e-12
    return float(np.mean(cxy[near])), f_ref


def _window_starts(n: int, fs: float) -> np.ndarray:
    win = int(round(SEGMENT_S * fs))
    step = int(round(RATE_STEP_S * fs))
    if n < win:
        return np.empty(0, dtype=int)
    return np.arange(0, n - win + 1, step)


def _peak_rate_bpm(seg: np.ndarray, fs: float) -> float:
    seg = seg - seg.mean()
    spec = np.abs(np.fft.rfft(seg * np.hanning(seg.size), n=max(_RATE_NFFT, seg.size))) ** 2
    f_bpm = 60.0 * np.fft.rfftfreq(max(_RATE_NFFT, seg.size), d=1.0 / fs)
    band = (f_bpm >= RATE_BAND_BPM[0]) & (f_bpm <= RATE_BAND_BPM[1])
    if not np.any(spec[band] > 0):
        return np.nan
    return float(f_bpm[band][np.argmax(spec[band])])


def rate_series(x, *, fs: float = GRID_FS, t0: float = 0.0):
    """Respiratory rate per 32 s window (16 s step) from the spectral peak.

    Parameters
    ----------
    x : array_like, shape (n,)
        Uniformly sampled respiratory series.
    fs : float, default 4.0
        Its rate in Hz.
    t0 : float, default 0.0
        Time (s) of ``x[0]``.

    Returns
    -------
    t : ndarray
        Window centres in s.
    bpm : ndarray
        Peak of the Hann-windowed, zero-padded periodogram within 4–60
        breaths/min (NaN for a window with a non-finite sample or no power).
    """
    fs = _check_fs(fs)
    x = _as_1d(x, "x")
    win = int(round(SEGMENT_S * fs))
    starts = _window_starts(x.size, fs)
    bpm = np.full(starts.size, np.nan)
    for i, s in enumerate(starts):
        seg = x[s:s + win]
        if np.all(np.isfinite(seg)):
            bpm[i] = _peak_rate_bpm(seg, fs)
    return t0 + (starts + win / 2) / fs, bpm


def breath_rate_series(breath_times, window_starts_s, *, window_s: float = SEGMENT_S,
                       min_breaths: int = 3):
    """Reference rate per window from breath annotations.

    For each window ``[s, s + window_s)`` the rate is ``60 / median(diff(b))``
    with ``b`` the annotated breath times inside it; windows with fewer than
    ``min_breaths`` breaths get NaN. The median makes one missed or doubled
    annotation cost little.

    Parameters
    ----------
    breath_times : array_like
        Breath times in s.
    window_starts_s : array_like
        Window start times in s.
    window_s : float, default 32
        Window length in s.
    min_breaths : int, default 3
        Fewest annotated breaths for a rate.
    """
    b = np.sort(_as_1d(breath_times, "breath_times"))
    b = b[np.isfinite(b)]
    starts = _as_1d(window_starts_s, "window_starts_s")
    out = np.full(starts.size, np.nan)
    for i, s in enumerate(starts):
        inside = b[(b >= s) & (b < s + window_s)]
        if inside.size >= max(min_breaths, 2):
            out[i] = 60.0 / float(np.median(np.diff(inside)))
    return out


def rate_error(edr, ref=None, *, fs: float = GRID_FS, breath_times=None, t_grid=None) -> float:
    """Median absolute respiratory-rate error (breaths/min).

    Parameters
    ----------
    edr : array_like, shape (n,)
        Band-passed EDR on the uniform grid.
    ref : array_like or None
        Band-passed reference on the same grid; used only when
        ``breath_times`` is None.
    fs : float, default 4.0
        Grid rate in Hz.
    breath_times : array_like, optional
        Manual breath annotations in s (same time origin as ``t_grid``).
    t_grid : array_like, optional
        Grid times in s (default ``arange(n) / fs``); needed to place the
        windows against ``breath_times``.

    Returns
    -------
    float
        Median over windows with both rates finite of ``|rate_edr - rate_ref|``;
        NaN when no window qualifies.
    """
    fs = _check_fs(fs)
    edr = _as_1d(edr, "edr")
    t0 = 0.0 if t_grid is None else float(_as_1d(t_grid, "t_grid")[0])
    _, r_edr = rate_series(edr, fs=fs, t0=t0)
    if breath_times is not None:
        starts = t0 + _window_starts(edr.size, fs) / fs
        r_ref = breath_rate_series(breath_times, starts)
    elif ref is not None:
        ref = _as_1d(ref, "ref")
        if ref.shape != edr.shape:
            raise ValueError(f"edr and ref must have the same length, got {edr.size} and {ref.size}")
        _, r_ref = rate_series(ref, fs=fs, t0=t0)
    else:
        raise ValueError("rate_error needs ref or breath_times, got neither")
    err = np.abs(r_edr - r_ref)
    err = err[np.isfinite(err)]
    return float(np.median(err)) if err.size else float("nan")


def score(result, recording) -> Scores:
    """Score an EDR result against a recording's reference, by the protocol.

    Parameters
    ----------
    result : EDRResult-like
        Needs ``time`` (s), ``waveform`` (already band-passed, on a uniform
        grid) and ``fs`` (grid rate, Hz).
    recording : Recording-like
        Needs ``resp`` and ``resp_fs`` (reference respiration, same time
        origin as ``result.time``) and ``breath_times`` (s, or None). When
        breath annotations exist they give the reference rate; otherwise the
        reference waveform does.

    Returns
    -------
    Scores
    """
    if getattr(recording, "resp", None) is None or getattr(recording, "resp_fs", None) is None:
        name = getattr(recording, "name", "?")
        raise RecordError(f"recording {name!r} has no reference respiration (resp is None); cannot score")
    t_grid = _as_1d(result.time, "result.time")
    edr = _as_1d(result.waveform, "result.waveform")
    fs = _check_fs(result.fs, "result.fs")
    ref = bandpass(reference_on_grid(recording.resp, recording.resp_fs, t_grid), fs=fs)
    ok = np.isfinite(edr)
    if not np.all(ok):
        raise SignalError(f"result.waveform has {int(np.sum(~ok))} non-finite samples")
    m, f_ref = msc(edr, ref, fs=fs)
    r = correlation(edr, ref)
    breaths = getattr(recording, "breath_times", None)
    if breaths is not None and np.size(breaths) == 0:
        breaths = None
    err = rate_error(edr, ref, fs=fs, breath_times=breaths, t_grid=t_grid)
    return Scores(msc=m, corr=r, rate_error_bpm=err, f_ref=f_ref)
