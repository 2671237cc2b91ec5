"""Beat quality flags: ectopic beats from their RR intervals, clipped beats at the lead's rail.

See :mod:`edr.beats`, step 5, for how :func:`edr.beats.detect` combines them with the template
correlation and the amplitude outliers.
"""

from __future__ import annotations

import numpy as np

from edr.beats.mask import true_runs
from edr.dsp.running import rank_filter_mirror
from edr.medians import median
from edr.modulation import QRS_HALF_WIDTH_S

__all__ = ["clipped_beats", "rr_ectopic", "running_median"]

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


def running_median(v: np.ndarray, size: int = 11) -> np.ndarray:
    """Running median over ``size`` beats; the edges are mirrored (``d c b | a b c d``): with
    the edge value repeated ("nearest") the first beat is 6 of its own 11 neighbours, so its
    median is itself and an outlier first beat could never be flagged."""
    return rank_filter_mirror(v, min(size, v.size))


def rr_ectopic(pos: np.ndarray, peaks: np.ndarray, fs: float,
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
    med = running_median(np.where(known, rr_known, median(rr_known[known])))
    rr_before = np.concatenate([[np.nan], rr_known])
    rr_after = np.concatenate([rr_known, [np.nan]])
    m_before = np.concatenate([[med[0]], med])
    with np.errstate(invalid="ignore"):
        return (rr_before < 0.8 * m_before) & (rr_after > 1.1 * m_before)


def clipped_beats(xs: np.ndarray, ok: np.ndarray, peaks: np.ndarray, fs: float) -> np.ndarray:
    """Beats with a clipped sample within :data:`edr.modulation.QRS_HALF_WIDTH_S` of R."""
    clipped_samples = _clipped_samples(xs, ok)
    hw = max(int(round(QRS_HALF_WIDTH_S * fs)), 1)
    win = np.clip(peaks[:, None] + np.arange(-hw, hw + 1)[None, :], 0, xs.size - 1)
    return clipped_samples[win].any(axis=1)
