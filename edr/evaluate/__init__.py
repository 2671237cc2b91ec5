"""Evaluation of EDR methods against reference respiration.

* the scores themselves — correlation, MSC, respiratory-rate error (the protocol of
  ``docs/design.md``, section 5) — are :mod:`edr.scoring`'s, which the record figure shares.
* :mod:`edr.evaluate.agreement` — window-level rate agreement: bias, 95 % limits of
  agreement, MAE, RMSE, share within 2 breaths/min, coverage.
* :mod:`edr.evaluate.stats` — Friedman/Wilcoxon (paired) and Kruskal–Wallis/Dunn (as Varon
  et al. 2015) with Bonferroni correction and effect sizes.
* :mod:`edr.evaluate.batch` — database x methods x sigma2 criteria x leads, resumable,
  parallel; its command line :mod:`edr.evaluate.cli` (``python -m edr.evaluate``, also
  ``edr evaluate``).
* :mod:`edr.evaluate.report` — Markdown + PNG report from a results CSV; its command line
  :mod:`edr.evaluate.report.cli` (``python -m edr.evaluate.report results.csv -o report/``,
  also ``edr report``).

Submodules are imported on use so that ``import edr.evaluate`` stays light.
"""
