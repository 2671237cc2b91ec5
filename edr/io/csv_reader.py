"""Delimited text files: a header row of channel names, one row per sample.

An optional time column gives the sampling rate; otherwise ``fs`` must be passed. A time
column is named by a time word (``time``, ``t``, ``timestamp``, ``elapsed time``) with an
optional unit after it (``time_s``, ``Time (sec)``, ``timestamp [ms]``, ``t_us``: the units of
:data:`TIME_UNITS`; seconds without one), or by a unit alone (``s``, ``sec``, ``seconds``,
``ms``); :func:`time_unit` reads a name. Names and units may be quoted (``'II'``). A second
row with no number in it is a units row, as PhysioNet's CSV exports write
(``'Elapsed time','II'`` then ``'seconds','mV'``): it gives the time column's unit (clock
times such as ``'0:01.250'`` under ``'hh:mm:ss.mmm'`` are read too) and each channel's unit
(``uV``, ``V``: scaled to mV); without one, channel values are taken to be in mV. A sample
number column (``sample``, ``index``, ...: :data:`INDEX_COLUMNS`) is no channel. The file must
be UTF-8 text (ASCII is). Empty fields and ``nan`` become NaN and are kept. Files separated by
``;`` or tabs may use decimal commas (``1,23``, as spreadsheets in many locales write them);
they are read as decimal points.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np

from edr.errors import RecordError
from edr.io.channels import clean_name
from edr.io.recording import Recording, assemble_recording
from edr.names import FS_MAX, FS_MIN

__all__ = ["INDEX_COLUMNS", "TIME_UNITS", "fs_from_time", "read_csv", "time_unit"]

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

_CLOCK = re.compile(r"(?:(?:(\d+):)?(\d+):)?(\d+(?:\.\d*)?)")


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
    read_csv : uses it to find the time column.

    Examples
    --------
    >>> from edr.io.csv_reader import time_unit
    >>> [time_unit(n) for n in ("time", "Time (sec)", "timestamp_ms", "ECG", "min")]
    [1.0, 1.0, 0.001, None, None]
    """
    m = _TIME_NAME.fullmatch(_unquoted(name).lower())
    if m is None:
        return None
    unit = m["bracketed"] or m["unit"]
    if unit is not None and ":" in unit:  # a clock (hh:mm:ss.mmm), read as seconds
        return 1.0
    if m["word"] is None:
        return TIME_UNITS[unit] if unit in _BARE_TIME_UNITS else None
    return 1.0 if unit is None else TIME_UNITS.get(unit.strip())


def _unquoted(text: str) -> str:
    """``text`` without blanks and one pair of enclosing quotes (``'II'`` -> ``II``)."""
    text = clean_name(text)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1].strip()
    return text


def _clock_seconds(text: str) -> float:
    """Seconds of a clock time ``[[h:]mm:]ss[.fff]`` (quotes ignored); NaN if it is none."""
    m = _CLOCK.fullmatch(_unquoted(text))
    if m is None:
        return float("nan")
    h, mins, sec = m.groups()
    return int(h or 0) * 3600.0 + int(mins or 0) * 60.0 + float(sec)


