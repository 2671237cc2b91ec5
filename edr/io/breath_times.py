"""Breath times of one's own as a recording's reference: read from a text file, checked, and
put in place of the file's annotations.

Given times are ends of inspiration (:data:`edr.io.reference.END_OF_INSPIRATION`), the point
the EDR's breaths and the ``time_s`` of the breaths CSV mark; times no breathing has are
refused with a warning by the check annotations pass
(:func:`edr.io.reference.implausible_reason`), and the EDR goes on without them.
"""

from __future__ import annotations

import warnings

import numpy as np

from edr.errors import ReferenceWarning
from edr.io.reference import END_OF_INSPIRATION, implausible_reason
from edr.io.time_axis import time_unit

__all__ = ["breath_times_file", "given_breath_times", "time_file_column", "with_breath_times"]


def breath_times_file(path) -> np.ndarray:
    """Breath times (s from the record's first sample) from a text file of one's own.

    Parameters
    ----------
    path : str or os.PathLike
        A text file (``,``, ``;`` or tab separated; UTF-8; lines beginning with ``#`` or ``%``
        are comments): one time per line, or a header row and one column named as a time
        (``time_s``, ``time``, ``t [ms]``: :func:`edr.io.time_axis.time_unit`; its unit is
        read), or a header row and a single column. The breaths CSV of ``edr extract
        --breaths`` is one (its ``time_s``). Decimal commas are read in ``;`` or tab separated
        files.

    Returns
    -------
    numpy.ndarray
        The times in seconds, in the file's order.

    Raises
    ------
    FileNotFoundError
        No such file.
    RecordError
        No time in it, several columns none named as a time (their names are listed), or a
        field that is not a number.

    See Also
    --------
    with_breath_times : a recording given these times as its reference.
    edr.io.reference.implausible_reason : the check they pass before they are used.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from edr.io.breath_times import breath_times_file
    >>> tmp = tempfile.TemporaryDirectory()
    >>> _ = (Path(tmp.name) / "b.csv").write_text("onset_id,t [ms]\\n1,2500\\n2,6250\\n")
    >>> breath_times_file(Path(tmp.name) / "b.csv").tolist()
    [2.5, 6.25]
    >>> tmp.cleanup()
    """
    values, name = time_file_column(path, "breath times")
    return values * (time_unit(name) if name is not None and time_unit(name) else 1.0)


def time_file_column(path, what: str, also=()) -> tuple[np.ndarray, str | None]:
    """The column of times of a text file of one's own, and its header name.

    The one reader of :func:`breath_times_file` and :func:`edr.io.r_peaks.r_peaks_file`: a file
    (``,``, ``;`` or tab separated; UTF-8; ``#`` and ``%`` lines are comments) of one number per
    line, or a header row and a column named as a time (:func:`edr.io.time_axis.time_unit`) or
    as one of ``also`` (``"sample"``), or a header row and a single column.

    Parameters
    ----------
    path : str or os.PathLike
    what : str
        What the times are (``"breath times"``), for the messages.
    also : tuple of str, default ()
        Other column names (lower case) that hold the times.

    Returns
    -------
    values : numpy.ndarray
        The column's numbers as they are written (no unit applied), in the file's order.
    name : str or None
        The column's header name (None without a header row).

    Raises
    ------
    FileNotFoundError
        No such file.
    RecordError
        No number in it, several columns none named as a time (their names are listed), or a
        field that is not a number.

    See Also
    --------
    breath_times_file, edr.io.r_peaks.r_peaks_file

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from edr.io.breath_times import time_file_column
    >>> tmp = tempfile.TemporaryDirectory()
    >>> _ = (Path(tmp.name) / "r.csv").write_text("beat;Sample\\n1;250\\n2;460\\n")
    >>> time_file_column(Path(tmp.name) / "r.csv", "R peaks", also=("sample",))
    (array([250., 460.]), 'Sample')
    >>> tmp.cleanup()
    """
    import csv
    from pathlib import Path

    from edr.errors import RecordError
    from edr.io.time_axis import is_number, unquoted

    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{what} file not found: {p}")
    lines = [line for line in p.read_text(encoding="utf-8-sig").splitlines()
             if line.strip() and line.lstrip()[:1] not in ("#", "%")]
    delimiter = max((",", ";", "\t"), key=lambda d: lines[0].count(d)) if lines else ","
    rows = [[unquoted(f) for f in r] for r in csv.reader(lines, delimiter=delimiter)]
    header = rows[0] if rows and not all(is_number(f) for f in rows[0] if f) else None
    rows = rows[1:] if header is not None else rows
    column = 0
    if header is not None:
        timed = [k for k, name in enumerate(header)
                 if time_unit(name) is not None or name.strip().lower() in also]
        if not timed and len([n for n in header if n]) > 1:
            raise RecordError(f"{what} file {p} has columns {', '.join(header)}, none named "
                              f"as a time: name the column of {what} time_s (or time_ms"
                              + "".join(f", {a}" for a in also) + ")")
        column = timed[0] if timed else 0
    fields = [r[column].replace(",", ".") if delimiter != "," else r[column]
              for r in rows if len(r) > column]
    bad = next((f for f in fields if not is_number(f)), None)
    if bad is not None:
        raise RecordError(f"{what} file {p}: {bad[:40]!r} is not a time in seconds")
    if not fields:
        raise RecordError(f"{what} file {p} holds no time")
    return np.asarray(fields, dtype=np.float64), None if header is None else header[column]


