"""Time axes of tables: which column holds the time, in which unit, and the sampling rate it gives.

The one home of the rules the CSV reader (:mod:`edr.io.csv_reader`) and DataFrames given as
arrays (:func:`edr.io.arrays.recording_from_arrays`) share. A time column is named by a time word
(``time``, ``t``, ``timestamp``, ``elapsed time``) with an optional unit after it (``time_s``,
``Time (sec)``, ``timestamp [ms]``, ``t_us``: the units of :data:`TIME_UNITS`; seconds without
one), or by a unit alone (``s``, ``sec``, ``seconds``, ``ms``); :func:`time_unit` reads a name.
A column of sample numbers (:data:`INDEX_COLUMNS`) is neither a channel nor a time.
:func:`fs_from_time` gives the sampling rate of a uniformly sampled axis.
"""

from __future__ import annotations

import re

import numpy as np

from edr.errors import RecordError
from edr.io.channels import clean_name

__all__ = ["INDEX_COLUMNS", "TIME_UNITS", "fs_from_time", "time_unit", "unquoted"]

#: Units of a time column (case-insensitive) and their length in seconds.
TIME_UNITS: dict[str, float] = {
    "s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0, "seconds": 1.0,
    "ms": 1e-3, "msec": 1e-3, "millisecond": 1e-3, "milliseconds": 1e-3,
    "us": 1e-6, "µs": 1e-6, "usec": 1e-6, "microsecond": 1e-6, "microseconds": 1e-6,
    "ns": 1e-9, "nsec": 1e-9, "nanosecond": 1e-9, "nanoseconds": 1e-9,
    "min": 60.0, "minute": 60.0, "minutes": 60.0,
}

#: Units that name a time column on their own (a column ``min`` is more likely a minimum).
_BARE_TIME_UNITS = ("s", "sec", "seconds", "ms")

_TIME_NAME = re.compile(r"(?P<word>elapsed[ _]?time|time[ _]?stamp|elapsed|time|t)?[ _\-]*"
                        r"(?:[(\[]\s*(?P<bracketed>[^)\]]+?)\s*[)\]]|(?P<unit>[a-zµ]+))?")

#: Names of a column of sample numbers (case-insensitive): no channel, and no sampling rate.
INDEX_COLUMNS = ("sample", "samples", "sample #", "sample number", "sample_number", "sample no",
                 "sample_no", "index", "idx")

def time_unit(name: str) -> float | None:
    """Seconds per unit of a column named ``name`` if it is a time column, else None.

    Parameters
    ----------
    name : str
        A column name, compared case-insensitively, quotes and blanks around it ignored.

    Returns
    -------
    float or None

    See Also
    --------
    edr.io.csv_reader.read_csv, edr.io.arrays.recording_from_arrays : find the time column.

    Examples
    --------
    >>> from edr.io.time_axis import time_unit
    >>> [time_unit(n) for n in ("time", "Time (sec)", "timestamp_ms", "ECG", "min")]
    [1.0, 1.0, 0.001, None, None]
    """
    m = _TIME_NAME.fullmatch(unquoted(name).lower())
    if m is None:
        return None
    unit = m["bracketed"] or m["unit"]
    if unit is not None and ":" in unit:  # a clock (hh:mm:ss.mmm), read as seconds
        return 1.0
    if m["word"] is None:
        return TIME_UNITS[unit] if unit in _BARE_TIME_UNITS else None
    return 1.0 if unit is None else TIME_UNITS.get(unit.strip())


def fs_from_time(t: np.ndarray, *, source: str, column: str) -> float:
    """Sampling rate (Hz) of a uniformly sampled time axis ``t`` (s).

    The rate is ``(n - 1) / (t[-1] - t[0])`` to 6 decimals; the axis must increase and every
    step must lie within half a sample period of ``1 / fs`` (a missing or
    repeated sample fails), which tolerates times printed with rounding.

    Raises
    ------
    RecordError
        Fewer than two times, NaN times, or a non-uniform axis (the worst step is named).

    See Also
    --------
    time_unit : the unit of a time column, by its name.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.io.time_axis import fs_from_time
    >>> round(fs_from_time(np.arange(10) / 250.0, source="rec.csv", column="time_s"), 6)
    250.0
    """
    if t.size < 2 or not np.all(np.isfinite(t)):
        raise RecordError(f"time column {column!r} of {source} needs at least 2 finite values")
    span = t[-1] - t[0]
    if span <= 0:
        raise RecordError(f"time column {column!r} of {source} does not increase")
    fs = (t.size - 1) / span
    steps = np.diff(t) * fs
    worst = int(np.argmax(np.abs(steps - 1.0)))
    if abs(steps[worst] - 1.0) > 0.5:
        raise RecordError(
            f"time column {column!r} of {source} is not uniformly sampled: step "
            f"{np.diff(t)[worst]:g} s at row {worst + 2} vs {1 / fs:g} s on average"
        )
    return round(float(fs), 6)  # 249.99999999999997 from times in ms is 250


def unquoted(text: str) -> str:
    """``text`` without blanks and one pair of enclosing quotes (``'II'`` -> ``II``).

    Examples
    --------
    >>> from edr.io.time_axis import unquoted
    >>> unquoted("  'Elapsed time' "), unquoted('"II"'), unquoted("RESP, ")
    ('Elapsed time', 'II', 'RESP')
    """
    text = clean_name(text)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1].strip()
    return text
