"""A long record's lead held as its digital samples, converted to float64 where it is read.

A 24-hour lead at 250 Hz is 173 MB as float64 and 43 MB as the int16 samples of WFDB format 16.
:class:`DigitalLead` keeps the samples, the gain and the baseline, and gives float64 physical
values (mV) of whatever slice is read: the pipeline reads its windows, the mains check and the
mask of unusable samples one slice at a time (:func:`lead_blocks`, :func:`lead_sum`), so the
whole lead is never converted at once. For a user it is a read-only 1-D array: slicing and
indexing give float64 arrays, ``np.asarray(lead)`` the whole lead, and arithmetic and NumPy's
functions take it as that array. Measurements: ``docs/studies/fast_selection.md``, sixth round.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

__all__ = ["DigitalLead", "LEAD_BLOCK", "physical", "lead_blocks", "lead_sum", "finite_median",
           "as_lead"]

LEAD_BLOCK = 1 << 20
"""Samples converted at a time when a whole :class:`DigitalLead` is read (8 MB of float64)."""


def physical(digital: np.ndarray, gain: float, baseline: float, invalid: int | None = None,
             scale: float = 1.0) -> np.ndarray:
    """Physical float64 values of ``digital`` samples: ``(digital - baseline) / gain``, NaN at
    the ``invalid`` value, times ``scale`` when it is not 1.

    The same operations in the same order as wfdb's ``dac`` (``wfdb.rdrecord(...,
    return_res=64)``: float64 cast, subtract, divide, NaN) followed by
    :func:`edr.io.recording.to_millivolts`, so the values are the same bits; each value depends
    on its own sample only, so any slice converts to the bits of the whole.

    Parameters
    ----------
    digital : ndarray of int
        Digital samples.
    gain, baseline : float
        ADC gain (digital units per physical unit) and baseline (digital value of 0).
    invalid : int, optional
        The format's invalid sample value (WFDB: -32768 for format 16); those samples are NaN.
    scale : float, default 1.0
        Factor from the physical unit to mV (:func:`edr.io.recording.to_millivolts`).

    Returns
    -------
    ndarray of float64

    Examples
    --------
    >>> import numpy as np
    >>> from edr.io.digital_lead import physical
    >>> physical(np.array([200, 0, -32768], dtype=np.int16), 200.0, 0, -32768)
    array([ 1.,  0., nan])
    """
    d = np.asarray(digital)
    x = d.astype(np.float64)
    np.subtract(x, baseline, x)
    np.divide(x, gain, x)
    if invalid is not None:
        x[d == invalid] = np.nan
    return x * scale if scale != 1.0 else x


class DigitalLead(NDArrayOperatorsMixin):
    """A read-only 1-D lead of float64 physical values held as its digital samples.

    Parameters
    ----------
    digital : ndarray of int, shape (n,)
        The samples as the record stores them (int16 for WFDB format 16); not copied.
    gain, baseline, invalid, scale
        As :func:`physical`.

    Attributes
    ----------
    digital : ndarray
        The samples (read-only view).
    shape, size, ndim, dtype
        Those of the float64 lead: ``(n,)``, ``n``, 1, float64.

    See Also
    --------
    physical : the conversion.
    edr.io.wfdb_reader.read_wfdb : returns one for each lead of a long record.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.io.digital_lead import DigitalLead
    >>> lead = DigitalLead(np.array([0, 200, 400, -32768], dtype=np.int16), 200.0, 0, -32768)
    >>> lead[1:3], lead.size, lead.dtype
    (array([1., 2.]), 4, dtype('float64'))
    >>> np.asarray(lead), float(np.nanmax(lead)), (lead * 2)[:3]
    (array([ 0.,  1.,  2., nan]), 2.0, array([0., 2., 4.]))
    """

    ndim = 1
    dtype = np.dtype(np.float64)

    def __init__(self, digital, gain: float, baseline: float, invalid: int | None = None,
                 scale: float = 1.0) -> None:
        d = np.asarray(digital)
        if d.ndim != 1 or d.dtype.kind not in "iu":
            raise ValueError(f"digital samples must be a 1-D integer array, got {d.dtype} of "
                             f"shape {d.shape}")
        self.digital = d.view()
        self.digital.flags.writeable = False
        self.gain, self.baseline, self.invalid = float(gain), baseline, invalid
        self.scale = float(scale)

    @property
    def shape(self) -> tuple[int]:
        return self.digital.shape

    @property
    def size(self) -> int:
        return self.digital.size

    @property
    def nbytes(self) -> int:
        """Bytes of the float64 lead (the digital samples hold ``digital.nbytes``)."""
        return self.size * 8

    def __len__(self) -> int:
        return self.size

    def __repr__(self) -> str:
        return (f"DigitalLead({self.size} samples as {self.digital.dtype}, gain={self.gain:g}, "
                f"baseline={self.baseline}, scale={self.scale:g})")

    def __getitem__(self, key):
        """The float64 values of ``digital[key]`` (a slice, an index or an index array)."""
        out = physical(self.digital[key], self.gain, self.baseline, self.invalid, self.scale)
        return out[()] if out.ndim == 0 else out

    def __array__(self, dtype=None, copy=None):
        """The whole lead as a float64 array, converted one :data:`LEAD_BLOCK` at a time."""
        if copy is False:
            raise ValueError("a DigitalLead has no float64 array to share: it converts a copy")
        out = np.empty(self.size, dtype=np.float64)
        for start, block in lead_blocks(self):
            out[start:start + block.size] = block
        return out if dtype is None else out.astype(dtype, copy=False)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """NumPy's ufuncs and operators on the float64 lead (a new array; never in place)."""
        if any(isinstance(o, DigitalLead) for o in kwargs.get("out", ())):
            raise TypeError("a DigitalLead is read-only")
        args = [np.asarray(a) if isinstance(a, DigitalLead) else a for a in inputs]
        return getattr(ufunc, method)(*args, **kwargs)

    def __reduce__(self):
        return DigitalLead, (self.digital, self.gain, self.baseline, self.invalid, self.scale)

    def __getattr__(self, name: str):
        """The float64 array's public attributes and methods (``lead.mean()``, ``lead.copy()``):
        those of ``np.asarray(lead)``, the whole lead converted."""
        if name.startswith("_") or "digital" not in self.__dict__:
            raise AttributeError(name)
        return getattr(np.asarray(self), name)

    def scaled(self, scale: float) -> DigitalLead:
        """The same samples with their values times ``scale`` (a unit conversion)."""
        if scale == 1.0:
            return self
        if self.scale != 1.0:
            raise ValueError("a DigitalLead is scaled once (its unit to mV)")
        return DigitalLead(self.digital, self.gain, self.baseline, self.invalid, scale)


