"""``python -m edr.evaluate`` / ``edr evaluate``: the command line of the batch evaluation
(:mod:`edr.evaluate.batch` is the library it drives).

Bad input (an option, a missing database folder or record, a missing ``distributed`` extra
for ``--scheduler``) prints one line on stderr and exits with code 2: the protocol of every
``edr`` command line (:mod:`edr.cli_core`). Errors of single tasks are not bad input: they
are results, stored with their task (``results.csv``'s ``error`` column), listed at the end
(one line per record and error, :func:`error_lines`, with those kept from an earlier run) and
counted in ``batch.json``; the exit code is then 0. Records of ``--data-dir`` whose header
cannot be read are evaluated (their tasks store why); those without an ECG channel are left
out, named on stderr. Exit codes: 0 the batch ran, 2 bad input, 1 an internal error, 130
interrupted (the tasks finished so far are stored: the same command resumes).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from edr.cli_core import OptionError, Parser, run_command
from edr.cli_options import (
    REFERENCE_FLAGS,
    add_reference_options,
    check_choice,
    check_method,
    integer,
    positive_integer,
    reference_options,
    window_seconds,
)
from edr.evaluate.batch import DEFAULT_LEAD, BatchSummary, plan_tasks, run_batch
from edr.evaluate.records import list_records
from edr.names import (
    DEFAULT_METHOD,
    DEFAULT_SIGMA2,
    MAX_WINDOW_S,
    METHOD_NAMES,
    MIN_WINDOW_S,
    criterion_choices,
    sigma2_help,
)

__all__ = ["build_parser", "error_lines", "main"]

PROG = "python -m edr.evaluate"
_NO_DISTRIBUTED = "--scheduler needs Dask's distributed (pip install 'kpca-edr[distributed]'): "
#: ``--database`` when neither it nor ``--data-dir`` is given.
DEFAULT_DATABASE = "bidmc"
#: ``--methods`` when not given: the pipeline's default method and the classic ones.
DEFAULT_METHODS = ("kpca_fusion", "kpca", "pca", "r_amplitude", "qrs_area", "rsa")
#: ``--methods paper``: the methods of the paper's comparison (Widjaja et al. 2012).
PAPER_METHODS = ("kpca", "pca", "r_amplitude", "qrs_area", "rsa")
#: ``--criteria`` when not given: the criteria of the paper's comparison, for every kernel method
#: but the default one, which runs as ``edr extract`` runs it (:data:`DEFAULT_OWN_CRITERIA`).
DEFAULT_CRITERIA = ("mdd", "shannon", "kpa", "rule-of-thumb")
#: ``--criteria`` when not given, for the pipeline's default method: its own σ² rule.
DEFAULT_OWN_CRITERIA = {DEFAULT_METHOD: (DEFAULT_SIGMA2,)}
#: Lines of task errors printed at the end of a run (:func:`error_lines`).
ERROR_LINES = 20
EVALUATE_FLAGS = {"window_s": "--window-s", "random_state": "--random-state", "jobs": "--jobs",
                  "breath_times": "--breath-times", **REFERENCE_FLAGS}
"""Library parameter name -> the flag, for messages (:func:`edr.cli_core.one_line`)."""


def _git_commit() -> str | None:
    """HEAD of the source checkout, ``+dirty`` when ``edr``/``kpca`` differ from it; None outside
    git."""
    import subprocess

    root = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                              text=True, timeout=10)
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "edr", "kpca"], cwd=root,
                               capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode or not head.stdout.strip():
        return None
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def portable_path(folder: Path, environ=None) -> str:
    """``folder`` as a reader of ``batch.json`` on another machine can follow it.

    A folder under ``$EDR_DATA_DIR`` (of ``environ``, default :data:`os.environ`) is written
    ``$EDR_DATA_DIR/<rest>``, one under the working folder relative to it, one under the home
    folder ``~/<rest>``; any other as given.

    Examples
    --------
    >>> from pathlib import Path
    >>> from edr.evaluate.cli import portable_path
    >>> data = Path.cwd() / "data"
    >>> portable_path(data / "bidmc", environ={"EDR_DATA_DIR": str(data)})
    '$EDR_DATA_DIR/bidmc'
    >>> portable_path(Path("results"))
    'results'
    """
    folder = Path(folder)
    absolute = folder.resolve()
    environ = os.environ if environ is None else environ
    bases = [("$EDR_DATA_DIR", environ.get("EDR_DATA_DIR")), ("", str(Path.cwd())),
             ("~", str(Path.home()))]
    for name, base in bases:
        if not base:
            continue
        try:
            rest = absolute.relative_to(Path(base).resolve())
        except ValueError:
            continue
        return f"{name}/{rest.as_posix()}" if name else rest.as_posix()
    return str(folder)


def _log_run(out_dir: Path, argv, folder: Path, summary: BatchSummary, commit: str | None) -> None:
    """Append this run (command line, code commit at its start, counts) to
    ``out_dir/batch.json``."""
    from edr.io.writers import write_json

    log = out_dir / "batch.json"
    runs = json.loads(log.read_text())["runs"] if log.exists() else []
    runs.append({"argv": list(argv), "data_dir": portable_path(folder),
                 "git_commit": commit, "n_tasks": summary.n_tasks, "n_run": summary.n_run,
                 "n_errors": summary.n_errors,
                 "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    write_json(log, {"runs": runs})


def _split(s: str) -> list[str]:
    return [x.strip() for x in s.split(",") if x.strip()]


def build_parser(prog: str = PROG) -> Parser:
    """The command-line options of :func:`main` (every option with its help and valid values)."""
    from edr.io.datasets import load_manifest

    criteria = sigma2_help()
    p = Parser(
        prog=prog,
        description="Score EDR methods on a database: every (record, method, sigma2 criterion, "
                    "lead) task, resumable (results per task under OUT/tasks), then OUT/"
                    "results.csv, window_rates.csv and selection_curves.json.",
        epilog="Example: %(prog)s --database bidmc --methods kpca_fusion,kpca,rsa -o results/  "
               "(then: python -m edr.evaluate.report results/results.csv -o report/)")
    p.add_argument("--database", default=None, metavar="NAME",
                   help="database of the data manifest: "
                        + ", ".join(sorted(load_manifest()["databases"]))
                        + f" (default {DEFAULT_DATABASE}); found locally or downloaded "
                        "(EDR_DATA_DIR); with --data-dir, the name its rows carry")
    p.add_argument("--data-dir", metavar="FOLDER",
                   help="folder of records of your own: WFDB (rec.hea, rec.dat; breaths in "
                        "rec.breath, or the file --annotator names) or EDF/EDF+ (breaths as its "
                        "annotations), breath labels in any convention (--breath-label chooses "
                        "one); every record with an ECG channel is used, its rows "
                        "named after the folder (default: the manifest's records of "
                        "--database, under EDR_DATA_DIR or downloaded)")
    add_reference_options(p)
    _add_breath_times_option(p)
    p.add_argument("--methods", default=",".join(DEFAULT_METHODS), metavar="LIST",
                   help="comma-separated methods, from: " + ", ".join(METHOD_NAMES)
                        + "; 'paper' for the paper's comparison (" + ",".join(PAPER_METHODS)
                        + "); or 'all' (default " + ",".join(DEFAULT_METHODS) + ": "
                        "kpca_fusion, what edr extract runs, beside the classic methods)")
    p.add_argument("--criteria", default=None, metavar="LIST",
                   help=f"comma-separated sigma2 criteria of the kernel PCA methods (kpca, "
                        f"kpca_fusion, ...: one task each), from: {criteria} (default "
                        f"{','.join(DEFAULT_CRITERIA)}, the paper's, and {DEFAULT_METHOD} with "
                        f"its own {DEFAULT_SIGMA2}, as edr extract runs it; given, the list holds "
                        "for every kernel method); other methods run once")
    p.add_argument("--leads", default=DEFAULT_LEAD, metavar="LIST",
                   help=f"comma-separated leads: {DEFAULT_LEAD} (the pipeline's: every ECG lead "
                        "fused when the record has several), auto (best lead per window), fuse, "
                        f"multilead, or a lead name such as II (default {DEFAULT_LEAD})")
    p.add_argument("--records", metavar="LIST",
                   help="comma-separated record names (default: all)")
    p.add_argument("-o", "--out", required=True, metavar="FOLDER",
                   help="output folder (created; an existing one is resumed)")
    p.add_argument("--jobs", type=positive_integer, default=None, metavar="N",
                   help="worker processes (default: CPU count; 1 runs in this process)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="Dask distributed scheduler address (e.g. tcp://host:8786; needs the "
                        "'distributed' extra); default: local processes")
    p.add_argument("--window-s", type=window_seconds, default=None, metavar="SECONDS",
                   help=f"analysis window, {MIN_WINDOW_S:g} to {MAX_WINDOW_S:g} s (default: the "
                        "pipeline's, the whole record up to 600 s, else 300 s windows)")
    p.add_argument("--random-state", type=integer, default=0, metavar="SEED",
                   help="random seed of the methods' sigma2 selection (default 0); part of each "
                        "task's identity, so a new seed runs every task again")
    p.add_argument("--retry-errors", action="store_true",
                   help="re-run tasks stored as errors (default: keep their stored error)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar on stderr")
    return p


def _add_breath_times_option(p: Parser) -> None:
    """``--breath-times PATTERN``: each record's own breath times (:mod:`edr.io.side_files`)."""
    p.add_argument("--breath-times", metavar="PATTERN",
                   help="breath times of your own, a text file per record as edr extract "
                        "--breath-times reads: a pattern naming each record's own, e.g. "
                        "'refs/{record}_breaths.csv' ({record}: the record's name, {dir}: its "
                        "folder); the rate error is scored against them (in place of the "
                        "record's breath annotations), and a record without a respiration "
                        "channel is scored on the rate error alone; a record whose file is "
                        "missing stores why")


