"""``python -m edr.extract record.dat`` (also ``edr extract``): EDR from one recording.

Reads the record (:func:`edr.io.read_record`), extracts the respiration
(:func:`edr.pipeline.extract_edr`), writes ``time_s,edr`` as CSV (default
``<record>_edr.csv`` in the current directory) and optionally a JSON summary
and a figure, and prints a short summary. When the record has a reference
respiration the summary scores the EDR against it by the evaluation protocol
(:func:`edr.evaluate.metrics.score`).

Several records (or glob patterns, expanded here when the shell did not) run in one
process: ``python -m edr.extract a.dat b.dat 'data/*.hea' -o OUTDIR/`` writes
``OUTDIR/<record>_edr.csv`` (the single-record default name) and
``OUTDIR/<record>_edr.json`` per record, skips records whose outputs are complete
(unless ``--overwrite``), shows a progress bar on stderr, goes on past a failing
record and prints one table (record, duration, beats, sigma2, rate, status) at the
end; exit code 2 if any record failed (:func:`run_many`).

``--demo`` needs no data: it simulates a 5-minute record with a known
respiration (:func:`edr.simulate.simulate_recording`), extracts, scores
against the truth and writes ``demo_output/edr_demo.{csv,json,png}``.

Bad input (missing or unreadable file, unknown channel, too few beats, an
unsupported sampling rate, a bad option value, an output path that cannot be
written) prints ONE line on stderr and exits with code 2; an unexpected
internal error prints one line and exits with code 1. Order of work:

1. options are parsed and checked against the known names (no heavy import:
   a bad option or a missing file fails in well under a second);
2. the record path is checked (:func:`edr.io.paths.check_record_path`) and
   every output target is checked (not a folder, not the input, not twice,
   its folder exists or can be created and is writable);
3. the record is read and the EDR extracted (NumPy, SciPy, wfdb, Numba are
   imported here; NeuroKit2 only by methods and detectors that need it);
4. all outputs are written to temporary files next to their targets, given
   the permissions of a file created under the user's umask, and renamed
   into place only when every one of them is complete: all outputs or none.
"""

from __future__ import annotations

import argparse
import copy
import glob
import math
import os
import re
import sys
import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from edr.argtypes import (
    CRITERION_NAMES,
    DEFAULT_SIGMA2,
    METHOD_NAMES,
    canonical_criterion,
    parse_rate_hz,
    parse_sigma2,
    sigma2_help,
)
from edr.errors import EDRError

__all__ = ["build_parser", "main", "run_many"]

#: Records at least this long (s) show a progress bar on stderr.
PROGRESS_MIN_DURATION_S = 1800.0
#: The ``--demo`` record: duration (s) and sampling rate (Hz).
DEMO_DURATION_S = 300.0
DEMO_FS = 250.0
DEMO_DIR = Path("demo_output")

#: The default ``--method`` (the pipeline's).
DEFAULT_METHOD = "kpca_fusion"
#: Valid ``--solver`` values.
SOLVER_NAMES = ("dense", "fs2")
#: ``--n-support`` default (the FS2 default of the methods).
DEFAULT_N_SUPPORT = 200
#: Shortest and longest ``--window`` (s), the pipeline's limits.
MIN_WINDOW_S = 20.0
MAX_WINDOW_S = 1800.0
#: ``--plot`` suffixes that write the interactive HTML view (:mod:`edr.plots_html`).
HTML_SUFFIXES = (".html", ".htm")
#: Figure formats accepted by ``--plot``: static images, and the interactive HTML view.
PLOT_SUFFIXES = (".png", ".pdf", ".svg", ".jpg", ".jpeg", ".eps", ".ps", ".tif", ".tiff",
                 *HTML_SUFFIXES)

_FLAGS = {"csv": "-o/--output", "json": "--json", "plot": "--plot"}
# API names in messages of the library -> the command-line flag a user can act on
_API_TO_FLAG = [
    (re.compile(r"\bwindow_s\b=?"), "--window "),
    (re.compile(r"\bn_support\b=?"), "--n-support "),
    (re.compile(r"\b(channel|solver|method|lead|sigma2)="), r"--\1 "),
]


