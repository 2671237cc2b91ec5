"""Batch evaluation: database x methods x sigma2 criteria x leads, resumable and parallel.

``python -m edr.evaluate --database bidmc --methods kpca,pca,r_amplitude
--criteria mdd,shannon,kpa,rule-of-thumb -o results/`` scores every
(record, method, criterion, lead) *task* with :func:`edr.pipeline.extract_edr`
and :func:`edr.scoring.score`, and keeps the per-window respiratory
rates (EDR and reference, the windows of the rate error) for the window-level
agreement statistics of :mod:`edr.evaluate.agreement`.

Resumability: each finished task is written at once, atomically
(:func:`edr.io.writers.write_json`), to
``<out>/tasks/<record>/<method>__<criterion>__<lead>.json`` (scores, chosen
sigma2, its selection curve, window rates, timing, the options used; NaN stored
as null). A restarted run skips every task whose file exists with the same
options, so an interrupted run loses at most the tasks in flight.
``results.csv`` (one row per task, columns :data:`COLUMNS`),
``window_rates.csv`` (one row per window of a successful task, columns
:data:`RATE_WINDOW_COLUMNS`) and ``selection_curves.json`` are assembled from the
task files at the end, sorted, so they do not depend on the completion order;
its command line (:mod:`edr.evaluate.cli`) logs every run in ``batch.json`` (command
line, code commit, counts).

Parallelism and resumption: :func:`edr.jobs.run_jobs` runs the tasks in processes by
default, ``jobs=1`` in-process, or on a Dask distributed scheduler
(``scheduler="tcp://host:8786"``; Dask is imported only then). The writing is
done by the driving process, so Dask workers need no access to ``out_dir``
(they do need the records at the same path).

sigma2 criteria apply to the methods whose registry entry uses sigma2
(:func:`uses_sigma2`); other methods get one task with criterion ``"none"``.
"""

from __future__ import annotations

import csv
import json
import math
import time
import traceback
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache, partial
from pathlib import Path

from edr.evaluate.breaths import EVENT_COLUMN
from edr.evaluate.breaths import SCORE_COLUMNS as BREATH_SCORES
from edr.evaluate.records import list_records
from edr.jobs import run_jobs

__all__ = [
    "COLUMNS",
    "RATE_WINDOW_COLUMNS",
    "NO_CRITERION",
    "DEFAULT_LEAD",
    "Task",
    "BatchSummary",
    "list_records",
    "plan_tasks",
    "run_task",
    "run_batch",
    "assemble",
    "uses_sigma2",
    "READ_OPTIONS",
]

#: Columns of ``results.csv``. ``used_lead``: the lead the EDR came from (the one
#: ``lead="auto"`` chose, or "auto" when windows chose different leads); ``breath_*``: the
#: breaths the EDR keeps scored against the record's annotated breaths
#: (:data:`edr.evaluate.breaths.SCORE_COLUMNS`, :func:`edr.evaluate.breaths.score_kept`;
#: empty without breath annotations) at the point of the breath ``breath_event`` names
#: (``end_of_inspiration`` or ``start_of_inspiration``: what the annotations mark,
#: :attr:`edr.io.Recording.breath_event`); ``error``: empty when the task succeeded, else
#: exception type, message and raising line.
COLUMNS = ("record", "database", "method", "criterion", "lead", "used_lead", "msc", "corr",
           "rate_error_bpm", "f_ref", "sigma2", "n_beats", "seconds", *BREATH_SCORES,
           EVENT_COLUMN, "error")
#: Columns of ``window_rates.csv``: one row per 32 s rate window (16 s step) of a successful
#: task; ``t_s`` is the window centre, rates in breaths/min, empty where missing (the EDR
#: rate when the method gave none; the reference rate when the window has too few breaths).
RATE_WINDOW_COLUMNS = ("record", "method", "criterion", "lead", "t_s", "edr_bpm", "ref_bpm")
#: Criterion label of methods without a kernel parameter.
NO_CRITERION = "none"
#: Lead label for "the recording's selected lead" (``lead=None`` in ``extract_edr``).
DEFAULT_LEAD = "default"