def _methods(spec: str) -> list[str]:
    """``--methods``: the names listed (each checked), every method for ``all``, the paper's
    for ``paper``."""
    if spec.strip() == "all":
        return sorted(METHOD_NAMES)
    if spec.strip() == "paper":
        return list(PAPER_METHODS)
    return [check_method(m, "--methods") for m in _split(spec)]


def _criteria(spec: str) -> list[str]:
    """``--criteria``: the σ² criterion names or aliases listed, each checked."""
    return [check_choice("--criteria", "criterion", c, criterion_choices(), "criteria")
            for c in _split(spec)]


def _records(args, left_out: dict) -> tuple[Path, dict[str, Path]]:
    """``(folder, {name: path})`` of the records to evaluate (``--data-dir`` or ``--database``,
    narrowed by ``--records``); ``left_out`` filled with the records of ``--data-dir`` left out
    and why (:func:`edr.evaluate.batch.list_records`)."""
    if args.data_dir:
        folder = Path(args.data_dir)
        records = list_records(folder, left_out)
    else:
        from edr.io.datasets import database_entry, locate_database

        name = args.database or DEFAULT_DATABASE
        folder = Path(locate_database(name))
        records = {r: folder / r for r in database_entry(name)["records"]}
    if args.records:
        wanted = _split(args.records)
        missing = [r for r in wanted if r not in records]
        if missing:
            raise OptionError(f"--records: {missing[0]!r} not in {folder} (have "
                              f"{', '.join(records)})")
        records = {r: records[r] for r in wanted}
    return folder, records