class _OptionError(ValueError):
    """A bad command-line option (raised instead of argparse's usage-and-exit)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit code 2, like every other bad input
        raise _OptionError(message)


def _window(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (math.isfinite(value) and MIN_WINDOW_S <= value <= MAX_WINDOW_S):
        raise argparse.ArgumentTypeError(
            f"must be a number of seconds from {MIN_WINDOW_S:g} to {MAX_WINDOW_S:g}, got "
            f"{text!r} (longer windows make the kernel matrix too large: for one model over the "
            "whole record use --solver fs2 without --window)")
    return value


def _n_support(text: str) -> int:
    """``--n-support``: an integer >= 2 (the upper bound, the beat count, is checked by the
    pipeline)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 2:
        raise argparse.ArgumentTypeError(f"must be an integer >= 2, got {text!r}")
    return value


def build_parser(prog: str = "python -m edr.extract") -> argparse.ArgumentParser:
    """The argument parser of the ``extract`` command."""
    p = _Parser(
        prog=prog,
        description="Extract the respiration from an ECG recording (WFDB, EDF or CSV).",
        epilog="Example: %(prog)s bidmc01.dat --plot bidmc01.png   |   %(prog)s --demo",
    )
    p.add_argument("record", nargs="*", metavar="RECORD",
                   help="record file: WFDB (rec, rec.hea, rec.dat), EDF/EDF+/BDF (.edf, .bdf) or "
                        "CSV (.csv, .tsv, .txt); several records or glob patterns ('data/*.hea') "
                        "are processed one after the other in one process, each into "
                        "OUTDIR/<record>_edr.csv and .json")
    p.add_argument("-o", "--output", metavar="OUT.csv|OUTDIR/",
                   help="EDR as CSV time_s,edr,rate_bpm,quality on the 4 Hz grid; rate_bpm is "
                        "empty (nan) where the quality is too low to give a rate (default: "
                        "<record>_edr.csv in the current directory); with several records a folder "
                        "(default: the current directory). A record's outputs are written once "
                        "complete, all or none (edr stream writes as it runs)")
    p.add_argument("--overwrite", action="store_true",
                   help="several records: recompute records whose outputs exist (default: skip "
                        "them, so an interrupted run resumes)")
    p.add_argument("--method", default=DEFAULT_METHOD, metavar="NAME",
                   help=f"EDR method: {', '.join(METHOD_NAMES)} (default {DEFAULT_METHOD}: kernel "
                        "PCA components, R amplitude and QRS area fused by quality; kpca is the "
                        "first kernel principal component alone)")
    p.add_argument("--sigma2", type=parse_sigma2, default=DEFAULT_SIGMA2, metavar="CRITERION|VALUE",
                   help=f"kernel width: a selection criterion ({sigma2_help()}) or a fixed "
                        f"value > 0 (default {DEFAULT_SIGMA2}; mdd is the paper's exact "
                        "selection)")
    p.add_argument("--channel", metavar="NAME",
                   help="ECG channel read as the record's lead (any case; default: the first "
                        "of II, MLII, ECG, ECG1, EKG, V, V1-V6, I, MLI, III, ... that exists); "
                        "the other ECG channels are read as further leads")
    p.add_argument("--ref-channel", metavar="NAME",
                   help="reference respiration channel the EDR is scored against (MSC, |r|, "
                        "rate error); default: the first respiration name found: RESP, RSP, "
                        "RESPIRATION, IP, thorax belts (THOR, CHEST, RIP THORAX), their sum, "
                        "abdomen belts (ABDO, ABD), flow (AIRFLOW, FLOW, NASAL), CO2 (CO2, ETCO2, "
                        "CAPNO); any case")
    p.add_argument("--fs", type=parse_rate_hz, metavar="HZ",
                   help="sampling rate in Hz: needed for a CSV file without a time column; "
                        "for other files it must agree with the rate they state")
    p.add_argument("--lead", metavar="NAME|auto|fuse|multilead",
                   help="lead used by the method: an ECG lead name of the record, 'auto' (the best "
                        "lead per window), 'fuse' (every usable lead, fused by quality) or "
                        "'multilead' (one kernel PCA of all leads' QRS complexes; kernel methods "
                        "only); default: fuse when the record has several ECG leads, else its "
                        "ECG lead")
    p.add_argument("--window", type=_window, metavar="SECONDS",
                   help=f"process in sliding windows of this length, {MIN_WINDOW_S:g} to "
                        f"{MAX_WINDOW_S:g} s, overlapping by 25%% (sigma2 chosen per window; "
                        "default: the whole record as one window up to 600 s, longer records in "
                        "300 s windows); --solver fs2 fits one model to the whole record instead")
    p.add_argument("--solver", default="dense", metavar="|".join(SOLVER_NAMES),
                   help="kernel PCA solver: 'dense' (per window, default) or 'fs2' (one fixed-size "
                        "FS2 + Nystrom model over all beats of the whole record)")
    p.add_argument("--n-support", type=_n_support, metavar="M",
                   help=f"--solver fs2: number of support vectors (default {DEFAULT_N_SUPPORT}, "
                        "at most the valid beats - 1)")
    p.add_argument("--plot", metavar="OUT.png|OUT.html",
                   help="write the record figure: rate over the whole record with its quality "
                        "and the withheld or masked stretches, a representative minute of ECG "
                        "(every beat marked used or dropped) and of EDR vs reference, the scores "
                        "and the sigma2 choice; format from the suffix: "
                        f"{', '.join(PLOT_SUFFIXES)}; .html is an interactive view (zoom, "
                        "hover; needs the [html] extra)")
    p.add_argument("--json", metavar="OUT.json",
                   help="write a JSON summary (parameters, sigma2, beats, scores)")
    p.add_argument("--demo", action="store_true",
                   help=f"no data needed: simulate a {DEMO_DURATION_S / 60:g}-minute record with "
                        "known respiration, extract, compare with the truth, write "
                        f"{DEMO_DIR}/edr_demo.csv/.json/.png")
    p.add_argument("--seed", type=int, default=0, metavar="INT",
                   help="random seed of the method's sigma2 selection and of the --demo record "
                        "(default 0); the same seed gives the same output")
    return p


