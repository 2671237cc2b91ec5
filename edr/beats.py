"""R peaks, polarity, sub-sample alignment and beat quality flags.

Pipeline of :func:`detect`:

1. **Masking.** NaN samples and flat runs (the signal constant for at least
   ``flat_s`` seconds: a disconnected or saturated lead) are masked. Detection
   runs on each unmasked stretch separately, so masked samples never reach
   NeuroKit2 and peaks cannot fall inside them.
2. **Polarity.** NeuroKit2's ``ecg_invert`` rule decides (on the cleaned,
   concatenated unmasked samples) whether the lead is inverted; an inverted
   lead is multiplied by -1 before detection and ``Beats.polarity`` is -1.
   The rule (median over all 2 s windows of the largest-magnitude sample) is
   evaluated with running maxima in O(n) memory; the decision is
   ``nk.ecg_invert``'s (tested against it).
3. **Detection.** ``nk.ecg_clean`` then ``nk.ecg_peaks`` with the chosen
   ``method`` (any NeuroKit2 detector name). The lead is cleaned once and the
   cleaned signal reused by every later step. The default ``neurokit`` cleaning is
   NeuroKit2's recipe with its moving average exactly :data:`SMOOTHING_S` long at
   every rate; identical to ``nk.ecg_clean`` at multiples of 50 Hz. Unmasked stretches
   longer than :data:`CHUNK_S` are cleaned and searched in chunks with
   :data:`CHUNK_OVERLAP_S` margins (only each chunk's core keeps its peaks),
   so NeuroKit2 never sees a whole day. Each peak is moved to the local maximum of
   the cleaned signal within ±100 ms after removing the detector's median delay
   (Pan–Tompkins, Hamilton and Elgendi mark the peak of a filtered signal).
4. **Sub-sample alignment.** Every beat is upsampled ``upsample`` times
   (polyphase FIR, :func:`scipy.signal.resample_poly`) over R ± ``align_half_s``
   and cross-correlated (Pearson, so amplitude modulation does not bias the lag)
   with the median template over lags of ±``max_lag_s``; the best lag is refined
   by a parabola through the three highest correlations. Two passes (the second
   template is built from the beats shifted by the first pass). The peak
   position is then the template's own maximum (also parabola-refined) carried
   to each beat. Beats are processed in blocks (memory bounded on a whole
   day) and the template is the median of at most :data:`TEMPLATE_MAX_BEATS`
   evenly spread beats (a subset only shifts every peak by one common
   sub-sample offset).
5. **Quality flags** (``valid`` is False for any of them):

   * *ectopic*: RR-based, the classic short–long pattern of a premature beat —
     ``RR_before < 0.8 m`` and ``RR_after > 1.1 m`` with ``m`` the median of
     the 11 RR intervals around the beat;
   * *artifact*: correlation with the template below ``min_template_corr``;
     R amplitude (cleaned signal) outside ``[0.4, 2.5]`` times the running
     median of 11 beats; or *clipped* — a sample within R ± 60 ms that sits at
     the lead's extreme value (its maximum or minimum) in a run of at least 2
     equal samples — while clipped beats are fewer than ``max_clipped_fraction``
     of all beats.

The measurements behind the default detector, the smoothing length, the chunking, the
alignment and the clipping policy: ``docs/studies/beat_detection.md``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numba
import numpy as np
from scipy import ndimage, signal

from edr import zero_phase
from edr.errors import SignalError
from edr.medians import median
from edr.names import check_fs
from edr.quiet import ignored_warnings
from edr.upsampling import neighbourhoods_upsampled

__all__ = ["Beats", "DEFAULT_DETECTOR", "MIN_BEATS", "detect", "inversion_values", "inverted_by",
           "signal_mask", "true_runs"]

DEFAULT_DETECTOR = "neurokit"
"""Default NeuroKit2 R-peak detector: tied best on BIDMC (see the module docstring)."""

MIN_BEATS = 20
"""Fewest detected beats :func:`detect` accepts."""

CHUNK_S = 600.0
"""Longest stretch (s) handed to NeuroKit2 at once: longer unmasked stretches are
cleaned and searched for R peaks in chunks of this length (see :func:`detect`)."""
CHUNK_OVERLAP_S = 10.0
"""Margin (s) on each side of a chunk; only the chunk's core keeps its peaks."""
TEMPLATE_MAX_BEATS = 5000
"""At most this many beats, evenly spread, form the median alignment template."""
_ALIGN_BLOCK = 2000
_MASK_BLOCK = 1 << 20
"""Samples compared at once by :func:`signal_mask` (its memory is bounded on a whole day)."""
DELAY_AHEAD_S = 0.03
"""Latest a detector's mark may lie after R (s) in the delay estimate of :func:`detect`'s step 3."""

