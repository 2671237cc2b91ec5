"""Statistics of a :class:`~edr.evaluate.report.tables.ResultsTable`: the paired and
independent comparisons of the configurations (:mod:`edr.evaluate.stats`), quartiles, the
reference configuration, and record-wise wins and losses."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from edr.evaluate import stats
from edr.evaluate.agreement import Agreement
from edr.evaluate.report.tables import Metric, ResultsTable
from edr.names import DEFAULT_SIGMA2
from edr.options import DEFAULT_METHOD

__all__ = ["ALPHA", "comparison_configs", "comparisons", "head_to_head", "quartiles",
           "records_used", "reference_config", "stars", "usable_configs", "wins"]


ALPHA = 0.05


def usable_configs(table: ResultsTable, column: str) -> list[int]:
    """Configurations with a finite score on at least half of the records some configuration
    scored (a record none could score, unreadable or without a reference, says nothing about
    any of them)."""
    v = table.values[column]
    n_scored = int(np.isfinite(v).any(axis=1).sum())
    return [j for j in range(len(table.configs))
            if np.isfinite(v[:, j]).sum() >= max(2, n_scored / 2)]


def records_used(table: ResultsTable, column: str, cols: Sequence[int]) -> str:
    """Which records the tests of one metric used: the paired tests' (complete on every tested
    configuration ``cols``), the independent tests' (each configuration's scored records), the
    configurations left out and the records no configuration scored; or why there is no test."""
    finite = np.isfinite(table.values[column])
    scored = finite.any(axis=1)

    def names(mask) -> str:
        return ", ".join(r for r, k in zip(table.records, mask, strict=True) if k)

    counts = ", ".join(f"{table.configs[j]} {int(finite[:, j].sum())}"
                       for j in range(len(table.configs)))
    none = f"; no configuration scored {names(~scored)}" if (~scored).any() else ""
    if len(cols) < 2:
        return (f"no test: fewer than two configurations scored at least half of the "
                f"{int(scored.sum())} records any configuration scored (records scored: {counts})"
                + none)
    complete = finite[:, list(cols)].all(axis=1)
    partial = scored & ~complete
    left = [j for j in range(len(table.configs)) if j not in cols]
    return (f"paired tests on {int(complete.sum())} records ("
            + (f"every scored record but {names(partial)}" if partial.any()
               else "every scored record")
            + f"), Kruskal–Wallis and Dunn on each configuration's scored records ({counts})"
            + ("; left out of the tests: " + ", ".join(table.configs[j] for j in left)
               if left else "") + none)


def comparisons(table: ResultsTable, column: str):
    """``(paired, independent, columns, n_complete)`` of one metric: the Friedman/Wilcoxon and
    Kruskal–Wallis/Dunn comparisons of the usable configurations (None when fewer than two;
    ``paired`` None when fewer than two records are complete), their columns and the number
    of records complete on all of them."""
    cols = usable_configs(table, column)
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


def quartiles(x: np.ndarray) -> tuple[float, float, float, int]:
    """``(median, q25, q75, n)`` of the finite values of ``x`` (NaN and 0 when there is none)."""
    x = x[np.isfinite(x)]
    if x.size == 0:
        return math.nan, math.nan, math.nan, 0
    q25, q50, q75 = np.percentile(x, [25, 50, 75])
    return float(q50), float(q25), float(q75), int(x.size)


def reference_config(table: ResultsTable, wanted: str | None) -> str:
    """The configuration compared with the others: ``wanted``, else the default method with MDD,
    else with its own σ² rule (``mdd-fast``, as ``edr evaluate`` runs it by default), else
    ``kpca/mdd``, else the best median MSC; ValueError for an unknown ``wanted``."""
    if wanted:
        if wanted not in table.configs:
            raise ValueError(f"reference {wanted!r} not among the configurations {table.configs}")
        return wanted
    own = f"{DEFAULT_METHOD}/{DEFAULT_SIGMA2}"
    for default in (f"{DEFAULT_METHOD}/mdd", f"{DEFAULT_METHOD}/mdd@default", own,
                    f"{own}@default", "kpca/mdd", "kpca/mdd@default"):
        if default in table.configs:
            return default
    msc = table.values["msc"]
    med = [np.nanmedian(msc[:, j]) if np.isfinite(msc[:, j]).any() else -np.inf
           for j in range(msc.shape[1])]
    return table.configs[int(np.argmax(med))]


def comparison_configs(table: ResultsTable, ref: str, agree: dict[str, Agreement],
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


def stars(p: float) -> str:
    """Significance stars of an adjusted p-value: ``***`` < 0.001, ``**`` < 0.01, ``*`` < α."""
    return "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < ALPHA else ""


def wins(table: ResultsTable, m: Metric, cols: list[int]):
    """Per config: records where it is best, worst (ties count for each), of records complete on
    cols."""
    v = table.values[m.column][:, cols]
    v = v[np.all(np.isfinite(v), axis=1)]
    s = v if m.higher_is_better else -v
    best = (s == s.max(axis=1, keepdims=True)).sum(axis=0) if v.size else np.zeros(len(cols), int)
    worst = (s == s.min(axis=1, keepdims=True)).sum(axis=0) if v.size else np.zeros(len(cols), int)
    return best, worst, v.shape[0]


def head_to_head(table: ResultsTable, m: Metric, ref: str, other: str) -> tuple[int, int, int]:
    """``(wins, losses, ties)`` of ``ref`` against ``other`` over the records where both have a
    score (a win is a better score in the metric's direction)."""
    v = table.values[m.column]
    a, b = v[:, table.configs.index(ref)], v[:, table.configs.index(other)]
    ok = np.isfinite(a) & np.isfinite(b)
    d = (a - b)[ok] * (1 if m.higher_is_better else -1)
    return int((d > 0).sum()), int((d < 0).sum()), int((d == 0).sum())