def fs_from_time(t: np.ndarray, *, source: str, column: str) -> float:
    """Sampling rate (Hz) of a uniformly sampled time axis ``t`` (s).

    The rate is ``(n - 1) / (t[-1] - t[0])``; the axis must increase and every
    step must lie within half a sample period of ``1 / fs`` (a missing or
    repeated sample fails), which tolerates times printed with rounding.

    Raises
    ------
    RecordError
        Fewer than two times, NaN times, or a non-uniform axis (the worst step is named).

    See Also
    --------
    read_csv

    Examples
    --------
    >>> import numpy as np
    >>> from edr.io.csv_reader import fs_from_time
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
    return float(fs)


def _header_and_rows(path: Path) -> tuple[str, list[str]]:
    """The header line and the non-blank data lines of a UTF-8 text file (a byte-order mark is
    dropped).

    Raises
    ------
    RecordError
        The file is not UTF-8 text (a binary file given a ``.csv`` name).
    """
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RecordError(
            f"CSV file {path} is not text: byte 0x{data[exc.start]:02x} at offset {exc.start} is "
            "not UTF-8; give a text file with a header row of channel names and one row of numbers "
            "per sample, or the record's WFDB (.hea) or EDF file"
        ) from None
    lines = text.splitlines(keepends=True)
    return (lines[0] if lines else ""), [line for line in lines[1:] if line.strip()]


def _check_time_unit(fs: float, column: str, seconds: float, path: Path) -> None:
    """Raise when the rate read from a time column (``seconds`` per unit) is no ECG rate, naming
    the unit that would make it one.

    Raises
    ------
    RecordError
        ``fs`` outside :data:`edr.names.FS_MIN` - :data:`edr.names.FS_MAX`.
    """
    if FS_MIN <= fs <= FS_MAX:
        return
    unit = "ms" if seconds < 1.0 else "s"
    hint = "drop the column and give the sampling rate with --fs HZ"
    for scale, name, rename in ((1e3, "milliseconds", "time_ms"), (1e-3, "seconds", "time_s")):
        if FS_MIN <= fs * scale <= FS_MAX and rename != column.lower():
            hint = (f"if the column is in {name} ({fs * scale:g} Hz), rename it to {rename!r}; "
                    f"else {hint}")
            break
    raise RecordError(
        f"time column {column!r} of {path} steps by {1e3 / fs if unit == 'ms' else 1 / fs:g} "
        f"{unit}, a sampling rate of {fs:g} Hz where ECG needs {FS_MIN:g} to {FS_MAX:g} Hz; "
        f"{hint}"
    )


def _delimiter(first_line: str) -> str:
    counts = {d: first_line.count(d) for d in (",", ";", "\t")}
    return max(counts, key=counts.get) if any(counts.values()) else ","


_DECIMAL_COMMA = re.compile(r"(?<=\d),(?=\d)")


def _decimal_points(rows: list[str], path: Path) -> list[str]:
    """Rows of a ``;`` / tab separated file with decimal commas (``1,23``) turned into decimal
    points.

    Raises
    ------
    RecordError
        A comma that is not between two digits (the file mixes separators).
    """
    out = []
    for i, row in enumerate(rows):
        fixed = _DECIMAL_COMMA.sub(".", row)
        if "," in fixed:
            raise RecordError(
                f"CSV file {path}: data row {i + 1} has a ',' that is neither the separator nor a "
                f"decimal comma: {row.strip()[:60]!r}"
            )
        out.append(fixed)
    return out


_MISSING_TOKENS = {"", "nan", "na", "n/a", "null", "none", "-"}


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _units_row(row: str, delimiter: str, n: int) -> list[str] | None:
    """The units of a row that holds no number (PhysioNet's ``'seconds','mV'``), else None."""
    fields = [_unquoted(f) for f in next(csv.reader([row], delimiter=delimiter), [])]
    if len(fields) != n or any(_is_number(f) for f in fields):
        return None
    return fields if any(f.lower() not in _MISSING_TOKENS for f in fields) else None


def _clock_rows(rows: list[str], delimiter: str, column: int) -> list[str]:
    """``rows`` with the clock times of ``column`` (``'0:01.250'``) written as seconds."""
    out = []
    for fields in csv.reader(rows, delimiter=delimiter):
        if len(fields) > column:
            fields[column] = repr(_clock_seconds(fields[column]))
        out.append(delimiter.join(fields) + "\n")
    return out


def _time_column(names: list[str], units: list[str] | None, rows: list[str],
                 delimiter: str) -> tuple[int | None, float, list[str]]:
    """The time column's index (None without one), its seconds per unit, and the data rows with
    its clock times (if any) written as seconds."""
    idx = next((i for i, n in enumerate(names) if time_unit(n) is not None), None)
    if idx is None:
        return None, 1.0, rows
    seconds = time_unit(names[idx])
    unit = units[idx].lower() if units is not None else ""
    first = next(csv.reader(rows[:1], delimiter=delimiter), [])
    if ":" in unit or (len(first) > idx and ":" in first[idx]):
        return idx, 1.0, _clock_rows(rows, delimiter, idx)
    return idx, TIME_UNITS.get(unit, seconds), rows


def _check_numbers(data: np.ndarray, rows: list[str], delimiter: str, names: list[str],
                   path: Path) -> None:
    """Raise on the first field that is neither a number nor a missing-value marker (empty, nan,
    NA)."""
    bad_rows = np.flatnonzero(np.isnan(data).any(axis=1))
    for r in bad_rows[:1000]:
        fields = next(csv.reader([rows[r]], delimiter=delimiter))
        for c, text in enumerate(fields[: len(names)]):
            if np.isnan(data[r, c]) and text.strip().lower() not in _MISSING_TOKENS:
                raise RecordError(
                    f"CSV file {path}: data row {r + 1}, column {names[c]!r}: "
                    f"{text.strip()[:40]!r} is not a number"
                )


def _numbers(rows: list[str], delimiter: str, names: list[str], path: Path) -> np.ndarray:
    """The data rows as a samples × columns float array, one column per name, checked."""
    try:
        data = np.genfromtxt(rows, delimiter=delimiter, dtype=np.float64,
                             missing_values=("", "nan", "NaN", "NA"), filling_values=np.nan,
                             invalid_raise=True, ndmin=2)
    except ValueError as exc:
        raise RecordError(f"CSV file {path} has a malformed row: {exc}") from exc
    if data.shape[1] != len(names):
        raise RecordError(f"CSV file {path} has {len(names)} header names but {data.shape[1]} "
                          "columns")
    _check_numbers(data, rows, delimiter, names, path)
    return data


def read_csv(
    path: str | Path,
    channel: str | None = None,
    *,
    fs: float | None = None,
    resp_channel: str | None = None,
) -> Recording:
    """Read a CSV (or ``;`` / tab separated) file; see :func:`edr.io.read_record`.

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    RecordError
        Not UTF-8 text, no header row or no data rows, rows of unequal length, no time column
        and no ``fs``, a non-uniform time column, a time column giving no ECG sampling rate
        (the message names the unit that would give one), or ``fs`` disagreeing with the time
        column.

    See Also
    --------
    edr.io.read_record : any format, by the file's suffix.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=30.0, fs=250.0, random_state=0)
    >>> tmp = tempfile.TemporaryDirectory()
    >>> folder = Path(tmp.name)
    >>> rows = "".join(f"{i / 250:.3f},{v:.4f}\\n" for i, v in enumerate(rec.ecg))
    >>> _ = (folder / "rec.csv").write_text("time_s,ECG\\n" + rows)
    >>> from edr.io.csv_reader import read_csv
    >>> r = read_csv(folder / "rec.csv")
    >>> r.fs, r.ecg_channel, r.ecg.shape
    (250.0, 'ECG', (7500,))
    >>> tmp.cleanup()
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"CSV file not found: {path}")
    first, rows = _header_and_rows(path)
    delimiter = _delimiter(first)
    if delimiter != "," and any("," in row for row in rows):
        rows = _decimal_points(rows, path)
    names = [_unquoted(n) for n in next(csv.reader([first], delimiter=delimiter), [])]
    if not names or not any(names):
        raise RecordError(f"CSV file {path} has no header row of channel names")
    units = _units_row(rows[0], delimiter, len(names)) if rows else None
    rows = rows if units is None else rows[1:]
    if not rows:
        raise RecordError(f"CSV file {path} has no data rows")
    time_idx, seconds, rows = _time_column(names, units, rows, delimiter)
    data = _numbers(rows, delimiter, names, path)
    index = [i for i, n in enumerate(names) if n.lower() in INDEX_COLUMNS]
    if time_idx is not None:
        t = data[:, time_idx] * seconds
        fs_t = fs_from_time(t, source=str(path), column=names[time_idx])
        _check_time_unit(fs_t, names[time_idx], seconds, path)
        if fs is not None and abs(float(fs) - fs_t) > 0.01 * fs_t:
            raise RecordError(
                f"the sampling rate given ({float(fs):g} Hz, --fs) disagrees with the {fs_t:g} Hz "
                f"of time column {names[time_idx]!r} in {path}"
            )
        fs = fs_t if fs is None else float(fs)
    elif fs is None:
        numbers = "".join(f"; column {names[i]!r} holds sample numbers, not times" for i in index)
        raise RecordError(
            f"CSV file {path} has no time column (a name such as time, t, time_s, Time (ms), "
            f"timestamp_ms or elapsed time, or a units row of seconds){numbers}; give its sampling "
            f"rate with --fs HZ (read_record(..., fs=HZ) in Python)"
        )
    columns = [i for i in range(len(names)) if i != time_idx and i not in index]
    return assemble_recording(
        name=path.stem,
        path=str(path),
        source=str(path),
        names=[names[i] for i in columns],
        read=lambda indices: [data[:, columns[j]].copy() for j in indices],
        fs=[float(fs)] * len(columns),
        units=["mV" if units is None else units[i] for i in columns],
        channel=channel,
        resp_channel=resp_channel,
    )