SMOOTHING_S = 0.02
"""Length (s) of the cleaning's moving average (NeuroKit2's 50 Hz "powerline" step), at every
rate: NeuroKit2 takes ``int(fs / 50)`` samples, which is 20 ms at multiples of 50 Hz but 16 ms at
125 Hz, and the template correlation read from the cleaned lead then depends on the rate (see
:func:`detect`, step 3)."""

_CLEAN_METHODS = {
    "neurokit", "pantompkins1985", "hamilton2002", "elgendi2010", "engzeemod2012",
    "christov2004", "kalidas2017", "emrich2023",
}


@dataclass
class Beats:
    """Detected heart beats of one lead.

    Attributes
    ----------
    peaks : ndarray of float
        R-peak positions in samples at ``fs`` (sub-sample when aligned).
    fs : float
        Sampling rate of the ECG (Hz).
    valid : ndarray of bool
        False for ectopic, artifact or clipped beats.
    polarity : int
        +1, or -1 when the lead was found inverted (the ECG was multiplied by -1).
    n_ectopic, n_artifact : int
        Number of beats flagged ectopic, and artifact (template mismatch,
        amplitude outlier or clipping; a beat can be both).
    template_corr : ndarray of float
        Pearson correlation of each aligned beat with the median template.
    clipped : ndarray of bool
        Beats with a clipped sample within R ± 60 ms.
    ectopic : ndarray of bool
        Beats flagged ectopic.
    n_masked : int
        ECG samples masked (NaN or flat runs).
    method : str
        NeuroKit2 detector used.
    template : ndarray or None
        The median beat the peaks were aligned to (upsampled R ± ``align_half_s``, R at the
        centre before the sub-sample refinement), as :func:`detect` takes it back.
    """

    peaks: np.ndarray
    fs: float
    valid: np.ndarray
    polarity: int
    n_ectopic: int
    n_artifact: int
    template_corr: np.ndarray = field(default_factory=lambda: np.empty(0))
    clipped: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=bool))
    ectopic: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=bool))
    n_masked: int = 0
    method: str = DEFAULT_DETECTOR
    template: np.ndarray | None = field(default=None, repr=False)

    @property
    def times(self) -> np.ndarray:
        """R-peak times in s."""
        return self.peaks / self.fs

    def __len__(self) -> int:
        return int(self.peaks.size)


def true_runs(mask: np.ndarray):
    """Start and stop indices (half-open) of the True runs of a boolean array."""
    edge = np.zeros(1, dtype=np.int8)  # int8 throughout: a whole-day mask stays 1 byte a sample
    d = np.diff(np.concatenate([edge, mask.astype(np.int8, copy=False), edge]))
    return np.flatnonzero(d == 1), np.flatnonzero(d == -1)


def signal_mask(ecg, fs: float, *, flat_s: float = 1.0) -> np.ndarray:
    """Boolean mask of unusable samples: NaN/inf, or flat runs of at least ``flat_s`` s.

    Parameters
    ----------
    ecg : array_like, shape (n,)
        The lead.
    fs : float
        Sampling rate (Hz).
    flat_s : float, default 1.0
        Shortest constant stretch (s) counted as flat (a disconnected lead or a
        saturated amplifier); short constant runs (a clipped R peak, a
        quantised baseline) are kept.

    Returns
    -------
    ndarray of bool
        True where the sample is masked.
    """
    x = np.asarray(ecg, dtype=float)
    bad = ~np.isfinite(x)
    m = max(int(round(flat_s * fs)) - 1, 1)  # a flat run: m equal neighbours in a row
    block = max(_MASK_BLOCK, 4 * m)
    for c0 in range(1, x.size, block):  # blocks of neighbour pairs (i - 1, i), m either side
        lo, hi = max(c0 - m, 1), min(c0 + block + m, x.size)
        same = x[lo:hi] == x[lo - 1:hi - 1]  # NaN compares unequal, so NaN never counts as flat
        starts, stops = true_runs(same)
        long = stops - starts >= m
        for a, b in zip(starts[long] + lo, stops[long] + lo, strict=True):
            bad[a - 1:b] = True
    return bad