def _check_options(args) -> None:
    """Reject unknown names and option combinations before anything is read (no heavy import)."""
    if args.method not in METHOD_NAMES:
        raise _OptionError(f"--method: unknown method {args.method!r}; valid methods are "
                           f"{', '.join(METHOD_NAMES)}")
    if args.solver not in SOLVER_NAMES:
        raise _OptionError(f"--solver: unknown solver {args.solver!r}; valid solvers are "
                           f"{', '.join(SOLVER_NAMES)}")
    if args.n_support is not None and args.solver != "fs2":
        raise _OptionError(f"--n-support applies to --solver fs2 only (got --solver {args.solver})")
    if isinstance(args.sigma2, str) and canonical_criterion(args.sigma2) is None:
        names = sorted(set(CRITERION_NAMES) | {a for a in CRITERION_NAMES.values() if a})
        raise _OptionError(f"--sigma2: {args.sigma2!r} is neither a number > 0 nor a criterion; "
                           f"valid criteria are {', '.join(names)}")
    if args.demo:
        if args.record:
            raise _OptionError(f"give either a record or --demo, not both (record {args.record!r})")
        for flag, value in (("--fs", args.fs), ("--ref-channel", args.ref_channel)):
            if value is not None:
                raise _OptionError(f"{flag} applies to a record file, not to --demo (scored "
                                   "against its simulated respiration)")
    elif not args.record:
        raise _OptionError("a record file is required (or --demo)")


def _record_name(record: str) -> str:
    """The name :func:`edr.io.read_record` will give the record (for the default output name)."""
    from edr.io.paths import record_kind, resolve_record

    p = Path(record)
    return resolve_record(p).name if record_kind(p) == "wfdb" else p.stem


def _outputs(args) -> dict[str, Path]:
    if args.demo:
        csv = Path(args.output) if args.output else DEMO_DIR / "edr_demo.csv"
        return {
            "csv": csv,
            "json": Path(args.json) if args.json else DEMO_DIR / "edr_demo.json",
            "plot": Path(args.plot) if args.plot else DEMO_DIR / "edr_demo.png",
        }
    out = {"csv": Path(args.output) if args.output
           else Path(f"{_record_name(args.record)}_edr.csv")}
    if args.json:
        out["json"] = Path(args.json)
    if args.plot:
        out["plot"] = Path(args.plot)
    return out


def _input_files(record: str) -> list[Path]:
    """Files the record is read from (outputs must not overwrite them)."""
    p = Path(record)
    files = [p]
    from edr.io.paths import record_kind, resolve_record

    if record_kind(p) == "wfdb":
        base = resolve_record(p)
        files += list(base.parent.glob(base.name + ".*"))
    return [f for f in files if f.is_file()]


