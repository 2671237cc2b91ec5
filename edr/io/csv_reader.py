"""Delimited text files: a header row of channel names, one row per sample.

An optional time column gives the sampling rate (its name and unit by the rules of
:mod:`edr.io.time_axis`: ``time``, ``t_ms``, ``Time (sec)``, ``timestamp [ms]``, ...);
otherwise ``fs`` must be passed. Names and units may be quoted (``'II'``). A second row with no
number in it is a units row, as PhysioNet's CSV exports write (``'Elapsed time','II'`` then
``'seconds','mV'``): it gives the time column's unit (clock times such as ``'0:01.250'`` under
``'hh:mm:ss.mmm'`` are read too, and so are dates and times such as ``2026-03-01T10:00:00.004``
in any column with a time name) and each channel's unit (``uV``, ``V``: scaled to mV); without
one, channel values are taken to be in mV. A column of sample numbers (``sample``, ``index``,
...) is no channel, nor is a column of text (its first and last values not numbers: a date, a
label) unless its name is an ECG's or a respiration's.
Empty fields and ``nan`` become NaN and are kept. Files separated by ``;`` or tabs may use
decimal commas (``1,23``, as spreadsheets in many locales write them); they are read as decimal
points. A file without a header row (its first line all numbers) has leads named ``ECG`` (or
``ECG1``, ``ECG2``, ...), and a first column that increases by uniform steps is its time (one
that counts 0, 1, 2, ... is sample numbers). Exports as they come are read too: fields in quotes,
comment lines (``#``, ``%``) before the header, Excel's ``sep=;`` line, an unnamed first column
(pandas' ``to_csv()`` index: dates and times or fractions are the time, integers sample
numbers), UTF-16 with its byte-order mark and Windows-1252 text, gzip-compressed files
(``.csv.gz``).
"""

from __future__ import annotations

import csv
import gzip
import re
from pathlib import Path

import numpy as np

from edr.errors import RecordError
from edr.io.channels import is_ecg_name, is_resp_name
from edr.io.ecg_matrix import default_lead_names
from edr.io.paths import reader_suffix, record_name
from edr.io.recording import Recording, assemble_recording
from edr.io.time_axis import (
    INDEX_COLUMNS,
    TIME_UNITS,
    check_time_rate,
    elapsed_seconds,
    fs_from_time,
    is_date_time,
    is_missing,
    is_number,
    time_unit,
    unquoted,
)
from edr.names import FS_MAX, FS_MIN

__all__ = ["csv_table", "read_csv"]

_CLOCK = re.compile(r"(?:(?:(\d+):)?(\d+):)?(\d+(?:\.\d*)?)")


def _clock_seconds(text: str) -> float:
    """Seconds of a clock time ``[[h:]mm:]ss[.fff]`` (quotes ignored); NaN if it is none."""
    m = _CLOCK.fullmatch(unquoted(text))
    if m is None:
        return float("nan")
    h, mins, sec = m.groups()
    return int(h or 0) * 3600.0 + int(mins or 0) * 60.0 + float(sec)


def _header_and_rows(path: Path) -> tuple[str, list[str], str | None]:
    """The header line, the non-blank data lines and the separator an Excel ``sep=`` line names
    (None without one) of a text file: UTF-8 (a byte-order mark is dropped), UTF-16 with its
    byte-order mark (Excel's "Unicode text"), else Windows-1252 (a spreadsheet's export in
    Western Europe), gzip-compressed if its name ends in ``.gz``.
    Lines before the header that begin with ``#`` or ``%`` are comments and skipped.

    Raises
    ------
    RecordError
        The file is not text (a binary file given a ``.csv`` name) or not gzip-compressed
        although named so.
    """
    lines = _text(path).splitlines(keepends=True)
    while lines and (not lines[0].strip() or lines[0].lstrip()[:1] in ("#", "%")):
        lines.pop(0)
    sep = None
    if lines and re.fullmatch(r"sep=.", lines[0].strip()):
        sep = lines.pop(0).strip()[-1]
    return (lines[0] if lines else ""), [line for line in lines[1:] if line.strip()], sep


