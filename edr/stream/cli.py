"""``python -m edr.stream`` (also ``edr stream``): real-time EDR from a record, standard input or
an LSL stream, through :class:`edr.stream.StreamingEDR`.

A thin layer: it parses the options, opens the source (:mod:`edr.stream.sources`: every ECG
channel of a replayed record, the columns of a CSV on standard input, the channels of a Lab
Streaming Layer stream) and runs it (:func:`edr.stream.session.run_stream`): one line per update,
the CSV ``time_s,edr,rate_bpm,quality`` (each EDR sample with the last rate reported when it was
emitted) and optionally one row per rate window (``--rates``), written under their names as the
stream runs (:mod:`edr.stream.sinks`). A bad option or source: one line on stderr, exit code 2,
no output file. Faults of a live input (bad lines, NaN, flat or missing leads, timestamp gaps)
are masked gaps, warned about and counted in the summary line on stderr, never the end; the
stream ends at the end of its input or on SIGINT/SIGTERM (exit 0, every row written).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Sequence

import numpy as np

from edr.argtypes import (
    CRITERION_NAMES,
    DEFAULT_SIGMA2,
    METHOD_NAMES,
    canonical_criterion,
    parse_positive,
    parse_rate_hz,
    parse_sigma2,
    sigma2_help,
)
from edr.errors import EDRError, SignalError
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


class _OptionError(ValueError):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise _OptionError(message)


def _speed(text: str) -> float:
    return math.inf if text.strip().lower() == "max" else parse_positive(text)


def _columns(text: str) -> list[int]:
    try:
        cols = [int(c) for c in text.split(",") if c.strip()]
    except ValueError:
        cols = []
    if not cols or min(cols) < 0 or len(set(cols)) != len(cols):
        raise argparse.ArgumentTypeError(f"must be distinct column numbers >= 0 separated by "
                                         f"commas, got {text!r}")
    return cols


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The argument parser of the ``stream`` command."""
    p = _Parser(prog=prog, description="Real-time ECG-derived respiration, as the offline default "
                "(every ECG lead, kpca_fusion, the same quality and abstention) a few seconds "
                "later: replay a record, read CSV rows from standard input ('-') or a Lab "
                "Streaming Layer stream (--lsl).",
                epilog="Example: %(prog)s bidmc01.hea -o live.csv   |   "
                       "cat ecg.csv | %(prog)s - --fs 250 -o live.csv")
    p.add_argument("record", nargs="?", metavar="RECORD|-",
                   help="record file (any format edr.io.read_record reads), replayed with every "
                        "ECG lead; or '-' for CSV rows on standard input, one column per ECG "
                        "channel (an optional header row names them)")
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
    p.add_argument("--speed", type=_speed, default=math.inf, metavar="FACTOR|max",
                   help="replay speed: 1 = real time, max = as fast as possible (default)")
    p.add_argument("--fs", type=parse_rate_hz, metavar="HZ",
                   help="sampling rate (Hz) of the standard-input samples (required with '-')")
    p.add_argument("--columns", type=_columns, metavar="I,J,...",
                   help="standard input or LSL: the columns / channels holding ECG (0-based, "
                        "default: all)")
    p.add_argument("--lead", metavar="NAME|auto|fuse|multilead",
                   help="as edr extract: one lead by name, or a multi-lead mode (default: every "
                        "lead fused when there are several)")
    p.add_argument("--lsl", metavar="NAME",
                   help="read the Lab Streaming Layer stream of this name (needs pylsl: pip "
                        "install 'kpca-edr[stream]')")
    p.add_argument("--lsl-timeout", type=parse_positive, default=10.0, metavar="SECONDS",
                   help="seconds to wait for the LSL stream and, later, for data before the "
                        "stream counts as ended (default 10)")
    p.add_argument("--method", default="kpca_fusion", metavar="NAME",
                   help=f"EDR method, as edr extract: {', '.join(METHOD_NAMES)} (default "
                        "kpca_fusion)")
    p.add_argument("--sigma2", type=parse_sigma2, default=DEFAULT_SIGMA2, metavar="CRITERION|VALUE",
                   help=f"kernel width: a selection criterion ({sigma2_help()}), re-run on each "
                        f"lead at the start, when the span fills and every {RESELECT_S:g} s, or "
                        f"a fixed value > 0 (default {DEFAULT_SIGMA2})")
    p.add_argument("--span", type=parse_positive, default=DEFAULT_SPAN_S, metavar="SECONDS",
                   help=f"analysis window: the last SECONDS of ECG the default method fits its "
                        "model on (every 30 s) and other methods analyse at every update (default "
                        f"{DEFAULT_SPAN_S:g}, at least {WARMUP_S:g})")
    p.add_argument("--hop", type=parse_positive, default=DEFAULT_HOP_S, metavar="SECONDS",
                   help=f"stream time between updates (default {DEFAULT_HOP_S:g}; a divisor of 16 "
                        "makes every rate window end on an update)")
    p.add_argument("--delay", type=float, default=DEFAULT_DELAY_S, metavar="SECONDS",
                   help=f"EDR is emitted up to SECONDS before the stream's end (default "
                        f"{DEFAULT_DELAY_S:g}); an EDR sample is out within delay + hop. The "
                        "default method's filter reaches delay - 2 s into the ECG after a point: "
                        "a shorter delay filters less")
    p.add_argument("--seed", type=int, default=0, help="random seed of the method (default 0)")
    p.add_argument("--quiet", action="store_true", help="no live line per update")
    return p