def _check_outputs(outputs: dict[str, Path], inputs: Sequence[Path]) -> None:
    """Every output target can be written: raises :class:`_OptionError` naming the flag and the
    path.

    A target must not be a folder, an input file or another output; its
    folder must exist as a writable folder or be creatable in a writable one.
    """
    seen: dict[Path, str] = {}
    for key, path in outputs.items():
        flag = _FLAGS[key]
        if key == "plot" and path.suffix.lower() not in PLOT_SUFFIXES:
            raise _OptionError(f"{flag}: cannot tell the figure format of {str(path)!r}; "
                               f"use one of {', '.join(PLOT_SUFFIXES)}")
        if key == "plot" and path.suffix.lower() in HTML_SUFFIXES:
            from edr.plots_html import require_plotly

            try:
                require_plotly()
            except EDRError as exc:
                raise _OptionError(f"{flag}: {exc}") from exc
        if path.is_dir():
            raise _OptionError(f"{flag}: output path {str(path)!r} is a folder; give a file name")
        if path.exists() and not path.is_file():
            raise _OptionError(f"{flag}: output path {str(path)!r} exists and is not a "
                               "regular file")
        resolved = path.resolve()
        if resolved in seen:
            raise _OptionError(f"{flag} and {seen[resolved]} both write {str(path)!r}")
        seen[resolved] = flag
        for f in inputs:
            if path.exists() and os.path.samefile(path, f):
                raise _OptionError(f"{flag}: output path {str(path)!r} is the input file "
                                   f"{str(f)!r}")
        folder = path.parent
        existing = folder
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        if not existing.is_dir():
            raise _OptionError(f"{flag}: cannot create the folder of {str(path)!r}: "
                               f"{str(existing)!r} is a file")
        if not os.access(existing, os.W_OK | os.X_OK):
            raise _OptionError(f"{flag}: folder {str(existing)!r} is not writable (output "
                               f"{str(path)!r})")


def _write_all(outputs: dict[str, Path], writers: dict) -> None:
    """Write every output to a temporary file, then rename them all; on failure leave nothing.

    ``writers[key](tmp_path)`` writes output ``key``. Folders created here are
    removed again when anything fails.
    """
    from edr.io.writers import new_file_mode, temporary_path

    created: list[Path] = []
    temps: dict[str, Path] = {}
    try:
        for path in outputs.values():
            missing = []
            folder = path.parent
            while not folder.exists():
                missing.append(folder)
                folder = folder.parent
            for d in reversed(missing):
                try:
                    d.mkdir()
                except FileExistsError:  # another record's thread (run_many) made it meanwhile
                    continue
                created.append(d)
        for key, path in outputs.items():
            temps[key] = temporary_path(path)
            writers[key](temps[key])
            os.chmod(temps[key], new_file_mode(path))
        for key, path in outputs.items():  # every output is complete: move them into place
            os.replace(temps.pop(key), path)
    except BaseException:
        for tmp in temps.values():
            tmp.unlink(missing_ok=True)
        for d in reversed(created):
            try:
                d.rmdir()
            except OSError:
                pass
        raise


def _load(args):
    if args.demo:
        from edr.simulate import simulate_recording

        rec = simulate_recording(DEMO_DURATION_S, DEMO_FS, random_state=args.seed, name="edr_demo")
        if args.channel and args.channel != rec.ecg_channel:
            raise _OptionError(f"--channel: the demo record has only lead {rec.ecg_channel!r}, got "
                               f"{args.channel!r}")
        return rec
    from edr.io import read_record

    return read_record(args.record, args.channel, fs=args.fs, resp_channel=args.ref_channel)


def _fmt(x, spec=".2f") -> str:
    return "n/a" if x is None or (isinstance(x, float) and not math.isfinite(x)) else format(x,
                                                                                             spec)


