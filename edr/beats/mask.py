"""Unusable samples of a lead: NaN or infinite, impulse glitches (a value no ECG reaches, from a
transmission or converter error), or flat runs (a disconnected or saturated lead)."""

from __future__ import annotations

import numpy as np

from edr._rowstats import row_percentile
from edr.io.digital_lead import DigitalLead, as_lead, lead_blocks, physical
from edr.medians import median as row_median

__all__ = ["GLITCH_FACTOR", "glitch_limits", "glitch_mask", "signal_mask", "true_runs",
           "unusable_reason", "without_glitches"]

_MASK_BLOCK = 1 << 20
"""Samples compared at once by :func:`signal_mask` (its memory is bounded on a whole day)."""
GLITCH_FACTOR = 100.0
"""A sample farther from its lead's median than this many times the 99th percentile of the
lead's distances from it is an impulse glitch, masked like NaN. The 99th percentile lies within
the lead's QRS complexes (they fill more than 1 % of any ECG); no R peak, pacing spike or motion
artefact reaches two orders of magnitude beyond them. Measured on the shared leads and on
simulated glitches: ``docs/studies/inputs_and_outputs.md``."""
_SCALE_STRETCHES = (16, 2.0)
"""How many stretches, and how long (s), :func:`glitch_limits` reads of a longer lead: evenly
spread, each long enough to hold whole heart beats (a stride through the samples could fall in
step with a regular rhythm and miss its QRS complexes)."""


def true_runs(mask: np.ndarray):
    """Start and stop indices (half-open) of the True runs of a boolean array.

    See Also
    --------
    signal_mask

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats import true_runs
    >>> true_runs(np.array([False, True, True, False, True]))  # starts, ends (excluded)
    (array([1, 4]), array([3, 5]))
    """
    edge = np.zeros(1, dtype=np.int8)  # int8 throughout: a whole-day mask stays 1 byte a sample
    d = np.diff(np.concatenate([edge, mask.astype(np.int8, copy=False), edge]))
    return np.flatnonzero(d == 1), np.flatnonzero(d == -1)


def glitch_limits(ecg, fs: float) -> tuple[float, float] | None:
    """``(median, limit)`` of a lead: a sample farther than ``limit`` from ``median`` is an
    impulse glitch (:data:`GLITCH_FACTOR`); None when the lead has no spread to judge by.

    The median and the 99th percentile of the distances from it are those of the lead's finite
    samples, read from :data:`_SCALE_STRETCHES` evenly spread stretches when it is longer.

    See Also
    --------
    signal_mask, without_glitches

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats.mask import glitch_limits
    >>> x = np.tile([-1.0, 1.0], 500)
    >>> glitch_limits(x, 100.0), glitch_limits(np.zeros(100), 100.0) is None
    ((0.0, 100.0), True)
    """
    x = as_lead(ecg)
    count, seconds = _SCALE_STRETCHES
    length = max(int(round(seconds * fs)), 1)
    if x.size <= count * length:
        sample = np.asarray(x[:], dtype=float)
    else:
        starts = np.linspace(0, x.size - length, count).astype(int)
        sample = np.concatenate([np.asarray(x[a:a + length], dtype=float) for a in starts])
    sample = sample[np.isfinite(sample)]
    if sample.size == 0:
        return None
    median = float(row_median(sample))
    with np.errstate(over="ignore", invalid="ignore"):
        spread = float(row_percentile(np.abs(sample - median)[None], 99.0)[0])
    if not (np.isfinite(spread) and spread > 0):
        return None
    return median, GLITCH_FACTOR * spread


def without_glitches(ecg, fs: float):
    """The lead with its impulse glitches (:func:`glitch_limits`) set to NaN: a float copy where
    there is one, else the lead itself (a :class:`~edr.io.digital_lead.DigitalLead` stays one).

    Filters (the mains notch) would spread a glitch over seconds of the lead; as NaN it is one
    masked sample, bridged where the lead is read.

    See Also
    --------
    signal_mask, glitch_limits

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats.mask import without_glitches
    >>> x = np.sin(np.arange(1000) / 10.0)
    >>> without_glitches(x, 100.0) is x  # nothing to mask: the lead itself
    True
    >>> x[500] = 1e30  # a transmission error
    >>> np.flatnonzero(np.isnan(without_glitches(x, 100.0))).tolist()
    [500]
    """
    x = as_lead(ecg)
    bad = glitch_mask(x, fs)
    if not bad.any():
        return x
    out = np.asarray(x, dtype=float).copy()
    out[bad] = np.nan
    return out


