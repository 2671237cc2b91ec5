"""The QRS-window matrix and the classic beat-to-beat respiratory series.

Every function samples the ECG at the *sub-sample* R positions of
:class:`edr.beats.Beats`: each beat's neighbourhood is upsampled ten times
(polyphase FIR, the interpolation of :func:`scipy.signal.resample_poly`, which
the alignment used) and read at the exact positions by linear interpolation on
that fine grid (only the two fine samples around each position are computed).
The ECG is multiplied by ``beats.polarity`` so an inverted lead gives upright
beats. NaN samples are bridged linearly first; windows that touch them are the
caller's business through ``beats.valid`` (:func:`edr.beats.detect` never keeps
a beat inside a masked stretch).

Baseline handling (``baseline=``):

* ``"pr"`` (default) — each window minus the local isoelectric level, the
  median of the ECG over the PR segment ``[R - 120 ms, R - 60 ms]`` of the
  same beat. It removes baseline wander beat by beat without filtering the
  QRS complex.
* ``None`` — raw values.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from edr.medians import median
from edr.upsampling import MARGIN, polyphase_taps

__all__ = ["MATRIX_RATE_HZ", "MORPHOLOGY_WINDOW_S", "OUTLIER_MADS", "QRS_HALF_WIDTH_S",
           "qrs_matrix", "r_amplitude", "qrs_area", "rail_free_columns",
           "robust_beat_matrix", "rr_intervals", "sample_at"]

_UP = 10
MATRIX_RATE_HZ = 125.0
"""Rate (Hz) at which the kernel methods read the QRS window, whatever the ECG's rate: the matrix
then has the same columns (and the RBF kernel the same scale) at 125, 250 or 1000 Hz."""
QRS_HALF_WIDTH_S = 0.06
"""Half-width (s) of a beat's QRS window, R ± 60 ms: the window its morphology is read from
(:func:`qrs_matrix`), within which a clipped sample (:func:`edr.beats.flags.clipped_beats`) or a
bridged gap (:data:`edr.beats.detection.GAP_GUARD_S`) makes the beat unusable."""
PR_SEGMENT_S = (-0.12, -0.06)
"""PR-segment window (s relative to R) whose median is the local baseline."""


def _prepared(ecg) -> np.ndarray:
    """The lead as float, NaN bridged linearly (a copy only when there is NaN).

    The polarity is applied to the results instead of the lead (sampling and
    the PR median are odd functions), so no full-length copy is made.
    """
    x = np.asarray(ecg, dtype=float)
    if x.ndim != 1:
        raise ValueError(f"ecg must be one-dimensional, got shape {x.shape}")
    bad = ~np.isfinite(x)
    if bad.all():
        raise ValueError("ecg has no finite sample")
    if bad.any():
        idx = np.arange(x.size)
        x = x.copy()
        x[bad] = np.interp(idx[bad], idx[~bad], x[~bad])
    return x


_TAPS, _SKIP = polyphase_taps(_UP)


@numba.njit(cache=True, nogil=True)
def _sample_rows(x, base, frac, offsets, h, taps, up, skip, out, seg, ab):  # pragma: no cover
    """``out[i, k]``: linear interpolation between the two fine samples (``resample_poly(seg -
    seg[h], up, 1) + seg[h]`` of the ``2 h + 1`` samples ``seg`` around ``base[i]``, clipped
    indices = edge values) around fine position ``(frac[i] + offsets[k] + h) * up``.

    Each fine sample ``j`` is summed from the polyphase filter (``taps``:
    :func:`edr.upsampling.polyphase_taps`) in :func:`scipy.signal.upfirdn`'s order, written
    out here once (a compiled helper for it cost ~0.3 s more to compile on the first run,
    ``docs/studies/first_run.md``). Compiled; its buffers come from the caller (``seg``: the
    ``2 h + 1`` samples; ``ab``: the fine samples ``i0, i0 + 1`` last computed, reused) and the
    clipping is written out, so no allocation, ``min``/``max`` or ``int`` is compiled with it."""
    n = x.size
    width = 2 * h + 1
    last = width * up - 2
    per_phase = taps.size // up
    for i in range(base.size):
        for c in range(width):
            at = base[i] - h + c
            seg[c] = x[0 if at < 0 else (n - 1 if at > n - 1 else at)]
        level = seg[h]
        for c in range(width):
            seg[c] = seg[c] - level
        prev = -2
        for k in range(offsets.size):
            u = (frac[i] + offsets[k] + h) * up
            i0 = math.floor(u)
            i0 = 0 if i0 < 0 else (last if i0 > last else i0)
            w = u - i0
            if i0 != prev:
                first = 0
                if i0 == prev + 1:
                    ab[0] = ab[1]
                    first = 1
                for q in range(first, 2):  # fine sample i0 + q, summed in upfirdn's order
                    j = i0 + q + skip
                    xi = j // up
                    hi = (j % up) * per_phase
                    c0 = xi - per_phase + 1
                    if c0 < 0:
                        hi -= c0
                        c0 = 0
                    acc = 0.0
                    for c in range(c0, xi + 1 if xi + 1 < width else width):
                        acc = acc + seg[c] * taps[hi]
                        hi += 1
                    ab[q] = acc
            prev = i0
            out[i, k] = (1 - w) * ab[0] + w * ab[1] + level


def sample_at(x: np.ndarray, positions: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Values of ``x`` at ``positions[i] + offsets[k]`` (samples), band-limited interpolation.

    Each position's neighbourhood (the samples within ``max |offset| + 14`` of it, indices
    clipped to the signal: edge values beyond its ends) minus its level (the sample at the
    position's integer part) is upsampled ten times as by
    ``scipy.signal.resample_poly(segment - level, 10, 1)``, read by linear interpolation between
    the two fine samples around the position, and the level added back; only those fine samples
    are computed, with :func:`scipy.signal.upfirdn`'s arithmetic (the same values as resampling
    the whole neighbourhood). The level is taken out because the polyphase filter's ten phases
    pass a constant with gains that differ from 1 by up to 7e-4: a constant offset of the ECG
    (arbitrary units, ADC counts) would otherwise reach the beats' values scaled by the gain of
    each beat's sub-sample phase; with it, ``sample_at(x + c, ...)`` is ``sample_at(x, ...) + c``
    up to rounding, and a constant is read as itself.

    Parameters
    ----------
    x : ndarray, shape (n,)
        Finite signal.
    positions : ndarray, shape (m,)
        Fractional sample positions (e.g. sub-sample R peaks).
    offsets : ndarray, shape (k,)
        Fractional offsets in samples.

    Returns
    -------
    ndarray, shape (m, k)
        Interpolated values; positions outside the signal take the edge value.
    """
    x = np.ascontiguousarray(x, dtype=float)
    positions = np.asarray(positions, dtype=float)
    offsets = np.ascontiguousarray(offsets, dtype=float)
    base = np.floor(positions).astype(np.int64)
    frac = positions - base
    lo = int(np.floor(offsets.min())) - 1
    hi = int(np.ceil(offsets.max())) + 2
    h = MARGIN + max(-lo, hi)
    out = np.empty((positions.size, offsets.size))
    _sample_rows(x, base, frac, offsets, h, _TAPS, _UP, _SKIP, out, np.empty(2 * h + 1),
                 np.empty(2))
    return out


