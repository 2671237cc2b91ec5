"""Several records in one ``extract`` process: ``python -m edr.extract a.dat b.dat 'data/*.hea'
-o OUTDIR/``.

Glob patterns the shell left alone are expanded here (:func:`expand_records`). Each record
writes ``OUTDIR/<record>_edr.csv`` (the single-record default name) and
``OUTDIR/<record>_edr.json`` (and, when ``--breaths`` / ``--breath-annotations`` name a folder,
``<record>_breaths.csv`` / ``<record>.edrbr`` in it), all or none; a record whose outputs are
complete is skipped unless ``--overwrite`` (an interrupted run resumes), and so is one another
batch into the same folder is extracting (its lock ``OUTDIR/<record>_edr.lock``,
:func:`edr.io.locks.output_lock`; one of another machine on a shared folder is taken to be held
for :data:`edr.io.locks.OTHER_HOST_STALE_S` since it was made); a failing record is
reported in the table and the run goes on (exit code 2 if any failed). The records run through
:func:`edr.jobs.run_jobs`, :data:`RECORDS_AHEAD` at a time, reported in the order given: in
forked worker processes where the platform forks them (:func:`edr.jobs.forks_workers`; no
interpreter lock shared between records, no start-up per worker), else in threads of this
process.
"""

from __future__ import annotations

import copy
import glob
import json
import math
import os
import re
import sys
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import NamedTuple

from edr.cli_core import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_OK, OptionError, debugging, one_line
from edr.errors import EDRError
from edr.extract import EXTRACT_FLAGS
from edr.extract.record import compile_note, extract_and_write, output_lock_path, prepare
from edr.io.paths import record_kind, record_name, resolve_record
from edr.io.targets import check_folder

__all__ = ["OUTPUT_ENDINGS", "RECORDS_AHEAD", "RECORDS_QUEUED", "check_many_options",
           "expand_records", "run_many"]

RECORDS_AHEAD = 2
"""Records extracted at a time by :func:`run_many` (each in a worker process or thread of its
own)."""

RECORDS_QUEUED = 4 * RECORDS_AHEAD
"""Records handed to the workers and not yet reported: a worker that finished starts the next
record while an earlier, slower one still runs (only the running ones hold a record in memory;
a finished one waiting for its turn holds its summary)."""

_GLOB_CHARS = re.compile(r"[*?\[]")


class Job(NamedTuple):
    """One record of :func:`run_many`: its path, name and output targets."""

    record: str
    name: str
    outputs: dict


def _record_key(record: str) -> str:
    """One key per record: a WFDB record's files (rec, rec.hea, rec.dat) share it (a symbolic
    link that loops is its own key: reading it fails, with its reason, in its row)."""
    try:
        p = resolve_record(record) if record_kind(record) == "wfdb" else Path(record)
    except (EDRError, OSError):
        p = Path(record)
    return os.path.realpath(p)


#: Name endings of the files ``edr extract`` writes beside a record's name: never a record.
OUTPUT_ENDINGS = ("_edr", "_breaths")


def _matching_records(pattern: str) -> list[str]:
    """The record files a glob pattern matches, sorted: folders, files that are no record (an
    annotation file such as ``rec.breath``) and side files of a matched record left out
    (:func:`_side_files_left_out`)."""
    out = []
    for m in sorted(glob.glob(pattern)):
        if os.path.isdir(m):
            continue
        if record_kind(m) == "wfdb":
            try:
                resolve_record(m)
            except (EDRError, OSError):
                continue
        out.append(m)
    return _side_files_left_out(out)


def _side_files_left_out(matches: list[str]) -> list[str]:
    """``matches`` without the text and NumPy files that belong to another matched record: named
    ``<record>_...`` or ``<record>....`` beside a matched WFDB record or EDF file (one's own
    ``rec_breaths.csv``, ``rec_peaks.csv``), or ``<record>_edr.csv`` / ``<record>_breaths.csv``
    beside any matched record (the outputs of an earlier run into the data folder)."""
    def name(m: str) -> str:
        try:
            return record_name(m)
        except (EDRError, OSError):
            return Path(m).stem

    signal_records = {(os.path.dirname(m), name(m)) for m in matches
                      if record_kind(m) in ("wfdb", "edf")}
    all_records = {(os.path.dirname(m), name(m)) for m in matches}

    def side_file(m: str) -> bool:
        if record_kind(m) in ("wfdb", "edf"):
            return False
        folder, own = os.path.dirname(m), name(m)
        if any(f == folder and own.startswith((n + "_", n + ".")) for f, n in signal_records):
            return True
        return any(f == folder and own in (n + e for e in OUTPUT_ENDINGS)
                   for f, n in all_records)

    return [m for m in matches if not side_file(m)]


