"""Where a stream's ECG comes from: a record replayed, CSV rows on standard input, or a Lab
Streaming Layer stream. Each source is a :class:`Source`: the sampling rate, the lead names, an
iterator of blocks (one row per sample instant, one column per lead, NaN where a sample is
missing) and the :class:`edr.stream.faults.FaultLedger` its faults are counted in.

The live sources never end on a fault, only at the end of the input (EOF; for LSL, no data for
``timeout`` seconds) or when their :class:`edr.stream.stopping.StopFlag` is set:

* standard input is read by a background thread in chunks, so the loop wakes every
  :data:`edr.stream.stopping.POLL_S` seconds to check the flag even while no byte arrives (a
  blocking read would make SIGTERM wait for the next line); bytes that are not UTF-8 become
  U+FFFD (the line is then unparsable); the lines become rows by
  :class:`edr.stream.csv_rows.CsvRows`;
* LSL samples go through :class:`edr.stream.timestamps.TimestampGaps` (dropouts become NaN
  samples of their length; jumps back are dropped); non-finite values become NaN.
"""

from __future__ import annotations

import codecs
import itertools
import math
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from edr.stream.csv_rows import MAX_LINE, CsvRows, read_layout
from edr.stream.faults import FaultLedger
from edr.stream.stopping import POLL_S, StopFlag, Stopped
from edr.stream.timestamps import TimestampGaps

__all__ = ["BLOCK_S", "FULL_SPEED_BLOCK_S", "Source", "lsl_blocks", "open_lsl", "open_record",
           "open_stdin", "paced", "text_lines"]

BLOCK_S = 0.25
"""Replay and standard-input block length (s)."""
FULL_SPEED_BLOCK_S = 2.0
"""Block length (s) of a replay at full speed (``speed=inf``): no clock paces it, so its blocks
only set how often the stop flag is checked and the faults counted; one update's worth (the
default hop) costs an eighth of the per-block work of :data:`BLOCK_S` and changes no output
(an update falls on the same sample whatever the blocks)."""
_STDIN_CHUNK = 1 << 16  # bytes read from standard input at once
_QUEUED = 16  # chunks read ahead at most (the reader waits beyond: memory stays bounded)


@dataclass
class Source:
    """An open source: ``fs`` (Hz), lead ``names``, ``blocks`` (arrays of shape
    ``(n, len(names))``), the ``ledger`` of its faults and ``what`` it is, for messages."""

    fs: float
    names: list
    blocks: Iterator
    ledger: FaultLedger
    what: str


def _block_size(fs: float, seconds: float = BLOCK_S) -> int:
    return max(int(round(fs * seconds)), 1)


def paced(x: np.ndarray, fs: float, speed: float = math.inf,
          stop: StopFlag | None = None) -> Iterator[np.ndarray]:
    """Blocks of :data:`BLOCK_S` of ``x`` (shape ``(n, n_leads)``), each given no earlier than
    its time divided by ``speed`` after the first; at ``speed=inf`` blocks of
    :data:`FULL_SPEED_BLOCK_S`, at once. Ends early when ``stop`` is set.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.stream.sources import paced
    >>> [b.shape for b in paced(np.zeros((10, 2)), 16.0, speed=1e9)]  # 0.25 s: 4 samples
    [(4, 2), (4, 2), (2, 2)]
    >>> [b.shape for b in paced(np.zeros((70, 2)), 16.0)]  # full speed: 2 s, 32 samples
    [(32, 2), (32, 2), (6, 2)]
    """
    stop = StopFlag() if stop is None else stop
    block = _block_size(fs, BLOCK_S if math.isfinite(speed) else FULL_SPEED_BLOCK_S)
    t0 = time.monotonic()
    for i in range(0, x.shape[0], block):
        if math.isfinite(speed):
            wait = t0 + i / fs / speed - time.monotonic()
            if wait > 0 and stop.wait(wait):
                return
        if stop.is_set():
            return
        yield x[i:i + block]


