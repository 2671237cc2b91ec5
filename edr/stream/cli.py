"""``python -m edr.stream`` (also ``edr stream``): real-time EDR from a record, standard input or
an LSL stream, through :class:`edr.stream.StreamingEDR`.

A thin layer: it parses the options, opens the source (every ECG channel of a replayed record,
the columns of a CSV on standard input, the channels of a Lab Streaming Layer stream), pushes
its blocks into the engine, prints one line per update and writes the CSV
``time_s,edr,rate_bpm,quality`` (each EDR sample with the last rate reported when it was
emitted) and optionally one row per rate window (``--rates``). Bad input: one line on stderr,
exit code 2, no output file (the protocol of every ``edr`` command line, :mod:`edr.cli_core`).
"""

from __future__ import annotations

import argparse
import math
import sys
import time as _time
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path

import numpy as np

from edr.cli_core import (
    OptionError,
    Parser,
    check_method,
    check_sigma2,
    finite_number,
    integer,
    positive_number,
    rate_hz,
    run_command,
    sigma2_value,
)
from edr.errors import SignalError
from edr.io.paths import record_files
from edr.io.targets import check_targets
from edr.names import DEFAULT_METHOD, DEFAULT_SIGMA2, METHOD_NAMES, sigma2_help
from edr.stream.engine import (
    DEFAULT_DELAY_S,
    DEFAULT_HOP_S,
    DEFAULT_SPAN_S,
    RESELECT_S,
    WARMUP_S,
    StreamingEDR,
)

__all__ = ["build_parser", "main"]

PROG = "python -m edr.stream"
BLOCK_S = 0.25
"""Replay and standard-input block length (s)."""
FLAGS = {"lead": "--lead", "method": "--method", "sigma2": "--sigma2", "span_s": "--span",
         "hop_s": "--hop", "delay_s": "--delay"}