def _baseline(x: np.ndarray, fs: float, peaks: np.ndarray) -> np.ndarray:
    a, b = PR_SEGMENT_S
    k = np.arange(int(np.floor(a * fs)), int(np.ceil(b * fs)) + 1)
    idx = np.clip(np.rint(peaks).astype(int)[:, None] + k[None, :], 0, x.size - 1)
    return median(x[idx], axis=1)


def _check_baseline(baseline):
    if baseline not in ("pr", None):
        raise ValueError(f"baseline must be 'pr' or None, got {baseline!r}")


def qrs_matrix(ecg, fs: float, beats, *, half_width_s: float = QRS_HALF_WIDTH_S, upsample: int = 1,
               baseline: str | None = "pr", rate_hz: float | None = None) -> np.ndarray:
    """Beats × samples matrix of QRS windows centred on the sub-sample R peaks.

    Parameters
    ----------
    ecg : array_like, shape (n,)
        The lead the beats were detected on (physical units).
    fs : float
        Its sampling rate in Hz (must equal ``beats.fs``).
    beats : Beats
        From :func:`edr.beats.detect`.
    half_width_s : float, default :data:`QRS_HALF_WIDTH_S`
        Window half-width in s (R ± 60 ms by default).
    upsample : int, default 1
        Samples per original sampling interval in the window; 1 keeps the
        ECG's own sampling step (the window is still read at the exact,
        sub-sample R position).
    baseline : {"pr", None}, default "pr"
        Baseline handling, see the module docstring.
    rate_hz : float, optional
        Read the window at this rate instead of ``fs`` (e.g. :data:`MATRIX_RATE_HZ`), by the
        same band-limited interpolation; ``rate_hz == fs`` gives the same matrix as None.

    Returns
    -------
    ndarray, shape (n_beats, 2 * round(half_width_s * rate * upsample) + 1)
        One row per beat (``rate`` = ``rate_hz`` or ``fs``), invalid beats included (mask
        with ``beats.valid``).
    """
    _check_baseline(baseline)
    fs = float(fs)
    if abs(fs - beats.fs) > 1e-8 + 1e-5 * abs(beats.fs):  # numpy.isclose, without its cost
        raise ValueError(f"fs={fs} differs from beats.fs={beats.fs}")
    if half_width_s <= 0:
        raise ValueError(f"half_width_s must be positive, got {half_width_s!r}")
    if int(upsample) < 1:
        raise ValueError(f"upsample must be an integer >= 1, got {upsample!r}")
    if rate_hz is not None and not rate_hz > 0:
        raise ValueError(f"rate_hz must be positive, got {rate_hz!r}")
    x = _prepared(ecg)
    rate = fs if rate_hz is None else float(rate_hz)
    h = int(round(half_width_s * rate * int(upsample)))
    offsets = np.arange(-h, h + 1) * (fs / (rate * int(upsample)))
    mat = sample_at(x, beats.peaks, offsets)
    if baseline == "pr":
        mat -= _baseline(x, fs, beats.peaks)[:, None]
    if beats.polarity == -1:
        np.negative(mat, out=mat)
    return mat