def _summary_lines(rec, result, scores, scores_error, outputs, seconds, demo) -> list[str]:
    import numpy as np

    criterion = result.params.get("sigma2", None) if isinstance(result.params, dict) else None
    if result.sigma2 is None:
        sigma_txt = "not used by this method"
    elif isinstance(criterion, str):
        # the canonical key, as in the JSON summary and the figure; the alias typed in brackets
        key = str(getattr(result.selection, "criterion", None)
                  or canonical_criterion(criterion) or criterion)
        alias = CRITERION_NAMES.get(key)
        sigma_txt = f"{result.sigma2:.4g} (chosen by {key}" + (f" = {alias}" if alias else "") + ")"
    else:
        sigma_txt = f"{result.sigma2:.4g} (fixed)"
    if len(result.windows) > 1:
        sig = [w.sigma2 for w in result.windows if w.sigma2 is not None]
        if sig:
            sigma_txt += f"; {len(result.windows)} windows, median {float(np.median(sig)):.4g}"
        else:
            sigma_txt += f"; {len(result.windows)} windows"
    rate = np.asarray(result.rate_bpm, dtype=float)
    rate = rate[np.isfinite(rate)]
    source = rec.path or "simulated (edr.simulate)"
    lines = [
        f"record     {rec.name}  [{source}]  {rec.duration_s:.1f} s at {rec.fs:g} Hz",
        f"lead       {result.lead}  (channels: {', '.join(rec.channels)})",
        f"method     {result.method}, sigma2 = {sigma_txt}"
        + (f", one FS2 model (M = {result.params['n_support']})" if result.params.get("solver")
           == "fs2" else ""),
        f"beats      {result.n_beats} used, {result.n_beats_dropped} dropped",
        f"resp rate  median {_fmt(float(np.median(rate)) if rate.size else None, '.1f')} "
        f"breaths/min, given for {rate.size}/{np.size(result.rate_bpm)} windows of 32 s (quality "
        f">= {result.summary()['quality_threshold']:g})",
        f"status     {result.status}",
    ]
    lines += _unused_lines(rec, result)
    label = "vs truth " if demo else f"vs {rec.resp_channel}" if rec.resp_channel else "reference"
    if scores is not None:
        lines.append(f"{label:<10} MSC {scores.msc:.2f}, |r| {scores.corr:.2f}, "
                     f"rate error {_fmt(scores.rate_error_bpm, '.2f')} breaths/min")
    elif scores_error is not None:
        lines.append(f"{label:<10} not scored: {scores_error}")
    elif rec.resp is None:
        lines.append(f"{label:<10} none found among the channels; name it with --ref-channel "
                     "to score the EDR against it")
    lines.append(f"outputs    {', '.join(str(p) for p in outputs.values())}")
    lines.append(f"time       {seconds:.2f} s")
    return lines


def _unused_lines(rec, result) -> list[str]:
    """Summary lines naming the stretches without a usable lead and the windows skipped."""
    lines = []
    if result.masked:
        total = sum(b - a for a, b in result.masked)
        lines.append(f"masked     {', '.join(f'{a:.1f}-{b:.1f} s' for a, b in result.masked)} "
                     f"({total / rec.duration_s:.0%} of the record): every ECG lead flat or "
                     "missing; no EDR and no rate there")
    for w in result.windows:
        status = str(w.quality.get("status", ""))
        if status.startswith("skipped"):
            lines.append(f"skipped    window {w.start_s:.1f}-{w.end_s:.1f} s: "
                         f"{status.removeprefix('skipped: ')}")
    return lines


def _json_summary(rec, result, scores, outputs, argv) -> dict:
    return {
        "record": rec.name,
        "path": rec.path,
        "fs": rec.fs,
        "duration_s": rec.duration_s,
        "ecg_channel": rec.ecg_channel,
        "channels": list(rec.channels),
        "reference": rec.resp_channel,
        "result": result.summary(),
        "scores": None if scores is None else {
            "msc": scores.msc, "corr": scores.corr, "rate_error_bpm": scores.rate_error_bpm,
            "f_ref": scores.f_ref,
        },
        "outputs": {k: str(v) for k, v in outputs.items()},
        "argv": list(argv),
    }


def _cli_message(exc: BaseException) -> str:
    """One line: the exception's message with API names replaced by the flags."""
    message = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, FileNotFoundError) and exc.filename and str(exc.filename) not in message:
        message = f"{message}: {exc.filename}"
    for pattern, flag in _API_TO_FLAG:
        message = pattern.sub(flag, message)
    return message


def _naming_file(exc: Exception, path: str | None) -> Exception:
    """``exc`` with the record's file named first when its message does not name it."""
    message = str(exc)
    if not path or path in message:
        return exc
    try:
        return type(exc)(f"{path}: {message}")
    except TypeError:  # an exception class with another signature
        return ValueError(f"{path}: {message}")


def prepare(args) -> dict[str, Path]:
    """Steps 1-2 of the module docstring: options, record path and output targets; no heavy import.

    Returns the output targets. Raises on any problem (one-line message).
    """
    _check_options(args)
    if not args.demo:
        from edr.io.paths import check_record_path

        check_record_path(args.record)
    outputs = _outputs(args)
    _check_outputs(outputs, [] if args.demo else _input_files(args.record))
    return outputs


