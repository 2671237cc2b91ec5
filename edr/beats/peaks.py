"""The R peaks of one unmasked stretch: a detector's marks, or marks given, moved onto R.

:func:`detect_segment` runs the chosen detector on the cleaned stretch, removes its median
delay, snaps each mark to the local maximum of the cleaned signal and keeps one peak per
refractory period (:func:`refractory`). :func:`given_segment` does the same with marks of one's
own (an annotator's, another detector's): each is moved onto the local maximum within
:data:`GIVEN_RADIUS_S`.
"""

from __future__ import annotations

import numpy as np

from edr.beats.twins import CLEAN_METHODS, clean_ecg, load_nk, nk_peaks_neurokit
from edr.medians import median
from edr.modulation import QRS_HALF_WIDTH_S
from edr.quiet import ignored_warnings

__all__ = ["DELAY_AHEAD_S", "GIVEN_RADIUS_S", "detect_segment", "given_segment", "refractory"]

DELAY_AHEAD_S = 0.03
"""Latest a detector's mark may lie after R (s) in the delay estimate of
:func:`edr.beats.detect`'s step 3."""
GIVEN_RADIUS_S = QRS_HALF_WIDTH_S
"""Half-width (s) of the search for R around a given mark (:func:`given_segment`): a QRS
complex's half-width (:data:`edr.modulation.QRS_HALF_WIDTH_S`), short of the T wave."""
OFF_R_FRACTION = 0.5
"""Largest fraction of given marks with no R within :data:`GIVEN_RADIUS_S` before the marks are
refused as not this ECG's: no R means a maximum below :data:`OFF_R_LEVEL` times the cleaned
stretch's 99th percentile (the height of its R waves)."""
OFF_R_LEVEL = 0.4
"""See :data:`OFF_R_FRACTION`."""


def detect_segment(x: np.ndarray, fs: float, method: str,
                   ref: np.ndarray | None = None) -> np.ndarray:
    """Integer R-peak indices of one unmasked stretch, snapped to the local maximum.

    ``ref`` is ``clean_ecg(x, fs, "neurokit")`` when the caller has it already.
    """
    if ref is None:
        ref = clean_ecg(x, fs, "neurokit")
    clean_method = method if method in CLEAN_METHODS else "neurokit"
    clean = ref if clean_method == "neurokit" else clean_ecg(x, fs, method)
    with ignored_warnings():
        try:
            if method == "neurokit":
                found = nk_peaks_neurokit(clean, fs)
            else:
                found = load_nk().ecg_peaks(clean, sampling_rate=fs,
                                            method=method)[1]["ECG_R_Peaks"]
        except (ValueError, IndexError, ZeroDivisionError):
            # NeuroKit2 detectors raise on stretches without any QRS complex
            return np.empty(0, dtype=int)
    peaks = np.asarray(found, dtype=int)
    if peaks.size == 0:
        return peaks

    def local_max(p, before_s, after_s):
        return _local_max(ref, p, before_s, after_s, fs)

    # detectors mark R with a method-specific delay (Pan-Tompkins: ~90 ms at 125 Hz),
    # never ahead of it: the delay is searched in [-150 ms, +DELAY_AHEAD_S] only, so a
    # T wave taller than R (150-400 ms after it) cannot pull every peak onto itself;
    # remove the median delay, then snap within +-100 ms (the T wave starts later)
    delay = int(median(local_max(peaks, 0.15, DELAY_AHEAD_S) - peaks))
    snapped = local_max(np.clip(peaks + delay, 0, x.size - 1), 0.1, 0.1)
    return refractory(snapped, ref, fs)


def refractory(snapped: np.ndarray, ref: np.ndarray, fs: float) -> np.ndarray:
    """One peak per refractory period (0.2 s): the larger one (by ``ref``).

    The loop runs on Python ints and floats (the peaks and their ``ref`` values as lists: the
    same comparisons as on NumPy scalars, without their per-item cost:
    ``docs/studies/fast_selection.md``)."""
    snapped = np.unique(snapped)
    peaks, values = snapped.tolist(), ref[snapped].tolist()
    keep, kept = [], []  # the peaks kept and their ref values
    period = 0.2 * fs
    for p, v in zip(peaks, values, strict=True):
        if keep and p - keep[-1] < period:
            if v > kept[-1]:
                keep[-1], kept[-1] = p, v
        else:
            keep.append(p)
            kept.append(v)
    return np.asarray(keep, dtype=int)


def _local_max(ref: np.ndarray, p: np.ndarray, before_s: float, after_s: float,
               fs: float) -> np.ndarray:
    """Per mark ``p``, the index of ``ref``'s largest value within ``[p - before, p + after]``."""
    lo = max(int(round(before_s * fs)), 1)
    hi = max(int(round(after_s * fs)), 1)
    idx = np.clip(p[:, None] + np.arange(-lo, hi + 1)[None, :], 0, ref.size - 1)
    return idx[np.arange(p.size), np.argmax(ref[idx], axis=1)]


def given_segment(marks: np.ndarray, ref: np.ndarray, fs: float) -> np.ndarray:
    """Integer R-peak indices of one stretch from marks given (sample positions in it), each
    moved onto the largest ``ref`` sample within :data:`GIVEN_RADIUS_S` (``ref``: the cleaned
    stretch with R upwards), one per refractory period (:func:`refractory`).

    Raises
    ------
    SignalError
        More than :data:`OFF_R_FRACTION` of the marks (at least 5) have no R wave near them
        (marks of another record, sampling rate or time origin).
    """
    from edr.errors import SignalError

    p = np.clip(np.round(np.asarray(marks, dtype=float)).astype(int), 0, ref.size - 1)
    if p.size == 0:
        return p
    snapped = _local_max(ref, p, GIVEN_RADIUS_S, GIVEN_RADIUS_S, fs)
    off = ref[snapped] < OFF_R_LEVEL * np.percentile(ref, 99)
    if off.sum() >= 5 and off.mean() > OFF_R_FRACTION:
        raise SignalError(
            f"the R peaks given do not sit on this ECG's R waves: {int(off.sum())} of {p.size} "
            f"have no R peak within {1000 * GIVEN_RADIUS_S:.0f} ms; are they this record's, as "
            "times in s from its first sample (or samples at its sampling rate)?")
    return refractory(snapped, ref, fs)