_PROTOCOL_SCORES = ("msc", "corr", "rate_error_bpm", "f_ref")


@dataclass(frozen=True)
class Task:
    """One unit of work: a record scored with one method, criterion and lead."""

    database: str
    record: str
    path: str
    method: str
    criterion: str
    lead: str

    @property
    def relpath(self) -> str:
        """Path of the task's result file below ``out_dir``."""
        return f"tasks/{self.record}/{self.method}__{self.criterion}__{self.lead}.json"


@dataclass(frozen=True)
class BatchSummary:
    """What :func:`run_batch` did."""

    results_csv: Path
    n_tasks: int
    n_run: int
    n_skipped: int
    n_errors: int
    errors: list[str] = field(default_factory=list)
    stored_errors: list[str] = field(default_factory=list)
    """The errors of the resumed tasks, kept from an earlier run (``retry_errors`` runs them
    again); ``errors`` are those of the tasks run now."""


def uses_sigma2(method: str) -> bool:
    """Whether ``method`` has a kernel parameter chosen by a sigma2 criterion.

    Read from the registry :data:`edr.methods.METHODS` (``MethodSpec.uses_sigma2``);
    an unknown method raises ``ValueError`` listing the valid keys.
    """
    from edr.methods import get_method

    return get_method(method).uses_sigma2


def plan_tasks(database: str, records: dict[str, Path], methods: Sequence[str],
               criteria: Sequence[str], leads: Sequence[str] = (DEFAULT_LEAD,), *,
               criteria_of: dict[str, Sequence[str]] | None = None) -> list[Task]:
    """Every (record, method, criterion, lead) combination, sorted by record.

    Methods for which :func:`uses_sigma2` is false get the single criterion
    :data:`NO_CRITERION`; a method named in ``criteria_of`` gets its own criteria instead of
    ``criteria``.
    """
    own = dict(criteria_of or {})
    for name, values in (("methods", methods), ("criteria", criteria), ("leads", leads),
                         *((f"criteria of {m}", c) for m, c in own.items())):
        if not values:
            raise ValueError(f"{name} must not be empty, got {list(values)!r}")
        bad = [v for v in values if not v or "__" in v or "/" in v]
        if bad:
            raise ValueError(f"{name} contains an invalid name {bad[0]!r} (empty, '__' or '/')")
    tasks = []
    for rec in sorted(records):
        for m in methods:
            for c in (own.get(m, criteria) if uses_sigma2(m) else (NO_CRITERION,)):
                for lead in leads:
                    tasks.append(Task(database, rec, str(records[rec]), m, c, lead))
    return tasks


#: Options of :func:`run_task` that choose the reference, read by :func:`edr.io.read_record`
#: (the others go to :func:`edr.pipeline.extract_edr`); ``breath_times`` a pattern naming each
#: record's own file (:func:`edr.io.side_files.side_file`).
READ_OPTIONS = ("resp_channel", "annotator", "breath_extension", "breath_times")


@lru_cache(maxsize=2)
def _read(path: str, read_options: tuple = ()):
    """The recording at ``path``, which must have a reference respiration
    (:func:`_check_reference`); with ``read_options`` (pairs of :data:`READ_OPTIONS`), a
    reference named but not usable (a :class:`~edr.errors.ReferenceWarning`) is an error."""
    import warnings

    from edr.errors import ReferenceWarning
    from edr.io import read_record

    with warnings.catch_warnings():
        if read_options:
            warnings.simplefilter("error", ReferenceWarning)
        recording = read_record(path, **dict(read_options))
    _check_reference(recording, own_breaths="breath_times" in dict(read_options))
    return recording


