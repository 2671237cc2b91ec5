"""``python -m edr.stream`` (also ``edr stream``): real-time EDR from a record, standard input or
an LSL stream, through :class:`edr.stream.StreamingEDR`.

A thin layer: it parses the options, opens the source (:mod:`edr.stream.sources`: every ECG
channel of a replayed record, the columns of a CSV on standard input, the channels of a Lab
Streaming Layer stream) and runs it (:func:`edr.stream.session.run_stream`): one line per update,
the CSV ``time_s,edr,rate_bpm,quality`` (each EDR sample with the last rate reported when it was
emitted) and optionally one row per rate window (``--rates``) and one per breath (``--breaths``,
each within its latency bound: :mod:`edr.stream.breaths`), written under their names as the
stream runs (:mod:`edr.stream.sinks`). A bad option or source: one line on stderr, exit code 2,
no output file (the protocol of every ``edr`` command line, :mod:`edr.cli_core`). Faults of a
live input (bad lines, NaN, flat or missing leads, timestamp gaps) are masked gaps, warned about
and counted in the summary line on stderr, never the end; the stream ends at the end of its input
or on SIGINT/SIGTERM (exit 0, every row written), or when its standard output closes (``| head``:
exit 141, every row written). An output that cannot be written (a full disk) stops it: one line,
exit 2, each file ending on a whole row.
"""

from __future__ import annotations

import argparse
import errno
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from edr.cli_core import (
    EXIT_BAD_INPUT,
    EXIT_CLOSED_OUTPUT,
    EXIT_OK,
    OptionError,
    Parser,
    run_command,
)
from edr.cli_options import (
    check_method,
    check_sigma2_option,
    finite_number,
    integer,
    positive_number,
    rate_hz,
    sigma2_value,
)
from edr.errors import SignalError
from edr.io.paths import record_files
from edr.io.targets import check_targets
from edr.names import DEFAULT_METHOD, DEFAULT_SIGMA2, METHOD_NAMES, sigma2_help
from edr.stream.breaths import latency_bound_s
from edr.stream.engine import (
    DEFAULT_DELAY_S,
    DEFAULT_HOP_S,
    DEFAULT_SPAN_S,
    MAX_UNUSABLE_SHARE,
    RESELECT_S,
    WARMUP_S,
    StreamingEDR,
)

__all__ = ["build_parser", "main"]

PROG = "python -m edr.stream"
CLOSED_OUTPUT = "its standard output closed"
"""The start of a stream's end reason when the reader of its live lines went away."""
STREAM_FLAGS = {"lead": "--lead", "method": "--method", "sigma2": "--sigma2", "span_s": "--span",
         "hop_s": "--hop", "delay_s": "--delay", "channel": "--channel"}
"""Engine parameter name -> the flag, for messages (:func:`edr.cli_core.one_line`)."""


#: Options of ``edr extract`` that a stream refuses, and why.
_EXTRACT_ONLY = {
    "--r-peaks": "edr stream detects the R peaks as the ECG comes",
    "--breath-times": "edr stream scores against no reference",
}


def _speed(text: str) -> float:
    return math.inf if text.strip().lower() == "max" else positive_number(text)


def _columns(text: str) -> list[int]:
    try:
        cols = [int(c) for c in text.split(",") if c.strip()]
    except ValueError:
        cols = []
    if not cols or min(cols) < 0 or len(set(cols)) != len(cols):
        raise argparse.ArgumentTypeError(f"must be distinct column numbers >= 0 separated by "
                                         f"commas, got {text!r}")
    return cols


