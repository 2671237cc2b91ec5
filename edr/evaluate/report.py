"""Markdown + PNG report of a batch evaluation (``python -m edr.evaluate.report results.csv -o
report/``).

Reads the ``results.csv`` written by :mod:`edr.evaluate.batch` (and, when
present next to it, ``window_rates.csv``, ``selection_curves.json`` and
``batch.json``) and writes ``README.md`` with:

* the headline table: median (25th, 75th percentile) over records of MSC,
  |r| and the respiratory-rate error for every configuration
  (method / sigma2 criterion / lead), as reported by Varon et al. 2015;
* box plots per metric and configuration as in Fig. 18 of Varon et al. 2015,
  with significance markers against a reference configuration;
* sigma2 selection curves (Fig. 7(d) / Fig. 9 style) and the chosen sigma2;
* the significance tables. Records are *paired* across configurations, so the
  primary tests are Friedman + pairwise Wilcoxon signed-rank (Bonferroni);
  Kruskal–Wallis + Dunn (Bonferroni), the paper's choice, are given for
  comparability (:mod:`edr.evaluate.stats`);
* window-level agreement of the respiratory rate in the conventions of
  Charlton et al. 2016 (bias, 95 % limits of agreement, MAE, RMSE, share of
  windows within 2 breaths/min, coverage; :mod:`edr.evaluate.agreement`),
  pooled over every window of every record, and Bland–Altman plots of the
  reference configuration and the comparison ones;
* an automatic summary of where each configuration wins and loses, counted per
  record, and the per-record tables.

The protocol and the report's choices are documented in ``docs/design.md``,
section 5.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from edr.evaluate import stats
from edr.evaluate.agreement import Agreement, agreement
from edr.options import DEFAULT_METHOD

__all__ = ["METRICS", "Metric", "ResultsTable", "load_results", "load_window_rates",
           "window_agreement",
           "write_report", "build_parser", "main"]

#: Where the protocol and the report's decisions are written down.
PROTOCOL_DOC = "docs/design.md, section 5 (Evaluation protocol and report)"


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
_CRITERIA_ORDER = ("mdd", "varon2015", "shannon", "widjaja2012", "kpa", "jorgensen2012",
                   "rule-of-thumb")
_ALPHA = 0.05


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
        Metric column (and ``"sigma2"``, ``"n_beats"``, ``"seconds"``) ->
        array (n_records, n_configs), NaN where the task failed or is missing.
    errors : list[tuple[str, str, str]]
        (record, config, message) of failed tasks.
    config_parts : dict[str, tuple[str, str, str]]
        Label -> (method, criterion, lead).
    single_lead_rows : list[dict]
        Rows run on one named lead (``--leads II,V,...``). They are not
        configurations of the main tables: they are the per-lead yardstick of
        the lead-choice section (which lead would have been best per record).
    used_leads : dict
        (record, method, criterion, lead) -> the ``used_lead`` column (the lead
        ``auto`` chose), empty when the results file predates that column.
    """

    records: list[str]
    configs: list[str]
    values: dict[str, np.ndarray]
    errors: list[tuple[str, str, str]]
    config_parts: dict[str, tuple[str, str, str]]
    single_lead_rows: list[dict] = field(default_factory=list)
    used_leads: dict[tuple[str, str, str, str], str] = field(default_factory=dict)


#: Lead labels that are configurations; any other lead label names one ECG lead.
LEAD_MODES = ("default", "auto", "fuse", "multilead")


def _float(s: str) -> float:
    return float(s) if s not in ("", None) else math.nan


def _config_order(parts: tuple[str, str, str]):
    method, criterion, lead = parts
    crit = (_CRITERIA_ORDER.index(criterion) if criterion in _CRITERIA_ORDER
            else len(_CRITERIA_ORDER))
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
    single = [r for r in rows if r["lead"] not in LEAD_MODES]
    rows = [r for r in rows if r["lead"] in LEAD_MODES]
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
    configs = sorted(parts, key=lambda c: _config_order(parts[c]))
    records = sorted({r["record"] for r in rows})
    ri = {r: i for i, r in enumerate(records)}
    ci = {c: j for j, c in enumerate(configs)}
    cols = [m.column for m in METRICS] + ["sigma2", "n_beats", "seconds"]
    values = {c: np.full((len(records), len(configs)), np.nan) for c in cols}
    errors = []
    used = {}
    for r in rows:
        used[(r["record"], r["method"], r["criterion"], r["lead"])] = r.get("used_lead", "")
        i, j = ri[r["record"]], ci[r["_config"]]
        for c in cols:
            if c in r:
                values[c][i, j] = _float(r[c])
        if r.get("error"):
            errors.append((r["record"], r["_config"], r["error"]))
            for m in METRICS:
                values[m.column][i, j] = np.nan
    return ResultsTable(records, configs, values, errors, parts, single, used)


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
            e.append(_float(r["edr_bpm"]))
            ref.append(_float(r["ref_bpm"]))
            recs.add(r["record"])
    return {c: (np.array(e), np.array(ref), len(recs)) for c, (e, ref, recs) in pooled.items()}


def window_agreement(windows: dict[str, tuple[np.ndarray, np.ndarray, int]]) -> dict[str,
                                                                                     Agreement]:
    """:func:`edr.evaluate.agreement.agreement` of every configuration's pooled windows."""
    return {c: agreement(e, r) for c, (e, r, _) in windows.items()}


