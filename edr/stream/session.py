"""One stream from its source to its outputs: the loop of ``edr stream``.

Blocks of the source (:mod:`edr.stream.sources`) are counted in its fault ledger and pushed
into the engine; every update is written at once (:class:`edr.stream.sinks.StreamOutputs`), with
the breaths it reports when asked for (:class:`edr.stream.breaths.StreamBreaths`, fed the
update and the beats the engine's tracker settled).
The loop ends at the end of the input or when the stop flag is set (checked after every
block: SIGINT and SIGTERM, :mod:`edr.stream.stopping`); either way the engine's last update
is emitted and written, and a :class:`StreamReport` says what was streamed, what went wrong
and what ended it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from edr.stream.breaths import StreamBreaths
from edr.stream.engine import MAX_UNUSABLE_SHARE, StreamingEDR, StreamUpdate
from edr.stream.sinks import StreamOutputs
from edr.stream.sources import Source
from edr.stream.stopping import StopFlag

__all__ = ["StreamReport", "run_stream"]


@dataclass(frozen=True)
class StreamReport:
    """What a stream did.

    Attributes
    ----------
    ended_by : str
        ``"the end of the input"`` or the stop flag's reason (``"SIGTERM"``, ...).
    seconds : float
        Stream time: samples per lead / fs.
    samples, n_leads, rows, rate_windows, withheld : int
        Samples per lead, leads, EDR rows written, rate windows written and those without a
        rate.
    breaths : int or None
        Breaths written (None: no breath output).
    faults : dict
        :meth:`edr.stream.faults.FaultLedger.as_dict`.
    fault_line : str
        :meth:`edr.stream.faults.FaultLedger.summary_line`.
    """

    ended_by: str
    seconds: float
    samples: int
    n_leads: int
    rows: int
    rate_windows: int
    withheld: int
    faults: dict
    fault_line: str
    breaths: int | None = None

    def line(self) -> str:
        """The report in one line, for the end of a command-line stream."""
        leads = "1 lead" if self.n_leads == 1 else f"{self.n_leads} leads"
        return (f"summary: {self.seconds:.1f} s of ECG ({self.samples} samples, {leads}), "
                f"{self.rows} EDR rows, {self.rate_windows} rate windows ({self.withheld} "
                f"without a rate)" + ("" if self.breaths is None else f", {self.breaths} breaths")
                + f"; faults: {self.fault_line}; ended by {self.ended_by}")


def run_stream(source: Source, engine: StreamingEDR, outputs: StreamOutputs, *,
               stop: StopFlag | None = None,
               on_update: Callable[[StreamUpdate], None] | None = None,
               breaths: StreamBreaths | None = None) -> StreamReport:
    """Stream ``source`` through ``engine`` into ``outputs`` until the input ends or ``stop``.

    Parameters
    ----------
    source : Source
        Its ``fs`` and ``names`` are the engine's.
    engine : StreamingEDR
    outputs : StreamOutputs
        Entered (open).
    stop : StopFlag, optional
        Checked after every block.
    on_update : callable, optional
        Called with every update once it is written (the live line).
    breaths : StreamBreaths, optional
        Fed every update; the breaths it reports are written
        (:meth:`edr.stream.sinks.StreamOutputs.write_breaths`), the rest at the stream's end.

    Returns
    -------
    StreamReport

    See Also
    --------
    edr.stream.sources.open_record : a record replayed as a source.
    edr.stream.sources.open_stdin : CSV rows of standard input as a source.
    edr.stream.engine.StreamingEDR : the engine the blocks are pushed into.
    edr.stream.sinks.StreamOutputs : the CSV outputs each update is written to.
    edr.stream.stopping.stop_on_signals : the stop flag set by SIGINT and SIGTERM.

    Examples
    --------
    >>> import io, tempfile
    >>> from pathlib import Path
    >>> from edr.simulate import simulate_recording
    >>> from edr.stream import StreamingEDR
    >>> from edr.stream.session import run_stream
    >>> from edr.stream.sinks import StreamOutputs
    >>> from edr.stream.sources import open_stdin
    >>> x = simulate_recording(40.0, 125.0, random_state=0).ecg
    >>> text = "".join(f"{v:.4f}\\n" for v in x[:2500]) + "abc\\n" + "".join(
    ...     f"{v:.4f}\\n" for v in x[2501:])
    >>> source = open_stdin(io.StringIO(text), 125.0)
    >>> out = Path(tempfile.mkdtemp()) / "live.csv"
    >>> with StreamOutputs(out) as sink:
    ...     report = run_stream(source, StreamingEDR(125.0, leads=source.names), sink)
    >>> report.rows, report.faults["faults"]["unparsable"], report.faults["leads"]["ch0"]
    (160, 1, {'nan_samples': 1, 'flat_samples': 0})
    """
    stop = StopFlag() if stop is None else stop
    ledger = source.ledger

    def emit(updates):
        for u in updates:
            outputs.write(u)
            if breaths is not None:
                tracker = engine.beats[engine.analysed[0]]
                outputs.write_breaths(breaths.add(u, tracker.settled_times()), u.time_s)
            for c, share in zip(u.rate_time, u.unusable, strict=False):
                if share > MAX_UNUSABLE_SHARE:
                    ledger.note("unusable", int(round(u.time_s * source.fs)),
                                f"the window centred at {c:.0f} s: {share:.0%} of its ECG")
            if on_update is not None:
                on_update(u)

    noted = {kind: dict.fromkeys(engine.leads, 0) for kind in ("glitch", "clipped")}

    def note_glitches():
        for kind, counts in (("glitch", engine.glitch_samples),
                             ("clipped", engine.clipped_samples)):
            for lead, n in counts.items():
                if n > noted[kind][lead]:
                    ledger.note(kind, engine.n_samples, f"lead {lead}", n - noted[kind][lead])
                    noted[kind][lead] = n

    for block in source.blocks:
        ledger.observe(block)
        emit(engine.push(block))
        note_glitches()
        if stop.is_set():
            break
    emit(engine.flush())
    note_glitches()
    if breaths is not None:
        end = engine.n_samples / source.fs
        outputs.write_breaths(breaths.finish(end), end)
    outputs.fsync()
    return StreamReport(stop.reason or "the end of the input", engine.n_samples / source.fs,
                        engine.n_samples, len(source.names), outputs.rows, outputs.rate_windows,
                        outputs.withheld, ledger.as_dict(), ledger.summary_line(),
                        None if breaths is None else outputs.breaths)