def _clipped_samples(x: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Samples at the lead's extreme value inside runs of >= 2 equal samples."""
    clipped = np.zeros(x.size, dtype=bool)
    if not ok.any():
        return clipped
    for rail in (np.max(x[ok]), np.min(x[ok])):
        at = ok & (x == rail)
        starts, stops = true_runs(at)
        for a, b in zip(starts, stops, strict=False):
            if b - a >= 2:
                clipped[a:b] = True
    return clipped


def _check_inputs(ecg, fs, upsample: int = 1, polarity: int | None = None):
    """``(ecg, fs)`` as a float array and a float, :func:`detect`'s arguments checked."""
    x = np.asarray(ecg, dtype=float)
    if x.ndim != 1:
        raise ValueError(f"ecg must be one-dimensional, got shape {x.shape}")
    fs = check_fs(fs)
    if int(upsample) < 1:
        raise ValueError(f"upsample must be an integer >= 1, got {upsample!r}")
    if polarity not in (None, 1, -1):
        raise ValueError(f"polarity must be 1, -1 or None, got {polarity!r}")
    return x, fs


def _nk():
    """NeuroKit2, imported on first use only (its import takes 2-5 s, see docs/design.md
    "Start-up time"); the default ``neurokit`` cleaning and detector run without it."""
    import neurokit2

    return neurokit2


@functools.lru_cache(maxsize=8)
def _clean_highpass(fs: float) -> np.ndarray:
    """NeuroKit2's cleaning high-pass at ``fs``: ``scipy.signal.butter(5, 0.5, "highpass",
    output="sos")``, designed once per rate."""
    return signal.butter(5, 0.5, btype="highpass", output="sos", fs=fs)


def _nk_clean_neurokit(x: np.ndarray, fs: float, smoothing_s: float | None = None) -> np.ndarray:
    """``nk.ecg_clean(x, fs, method="neurokit")`` for a finite ``x`` and ``fs >= 100``: the
    same SciPy calls in the same order (NeuroKit2 0.2.x ``_ecg_clean_nk``), so the result is
    bit-identical (tests/edr/test_beats_twins.py) without importing NeuroKit2.

    0.5 Hz order-5 Butterworth high-pass (SOS, :func:`scipy.signal.sosfiltfilt`; designed once
    per rate, :func:`_clean_highpass`), then the
    50 Hz "powerline" moving average of ``int(fs / 50)`` samples (``filtfilt``, ``pad``); both
    filters as :mod:`edr.zero_phase` runs them (SciPy's steps, initial conditions solved once).
    With ``smoothing_s`` the moving average lasts exactly that long instead: ``L = smoothing_s
    * fs`` samples, the last of the ``ceil(L)`` taps weighted by the fraction of ``L`` it
    covers (identical to NeuroKit2's when ``L`` is the integer ``int(fs / 50)``).
    """
    clean = zero_phase.sosfiltfilt(_clean_highpass(float(fs)), np.array(x))
    if smoothing_s is None:
        b = np.ones(int(fs / 50))
        return zero_phase.filtfilt(b, [len(b)], clean)
    length = round(smoothing_s * fs, 9)  # 0.02 * 350 is 7.000000000000001
    b = np.ones(int(np.ceil(length)))
    if length % 1:
        b[-1] = length % 1
    return zero_phase.filtfilt(b, [length], clean)


def _nk_peaks_neurokit(clean: np.ndarray, fs: float) -> np.ndarray:
    """``nk.ecg_peaks(clean, fs, method="neurokit")[1]["ECG_R_Peaks"]`` without NeuroKit2: its
    ``_ecg_findpeaks_neurokit`` with the default parameters (smoothed absolute gradient
    against 1.5 times its 0.75 s average; in each QRS interval at least 0.4 times the mean
    interval long, the most prominent local maximum; at least 0.3 s after the previous peak).
    Same operations in the same order: identical peaks (tests/edr/test_beats_twins.py)."""
    sig = np.array(clean)
    absgrad = np.abs(np.gradient(sig))
    smooth_kernel = int(np.rint(0.1 * fs))
    avg_kernel = int(np.rint(0.75 * fs))
    for size in (smooth_kernel, avg_kernel):  # NeuroKit2's signal_smooth check
        if size > absgrad.size or size < 1:
            raise TypeError("signal_smooth(): 'size' should be between 1 and length of the signal.")
    smoothgrad = ndimage.uniform_filter1d(absgrad, smooth_kernel, mode="nearest")
    avggrad = ndimage.uniform_filter1d(smoothgrad, avg_kernel, mode="nearest")
    gradthreshold = 1.5 * avggrad
    mindelay = int(np.rint(fs * 0.3))
    qrs = smoothgrad > gradthreshold
    beg_qrs = np.where(np.logical_and(np.logical_not(qrs[0:-1]), qrs[1:]))[0]
    end_qrs = np.where(np.logical_and(qrs[0:-1], np.logical_not(qrs[1:])))[0]
    if len(beg_qrs) == 0:
        return np.array([], dtype=int)
    end_qrs = end_qrs[end_qrs > beg_qrs[0]]
    num_qrs = min(beg_qrs.size, end_qrs.size)
    with ignored_warnings():
        min_len = np.mean(end_qrs[:num_qrs] - beg_qrs[:num_qrs]) * 0.4
    beg, end = beg_qrs[:num_qrs], end_qrs[:num_qrs]
    with ignored_warnings():  # NaN min_len (no interval): none is long enough
        long = end - beg >= min_len
    return _qrs_peaks(sig, beg[long].astype(np.int64), end[long].astype(np.int64), mindelay)


@numba.njit(cache=True, nogil=True)
def _most_prominent(x, lo, hi):  # pragma: no cover - compiled
    """Index of the most prominent local maximum of ``x[lo:hi]`` (the first of equals), or -1:
    ``scipy.signal.find_peaks(x[lo:hi], prominence=(None, None))`` and the argmax of its
    prominences, with SciPy's loops (``_local_maxima_1d``: a plateau's middle sample;
    ``_peak_prominences``: bases searched to the slice's ends)."""
    best, best_prom = -1, -np.inf
    i = lo + 1
    while i < hi - 1:
        if x[i - 1] < x[i]:
            ahead = i + 1
            while ahead < hi - 1 and x[ahead] == x[i]:
                ahead += 1
            if x[ahead] < x[i]:
                peak = (i + ahead - 1) // 2
                left = x[peak]
                j = peak
                while j >= lo and x[j] <= x[peak]:
                    left = min(left, x[j])
                    j -= 1
                right = x[peak]
                j = peak
                while j < hi and x[j] <= x[peak]:
                    right = min(right, x[j])
                    j += 1
                prom = x[peak] - max(left, right)
                if prom > best_prom:
                    best, best_prom = peak, prom
                i = ahead
        i += 1
    return best


@numba.njit(cache=True, nogil=True)
def _qrs_peaks(x, beg, end, mindelay):  # pragma: no cover - compiled
    """NeuroKit2's peak of each QRS interval ``[beg[i], end[i])`` (:func:`_most_prominent`), kept
    when more than ``mindelay`` samples after the last kept one (the first after sample 0)."""
    out = np.empty(beg.size, dtype=np.int64)
    n, last = 0, 0
    for i in range(beg.size):
        peak = _most_prominent(x, beg[i], end[i])
        if peak >= 0 and peak - last > mindelay:
            out[n] = peak
            last = peak
            n += 1
    return out[:n]


def _clean(x: np.ndarray, fs: float, method: str) -> np.ndarray:
    method = method if method in _CLEAN_METHODS else "neurokit"
    if method == "neurokit" and fs >= 100 and np.isfinite(x).all():
        return _nk_clean_neurokit(x, fs, SMOOTHING_S)
    with ignored_warnings():
        return np.asarray(_nk().ecg_clean(x, sampling_rate=fs, method=method), dtype=float)


def _detect_segment(x: np.ndarray, fs: float, method: str,
                    ref: np.ndarray | None = None) -> np.ndarray:
    """Integer R-peak indices of one unmasked stretch, snapped to the local maximum.

    ``ref`` is ``_clean(x, fs, "neurokit")`` when the caller has it already.
    """
    if ref is None:
        ref = _clean(x, fs, "neurokit")
    clean_method = method if method in _CLEAN_METHODS else "neurokit"
    clean = ref if clean_method == "neurokit" else _clean(x, fs, method)
    with ignored_warnings():
        try:
            if method == "neurokit":
                found = _nk_peaks_neurokit(clean, fs)
            else:
                found = _nk().ecg_peaks(clean, sampling_rate=fs, method=method)[1]["ECG_R_Peaks"]
        except (ValueError, IndexError, ZeroDivisionError):
            # NeuroKit2 detectors raise on stretches without any QRS complex
            return np.empty(0, dtype=int)
    peaks = np.asarray(found, dtype=int)
    if peaks.size == 0:
        return peaks

    def local_max(p, before_s, after_s):
        lo = max(int(round(before_s * fs)), 1)
        hi = max(int(round(after_s * fs)), 1)
        idx = np.clip(p[:, None] + np.arange(-lo, hi + 1)[None, :], 0, x.size - 1)
        return idx[np.arange(p.size), np.argmax(ref[idx], axis=1)]

    # detectors mark R with a method-specific delay (Pan-Tompkins: ~90 ms at 125 Hz),
    # never ahead of it: the delay is searched in [-150 ms, +DELAY_AHEAD_S] only, so a
    # T wave taller than R (150-400 ms after it) cannot pull every peak onto itself;
    # remove the median delay, then snap within +-100 ms (the T wave starts later)
    delay = int(median(local_max(peaks, 0.15, DELAY_AHEAD_S) - peaks))
    snapped = local_max(np.clip(peaks + delay, 0, x.size - 1), 0.1, 0.1)
    return _refractory(snapped, ref, fs)

def _chunks(n: int, fs: float):
    """``(lo, hi, core_lo, core_hi)`` sample ranges covering ``[0, n)``: chunks of
    :data:`CHUNK_S` plus :data:`CHUNK_OVERLAP_S` margins; the cores tile ``[0, n)``."""
    step = int(round(CHUNK_S * fs))
    margin = int(round(CHUNK_OVERLAP_S * fs))
    if n <= step + 2 * margin:
        return [(0, n, 0, n)]
    out = []
    for c0 in range(0, n, step):
        c1 = min(c0 + step, n)
        out.append((max(c0 - margin, 0), min(c1 + margin, n), c0, c1))
    if len(out) > 1 and out[-1][3] - out[-1][2] < margin:  # fold a short tail into its predecessor
        lo, _, c0, _ = out[-2]
        out[-2:] = [(lo, n, c0, n)]
    return out


def _clean_long(x: np.ndarray, fs: float, method: str) -> np.ndarray:
    """:func:`_clean` applied chunk by chunk (cores stitched) so NeuroKit2 never sees
    more than :data:`CHUNK_S` + 2 :data:`CHUNK_OVERLAP_S`; identical to one call for
    shorter signals (the 0.5 Hz high-pass transient decays well within the margin)."""
    parts = _chunks(x.size, fs)
    if len(parts) == 1:
        return _clean(x, fs, method)
    out = np.empty(x.size)
    for lo, hi, c0, c1 in parts:
        out[c0:c1] = _clean(x[lo:hi], fs, method)[c0 - lo:c1 - lo]
    return out


def _orig_max_squared(y: np.ndarray, w: int) -> np.ndarray:
    """For every window ``y[i:i + w]``, its sample of largest magnitude (sign kept).

    The quantity of NeuroKit2's ``ecg_invert`` (``_roll_orig_max_squared``),
    computed with running maxima/minima in O(n) memory instead of an n × w
    array (300 MB for a 5-minute window at 250 Hz). Exact ties between +a and -a
    resolve to +a (NeuroKit2 takes the first).
    """
    w = min(w, y.size)
    sl = slice(w // 2, y.size - (w - 1 - w // 2))
    hi = ndimage.maximum_filter1d(y, w)[sl]
    lo = ndimage.minimum_filter1d(y, w)[sl]
    return np.where(hi >= -lo, hi, lo)


def _window_values(clean: np.ndarray, fs: float) -> np.ndarray:
    """The statistic of NeuroKit2's inversion rule (``nk.ecg_invert``) for every 2 s window of a
    cleaned stretch: the stretch cleaned again, minus its mean, and each window's
    largest-magnitude sample (float32: its sign is what counts); ``v[j]`` for the window starting
    at sample ``j``."""
    y = _clean(clean, fs, "neurokit")
    y -= np.mean(y)
    return _orig_max_squared(y, int(2.0 * fs)).astype(np.float32, copy=False)


def inversion_values(ecg, fs: float) -> np.ndarray:
    """The window values by which :func:`detect` judges the polarity of a finite stretch of a
    lead (NeuroKit2's inversion rule on the cleaned lead), ``v[j]`` for the 2 s window starting
    at sample ``j``; the lead is inverted when their median is negative (:func:`inverted_by`).
    Values kept from several stretches judge a longer one, as a stream does."""
    return _window_values(_clean(np.asarray(ecg, dtype=float), float(fs), "neurokit"), float(fs))


def inverted_by(values: np.ndarray) -> bool:
    """NeuroKit2's inversion verdict on window values of :func:`inversion_values`: the median
    is negative."""
    return bool(np.median(values) < 0)


def _inverted(clean: np.ndarray, fs: float) -> bool:
    """NeuroKit2's inversion rule (``nk.ecg_invert``) on a cleaned lead.

    ``nk.ecg_invert`` cleans its input again (``nk.ecg_clean``), removes the mean
    and calls the lead inverted when the median over all 2 s windows of the
    window's largest-magnitude sample is negative. Same rule here, evaluated in
    O(n) memory (:func:`_window_values`). Leads longer than :data:`CHUNK_S`
    are cleaned chunk by chunk, each chunk minus its own mean (the cleaned lead
    is high-passed, its mean is ~0), and the window values of every chunk's
    core join one median.
    """
    w = int(2.0 * fs)
    parts = _chunks(clean.size, fs)
    vals = []
    for lo, hi, c0, c1 in parts:
        v = _window_values(clean[lo:hi], fs)  # v[j]: the window starting at lo + j
        vals.append(v[c0 - lo:max(min(c1, clean.size - w + 1) - lo, 1)])
    return inverted_by(vals[0] if len(vals) == 1 else np.concatenate(vals))


def _detect_long(x: np.ndarray, fs: float, method: str,
                 ref: np.ndarray | None = None) -> np.ndarray:
    """:func:`_detect_segment` chunk by chunk; peaks kept in each chunk's core."""
    parts = _chunks(x.size, fs)
    if len(parts) == 1:
        return _detect_segment(x, fs, method, ref)
    found = []
    for lo, hi, c0, c1 in parts:
        p = _detect_segment(x[lo:hi], fs, method, None if ref is None else ref[lo:hi]) + lo
        found.append(p[(p >= c0) & (p < c1)])
    return _refractory(np.concatenate(found),
                       ref if ref is not None else _clean_long(x, fs, "neurokit"), fs)


def _refractory(snapped: np.ndarray, ref: np.ndarray, fs: float) -> np.ndarray:
    """One peak per refractory period (0.2 s): the larger one (by ``ref``)."""
    snapped = np.unique(snapped)
    keep = []
    for p in snapped:
        if keep and p - keep[-1] < 0.2 * fs:
            if ref[p] > ref[keep[-1]]:
                keep[-1] = p
        else:
            keep.append(p)
    return np.asarray(keep, dtype=int)


def _parabola_offset(y_m, y_0, y_p):
    """Vertex offset (in samples, within ±0.5) of the parabola through three points."""
    den = y_m - 2.0 * y_0 + y_p
    with np.errstate(divide="ignore", invalid="ignore"):
        off = np.where(den < 0, 0.5 * (y_m - y_p) / den, 0.0)
    return np.clip(off, -0.5, 0.5)


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _lagged_dots(f, t, out):  # pragma: no cover - compiled
    """``out[i, k] = f[i, k:k + t.size] @ t`` (each sum vectorised: as a BLAS product, in an
    order of its own)."""
    m = t.size
    for i in range(f.shape[0]):
        for k in range(out.shape[1]):
            acc = 0.0
            for j in range(m):
                acc += f[i, k + j] * t[j]
            out[i, k] = acc


def _pearson_lags(fine: np.ndarray, template: np.ndarray, max_lag: int):
    """Pearson correlation of each row with the template at lags -max_lag..max_lag.

    Numerator: the centred template against every window (a compiled loop);
    window norms from running sums of the row-centred signal. Memory O(rows × L).
    """
    m = template.size
    t = template - template.mean()
    t /= np.linalg.norm(t) or 1.0
    f = fine - fine.mean(axis=1, keepdims=True)  # lowers cancellation in the running sums
    num = np.empty((f.shape[0], 2 * max_lag + 1))
    _lagged_dots(np.ascontiguousarray(f), t, num)
    c1 = np.zeros((f.shape[0], f.shape[1] + 1))
    c2 = np.zeros_like(c1)
    np.cumsum(f, axis=1, out=c1[:, 1:])
    np.cumsum(f * f, axis=1, out=c2[:, 1:])
    s1 = c1[:, m:] - c1[:, :-m]
    s2 = c2[:, m:] - c2[:, :-m]
    norm = np.sqrt(np.maximum(s2 - s1 * s1 / m, 0.0))
    norm[norm <= 1e-12 * np.sqrt(np.maximum(s2, 1e-300))] = np.inf  # flat window: correlation 0
    return num / norm


def _align(x: np.ndarray, fs: float, peaks: np.ndarray, *, up: int, half_s: float,
           max_lag_s: float, shift: bool, template: np.ndarray | None = None):
    """Sub-sample peak positions, template correlations and the template (see module
    docstring).

    Beats are upsampled in blocks of ``_ALIGN_BLOCK`` (memory bounded for a
    whole-day lead); the median template is built from at most
    :data:`TEMPLATE_MAX_BEATS` evenly spread beats (all of them below that), unless
    ``template`` is given (one correlation pass against it instead of two against the
    beats' own median).
    """
    half = max(int(round(half_s * fs)), 2)
    lag = max(int(round(max_lag_s * fs)), 1)
    tw = half * up  # template half-width (fine samples)
    max_lag = lag * up if shift else 0
    n = peaks.size
    sub = (np.arange(n) if n <= TEMPLATE_MAX_BEATS
           else np.unique(np.linspace(0, n - 1, TEMPLATE_MAX_BEATS).round().astype(int)))
    cache = {}

    def fine_of(idx_key, p):
        if idx_key in cache:
            return cache[idx_key]
        f = neighbourhoods_upsampled(x, p, up, half + lag + 1)  # beats as rows, R centred
        if n <= _ALIGN_BLOCK:  # small records: keep the upsampled beats between passes
            cache[idx_key] = f
        return f

    sub_key = 0 if sub.size == n and n <= _ALIGN_BLOCK else "sub"

    def template_of(lags_sub):
        f = fine_of(sub_key, peaks[sub])
        c = f.shape[1] // 2
        cols = c + lags_sub[:, None] + np.arange(-tw, tw + 1)[None, :]
        return np.median(f[np.arange(sub.size)[:, None], cols], axis=0)

    if template is not None and template.size != 2 * tw + 1:
        raise ValueError(f"template must have {2 * tw + 1} samples, got {template.size}")
    given = template is not None
    lags = np.zeros(n, dtype=int)
    corr = np.empty((n, 2 * max_lag + 1))
    for _ in range(1 if given else 2):
        template = template if given else template_of(lags[sub])
        for lo in range(0, n, _ALIGN_BLOCK):
            f = fine_of(lo, peaks[lo:lo + _ALIGN_BLOCK])
            c = f.shape[1] // 2
            corr[lo:lo + _ALIGN_BLOCK] = _pearson_lags(f[:, c - tw - max_lag: c + tw + max_lag + 1],
                                                       template, max_lag)
        best = np.argmax(corr, axis=1)
        lags = best - max_lag
    rows = np.arange(n)
    k = np.clip(best, 1, corr.shape[1] - 2) if max_lag else best
    frac = (_parabola_offset(corr[rows, k - 1], corr[rows, k], corr[rows, k + 1])
            if max_lag else np.zeros(n))
    frac = np.where((best == 0) | (best == corr.shape[1] - 1), 0.0, frac)
    tcorr = corr[rows, best]
    if not shift:
        return peaks.astype(float), tcorr, template
    j = int(np.argmax(template))
    t0 = j - tw
    if 0 < j < template.size - 1:
        t0 += float(_parabola_offset(template[j - 1], template[j], template[j + 1]))
    refined = peaks + (lags + frac + t0) / up
    return refined, tcorr, template


def _running_median(v: np.ndarray, size: int = 11) -> np.ndarray:
    """Running median over ``size`` beats; the edges are mirrored (``d c b | a b c d``): with
    the edge value repeated ("nearest") the first beat is 6 of its own 11 neighbours, so its
    median is itself and an outlier first beat could never be flagged."""
    return ndimage.median_filter(v, size=min(size, v.size), mode="mirror")


def detect(ecg, fs: float, *, method: str = DEFAULT_DETECTOR, align: bool = True,
           upsample: int = 10, align_half_s: float = 0.08, max_lag_s: float = 0.024,
           min_template_corr: float = 0.8, flat_s: float = 1.0,
           max_clipped_fraction: float = 0.5, polarity: int | None = None,
           min_beats: int = MIN_BEATS, template: np.ndarray | None = None) -> Beats:
    """Detect, align and quality-flag the R peaks of one ECG lead.

    Parameters
    ----------
    ecg : array_like, shape (n,)
        One lead in physical units; NaN allowed (masked).
    fs : float
        Sampling rate in Hz, 100 to 10 000.
    method : str, default :data:`DEFAULT_DETECTOR`
        NeuroKit2 R-peak detector (``nk.ecg_peaks(method=...)``: "neurokit",
        "pantompkins1985", "hamilton2002", "elgendi2010", "engzeemod2012",
        "kalidas2017", "rodrigues2021", ...).
    align : bool, default True
        Refine each peak to sub-sample precision by upsampling and
        cross-correlation with the median template. When False, peaks stay on
        the local maximum sample (the template correlation is still computed,
        at zero lag, for the artifact flag).
    upsample : int, default 10
        Upsampling factor of the alignment.
    align_half_s : float, default 0.08
        Half-width (s) of the template around R.
    max_lag_s : float, default 0.024
        Largest shift (s) searched by the cross-correlation.
    min_template_corr : float, default 0.8
        Beats correlating less with the template are flagged as artifacts.
    flat_s : float, default 1.0
        Shortest constant run (s) masked as flat line (see :func:`signal_mask`).
    max_clipped_fraction : float, default 0.5
        Clipped beats count as artifacts only while they are fewer than this
        fraction of all beats. When most beats clip (a lead that saturates at
        every R peak), the clipped beats are kept: their QRS shape below the rail
        still carries the respiratory modulation, and dropping them would leave
        nothing (``docs/studies/beat_detection.md``).
    polarity : {1, -1}, optional
        The lead's polarity when it is known (e.g. judged over a longer stretch, as a stream
        does: :func:`inversion_values`); None judges it on ``ecg`` by NeuroKit2's rule.
    min_beats : int, default :data:`MIN_BEATS`
        Fewest beats accepted (a stream searching its newest seconds asks for fewer).
    template : ndarray, optional
        The alignment template (``Beats.template`` of an earlier detection on the same lead at
        the same rate and settings) to align the beats to instead of their own median: a stream
        keeps the positions of its successive searches on one reference.

    Returns
    -------
    Beats

    Raises
    ------
    SignalError
        ``fs`` outside 100–10 000 Hz, or fewer than ``min_beats`` beats.
    ValueError
        ``ecg`` not one-dimensional, ``upsample < 1``, ``polarity`` not ±1 or None.
    """
    x, fs = _check_inputs(ecg, fs, upsample, polarity)
    method = str(method).lower()
    masked = signal_mask(x, fs, flat_s=flat_s)
    segs = _usable_segments(masked, fs)
    xs, clean, polarity = _oriented_clean(x, fs, masked, segs, polarity)
    peaks = _detect_segments(xs, clean, fs, segs, method, min_beats)
    pos, tcorr, template = _align(clean, fs, peaks, up=int(upsample), half_s=align_half_s,
                                  max_lag_s=max_lag_s, shift=align, template=template)
    ectopic = _rr_ectopic(pos, peaks, fs, masked)
    clipped = _clipped_beats(xs, ~masked, peaks, fs)
    amp = clean[peaks]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = amp / _running_median(amp)
    artifact = (tcorr < min_template_corr) | ~((ratio >= 0.4) & (ratio <= 2.5))
    if clipped.mean() < max_clipped_fraction:
        artifact |= clipped
    valid = ~(ectopic | artifact)
    return Beats(peaks=pos, fs=fs, valid=valid, polarity=polarity,
                 n_ectopic=int(ectopic.sum()), n_artifact=int(artifact.sum()),
                 template_corr=tcorr, clipped=clipped, ectopic=ectopic,
                 n_masked=int(masked.sum()), method=method, template=template)


def _usable_segments(masked: np.ndarray, fs: float) -> list[tuple[int, int]]:
    """Unmasked runs ``(start, stop)`` of at least 2 s; SignalError when there is none."""
    starts, stops = true_runs(~masked)
    min_seg = int(round(2.0 * fs))
    segs = [(a, b) for a, b in zip(starts, stops, strict=False) if b - a >= min_seg]
    if not segs:
        raise SignalError(
            f"ecg has no usable stretch of >= 2 s ({int(masked.sum())} of {masked.size} samples "
            f"masked as NaN or flat); fewer than {MIN_BEATS} beats"
        )
    return segs


def _oriented_clean(x: np.ndarray, fs: float, masked: np.ndarray,
                    segs: list[tuple[int, int]],
                    polarity: int | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """The lead with R upwards, its cleaned copy and the polarity (+1, or -1 when inverted).

    The lead is cleaned once, masked samples bridged linearly; polarity, detection of an
    unmasked lead, alignment and amplitudes all read it (the filter is linear and odd, so
    inverting the lead inverts it exactly). The polarity, unless given, is judged on the
    usable segments joined.
    """
    ok = ~masked
    filled = x.copy() if masked.any() else x
    if masked.any():
        idx = np.arange(x.size)
        filled[masked] = np.interp(idx[masked], idx[ok], x[ok])
    clean_x = _clean_long(filled, fs, "neurokit")
    if polarity is None:
        whole = len(segs) == 1 and segs[0] == (0, x.size)
        joined = clean_x if whole else _clean_long(np.concatenate([x[a:b] for a, b in segs]),
                                                   fs, "neurokit")
        polarity = -1 if _inverted(joined, fs) else 1
        del joined
    xs = x if polarity == 1 else -x
    clean = clean_x if polarity == 1 else np.negative(clean_x, out=clean_x)
    return xs, clean, polarity


def _detect_segments(xs: np.ndarray, clean: np.ndarray, fs: float,
                     segs: list[tuple[int, int]], method: str,
                     min_beats: int = MIN_BEATS) -> np.ndarray:
    """R-peak samples of every usable segment, 0.1 s clear of its ends.

    Raises SignalError when fewer than ``min_beats`` are found.
    """
    whole = len(segs) == 1 and segs[0] == (0, xs.size)
    edge = int(round(0.1 * fs))
    found = []
    for a, b in segs:
        p = _detect_long(xs[a:b], fs, method, clean if whole else None) + a
        found.append(p[(p >= a + edge) & (p < b - edge)])
    peaks = np.concatenate(found) if found else np.empty(0, dtype=int)
    if peaks.size < min_beats:
        raise SignalError(
            f"only {peaks.size} heart beats found in {xs.size / fs:.1f} s of ECG at {fs:g} Hz "
            f"(QRS detector {method}); an EDR needs at least {min_beats}: give a longer "
            "recording (a minute or more) or another ECG lead"
        )
    return peaks


def _rr_ectopic(pos: np.ndarray, peaks: np.ndarray, fs: float,
                masked: np.ndarray) -> np.ndarray:
    """Beats flagged ectopic from their RR intervals: the interval before shorter than 0.8
    and the one after longer than 1.1 times the running median; RR intervals across masked
    stretches are unknown."""
    rr = np.diff(pos) / fs
    if masked.any():
        n_masked_before = np.concatenate([[0],
                                          np.cumsum(masked,
                                                    dtype=np.int32 if masked.size < 2**31
                                                    else np.int64)])
        gap = n_masked_before[peaks[1:]] > n_masked_before[peaks[:-1]]
    else:
        gap = np.zeros(peaks.size - 1, dtype=bool)
    rr_known = np.where(gap, np.nan, rr)
    known = ~np.isnan(rr_known)
    med = _running_median(np.where(known, rr_known, median(rr_known[known])))
    rr_before = np.concatenate([[np.nan], rr_known])
    rr_after = np.concatenate([rr_known, [np.nan]])
    m_before = np.concatenate([[med[0]], med])
    with np.errstate(invalid="ignore"):
        return (rr_before < 0.8 * m_before) & (rr_after > 1.1 * m_before)


def _clipped_beats(xs: np.ndarray, ok: np.ndarray, peaks: np.ndarray, fs: float) -> np.ndarray:
    """Beats with a clipped sample within 60 ms of R."""
    clipped_samples = _clipped_samples(xs, ok)
    hw = max(int(round(0.06 * fs)), 1)
    win = np.clip(peaks[:, None] + np.arange(-hw, hw + 1)[None, :], 0, xs.size - 1)
    return clipped_samples[win].any(axis=1)
