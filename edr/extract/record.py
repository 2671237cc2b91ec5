"""One record of the ``extract`` command: its output targets, then read, extract, score and
write every output or none.

:func:`prepare` is step 2 of :mod:`edr.extract.cli`'s order of work (the record path and every
output target checked, nothing heavy imported); :func:`extract_and_write` is steps 3 and 4;
:func:`run_record` does both, under the record's lock (:func:`output_lock_path`), and returns
the summary lines.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from edr.cli_core import OptionError
from edr.cli_options import reference_options
from edr.errors import EDRError, OutputError, ReferenceWarning
from edr.extract.summary import json_summary, summary_lines
from edr.io.paths import check_record_path, record_files, record_name
from edr.io.targets import check_targets, write_all_or_none
from edr.quiet import recorded_warnings

__all__ = ["COMPILE_NOTE", "DEMO_DIR", "DEMO_DURATION_S", "DEMO_FS", "HTML_SUFFIXES",
           "OUTPUT_FLAGS", "PLOT_SUFFIXES", "PROGRESS_MIN_DURATION_S", "compile_note",
           "extract_and_write", "kernels_cold", "output_lock_path", "planned_outputs", "prepare",
           "run_record"]

#: Records at least this long (s) show a progress bar on stderr.
PROGRESS_MIN_DURATION_S = 1800.0
#: The ``--demo`` record: duration (s) and sampling rate (Hz).
DEMO_DURATION_S = 300.0
DEMO_FS = 250.0
DEMO_DIR = Path("demo_output")
#: ``--plot`` suffixes that write the interactive HTML view (:mod:`edr.plots_html`).
HTML_SUFFIXES = (".html", ".htm")
#: Figure formats accepted by ``--plot``: static images, and the interactive HTML view.
PLOT_SUFFIXES = (".png", ".pdf", ".svg", ".jpg", ".jpeg", ".eps", ".ps", ".tif", ".tiff",
                 *HTML_SUFFIXES)
#: Output key -> the flag that names it.
OUTPUT_FLAGS = {"csv": "-o/--output", "json": "--json", "plot": "--plot", "breaths": "--breaths",
                "breath_annotations": "--breath-annotations"}


def planned_outputs(args) -> dict[str, Path]:
    """The output targets of one invocation: ``{"csv": ..., "json": ..., "plot": ...,
    "breaths": ..., "breath_annotations": ...}`` (the ones asked for, and the CSV's default
    ``<record>_edr.csv``; the CSV, JSON and figure for ``--demo``)."""
    if args.demo:
        csv = Path(args.output) if args.output else DEMO_DIR / "edr_demo.csv"
        out = {
            "csv": csv,
            "json": Path(args.json) if args.json else DEMO_DIR / "edr_demo.json",
            "plot": Path(args.plot) if args.plot else DEMO_DIR / "edr_demo.png",
        }
    else:
        out = {"csv": Path(args.output) if args.output
               else Path(f"{record_name(args.record)}_edr.csv")}
    for key, value in (("json", args.json), ("plot", args.plot), ("breaths", args.breaths),
                       ("breath_annotations", args.breath_annotations)):
        if value:
            out[key] = Path(value)
    return out


def output_lock_path(outputs: dict[str, Path]) -> Path:
    """The lock of a record's outputs (:func:`edr.io.locks.output_lock`): its CSV's path with the
    suffix ``.lock`` (``<record>_edr.lock`` beside the default ``<record>_edr.csv``), held by a
    single run and by each record of a batch alike."""
    csv = outputs["csv"]
    return csv.with_name(csv.name + ".lock") if csv.suffix == ".lock" else csv.with_suffix(".lock")


def _check_plot_format(path: Path) -> None:
    flag = OUTPUT_FLAGS["plot"]
    if path.suffix.lower() not in PLOT_SUFFIXES:
        raise OptionError(f"{flag}: cannot tell the figure format of {str(path)!r}; "
                          f"use one of {', '.join(PLOT_SUFFIXES)}")
    if path.suffix.lower() in HTML_SUFFIXES:
        from edr.plots_html import require_plotly

        try:
            require_plotly()
        except EDRError as exc:
            raise OptionError(f"{flag}: {exc}") from exc


def _check_annotation_name(path: Path) -> None:
    """A WFDB annotation file is read by record name and extension: the target needs a suffix
    of letters and digits, and one that is not a WFDB record's own (``.hea``, ``.dat``)."""
    from edr.io.annotations import BREATH_ANNOTATION_EXTENSION

    flag = OUTPUT_FLAGS["breath_annotations"]
    ext = path.suffix.removeprefix(".")
    if not ext.isalnum() or not ext.isascii():
        raise OptionError(f"{flag}: {str(path)!r} needs an extension of letters and digits, "
                          f"the annotator's name that wfdb.rdann reads it by (e.g. "
                          f"{path.stem or 'rec'}.{BREATH_ANNOTATION_EXTENSION})")
    if ext.lower() in ("hea", "dat"):
        raise OptionError(f"{flag}: {str(path)!r} would be a WFDB record's own file; use "
                          f"{path.stem}.{BREATH_ANNOTATION_EXTENSION}")


