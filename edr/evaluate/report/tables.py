"""The results of a batch evaluation as tables: scores per record and configuration.

Reads the ``results.csv`` and ``window_rates.csv`` written by :mod:`edr.evaluate.batch`:
:func:`load_results` pivots the rows to records x configurations (a configuration is a
method, its σ² criterion and its lead mode), :func:`load_window_rates` pools the window
rates of each configuration, :func:`lead_choice` compares the lead ``auto`` chose with the
best single lead.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from edr.evaluate.agreement import Agreement, agreement
from edr.evaluate.batch import DEFAULT_LEAD
from edr.evaluate.breaths import EVENT_COLUMN, SCORE_COLUMNS
from edr.options import LEAD_MODES

__all__ = ["CONFIG_LEADS", "METRICS", "Metric", "ResultsTable", "config_column", "config_order",
           "lead_choice", "load_results", "load_window_rates", "parse_float", "window_agreement"]


@dataclass(frozen=True)
class Metric:
    """A score column: its CSV name, label, and whether larger is better."""

    column: str
    label: str
    higher_is_better: bool
    fmt: str


METRICS = (
    Metric("msc", "MSC", True, "{:.2f}"),
    Metric("corr", "|r|", True, "{:.2f}"),
    Metric("rate_error_bpm", "rate error (breaths/min)", False, "{:.1f}"),
)


CRITERIA_ORDER = ("mdd", "varon2015", "mdd-fast", "varon2015-fast", "shannon", "widjaja2012",
                  "kpa", "jorgensen2012", "rule-of-thumb")


@dataclass
class ResultsTable:
    """Results pivoted to records x configurations.

    Attributes
    ----------
    records : list[str]
    configs : list[str]
        Labels ``method`` or ``method/criterion`` (``@lead`` appended when
        several leads were evaluated), in display order.
    values : dict[str, np.ndarray]
        Metric column (and ``"sigma2"``, ``"n_beats"``, ``"seconds"``, the breath scores
        :data:`edr.evaluate.breaths.SCORE_COLUMNS`) -> array (n_records, n_configs), NaN where
        the task failed, is missing or (breath scores) the record has no breath annotations.
    errors : list[tuple[str, str, str]]
        (record, config, message) of failed tasks.
    config_parts : dict[str, tuple[str, str, str]]
        Label -> (method, criterion, lead).
    single_lead_rows : list[dict]
        Rows run on one named lead (``--leads II,V,...``) by a method and criterion
        that also ran in a lead mode (``default``, ``auto``, ...). They are not
        configurations of the main tables: they are the per-lead yardstick of
        the lead-choice section (which lead would have been best per record). A
        method and criterion run on named leads only are configurations.
    used_leads : dict
        (record, method, criterion, lead) -> the ``used_lead`` column (the lead
        ``auto`` chose), empty when the results file predates that column.
    breath_events : dict
        (record, configuration label) -> the ``breath_event`` column (the point of the breath
        its breath scores compare: :data:`edr.evaluate.breaths.EVENT_COLUMN`), for the rows
        that state one.
    """

    records: list[str]
    configs: list[str]
    values: dict[str, np.ndarray]
    errors: list[tuple[str, str, str]]
    config_parts: dict[str, tuple[str, str, str]]
    single_lead_rows: list[dict] = field(default_factory=list)
    used_leads: dict[tuple[str, str, str, str], str] = field(default_factory=dict)
    breath_events: dict[tuple[str, str], str] = field(default_factory=dict)


#: Lead labels that are configurations; any other lead label names one ECG lead.
CONFIG_LEADS = (DEFAULT_LEAD, *LEAD_MODES)


def parse_float(s: str) -> float:
    """A CSV cell as float, NaN when empty."""
    return float(s) if s not in ("", None) else math.nan


def config_order(parts: tuple[str, str, str]):
    """Sort key of a configuration ``(method, criterion, lead)``: kernel methods first, by
    method, criterion (:data:`CRITERIA_ORDER`), then the default lead first."""
    method, criterion, lead = parts
    crit = (CRITERIA_ORDER.index(criterion) if criterion in CRITERIA_ORDER
            else len(CRITERIA_ORDER))
    return (criterion == "none", method, crit, criterion, lead != "default", lead)


def load_results(path: str | Path) -> ResultsTable:
    """Read a batch ``results.csv`` into a :class:`ResultsTable`.

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    ValueError
        A required column is missing or the file has no rows.
    """
    path = Path(path)
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
        fields = reader.fieldnames or []
    need = {"record", "method", "criterion", "lead", "sigma2", *(m.column for m in METRICS)}
    missing = sorted(need - set(fields))
    if missing:
        raise ValueError(f"results file {path} lacks column(s) {missing}; has {fields}")
    # a named lead is the lead-choice yardstick of a (method, criterion) that also ran in a lead
    # mode; a (method, criterion) run on named leads only is a configuration of its own
    with_modes = {(r["method"], r["criterion"]) for r in rows if r["lead"] in CONFIG_LEADS}
    single = [r for r in rows if r["lead"] not in CONFIG_LEADS
              and (r["method"], r["criterion"]) in with_modes]
    rows = [r for r in rows if r["lead"] in CONFIG_LEADS
            or (r["method"], r["criterion"]) not in with_modes]
    if not rows:
        raise ValueError(f"results file {path} has no rows")
    several_leads = len({r["lead"] for r in rows}) > 1
    parts = {}
    for r in rows:
        label = r["method"] if r["criterion"] == "none" else f"{r['method']}/{r['criterion']}"
        if several_leads:
            label += f"@{r['lead']}"
        parts[label] = (r["method"], r["criterion"], r["lead"])
        r["_config"] = label
    configs = sorted(parts, key=lambda c: config_order(parts[c]))
    records = sorted({r["record"] for r in rows})
    ri = {r: i for i, r in enumerate(records)}
    ci = {c: j for j, c in enumerate(configs)}
    cols = [m.column for m in METRICS] + ["sigma2", "n_beats", "seconds", *SCORE_COLUMNS]
    values = {c: np.full((len(records), len(configs)), np.nan) for c in cols}
    errors = []
    used = {}
    events = {}
    for r in rows:
        used[(r["record"], r["method"], r["criterion"], r["lead"])] = r.get("used_lead", "")
        if r.get(EVENT_COLUMN):
            events[(r["record"], r["_config"])] = r[EVENT_COLUMN]
        i, j = ri[r["record"]], ci[r["_config"]]
        for c in cols:
            if c in r:
                values[c][i, j] = parse_float(r[c])
        if r.get("error"):
            errors.append((r["record"], r["_config"], r["error"]))
            for m in METRICS:
                values[m.column][i, j] = np.nan
    return ResultsTable(records, configs, values, errors, parts, single, used, events)


def load_window_rates(path: str | Path, table: ResultsTable) -> dict[str,
                                                                     tuple[np.ndarray,
                                                                           np.ndarray, int]]:
    """Pool a batch ``window_rates.csv`` per configuration of ``table``.

    Returns
    -------
    dict
        Configuration label -> (EDR rates, reference rates, number of records)
        over all windows of its records, NaN where a rate is missing. Rows of
        single-lead runs and of configurations not in ``table`` are left out.
    """
    label = {parts: c for c, parts in table.config_parts.items()}
    pooled: dict[str, tuple[list, list, set]] = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            c = label.get((r["method"], r["criterion"], r["lead"]))
            if c is None:
                continue
            e, ref, recs = pooled.setdefault(c, ([], [], set()))
            e.append(parse_float(r["edr_bpm"]))
            ref.append(parse_float(r["ref_bpm"]))
            recs.add(r["record"])
    return {c: (np.array(e), np.array(ref), len(recs)) for c, (e, ref, recs) in pooled.items()}


def window_agreement(windows: dict[str, tuple[np.ndarray, np.ndarray, int]]) -> dict[str,
                                                                                     Agreement]:
    """:func:`edr.evaluate.agreement.agreement` of every configuration's pooled windows."""
    return {c: agreement(e, r) for c, (e, r, _) in windows.items()}


