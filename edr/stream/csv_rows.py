"""Rows of ECG samples from CSV text lines as a live link delivers them, faults included.

The layout comes from the first lines: an optional header row (a first non-blank line that is not
all numbers) names the columns (by default a time or sample-number column is no lead, and where
some names are ECG leads' only those are, as offline: :func:`default_columns`), and the column
count is the most common one among the first :data:`LAYOUT_ROWS` rows of numbers (a link joined
mid-line starts with a partial row). After that every line is one sample instant, whatever it holds:

=================================  ========================================================
line                               row (one value per selected column)
=================================  ========================================================
numbers, the layout's count        the numbers; ``nan``/``inf`` become NaN (``non_finite``)
a field that is not a number       NaN for that column (``unparsable``)
fewer fields (a lead vanished)     NaN for the selected columns it lacks (``missing``)
more fields                        NaN for every column (``columns``)
blank                              NaN for every column (``blank``)
no newline at the end of input     NaN for every column (``truncated``)
over :data:`MAX_LINE` characters   NaN for every column (``long``)
=================================  ========================================================

Each fault is noted in a :class:`edr.stream.faults.FaultLedger`; the NaN samples are masked by
the engine as offline.

The stream's clock is the line count at the sampling rate given: a time column the header names
(the first that is no lead) is checked, never followed (one bad time field cannot move the clock).
A line whose time does not increase (``time_back``), a jump forward of more than
:data:`edr.stream.timestamps.GAP_PERIODS` sample periods (``time_jump``) and a second of lines
whose median step is not ``1 / fs`` within :data:`RATE_TOLERANCE` (``rate``) are counted; their
samples are kept as they are.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from edr.errors import SignalError
from edr.io.channels import is_ecg_name
from edr.io.time_axis import INDEX_COLUMNS, time_unit, unquoted
from edr.stream.faults import FaultLedger
from edr.stream.timestamps import GAP_PERIODS

__all__ = ["LAYOUT_ROWS", "MAX_LINE", "RATE_TOLERANCE", "CsvRows", "Layout", "default_columns",
           "read_layout"]

LAYOUT_ROWS = 5
"""Rows of numbers the column count is judged on (the most common count wins)."""
MAX_LINE = 1 << 16
"""Longest line (characters) taken as a row; a longer one (binary garbage without a newline) is
one faulty row, and only its first ``MAX_LINE + 1`` characters are kept while it is read."""
RATE_TOLERANCE = 0.05
"""Relative difference of a time column's median step (over a second of lines) from ``1 / fs``
beyond which those lines count as at another rate."""
NAN = math.nan


def _split_fields(text: str) -> list[str]:
    return (text.replace(";", ",") if ";" in text else text).split(",")


def _numbers(fields: Sequence[str]) -> list[float] | None:
    try:
        return [float(f) for f in fields]
    except ValueError:
        return None


@dataclass(frozen=True)
class Layout:
    """The columns of a CSV input: ``n_cols`` fields a row, the selected ``columns`` (0-based)
    and their ``names`` (the header's, else ``ch<i>``); the ``time`` column (None: no header
    names one) and its unit in seconds (``time_unit``)."""

    n_cols: int
    columns: list[int]
    names: list[str]
    time: int | None = None
    time_unit: float = 1.0


def read_layout(lines: Iterable, columns: Sequence[int] | None = None, *,
                what: str = "standard input") -> tuple[Layout, list]:
    """The layout of a CSV input from its first lines.

    Parameters
    ----------
    lines : iterable of (int, str, bool)
        ``(line number, text without the newline, complete)``; read up to the
        :data:`LAYOUT_ROWS`-th row of numbers.
    columns : sequence of int, optional
        The columns holding ECG (default: :func:`default_columns` of the header).
    what : str
        The input's name in messages.

    Returns
    -------
    layout : Layout
    taken : list
        The lines read after the header, still to be turned into rows.

    Raises
    ------
    SignalError
        The input ends before a row of numbers.
    ValueError
        A selected column is beyond the column count.

    Examples
    --------
    >>> from edr.stream.csv_rows import read_layout
    >>> lines = [(1, "time,II,V2", True), (2, "2,0.3", True), (3, "0.0,0.1,0.2", True),
    ...          (4, "0.004,0.1,0.3", True)]
    >>> layout, taken = read_layout(lines)
    >>> layout
    Layout(n_cols=3, columns=[1, 2], names=['II', 'V2'], time=0, time_unit=1.0)
    >>> [n for n, _, _ in taken]
    [2, 3, 4]
    >>> read_layout(lines, [0, 2])[0].names
    ['time', 'V2']
    """
    header, taken, counts = None, [], []
    for item in lines:
        _, text, complete = item
        if header is None and not taken:
            if not text.strip():
                continue  # blank lines before anything: no sample lost
            fields = [f.strip() for f in _split_fields(text.strip())]
            if complete and _numbers(fields) is None:
                header = fields
                continue
        taken.append(item)
        if complete and _numbers(_split_fields(text.strip())) is not None:
            counts.append(len(_split_fields(text.strip())))
            if len(counts) >= LAYOUT_ROWS:
                break
    if not counts:
        raise SignalError(f"{what} holds no samples")
    tally = Counter(counts)
    n_cols = max(tally, key=lambda c: (tally[c], c))
    cols = default_columns(header, n_cols) if columns is None else [int(c) for c in columns]
    if max(cols) >= n_cols:
        raise ValueError(f"{what} has {n_cols} column(s); column {max(cols)} is not there")
    names = [header[c] if header and c < len(header) and header[c] else f"ch{c}" for c in cols]
    if len(set(names)) != len(names):
        names = [f"ch{c}" for c in cols]
    clocks = [(c, time_unit(header[c])) for c in range(min(n_cols, len(header or ())))
              if c not in cols and time_unit(header[c]) is not None]
    return Layout(n_cols, cols, names, *(clocks[0] if clocks else ())), taken


def default_columns(header: Sequence[str] | None, n_cols: int) -> list[int]:
    """The columns that are leads when none are chosen: every column without a header; with
    one, those named as ECG leads (:func:`edr.io.channels.is_ecg_name`) if any, else those
    that are neither a time (:func:`edr.io.time_axis.time_unit`) nor sample numbers, else all.

    Examples
    --------
    >>> from edr.stream.csv_rows import default_columns
    >>> default_columns(["time_ms", "II", "RESP"], 3), default_columns(["t", "a", "b"], 3)
    ([1], [1, 2])
    >>> default_columns(None, 2)
    [0, 1]
    """
    if not header:
        return list(range(n_cols))
    names = [unquoted(header[c]) if c < len(header) else "" for c in range(n_cols)]
    data = [c for c, n in enumerate(names)
            if time_unit(n) is None and n.lower() not in INDEX_COLUMNS]
    return [c for c in data if is_ecg_name(names[c])] or data or list(range(n_cols))


class CsvRows:
    """One row of samples per line, after :func:`read_layout`; faults noted in ``ledger``.

    Parameters
    ----------
    layout : Layout
    ledger : FaultLedger
        Its leads are ``layout.names``.
    what : str
        The input's name in the ledger's details.

    Attributes
    ----------
    n_rows : int
        Rows given so far (the sample index of the next one).

    Examples
    --------
    >>> from edr.stream.csv_rows import CsvRows, Layout
    >>> from edr.stream.faults import FaultLedger
    >>> ledger = FaultLedger(250.0, ["ch0", "ch1"])
    >>> rows = CsvRows(Layout(2, [0, 1], ["ch0", "ch1"]), ledger)
    >>> [rows.row(i, text) for i, text in enumerate(["0.1,0.2", "abc,0.3", "0.4", "nan,1", ""])]
    [[0.1, 0.2], [nan, 0.3], [0.4, nan], [nan, 1.0], [nan, nan]]
    >>> {k: n for k, n in ledger.counts.items() if n}
    {'unparsable': 1, 'blank': 1, 'non_finite': 1, 'missing': 1}
    """

    def __init__(self, layout: Layout, ledger: FaultLedger, what: str = "standard input"):
        self.n_cols, self.columns = layout.n_cols, list(layout.columns)
        self.time, self.time_unit = layout.time, layout.time_unit
        self._last_t, self._steps = NAN, []
        self.ledger, self.what = ledger, what
        self.n_rows = 0

    def row(self, lineno: int, text: str, complete: bool = True) -> list[float]:
        """The samples of one line (NaN where faulty; see the module docstring)."""
        self.n_rows += 1
        fields = _split_fields(text) if complete else None
        if self.time is not None:
            self._check_time(lineno, self._seconds_of(fields))
        if fields is not None and len(text) <= MAX_LINE and len(fields) == self.n_cols:
            try:
                row = [float(fields[c]) for c in self.columns]
                if math.isfinite(sum(row)):
                    return row
            except ValueError:
                pass
        return self._faulty(lineno, text, complete)

    def seconds(self, text: str, complete: bool = True) -> float:
        """The time of a line by the layout's time column, in seconds; NaN without a time
        column or where its field is no finite number.

        Examples
        --------
        >>> from edr.stream.csv_rows import CsvRows, Layout
        >>> from edr.stream.faults import FaultLedger
        >>> rows = CsvRows(Layout(2, [1], ["II"], 0, 1e-3), FaultLedger(250.0, ["II"]))
        >>> rows.seconds("1004,0.2"), rows.seconds("x,0.2")
        (1.004, nan)
        """
        return self._seconds_of(_split_fields(text) if complete else None)

    def _seconds_of(self, fields: list[str] | None) -> float:
        """:meth:`seconds` of a line already split into ``fields`` (None: incomplete)."""
        if self.time is None or fields is None:
            return NAN
        try:
            t = float(fields[self.time]) * self.time_unit
        except (IndexError, ValueError):
            return NAN
        return t if math.isfinite(t) else NAN

    def _check_time(self, lineno: int, t: float) -> None:
        """Count the time fault of line ``lineno``, of time ``t`` (s), if any (see the module
        docstring)."""
        if math.isnan(t):
            return
        last, self._last_t = self._last_t, t
        if math.isnan(last):
            return
        step, fs = t - last, self.ledger.fs
        where = f"{self.what} line {lineno}: time {t:.6g} s after {last:.6g} s"
        if step <= 0:
            self.ledger.note("time_back", self.n_rows - 1, where)
        elif step > GAP_PERIODS / fs:
            self.ledger.note("time_jump", self.n_rows - 1, where)
        else:
            self._steps.append(step)
        if len(self._steps) >= fs:
            median = sorted(self._steps)[len(self._steps) // 2]
            if abs(median * fs - 1.0) > RATE_TOLERANCE:
                self.ledger.note("rate", self.n_rows - 1, f"{self.what} lines to {lineno}: its "
                                 f"time steps by {median * 1e3:.4g} ms ({1.0 / median:.4g} Hz)",
                                 len(self._steps))
            self._steps = []

    def _note(self, kind: str, lineno: int, text: str, n: int = 1) -> None:
        self.ledger.note(kind, self.n_rows - 1, f"{self.what} line {lineno}: {text[:40]!r}", n)

    def _faulty(self, lineno: int, text: str, complete: bool) -> list[float]:
        stripped = text.strip()
        nothing = [NAN] * len(self.columns)
        fields = _split_fields(stripped)
        kind = ("long" if len(text) > MAX_LINE else "truncated" if not complete
                else "blank" if not stripped else "columns" if len(fields) > self.n_cols
                else None)
        if kind is not None:
            self._note(kind, lineno, stripped)
            return nothing
        row, faults = [], Counter()
        for c in self.columns:
            if c >= len(fields):
                row.append(NAN)
                faults["missing"] += 1
                continue
            try:
                v = float(fields[c])
            except ValueError:
                row.append(NAN)
                faults["unparsable"] = 1  # a line
                continue
            if not math.isfinite(v):
                faults["non_finite"] += 1
                v = NAN
            row.append(v)
        for kind, n in faults.items():
            self._note(kind, lineno, stripped, n)
        return row