def build_parser(prog: str = PROG) -> Parser:
    """The argument parser of the ``stream`` command."""
    p = Parser(prog=prog, description="Real-time ECG-derived respiration, as the offline default "
                "(every ECG lead, kpca_fusion, the same quality and abstention) a few seconds "
                "later: replay a record, read CSV rows from standard input ('-') or a Lab "
                "Streaming Layer stream (--lsl).",
                epilog="Example: %(prog)s bidmc01.hea -o live.csv   |   "
                       "cat ecg.csv | %(prog)s - --fs 250 -o live.csv")
    p.add_argument("record", nargs="?", metavar="RECORD|-",
                   help="record file (any format edr.io.read_record reads), replayed with every "
                        "ECG lead; or '-' for CSV rows on standard input, one column per "
                        "channel (an optional header row names them: a time or sample-number "
                        "column is then no lead, and where some names are ECG leads' only those "
                        "are)")
    _add_outputs(p)
    p.add_argument("--speed", type=_speed, default=math.inf, metavar="FACTOR|max",
                   help="replay speed: 1 = real time, max = as fast as possible (default)")
    p.add_argument("--fs", type=rate_hz, metavar="HZ",
                   help="sampling rate (Hz): required with '-' (standard input), a CSV record "
                        "without a time column and a .npy record; for other records it must "
                        "agree with the rate they state")
    p.add_argument("--channel", metavar="NAME",
                   help="a record: its ECG channel, as edr extract --channel (needed when no "
                        "channel has an ECG name); the other ECG channels are further leads")
    p.add_argument("--columns", type=_columns, metavar="I,J,...",
                   help="standard input or LSL: the columns / channels holding ECG (0-based, "
                        "default: all, or as the header names them)")
    p.add_argument("--lead", metavar="NAME|auto|fuse|multilead",
                   help="as edr extract: one lead by name, or a multi-lead mode (default: every "
                        "lead fused when there are several)")
    p.add_argument("--lsl", metavar="NAME",
                   help="read the Lab Streaming Layer stream of this name (needs pylsl: pip "
                        "install 'kpca-edr[stream]')")
    p.add_argument("--lsl-timeout", type=positive_number, default=10.0, metavar="SECONDS",
                   help="seconds to wait for the LSL stream and, later, for data before the "
                        "stream counts as ended (default 10)")
    p.add_argument("--method", default=DEFAULT_METHOD, metavar="NAME",
                   help=f"EDR method, as edr extract: {', '.join(METHOD_NAMES)} (default "
                        f"{DEFAULT_METHOD})")
    p.add_argument("--sigma2", type=sigma2_value, default=DEFAULT_SIGMA2, metavar="CRITERION|VALUE",
                   help=f"kernel width: a selection criterion ({sigma2_help()}), re-run on each "
                        f"lead at the start, when the span fills and every {RESELECT_S:g} s, or "
                        f"a fixed value > 0 (default {DEFAULT_SIGMA2})")
    p.add_argument("--span", type=positive_number, default=DEFAULT_SPAN_S, metavar="SECONDS",
                   help=f"analysis window: the last SECONDS of ECG the default method fits its "
                        "model on (every 30 s) and other methods analyse at every update (default "
                        f"{DEFAULT_SPAN_S:g}, at least {WARMUP_S:g})")
    p.add_argument("--hop", type=positive_number, default=DEFAULT_HOP_S, metavar="SECONDS",
                   help=f"stream time between updates (default {DEFAULT_HOP_S:g}; a divisor of 16 "
                        "makes every rate window end on an update)")
    p.add_argument("--delay", type=finite_number, default=DEFAULT_DELAY_S, metavar="SECONDS",
                   help=f"EDR is emitted up to SECONDS before the stream's end (default "
                        f"{DEFAULT_DELAY_S:g}); an EDR sample is out within delay + hop. The "
                        "default method's filter reaches delay - 2 s into the ECG after a point: "
                        "a shorter delay filters less")
    p.add_argument("--seed", type=integer, default=0, help="random seed of the method (default 0)")
    p.add_argument("--quiet", action="store_true", help="no live line per update")
    for flag in _EXTRACT_ONLY:  # edr extract's options, refused by name (_check_args)
        p.add_argument(flag, help=argparse.SUPPRESS)
    return p