def prepare(args) -> dict[str, Path]:
    """The record path and every output target checked (no heavy import); returns the targets.

    Raises on any problem (one-line message): a missing or unreadable record path
    (:func:`edr.io.paths.check_record_path`), a figure format that is not known, a target that
    cannot be written (:func:`edr.io.targets.check_targets`).
    """
    if not args.demo:
        check_record_path(args.record)
    outputs = planned_outputs(args)
    if "plot" in outputs:
        _check_plot_format(outputs["plot"])
    if "breath_annotations" in outputs:
        _check_annotation_name(outputs["breath_annotations"])
    check_targets({OUTPUT_FLAGS[k]: p for k, p in outputs.items()},
                  [] if args.demo else record_files(args.record))
    return outputs


def _load(args):
    """``(recording, notes)``: the record (or the demo), and one line per reference that was
    found but not used (printed on stderr as warnings; the EDR needs no reference)."""
    if args.demo:
        from edr.simulate import simulate_recording

        rec = simulate_recording(DEMO_DURATION_S, DEMO_FS, random_state=args.seed, name="edr_demo")
        if args.channel and args.channel != rec.ecg_channel:
            raise OptionError(f"--channel: the demo record has only lead {rec.ecg_channel!r}, got "
                              f"{args.channel!r}")
        return rec, []
    from edr.io import read_record

    side = _side_files(args)
    ref_file = side.pop("ref_file")
    options = reference_options(args)
    ref_channel = options.pop("resp_channel", None) if ref_file is not None else None
    with recorded_warnings(UserWarning) as caught:
        rec = read_record(args.record, args.channel, fs=args.fs, **side, **options)
    if ref_file is not None:
        from edr.io.reference_file import with_reference_file
        from edr.signal import RATE_WINDOW_S

        rec = with_reference_file(rec, ref_file, min_overlap_s=RATE_WINDOW_S,
                                  offset_s=args.ref_offset, fs=args.ref_fs, channel=ref_channel)
    for w in caught:  # the EDR needs no reference: one line each, and the run goes on
        print(f"warning: {' '.join(str(w.message).split())}", file=sys.stderr, flush=True)
    return rec, [" ".join(str(w.message).split()) for w in caught
                 if issubclass(w.category, ReferenceWarning)]


def _side_files(args) -> dict:
    """``{"breath_times": ..., "r_peaks": ..., "ref_file": ...}`` of this record: a pattern's
    placeholders filled in
    (:func:`edr.io.side_files.side_file`); FileNotFoundError when the file a pattern names for it
    is missing (an annotator name or a file is read, and its absence named, by the reader)."""
    from edr.io.side_files import side_file, side_file_form

    out = {}
    for key, flag in (("breath_times", "--breath-times"), ("r_peaks", "--r-peaks"),
                      ("ref_file", "--ref-file")):
        value = getattr(args, key, None)
        if value is not None and side_file_form(value) == "pattern":
            path = side_file(value, args.record)
            if not Path(path).is_file():
                raise FileNotFoundError(f"{flag} {value}: no file {path} for this record")
            value = path
        out[key] = value
    return out


def _naming_file(exc: Exception, path: str | None) -> Exception:
    """``exc`` with the record's file named first when its message does not name it."""
    message = str(exc)
    if not path or path in message:
        return exc
    try:
        return type(exc)(f"{path}: {message}")
    except TypeError:  # an exception class with another signature
        return ValueError(f"{path}: {message}")