def _breath_times_pattern(value: str) -> str:
    """``--breath-times``: a pattern naming each record's own file (:mod:`edr.io.side_files`)."""
    from edr.io.side_files import side_file_form

    form = side_file_form(value)
    if form == "annotator":
        raise OptionError(f"--breath-times: {value!r} is no pattern; for the records' own WFDB "
                          f"breath annotations use --annotator {value}; for files of your own "
                          "give a pattern such as 'refs/{record}_breaths.csv'")
    if form == "file":
        raise OptionError(f"--breath-times: one file ({value}) cannot be every record's; give a "
                          "pattern naming each record's own, e.g. --breath-times "
                          "'refs/{record}_breaths.csv' ({record}: the record's name, {dir}: its "
                          "folder)")
    return value


def _evaluate(argv: list[str], prog: str) -> int:
    args = build_parser(prog).parse_args(argv)
    methods = _methods(args.methods)
    criteria = _criteria(args.criteria) if args.criteria is not None else list(DEFAULT_CRITERIA)
    own = DEFAULT_OWN_CRITERIA if args.criteria is None else None
    if args.scheduler is not None and importlib.util.find_spec("distributed") is None:
        raise OptionError(_NO_DISTRIBUTED + "No module named 'distributed'")
    commit = _git_commit()
    left_out: dict[str, str] = {}
    folder, records = _records(args, left_out)
    if left_out and not args.records:
        print(f"{len(left_out)} record(s) left out: "
              + "; ".join(f"{n}: {why}" for n, why in left_out.items()), file=sys.stderr)
    database = args.database or (folder.name if args.data_dir else DEFAULT_DATABASE)
    tasks = plan_tasks(database, records, methods, criteria, _split(args.leads), criteria_of=own)
    options = {"random_state": args.random_state, **reference_options(args)}
    if args.breath_times is not None:
        options["breath_times"] = _breath_times_pattern(args.breath_times)
    if args.window_s is not None:
        options["window_s"] = args.window_s
    try:
        summary = run_batch(tasks, args.out, options=options, jobs=args.jobs,
                            scheduler=args.scheduler, progress=not args.no_progress,
                            retry_errors=args.retry_errors)
    except ImportError as exc:
        if args.scheduler is None:
            raise
        raise OptionError(f"{_NO_DISTRIBUTED}{exc}") from exc
    _log_run(Path(args.out), argv, folder, summary, commit)
    kept = (f"; {len(summary.stored_errors)} stored errors kept (--retry-errors runs them "
            "again)" if summary.stored_errors else "")
    print(f"{summary.n_tasks} tasks ({summary.n_run} run, {summary.n_skipped} resumed, "
          f"{summary.n_errors} errors{kept}) -> {summary.results_csv}", file=sys.stderr)
    for line in error_lines([*summary.errors, *summary.stored_errors]):
        print(f"  error: {line}", file=sys.stderr)
    return 0