def _add_outputs(p: Parser) -> None:
    """The outputs: the EDR CSV, the rate windows and the breaths."""
    p.add_argument("-o", "--output", required=True, metavar="OUT.csv",
                   help="EDR as CSV time_s,edr,rate_bpm,quality on the 4 Hz grid; rate_bpm and "
                        "quality are those of the last rate window reported when the sample was "
                        "emitted (nan where the quality is too low to give a rate). Written "
                        "under this name as the stream runs and flushed at every update, as "
                        "--rates: a killed stream keeps its rows (edr extract, offline, writes "
                        "all its outputs or none)")
    p.add_argument("--rates", metavar="RATES.csv",
                   help="also write one row per 32 s rate window: time_s (its centre), rate_bpm, "
                        "quality, reported_s (stream time of the update that reported it)")
    p.add_argument("--breaths", metavar="BREATHS.csv",
                   help="also write one row per breath as it is found: the columns of edr "
                        "extract --breaths (time_s of the end of inspiration, onset_s of the "
                        "start of inspiration before it, interval_s, quality, low_quality, "
                        "after_gap, after_pause, uncertain_polarity) and "
                        "reported_s (stream time); after the first 32 s each breath is reported "
                        f"within {latency_bound_s(DEFAULT_DELAY_S, DEFAULT_HOP_S):g} s of it "
                        "with the default --delay and --hop (16 s of EDR after it, and the rate "
                        "window nearest it)")


def _check_args(args) -> None:
    for flag, why in _EXTRACT_ONLY.items():
        value = getattr(args, flag[2:].replace("-", "_"))
        if value is not None:
            raise OptionError(f"{flag} applies to edr extract, which reads the whole record: "
                              f"{why}; run edr extract {args.record or 'RECORD'} {flag} {value}")
    if (args.record is not None) + (args.lsl is not None) != 1:
        raise OptionError("give exactly one source: a RECORD, '-' (standard input) or --lsl NAME")
    if args.record == "-" and args.fs is None:
        raise OptionError("standard input needs --fs HZ (the sampling rate)")
    if args.columns is not None and args.record not in (None, "-"):
        raise OptionError("--columns applies to standard input or --lsl; a record gives its ECG "
                          "leads (choose one with --lead)")
    if args.channel is not None and args.record in (None, "-"):
        raise OptionError("--channel applies to a record; standard input and --lsl take "
                          "--columns")
    check_method(args.method)
    check_sigma2_option(args.sigma2)
    targets = {flag: path for flag, path in (("-o/--output", args.output), ("--rates", args.rates),
                                             ("--breaths", args.breaths)) if path is not None}
    check_targets(targets, record_files(args.record) if args.record not in (None, "-") else ())
    for flag, path in targets.items():  # the CSV is written as it streams: no folder is created
        if not Path(path).absolute().parent.is_dir():
            raise OptionError(f"{flag}: folder of {path!r} does not exist")


def _open_source(args, stop, warn):
    """The source the options name (:mod:`edr.stream.sources`)."""
    from edr.stream.sources import open_lsl, open_record, open_stdin

    if args.lsl is not None:
        return open_lsl(args.lsl, columns=args.columns, timeout=args.lsl_timeout, stop=stop,
                        warn=warn)
    if args.record == "-":
        return open_stdin(sys.stdin, args.fs, columns=args.columns, stop=stop, warn=warn)
    return open_record(args.record, fs=args.fs, channel=args.channel, speed=args.speed,
                       stop=stop, warn=warn)


def _live_line(u) -> str:
    if u.rate_bpm.size:
        rate, q = u.rate_bpm[-1], u.quality[-1]
        text = "  --  " if not np.isfinite(rate) else f"{rate:6.1f}"
        why = (f"  ({u.unusable[-1]:.0%} of its ECG unusable)"
               if u.unusable.size and u.unusable[-1] > MAX_UNUSABLE_SHARE else "")
        return f"t={u.time_s:9.1f} s  rate={text} bpm  quality={q:.2f}{why}"
    return f"t={u.time_s:9.1f} s  {u.edr.size} EDR samples"