"""Engine parameter name -> the flag, for messages (:func:`edr.cli_core.one_line`)."""


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
                        "ECG lead; or '-' for CSV rows on standard input, one column per ECG "
                        "channel (an optional header row names them)")
    p.add_argument("-o", "--output", required=True, metavar="OUT.csv",
                   help="EDR as CSV time_s,edr,rate_bpm,quality on the 4 Hz grid; rate_bpm and "
                        "quality are those of the last rate window reported when the sample was "
                        "emitted (nan where the quality is too low to give a rate)")
    p.add_argument("--rates", metavar="RATES.csv",
                   help="also write one row per 32 s rate window: time_s (its centre), rate_bpm, "
                        "quality, reported_s (stream time of the update that reported it)")
    p.add_argument("--speed", type=_speed, default=math.inf, metavar="FACTOR|max",
                   help="replay speed: 1 = real time, max = as fast as possible (default)")
    p.add_argument("--fs", type=rate_hz, metavar="HZ",
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
    return p


def _check_args(args) -> None:
    if (args.record is not None) + (args.lsl is not None) != 1:
        raise OptionError("give exactly one source: a RECORD, '-' (standard input) or --lsl NAME")
    if args.record == "-" and args.fs is None:
        raise OptionError("standard input needs --fs HZ (the sampling rate)")
    if args.record not in (None, "-") and args.fs is not None and not args.record.lower().endswith(
            (".csv", ".tsv", ".txt")):
        raise OptionError("--fs applies to standard input or CSV records only")
    if args.columns is not None and args.record not in (None, "-"):
        raise OptionError("--columns applies to standard input or --lsl; a record gives its ECG "
                          "leads (choose one with --lead)")
    check_method(args.method)
    check_sigma2(args.sigma2)
    targets = {flag: path for flag, path in (("-o/--output", args.output), ("--rates", args.rates))
               if path is not None}
    check_targets(targets, record_files(args.record) if args.record not in (None, "-") else ())
    for flag, path in targets.items():  # the CSV is written as it streams: no folder is created
        if not Path(path).absolute().parent.is_dir():
            raise OptionError(f"{flag}: folder of {path!r} does not exist")


def _record_source(args):
    """(fs, channel names, iterator of (n, channels) blocks) of a record replayed at
    ``args.speed``."""
    from edr.io import check_record_path, read_record

    check_record_path(args.record)
    rec = read_record(args.record, fs=args.fs)
    leads = dict(rec.leads or {rec.ecg_channel: rec.ecg})
    names = [rec.ecg_channel] + [n for n in leads if n != rec.ecg_channel]
    x = np.column_stack([np.asarray(leads[n], dtype=float) for n in names])
    return rec.fs, names, _paced(x, rec.fs, args.speed)


def _paced(x, fs: float, speed: float):
    block = max(int(round(fs * BLOCK_S)), 1)
    t0 = _time.monotonic()
    for i in range(0, x.shape[0], block):
        if math.isfinite(speed):
            wait = t0 + i / fs / speed - _time.monotonic()
            if wait > 0:
                _time.sleep(wait)
        yield x[i:i + block]


def _stdin_source(args, stream=None):
    """(fs, channel names, iterator of blocks) of CSV rows on standard input."""
    stream = sys.stdin if stream is None else stream
    lines = enumerate(stream, 1)
    names, first = None, None
    for lineno, line in lines:
        parts = [p.strip() for p in line.replace(";", ",").split(",")]
        if line.strip():
            try:
                first = [float(p) for p in parts]
            except ValueError:
                if lineno > 1:
                    raise OptionError(f"standard input line {lineno}: not numbers: "
                                      f"{line.strip()!r}") from None
                names = parts  # a header row
                continue
            break
    if first is None:
        raise SignalError("standard input holds no samples")
    n_cols = len(first)
    cols = args.columns if args.columns is not None else list(range(n_cols))
    if max(cols) >= n_cols:
        raise OptionError(f"standard input has {n_cols} column(s); --columns {max(cols)} is "
                          "not there")
    names = [names[c] if names and c < len(names) and names[c] else f"ch{c}" for c in cols]
    block = max(int(round(args.fs * BLOCK_S)), 1)

    def gen():
        buf = [[first[c] for c in cols]]
        for lineno, line in lines:
            if not line.strip():
                continue
            parts = line.replace(";", ",").split(",")
            try:
                row = [float(parts[c]) for c in cols]
            except (ValueError, IndexError):
                raise OptionError(f"standard input line {lineno}: expected {n_cols} numbers, got "
                                  f"{line.strip()!r}") from None
            buf.append(row)
            if len(buf) >= block:
                yield np.asarray(buf)
                buf = []
        if buf:
            yield np.asarray(buf)
    return args.fs, names, gen()


def _lsl_source(args):
    """(fs, channel names, iterator of blocks) of an LSL stream; ends after ``--lsl-timeout``
    seconds without data."""
    try:
        import pylsl
    except Exception as exc:  # ImportError, or liblsl that cannot load (RuntimeError)
        raise OptionError(f"--lsl needs pylsl with a loadable liblsl (pip install "
                          f"'kpca-edr[stream]'): {exc}") from None
    found = pylsl.resolve_byprop("name", args.lsl, 1, args.lsl_timeout)
    if not found:
        raise OptionError(f"no LSL stream named {args.lsl!r} found within {args.lsl_timeout:g} s")
    info = found[0]
    fs = float(info.nominal_srate())
    if not fs > 0:
        raise OptionError(f"LSL stream {args.lsl!r} has an irregular rate; a nominal rate "
                          "is needed")
    n_ch = info.channel_count()
    cols = args.columns if args.columns is not None else list(range(n_ch))
    if max(cols) >= n_ch:
        raise OptionError(f"LSL stream {args.lsl!r} has {n_ch} channel(s); --columns "
                          f"{max(cols)} is not there")
    inlet = pylsl.StreamInlet(info, max_buflen=60)

    def gen():
        idle = _time.monotonic()
        while True:
            data, _ = inlet.pull_chunk(timeout=0.2, max_samples=4096)
            if data:
                idle = _time.monotonic()
                yield np.asarray(data, dtype=float)[:, cols]
            elif _time.monotonic() - idle > args.lsl_timeout:
                return  # the outlet stopped sending: end of stream
    return fs, [f"ch{c}" for c in cols], gen()


def _live_line(u) -> str:
    if u.rate_bpm.size:
        rate, q = u.rate_bpm[-1], u.quality[-1]
        text = "  --  " if not np.isfinite(rate) else f"{rate:6.1f}"
        return f"t={u.time_s:9.1f} s  rate={text} bpm  quality={q:.2f}"
    return f"t={u.time_s:9.1f} s  {u.edr.size} EDR samples"


def run(args, out=None) -> int:
    """Stream the source through :class:`StreamingEDR`; returns the number of EDR rows."""
    from edr.io.writers import atomic_path

    out = sys.stdout if out is None else out
    if args.lsl is not None:
        fs, names, blocks = _lsl_source(args)
    elif args.record == "-":
        fs, names, blocks = _stdin_source(args)
    else:
        fs, names, blocks = _record_source(args)
    from edr.methods import get_method

    kw = {"sigma2": args.sigma2} if get_method(args.method).uses_sigma2 else {}
    stream = StreamingEDR(fs, leads=names, method=args.method, lead=args.lead, span_s=args.span,
                          hop_s=args.hop, delay_s=args.delay, random_state=args.seed, **kw)
    n_rows = 0
    rate, quality = math.nan, math.nan
    with ExitStack() as files:
        f = files.enter_context(open(files.enter_context(atomic_path(args.output)), "w"))
        fr = (files.enter_context(open(files.enter_context(atomic_path(args.rates)), "w"))
              if args.rates else None)
        f.write("time_s,edr,rate_bpm,quality\n")
        if fr:
            fr.write("time_s,rate_bpm,quality,reported_s\n")

        def emit(updates):
            nonlocal n_rows, rate, quality
            for u in updates:
                for t, v in zip(u.edr_time, u.edr, strict=True):
                    f.write(f"{t:.6f},{v:.9g},{rate:.6g},{quality:.4f}\n")
                n_rows += u.edr.size
                for t, b, q in zip(u.rate_time, u.rate_bpm, u.quality, strict=True):
                    if fr:
                        fr.write(f"{t:.3f},{b:.6g},{q:.4f},{u.time_s:.3f}\n")
                    rate, quality = b, q
                if not args.quiet:
                    print(_live_line(u), file=out, flush=True)

        try:
            for block in blocks:
                emit(stream.push(block))
        except KeyboardInterrupt:  # the end of a live stream: keep what was received
            pass
        emit(stream.flush())
        if n_rows == 0:
            raise SignalError(f"the stream ({stream.n_samples / fs:.1f} s at fs={fs:g} Hz) gave no "
                              f"EDR: at least {WARMUP_S:g} s of ECG with enough beats are needed")
    return n_rows


def _stream(argv: list[str], prog: str) -> int:
    args = build_parser(prog).parse_args(argv)
    _check_args(args)
    run(args)
    return 0


def main(argv: Sequence[str] | None = None, *, prog: str = PROG) -> int:
    """Entry point: 0 ok, 2 bad input (one line on stderr, no output file), 1 internal error,
    130 interrupted (:func:`edr.cli_core.run_command`)."""
    return run_command(prog, lambda args: _stream(args, prog), argv, flags=FLAGS)
