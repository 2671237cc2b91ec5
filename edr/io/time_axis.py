"""Time axes of tables: which column holds the time, in which unit, and the sampling rate it gives.

The one home of the rules the CSV reader (:mod:`edr.io.csv_reader`) and DataFrames given as
arrays (:func:`edr.io.arrays.recording_from_arrays`) share. A time column is named by a time word
(``time``, ``t``, ``timestamp``, ``elapsed time``, ``datetime``) with an optional unit after it
(``time_s``, ``Time (sec)``, ``timestamp [ms]``, ``t_us``: the units of :data:`TIME_UNITS`;
seconds without one), or by a unit alone (``s``, ``sec``, ``seconds``, ``ms``); :func:`time_unit`
reads a name (the time words in German, French, Spanish and Italian too: ``Zeit``, ``temps``,
``tiempo``, ``tempo``). Its values are numbers in that unit, dates and times
(``2026-03-01T10:00:00.004``, NumPy or pandas datetimes, any time zone) or time differences:
:func:`elapsed_seconds` turns each into seconds from the first. A column of sample numbers
(:data:`INDEX_COLUMNS`) is neither a channel nor a time. :func:`fs_from_time` gives the sampling
rate of a uniformly sampled axis.
"""

from __future__ import annotations

import re

import numpy as np

from edr.errors import RecordError
from edr.io.channels import clean_name
from edr.names import FS_MAX, FS_MIN

__all__ = ["INDEX_COLUMNS", "MISSING_TOKENS", "TIME_UNITS", "check_time_rate", "elapsed_seconds",
           "fs_from_time",
           "is_date_time", "is_missing", "is_number", "time_unit", "unquoted"]

MISSING_TOKENS = frozenset({"", "nan", "nat", "na", "n/a", "null", "none", "-"})
"""Texts a table writes for a missing value, compared stripped and lower-case: the one set of
every field a table reader reads (a CSV's numbers, its dates and times, its units row)."""

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

