"""Evaluation of EDR methods against reference respiration.

* :mod:`edr.evaluate.metrics` — correlation, MSC, respiratory-rate error (DESIGN.md protocol).
* :mod:`edr.evaluate.stats` — Friedman/Wilcoxon (paired) and Kruskal–Wallis/Dunn (as Varon
  et al. 2015) with Bonferroni correction and effect sizes.
* :mod:`edr.evaluate.batch` — database x methods x sigma2 criteria, resumable, parallel
  (``python -m edr.evaluate``).
* :mod:`edr.evaluate.report` — Markdown + PNG report from a results CSV
  (``python -m edr.report results.csv -o report/``).

Submodules are imported on use so that ``import edr.evaluate`` stays light.
"""
