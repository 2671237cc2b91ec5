"""The mains line: find it in an ECG lead and notch it out, with its harmonics.

Mains interference is no part of the heart's morphology, but sampled once per beat it aliases
into the beat series; :func:`remove_mains` cleans every lead before beats and morphology
(:mod:`edr.windows`), the stream finds the line once per lead and notches every update
(:func:`mains_frequency`, :func:`notch_mains`). Measurements: ``docs/studies/beyond_the_icu.md``.
"""

from __future__ import annotations

import numpy as np

from edr import zero_phase
from edr.beats import true_runs
from edr.dsp.filters import iirnotch
from edr.io.digital_lead import DigitalLead, as_lead, finite_median, lead_blocks, lead_sum
from edr.spectra import welch_in_blocks

__all__ = ["MAINS_HZ", "MAINS_MIN_DB", "MAINS_NOTCH_Q", "mains_frequency", "notch_mains",
           "remove_mains"]

MAINS_HZ = (50.0, 60.0)
"""Mains frequencies (Hz) :func:`mains_frequency` looks for."""

MAINS_MIN_DB = 10.0
"""A mains line counts when its Welch power stands this many dB above the median of its
neighbours (1-3 Hz either side): a line of that size aliases into the beat-sampled series."""

MAINS_NOTCH_Q = 30.0
"""Quality factor of the notches (-3 dB width ``f0 / Q``: 1.7 Hz at 50 Hz)."""


def _notchable(hz: float, fs: float) -> bool:
    """Whether a notch at ``hz`` isolates a line sampled at ``fs``: its -3 dB band
    (``hz ± hz / (2 Q)``, ``Q =`` :data:`MAINS_NOTCH_Q`) lies below the Nyquist rate. At the
    Nyquist rate a sampled line is a constant alternation that no notch can isolate; just below
    it (60 Hz at 125 Hz) the notch is as narrow as anywhere else."""
    return hz * (1.0 + 0.5 / MAINS_NOTCH_Q) < 0.5 * fs


def mains_frequency(x, fs: float) -> float | None:
    """The mains line (one of :data:`MAINS_HZ`) that stands out of ``x``'s spectrum, or None.

    Welch power (4 s segments) at the line against the median power 1-3 Hz either side; the
    line counts when it stands :data:`MAINS_MIN_DB` above it. NaN samples are left out (set to
    the median); a line whose notch would reach the Nyquist rate is not searched (``line (1 +
    1 / (2 Q)) >= fs / 2``: 50 Hz at 100 Hz; 60 Hz at 125 Hz is searched).

    See Also
    --------
    remove_mains, notch_mains

    Examples
    --------
    >>> import numpy as np
    >>> fs = 250.0
    >>> t = np.arange(int(30 * fs)) / fs
    >>> hum = 0.5 * np.sin(2 * np.pi * 50.0 * t)
    >>> ecg = 0.05 * np.random.default_rng(0).standard_normal(t.size) + hum
    >>> from edr.mains import mains_frequency
    >>> mains_frequency(ecg, fs), mains_frequency(ecg - hum, fs)
    (50.0, None)
    """
    x = as_lead(x)
    ok = np.empty(x.size, dtype=bool)
    for start, block in lead_blocks(x):
        ok[start:start + block.size] = np.isfinite(block)
    n_ok = int(ok.sum())
    if n_ok < 8 * fs:
        return None
    fill, mean = _fill_and_mean(x, ok, n_ok)
    f, p = welch_in_blocks(x, fs, int(round(4 * fs)), fill=fill, offset=mean)
    best, best_db = None, MAINS_MIN_DB
    for line in MAINS_HZ:
        if not _notchable(line, fs):
            continue
        k = int(np.argmin(np.abs(f - line)))
        near = (np.abs(f - line) >= 1.0) & (np.abs(f - line) <= 3.0)
        floor = np.median(p[near])
        db = 10 * np.log10(p[k] / floor) if floor > 0 and p[k] > 0 else 0.0
        if db > best_db:
            best, best_db = line, db
    return best