def rail_free_columns(x, beats, width: int, *, max_fraction: float = 0.05,
                      step: float = 1.0) -> np.ndarray:
    """QRS-window positions at the lead's rail (its max or min) in at most ``max_fraction`` of the
    valid beats.

    A saturating (clipped) lead carries no modulation where its samples sit at
    the rail, and the rail's on/off pattern would dominate kernel distances.
    The test is symmetric in the sign of ``x``, so the lead's polarity does
    not matter.

    ``step``: samples of ``x`` between two columns (``fs / rate_hz`` for a matrix read at
    ``rate_hz``, see :func:`qrs_matrix`).

    Returns
    -------
    ndarray of bool, shape (width,)
        Columns to keep; all of them when fewer than 3 would remain, when the
        lead has no finite sample or when no beat is valid.
    """
    x = np.asarray(x, dtype=float)
    keep_all = np.ones(width, dtype=bool)
    ok = np.isfinite(x)
    valid = np.asarray(beats.valid, dtype=bool)
    if not ok.any() or not valid.any():
        return keep_all
    hi, lo = np.max(x[ok]), np.min(x[ok])
    h = width // 2
    cols = np.rint(np.arange(-h, h + 1) * step).astype(int)
    idx = np.clip(np.rint(beats.peaks[valid]).astype(int)[:, None] + cols[None, :], 0, x.size - 1)
    w = x[idx]
    keep = ((w >= hi) | (w <= lo)).mean(axis=0) <= max_fraction
    return keep if keep.sum() >= 3 else keep_all


def r_amplitude(ecg, fs: float, beats, *, baseline: str | None = "pr") -> np.ndarray:
    """R-wave amplitude per beat: the ECG at the sub-sample R position minus the baseline.

    Parameters
    ----------
    ecg, fs, beats
        As in :func:`qrs_matrix`.
    baseline : {"pr", None}, default "pr"
        ``"pr"``: relative to the PR-segment median of the same beat.

    Returns
    -------
    ndarray, shape (n_beats,)
    """
    _check_baseline(baseline)
    x = _prepared(ecg)
    amp = sample_at(x, beats.peaks, np.zeros(1))[:, 0]
    if baseline == "pr":
        amp -= _baseline(x, float(fs), beats.peaks)
    return beats.polarity * amp


def qrs_area(ecg, fs: float, beats, *, half_width_s: float = 0.05,
             baseline: str | None = "pr") -> np.ndarray:
    """QRS area per beat: integral of the baseline-corrected ECG over R ± ``half_width_s``.

    Trapezoidal rule on the window read at the sub-sample R position with a
    step of a tenth of a sample; units are those of the ECG times seconds
    (mV·s).

    Returns
    -------
    ndarray, shape (n_beats,)
    """
    mat = qrs_matrix(ecg, fs, beats, half_width_s=half_width_s, upsample=10, baseline=baseline)
    return np.trapezoid(mat, dx=1.0 / (10 * float(fs)), axis=1)