def lead_choice(table: ResultsTable) -> list[dict]:
    """Per record: the lead ``auto`` chose against the best single lead (an oracle).

    For every (method, criterion) that has ``@auto`` rows and single-lead rows,
    the oracle lead of a record is the single lead with the highest MSC (it
    looks at the reference, so it is a yardstick, not a method).

    Returns
    -------
    list of dict
        ``record, method, criterion, auto_lead, oracle_lead, msc_auto,
        msc_oracle, msc_default`` per record with both available.
    """
    out = []
    for (method, criterion, lead) in table.config_parts.values():
        if lead != "auto":
            continue
        cands = [r for r in table.single_lead_rows
                 if r["method"] == method and r["criterion"] == criterion and not r.get("error")]
        if not cands:
            continue
        auto = config_column(table, method, criterion, "auto")
        default = config_column(table, method, criterion, "default")
        for i, rec in enumerate(table.records):
            mine = [r for r in cands if r["record"] == rec and np.isfinite(parse_float(r["msc"]))]
            used = table.used_leads.get((rec, method, criterion, "auto"), "")
            if not mine or not used or not np.isfinite(table.values["msc"][i, auto]):
                continue
            best = max(mine, key=lambda r: parse_float(r["msc"]))
            out.append({"record": rec, "method": method, "criterion": criterion, "auto_lead": used,
                        "oracle_lead": best["lead"],
                        "msc_auto": float(table.values["msc"][i, auto]),
                        "msc_oracle": parse_float(best["msc"]),
                        "msc_default": float(table.values["msc"][i, default])
                        if default is not None else math.nan})
    return out


def config_column(table: ResultsTable, method: str, criterion: str, lead: str) -> int | None:
    """Column of the configuration ``(method, criterion, lead)`` in ``table``, None when absent."""
    for j, c in enumerate(table.configs):
        if table.config_parts[c] == (method, criterion, lead):
            return j
    return None