def given_breath_times(times, duration_s: float, source: str, stacklevel: int = 2):
    """``(times, breath_source)`` of breath times given by the user, or ``(None, None)`` with a
    :class:`~edr.errors.ReferenceWarning` when they are not plausible (:func:`implausible_reason`).

    See Also
    --------
    with_breath_times : its use on a recording read from a file.
    edr.io.arrays.recording_from_arrays : its use on breath times given with arrays.

    Examples
    --------
    >>> from edr.io.breath_times import given_breath_times
    >>> given_breath_times([2.0, 6.0, 10.0, 14.0], 20.0, "given")
    (array([ 2.,  6., 10., 14.]), 'given: 4 breaths')
    """
    t = np.asarray(times, dtype=np.float64).ravel()
    reason = implausible_reason(t, duration_s)
    if reason is not None:
        what = "breath_times" if source == "given" else f"breath times {source}"
        warnings.warn(f"{what} not used: {reason}; the EDR goes on without them",
                      ReferenceWarning, stacklevel=stacklevel + 1)
        return None, None
    return t, f"{source}: {t.size} breaths"


def with_breath_times(recording, breath_times):
    """``recording`` with breath times of one's own as its reference, in place of its file's
    annotations.

    Parameters
    ----------
    recording : Recording
        The recording (:func:`edr.io.read_record`).
    breath_times : array_like or str or os.PathLike
        Times in seconds from its first sample, or a file of them (:func:`breath_times_file`).

    Returns
    -------
    Recording
        A copy with ``breath_times`` and ``breath_source`` (``"<file>: <n> breaths"``, or
        ``"given: <n> breaths"``), taken as ends of inspiration (``breath_event``, as the
        ``time_s`` of the breaths CSV); with none, and a :class:`~edr.errors.ReferenceWarning`,
        when the times are not plausible.

    Raises
    ------
    FileNotFoundError, RecordError
        As :func:`breath_times_file`.

    See Also
    --------
    breath_times_file, given_breath_times

    Examples
    --------
    >>> from edr.io.breath_times import with_breath_times
    >>> from edr.simulate import simulate_recording
    >>> rec = with_breath_times(simulate_recording(30.0, 250.0, random_state=0), [3.0, 7.0, 11.0])
    >>> rec.breath_source
    'given: 3 breaths'
    """
    import os
    from dataclasses import replace

    if isinstance(breath_times, (str, os.PathLike)):
        times, source = breath_times_file(breath_times), os.fspath(breath_times)
    else:
        times, source = breath_times, "given"
    duration = np.asarray(recording.ecg).size / recording.fs
    t, why = given_breath_times(times, duration, source, stacklevel=3)
    return replace(recording, breath_times=t, breath_source=why, breath_event=END_OF_INSPIRATION)