def _compute_and_write(args, argv: Sequence[str], outputs: dict[str, Path], *,
                       progress: bool | None = None):
    """Read, extract, score and write all outputs (or none).

    Returns ``(rec, result, scores, scores_error, summary)`` with ``summary``
    the JSON summary (:func:`_json_summary`).
    """
    rec = _load(args)

    from edr.pipeline import extract_edr

    if args.solver == "fs2" and progress is not False and sys.stderr.isatty():  # one model to fit
        print(f"fitting one FS2 model over every beat of {rec.name} ({rec.duration_s:.0f} s); "
              "this is the long step", file=sys.stderr, flush=True)
    try:
        result = extract_edr(
            rec,
            method=args.method,
            sigma2=args.sigma2,
            lead=args.lead,
            window_s=args.window,
            random_state=args.seed,
            progress=rec.duration_s >= PROGRESS_MIN_DURATION_S if progress is None else progress,
            solver=args.solver,
            n_support=args.n_support,
        )
    except (EDRError, ValueError) as exc:
        raise _naming_file(exc, rec.path) from exc
    scores = scores_error = None
    if rec.resp is not None:
        from edr.evaluate.metrics import score

        try:
            scores = score(result, rec)
        except (EDRError, ValueError) as exc:  # the EDR stands; only the comparison failed
            scores_error = str(exc).splitlines()[0]

    # Everything is computed: write all outputs, or none.
    from edr.io.writers import write_csv, write_json

    summary = _json_summary(rec, result, scores, outputs, argv)
    cols = result.grid_columns()
    writers = {"csv": lambda tmp: write_csv(tmp, cols["time_s"], cols["edr"],
                                            rate_bpm=cols["rate_bpm"],
                                            quality=cols["quality"])}
    if "json" in outputs:
        writers["json"] = lambda tmp: write_json(tmp, summary)
    if "plot" in outputs:
        def write_plot(tmp):
            if tmp.suffix.lower() in HTML_SUFFIXES:
                from edr.plots_html import write_record_html

                write_record_html(rec, result, tmp)
            else:
                from edr.plots import plot_record

                plot_record(rec, result, path=tmp)

        writers["plot"] = write_plot
    _write_all(outputs, writers)
    return rec, result, scores, scores_error, summary


def run(args, argv: Sequence[str], outputs: dict[str, Path] | None = None) -> list[str]:
    """Do the work of one invocation; returns the summary lines. Raises on bad input."""
    t0 = time.perf_counter()
    if outputs is None:
        outputs = prepare(args)
    rec, result, scores, scores_error, _ = _compute_and_write(args, argv, outputs)
    return _summary_lines(rec, result, scores, scores_error, outputs,
                          time.perf_counter() - t0, args.demo)


# ---------------------------------------------------------------------------------------------
# Several records in one process: python -m edr.extract a.dat b.dat 'data/*.hea' -o OUTDIR/

_GLOB_CHARS = re.compile(r"[*?\[]")


def _expand_records(patterns: Sequence[str]) -> tuple[list[str], bool]:
    """Glob patterns the shell left alone are expanded here (sorted); returns ``(records,
    any_glob)``.

    A pattern matching nothing is an option error. Matches that are not records
    (an annotation file such as ``rec.breath``, a folder) are dropped, and a WFDB
    record matched by several of its files (``rec.hea``, ``rec.dat``) is kept once.
    """
    from edr.io.paths import record_kind, resolve_record

    out: list[str] = []
    any_glob = False
    for pattern in patterns:
        if not _GLOB_CHARS.search(pattern) or os.path.exists(pattern):
            out.append(pattern)
            continue
        any_glob = True
        matches = sorted(glob.glob(pattern))
        if not matches:
            raise _OptionError(f"no file matches {pattern!r}")
        for m in matches:
            if os.path.isdir(m):
                continue
            if record_kind(m) == "wfdb":
                try:
                    resolve_record(m)
                except (EDRError, OSError):
                    continue
            out.append(m)
    seen: set[str] = set()
    unique = []
    for r in out:
        key = _record_key(r)
        if key not in seen:
            seen.add(key)
            unique.append(r)
    return unique, any_glob


def _record_key(record: str) -> str:
    """One key per record: a WFDB record's files (rec, rec.hea, rec.dat) share it."""
    from edr.io.paths import record_kind, resolve_record

    try:
        p = resolve_record(record) if record_kind(record) == "wfdb" else Path(record)
        return str(p.resolve())
    except (EDRError, OSError):
        return str(Path(record).resolve())


