"""NeuroKit2's ECG cleaning and R-peak finding, without importing NeuroKit2.

:func:`nk_clean_neurokit` and :func:`nk_peaks_neurokit` take NeuroKit2's steps (0.2.x
``_ecg_clean_nk``, ``_ecg_findpeaks_neurokit``) in the same order, so their results are
bit-identical (``tests/edr/test_beats_twins.py``); :func:`clean_ecg` uses the twin for the default
cleaning and NeuroKit2 itself, imported on first use (:func:`load_nk`), for the others.
"""

from __future__ import annotations

import functools

import numba
import numpy as np

from edr import zero_phase
from edr.dsp.filters import butter
from edr.dsp.running import uniform_filter1d_nearest
from edr.quiet import ignored_warnings

__all__ = ["CLEAN_METHODS", "SMOOTHING_S", "clean_ecg", "load_nk", "nk_clean_neurokit",
           "nk_peaks_neurokit"]

SMOOTHING_S = 0.02
"""Length (s) of the cleaning's moving average (NeuroKit2's 50 Hz "powerline" step), at every
rate: NeuroKit2 takes ``int(fs / 50)`` samples, which is 20 ms at multiples of 50 Hz but 16 ms at
125 Hz, and the template correlation read from the cleaned lead then depends on the rate (see
:func:`edr.beats.detect`, step 3)."""
CLEAN_METHODS = {
    "neurokit", "pantompkins1985", "hamilton2002", "elgendi2010", "engzeemod2012",
    "christov2004", "kalidas2017", "emrich2023",
}


def load_nk():
    """NeuroKit2, imported on first use only (its import takes 2-5 s, see docs/design.md
    "Start-up time"); the default ``neurokit`` cleaning and detector run without it."""
    import neurokit2

    return neurokit2


@functools.lru_cache(maxsize=8)
def _clean_highpass(fs: float) -> np.ndarray:
    """NeuroKit2's cleaning high-pass at ``fs``: ``scipy.signal.butter(5, 0.5, "highpass",
    output="sos")``, designed once per rate."""
    return butter(5, 0.5, "highpass", fs)


def nk_clean_neurokit(x: np.ndarray, fs: float, smoothing_s: float | None = None) -> np.ndarray:
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


def nk_peaks_neurokit(clean: np.ndarray, fs: float) -> np.ndarray:
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
    smoothgrad = uniform_filter1d_nearest(absgrad, smooth_kernel)
    avggrad = uniform_filter1d_nearest(smoothgrad, avg_kernel)
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
    beg, end = beg[long].astype(np.int64), end[long].astype(np.int64)
    out = np.empty(beg.size, dtype=np.int64)
    return out[:_qrs_peaks(sig, beg, end, mindelay, out)]


@numba.njit(cache=True, nogil=True)
def _qrs_peaks(x, beg, end, mindelay, out):  # pragma: no cover - compiled
    """NeuroKit2's peak of each QRS interval ``[beg[q], end[q])``, kept when more than
    ``mindelay`` samples after the last kept one (the first after sample 0), written to the
    start of ``out``; returns their number.

    The peak of ``x[lo:hi]`` is its most prominent local maximum (the first of equals; none: no
    peak): ``scipy.signal.find_peaks(x[lo:hi], prominence=(None, None))`` and the argmax of its
    prominences, with SciPy's loops (``_local_maxima_1d``: a plateau's middle sample;
    ``_peak_prominences``: bases searched to the slice's ends). One loop, no compiled helper: a
    separate one cost ~0.4 s more to compile on the first run (``docs/studies/first_run.md``); no
    allocation and no ``min``/``max`` builtins either (each compiles an implementation of its
    own: written out with Python's semantics, ``min(a, b) = b if b < a else a``).
    """
    n, last = 0, 0
    for q in range(beg.size):
        lo, hi = beg[q], end[q]
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
                        left = x[j] if x[j] < left else left
                        j -= 1
                    right = x[peak]
                    j = peak
                    while j < hi and x[j] <= x[peak]:
                        right = x[j] if x[j] < right else right
                        j += 1
                    prom = x[peak] - (right if right > left else left)
                    if prom > best_prom:
                        best, best_prom = peak, prom
                    i = ahead
            i += 1
        if best >= 0 and best - last > mindelay:
            out[n] = best
            last = best
            n += 1
    return n


def clean_ecg(x: np.ndarray, fs: float, method: str) -> np.ndarray:
    method = method if method in CLEAN_METHODS else "neurokit"
    if method == "neurokit" and fs >= 100 and np.isfinite(x).all():
        return nk_clean_neurokit(x, fs, SMOOTHING_S)
    with ignored_warnings():
        return np.asarray(load_nk().ecg_clean(x, sampling_rate=fs, method=method), dtype=float)