_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _text(path: Path) -> str:
    """The text of a CSV file (see :func:`_header_and_rows`)."""
    data = path.read_bytes()
    if reader_suffix(path).endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise RecordError(f"CSV file {path} is named .gz but is not gzip-compressed ({exc}); "
                              "rename it without .gz or compress it with gzip") from None
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # Excel's "Unicode text": UTF-16 with its BOM
        return data.decode("utf-16")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if _CONTROL.search(data) is None:  # text in a Windows code page: µV, °, ä
            return data.decode("cp1252", errors="replace")
        raise RecordError(
            f"CSV file {path} is not text: byte 0x{data[exc.start]:02x} at offset {exc.start} is "
            "not UTF-8; give a text file with a header row of channel names and one row of numbers "
            "per sample, or the record's WFDB (.hea) or EDF file"
        ) from None


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


def _units_row(row: str, delimiter: str, n: int) -> list[str] | None:
    """The units of a row that holds no number (PhysioNet's ``'seconds','mV'``), else None."""
    fields = [unquoted(f) for f in next(csv.reader([row], delimiter=delimiter), [])]
    if len(fields) != n or any(is_number(f) for f in fields):
        return None
    return fields if any(not is_missing(f) for f in fields) else None


def _without_text_columns(names: list[str], units: list[str] | None, rows: list[str],
                          delimiter: str) -> tuple[list[str], list[str] | None, list[str]]:
    """``names``, ``units`` and ``rows`` without the columns whose first and last values are both
    text (a date, a label, a device name): they hold no channel. A time column stays (its clock
    times are read), and so do a column of numbers with some text in it and an ECG or
    respiration column of text (errors later)."""

    def text(fields: list[str], i: int) -> bool:
        value = unquoted(fields[i]) if i < len(fields) else ""
        return not is_number(value) and not is_missing(value)

    first, last = (next(csv.reader([row], delimiter=delimiter), []) for row in (rows[0], rows[-1]))
    drop = {i for i in range(len(names)) if time_unit(names[i]) is None
            and not (is_ecg_name(names[i]) or is_resp_name(names[i]))
            and text(first, i) and text(last, i)}
    if not drop:
        return names, units, rows
    keep = [i for i in range(len(names)) if i not in drop]
    out = [row if len(f) != len(names) else delimiter.join(f[i] for i in keep) + "\n"
           for row, f in zip(rows, csv.reader(rows, delimiter=delimiter), strict=True)]
    return ([names[i] for i in keep], None if units is None else [units[i] for i in keep], out)


def _rows_in_seconds(rows: list[str], delimiter: str, column: int, seconds_of) -> list[str]:
    """``rows`` with the times of ``column`` (clock times ``'0:01.250'``, dates and times)
    written as the seconds ``seconds_of`` gives for the column's texts."""
    table = list(csv.reader(rows, delimiter=delimiter))
    seconds = seconds_of([f[column] if len(f) > column else "" for f in table])
    out = []
    for fields, value in zip(table, seconds, strict=True):
        if len(fields) > column:
            fields[column] = repr(float(value))
        out.append(delimiter.join(fields) + "\n")
    return out


def _time_column(names: list[str], units: list[str] | None, rows: list[str], delimiter: str,
                 path: Path) -> tuple[int | None, float, list[str]]:
    """The time column's index (None without one), its seconds per unit, and the data rows with
    its clock times or dates and times (if any) written as seconds."""
    idx = next((i for i, n in enumerate(names) if time_unit(n) is not None), None)
    if idx is None:
        return None, 1.0, rows
    seconds = time_unit(names[idx])
    unit = units[idx].lower() if units is not None else ""
    first = next(csv.reader(rows[:1], delimiter=delimiter), [])
    value = first[idx] if len(first) > idx else ""
    if is_date_time(value):
        return idx, 1.0, _rows_in_seconds(rows, delimiter, idx, lambda texts: elapsed_seconds(
            texts, source=str(path), column=names[idx]))
    if ":" in unit or ":" in value:
        return idx, 1.0, _rows_in_seconds(rows, delimiter, idx,
                                          lambda texts: [_clock_seconds(t) for t in texts])
    return idx, TIME_UNITS.get(unit, seconds), rows