def _many_outdir(output: str | None) -> Path:
    """``-o`` of the several-records form: a folder (existing, or created when writing)."""
    if output is None:
        return Path(".")
    out = Path(output)
    if out.exists() and not out.is_dir():
        raise _OptionError(f"-o/--output: with several records give a folder, {output!r} is a file")
    if not out.exists() and not output.endswith(("/", os.sep)) and out.suffix.lower() == ".csv":
        raise _OptionError("-o/--output: with several records give a folder (e.g. "
                           f"{str(out.with_suffix(''))}/), got {output!r}")
    existing = out
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise _OptionError(f"-o/--output: cannot create the folder {output!r}: {str(existing)!r} "
                           "is a file")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise _OptionError(f"-o/--output: folder {str(existing)!r} is not writable")
    return out


def _complete(outputs: dict[str, Path]) -> dict | None:
    """The JSON summary when every output of a record exists and is complete, else None."""
    if not all(p.is_file() for p in outputs.values()):
        return None
    try:
        import json

        summary = json.loads(outputs["json"].read_text())
        return summary if isinstance(summary, dict) and "result" in summary else None
    except (OSError, ValueError):
        return None


def _row(name: str, summary: dict | None, status: str, seconds: float) -> dict:
    res = (summary or {}).get("result") or {}
    return {"record": name, "duration_s": (summary or {}).get("duration_s"),
            "beats": res.get("n_beats"),
            "sigma2": res.get("sigma2"), "rate_bpm": res.get("rate_bpm_median"), "status": status,
            "seconds": seconds}


def _table(rows: list[dict]) -> list[str]:
    def cell(v, spec):
        return "-" if v is None or (isinstance(v, float) and not math.isfinite(v)) else format(v,
                                                                                               spec)

    head = ("record", "duration_s", "beats", "sigma2", "rate_bpm", "time_s", "status")
    body = [(r["record"], cell(r["duration_s"], ".1f"), cell(r["beats"], "d"),
             cell(r["sigma2"], ".4g"),
             cell(r["rate_bpm"], ".1f"), cell(r["seconds"], ".2f"), r["status"]) for r in rows]
    widths = [max(len(head[i]), *(len(b[i]) for b in body)) for i in range(len(head) - 1)]
    fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths)) + "  {}"
    return [fmt.format(*head)] + [fmt.format(*b) for b in body]


#: records extracted at a time by :func:`run_many` (each in a thread of its own)
RECORDS_AHEAD = 2


def _ahead(jobs, done, start):
    """``(job, (done(job), None))`` for a job ``done`` answers (not None), else ``(job, (None,
    start(job)))``, in the order of ``jobs``; ``start`` is called up to :data:`RECORDS_AHEAD`
    jobs before the job is yielded, so the work of the next records overlaps this one's."""
    pending = deque()
    for job in jobs:
        answer = done(job)
        pending.append((job, (answer, None if answer is not None else start(job))))
        if len(pending) == RECORDS_AHEAD:
            yield pending.popleft()
    yield from pending


def _extract_one(args, argv, record, outputs):
    """``(summary, seconds)`` of one record of :func:`run_many` (its CSV and JSON written)."""
    t0 = time.perf_counter()
    one = copy.copy(args)
    one.record, one.output, one.json, one.plot = (record, str(outputs["csv"]),
                                                  str(outputs["json"]), None)
    prepare(one)
    return _compute_and_write(one, argv, outputs, progress=False)[4], time.perf_counter() - t0


def _extract_rows(args, argv, bar, pool, rows: list[dict]) -> bool:
    """Extract the jobs ``(record, name, outputs)`` of ``bar`` (:data:`RECORDS_AHEAD` at a time,
    in ``pool``), appending a summary-table row for each to ``rows``; whether interrupted."""
    for (_, name, _), (summary, attempt) in _ahead(
            bar, lambda job: None if args.overwrite else _complete(job[2]),
            lambda job: pool.submit(_extract_one, args, argv, job[0], job[2])):
        bar.set_postfix_str(name, refresh=False)
        t0 = time.perf_counter()
        interrupted = False
        if summary is not None:
            row = _row(name, summary, "skipped (outputs exist)", 0.0)
        else:
            try:
                summary, seconds = attempt.result()
                row = _row(name, summary, "ok", seconds)
            except KeyboardInterrupt:
                interrupted = True
                row = _row(name, None, "interrupted", time.perf_counter() - t0)
            except (EDRError, OSError, ValueError) as exc:
                row = _row(name, None, f"failed: {_cli_message(exc)}", time.perf_counter() - t0)
            except Exception as exc:
                if os.environ.get("EDR_DEBUG"):
                    raise
                row = _row(name, None,
                           f"failed: internal error: {type(exc).__name__}: {_cli_message(exc)}",
                           time.perf_counter() - t0)
        rows.append(row)
        bar.write(f"{name}: {row['status']}"
                  + (f" ({row['seconds']:.2f} s)" if row["seconds"] else ""),
                  file=sys.stderr)
        if interrupted:
            return True
    return False