def _check_reference(recording, own_breaths: bool = False) -> None:
    """Raise :class:`~edr.errors.RecordError` when ``recording`` has no reference respiration
    channel to score against (nor, ``own_breaths``, breath times of one's own), naming its
    channels and annotation files."""
    if getattr(recording, "resp", None) is not None:
        return
    if own_breaths and getattr(recording, "breath_times", None) is not None:
        return  # one's own breath times: the rate error alone (edr.scoring.score_reference)
    from edr.errors import RecordError
    from edr.io.paths import record_kind, resolve_record
    from edr.io.wfdb_reader import annotation_files

    path = recording.path
    files = annotation_files(resolve_record(path)) if path and record_kind(path) == "wfdb" else []
    breaths = recording.breath_source or (
        f"annotation files {', '.join(files)} (none read: name one with --annotator)"
        if files else "no annotation file")
    raise RecordError(
        f"no reference respiration in {recording.name}: none of its channels "
        f"{', '.join(recording.channels)} is a respiration name (name it with --ref-channel, "
        f"or give breath times of your own with --breath-times PATTERN); breaths: {breaths}")


def _own_file(pattern: str, record) -> str:
    """The file a pattern names for ``record`` (:func:`edr.io.side_files.side_file`)."""
    from edr.io.side_files import side_file

    return side_file(pattern, record)


def _run_extract_edr(recording, method, **kwargs):
    from edr.pipeline import extract_edr

    return extract_edr(recording, method, **kwargs)


def _run_score(result, recording):
    from edr.scoring import score_reference

    return score_reference(result, recording)


def _window_rate_lists(result, recording) -> dict:
    """Per-window EDR and reference rates (lists) of :func:`edr.scoring.window_rates`."""
    from edr.scoring import window_rates

    centres, edr_bpm, ref_bpm = window_rates(result, recording)
    return {"t_s": centres.tolist(), "edr_bpm": edr_bpm.tolist(), "ref_bpm": ref_bpm.tolist()}


def _breath_scores(result, recording) -> dict:
    """The ``breath_*`` columns: :func:`edr.evaluate.breaths.score_kept` of the result's breaths
    (:attr:`edr.pipeline.EDRResult.breaths`) against the record's annotated breaths, at the
    point of the breath they mark (``breath_event``); empty without annotations."""
    import numpy as np

    from edr.evaluate.breaths import score_kept
    from edr.io.reference import END_OF_INSPIRATION

    reference = getattr(recording, "breath_times", None)
    if reference is None or np.size(reference) == 0:
        return {}
    event = getattr(recording, "breath_event", None) or END_OF_INSPIRATION
    return {**score_kept(result.breaths, reference, event=event).row(), EVENT_COLUMN: event}


def _num(x) -> float:
    return float("nan") if x is None else float(x)


def run_task(task: Task, options: dict | None = None) -> dict:
    """Extract and score one task; never raises for a failing record or method.

    Returns
    -------
    dict
        ``row`` (values of :data:`COLUMNS`), ``selection`` (``grid``/``curve``
        lists of the first window's sigma2 selection, or None), ``windows``
        (``t_s``, ``edr_bpm``, ``ref_bpm`` lists, NaN where a rate is missing;
        None on failure) and ``options``. The ``breath_*`` columns score the breaths when the
        record has breath annotations (NaN otherwise). A failure is recorded in
        ``row["error"]`` (exception type and message) with NaN scores.
    """
    options = dict(options or {})
    kwargs = {k: v for k, v in options.items() if k not in READ_OPTIONS}
    read_options = tuple((k, _own_file(options[k], task.path) if k == "breath_times" else
                          options[k]) for k in READ_OPTIONS if options.get(k) is not None)
    if task.criterion != NO_CRITERION:
        kwargs["sigma2"] = task.criterion
    if task.lead != DEFAULT_LEAD:
        kwargs["lead"] = task.lead
    row = {k: getattr(task, k) for k in ("record", "database", "method", "criterion", "lead")}
    row.update({k: float("nan") for k in (*_PROTOCOL_SCORES, "sigma2", "seconds", *BREATH_SCORES)})
    row.update(n_beats=0, used_lead="", error="", **{EVENT_COLUMN: ""})
    selection = windows = None
    t0 = time.perf_counter()
    try:
        recording = _read(task.path, read_options)
        result = _run_extract_edr(recording, task.method, **kwargs)
        scores = _run_score(result, recording)
        windows = _window_rate_lists(result, recording)
        row.update(msc=_num(scores.msc), corr=_num(scores.corr),
                   rate_error_bpm=_num(scores.rate_error_bpm), f_ref=_num(scores.f_ref),
                   sigma2=_num(result.sigma2), n_beats=int(result.n_beats),
                   used_lead=str(result.lead))
        row.update(_breath_scores(result, recording))
        sel = result.selection
        if sel is not None:
            selection = {"criterion": str(sel.criterion), "sigma2": float(sel.sigma2),
                         "grid": [float(v) for v in sel.grid],
                         "curve": [float(v) for v in sel.curve]}
    except Exception as exc:  # recorded per task; the batch goes on (see run_batch(retry_errors))
        last = traceback.extract_tb(exc.__traceback__)[-1]
        row["error"] = f"{type(exc).__name__}: {exc} [{Path(last.filename).name}:{last.lineno}]"
        windows = None
    row["seconds"] = time.perf_counter() - t0
    return {"row": row, "selection": selection, "windows": windows, "options": options}


