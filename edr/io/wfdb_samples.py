"""A WFDB record's samples through wfdb-python: in one call, by blocks of frames, or held as
their digital samples (:class:`~edr.io.digital_lead.DigitalLead`) when the record is long.

:mod:`edr.io.wfdb_reader` reads records with these; blocks and digital leads keep a 24-hour
record's read within its output (``docs/studies/fast_selection.md``, fifth and sixth rounds).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import wfdb

from edr.io.digital_lead import DigitalLead, physical

__all__ = ["BLOCK_FRAMES", "read_signals", "read_digital", "held_digital"]

#: Frames of a long record read per wfdb call (:func:`read_digital`): 8 MB of float64 per
#: channel at one sample per frame. A record longer than this is held as its digital samples
#: (:func:`held_digital`).
BLOCK_FRAMES = 1 << 20
# formats whose samples depend on earlier frames (8: differences; FLAC: decoded whole)
_WHOLE_FMTS = frozenset({"8", "508", "516", "524"})
# formats whose digital samples wfdb returns (``physical=False``; not 61, whose big-endian
# dtype name wfdb 4.3 cannot parse in ``convert_dtype``)
_DIGITAL_FMTS = frozenset({"16", "24", "32", "80", "160", "212", "310", "311"})


def read_signals(base: Path, header: wfdb.Record, indices: list[int]) -> list[np.ndarray]:
    """The physical samples (float64) of channels ``indices`` of record ``base``, as wfdb reads
    them (``e_p_signal`` of ``wfdb.rdrecord(..., smooth_frames=False, return_res=64)``).

    A record longer than :data:`BLOCK_FRAMES` frames is read as :func:`read_digital` reads it,
    each block converted into arrays allocated once (:func:`edr.io.digital_lead.physical`): the
    same bits as wfdb's conversion ((digital - baseline) / gain, NaN at the format's invalid
    value), without the whole record's temporaries (the digital samples, their float64 copy
    and the mask of invalid samples; measured in ``docs/studies/fast_selection.md``, fifth
    round); format 61, whose digital samples wfdb cannot return, as wfdb's physical samples
    :data:`BLOCK_FRAMES` frames at a time. Records whose samples depend on earlier frames
    (format 8 stores differences from the record's start; FLAC formats 508/516/524 are decoded
    whole) or on later ones (a skewed signal) are read in one call.

    Parameters
    ----------
    base : Path
        The record without extension.
    header : wfdb.Record
        Its header (``wfdb.rdheader``).
    indices : list of int
        The channels to read, in the order returned.

    Returns
    -------
    list of ndarray
        One float64 array per channel, ``sig_len * samps_per_frame`` samples.

    Raises
    ------
    ValueError
        A block of an unexpected length; wfdb's own errors of an unreadable data file (bare
        ``ValueError`` and others) pass through (:func:`edr.io.wfdb_reader.read_wfdb` turns
        them into :class:`~edr.errors.RecordError`).

    See Also
    --------
    read_digital, edr.io.wfdb_reader.read_wfdb

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> import wfdb
    >>> from edr.io import write_wfdb
    >>> from edr.io.wfdb_samples import read_signals
    >>> tmp = tempfile.TemporaryDirectory()
    >>> hea, dat = write_wfdb(Path(tmp.name), "ramp", np.linspace(-1.0, 1.0, 500), 250.0)
    >>> x, = read_signals(Path(tmp.name) / "ramp", wfdb.rdheader(str(hea)[:-4]), [0])
    >>> x.dtype, x.size
    (dtype('float64'), 500)
    >>> tmp.cleanup()
    """
    if int(header.sig_len or 0) <= BLOCK_FRAMES or not _blockable(header, indices):
        return _wfdb_physical(base, indices, 0, None)
    if not held_digital(header, indices):  # format 61: wfdb's physical samples by blocks
        return _in_blocks(header, indices, np.float64,
                          lambda start, stop: _wfdb_physical(base, indices, start, stop))
    res, scales = _digital_scales(header, indices)
    return _in_blocks(header, indices, np.float64, lambda start, stop: [
        physical(d, *scale) for d, scale in zip(_wfdb_digital(base, indices, start, stop, res),
                                                scales, strict=True)])


def held_digital(header: wfdb.Record, indices: list[int]) -> bool:
    """Whether channels ``indices`` are read as :class:`~edr.io.digital_lead.DigitalLead`
    (:func:`read_digital`): a record longer than :data:`BLOCK_FRAMES` frames, in formats whose
    samples can be read block by block (not format 8 nor FLAC), none of them skewed."""
    fmts = {str(header.fmt[i]) for i in indices}
    return (int(header.sig_len or 0) > BLOCK_FRAMES and fmts <= _DIGITAL_FMTS
            and _blockable(header, indices))


def _blockable(header: wfdb.Record, indices: list[int]) -> bool:
    """Whether each block of frames of channels ``indices`` reads the same samples as the
    whole record does (not format 8 nor FLAC, no skew)."""
    fmts = {str(header.fmt[i]) for i in indices}
    skewed = any(header.skew[i] for i in indices) if header.skew else False
    return not (fmts & _WHOLE_FMTS) and not skewed


def read_digital(base: Path, header: wfdb.Record, indices: list[int]) -> list[DigitalLead]:
    """Channels ``indices`` of record ``base`` as their digital samples, read
    :data:`BLOCK_FRAMES` frames at a time (``wfdb.rdrecord(..., physical=False)``) into arrays
    allocated once (int16, or int32 for formats 24 and 32), with their gain, baseline and
    invalid value: :class:`~edr.io.digital_lead.DigitalLead` objects whose values are wfdb's
    physical samples, bit for bit.

    Parameters
    ----------
    base, header, indices
        As :func:`read_signals`; the channels' formats must allow blocks
        (:func:`held_digital`).

    Returns
    -------
    list of DigitalLead
        One per channel, ``sig_len * samps_per_frame`` samples.

    Raises
    ------
    ValueError
        A block of an unexpected length; wfdb's own errors pass through.

    See Also
    --------
    read_signals, edr.io.digital_lead.physical

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> import wfdb
    >>> from edr.io import write_wfdb
    >>> from edr.io.wfdb_samples import read_digital
    >>> tmp = tempfile.TemporaryDirectory()
    >>> hea, dat = write_wfdb(Path(tmp.name), "ramp", np.linspace(-1.0, 1.0, 500), 250.0)
    >>> lead, = read_digital(Path(tmp.name) / "ramp", wfdb.rdheader(str(hea)[:-4]), [0])
    >>> lead.digital.dtype, lead.size, lead[0] == -1.0
    (dtype('int16'), 500, np.True_)
    >>> tmp.cleanup()
    """
    res, scales = _digital_scales(header, indices)
    out = _in_blocks(header, indices, np.dtype(f"int{res}"),
                     lambda start, stop: _wfdb_digital(base, indices, start, stop, res))
    return [DigitalLead(d, *scale) for d, scale in zip(out, scales, strict=True)]


def _digital_scales(header: wfdb.Record, indices: list[int]):
    """``(res, [(gain, baseline, invalid value), ...])``: the integer width the digital samples
    of channels ``indices`` are read at (16, or 32 for formats 24 and 32) and each one's
    conversion (:func:`edr.io.digital_lead.physical`)."""
    fmts = [str(header.fmt[i]) for i in indices]
    res = 32 if {"24", "32"} & set(fmts) else 16
    return res, [(header.adc_gain[i], header.baseline[i],
                  wfdb.io._signal.INVALID_SAMPLE_VALUE[fmt])
                 for i, fmt in zip(indices, fmts, strict=True)]


def _in_blocks(header: wfdb.Record, indices: list[int], dtype, read_block) -> list[np.ndarray]:
    """Channels ``indices`` read :data:`BLOCK_FRAMES` frames at a time by ``read_block(start,
    stop)`` (one array per channel) into arrays of ``dtype`` allocated once."""
    n = int(header.sig_len or 0)
    spf = [(header.samps_per_frame or [1] * header.n_sig)[i] or 1 for i in indices]
    out = [np.empty(n * k, dtype=dtype) for k in spf]
    for start in range(0, n, BLOCK_FRAMES):
        stop = min(start + BLOCK_FRAMES, n)
        for x, part, k in zip(out, read_block(start, stop), spf, strict=True):
            if part.size != (stop - start) * k:
                raise ValueError(f"frames {start}-{stop} gave {part.size} samples, "
                                 f"not {(stop - start) * k}")
            x[start * k:stop * k] = part
    return out


def _wfdb_physical(base: Path, indices: list[int], start: int,
                   stop: int | None) -> list[np.ndarray]:
    """wfdb's physical samples of frames ``start:stop`` of the channels ``indices``."""
    rec = wfdb.rdrecord(str(base), sampfrom=start, sampto=stop, channels=list(indices),
                        smooth_frames=False, return_res=64)
    return [np.asarray(x, dtype=np.float64) for x in rec.e_p_signal]


def _wfdb_digital(base: Path, indices: list[int], start: int, stop: int, res: int):
    """wfdb's digital samples (``int<res>``) of frames ``start:stop`` of the channels
    ``indices``."""
    rec = wfdb.rdrecord(str(base), sampfrom=start, sampto=stop, channels=list(indices),
                        physical=False, smooth_frames=False, return_res=res)
    return rec.e_d_signal