def run_many(args, records: Sequence[str], argv: Sequence[str],
             prog: str = "python -m edr.extract") -> int:
    """Extract several records in one process; prints the summary table. Returns the exit code.

    Each record writes ``OUTDIR/<record>_edr.csv`` (the single-record default
    name) and ``OUTDIR/<record>_edr.json``, all or none. A record whose outputs
    are complete is skipped unless ``--overwrite``; a failing record is
    reported in the table and the run goes on (exit code 2 if any failed).
    """
    if args.demo:
        raise _OptionError("give either a record or --demo, not both (records "
                           f"{', '.join(records[:3])} ...)")
    for flag, value in (("--json", args.json), ("--plot", args.plot)):
        if value:
            raise _OptionError(f"{flag} applies to one record; with several records each record "
                               "gets OUTDIR/<record>_edr.csv and OUTDIR/<record>_edr.json")
    args.record = records[0]
    _check_options(args)
    outdir = _many_outdir(args.output)
    jobs = _planned_jobs(records, outdir)

    from tqdm import tqdm

    from kpca._blas import blas_limited_to_one_thread

    rows: list[dict] = []
    t_all = time.perf_counter()
    bar = tqdm(jobs, file=sys.stderr, unit="record", desc="extract", dynamic_ncols=True)
    # one BLAS limit around all records: a record's own limits then restore one thread, never
    # the default, while another record runs
    with blas_limited_to_one_thread(), ThreadPoolExecutor(max_workers=RECORDS_AHEAD) as pool:
        interrupted = _extract_rows(args, argv, bar, pool, rows)
        pool.shutdown(cancel_futures=True)
    bar.close()
    n_failed = sum(r["status"].startswith("failed") for r in rows)
    n_skipped = sum(r["status"].startswith("skipped") for r in rows)
    lines = _table(rows)
    lines.append(f"{len(rows)} record(s): {len(rows) - n_failed - n_skipped - interrupted} "
                 f"extracted, {n_skipped} skipped, {n_failed} failed; outputs in {outdir}; "
                 f"{time.perf_counter() - t_all:.2f} s")
    print("\n".join(lines))
    if interrupted:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    return 2 if n_failed else 0


def _planned_jobs(records: Sequence[str], outdir: Path) -> list[tuple[str, str, dict]]:
    """``(record, name, {"csv": path, "json": path})`` of each record under ``outdir``;
    _OptionError when two records would write the same outputs."""
    jobs = []
    names: dict[str, str] = {}
    for record in records:
        try:
            name = _record_name(record)
        except (EDRError, OSError):
            name = Path(record).stem
        if name in names:
            raise _OptionError(f"records {names[name]!r} and {record!r} would both write "
                               f"{str(outdir / (name + '_edr.csv'))!r}")
        names[name] = record
        jobs.append((record, name,
                     {"csv": outdir / f"{name}_edr.csv", "json": outdir / f"{name}_edr.json"}))
    return jobs


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m edr.extract") -> int:
    """Command-line entry point; returns the exit code.

    0 ok; 2 bad input (options, record, output targets; one line on stderr, no
    output file); 1 an unexpected internal error (one line on stderr, no output
    file; set ``EDR_DEBUG=1`` for the traceback); 130 interrupted.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    # One OpenBLAS thread, set before NumPy is first imported (a no-op when it already is, and
    # the user's own setting wins): the matrices of one record are small, the MDD draws run in
    # their own threads, and a threaded BLAS next to them oversubscribes the cores (a 726 x 726
    # eigensolve took seconds on a loaded 2-core machine). Same outputs, byte for byte
    # (docs/design.md "Start-up time").
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        args = build_parser(prog).parse_args(argv)
        records, any_glob = _expand_records(args.record)
        if len(records) > 1 or any_glob:
            return run_many(args, records, argv, prog)
        args.record = records[0] if records else None
        outputs = prepare(args)
        lines = run(args, argv, outputs)
    except (EDRError, OSError, ValueError) as exc:
        print(f"{prog}: error: {_cli_message(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug, not bad input: still one line, no partial output
        if os.environ.get("EDR_DEBUG"):
            raise
        print(f"{prog}: internal error: {type(exc).__name__}: {_cli_message(exc)} "
              f"(set EDR_DEBUG=1 for the traceback)", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
