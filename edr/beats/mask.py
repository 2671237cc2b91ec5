"""Unusable samples of a lead: NaN or infinite, or flat runs (a disconnected or saturated lead)."""

from __future__ import annotations

import numpy as np

from edr.io.digital_lead import as_lead, lead_blocks

__all__ = ["signal_mask", "true_runs"]

_MASK_BLOCK = 1 << 20
"""Samples compared at once by :func:`signal_mask` (its memory is bounded on a whole day)."""


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


def signal_mask(ecg, fs: float, *, flat_s: float = 1.0) -> np.ndarray:
    """Boolean mask of unusable samples: NaN/inf, or flat runs of at least ``flat_s`` s.

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
    >>> int(signal_mask(x, 250.0).sum())
    600
    """
    x = as_lead(ecg)  # a DigitalLead is read a block at a time
    bad = np.empty(x.size, dtype=bool)
    for start, block in lead_blocks(x):
        bad[start:start + block.size] = ~np.isfinite(block)
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
