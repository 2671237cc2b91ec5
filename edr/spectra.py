"""Spectra of a respiratory series: its spectral concentration and Welch's average over blocks.

:func:`spectral_concentration` scores how much of a series' in-band power lies around its peak
(the fusion's weights, the lead quality, the stitching's sign); :func:`welch_in_blocks` is
``scipy.signal.welch`` of a record-long lead without a record-sized copy (the mains line's
search). The grid, the band and the Welch segment length are :mod:`edr.signal`'s; the layering is
``docs/design.md#1-architecture-a-one-way-stack``.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from edr.dsp import spectral
from edr.io.digital_lead import as_lead
from edr.signal import BAND_HZ, GRID_FS, WELCH_SEGMENT_S

__all__ = [
    "CONCENTRATION_HALF_WIDTH_HZ",
    "WELCH_BLOCK_SEGMENTS",
    "WELCH_THREADS",
    "spectral_concentration",
    "welch_in_blocks",
]

CONCENTRATION_HALF_WIDTH_HZ = 0.05
"""Half-width (Hz) around the in-band peak counted by :func:`spectral_concentration`."""

WELCH_BLOCK_SEGMENTS = 512
"""Segments per block of :func:`welch_in_blocks` (about 17 minutes of 4 s half-overlapping
segments)."""
WELCH_THREADS = min(os.cpu_count() or 1, 2)
"""Threads transforming the blocks of :func:`welch_in_blocks` (each holds a block's segments
and spectra: ~15 MB at 250 Hz)."""


def spectral_concentration(x, fs: float = GRID_FS, *, band=BAND_HZ,
                           half_width_hz: float = CONCENTRATION_HALF_WIDTH_HZ,
                           peak_band=None):
    """Fraction of the in-band Welch power within ``±half_width_hz`` of the in-band peak.

    Welch segments of :data:`WELCH_SEGMENT_S` (or the whole series when shorter).
    With ``peak_band`` (Hz, inside ``band``) the peak is searched there only, and
    the power around it is still divided by all of ``band``'s: a series whose
    power lies mostly outside ``peak_band`` scores low.
    Returns 0 for a series shorter than 16 samples, non-finite, constant or
    without in-band power.

    ``x`` one-dimensional: a float. Two-dimensional: the concentration of each row, as an array
    (the rows' spectra computed at once).

    See Also
    --------
    edr.fusion.local_concentration, welch_in_blocks

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(480) / 4.0
    >>> b = np.sin(2 * np.pi * 0.25 * t)
    >>> from edr.spectra import spectral_concentration
    >>> noise = np.random.default_rng(0).standard_normal(t.size)
    >>> round(spectral_concentration(b), 2), round(spectral_concentration(noise), 2)
    (1.0, 0.13)
    """
    x = np.asarray(x, dtype=float)
    rows = np.atleast_2d(x)
    out = np.zeros(rows.shape[0])
    n = rows.shape[1]
    ok = np.all(np.isfinite(rows), axis=1) & (n >= 16)
    if ok.any():
        ok[ok] = np.ptp(rows[ok], axis=1) > 0
    if ok.any():
        y = rows[ok]
        f, p = spectral.welch(y - y.mean(axis=1, keepdims=True), fs,
                              min(n, int(round(WELCH_SEGMENT_S * fs))))
        b = (f >= band[0]) & (f <= band[1])
        fb = f[b]
        search = np.flatnonzero(np.ones(fb.size, dtype=bool) if peak_band is None else
                                (fb >= peak_band[0]) & (fb <= peak_band[1]))
        if search.size:
            out[ok] = _concentrations(p[:, b], fb, search, half_width_hz)
    return out if x.ndim == 2 else float(out[0])


def _concentrations(pb, fb, search, half_width_hz) -> list:
    """Each row's in-band power ``pb`` (at ``fb``) within ``half_width_hz`` of its largest value
    at the indices ``search``, over all of it (0 without power). The peaks of all rows at once
    (each row's first maximum); the band around a peak is made once per peak bin; each row's
    total is summed alone (NumPy may add the rows of a 2-D array in another order)."""
    peaks = search[np.argmax(pb[:, search], axis=1)].tolist()
    near = {}
    out = []
    for row, k in zip(pb, peaks, strict=True):
        total = row.sum()
        if total <= 0:
            out.append(0.0)
            continue
        if k not in near:
            near[k] = np.abs(fb - fb[k]) <= half_width_hz
        out.append(float(row[near[k]].sum() / total))
    return out


def welch_in_blocks(x, fs: float, nperseg: int, *, fill: float | None = None,
                    offset: float = 0.0, block_segments: int = WELCH_BLOCK_SEGMENTS):
    """``scipy.signal.welch(y - offset, fs=fs, nperseg=nperseg)`` (Hann, half overlap, the
    segments that fit), ``y`` being ``x`` with its NaN samples set to ``fill`` (None: ``x`` has
    none), computed over blocks of at most ``block_segments`` consecutive segments whose
    periodograms are averaged with their segment counts: the same average of the same segments
    without a record-sized copy or segment array (a 24-hour record at 250 Hz is 173 MB per
    float64 copy; ``welch`` holds several at once). Several blocks are transformed in
    :data:`WELCH_THREADS` threads and added in their order: the sum one thread makes.

    See Also
    --------
    edr.dsp.spectral.welch, spectral_concentration

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(480) / 4.0
    >>> b = np.sin(2 * np.pi * 0.25 * t)
    >>> from edr.spectra import welch_in_blocks
    >>> f, p = welch_in_blocks(b, 4.0, 64)
    >>> f.shape, f[np.argmax(p)]
    ((33,), np.float64(0.25))
    """
    x = as_lead(x)  # a DigitalLead is converted a block at a time
    step = nperseg - nperseg // 2
    n_seg = max((x.size - nperseg) // step + 1, 1)
    firsts = range(0, n_seg, block_segments)

    def block(first):
        m = min(block_segments, n_seg - first)
        y = x[first * step:(first + m - 1) * step + nperseg]
        if fill is not None:
            y = np.where(np.isfinite(y), y, fill)
        f, p = spectral.welch(y - offset, fs, nperseg)  # SciPy's values; short: one segment
        return f, p, m

    if len(firsts) == 1:
        return block(0)[:2]
    total = 0.0
    with ThreadPoolExecutor(max_workers=WELCH_THREADS) as pool:
        for part in pool.map(block, firsts):  # added in order, as by one thread
            f, p, m = part
            total = total + m * p
    return f, total / n_seg
