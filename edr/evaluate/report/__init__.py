"""Markdown + PNG report of a batch evaluation.

:func:`write_report` reads the ``results.csv`` written by :mod:`edr.evaluate.batch` (and,
when present next to it, ``window_rates.csv``, ``selection_curves.json`` and ``batch.json``)
and writes ``README.md`` with:

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

Modules: :mod:`~edr.evaluate.report.tables` (loading), :mod:`~edr.evaluate.report.comparisons`
(statistics), :mod:`~edr.evaluate.report.figures`, :mod:`~edr.evaluate.report.markdown`,
:mod:`~edr.evaluate.report.write` (the folder), :mod:`~edr.evaluate.report.cli` (``python -m
edr.evaluate.report results.csv -o report/``). The protocol and the report's choices are
documented in ``docs/design.md``, section 5.
"""

from edr.evaluate.report.tables import (
    METRICS,
    Metric,
    ResultsTable,
    lead_choice,
    load_results,
    load_window_rates,
    window_agreement,
)
from edr.evaluate.report.write import write_report

__all__ = ["METRICS", "Metric", "ResultsTable", "lead_choice", "load_results",
           "load_window_rates", "window_agreement", "write_report"]