def open_record(path, *, fs: float | None = None, channel: str | None = None,
                speed: float = math.inf, stop: StopFlag | None = None,
                warn: Callable | None = None) -> Source:
    """Every ECG lead of the record at ``path`` (:func:`edr.io.read_record`), the selected lead
    (``channel``, else the default ECG channel) first, replayed at ``speed`` (see :func:`paced`).

    Raises
    ------
    FileNotFoundError, edr.errors.RecordError
        As :func:`edr.io.read_record`.

    See Also
    --------
    edr.io.read_record : reads the record (WFDB, EDF or CSV).
    paced : the replay, block by block, at ``speed``.
    open_stdin : CSV rows of standard input, as they arrive.
    open_lsl : a Lab Streaming Layer stream.
    edr.stream.session.run_stream : streams the source through the engine.

    Examples
    --------
    >>> import tempfile
    >>> from edr.io import write_wfdb
    >>> from edr.simulate import simulate_recording
    >>> from edr.stream.sources import open_record
    >>> rec = simulate_recording(duration_s=10.0, fs=250.0, random_state=0)
    >>> tmp = tempfile.TemporaryDirectory()
    >>> hea, dat = write_wfdb(tmp.name, "sim", rec.ecg, rec.fs, sig_name="II", units="mV")
    >>> source = open_record(hea)  # speed=inf: every block at once
    >>> source.fs, source.names
    (250.0, ['II'])
    >>> blocks = list(source.blocks)
    >>> len(blocks), blocks[0].shape, sum(b.shape[0] for b in blocks)  # 2 s blocks at full speed
    (5, (500, 1), 2500)
    >>> source.ledger.summary_line()
    'none'
    >>> tmp.cleanup()
    """
    from edr.io import check_record_path, read_record

    check_record_path(path)
    rec = read_record(path, channel, fs=fs)
    leads = dict(rec.leads or {rec.ecg_channel: rec.ecg})
    names = [rec.ecg_channel] + [n for n in leads if n != rec.ecg_channel]
    x = np.column_stack([np.asarray(leads[n], dtype=float) for n in names])
    return Source(rec.fs, names, paced(x, rec.fs, speed, stop), FaultLedger(rec.fs, names, warn),
                  str(path))


