"""Long records in chunks: NeuroKit2 never sees more than :data:`CHUNK_S` plus two margins.

:func:`chunk_ranges` tiles a stretch into chunks with :data:`CHUNK_OVERLAP_S` margins;
:func:`clean_long` and :func:`detect_long` clean and search each chunk and keep its core.
"""

from __future__ import annotations

import numpy as np

from edr.beats.peaks import detect_segment, refractory
from edr.beats.twins import clean_ecg

__all__ = ["CHUNK_OVERLAP_S", "CHUNK_S", "chunk_ranges", "clean_long", "detect_long"]

CHUNK_S = 600.0
"""Longest stretch (s) handed to NeuroKit2 at once: longer unmasked stretches are
cleaned and searched for R peaks in chunks of this length (see :func:`edr.beats.detect`)."""
CHUNK_OVERLAP_S = 10.0
"""Margin (s) on each side of a chunk; only the chunk's core keeps its peaks."""


def chunk_ranges(n: int, fs: float):
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


def clean_long(x: np.ndarray, fs: float, method: str) -> np.ndarray:
    """:func:`clean_ecg` applied chunk by chunk (cores stitched) so NeuroKit2 never sees
    more than :data:`CHUNK_S` + 2 :data:`CHUNK_OVERLAP_S`; identical to one call for
    shorter signals (the 0.5 Hz high-pass transient decays well within the margin)."""
    parts = chunk_ranges(x.size, fs)
    if len(parts) == 1:
        return clean_ecg(x, fs, method)
    out = np.empty(x.size)
    for lo, hi, c0, c1 in parts:
        out[c0:c1] = clean_ecg(x[lo:hi], fs, method)[c0 - lo:c1 - lo]
    return out


def detect_long(x: np.ndarray, fs: float, method: str,
                ref: np.ndarray | None = None) -> np.ndarray:
    """:func:`detect_segment` chunk by chunk; peaks kept in each chunk's core."""
    parts = chunk_ranges(x.size, fs)
    if len(parts) == 1:
        return detect_segment(x, fs, method, ref)
    found = []
    for lo, hi, c0, c1 in parts:
        p = detect_segment(x[lo:hi], fs, method, None if ref is None else ref[lo:hi]) + lo
        found.append(p[(p >= c0) & (p < c1)])
    return refractory(np.concatenate(found),
                       ref if ref is not None else clean_long(x, fs, "neurokit"), fs)