def _fill_and_mean(x, ok: np.ndarray, n_ok: int):
    """``(fill, mean)``: the median of the finite samples (None without NaN) and the mean of
    the lead with its NaN set to it: ``x.mean()`` or ``(np.sum(x, where=ok) + n_nan * fill) /
    x.size``; of a :class:`~edr.io.digital_lead.DigitalLead` the same bits a block at a time
    (:func:`edr.io.digital_lead.lead_sum` follows NumPy's pairwise sum of a contiguous array;
    NumPy's masked sum adds the pairwise sums of the runs of ``ok`` one after the other)."""
    if not isinstance(x, DigitalLead):  # an array, contiguous or not: NumPy's own sums
        if n_ok == x.size:
            return None, x.mean()
        fill = finite_median(x)
        return fill, (np.sum(x, where=ok) + (x.size - n_ok) * fill) / x.size
    if n_ok == x.size:
        return None, lead_sum(x) / x.size
    fill = finite_median(x)
    total = 0.0
    for a, b in zip(*true_runs(ok), strict=True):
        total = total + lead_sum(x, a, b)
    return fill, (total + (x.size - n_ok) * fill) / x.size


def remove_mains(x, fs: float) -> np.ndarray:
    """``x`` with its mains line and the line's harmonics notched out, when it has one.

    Mains interference is no part of the heart's morphology, but sampled once per beat it
    aliases to a slow, narrow-band oscillation of the beat series (for a 50 Hz line and a
    heart rate ``f_h``, at ``|50 - round(50 / f_h) f_h|``) that can look more respiratory than
    the breathing itself. :func:`mains_frequency` decides whether a line is present; each
    harmonic whose notch lies below the Nyquist rate then gets a zero-phase IIR notch
    (``scipy.signal.iirnotch``, ``Q =`` :data:`MAINS_NOTCH_Q`, applied forward and backward).
    Without a line ``x`` is returned unchanged (the same array, or the same
    :class:`~edr.io.digital_lead.DigitalLead`: the check reads a lead a block at a time; a
    notched lead is a float64 array). NaN samples stay NaN. Measurements:
    ``docs/studies/beyond_the_icu.md``.

    See Also
    --------
    mains_frequency, notch_mains

    Examples
    --------
    >>> import numpy as np
    >>> fs = 250.0
    >>> t = np.arange(int(30 * fs)) / fs
    >>> hum = 0.5 * np.sin(2 * np.pi * 50.0 * t)
    >>> ecg = 0.05 * np.random.default_rng(0).standard_normal(t.size) + hum
    >>> from edr.mains import remove_mains
    >>> round(float(np.std(ecg)), 2), round(float(np.std(remove_mains(ecg, fs))), 2)
    (0.36, 0.05)
    """
    return notch_mains(x, fs, mains_frequency(x, fs))


def notch_mains(x, fs: float, line: float | None) -> np.ndarray:
    """``x`` with the mains ``line`` (Hz) and its harmonics whose notch lies below the Nyquist
    rate notched out, as :func:`remove_mains` does once it has found the line; ``x`` itself when
    ``line`` is None.

    See Also
    --------
    remove_mains

    Examples
    --------
    >>> import numpy as np
    >>> fs = 250.0
    >>> t = np.arange(int(30 * fs)) / fs
    >>> hum = 0.5 * np.sin(2 * np.pi * 50.0 * t)
    >>> ecg = 0.05 * np.random.default_rng(0).standard_normal(t.size) + hum
    >>> from edr.mains import notch_mains
    >>> notch_mains(ecg, fs, None) is ecg, round(float(np.std(notch_mains(ecg, fs, 50.0))), 2)
    (True, 0.05)
    """
    if line is None:
        return as_lead(x)
    x = np.asarray(x, dtype=float)
    ok = np.isfinite(x)
    y = np.where(ok, x, finite_median(x))
    h = 1
    while _notchable(h * line, fs):
        b, a = iirnotch(h * line, MAINS_NOTCH_Q, fs)
        y = zero_phase.filtfilt(b, a, y)
        h += 1
    return np.where(ok, y, np.nan)
