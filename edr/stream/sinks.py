"""The stream's CSV outputs, written as it runs: what is emitted is kept.

Unlike the offline command line (all outputs or none, each written to a temporary file and
renamed when complete: :mod:`edr.io.writers`), a stream writes under the final names from the
start: the header first, then the rows of every update, flushed to the operating system at the
end of the update. ``tail -f`` follows the files; a process killed outright (``kill -9``, a
crash) leaves every row of the updates before the last one, and a power loss what the
operating system had written. A write that fails (a full disk, a file-size limit) is taken back
to the file's last whole row and stops the stream with an :class:`edr.errors.OutputError`: a
file never ends on part of a row. A stream that emitted no row leaves no file.
"""

from __future__ import annotations

import contextlib
import math
import os
from pathlib import Path

from edr.errors import OutputError
from edr.io.annotations import BREATH_COLUMNS, breath_csv_lines
from edr.stream.engine import StreamUpdate

__all__ = ["BREATHS_HEADER", "EDR_HEADER", "RATES_HEADER", "StreamOutputs"]

EDR_HEADER = "time_s,edr,rate_bpm,quality"
"""Columns of the EDR output: each grid point's EDR with the last rate reported when it was
emitted (NaN where withheld)."""
RATES_HEADER = "time_s,rate_bpm,quality,reported_s"
"""Columns of the rate output: one row per rate window (its centre), with the stream time of
the update that reported it."""
BREATHS_HEADER = ",".join(BREATH_COLUMNS) + ",reported_s"
"""Columns of the breath output: those of the offline breath CSV
(:data:`edr.io.annotations.BREATH_COLUMNS`, rows :func:`edr.io.annotations.breath_csv_lines`),
then the stream time of the update that reported the breath
(:mod:`edr.stream.breaths`)."""