def _extract_record(args, rec, progress: bool | None):
    from edr.pipeline import extract_edr

    if args.solver == "fs2" and progress is not False and sys.stderr.isatty():  # one model to fit
        print(f"fitting one FS2 model over every beat of {rec.name} ({rec.duration_s:.0f} s); "
              "this is the long step", file=sys.stderr, flush=True)
    try:
        return extract_edr(
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


def _scores(rec, result):
    """``(scores, None)`` against the record's reference (:func:`edr.scoring.score_reference`:
    the rate error alone against breath times without a respiration waveform), ``(None, why)``
    when the comparison failed (the EDR stands), ``(None, None)`` without a reference."""
    from edr.scoring import score_reference

    try:
        return score_reference(result, rec), None
    except (EDRError, ValueError) as exc:
        return None, str(exc).splitlines()[0]


def _writers(rec, result, summary, outputs, pending_figure=None) -> dict:
    """``{key: writer(tmp_path)}`` of every output asked for (the static figure's bytes from
    ``pending_figure``, an :class:`edr.figure_worker.PendingFigure`, when given)."""
    from edr.io.writers import write_csv, write_json

    cols = result.grid_columns()  # the CSV's columns, in order: their one home
    writers = {"csv": lambda tmp: write_csv(tmp, **cols)}
    if "json" in outputs:
        writers["json"] = lambda tmp: write_json(tmp, summary)
    if "breaths" in outputs:
        from edr.io.annotations import write_breath_csv

        writers["breaths"] = lambda tmp: write_breath_csv(tmp, result.breaths)
    if "breath_annotations" in outputs:
        from edr.io.annotations import write_breath_annotation_file

        writers["breath_annotations"] = lambda tmp: write_breath_annotation_file(
            tmp, result.breaths, rec.fs)
    if "plot" in outputs:
        def write_plot(tmp):
            if tmp.suffix.lower() in HTML_SUFFIXES:
                from edr.plots_html import write_record_html

                write_record_html(rec, result, tmp)
            elif pending_figure is not None:
                tmp.write_bytes(pending_figure.result())
            else:
                from edr.plots import plot_record

                plot_record(rec, result, path=tmp)

        writers["plot"] = write_plot
    return writers


def extract_and_write(args, argv: Sequence[str], outputs: dict[str, Path], *,
                      progress: bool | None = None, figure_worker=None):
    """Read, extract, score and write all outputs (or none).

    Returns ``(rec, result, scores, scores_error, summary)`` with ``summary`` the JSON summary
    (:func:`edr.extract.summary.json_summary`). A started :class:`edr.figure_worker.FigureWorker`
    draws the static figure if given.
    """
    rec, notes = _load(args)
    result = _extract_record(args, rec, progress)
    pending = None
    if figure_worker is not None:  # the figure is drawn while this process scores and writes
        from edr.record_figure import record_figure

        pending = figure_worker.render(record_figure(rec, result),
                                       outputs["plot"].suffix.lstrip(".").lower())
    scores, scores_error = _scores(rec, result)
    # Everything is computed: write all outputs, or none.
    summary = json_summary(rec, result, scores, outputs, argv, reference_notes=notes)
    write_all_or_none(outputs, _writers(rec, result, summary, outputs, pending))
    return rec, result, scores, scores_error, summary


#: The line printed on stderr before a run that compiles the Numba kernels (:func:`compile_note`).
COMPILE_NOTE = ("first run: compiling the numerical kernels once (Numba; up to a minute on a slow "
                "machine; later runs load them from the cache)")


def kernels_cold(kernel=None) -> bool:
    """Whether a Numba kernel has no usable compiled code in its on-disk cache yet (its index
    missing or written for another source): the run will compile the kernels. False when
    Numba's cache cannot be asked (a run that compiles is then not announced).

    ``kernel`` (a ``numba.njit(cache=True)`` function) defaults to the zero-phase filter every
    extraction runs (:mod:`edr.zero_phase`).
    """
    try:
        if kernel is None:
            from edr.zero_phase import _sos_forward_backward as kernel
        return not kernel._cache._cache_file._load_index()
    except Exception:  # Numba's cache internals: no announcement rather than a failure
        return False


def compile_note() -> None:
    """:data:`COMPILE_NOTE` on stderr when it is a terminal and the kernels are not compiled yet
    (:func:`kernels_cold`): a newcomer's first run is otherwise silent for as long as they
    compile (a log or a pipe gets no such line)."""
    if sys.stderr.isatty() and kernels_cold():
        print(COMPILE_NOTE, file=sys.stderr, flush=True)


def _started_figure_worker(outputs: dict[str, Path]):
    """A started :class:`edr.figure_worker.FigureWorker` (a context manager) when a static figure
    is asked for: Matplotlib loads in it while this process reads and extracts; else a context
    of ``None``."""
    plot = outputs.get("plot")
    if plot is None or plot.suffix.lower() in HTML_SUFFIXES:
        return contextlib.nullcontext()
    from edr.figure_worker import FigureWorker

    worker = FigureWorker()
    worker.start()
    return worker


def run_record(args, argv: Sequence[str], outputs: dict[str, Path] | None = None) -> list[str]:
    """Do the work of one invocation under the record's lock (:func:`output_lock_path`); returns
    the summary lines. Raises on bad input, and :class:`edr.errors.OutputError` when another
    extract holds the lock."""
    from edr.io.locks import OutputLocked, output_lock

    t0 = time.perf_counter()
    if outputs is None:
        outputs = prepare(args)
    compile_note()
    try:
        with output_lock(output_lock_path(outputs)), _started_figure_worker(outputs) as worker:
            rec, result, scores, scores_error, summary = extract_and_write(
                args, argv, outputs, figure_worker=worker)
    except OutputLocked as exc:
        raise OutputError(f"{outputs['csv']} is being written by another extract "
                          f"({exc.holder()}; its lock {exc.path}); wait for it to end, or "
                          "write elsewhere with -o") from None
    return summary_lines(rec, result, scores, scores_error, outputs, time.perf_counter() - t0,
                         args.demo, [(g["start_s"], g["end_s"]) for g in summary["gaps"]])