def rr_intervals(beats) -> np.ndarray:
    """RR interval ending at each beat, in s (NaN for the first beat).

    Returns
    -------
    ndarray, shape (n_beats,)
        ``t[i] - t[i-1]`` from the sub-sample R times.
    """
    t = np.asarray(beats.times, dtype=float)
    return np.concatenate([[np.nan], np.diff(t)])


MORPHOLOGY_WINDOW_S = 30.0
"""Span (s) of the running median that :func:`robust_beat_matrix` removes from every column."""
OUTLIER_MADS = 5.0
"""Beats farther than this many scaled MADs beyond the median residual distance are outliers."""


_MEDIAN_BLOCK_ROWS = 2048
"""Rows of one block of :func:`_running_median_columns` (its window copies: rows x columns x
window values)."""
COMPILED_MEDIAN_MAX_ROWS = 128
"""Matrices of at most this many rows (beats) take their running medians from the compiled
sorted windows (:func:`_running_median_sorted`), larger ones from :func:`numpy.partition`: a
stream's stretches (40 s: 30-70 beats) are faster compiled, at every update, while an offline
record's matrix (hundreds of beats and more) stays in NumPy, so that an offline command never
compiles or loads the loop (the measurements: ``docs/studies/stream_design.md``)."""


@numba.njit(cache=True, nogil=True)
def _running_median_sorted(X, n, win, out):  # pragma: no cover - compiled
    """``out[r, c]``: the middle of the sorted ``X[r - h .. r + h, c]`` (``h = n // 2``, row
    indices clipped to the matrix: the edge rows repeated; NaN sorted after every number), from
    one sorted window per column (``win``: ``n`` values, from the caller) that trades its oldest
    value for the newest at each row: ``O(rows * n)`` per column, no window copies. Nothing
    allocated, no ``min``/``max`` builtins (``docs/studies/first_run.md``)."""
    rows, cols = X.shape
    h = n // 2
    last = rows - 1
    for c in range(cols):
        for p in range(n):  # the first window, sorted by insertion
            src = p - h
            if src < 0:
                src = 0
            elif src > last:
                src = last
            v = X[src, c]
            i = p
            while i > 0 and (v < win[i - 1] or (win[i - 1] != win[i - 1] and v == v)):
                win[i] = win[i - 1]
                i -= 1
            win[i] = v
        out[0, c] = win[h]
        for r in range(1, rows):
            src = r - 1 - h
            old = X[src if src > 0 else 0, c]
            src = r + h
            new = X[src if src < last else last, c]
            i = 0  # the old value's place (an equal one: the same number)
            while not (win[i] == old or (old != old and win[i] != win[i])):
                i += 1
            while i > 0 and (new < win[i - 1] or (win[i - 1] != win[i - 1] and new == new)):
                win[i] = win[i - 1]  # the new value moved into order
                i -= 1
            while i < n - 1 and (win[i + 1] < new or (new != new and win[i + 1] == win[i + 1])):
                win[i] = win[i + 1]
                i += 1
            win[i] = new
            out[r, c] = win[h]


def _running_median_columns(X: np.ndarray, n: int, compiled: bool | None = None) -> np.ndarray:
    """Running median of every column over ``n`` (odd) rows, the edge rows repeated beyond the
    ends: ``scipy.ndimage.median_filter(X, size=(n, 1), mode="nearest")`` (NaN sorted last, as
    :func:`numpy.partition` sorts it). Up to :data:`COMPILED_MEDIAN_MAX_ROWS` rows by the
    compiled sorted windows (:func:`_running_median_sorted`); else the middle of each window by
    :func:`numpy.partition`, in blocks of :data:`_MEDIAN_BLOCK_ROWS` rows (nothing to compile on a
    first run: ``docs/studies/first_run.md``); ``compiled=True`` takes the compiled windows
    whatever the size (a caller that has loaded them already). The same values either way (of two
    equal values, a zero's sign may differ)."""
    X = np.ascontiguousarray(X, dtype=float)
    h = n // 2
    rows = X.shape[0]
    out = np.empty_like(X)
    if 0 < rows and (compiled or rows <= COMPILED_MEDIAN_MAX_ROWS):
        _running_median_sorted(X, int(n), np.empty(int(n)), out)
        return out
    for lo in range(0, rows, _MEDIAN_BLOCK_ROWS):
        hi = min(lo + _MEDIAN_BLOCK_ROWS, rows)
        cols = np.ascontiguousarray(X[np.clip(np.arange(lo - h, hi + h), 0, rows - 1)].T)
        windows = np.lib.stride_tricks.sliding_window_view(cols, n, axis=1)  # cols, rows, n
        out[lo:hi] = np.partition(windows, h, axis=-1)[..., h].T
    return out