def _stdin_fd(args) -> int | None:
    if args.record != "-":
        return None
    try:
        return sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        return None  # an in-memory stream (tests)


def _warn(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _discard(out) -> None:
    """Point ``out``'s file descriptor at the null device: what is left in its buffer, flushed
    at exit, is then dropped instead of raising again."""
    try:
        fd, null = out.fileno(), os.open(os.devnull, os.O_WRONLY)
    except (AttributeError, OSError, ValueError):
        return  # an in-memory stream (tests)
    os.dup2(null, fd)
    os.close(null)


def _live_lines(out, stop):
    """The callback printing each update's live line to ``out``. Once ``out`` cannot be
    written (its reader gone, ``| head``; a full disk) it prints nothing more and sets ``stop``:
    the stream ends as on a signal, its last update written to its files."""
    failed = []

    def show(u):
        if failed:
            return
        try:
            print(_live_line(u), file=out, flush=True)
        except OSError as exc:
            failed.append(exc)
            _discard(out)
            stop.set(f"{CLOSED_OUTPUT} (its reader went away)" if exc.errno == errno.EPIPE
                     else f"its standard output failing ({exc.strerror or exc})")
    return show


def stream_with_options(args, out=None) -> int:
    """Stream the source through :class:`StreamingEDR` into the outputs, written as it runs
    (:mod:`edr.stream.session`); SIGINT and SIGTERM end it as the end of the input does, and so
    does a standard output that can no longer be written. Returns the exit code."""
    from edr.methods import get_method
    from edr.stream.breaths import StreamBreaths
    from edr.stream.session import run_stream
    from edr.stream.sinks import StreamOutputs
    from edr.stream.stopping import StopFlag, Stopped, stop_on_signals

    out = sys.stdout if out is None else out
    with stop_on_signals(StopFlag()) as stop:
        try:
            source = _open_source(args, stop, _warn)
        except Stopped as exc:
            _warn(f"summary: no ECG read; ended by {exc}")
            return EXIT_OK
        kw = {"sigma2": args.sigma2} if get_method(args.method).uses_sigma2 else {}
        stream = StreamingEDR(source.fs, leads=source.names, method=args.method, lead=args.lead,
                              span_s=args.span, hop_s=args.hop, delay_s=args.delay,
                              random_state=args.seed, **kw)
        live = None if args.quiet else _live_lines(out, stop)
        breaths = None if args.breaths is None else StreamBreaths(stream.fs_out, args.delay,
                                                                  args.hop)
        with StreamOutputs(args.output, args.rates, breaths=args.breaths,
                           input_fd=_stdin_fd(args)) as outputs:
            report = run_stream(source, stream, outputs, stop=stop, on_update=live,
                                breaths=breaths)
    if report.rows == 0 and not stop.is_set():
        raise SignalError(f"the stream ({report.seconds:.1f} s at fs={source.fs:g} Hz) gave no "
                          f"EDR: at least {WARMUP_S:g} s of ECG with enough beats are needed")
    _warn(report.line())
    if report.ended_by.startswith(CLOSED_OUTPUT):
        return EXIT_CLOSED_OUTPUT
    return EXIT_BAD_INPUT if report.ended_by.startswith("its standard output") else EXIT_OK


def _stream(argv: list[str], prog: str) -> int:
    args = build_parser(prog).parse_args(argv)
    _check_args(args)
    return stream_with_options(args)


def main(argv: Sequence[str] | None = None, *, prog: str = PROG) -> int:
    """Entry point: 0 ok, 2 bad input (one line on stderr, no output file), 1 internal error,
    130 interrupted, 141 ended by a closed standard output (:func:`edr.cli_core.run_command`)."""
    return run_command(prog, lambda args: _stream(args, prog), argv, flags=STREAM_FLAGS)