def _check_numbers(data: np.ndarray, rows: list[str], delimiter: str, names: list[str],
                   path: Path) -> None:
    """Raise on the first field that is neither a number nor a missing value
    (:data:`edr.io.time_axis.MISSING_TOKENS`)."""
    bad_rows = np.flatnonzero(np.isnan(data).any(axis=1))
    for r in bad_rows[:1000]:
        fields = next(csv.reader([rows[r]], delimiter=delimiter))
        for c, text in enumerate(fields[: len(names)]):
            if np.isnan(data[r, c]) and not is_missing(text):
                raise RecordError(
                    f"CSV file {path}: data row {r + 1}, column {names[c]!r}: "
                    f"{text.strip()[:40]!r} is not a number"
                )


def _data_rows(rows: list[str], delimiter: str, names: list[str], path: Path) -> np.ndarray:
    """The data rows as a samples × columns float array, one column per name, checked."""
    try:
        data = np.genfromtxt(rows, delimiter=delimiter, dtype=np.float64, filling_values=np.nan,
                             invalid_raise=True, ndmin=2)  # what is no number: NaN, checked below
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
    names, units, data, time_idx, seconds = csv_table(path)
    index = [i for i, n in enumerate(names) if n.lower() in INDEX_COLUMNS]
    fs = _csv_rate(data, names, time_idx, seconds, index, fs, path)
    columns = [i for i in range(len(names)) if i != time_idx and i not in index]
    return assemble_recording(
        name=record_name(path),
        path=str(path),
        source=str(path),
        names=[names[i] for i in columns],
        read=lambda indices: [data[:, columns[j]].copy() for j in indices],
        fs=[float(fs)] * len(columns),
        units=["mV" if units is None else units[i] for i in columns],
        channel=channel,
        resp_channel=resp_channel,
    )


def csv_table(path: Path):
    """``(names, units, data, time column, its seconds per unit)`` of a CSV file: the names of
    its header row (or of a file without one), its units row (None without one), its values as
    a samples × columns array, and the time column's index (None without one).

    The table :func:`read_csv` makes a recording of, and
    :func:`edr.io.reference_file.read_reference_file` a reference respiration of.

    Raises
    ------
    RecordError
        As :func:`read_csv`, before the sampling rate is known.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from edr.io.csv_reader import csv_table
    >>> tmp = tempfile.TemporaryDirectory()
    >>> _ = (Path(tmp.name) / "r.csv").write_text("t [ms],RESP\\n0,0.1\\n40,0.2\\n")
    >>> names, units, data, time_column, seconds = csv_table(Path(tmp.name) / "r.csv")
    >>> names, data.shape, time_column, seconds
    (['t [ms]', 'RESP'], (2, 2), 0, 0.001)
    >>> tmp.cleanup()
    """
    first, rows, sep = _header_and_rows(path)
    delimiter = sep or _delimiter(first)
    if any('"' in row for row in rows):
        rows = _unquoted_rows(rows, delimiter, path)
    if delimiter != "," and any("," in row for row in rows):
        rows = _decimal_points(rows, path)
    names = [unquoted(n) for n in next(csv.reader([first], delimiter=delimiter), [])]
    if not names or not any(names):
        raise RecordError(f"CSV file {path} has no header row of channel names")
    if not names[0] and len(names) > 1 and rows:  # pandas' to_csv() writes its index unnamed
        names[0] = _index_name(next(csv.reader(rows[:1], delimiter=delimiter))[0])
    if all(is_number(n) for n in names):  # no header row: the first line is data
        return _headerless([first] + rows, delimiter, path)
    units = _units_row(rows[0], delimiter, len(names)) if rows else None
    rows = rows if units is None else rows[1:]
    if not rows:
        raise RecordError(f"CSV file {path} has no data rows")
    names, units, rows = _without_text_columns(names, units, rows, delimiter)
    time_idx, seconds, rows = _time_column(names, units, rows, delimiter, path)
    return names, units, _data_rows(rows, delimiter, names, path), time_idx, seconds