def _check_args(args) -> None:
    if (args.record is not None) + (args.lsl is not None) != 1:
        raise _OptionError("give exactly one source: a RECORD, '-' (standard input) or --lsl NAME")
    if args.record == "-" and args.fs is None:
        raise _OptionError("standard input needs --fs HZ (the sampling rate)")
    if args.record not in (None, "-") and args.fs is not None and not args.record.lower().endswith(
            (".csv", ".tsv", ".txt")):
        raise _OptionError("--fs applies to standard input or CSV records only")
    if args.columns is not None and args.record not in (None, "-"):
        raise _OptionError("--columns applies to standard input or --lsl; a record gives its ECG "
                           "leads (choose one with --lead)")
    if args.method not in METHOD_NAMES:
        raise _OptionError(f"--method: unknown method {args.method!r}; valid methods are "
                           f"{', '.join(METHOD_NAMES)}")
    if isinstance(args.sigma2, str) and canonical_criterion(args.sigma2) is None:
        names = sorted(set(CRITERION_NAMES) | {a for a in CRITERION_NAMES.values() if a})
        raise _OptionError(f"--sigma2: {args.sigma2!r} is neither a number > 0 nor a criterion; "
                           f"valid criteria are {', '.join(names)}")
    for path, flag in ((args.output, "-o/--output"), (args.rates, "--rates")):
        if path is None:
            continue
        out = os.path.abspath(path)
        if os.path.isdir(out):
            raise _OptionError(f"{flag} {path} is a folder")
        if not os.path.isdir(os.path.dirname(out)):
            raise _OptionError(f"{flag} {path}: folder does not exist")
        if args.record not in (None, "-") and os.path.abspath(args.record) == out:
            raise _OptionError(f"{flag} {path} is the input record")
    if args.rates is not None and os.path.abspath(args.rates) == os.path.abspath(args.output):
        raise _OptionError("-o/--output and --rates name the same file")


def _open_source(args, stop, warn):
    """The source the options name (:mod:`edr.stream.sources`)."""
    from edr.stream.sources import open_lsl, open_record, open_stdin

    if args.lsl is not None:
        return open_lsl(args.lsl, columns=args.columns, timeout=args.lsl_timeout, stop=stop,
                        warn=warn)
    if args.record == "-":
        return open_stdin(sys.stdin, args.fs, columns=args.columns, stop=stop, warn=warn)
    return open_record(args.record, fs=args.fs, speed=args.speed, stop=stop, warn=warn)


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


def run(args, out=None) -> int:
    """Stream the source through :class:`StreamingEDR` into the outputs, written as it runs
    (:mod:`edr.stream.session`); SIGINT and SIGTERM end it as the end of the input does.
    Returns the number of EDR rows."""
    from edr.methods import get_method
    from edr.stream.session import run_stream
    from edr.stream.sinks import StreamOutputs
    from edr.stream.stopping import StopFlag, Stopped, stop_on_signals

    out = sys.stdout if out is None else out
    with stop_on_signals(StopFlag()) as stop:
        try:
            source = _open_source(args, stop, _warn)
        except Stopped as exc:
            _warn(f"summary: no ECG read; ended by {exc}")
            return 0
        kw = {"sigma2": args.sigma2} if get_method(args.method).uses_sigma2 else {}
        stream = StreamingEDR(source.fs, leads=source.names, method=args.method, lead=args.lead,
                              span_s=args.span, hop_s=args.hop, delay_s=args.delay,
                              random_state=args.seed, **kw)
        live = None if args.quiet else (lambda u: print(_live_line(u), file=out, flush=True))
        with StreamOutputs(args.output, args.rates, input_fd=_stdin_fd(args)) as outputs:
            report = run_stream(source, stream, outputs, stop=stop, on_update=live)
    if report.rows == 0 and not stop.is_set():
        raise SignalError(f"the stream ({report.seconds:.1f} s at fs={source.fs:g} Hz) gave no "
                          f"EDR: at least {WARMUP_S:g} s of ECG with enough beats are needed")
    _warn(report.line())
    return report.rows


def main(argv: Sequence[str] | None = None, *, prog: str = PROG) -> int:
    """Entry point: 0 ok, 2 bad input (one line on stderr, no output file), 1 internal error,
    130 interrupted."""
    argv = list(sys.argv[1:] if argv is None else argv)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        args = build_parser(prog).parse_args(argv)
        _check_args(args)
        run(args)
    except (EDRError, OSError, ValueError) as exc:
        msg = " ".join(str(exc).split()) or type(exc).__name__
        if isinstance(exc, FileNotFoundError) and exc.filename and str(exc.filename) not in msg:
            msg = f"{msg}: {exc.filename}"
        print(f"{prog}: error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if os.environ.get("EDR_DEBUG"):
            raise
        print(f"{prog}: internal error: {type(exc).__name__}: {' '.join(str(exc).split())} "
              "(set EDR_DEBUG=1 for the traceback)", file=sys.stderr)
        return 1
    return 0