_TIME_NAME = re.compile(r"(?P<word>elapsed[ _]?time|time[ _]?stamp|elapsed|date[ _]?time|time|t"
                        r"|zeit|temps|tiempo|tempo)?"
                        r"[ _\-]*"
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
    >>> [time_unit(n) for n in ("time", "Time (sec)", "timestamp_ms", "Zeit [ms]", "ECG", "min")]
    [1.0, 1.0, 0.001, 0.001, None, None]
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


_DATE_TIME = re.compile(r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}[T ]\d{1,2}:\d{2}")


def is_date_time(text: str) -> bool:
    """Whether ``text`` begins with a calendar date and a time of day, year first
    (``2026-03-01T10:00:00.004``, ``2026/03/01 10:00:00``; quotes ignored).

    Examples
    --------
    >>> from edr.io.time_axis import is_date_time
    >>> is_date_time("2026-03-01T10:00:00.004Z"), is_date_time("0:01.250"), is_date_time("0.004")
    (True, False, False)
    """
    return _DATE_TIME.match(unquoted(str(text))) is not None


def elapsed_seconds(values, unit: float = 1.0, *, source: str = "", column: str = "") -> np.ndarray:
    """Seconds from the first value of a time column or index.

    Parameters
    ----------
    values : array_like
        Numbers in ``unit``; NumPy or pandas datetimes (time zones included) or time
        differences; or text: dates and times (:func:`is_date_time`, read by
        :func:`pandas.to_datetime`, offsets converted to UTC) or numbers.
    unit : float, default 1.0
        Seconds per unit of numbers (:func:`time_unit`); datetimes and differences carry theirs.
    source, column : str
        The file and column named in errors.

    Returns
    -------
    numpy.ndarray
        float64 seconds: numbers times ``unit``, datetimes from the first, differences as they
        are; NaN where a value is missing (``NaT``).

    Raises
    ------
    RecordError
        Text that is neither a date and time nor a number (the first such value is named).

    See Also
    --------
    fs_from_time : the sampling rate of the seconds.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.io.time_axis import elapsed_seconds
    >>> elapsed_seconds(["2026-03-01T10:00:00.000", "2026-03-01T10:00:00.004"]).tolist()
    [0.0, 0.004]
    >>> elapsed_seconds(np.array([0, 4, 8]), 1e-3).tolist()
    [0.0, 0.004, 0.008]
    """
    kind = getattr(getattr(values, "dtype", None), "kind", None)
    if kind is None:
        values = np.asarray(values)
        kind = values.dtype.kind
    if kind == "M":
        values = values - (values.iloc[0] if hasattr(values, "iloc") else values[0])
        kind = "m"
    if kind == "m":
        delta = np.asarray(values, dtype="timedelta64[ns]")
        return np.where(np.isnat(delta), np.nan, delta.astype(np.int64) / 1e9)
    if kind in "OUS":
        texts = [unquoted(str(v)) for v in np.asarray(values, dtype=object)]
        if texts and is_date_time(texts[0]):
            return _date_time_seconds(texts, source, column)
        try:
            return np.asarray(texts, dtype=np.float64) * unit
        except ValueError:
            bad = next(t for t in texts if not is_number(t))
            raise RecordError(f"time column {column!r} of {source}: {bad[:40]!r} is neither a "
                              "number nor a date and time") from None
    return np.asarray(values, dtype=np.float64) * unit


def is_number(text: str) -> bool:
    """Whether ``float(text)`` reads ``text``.

    See Also
    --------
    is_date_time : the other kind of time a table writes.

    Examples
    --------
    >>> from edr.io.time_axis import is_number
    >>> is_number("1e3"), is_number(" 2.5"), is_number("nan"), is_number("II")
    (True, True, True, False)
    """
    try:
        float(text)
    except ValueError:
        return False
    return True


def is_missing(text: str) -> bool:
    """Whether a table's field ``text`` marks a missing value (:data:`MISSING_TOKENS`).

    See Also
    --------
    is_number, is_date_time : the values a field holds otherwise.

    Examples
    --------
    >>> from edr.io.time_axis import is_missing
    >>> is_missing(" NaN"), is_missing("NaT"), is_missing("n/a"), is_missing("0")
    (True, True, True, False)
    """
    return text.strip().lower() in MISSING_TOKENS


def _date_time_seconds(texts: list[str], source: str, column: str) -> np.ndarray:
    """Seconds from the first of dates and times written as text (pandas reads them)."""
    import pandas as pd

    series = pd.Series(texts, dtype=object)
    try:
        stamps = pd.to_datetime(series, utc=True, format="ISO8601")
    except (ValueError, TypeError):
        stamps = pd.to_datetime(series, utc=True, errors="coerce")
    missing = stamps.isna().to_numpy() & np.array([not is_missing(t) for t in texts])
    if missing.any():
        row = int(np.argmax(missing))
        raise RecordError(f"time column {column!r} of {source}: {texts[row][:40]!r} (data row "
                          f"{row + 1}) is not a date and time like {texts[0][:40]!r}")
    return elapsed_seconds(stamps)


def fs_from_time(t: np.ndarray, *, source: str, column: str) -> float:
    """Sampling rate (Hz) of a uniformly sampled time axis ``t`` (s).

    The rate is ``(n - 1) / (t[-1] - t[0])`` to 6 decimals; the axis must increase and every
    step must lie within half a sample period of ``1 / fs`` (a missing or
    repeated sample fails), which tolerates times printed with rounding.

    Raises
    ------
    RecordError
        Fewer than two times, a missing (NaN) time (its row is named), or a non-uniform axis
        (the worst step is named, with what to do: rows missing, or times that jitter).

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
    if t.size < 2:
        raise RecordError(f"time column {column!r} of {source} needs at least 2 finite values")
    if not np.all(np.isfinite(t)):
        row = int(np.argmin(np.isfinite(t))) + 1
        raise RecordError(f"time column {column!r} of {source} has no time in data row {row} (a "
                          "missing value): every sample needs its time")
    span = t[-1] - t[0]
    if span <= 0:
        raise RecordError(f"time column {column!r} of {source} does not increase")
    fs = (t.size - 1) / span
    steps = np.diff(t) * fs
    worst = int(np.argmax(np.abs(steps - 1.0)))
    if abs(steps[worst] - 1.0) > 0.5:
        raise RecordError(
            f"time column {column!r} of {source} is not uniformly sampled: step "
            f"{np.diff(t)[worst]:g} s at row {worst + 2} vs {1 / fs:g} s on average; "
            + _uneven_hint(np.diff(t), worst))
    return round(float(fs), 6)  # 249.99999999999997 from times in ms is 250


def _uneven_hint(steps: np.ndarray, worst: int) -> str:
    """What to do about a time axis whose step ``worst`` is uneven: rows missing (a step of
    several typical steps), or times that jitter."""
    typical = float(np.median(steps))
    if typical > 0 and steps[worst] > 1.5 * typical:
        missing = int(round(steps[worst] / typical)) - 1
        return (f"about {missing} sample(s) of {typical:g} s are missing there (rows dropped): "
                "keep their rows with empty values (read as a gap, masked), or drop the time "
                "column and give the sampling rate (--fs HZ, fs=HZ) if no sample is missing")
    return ("the times jitter by more than half a sample: if the samples were taken at a steady "
            "rate, drop the time column and give that rate (--fs HZ, fs=HZ); else resample them "
            "onto a uniform time axis first")


def check_time_rate(fs: float, column: str, seconds: float, *, source: str, give_fs: str) -> None:
    """Raise when the rate a time column gives is no ECG rate, naming the unit that would make it
    one.

    Parameters
    ----------
    fs : float
        The rate the column gives (:func:`fs_from_time`), Hz.
    column : str
        Its name.
    seconds : float
        Seconds per unit it was read in (:func:`time_unit`).
    source : str
        The file or table named in the message.
    give_fs : str
        How the caller gives a sampling rate instead (``"--fs HZ"``, ``"fs=HZ"``).

    Raises
    ------
    RecordError
        ``fs`` outside :data:`edr.names.FS_MIN` - :data:`edr.names.FS_MAX`.

    See Also
    --------
    fs_from_time : the rate of a time axis.

    Examples
    --------
    >>> from edr.io.time_axis import check_time_rate
    >>> check_time_rate(250.0, "time", 1.0, source="rec.csv", give_fs="--fs HZ")
    >>> check_time_rate(0.25, "Time", 1.0, source="rec.csv", give_fs="--fs HZ")
    Traceback (most recent call last):
    ...
    edr.errors.RecordError: time column 'Time' of rec.csv steps by 4 s, ... 'time_ms'; ...
    """
    if FS_MIN <= fs <= FS_MAX:
        return
    unit = "ms" if seconds < 1.0 else "s"
    hint = f"drop the column and give the sampling rate with {give_fs}"
    for scale, name, rename in ((1e3, "milliseconds", "time_ms"), (1e-3, "seconds", "time_s")):
        if FS_MIN <= fs * scale <= FS_MAX and rename != column.lower():
            hint = (f"if the column is in {name} ({fs * scale:g} Hz), rename it to {rename!r}; "
                    f"else {hint}")
            break
    raise RecordError(
        f"time column {column!r} of {source} steps by {1e3 / fs if unit == 'ms' else 1 / fs:g} "
        f"{unit}, a sampling rate of {fs:g} Hz where ECG needs {FS_MIN:g} to {FS_MAX:g} Hz; "
        f"{hint}"
    )


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