def _chunks(stream, stop: StopFlag) -> Iterator[str]:
    """Text of ``stream`` as it arrives, until EOF or ``stop``."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        fd = None  # an in-memory stream: it never blocks
    if fd is None:
        while not stop.is_set():
            text = stream.read(_STDIN_CHUNK)
            if not text:
                return
            yield text
        return
    chunks: queue.Queue = queue.Queue(maxsize=_QUEUED)

    def read():
        try:
            while data := os.read(fd, _STDIN_CHUNK):
                chunks.put(data)
        except OSError as exc:
            chunks.put(exc)
        chunks.put(b"")

    threading.Thread(target=read, name="edr-stream-stdin", daemon=True).start()
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    while not stop.is_set():
        try:
            data = chunks.get(timeout=POLL_S)
        except queue.Empty:
            continue
        if isinstance(data, OSError):
            raise data
        text = decoder.decode(data, final=not data)
        if text:
            yield text
        if not data:
            return


def text_lines(stream, stop: StopFlag | None = None) -> Iterator[tuple[int, str, bool]]:
    """``(line number, text without the newline, complete)`` of every line of ``stream``; a last
    line without a newline at EOF comes with ``complete=False``; a partial line when ``stop`` is
    set is left unread. A line longer than :data:`edr.stream.csv_rows.MAX_LINE` characters comes
    cut to ``MAX_LINE + 1`` (the rest is read and dropped: time and memory stay linear).

    Examples
    --------
    >>> import io
    >>> from edr.stream.sources import text_lines
    >>> list(text_lines(io.StringIO("1\\n\\n2.5\\r\\n3.")))
    [(1, '1', True), (2, '', True), (3, '2.5\\r', True), (4, '3.', False)]
    """
    stop = StopFlag() if stop is None else stop
    rest, lineno = "", 0
    for text in _chunks(stream, stop):
        lines = (rest + text).split("\n")
        rest = lines.pop()[:MAX_LINE + 1]
        for line in lines:
            lineno += 1
            yield lineno, line[:MAX_LINE + 1], True
    if rest and not stop.is_set():
        yield lineno + 1, rest, False


def open_stdin(stream, fs: float, *, columns: Sequence[int] | None = None,
               stop: StopFlag | None = None, warn: Callable | None = None) -> Source:
    """CSV rows of ``stream`` (one sample instant a line, an optional header row), read as
    they arrive; each line is one row, faults included (:mod:`edr.stream.csv_rows`).

    Raises
    ------
    edr.errors.SignalError
        The input ends before a row of numbers.
    ValueError
        A column of ``columns`` is beyond the input's columns.
    Stopped
        ``stop`` was set before a row of numbers arrived.

    See Also
    --------
    edr.stream.csv_rows.read_layout, edr.stream.csv_rows.CsvRows

    Examples
    --------
    >>> import io
    >>> from edr.stream.sources import open_stdin
    >>> source = open_stdin(io.StringIO("II,V1\\n0.1,0.2\\nabc\\n0.3,0.4\\n"), 250.0)
    >>> source.names, next(source.blocks).tolist()
    (['II', 'V1'], [[0.1, 0.2], [nan, nan], [0.3, 0.4]])
    >>> source.ledger.counts["unparsable"]
    1
    """
    stop = StopFlag() if stop is None else stop
    lines = text_lines(stream, stop)
    try:
        layout, taken = read_layout(lines, columns)
    except ValueError:
        if stop.is_set():
            raise Stopped(stop.reason) from None
        raise
    ledger = FaultLedger(fs, layout.names, warn)
    rows = CsvRows(layout, ledger)
    size = _block_size(fs)

    def blocks():
        block = []
        for lineno, text, complete in itertools.chain(taken, lines):
            block.append(rows.row(lineno, text, complete))
            if len(block) >= size:
                yield np.asarray(block)
                block = []
        if block:
            yield np.asarray(block)
    return Source(fs, layout.names, blocks(), ledger, "standard input")


def lsl_blocks(inlet, columns: Sequence[int], fs: float, ledger: FaultLedger, *,
               timeout: float = 10.0, stop: StopFlag | None = None,
               what: str = "LSL stream") -> Iterator[np.ndarray]:
    """Blocks of the ``columns`` of ``inlet`` on the uniform clock (:class:`TimestampGaps`),
    until ``timeout`` seconds pass without data or ``stop`` is set.

    Parameters
    ----------
    inlet : object
        Has ``pull_chunk(timeout=..., max_samples=...)`` giving ``(samples, timestamps)``, as
        :class:`pylsl.StreamInlet`.
    columns : sequence of int
        The channels to keep.
    fs : float
        Nominal sampling rate (Hz).
    ledger : FaultLedger
        Counts the gaps (and their NaN samples), the jumps back and the non-finite values.
    timeout, stop, what
        See above; ``what`` names the stream in the ledger's details.

    Yields
    ------
    ndarray, shape (n, len(columns))

    See Also
    --------
    open_lsl : the stream found by name, its inlet read by this function.

    Examples
    --------
    >>> from edr.stream.faults import FaultLedger
    >>> from edr.stream.sources import lsl_blocks
    >>> class Inlet:  # two chunks 0.1 s apart in time, then silence
    ...     chunks = [([[1.0], [2.0]], [0.00, 0.01]), ([[3.0]], [0.11])]
    ...     def pull_chunk(self, timeout, max_samples):
    ...         return self.chunks.pop(0) if self.chunks else ([], [])
    >>> ledger = FaultLedger(100.0, ["ch0"])
    >>> rows = list(lsl_blocks(Inlet(), [0], 100.0, ledger, timeout=0.05))
    >>> [r[:, 0].tolist() for r in rows], ledger.counts["gap"], ledger.gap_samples
    ([[1.0, 2.0], [nan, nan, nan, nan, nan, nan, nan, nan, nan, 3.0]], 1, 9)
    """
    stop = StopFlag() if stop is None else stop
    clock, idle, n_out = TimestampGaps(fs), time.monotonic(), 0
    while not stop.is_set():
        data, stamps = inlet.pull_chunk(timeout=POLL_S, max_samples=4096)
        if not len(data):
            if time.monotonic() - idle > timeout:
                return  # the outlet stopped sending: the end of the stream
            continue
        idle = time.monotonic()
        x = np.asarray(data, dtype=float)[:, list(columns)]
        bad = ~np.isfinite(x)
        if bad.any():
            ledger.note("non_finite", n_out, what, int(bad.sum()))
            x[bad] = np.nan
        rows, events = clock.apply(x, stamps)
        for kind, i, k in events:
            ledger.note(kind, n_out + i, f"{what}: {k} {'s' if kind == 'time_jump' else 'samples'}",
                        k if kind == "jump_back" else 1)
        ledger.gap_samples = clock.gap_samples
        n_out += rows.shape[0]
        if rows.shape[0]:
            yield rows


def open_lsl(name: str, *, columns: Sequence[int] | None = None, timeout: float = 10.0,
             stop: StopFlag | None = None, warn: Callable | None = None) -> Source:
    """The Lab Streaming Layer stream called ``name`` (the first found within ``timeout``
    seconds), its ``columns`` (default: every channel) read by :func:`lsl_blocks`.

    Raises
    ------
    ValueError
        pylsl or liblsl cannot be loaded, no such stream, a stream without a nominal rate, or a
        column beyond its channels.
    Stopped
        ``stop`` was set while looking for the stream.

    See Also
    --------
    lsl_blocks : reads the stream's inlet onto the uniform clock (its example needs no device).
    edr.stream.timestamps.TimestampGaps : the gaps and jumps back of the timestamps.
    open_record : a record replayed instead.
    open_stdin : CSV rows of standard input instead.
    """
    try:
        import pylsl
    except Exception as exc:  # ImportError, or liblsl that cannot load (RuntimeError)
        raise ValueError(f"LSL needs pylsl with a loadable liblsl (pip install "
                         f"'kpca-edr[stream]'): {exc}") from None
    stop = StopFlag() if stop is None else stop
    resolver = pylsl.ContinuousResolver(prop="name", value=name)
    deadline = time.monotonic() + timeout
    found = resolver.results()
    while not found and time.monotonic() < deadline and not stop.wait(POLL_S):
        found = resolver.results()
    if stop.is_set():
        raise Stopped(stop.reason)
    if not found:
        raise ValueError(f"no LSL stream named {name!r} found within {timeout:g} s")
    info = found[0]
    fs = float(info.nominal_srate())
    if not fs > 0:
        raise ValueError(f"LSL stream {name!r} has an irregular rate; a nominal rate is needed")
    n_ch = info.channel_count()
    cols = list(range(n_ch)) if columns is None else list(columns)
    if max(cols) >= n_ch:
        raise ValueError(f"LSL stream {name!r} has {n_ch} channel(s); channel {max(cols)} is "
                         "not there")
    names = [f"ch{c}" for c in cols]
    ledger = FaultLedger(fs, names, warn)
    inlet = pylsl.StreamInlet(info, max_buflen=60)
    what = f"LSL stream {name!r}"
    return Source(fs, names, lsl_blocks(inlet, cols, fs, ledger, timeout=timeout, stop=stop,
                                        what=what), ledger, what)