def _comparison_configs(table: ResultsTable, ref: str, agree: dict[str, Agreement],
                        wanted: Sequence[str] | None) -> list[str]:
    """Configurations of the Bland–Altman figure: the reference, then ``wanted`` or by default
    the two with the lowest MAE among the methods other than the reference's."""
    if wanted:
        bad = [c for c in wanted if c not in agree]
        if bad:
            raise ValueError(f"Bland–Altman configuration {bad[0]!r} has no window rates; "
                             f"have {sorted(agree)}")
        return [ref] + [c for c in wanted if c != ref]
    ref_method = table.config_parts[ref][0]
    others = [c for c, a in agree.items()
              if table.config_parts[c][0] != ref_method and np.isfinite(a.mae)]
    others.sort(key=lambda c: (agree[c].mae, table.configs.index(c)))
    return [ref] + others[:2]


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
        auto = _column(table, method, criterion, "auto")
        default = _column(table, method, criterion, "default")
        for i, rec in enumerate(table.records):
            mine = [r for r in cands if r["record"] == rec and np.isfinite(_float(r["msc"]))]
            used = table.used_leads.get((rec, method, criterion, "auto"), "")
            if not mine or not used or not np.isfinite(table.values["msc"][i, auto]):
                continue
            best = max(mine, key=lambda r: _float(r["msc"]))
            out.append({"record": rec, "method": method, "criterion": criterion, "auto_lead": used,
                        "oracle_lead": best["lead"],
                        "msc_auto": float(table.values["msc"][i, auto]),
                        "msc_oracle": _float(best["msc"]),
                        "msc_default": float(table.values["msc"][i, default])
                        if default is not None else math.nan})
    return out


def _column(table: ResultsTable, method: str, criterion: str, lead: str) -> int | None:
    for j, c in enumerate(table.configs):
        if table.config_parts[c] == (method, criterion, lead):
            return j
    return None


def _lead_choice_section(table: ResultsTable) -> str:
    rows = lead_choice(table)
    if not rows:
        return ""
    L = ["\n## Lead choice: `auto` against the best single lead\n",
         "The oracle lead of a record is the single lead whose EDR has the highest MSC against the "
         "reference (a yardstick that looks at the reference; `auto` sees the ECG only). "
         "`default` is the record's selected lead (II on BIDMC).\n"]
    for key in sorted({(r["method"], r["criterion"]) for r in rows}):
        sub = [r for r in rows if (r["method"], r["criterion"]) == key]
        hits = sum(r["auto_lead"] == r["oracle_lead"] for r in sub)
        med = {k: float(np.median([r[k] for r in sub])) for k in ("msc_default",
                                                                  "msc_auto", "msc_oracle")}
        L.append(f"**{key[0]}/{key[1]}**: `auto` picked the oracle's lead on **{hits} of "
                 f"{len(sub)}** records; median MSC default {med['msc_default']:.2f}, auto "
                 f"{med['msc_auto']:.2f}, oracle {med['msc_oracle']:.2f}.\n")
        L.append("| record | auto's lead | oracle lead | MSC default | MSC auto | MSC oracle |")
        L.append("|---|---|---|---|---|---|")
        for r in sub:
            L.append(f"| {r['record']} | {r['auto_lead']} | {r['oracle_lead']} | "
                     f"{r['msc_default']:.2f} | {r['msc_auto']:.2f} | {r['msc_oracle']:.2f} |")
    return "\n".join(L) + "\n"


# ----------------------------------------------------------------------------- statistics

def _usable(table: ResultsTable, column: str) -> list[int]:
    """Configurations with a finite score on at least half of the records."""
    v = table.values[column]
    return [j for j in range(len(table.configs))
            if np.isfinite(v[:, j]).sum() >= max(2, v.shape[0] / 2)]


def _comparisons(table: ResultsTable, column: str):
    cols = _usable(table, column)
    if len(cols) < 2:
        return None, None, cols, 0
    groups = {table.configs[j]: table.values[column][:, j] for j in cols}
    try:
        paired = stats.compare(groups, paired=True)
    except ValueError:  # fewer than 2 complete records
        paired = None
    indep = stats.compare(groups, paired=False)
    n_complete = int(np.all(np.isfinite(table.values[column][:, cols]), axis=1).sum())
    return paired, indep, cols, n_complete


def _quartiles(x: np.ndarray) -> tuple[float, float, float, int]:
    x = x[np.isfinite(x)]
    if x.size == 0:
        return math.nan, math.nan, math.nan, 0
    q25, q50, q75 = np.percentile(x, [25, 50, 75])
    return float(q50), float(q25), float(q75), int(x.size)


def _reference(table: ResultsTable, wanted: str | None) -> str:
    if wanted:
        if wanted not in table.configs:
            raise ValueError(f"reference {wanted!r} not among the configurations {table.configs}")
        return wanted
    for default in (f"{DEFAULT_METHOD}/mdd", f"{DEFAULT_METHOD}/mdd@default", "kpca/mdd",
                    "kpca/mdd@default"):
        if default in table.configs:
            return default
    msc = table.values["msc"]
    med = [np.nanmedian(msc[:, j]) if np.isfinite(msc[:, j]).any() else -np.inf
           for j in range(msc.shape[1])]
    return table.configs[int(np.argmax(med))]


def _stars(p: float) -> str:
    return "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < _ALPHA else ""


# ----------------------------------------------------------------------------- figures