def _index_name(value: str) -> str:
    """The name of an unnamed first column (a pandas index) from its first value: ``time`` for
    a date and time or a number with a fraction, ``index`` (sample numbers) for an integer."""
    text = unquoted(value)
    if is_date_time(text) or (is_number(text) and not text.lstrip("+-").isdigit()):
        return "time"
    return "index"


def _unquoted_rows(rows: list[str], delimiter: str, path: Path) -> list[str]:
    """Rows whose fields are quoted (``"0.004","1.23"``) written without the quotes; a decimal
    comma inside quotes (``"1,23"``) becomes a point.

    Raises
    ------
    RecordError
        A quoted field holding a ',' that is no decimal comma.
    """
    out = []
    for i, fields in enumerate(csv.reader(rows, delimiter=delimiter)):
        if delimiter == "," and any("," in f for f in fields):
            fields = [_DECIMAL_COMMA.sub(".", f) for f in fields]
            if any("," in f for f in fields):
                raise RecordError(f"CSV file {path}: data row {i + 1} has a ',' inside a quoted "
                                  f"field that is no decimal comma: {rows[i].strip()[:60]!r}")
        out.append(delimiter.join(f.strip() for f in fields) + "\n")
    return out


def _headerless(rows: list[str], delimiter: str, path: Path):
    """:func:`csv_table` of a file without a header row: its columns are leads (``ECG``, or
    ``ECG1``, ``ECG2``, ...), but a first column that counts by ones is sample numbers (no
    rate: a time in ms at 1000 Hz cannot be told from them) and a first column that increases
    by other uniform steps is its time (in s, ms or us: whichever gives an ECG sampling
    rate)."""
    n = len(next(csv.reader(rows[:1], delimiter=delimiter), []))
    data = _data_rows(rows, delimiter, default_lead_names(n), path)
    if n > 1 and data.shape[0] > 1 and np.all(np.diff(data[:, 0]) == 1.0):
        return ["sample"] + default_lead_names(n - 1), None, data, None, 1.0  # 0, 1, 2, ...
    seconds = _time_steps(data[:, 0]) if n > 1 else None
    if seconds is None:
        return default_lead_names(n), None, data, None, 1.0
    return ["time"] + default_lead_names(n - 1), None, data, 0, seconds


def _time_steps(column: np.ndarray) -> float | None:
    """Seconds per unit of a column that increases by uniform steps at an ECG sampling rate in
    s, ms or us (a time axis); None for any other column (a signal)."""
    if column.size < 2 or not np.all(np.diff(column) > 0):
        return None
    for unit in (1.0, 1e-3, 1e-6):
        try:
            fs = fs_from_time(column * unit, source="", column="")
        except RecordError:
            return None
        if FS_MIN <= fs <= FS_MAX:
            return unit
    return None


def _csv_rate(data, names, time_idx, seconds, index, fs, path) -> float:
    """The sampling rate: the time column's (which ``fs``, if given, must match) or ``fs``."""
    if time_idx is not None:
        t = data[:, time_idx] * seconds
        fs_t = fs_from_time(t, source=str(path), column=names[time_idx])
        check_time_rate(fs_t, names[time_idx], seconds, source=str(path), give_fs="--fs HZ")
        if fs is not None and abs(float(fs) - fs_t) > 0.01 * fs_t:
            raise RecordError(
                f"the sampling rate given ({float(fs):g} Hz, --fs) disagrees with the {fs_t:g} Hz "
                f"of time column {names[time_idx]!r} in {path}"
            )
        return fs_t if fs is None else float(fs)
    if fs is None:
        numbers = "".join(f"; column {names[i]!r} holds sample numbers, not times" for i in index)
        raise RecordError(
            f"CSV file {path} has no time column (a name such as time, t, time_s, Time (ms), "
            f"timestamp_ms, elapsed time or datetime, or a units row of seconds){numbers}; give "
            f"its sampling rate with --fs HZ (read_record(..., fs=HZ) in Python)"
        )
    return float(fs)