def lead_blocks(x, size: int = LEAD_BLOCK):
    """``(start, float64 samples)`` of consecutive blocks of at most ``size`` samples of a lead
    (an array: views; a :class:`DigitalLead`: each block converted).

    Examples
    --------
    >>> import numpy as np
    >>> from edr.io.digital_lead import lead_blocks
    >>> [(s, b.tolist()) for s, b in lead_blocks(np.arange(5.0), 2)]
    [(0, [0.0, 1.0]), (2, [2.0, 3.0]), (4, [4.0])]
    """
    x = as_lead(x)
    for start in range(0, x.size, size):
        yield start, x[start:start + size]


def lead_sum(x, start: int = 0, stop: int | None = None, leaf: int = LEAD_BLOCK) -> float:
    """``np.sum(x[start:stop])`` of a float64 lead, the same bits, reading at most ``leaf``
    samples at once.

    NumPy sums a contiguous float64 array pairwise: a range longer than 128 is split at half
    its length rounded down to a multiple of 8, and the two halves' sums added. Splitting the
    range the same way down to ranges of at most ``leaf`` samples and summing each with
    ``np.sum`` follows the same tree (tested against ``np.sum`` on long arrays).

    Examples
    --------
    >>> import numpy as np
    >>> from edr.io.digital_lead import lead_sum
    >>> x = np.random.default_rng(0).standard_normal(100_003)
    >>> lead_sum(x, leaf=1000) == np.sum(x), lead_sum(x, 7, 50_000, 1000) == np.sum(x[7:50_000])
    (np.True_, np.True_)
    """
    x = as_lead(x)
    leaf = max(int(leaf), 128)

    def tree(lo: int, n: int):
        if n <= leaf:
            return np.sum(x[lo:lo + n])
        half = n // 2
        half -= half % 8
        return tree(lo, half) + tree(lo + half, n - half)

    stop = x.size if stop is None else min(stop, x.size)
    return tree(start, max(stop - start, 0))


def finite_median(x) -> float:
    """``np.median`` of the finite samples of a lead, the same bits.

    Of a :class:`DigitalLead`, without converting it: the middle one or two digital samples
    (``np.partition`` of the valid ones; the conversion keeps their order or reverses it) are
    converted and averaged as ``np.median`` averages them.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.io.digital_lead import DigitalLead, finite_median
    >>> lead = DigitalLead(np.array([5, -32768, 1, 3, 2], dtype=np.int16), 2.0, 0, -32768)
    >>> finite_median(lead), float(np.median([2.5, 0.5, 1.5, 1.0]))
    (1.25, 1.25)
    """
    if not isinstance(x, DigitalLead) or not np.isfinite(x.gain) or x.gain == 0:
        x = np.asarray(x, dtype=float)
        return float(np.median(x[np.isfinite(x)]))
    d = x.digital
    d = d[d != x.invalid] if x.invalid is not None else d.copy()
    if not d.size:
        return float("nan")
    lo, hi = (d.size - 1) // 2, d.size // 2
    d.partition([lo, hi])
    return float(np.median(physical(d[[lo, hi]], x.gain, x.baseline, None, x.scale)))


def as_lead(x):
    """``x`` itself when it is a :class:`DigitalLead`, else ``np.asarray(x, dtype=float)``."""
    return x if isinstance(x, DigitalLead) else np.asarray(x, dtype=float)