class StreamOutputs:
    """The EDR CSV (and optionally the rate and breath CSVs) of one stream, appended update by
    update.

    Parameters
    ----------
    output : str or Path
        The EDR CSV (:data:`EDR_HEADER`).
    rates : str or Path, optional
        The rate CSV (:data:`RATES_HEADER`).
    breaths : str or Path, optional
        The breath CSV (:data:`BREATHS_HEADER`), written by :meth:`write_breaths`.
    input_fd : int, optional
        File descriptor of the input (standard input): an output that is the same file is
        refused, before anything is truncated.

    Attributes
    ----------
    rows, rate_windows, withheld, breaths : int
        EDR rows and rate windows written; rate windows without a rate; breaths written.

    Raises
    ------
    ValueError
        On entry: an output is the input's file.
    OSError
        On entry: an output cannot be created.
    edr.errors.OutputError
        A write failed (:meth:`write`, :meth:`write_breaths`); the rows before are kept.

    Notes
    -----
    Used as a context manager: the files are created (truncated) on entry, the headers written
    and flushed; on exit they are closed, or removed when no EDR row was written (they then hold
    the headers only).

    See Also
    --------
    edr.stream.session.run_stream : writes every update of a stream into it.
    edr.io.writers.write_csv : the offline EDR CSV, written all at once.
    edr.io.annotations.breath_csv_lines : the rows of the breath CSV.

    Examples
    --------
    >>> import tempfile, numpy as np
    >>> from pathlib import Path
    >>> from edr.stream.engine import StreamUpdate
    >>> from edr.stream.sinks import StreamOutputs
    >>> out = Path(tempfile.mkdtemp()) / "live.csv"
    >>> u = StreamUpdate(34.0, np.array([0.0, 0.25]), np.array([0.5, np.nan]),
    ...                  np.array([16.0]), np.array([15.2]), np.array([0.9]))
    >>> with StreamOutputs(out) as sink:
    ...     sink.write(u)
    ...     print(out.read_text(), end="")  # on disk before the stream ends
    time_s,edr,rate_bpm,quality
    0.000000,0.5,nan,nan
    0.250000,nan,nan,nan
    >>> sink.rows, sink.rate_windows
    (2, 1)
    """

    def __init__(self, output, rates=None, *, breaths=None, input_fd: int | None = None):
        named = {"edr": (output, EDR_HEADER), "rates": (rates, RATES_HEADER),
                 "breaths": (breaths, BREATHS_HEADER)}
        self._headers = {k: h for k, (p, h) in named.items() if p is not None}
        self.paths = [Path(named[k][0]) for k in self._headers]
        self.input_fd = input_fd
        self.rows = self.rate_windows = self.withheld = self.breaths = 0
        self._rate, self._quality = math.nan, math.nan
        self._files: list = []
        self._by_kind: dict = {}
        self._sizes: dict = {}  # bytes of whole rows in each file

    def __enter__(self) -> StreamOutputs:
        if self.input_fd is not None:
            source = os.fstat(self.input_fd)
            for path in self.paths:
                if path.exists() and os.path.samestat(source, path.stat()):
                    raise ValueError(f"{path} is the input: standard input reads it")
        try:
            for path, (kind, header) in zip(self.paths, self._headers.items(), strict=True):
                f = open(path, "wb", buffering=0)  # noqa: SIM115 - closed in __exit__
                self._files.append(f)
                self._by_kind[kind] = f
                self._sizes[kind] = 0
                self._append(kind, header + "\n")
        except BaseException:
            self._close(remove=True)
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._close(remove=self.rows == 0)

    def _close(self, remove: bool) -> None:
        for f in self._files:
            f.close()
            if remove:
                Path(f.name).unlink(missing_ok=True)
        self._files = []
        self._by_kind = {}

    def write(self, update: StreamUpdate) -> None:
        """Append the update's EDR samples (with the last rate reported before it) and rate
        windows, each file written at once (unbuffered: on disk for ``tail -f``).

        See Also
        --------
        write_breaths : the breaths reported at an update.
        edr.stream.engine.StreamingEDR.push : the updates.
        """
        rate, quality = self._rate, self._quality
        self._append("edr", "".join(f"{t:.6f},{v:.9g},{rate:.6g},{quality:.4f}\n"
                                    for t, v in zip(update.edr_time, update.edr, strict=True)))
        self.rows += update.edr.size
        windows = list(zip(update.rate_time, update.rate_bpm, update.quality, strict=True))
        if "rates" in self._by_kind:
            self._append("rates", "".join(f"{t:.3f},{b:.6g},{q:.4f},{update.time_s:.3f}\n"
                                          for t, b, q in windows))
        for _, b, q in windows:
            self._rate, self._quality = b, q
            self.rate_windows += 1
            self.withheld += not math.isfinite(b)

    def _append(self, kind: str, text: str) -> None:
        """Append ``text`` (whole rows) to the file of ``kind``: all of it or, when the write
        fails, none (the file cut back to its last whole row, :class:`edr.errors.OutputError`
        raised)."""
        f, start = self._by_kind[kind], self._sizes[kind]
        data = memoryview(text.encode())
        size = len(data)
        try:
            while data:
                n = f.write(data)
                if not n:
                    raise OSError("nothing written")
                data = data[n:]
        except OSError as exc:
            with contextlib.suppress(OSError):
                f.truncate(start)
                f.seek(start)
            kept = (f"its {self.rows} EDR rows written before are kept, each whole" if self.rows
                    else "no EDR row was written")
            raise OutputError(f"cannot write {f.name} ({exc.strerror or exc}): the stream "
                              f"stopped; {kept}") from exc
        self._sizes[kind] = start + size

    def write_breaths(self, breaths, reported_s: float) -> None:
        """Append the rows of ``breaths`` (:class:`edr.breaths.Breaths`, those reported at the
        update of stream time ``reported_s``) at once; nothing without a breath output.

        See Also
        --------
        edr.stream.breaths.StreamBreaths.add : the breaths reported at an update.
        edr.io.annotations.breath_csv_lines : the rows, as offline.
        """
        f = self._by_kind.get("breaths")
        if f is None or not len(breaths):
            return
        self._append("breaths", "".join(line[:-1] + f",{reported_s:.3f}\n"
                                        for line in breath_csv_lines(breaths)))
        self.breaths += len(breaths)

    def fsync(self) -> None:
        """Ask the operating system to put what was written on disk (at the stream's end)."""
        for f in self._files:
            os.fsync(f.fileno())