def expand_records(patterns: Sequence[str]) -> tuple[list[str], bool]:
    """Glob patterns the shell left alone expanded (sorted); returns ``(records, any_glob)``.

    A pattern matching no record is an option error. A WFDB record matched by several of its
    files (``rec.hea``, ``rec.dat``) is kept once; a record's side files that a pattern matches
    with it (``rec_breaths.csv`` beside ``rec.hea``, an earlier run's ``rec_edr.csv``) are no
    records.
    """
    out: list[str] = []
    any_glob = False
    for pattern in patterns:
        if not _GLOB_CHARS.search(pattern) or os.path.exists(pattern):
            out.append(pattern)
            continue
        any_glob = True
        if not glob.glob(pattern):
            raise OptionError(f"no file matches {pattern!r}")
        matches = _matching_records(pattern)
        if not matches:
            raise OptionError(f"no record file matches {pattern!r}")
        out += matches
    seen: set[str] = set()
    unique = []
    for r in out:
        key = _record_key(r)
        if key not in seen:
            seen.add(key)
            unique.append(r)
    return unique, any_glob


def check_many_options(args, records: Sequence[str]) -> None:
    """The options that do not apply to several records: ``--demo``, ``--json``, ``--plot``; and
    ``--breath-times`` / ``--r-peaks`` naming one file for all of them (a pattern with
    ``{record}`` or an annotator name names each record's own, :mod:`edr.io.side_files`)."""
    from edr.io.side_files import side_file_form

    if args.demo:
        raise OptionError("give either a record or --demo, not both (records "
                          f"{', '.join(records[:3])} ...)")
    for flag, value in (("--json", args.json), ("--plot", args.plot)):
        if value:
            raise OptionError(f"{flag} applies to one record; with several records each record "
                              "gets OUTDIR/<record>_edr.csv and OUTDIR/<record>_edr.json")
    for flag, value, example in (("--breath-times", args.breath_times, "_breaths.csv"),
                                 ("--r-peaks", args.r_peaks, "_peaks.csv")):
        if value and side_file_form(value) == "file":
            raise OptionError(
                f"{flag}: one file ({value}) cannot be every record's; with several records give "
                f"a pattern naming each record's own, e.g. {flag} 'refs/{{record}}{example}' "
                "({record}: the record's name, {dir}: its folder)"
                + (", or an annotator name (qrs: each record's <record>.qrs)"
                   if flag == "--r-peaks" else ""))
    if args.ref_file and side_file_form(args.ref_file) != "pattern":
        raise OptionError(f"--ref-file: one file ({args.ref_file}) cannot be every record's; with "
                          "several records give a pattern naming each record's own, e.g. "
                          "--ref-file 'refs/{record}_belt.csv' ({record}: the record's name, "
                          "{dir}: its folder)")


def _outdir(output: str | None, flag: str = "-o/--output", file_suffix: str | None = ".csv"
            ) -> Path:
    """``-o`` (or another output ``flag``) of the several-records form: a folder (existing, or
    created when writing); a path that does not exist and ends in ``file_suffix`` (any suffix
    when None) without a trailing slash is taken for a file name and refused."""
    if output is None:
        return Path(".")
    out = Path(output)
    if out.exists() and not out.is_dir():
        raise OptionError(f"{flag}: with several records give a folder, {output!r} is a file")
    looks_like_file = out.suffix.lower() == file_suffix if file_suffix else bool(out.suffix)
    if not out.exists() and not output.endswith(("/", os.sep)) and looks_like_file:
        raise OptionError(f"{flag}: with several records give a folder (e.g. "
                          f"{str(out.with_suffix(''))}/), got {output!r}")
    return check_folder(flag, out)