def _write_json_making_folder(path: Path, obj) -> None:
    """:func:`edr.io.writers.write_json` into a folder created on demand (NaN stored as null)."""
    from edr.io.writers import write_json

    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, obj)


def _load_done(out_dir: Path, task: Task, options: dict, retry_errors: bool) -> dict | None:
    """The stored result of ``task`` when a run with the same ``options`` finished it (and,
    with ``retry_errors``, without an error), else None."""
    path = out_dir / task.relpath
    try:
        with open(path) as f:
            done = json.load(f)
    except (OSError, ValueError):
        return None
    if done.get("options") != options or done.get("task") != asdict(task):
        return None
    if retry_errors and done["row"]["error"]:
        return None
    return done


def _error_text(outcome) -> str:
    """The error of a task: its row's (``run_task`` records what the extraction raised), else
    what the back-end raised for it (a worker that died)."""
    if outcome.error is not None:
        return f"{type(outcome.error).__name__}: {outcome.error}"
    return outcome.value["row"]["error"]


def run_batch(tasks: Iterable[Task], out_dir: str | Path, *, options: dict | None = None,
              jobs: int | None = None, scheduler=None, progress: bool = True,
              retry_errors: bool = False) -> BatchSummary:
    """Run the tasks not done yet, write each result at once, then :func:`assemble` ``results.csv``.

    Parameters
    ----------
    tasks : iterable of Task
    out_dir : path
        Output folder (created). Results of a previous run with the same
        ``options`` are kept and not recomputed.
    options : dict, optional
        Extra keyword arguments of :func:`edr.pipeline.extract_edr`
        (``window_s``, ``random_state``, ...) and of :func:`edr.io.read_record`
        (:data:`READ_OPTIONS`: ``resp_channel``, ``annotator``, ``breath_extension``; a
        reference named but missing or unusable is the task's error); part of a task's
        identity.
    jobs : int, optional
        Worker processes (default: CPU count); 1 runs in this process.
    scheduler : str or dask.distributed address, optional
        Run on this Dask distributed scheduler instead of local processes.
    progress : bool, default True
        tqdm progress bar on stderr.
    retry_errors : bool, default False
        Re-run tasks whose stored result is an error.

    Returns
    -------
    BatchSummary
        A task whose worker died (not stored, so the next run tries it again) counts as an
        error too.

    Raises
    ------
    ValueError
        ``jobs`` is not a positive integer.
    KeyboardInterrupt
        After the tasks finished so far are stored (a new run resumes from them).

    See Also
    --------
    edr.jobs.run_jobs : the runner (resumption, processes, Dask).
    """
    out_dir = Path(out_dir)
    options = dict(options or {})
    if jobs is not None and (not isinstance(jobs, int) or jobs < 1):
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
    tasks = list(tasks)
    out_dir.mkdir(parents=True, exist_ok=True)
    outcomes = run_jobs(
        tasks, partial(run_task, options=options),
        done=lambda task: _load_done(out_dir, task, options, retry_errors),
        store=lambda task, res: _write_json_making_folder(out_dir / task.relpath,
                                                          {"task": asdict(task), **res}),
        backend="serial" if jobs == 1 else "processes", workers=jobs, scheduler=scheduler,
        progress={"desc": "edr evaluate", "unit": "task"} if progress else None)
    n_run = 0
    errors, stored_errors = [], []
    for outcome in outcomes:
        n_run += not outcome.resumed
        error = _error_text(outcome)
        if error:
            task = outcome.job
            (stored_errors if outcome.resumed else errors).append(
                f"{task.record} {task.method}/{task.criterion}/{task.lead}: {error}")
    csv_path = assemble(out_dir, options=options)
    return BatchSummary(csv_path, len(tasks), n_run, len(tasks) - n_run, len(errors), errors,
                        stored_errors)


