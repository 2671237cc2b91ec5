"""Delimited text files: a header row of channel names, one row per sample.

An optional time column (``time``, ``t``, ``time_s``, ``seconds``, ...; or
``time_ms`` / ``ms`` in milliseconds) gives the sampling rate; otherwise ``fs``
must be passed. Channel values are taken to be in mV (a CSV states no units).
The file must be UTF-8 text (ASCII is). Empty fields and ``nan`` become NaN and
are kept. Files separated by ``;`` or tabs may use decimal commas (``1,23``, as
spreadsheets in many locales write them); they are read as decimal points.
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

__all__ = ["TIME_COLUMNS", "read_csv", "fs_from_time"]

#: Time-column names (case-insensitive) and their unit in seconds.
TIME_COLUMNS: dict[str, float] = {
    "time": 1.0, "t": 1.0, "time_s": 1.0, "time (s)": 1.0, "time [s]": 1.0, "seconds": 1.0,
    "sec": 1.0, "s": 1.0, "elapsed time": 1.0, "timestamp": 1.0,
    "time_ms": 1e-3, "time (ms)": 1e-3, "time [ms]": 1e-3, "ms": 1e-3,
}


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


def _check_time_unit(fs: float, column: str, path: Path) -> None:
    """Raise when the rate read from a time column is no ECG rate, naming the unit that would
    make it one.

    Raises
    ------
    RecordError
        ``fs`` outside :data:`edr.names.FS_MIN` - :data:`edr.names.FS_MAX`.
    """
    if FS_MIN <= fs <= FS_MAX:
        return
    unit = "ms" if TIME_COLUMNS[column.lower()] < 1.0 else "s"
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
    names = [clean_name(n) for n in next(csv.reader([first], delimiter=delimiter), [])]
    if not names or not any(names):
        raise RecordError(f"CSV file {path} has no header row of channel names")
    if not rows:
        raise RecordError(f"CSV file {path} has no data rows")
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
    if data.shape[1] != len(names):
        raise RecordError(f"CSV file {path} has {len(names)} header names but {data.shape[1]} "
                          "columns")
    time_idx = next((i for i, n in enumerate(names) if n.lower() in TIME_COLUMNS), None)
    if time_idx is not None:
        t = data[:, time_idx] * TIME_COLUMNS[names[time_idx].lower()]
        fs_t = fs_from_time(t, source=str(path), column=names[time_idx])
        _check_time_unit(fs_t, names[time_idx], path)
        if fs is not None and abs(float(fs) - fs_t) > 0.01 * fs_t:
            raise RecordError(
                f"the sampling rate given ({float(fs):g} Hz, --fs) disagrees with the {fs_t:g} Hz "
                f"of time column {names[time_idx]!r} in {path}"
            )
        fs = fs_t if fs is None else float(fs)
    elif fs is None:
        raise RecordError(
            f"CSV file {path} has no time column (named one of {', '.join(sorted(TIME_COLUMNS))}); "
            f"give its sampling rate with --fs HZ (read_record(..., fs=HZ) in Python)"
        )
    columns = [i for i in range(len(names)) if i != time_idx]
    return assemble_recording(
        name=path.stem,
        path=str(path),
        source=str(path),
        names=[names[i] for i in columns],
        read=lambda indices: [data[:, columns[j]].copy() for j in indices],
        fs=[float(fs)] * len(columns),
        units=["mV"] * len(columns),
        channel=channel,
        resp_channel=resp_channel,
    )