def _extremes(x) -> tuple[float, float]:
    """The smallest and largest value of a lead, NaN ignored (NaN where a DigitalLead's extreme
    is its invalid value, or no value is finite); one pass over the stored samples."""
    if isinstance(x, DigitalLead):
        ends = x.digital[[int(np.argmin(x.digital)), int(np.argmax(x.digital))]]
        values = physical(ends, x.gain, x.baseline, x.invalid, x.scale)
        return float(np.min(values)), float(np.max(values))
    with np.errstate(invalid="ignore"):
        return float(np.fmin.reduce(x)), float(np.fmax.reduce(x))


def glitch_mask(ecg, fs: float) -> np.ndarray:
    """Boolean mask of the impulse glitches of a lead: its samples beyond :func:`glitch_limits`.

    See Also
    --------
    signal_mask, without_glitches

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats.mask import glitch_mask
    >>> x = np.sin(np.arange(1000) / 10.0)
    >>> x[500] = 1e30  # a transmission error
    >>> np.flatnonzero(glitch_mask(x, 100.0)).tolist()
    [500]
    """
    x = as_lead(ecg)
    return _glitches(x, glitch_limits(x, fs))


def _glitches(x, limits) -> np.ndarray:
    """Boolean mask of the samples of ``x`` beyond ``limits`` (``(median, limit)`` or None);
    read block by block only when an extreme of the lead lies beyond them."""
    bad = np.zeros(x.size, dtype=bool)
    if limits is None or x.size == 0:
        return bad
    median, limit = limits
    lo, hi = _extremes(x)
    with np.errstate(over="ignore", invalid="ignore"):
        if median - limit <= lo and hi <= median + limit:
            return bad
        for start, block in lead_blocks(x):
            bad[start:start + block.size] = np.abs(block - median) > limit
    return bad


def signal_mask(ecg, fs: float, *, flat_s: float = 1.0) -> np.ndarray:
    """Boolean mask of unusable samples: NaN/inf, impulse glitches (:data:`GLITCH_FACTOR`), or
    flat runs of at least ``flat_s`` s.

    Parameters
    ----------
    ecg : array_like or DigitalLead, shape (n,)
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

    See Also
    --------
    true_runs, detect

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats import signal_mask
    >>> x = np.random.default_rng(0).standard_normal(2500)  # 10 s at 250 Hz
    >>> x[100:200] = np.nan
    >>> x[1000:1500] = 0.3  # 2 s flat: a loose electrode
    >>> x[2000] = 1e9  # a transmission error
    >>> int(signal_mask(x, 250.0).sum())
    601
    """
    x = as_lead(ecg)  # a DigitalLead is read a block at a time
    bad = glitch_mask(x, fs)
    for start, block in lead_blocks(x):
        bad[start:start + block.size] |= ~np.isfinite(block)
    m = max(int(round(flat_s * fs)) - 1, 1)  # a flat run: m equal neighbours in a row
    block = max(_MASK_BLOCK, 4 * m)
    for c0 in range(1, x.size, block):  # blocks of neighbour pairs (i - 1, i), m either side
        lo, hi = max(c0 - m, 1), min(c0 + block + m, x.size)
        y = x[lo - 1:hi]  # read (a DigitalLead: converted) once
        same = y[1:] == y[:-1]  # NaN compares unequal, so NaN never counts as flat
        starts, stops = true_runs(same)
        long = stops - starts >= m
        for a, b in zip(starts[long] + lo, stops[long] + lo, strict=True):
            bad[a - 1:b] = True
    return bad


def unusable_reason(n_missing: int, n_masked: int, n: int) -> str | None:
    """Why a lead of ``n`` samples, ``n_masked`` of them masked (:func:`signal_mask`) and
    ``n_missing`` of those NaN, is unusable as a whole: ``"missing (NaN)"``, ``"flat"`` (one
    value: a disconnected lead) or ``"flat or missing"``; None when a sample is left.

    Examples
    --------
    >>> from edr.beats.mask import unusable_reason
    >>> unusable_reason(0, 500, 500), unusable_reason(500, 500, 500), unusable_reason(0, 9, 500)
    ('flat', 'missing (NaN)', None)
    """
    if n == 0 or n_masked < n:
        return None
    return "missing (NaN)" if n_missing >= n else "flat" if n_missing == 0 else "flat or missing"