def _breath_outputs(args, name: str) -> dict:
    """The breath outputs of record ``name`` in the folders ``--breaths`` and
    ``--breath-annotations`` name (none when not asked for)."""
    out = {}
    if args.breaths:
        out["breaths"] = _outdir(args.breaths, "--breaths") / f"{name}_breaths.csv"
    if args.breath_annotations:
        from edr.io.annotations import BREATH_ANNOTATION_EXTENSION

        out["breath_annotations"] = (_outdir(args.breath_annotations, "--breath-annotations",
                                             None)
                                     / f"{name}.{BREATH_ANNOTATION_EXTENSION}")
    return out


def _planned_jobs(records: Sequence[str], outdir: Path, args=None) -> list[Job]:
    """The :class:`Job` of each record under ``outdir`` (its breath outputs in the folders
    ``args`` names); :class:`OptionError` when two records would write the same outputs."""
    jobs = []
    names: dict[str, str] = {}
    for record in records:
        try:
            name = record_name(record)
        except (EDRError, OSError):
            name = Path(record).stem
        if name in names:
            raise OptionError(f"records {names[name]!r} and {record!r} would both write "
                              f"{str(outdir / (name + '_edr.csv'))!r}")
        names[name] = record
        jobs.append(Job(record, name, {"csv": outdir / f"{name}_edr.csv",
                                       "json": outdir / f"{name}_edr.json",
                                       **({} if args is None else _breath_outputs(args, name))}))
    return jobs


def _complete(job: Job) -> dict | None:
    """The JSON summary when every output of a record exists and is complete, else None."""
    if not all(p.is_file() for p in job.outputs.values()):
        return None
    try:
        summary = json.loads(job.outputs["json"].read_text())
    except (OSError, ValueError):
        return None
    return summary if isinstance(summary, dict) and "result" in summary else None


class RecordSkipped(Exception):
    """A record not extracted after all: its ``status`` and, when written by another batch
    meanwhile, its ``summary``."""

    def __init__(self, status: str, summary: dict | None = None):
        super().__init__(status, summary)
        self.status, self.summary = status, summary


def _extract_one(args, argv, job: Job) -> dict:
    """The JSON summary of one record (its CSV and JSON written, all or none), under its lock
    (:func:`edr.io.locks.output_lock`); :class:`RecordSkipped` when another batch holds it, or
    wrote the outputs since this one started."""
    from edr.io.locks import OutputLocked, output_lock

    try:
        with output_lock(output_lock_path(job.outputs)):
            done = None if args.overwrite else _complete(job)
            if done is not None:
                raise RecordSkipped("skipped (outputs written by another batch meanwhile)", done)
            return _extract_unlocked(args, argv, job)
    except OutputLocked as exc:
        who = "another batch" if exc.pid is None else f"another batch ({exc.holder()})"
        raise RecordSkipped(f"skipped (being extracted by {who})") from None


def _extract_unlocked(args, argv, job: Job) -> dict:
    one = copy.copy(args)
    one.record, one.output, one.json, one.plot = (job.record, str(job.outputs["csv"]),
                                                  str(job.outputs["json"]), None)
    one.breaths, one.breath_annotations = (
        str(job.outputs[k]) if k in job.outputs else None for k in ("breaths",
                                                                    "breath_annotations"))
    prepare(one)
    return extract_and_write(one, argv, job.outputs, progress=False)[4]


def _row(name: str, summary: dict | None, status: str, seconds: float) -> dict:
    res = (summary or {}).get("result") or {}
    return {"record": name, "duration_s": (summary or {}).get("duration_s"),
            "beats": res.get("n_beats"),
            "sigma2": res.get("sigma2"), "rate_bpm": res.get("rate_bpm_median"), "status": status,
            "seconds": seconds}