def _plot_boxes(table: ResultsTable, ref: str, comps: dict, path: Path) -> None:
    import matplotlib.pyplot as plt

    n = len(table.configs)
    fig, axes = plt.subplots(len(METRICS), 1,
                             figsize=(max(7.0, 0.62 * n + 2.0), 3.1 * len(METRICS)),
                             sharex=True)
    x = np.arange(n)
    rng = np.random.default_rng(0)
    jr = table.configs.index(ref)
    for ax, m in zip(axes, METRICS, strict=False):
        v = table.values[m.column]
        data = [v[:, j][np.isfinite(v[:, j])] for j in range(n)]
        keep = [j for j in range(n) if data[j].size]
        bp = ax.boxplot([data[j] for j in keep], positions=x[keep], widths=0.6, showfliers=False,
                        patch_artist=True, medianprops={"color": "k", "lw": 1.6})
        for j, box in zip(keep, bp["boxes"], strict=False):
            box.set_facecolor("#f4a582" if j == jr else "#d1e5f0" if "/" in table.configs[j]
                              else "#e0e0e0")
        for j in keep:
            ax.plot(x[j] + rng.uniform(-0.18, 0.18, data[j].size), data[j], ".",
                    color="0.25", ms=3.5,
                    alpha=0.7)
        paired = comps[m.column][0]
        top = max((d.max() for d in data if d.size), default=1.0)
        tested = ({name for p in paired.pairwise for name in (p.a, p.b)}
                  if paired is not None else set())
        if ref in tested:
            for j in keep:
                if j != jr and table.configs[j] in tested:
                    s = _stars(paired.pair(ref, table.configs[j]).pvalue_adjusted)
                    ax.text(x[j], top * 1.02, s, ha="center", va="bottom", fontsize=12,
                            color="#b2182b")
        if m.higher_is_better:
            ax.set_ylim(0, 1.1)
        else:  # errors: a few large ones would squash the boxes; linear below 1, logarithmic above
            from matplotlib.ticker import FormatStrFormatter, NullLocator

            ax.set_yscale("symlog", linthresh=1.0, linscale=0.6)
            ymax = top * 1.6 if top > 0 else 1.0
            ax.set_ylim(0, ymax)
            ax.set_yticks([t for t in (0, 0.5, 1, 2, 5, 10, 20, 50, 100) if t <= ymax])
            ax.yaxis.set_minor_locator(NullLocator())
            ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
        ax.set_ylabel(m.label if m.higher_is_better else f"{m.label}\n(log scale above 1)")
        ax.grid(axis="y", alpha=0.3)
        if paired is not None:
            ax.set_title(f"{m.label}: {paired.omnibus.test.capitalize()} p = "
                         f"{paired.omnibus.pvalue:.2g}  (n = {paired.omnibus.n_obs} complete "
                         "records)",
                         fontsize=10, loc="left")
    axes[-1].set_xticks(x)
    axes[-1].set_xticklabels(table.configs, rotation=40, ha="right", fontsize=9)
    fig.suptitle(f"Per-record scores, {len(table.records)} records; orange box = reference {ref}\n"
                 "* / ** / *** : differs from the reference (Wilcoxon signed-rank, Bonferroni p < "
                 ".05 / .01 / .001)",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _plot_bland_altman(windows: dict, agree: dict[str, Agreement], configs: list[str],
                       path: Path) -> None:
    """One Bland–Altman panel per configuration: difference against mean of the two rates."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(configs), figsize=(4.6 * len(configs), 4.0), squeeze=False,
                             sharex=True, sharey=True)
    for ax, c in zip(axes[0], configs, strict=False):
        e, r, n_rec = windows[c]
        ok = np.isfinite(e) & np.isfinite(r)
        a = agree[c]
        ax.plot((e[ok] + r[ok]) / 2, e[ok] - r[ok], ".", color="#2166ac", ms=3, alpha=0.35)
        for y, ls, txt in ((a.bias, "-", "bias"), (a.loa_low, "--", "−1.96 SD"),
                           (a.loa_high, "--", "+1.96 SD")):
            if np.isfinite(y):
                ax.axhline(y, color="#b2182b", ls=ls, lw=1.2)
                ax.annotate(f"{txt} {y:+.1f}", xy=(1, y),
                            xycoords=("axes fraction", "data"), ha="right",
                            va="bottom", fontsize=8, color="#b2182b")
        ax.axhline(0, color="0.5", lw=0.6)
        ax.set_title(f"{c}\n{a.n_paired} windows, {n_rec} records, coverage {100 * a.coverage:.0f} "
                     "%",
                     fontsize=9)
        ax.set_xlabel("mean of EDR and reference rate (breaths/min)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("EDR − reference rate (breaths/min)")
    fig.suptitle("Bland–Altman: 32 s windows (16 s step) pooled over records", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _agreement_section(table: ResultsTable, ref: str, agree: dict[str, Agreement], windows: dict,
                       figure: str | None) -> str:
    L = ["## Respiratory rate per window: agreement in the field's conventions\n",
         "Every 32 s window (16 s step, the windows of the rate error) of every record of a "
         "configuration, pooled (Charlton et al. 2016 conventions): error = EDR rate − reference "
         "rate; bias = mean error; 95 % limits of agreement = bias ± 1.96 SD (windows treated as "
         "independent: the limits ignore that windows of one record are correlated); MAE, RMSE; "
         "share of windows within 2 breaths/min; coverage = share of the windows with a reference "
         "rate that have an EDR rate (a method may abstain). Windows of failed tasks are not "
         "counted.\n",
         "| configuration | records | windows | coverage | bias | 95 % limits of agreement | MAE | "
         "RMSE | within 2 bpm |",
         "|---|---|---|---|---|---|---|---|---|"]

    def f(x, fmt="{:.1f}"):
        return "–" if not np.isfinite(x) else fmt.format(x)

    for c in table.configs:
        if c not in agree:
            continue
        a = agree[c]
        name = f"**{c}**" if c == ref else c
        L.append(f"| {name} | {windows[c][2]} | {a.n_paired}/{a.n_windows} | "
                 f"{f(100 * a.coverage, '{:.0f} %')} | {f(a.bias, '{:+.2f}')} | "
                 f"{f(a.loa_low, '{:+.1f}')} to {f(a.loa_high, '{:+.1f}')} | {f(a.mae, '{:.2f}')} "
                 f"| {f(a.rmse, '{:.2f}')} | {f(100 * a.within_2bpm, '{:.0f} %')} |")
    L.append("")
    if figure:
        L.append(f"![Bland–Altman]({figure})\n")
        L.append("Bland–Altman plots (one dot per window): solid line = bias, dashed = 95 % limits "
                 "of agreement.\n")
    return "\n".join(L) + "\n"


def _normalise(curve: np.ndarray) -> np.ndarray:
    c = np.asarray(curve, float)
    lo, hi = np.nanmin(c), np.nanmax(c)
    return (c - lo) / (hi - lo) if hi > lo else np.zeros_like(c)


def _has_curve(c: dict) -> bool:
    return len(c["grid"]) >= 3


def _plot_curves(curves: list[dict], path: Path) -> bool:
    """One panel per (method, criterion, lead) with a searched curve; False when there is none."""
    import matplotlib.pyplot as plt

    keys = sorted({(c["method"], c["criterion"], c["lead"]) for c in curves if _has_curve(c)},
                  key=lambda k: _config_order(k))
    if not keys:
        return False
    ncol = min(2, len(keys))
    nrow = math.ceil(len(keys) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(5.2 * ncol, 3.2 * nrow + 0.4), squeeze=False)
    for ax, key in zip(axes.flat, keys, strict=False):
        sel = [c for c in curves if (c["method"], c["criterion"],
                                     c["lead"]) == key and _has_curve(c)]
        for c in sel:
            g = np.asarray(c["grid"], float)
            y = _normalise(c["curve"])
            ax.plot(g, y, "-", color="#2166ac", lw=0.8, alpha=0.45)
            k = int(np.argmin(np.abs(g - c["sigma2"])))
            ax.plot(c["sigma2"], y[k], "o", color="#b2182b", ms=3.5)
        ax.set_xscale("log")
        lead = "" if key[2] == "default" else f" @{key[2]}"
        ax.set_title(f"{key[0]}/{key[1]}{lead}: {len(sel)} records", fontsize=10)
        ax.set_xlabel("σ²")
        ax.set_ylabel("criterion (scaled to [0, 1])")
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(keys):]:
        ax.set_visible(False)
    fig.suptitle("σ² selection curves per record (Varon et al. 2015, Fig. 7(d) style); red dot = "
                 "chosen σ²",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _plot_curves_one_record(curves: list[dict], record: str, path: Path) -> None:
    """Fig. 9 style: every criterion of one record, one panel per (method, lead)."""
    import matplotlib.pyplot as plt

    sel = sorted([c for c in curves if c["record"] == record],
                 key=lambda c: _config_order((c["method"], c["criterion"], c["lead"])))
    panels = list(dict.fromkeys((c["method"], c["lead"]) for c in sel))
    fig, axes = plt.subplots(1, len(panels), figsize=(5.0 * len(panels), 3.9), squeeze=False)
    for ax, (method, lead) in zip(axes[0], panels, strict=False):
        for i, c in enumerate(x for x in sel if (x["method"], x["lead"]) == (method, lead)):
            color = f"C{i}"
            label = f"{c['criterion']}: σ² = {c['sigma2']:.3g}"
            if _has_curve(c):
                ax.plot(c["grid"], _normalise(c["curve"]), "-", color=color, lw=1.5, label=label)
                ax.axvline(c["sigma2"], color=color, ls="--", lw=1)
            else:
                ax.axvline(c["sigma2"], color=color, ls="--", lw=1, label=label + " (closed form)")
        ax.set_xscale("log")
        ax.set_xlabel("σ²")
        ax.set_ylabel("criterion (scaled to [0, 1])")
        ax.set_title(method + ("" if lead == "default" else f" @{lead}"), fontsize=10)
        ax.legend(fontsize=8, loc="lower left")
        ax.grid(alpha=0.3)
    fig.suptitle(f"Model-selection criteria on {record} (Varon et al. 2015, Fig. 9 style); dashed: "
                 "chosen σ²",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ----------------------------------------------------------------------------- markdown

def _fmt(m: Metric, v: float) -> str:
    return "–" if not np.isfinite(v) else m.fmt.format(v)


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell (pipes escaped)."""
    return text.replace("|", "\\|")


def _p(p: float) -> str:
    return "–" if not np.isfinite(p) else f"{p:.2g}" if p >= 1e-4 else f"{p:.1e}"


def _wins(table: ResultsTable, m: Metric, cols: list[int]):
    """Per config: records where it is best, worst (ties count for each), of records complete on
    cols."""
    v = table.values[m.column][:, cols]
    v = v[np.all(np.isfinite(v), axis=1)]
    s = v if m.higher_is_better else -v
    best = (s == s.max(axis=1, keepdims=True)).sum(axis=0) if v.size else np.zeros(len(cols), int)
    worst = (s == s.min(axis=1, keepdims=True)).sum(axis=0) if v.size else np.zeros(len(cols), int)
    return best, worst, v.shape[0]


def _head_to_head(table: ResultsTable, m: Metric, ref: str, other: str) -> tuple[int, int, int]:
    v = table.values[m.column]
    a, b = v[:, table.configs.index(ref)], v[:, table.configs.index(other)]
    ok = np.isfinite(a) & np.isfinite(b)
    d = (a - b)[ok] * (1 if m.higher_is_better else -1)
    return int((d > 0).sum()), int((d < 0).sum()), int((d == 0).sum())


def _markdown(table: ResultsTable, ref: str, comps: dict, curves: list[dict], figures: dict,
              source: Path, command: str | None, agreement_md: str = "") -> str:
    """The report's Markdown text: introduction, headline table, (agreement section), automatic
    summary and wins table, figures (and σ² section when there are curves), statistical tests,
    per-record tables and failed tasks, in that order."""
    L = _intro_lines(table, ref, source, command)
    L += _headline_lines(table, ref)
    if agreement_md:
        L.append(agreement_md)
    L += _summary_lines(table, ref, comps)
    L.append(_wins_table(table, ref, comps))
    L += _figures_lines(table, ref, curves, figures)
    L += _omnibus_lines(table, comps)
    L += _reference_pairs_lines(table, ref, comps)
    L += _all_pairs_lines(comps)
    L += _per_record_lines(table)
    L += _failed_tasks_lines(table)
    return "\n".join(L) + "\n"


def _intro_lines(table: ResultsTable, ref: str, source: Path, command: str | None) -> list[str]:
    """Title, how the report and the results were produced, and the protocol summary."""
    L = [f"# EDR evaluation report: {len(table.records)} records, {len(table.configs)} "
         "configurations\n",
         f"Generated by `python -m edr.evaluate.report {source} -o <this folder>`."]
    if command:
        L.append(f"The results were produced by (one line per run into the same results folder; "
                 f"a run skips the tasks already stored):\n\n```\n{command}\n```")
    L.append(f"\nProtocol ({PROTOCOL_DOC}): EDR and reference on a 4 Hz grid, band-pass 0.05–1 Hz; "
             "MSC = mean magnitude-squared coherence over f_ref ± 0.1 Hz; |r| = |Pearson r| at "
             "zero lag; rate error = per-record median absolute error (breaths/min) over 32 s "
             "windows against the manual breath annotations where present. Configurations: "
             "`method` or `method/σ² criterion`"
             + (" `@lead`" if any("@" in c for c in table.configs) else "") + ". Reference "
             f"configuration: **{ref}**.\n")
    return L


def _headline_lines(table: ResultsTable, ref: str) -> list[str]:
    """Headline table: per configuration, median (quartiles) of every metric, σ², seconds."""
    n_rec = len(table.records)
    L = ["## Headline: median (25th, 75th percentile) over records\n",
         "| configuration | records ok | MSC ↑ | \\|r\\| ↑ | rate error (bpm) ↓ | σ² median | "
         "s/record |",
         "|---|---|---|---|---|---|---|"]
    for j, c in enumerate(table.configs):
        cells = []
        for m in METRICS:
            q50, q25, q75, n = _quartiles(table.values[m.column][:, j])
            cells.append(f"{_fmt(m, q50)} ({_fmt(m, q25)}, {_fmt(m, q75)})")
        n_ok = int(np.isfinite(table.values["msc"][:, j]).sum())
        s2 = table.values["sigma2"][:, j]
        s2t = f"{np.nanmedian(s2):.3g}" if np.isfinite(s2).any() else "–"
        sec = table.values["seconds"][:, j]
        sect = f"{np.nanmedian(sec):.1f}" if np.isfinite(sec).any() else "–"
        name = f"**{c}**" if c == ref else c
        L.append(f"| {name} | {n_ok}/{n_rec} | " + " | ".join(cells) + f" | {s2t} | {sect} |")
    L.append("")
    return L


def _summary_lines(table: ResultsTable, ref: str, comps: dict) -> list[str]:
    """Automatic summary: per metric, best/worst configurations and the reference's significant
    wins and losses; a note on failed tasks."""
    L = ["## Where each configuration wins and loses (automatic summary)\n"]
    for m in METRICS:
        paired, indep, cols, n_complete = comps[m.column]
        if len(cols) < 2:
            L.append(f"- **{m.label}**: fewer than two configurations with enough results; no "
                     "comparison.")
            continue
        L.append(_metric_summary(table, m, cols))
        if paired is not None and ref in [table.configs[j] for j in cols]:
            L.append(_reference_summary(table, m, ref, paired, cols))
    if table.errors:
        L.append(f"- **Failures**: {len(table.errors)} task(s) failed and count as missing "
                 "(see *Failed tasks*).")
    L.append("")
    return L


def _metric_summary(table: ResultsTable, m: Metric, cols: list[int]) -> str:
    """Summary bullet of one metric: best and worst median, most often best and worst."""
    best, worst, n_c = _wins(table, m, cols)
    meds = [np.nanmedian(table.values[m.column][:, j]) for j in cols]
    order = np.argsort(meds)[::-1] if m.higher_is_better else np.argsort(meds)
    top = table.configs[cols[order[0]]]
    return (f"- **{m.label}** ({'higher' if m.higher_is_better else 'lower'} is better; "
            f"{n_c} records complete for every configuration): best median **{top}** "
            f"({_fmt(m, meds[order[0]])}), worst median {table.configs[cols[order[-1]]]} "
            f"({_fmt(m, meds[order[-1]])}). Best on most records: "
            + ", ".join(f"{table.configs[cols[k]]} ({best[k]})" for k in np.argsort(-best)[:3])
            + "; worst on most records: "
            + ", ".join(f"{table.configs[cols[k]]} ({worst[k]})"
                        for k in np.argsort(-worst)[:3]) + ".")


def _reference_summary(table: ResultsTable, m: Metric, ref: str, paired, cols: list[int]) -> str:
    """Summary sub-bullet: configurations the reference is significantly better / worse than /
    not different from, with record-wise wins–losses."""
    better, worse, same = [], [], []
    for j in cols:
        c = table.configs[j]
        if c == ref:
            continue
        pr = paired.pair(ref, c)
        w, lo, _ = _head_to_head(table, m, ref, c)
        tag = f"{c} ({w}–{lo})"
        if pr.significant():
            (better if w > lo else worse).append(tag)
        else:
            same.append(tag)
    return (f"  - {ref} vs others (records where {ref} is better–worse): significantly "
            f"better than {', '.join(better) or 'none'}; significantly worse than "
            f"{', '.join(worse) or 'none'}; no significant difference from "
            f"{', '.join(same) or 'none'} (Wilcoxon signed-rank, Bonferroni, α = 0.05).")


def _figures_lines(table: ResultsTable, ref: str, curves: list[dict], figures: dict) -> list[str]:
    """Figures section (box plots, σ² curves, criteria on one record) and, when there are
    curves, the σ² comparison section."""
    L = ["## Figures\n",
         f"![box plots]({figures['boxes']})\n",
         "Box plots as in Varon et al. 2015, Fig. 18 (box = 25th–75th percentile, whiskers 1.5 "
         "IQR, dots = records). Stars mark configurations that differ from the reference "
         f"({ref}) by the pairwise Wilcoxon signed-rank test with Bonferroni correction.\n"]
    if "curves" in figures:
        L.append(f"![sigma2 curves]({figures['curves']})\n")
        L.append("σ² selection curves of every record (first window), each scaled to [0, 1]; "
                 "the red dot is the chosen σ² (maximum of the criterion). The rule of thumb (Eq. "
                 "(20)) is a closed form and has no curve.\n")
    if "one_record" in figures:
        L.append(f"![criteria on one record]({figures['one_record']})\n")
        L.append(f"All criteria on one record ({figures['one_record_name']}), Fig. 9 style; "
                 "dashed lines: chosen σ².\n")
    if curves:
        L.append(_sigma2_section(table))
    return L


def _omnibus_lines(table: ResultsTable, comps: dict) -> list[str]:
    """Statistical tests section: explanation and the omnibus (Friedman, Kruskal–Wallis) table."""
    L = ["## Statistical tests\n",
         "Every configuration is scored on the *same* records, so the samples are paired: the "
         "primary tests are the Friedman test across configurations and pairwise Wilcoxon "
         "signed-rank tests with Bonferroni correction over all k(k-1)/2 pairs of the k tested "
         "configurations (effect sizes: Kendall's W; matched-pairs rank-biserial r, positive "
         "when the first configuration scores higher). Varon et al. 2015 used Kruskal–Wallis "
         "and MATLAB's `multcompare` with Bonferroni correction, i.e. Dunn's test on the joint "
         "ranks; these are given for comparability (effect sizes ε² and Cliff's delta). "
         "Records with a failed task are left out of the paired tests; configurations that "
         "failed on more than half of the records are left out of all tests.\n",
         "| metric | Friedman χ² | df | p | Kendall's W | complete records | Kruskal–Wallis H "
         "| p | ε² |",
         "|---|---|---|---|---|---|---|---|---|"]
    for m in METRICS:
        paired, indep, cols, n_complete = comps[m.column]
        if indep is None:
            continue
        po = paired.omnibus if paired is not None else None
        fr = (f"{po.statistic:.2f} | {po.df} | {_p(po.pvalue)} | {po.effect_size:.2f} | {po.n_obs}"
              if po is not None and po.test == "friedman" else "– | – | – | – | " + str(n_complete))
        io = indep.omnibus
        L.append(f"| {_cell(m.label)} | {fr} | {io.statistic:.2f} | {_p(io.pvalue)} | "
                 f"{io.effect_size:.2f} |")
    L.append("")
    return L


def _reference_pairs_lines(table: ResultsTable, ref: str, comps: dict) -> list[str]:
    """Table of every configuration against the reference: Wilcoxon p_adj (r) and Dunn p_adj per
    metric."""
    L = [f"### Pairwise comparisons with the reference ({ref})\n",
         "| configuration | " + " | ".join(
             f"{_cell(m.label)}: Wilcoxon p_adj (r) | {_cell(m.label)}: Dunn p_adj"
             for m in METRICS) + " |",
         "|---|" + "---|---|" * len(METRICS)]
    for c in table.configs:
        if c == ref:
            continue
        cells = []
        for m in METRICS:
            paired, indep, cols, _ = comps[m.column]
            names = [table.configs[j] for j in cols]
            if c in names and ref in names and paired is not None:
                w = paired.pair(ref, c)
                d = indep.pair(ref, c)
                sign = 1 if w.a == ref else -1
                cells.append(f"{_p(w.pvalue_adjusted)}{_stars(w.pvalue_adjusted)} "
                             f"({sign * w.effect_size:+.2f}) | "
                             f"{_p(d.pvalue_adjusted)}{_stars(d.pvalue_adjusted)}")
            else:
                cells.append("– | –")
        L.append(f"| {c} | " + " | ".join(cells) + " |")
    L.append("\nr > 0: the reference scores higher than the configuration (for the rate error, "
             "higher is worse).\n")
    return L


def _all_pairs_lines(comps: dict) -> list[str]:
    """Collapsible table per metric of every tested pair (Wilcoxon and Dunn)."""
    L = []
    for m in METRICS:
        paired, indep, cols, _ = comps[m.column]
        if paired is None:
            continue
        L.append(f"<details><summary>All pairs, {m.label}</summary>\n")
        L.append("| a | b | Wilcoxon T+ | p | p_adj (Bonferroni) | rank-biserial r | Dunn z | Dunn "
                 "p_adj | Cliff's δ |")
        L.append("|---|---|---|---|---|---|---|---|---|")
        for w in paired.pairwise:
            d = indep.pair(w.a, w.b)
            L.append(f"| {w.a} | {w.b} | {w.statistic:g} | {_p(w.pvalue)} | {_p(w.pvalue_adjusted)}"
                     f"{_stars(w.pvalue_adjusted)} | {w.effect_size:+.2f} | {d.statistic:+.2f} | "
                     f"{_p(d.pvalue_adjusted)}{_stars(d.pvalue_adjusted)} | {d.effect_size:+.2f} |")
        L.append("\n</details>\n")
    return L


def _per_record_lines(table: ResultsTable) -> list[str]:
    """Collapsible table per metric of every record and configuration, best of each row bold."""
    L = ["## Per-record results\n"]
    for m in METRICS:
        v = table.values[m.column]
        L.append(f"<details><summary>{m.label} per record (best of each row in bold)</summary>\n")
        L.append("| record | " + " | ".join(table.configs) + " |")
        L.append("|---|" + "---|" * len(table.configs))
        for i, r in enumerate(table.records):
            row = v[i]
            fin = np.isfinite(row)
            best = (np.nanmax(row) if m.higher_is_better
                    else np.nanmin(row)) if fin.any() else np.nan
            cells = [f"**{_fmt(m, x)}**" if np.isfinite(x) and x == best else _fmt(m, x)
                     for x in row]
            L.append(f"| {r} | " + " | ".join(cells) + " |")
        L.append("\n</details>\n")
    return L


def _failed_tasks_lines(table: ResultsTable) -> list[str]:
    """Failed tasks table (record, configuration, error); empty when none failed."""
    if not table.errors:
        return []
    L = ["## Failed tasks\n", "| record | configuration | error |", "|---|---|---|"]
    for r, c, e in table.errors:
        L.append(f"| {r} | {c} | {_cell(e)} |")
    L.append("")
    return L


def _wins_table(table: ResultsTable, ref: str, comps: dict) -> str:
    """Per configuration and metric: records where it is best / worst, and its record-wise
    wins–losses–ties against the reference (reference's view), starred when significant."""
    L = ["Per-record counts. *best* / *worst*: records (complete for every tested configuration) "
         f"on which the configuration is best / worst (ties count for each); *vs {ref}*: records "
         "where the reference is better–worse–tied; stars: Wilcoxon–Bonferroni significance of "
         "that pair.\n",
         "| configuration | "
         + " | ".join(f"{_cell(m.label)}: best | worst | vs {ref}" for m in METRICS) + " |",
         "|---|" + "---|---|---|" * len(METRICS)]
    counts = {}
    for m in METRICS:
        paired, _, cols, _ = comps[m.column]
        if len(cols) >= 2:
            best, worst, _ = _wins(table, m, cols)
            counts[m.column] = {table.configs[j]: (best[k], worst[k]) for k, j in enumerate(cols)}
    for c in table.configs:
        cells = []
        for m in METRICS:
            paired, _, cols, _ = comps[m.column]
            bw = counts.get(m.column, {}).get(c)
            cells.append("–" if bw is None else str(bw[0]))
            cells.append("–" if bw is None else str(bw[1]))
            if c == ref:
                cells.append("(reference)")
                continue
            w, lo, ti = _head_to_head(table, m, ref, c)
            tested = paired is not None and bw is not None and ref in counts.get(m.column, {})
            star = _stars(paired.pair(ref, c).pvalue_adjusted) if tested else ""
            cells.append(f"{w}–{lo}–{ti}{star}")
        L.append(f"| {c} | " + " | ".join(cells) + " |")
    return "\n".join(L) + "\n"


def _sigma2_section(table: ResultsTable) -> str:
    """Chosen sigma2 per criterion, compared within each (method, lead): paired Wilcoxon on log
    sigma2."""
    s2 = table.values["sigma2"]
    groups: dict[tuple[str, str], dict[str, np.ndarray]] = {}
    for j, c in enumerate(table.configs):
        method, criterion, lead = table.config_parts[c]
        if criterion != "none" and np.isfinite(s2[:, j]).sum() >= 2:
            groups.setdefault((method, lead), {})[c] = np.log(s2[:, j])
    L = ["Chosen σ² compared between criteria of the same method (pairwise Wilcoxon on log σ², "
         "Bonferroni within the method), as Varon et al. 2015 compared MDD and Shannon:\n",
         "| a | b | median σ² a | median σ² b | p_adj | records |", "|---|---|---|---|---|---|"]
    n_rows = 0
    for g in groups.values():
        if len(g) < 2:
            continue
        try:
            pw = stats.pairwise_wilcoxon(g)
        except ValueError:  # fewer than 2 complete records
            continue
        for p in pw:
            ja, jb = table.configs.index(p.a), table.configs.index(p.b)
            L.append(f"| {p.a} | {p.b} | {np.nanmedian(s2[:, ja]):.3g} | "
                     f"{np.nanmedian(s2[:, jb]):.3g} | "
                     f"{_p(p.pvalue_adjusted)}{_stars(p.pvalue_adjusted)} | {p.n} |")
            n_rows += 1
    return "\n".join(L) + "\n" if n_rows else ""


def _short_commit(commit: str | None) -> str:
    if not commit:
        return "?"
    sha, _, rest = commit.partition("+")
    return sha[:10] + ("+" + rest if rest else "")


def write_report(results_csv: str | Path, out_dir: str | Path, *, reference: str | None = None,
                 bland_altman: Sequence[str] | None = None) -> Path:
    """Write ``README.md``, ``summary.csv`` (and ``agreement.csv``) and the PNG figures into
    ``out_dir``.

    Parameters
    ----------
    results_csv : path
        A batch ``results.csv``; ``window_rates.csv``, ``selection_curves.json``
        and ``batch.json`` are read from the same folder when present.
    out_dir : path
        Created if needed.
    reference : str, optional
        Configuration label the others are compared with (default: the pipeline's default
        method with MDD, ``kpca_fusion/mdd`` — ``@default`` when several leads were evaluated —,
        else ``kpca/mdd``, else the best median MSC).
    bland_altman : sequence of str, optional
        Configurations shown beside the reference in the Bland–Altman figure
        (default: the two with the lowest window MAE among the methods other
        than the reference's). Needs ``window_rates.csv``.

    Raises
    ------
    ValueError
        Unknown ``reference``, or a ``bland_altman`` configuration without window rates.

    Returns
    -------
    Path
        The Markdown file.
    """
    import matplotlib

    matplotlib.use("Agg")
    results_csv = Path(results_csv)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    table = load_results(results_csv)
    ref = _reference(table, reference)
    comps = {m.column: _comparisons(table, m.column) for m in METRICS}
    figures = {"boxes": "boxplots.png"}
    _plot_boxes(table, ref, comps, out / figures["boxes"])
    curves_path = results_csv.parent / "selection_curves.json"
    curves = json.loads(curves_path.read_text()) if curves_path.exists() else []
    if curves:
        if _plot_curves(curves, out / "sigma2_curves.png"):
            figures["curves"] = "sigma2_curves.png"
        first = sorted({c["record"] for c in curves})[0]
        figures["one_record"] = f"sigma2_criteria_{first}.png"
        figures["one_record_name"] = first
        _plot_curves_one_record(curves, first, out / figures["one_record"])
    agreement_md = ""
    agree: dict[str, Agreement] = {}
    rates_path = results_csv.parent / "window_rates.csv"
    if rates_path.exists():
        windows = load_window_rates(rates_path, table)
        agree = window_agreement(windows)
        if agree:
            ba = None
            if ref in agree:
                ba = "bland_altman.png"
                _plot_bland_altman(windows, agree,
                                   _comparison_configs(table, ref, agree, bland_altman), out / ba)
            agreement_md = _agreement_section(table, ref, agree, windows, ba)
    if bland_altman and not agree:
        raise ValueError(f"Bland–Altman needs {rates_path} (written by python -m edr.evaluate)")
    command = None
    batch_json = results_csv.parent / "batch.json"
    if batch_json.exists():
        runs = json.loads(batch_json.read_text()).get("runs", [])
        command = "\n".join(
            f"python -m edr.evaluate {' '.join(r['argv'])}   # {r['finished_utc']}, commit "
            f"{_short_commit(r.get('git_commit'))}, {r['n_run']} tasks run, {r['n_errors']} errors"
            for r in runs)
    md = out / "README.md"
    md.write_text(_markdown(table, ref, comps, curves, figures, results_csv, command, agreement_md)
                  + _lead_choice_section(table))
    with open(out / "summary.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["configuration", "n_ok"]
                   + [f"{m.column}_{q}" for m in METRICS for q in ("median", "q25", "q75")])
        for j, c in enumerate(table.configs):
            q = [x for m in METRICS for x in _quartiles(table.values[m.column][:, j])[:3]]
            w.writerow([c, int(np.isfinite(table.values["msc"][:, j]).sum())]
                       + [f"{x:.4g}" for x in q])
    if agree:
        fields = list(Agreement.__dataclass_fields__)
        with open(out / "agreement.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["configuration", *fields])
            for c in (c for c in table.configs if c in agree):
                w.writerow([c] + [f"{getattr(agree[c], k):.4g}" for k in fields])
    return md


def build_parser(prog: str = "python -m edr.evaluate.report") -> argparse.ArgumentParser:
    """The command-line options of :func:`main`."""
    p = argparse.ArgumentParser(
        prog=prog,
        description="Markdown + PNG report of a batch evaluation: the headline table (median and "
                    "quartiles of MSC, |r| and rate error per configuration), box plots with "
                    "significance markers, sigma2 selection curves, significance tables, "
                    "window-level rate agreement with Bland-Altman plots, and per-record tables.",
        epilog="Example: %(prog)s results/results.csv -o report/   (results.csv from "
               "python -m edr.evaluate; window_rates.csv, selection_curves.json and batch.json "
               "next to it are used when present)")
    p.add_argument("results", metavar="RESULTS.csv",
                   help="results.csv written by python -m edr.evaluate")
    p.add_argument("-o", "--out", required=True, metavar="FOLDER",
                   help="output folder (README.md + PNG figures; created)")
    p.add_argument("--reference", metavar="CONFIG",
                   help="configuration compared with the others, named as in the report: "
                        "method/criterion (kernel methods) or method, with @lead when the results "
                        f"hold several lead modes (default {DEFAULT_METHOD}/mdd when present, "
                        "else kpca/mdd)")
    p.add_argument("--bland-altman", metavar="CONFIGS",
                   help="comma-separated configurations shown beside the reference in the "
                        "Bland-Altman figure (default: the two other methods with the lowest "
                        "window MAE)")
    return p


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m edr.evaluate.report") -> int:
    """Command-line entry point; exit code 2 with one line on stderr on bad input."""
    p = build_parser(prog)
    args = p.parse_args(argv)
    ba = ([c.strip() for c in args.bland_altman.split(",") if c.strip()]
          if args.bland_altman else None)
    try:
        md = write_report(args.results, args.out, reference=args.reference, bland_altman=ba)
    except (OSError, ValueError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    print(f"report written to {md}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
