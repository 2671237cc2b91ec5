"""Beat quality flags: ectopic beats from their RR intervals, clipped beats at the lead's rail;
and the lead's clipped samples.

Clipping is one rule, :func:`rail_samples`: samples at the lead's largest or smallest value in a
run of equal samples. It answers two questions with two run lengths. *Is this beat's QRS shape
distorted?* (:func:`clipped_beats`, which :func:`edr.beats.detect` drops): a run of
:data:`CLIPPED_BEAT_RUN` samples within R ± 60 ms, since even a flattened apex bends the QRS.
*How much of the lead was held at its rail?* (:func:`clipped_samples`, reported offline, and
:class:`edr.stream.faults.RailRuns`, its count block after block in a stream): runs of at least
:data:`CLIP_RUN_S`, long enough that an R apex, which turns within a sample or two, is not
counted.

See :mod:`edr.beats`, step 5, for how :func:`edr.beats.detect` combines the flags with the
template correlation and the amplitude outliers.
"""

from __future__ import annotations

import numpy as np

from edr.beats.mask import glitch_limits, true_runs
from edr.dsp.running import rank_filter_mirror
from edr.io.digital_lead import as_lead, lead_blocks
from edr.medians import median
from edr.modulation import QRS_HALF_WIDTH_S

__all__ = ["CLIPPED_BEAT_RUN", "CLIP_RUN_S", "clip_run_samples", "clipped_beats",
           "clipped_samples", "rail_samples", "rr_ectopic", "running_median"]

CLIPPED_BEAT_RUN = 2
"""Shortest run (samples) of equal samples at a lead's extreme within R ± 60 ms that makes a beat
clipped (:func:`clipped_beats`)."""

CLIP_RUN_S = 0.04
"""Shortest run (s) of equal samples at a lead's extreme whose samples count as clipped
(:func:`clipped_samples`, :class:`edr.stream.faults.RailRuns`; at least 2 samples:
:func:`clip_run_samples`): the apex of an R wave turns within one sample period or two, an
amplifier held at its rail stays there for the rest of the QRS complex (40 ms is half of a
narrow one)."""


def clip_run_samples(fs: float) -> int:
    """:data:`CLIP_RUN_S` in samples at ``fs`` Hz, at least 2.

    Examples
    --------
    >>> from edr.beats.flags import clip_run_samples
    >>> clip_run_samples(250.0), clip_run_samples(25.0)
    (10, 2)
    """
    return max(int(round(CLIP_RUN_S * fs)), 2)


def rail_samples(x: np.ndarray, ok: np.ndarray, min_run: int) -> np.ndarray:
    """Samples at the largest or the smallest value of ``x[ok]`` inside runs of at least
    ``min_run`` equal samples (all ``ok``); none when ``x[ok]`` holds one value only (flat, not
    clipped).

    Parameters
    ----------
    x : ndarray, shape (n,)
        The lead (any numbers: physical or digital values).
    ok : ndarray of bool, shape (n,)
        The samples to judge.
    min_run : int
        Shortest run, in samples.

    Returns
    -------
    ndarray of bool, shape (n,)

    See Also
    --------
    clipped_beats, clipped_samples : its two questions.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats.flags import rail_samples
    >>> x = np.array([0.0, 1.0, 1.0, 0.5, 1.0, -1.0, -1.0, -1.0])
    >>> rail_samples(x, np.ones(8, bool), 2).astype(int).tolist()
    [0, 1, 1, 0, 0, 1, 1, 1]
    >>> rail_samples(x, np.ones(8, bool), 3).astype(int).tolist()
    [0, 0, 0, 0, 0, 1, 1, 1]
    """
    clipped = np.zeros(x.size, dtype=bool)
    if not ok.any():
        return clipped
    first = x[int(np.argmax(ok))]
    hi, lo = np.max(x, where=ok, initial=first), np.min(x, where=ok, initial=first)
    if hi == lo:
        return clipped
    for rail in (hi, lo):
        starts, stops = true_runs(ok & (x == rail))
        long = stops - starts >= min_run
        for a, b in zip(starts[long], stops[long], strict=True):
            clipped[a:b] = True
    return clipped


def clipped_samples(ecg, fs: float) -> int:
    """How many samples of a lead are held at its rail: :func:`rail_samples` in runs of at least
    :func:`clip_run_samples`, judged on its finite samples that are no impulse glitch
    (:func:`edr.beats.mask.glitch_limits`). The count a stream reports
    (:class:`edr.stream.faults.RailRuns`, against the extremes held so far), over a whole record.

    Parameters
    ----------
    ecg : array_like or DigitalLead, shape (n,)
        The lead as recorded; read a block at a time (:func:`edr.io.digital_lead.lead_blocks`).
    fs : float
        Sampling rate (Hz).

    Returns
    -------
    int

    See Also
    --------
    clipped_beats : the beats dropped for a clipped QRS.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats.flags import clipped_samples
    >>> x = np.sin(np.arange(2500) / 20.0)  # 10 s at 250 Hz
    >>> clipped_samples(x, 250.0)
    0
    >>> clipped_samples(np.clip(x, -0.9, 0.9), 250.0)  # each rail held 18 samples a cycle
    720
    """
    x = as_lead(ecg)
    limits = glitch_limits(x, fs)
    hi, lo = -np.inf, np.inf
    for _, block in lead_blocks(x):
        with np.errstate(invalid="ignore"):  # NaN, inf and glitches are not judged
            ok = (np.isfinite(block) if limits is None
                  else np.abs(block - limits[0]) <= limits[1])
        hi = max(hi, np.max(block, where=ok, initial=-np.inf))
        lo = min(lo, np.min(block, where=ok, initial=np.inf))
    if not hi > lo:  # no value, or one only: flat, not clipped
        return 0
    min_run, total = clip_run_samples(fs), 0
    carried = {hi: 0, lo: 0}  # the run at each rail reaching the end of the previous block
    for _, block in lead_blocks(x):
        for rail in (hi, lo):  # a finite value within the glitch limits: no glitch equals it
            starts, stops = true_runs(block == rail)
            lengths = stops - starts
            if starts.size and starts[0] == 0:  # it goes on from the previous block
                lengths[0] += carried[rail]
            elif carried[rail] >= min_run:
                total += carried[rail]
            ends_open = bool(stops.size) and stops[-1] == block.size
            carried[rail] = int(lengths[-1]) if ends_open else 0
            done = lengths[:-1] if ends_open else lengths
            total += int(done[done >= min_run].sum())
    return total + sum(n for n in carried.values() if n >= min_run)


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
    """Beats with a sample of a run of :data:`CLIPPED_BEAT_RUN` equal samples at the lead's
    extreme (:func:`rail_samples`) within :data:`edr.modulation.QRS_HALF_WIDTH_S` of R."""
    at_rail = rail_samples(xs, ok, CLIPPED_BEAT_RUN)
    hw = max(int(round(QRS_HALF_WIDTH_S * fs)), 1)
    win = np.clip(peaks[:, None] + np.arange(-hw, hw + 1)[None, :], 0, xs.size - 1)
    return at_rail[win].any(axis=1)