def _csv_cell(v) -> str:
    if v is None:  # NaN as stored in a task file
        return ""
    if isinstance(v, float):
        return "" if math.isnan(v) else repr(v)
    return str(v)


def _write_rows(path: Path, header, rows) -> None:
    """A CSV in UTF-8; a record name that is not (a file name in another encoding) is written
    with its undecodable bytes escaped (``caf\\udce9``)."""
    from edr.io.writers import atomic_path

    with atomic_path(path) as tmp, open(tmp, "w", newline="", encoding="utf-8",
                                        errors="backslashreplace") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows([_csv_cell(v) for v in r] for r in rows)


def assemble(out_dir: str | Path, *, options: dict | None = None) -> Path:
    """Write ``results.csv``, ``window_rates.csv`` and ``selection_curves.json`` from the task
    files.

    Every task file under ``out_dir/tasks`` is included (an output folder
    accumulates the tasks of successive runs, e.g. a second run that adds a
    criterion or a lead), except those computed with other ``options`` when
    ``options`` is given.

    Returns
    -------
    Path
        ``out_dir/results.csv``; rows sorted by (record, method, criterion, lead),
        floats written with ``repr`` (exact round trip), NaN as an empty field.
    """
    out_dir = Path(out_dir)
    files = sorted(p for p in (out_dir / "tasks").glob("*/*.json")
                   if not p.name.startswith("."))  # a temporary file is no task's result
    rows, curves, windows = [], [], []
    for path in files:
        with open(path) as f:
            done = json.load(f)
        if options is not None and done.get("options") != options:
            continue
        rows.append(done["row"])
        win = done.get("windows")
        if win and not done["row"]["error"]:
            r = done["row"]
            key = [r[k] for k in ("record", "method", "criterion", "lead")]
            windows += [key + list(v) for v in zip(win["t_s"], win["edr_bpm"],
                                                   win["ref_bpm"], strict=False)]
        if done.get("selection"):
            r = done["row"]
            sel = dict(done["selection"])
            # the registry's canonical key, e.g. "varon2015"
            sel["selection_key"] = sel.pop("criterion")
            curves.append({k: r[k] for k in ("record", "method", "criterion", "lead")} | sel)
    key = lambda r: (r["record"], r["method"], r["criterion"], r["lead"])  # noqa: E731
    rows.sort(key=key)
    curves.sort(key=key)
    windows.sort(key=lambda w: (*w[:4], w[4]))
    csv_path = out_dir / "results.csv"
    _write_rows(csv_path, COLUMNS, ([r.get(c, "") for c in COLUMNS] for r in rows))
    _write_rows(out_dir / "window_rates.csv", RATE_WINDOW_COLUMNS, windows)
    _write_json_making_folder(out_dir / "selection_curves.json", curves)
    return csv_path