def error_lines(errors: Sequence[str], limit: int = ERROR_LINES) -> list[str]:
    """The task errors (``"<record> <method>/<criterion>/<lead>: <error>"``) as printed: one
    line per record and error with the number of its tasks that failed so, at most ``limit``
    lines and one more saying how many were left out.

    Examples
    --------
    >>> from edr.evaluate.cli import error_lines
    >>> error_lines(["r1 kpca/mdd/default: RecordError: bad", "r1 pca/none/default: "
    ...              "RecordError: bad", "r2 pca/none/default: SignalError: flat"])
    ['r1 (2 tasks): RecordError: bad', 'r2 pca/none/default: SignalError: flat']
    """
    groups: dict[tuple[str, str], list[str]] = {}
    for e in errors:
        task, _, error = e.partition(": ")
        record, _, combo = task.partition(" ")
        groups.setdefault((record, error), []).append(combo)
    lines = [f"{record} ({len(combos)} tasks): {error}" if len(combos) > 1
             else f"{record} {combos[0]}: {error}" for (record, error), combos in groups.items()]
    if len(lines) > limit:
        lines = lines[:limit] + [f"... and {len(lines) - limit} more (the error column of "
                                 "results.csv)"]
    return lines


def main(argv: Sequence[str] | None = None, *, prog: str = PROG) -> int:
    """Command-line entry point; returns the exit code (2 on bad input, one line on stderr;
    :func:`edr.cli_core.run_command`)."""
    return run_command(prog, lambda args: _evaluate(args, prog), argv, flags=EVALUATE_FLAGS)