def _outcome_row(outcome) -> dict:
    """The table row of one :class:`edr.jobs.JobOutcome`; an internal error is raised again
    under ``EDR_DEBUG``."""
    name = outcome.job.name
    if outcome.resumed:
        return _row(name, outcome.value, "skipped (outputs exist)", 0.0)
    if outcome.error is None:
        return _row(name, outcome.value, "ok", outcome.seconds)
    from concurrent.futures.process import BrokenProcessPool

    exc = outcome.error
    if isinstance(exc, RecordSkipped):
        return _row(name, exc.summary, exc.status, 0.0)
    if isinstance(exc, BrokenProcessPool):  # twice: edr.jobs ran it again alone
        return _row(name, None, "failed: its worker process died twice (killed, out of memory or "
                                "a crash in compiled code); run this record alone to see why",
                    outcome.seconds)
    if isinstance(exc, (EDRError, OSError, ValueError)):
        return _row(name, None, f"failed: {one_line(exc, EXTRACT_FLAGS)}", outcome.seconds)
    if debugging():
        raise exc
    return _row(name, None, f"failed: internal error: {type(exc).__name__}: "
                            f"{one_line(exc, EXTRACT_FLAGS)}", outcome.seconds)


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


def _load_for_workers(jobs: list[Job]) -> None:
    """Load once, before the worker processes fork, what every record needs, so that they
    inherit it instead of each loading it again: the pipeline's and the readers' imports, and
    Numba's dispatch machinery (built by the first call of any compiled function)."""
    import numpy as np

    import edr.pipeline  # noqa: F401
    from edr.zero_phase import sosfiltfilt

    if any(record_kind(job.record) == "wfdb" for job in jobs):
        import edr.io.wfdb_reader  # noqa: F401
    sosfiltfilt(np.array([[1.0, 0.0, 0.0, 1.0, 0.0, 0.0]]), np.zeros(16))


def _extract_rows(args, argv, jobs: list[Job], rows: list[dict]) -> bool:
    """Extract ``jobs`` through :func:`edr.jobs.run_jobs`, appending a table row for each to
    ``rows`` and a progress line on stderr; whether interrupted."""
    from edr.jobs import forks_workers, note, run_jobs

    stored = {job.name: None if args.overwrite else _complete(job) for job in jobs}
    forked = forks_workers() and sum(value is None for value in stored.values()) > 1
    if forked:
        _load_for_workers(jobs)
    outcomes = run_jobs(jobs, partial(_extract_one, args, argv), done=lambda job: stored[job.name],
                        backend="processes" if forked else "threads",
                        workers=RECORDS_AHEAD, ahead=RECORDS_QUEUED, ordered=True,
                        progress={"desc": "extract", "unit": "record", "file": sys.stderr,
                                  "dynamic_ncols": True})
    try:
        for outcome in outcomes:
            row = _outcome_row(outcome)
            rows.append(row)
            note(f"{row['record']}: {row['status']}"
                 + (f" ({row['seconds']:.2f} s)" if row["seconds"] else ""))
    except KeyboardInterrupt:  # the record after the last reported one was running
        if len(rows) < len(jobs):
            rows.append(_row(jobs[len(rows)].name, None, "interrupted", 0.0))
        return True
    return False


def run_many(args, records: Sequence[str], argv: Sequence[str],
             prog: str = "python -m edr.extract") -> int:
    """Extract several records in one process; prints the summary table. Returns the exit code.

    The options are checked already (:func:`check_many_options` and the command line's own checks).
    """
    outdir = _outdir(args.output)
    jobs = _planned_jobs(records, outdir, args)
    compile_note()

    from kpca._blas import blas_limited_to_one_thread

    rows: list[dict] = []
    t_all = time.perf_counter()
    # one BLAS limit around all records: a record's own limits then restore one thread, never
    # the default, while another record runs
    with blas_limited_to_one_thread():
        interrupted = _extract_rows(args, argv, jobs, rows)
    from edr.io.locks import drop_stale_lock

    for job in jobs:  # the locks of workers that died
        drop_stale_lock(output_lock_path(job.outputs))
    n_failed = sum(r["status"].startswith("failed") for r in rows)
    n_skipped = sum(r["status"].startswith("skipped") for r in rows)
    n_interrupted = sum(r["status"] == "interrupted" for r in rows)
    lines = _table(rows)
    lines.append(f"{len(rows)} record(s): {len(rows) - n_failed - n_skipped - n_interrupted} "
                 f"extracted, {n_skipped} skipped, {n_failed} failed; outputs in {outdir}; "
                 f"{time.perf_counter() - t_all:.2f} s")
    print("\n".join(lines))
    if interrupted:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_BAD_INPUT if n_failed else EXIT_OK