def robust_beat_matrix(X, times, *, window_s: float | None = MORPHOLOGY_WINDOW_S,
                       outlier_mads: float | None = OUTLIER_MADS, compiled: bool | None = None):
    """The beat matrix without its slow morphology changes and its outlier beats.

    Respiration modulates the beats at 0.05-1 Hz; electrode repositioning,
    posture and slow drift change their shape more slowly (steps, trends), and
    ectopic or artefact beats form clusters of their own. Both can outweigh the
    respiratory modulation in the first principal component. Each column of
    ``X`` (one sample position over the beats) has its running median over
    ``window_s`` seconds of beats removed (an edge-preserving high-pass along
    the beats: a step leaves no transient), then the beats whose residual row
    lies farther from the median residual row than ``median + outlier_mads *
    1.4826 * MAD`` of those distances are flagged. Rationale and measurements:
    ``docs/design.md#3-generalisation-to-unseen-patients``.

    Parameters
    ----------
    X : ndarray, shape (n_beats, d)
        QRS-window matrix of consecutive valid beats.
    times : ndarray, shape (n_beats,)
        Their times (s), increasing.
    window_s : float or None, default :data:`MORPHOLOGY_WINDOW_S`
        Running-median span; None keeps the columns as they are.
    outlier_mads : float or None, default :data:`OUTLIER_MADS`
        Outlier threshold; None flags no beat.
    compiled : bool, optional
        True: the running medians from the compiled sorted windows whatever the matrix's size
        (a stream, which loads them for its short stretches anyway); None: by size
        (:data:`COMPILED_MEDIAN_MAX_ROWS`). The same values either way.

    Returns
    -------
    residual : ndarray, shape (n_beats, d)
    keep : ndarray of bool, shape (n_beats,)
        False for the outlier beats.

    See Also
    --------
    qrs_matrix : the QRS-window matrix cleaned here.
    edr.methods.kpca_edr : the kernel PCA EDR; with ``robust=True`` (the default) it analyses
        the residual of the kept beats.
    MORPHOLOGY_WINDOW_S, OUTLIER_MADS : the defaults.

    Examples
    --------
    A 5 s breathing rhythm in two columns, a step of 5 at beat 60 (a new electrode position)
    and one artefact beat (90):

    >>> import numpy as np
    >>> from edr.modulation import robust_beat_matrix
    >>> t = np.arange(120.0)
    >>> breath = np.sin(2 * np.pi * t / 5)
    >>> X = np.column_stack([breath, 0.5 * breath]) + np.where(t < 60, 0.0, 5.0)[:, None]
    >>> X[90] += 20.0
    >>> residual, keep = robust_beat_matrix(X, t)
    >>> residual.shape, np.flatnonzero(~keep).tolist()
    ((120, 2), [90])
    >>> def r(x):
    ...     return round(float(np.corrcoef(x[keep, 0], breath[keep])[0, 1]), 2)
    >>> r(X), r(residual)  # the breathing, before and after the step is removed
    (0.27, 0.88)
    """
    X = np.asarray(X, dtype=float)
    t = np.asarray(times, dtype=float)
    if X.ndim != 2 or t.shape != (X.shape[0],):
        raise ValueError(f"X must be (n_beats, d) with one time per beat, got {X.shape} and "
                         f"{t.shape}")
    keep = np.ones(X.shape[0], dtype=bool)
    if X.shape[0] < 3:
        return X, keep
    if window_s is not None:
        rr = median(np.diff(t))
        n = max(3, int(round(window_s / rr)) | 1) if rr > 0 else 3
        X = X - _running_median_columns(X, n, compiled)
    if outlier_mads is not None:
        d = np.linalg.norm(X - median(X, axis=0), axis=1)
        middle = median(d)
        mad = 1.4826 * median(np.abs(d - middle))
        if mad > 0:
            keep = d <= middle + outlier_mads * mad
    return X, keep
