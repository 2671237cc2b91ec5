"""Write a report folder: ``README.md``, ``summary.csv``, ``agreement.csv`` and the figures."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from edr.evaluate.agreement import Agreement
from edr.evaluate.report.comparisons import (
    comparison_configs,
    comparisons,
    quartiles,
    reference_config,
)
from edr.evaluate.report.figures import (
    plot_bland_altman,
    plot_boxes,
    plot_curves,
    plot_curves_one_record,
)
from edr.evaluate.report.markdown import (
    agreement_section,
    lead_choice_section,
    markdown,
    short_commit,
)
from edr.evaluate.report.tables import (
    METRICS,
    ResultsTable,
    load_results,
    load_window_rates,
    window_agreement,
)

__all__ = ["write_report"]


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
        else with its own rule, ``kpca_fusion/mdd-fast``, else ``kpca/mdd``, else the best
        median MSC).
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

    See Also
    --------
    edr.evaluate.batch : writes the ``results.csv`` (and the files read beside it).
    edr.evaluate.report.load_results : the ``results.csv`` as a table of records and configurations.
    edr.evaluate.stats.compare : the significance tests of the comparisons.
    edr.evaluate.agreement.agreement : the window-level agreement of the rates.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015.
       Sec. VI-C: MSC and correlation as median (25th, 75th) over the records, and their box
       plots with Kruskal-Wallis and Bonferroni-corrected comparisons (Fig. 18).

    Examples
    --------
    Four records, two configurations (``kpca`` with the MDD criterion, and ``pca``):

    >>> import csv, tempfile
    >>> from pathlib import Path
    >>> from edr.evaluate.batch import COLUMNS
    >>> from edr.evaluate.report import write_report
    >>> tmp = tempfile.TemporaryDirectory()
    >>> folder = Path(tmp.name)
    >>> msc = [(0.8, 0.6), (0.7, 0.5), (0.9, 0.8), (0.6, 0.55)]  # per record: kpca/mdd, pca
    >>> rows = [dict(record=f"r{i}", method=m, criterion=c, lead="default", msc=v, corr=v,
    ...              rate_error_bpm=err, sigma2=s2)
    ...         for i, (a, b) in enumerate(msc)
    ...         for m, c, v, err, s2 in [("kpca", "mdd", a, 0.5, 0.02),
    ...                                  ("pca", "none", b, 1.0, "")]]
    >>> with open(folder / "results.csv", "w", newline="") as f:
    ...     writer = csv.DictWriter(f, COLUMNS, restval="")
    ...     _ = writer.writeheader()  # it returns what it wrote
    ...     _ = writer.writerows(rows)
    >>> md = write_report(folder / "results.csv", folder / "report")
    >>> sorted(p.name for p in md.parent.iterdir())
    ['README.md', 'boxplots.png', 'summary.csv']
    >>> print(*(md.parent / "summary.csv").read_text().splitlines()[1:], sep="\\n")
    kpca/mdd,4,0.75,0.675,0.825,0.75,0.675,0.825,0.5,0.5,0.5
    pca,4,0.575,0.5375,0.65,0.575,0.5375,0.65,1,1,1
    >>> [line for line in md.read_text().splitlines() if line.startswith("| **")]
    ['| **kpca/mdd** | 4/4 | 0.75 (0.67, 0.83) | 0.75 (0.67, 0.83) | 0.5 (0.5, 0.5) | 0.02 | – |']
    >>> tmp.cleanup()
    """
    import matplotlib

    matplotlib.use("Agg")
    results_csv = Path(results_csv)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    table = load_results(results_csv)
    ref = reference_config(table, reference)
    comps = {m.column: comparisons(table, m.column) for m in METRICS}
    figures = {"boxes": "boxplots.png"}
    plot_boxes(table, ref, comps, out / figures["boxes"])
    curves_path = results_csv.parent / "selection_curves.json"
    curves = json.loads(curves_path.read_text()) if curves_path.exists() else []
    figures.update(_selection_figures(curves, out))
    agree, agreement_md = _write_window_agreement(table, ref,
                                                  results_csv.parent / "window_rates.csv", out,
                                                  bland_altman)
    md = out / "README.md"
    md.write_text(markdown(table, ref, comps, curves, figures, results_csv,
                           _batch_command(results_csv.parent / "batch.json"), agreement_md)
                  + lead_choice_section(table))
    _write_summary_csv(table, out / "summary.csv")
    if agree:
        _write_agreement_csv(table, agree, out / "agreement.csv")
    return md


def _selection_figures(curves: list[dict], out: Path) -> dict:
    """Plot the σ² selection curves of every record and every criterion of the first record;
    the figures' entries (``curves``, ``one_record``, ``one_record_name``)."""
    figures = {}
    if curves:
        if plot_curves(curves, out / "sigma2_curves.png"):
            figures["curves"] = "sigma2_curves.png"
        first = sorted({c["record"] for c in curves})[0]
        figures["one_record"] = f"sigma2_criteria_{first}.png"
        figures["one_record_name"] = first
        plot_curves_one_record(curves, first, out / figures["one_record"])
    return figures


def _write_window_agreement(table: ResultsTable, ref: str, rates_path: Path, out: Path,
                            bland_altman: Sequence[str] | None) -> tuple[dict[str, Agreement], str]:
    """Window-rate agreement per configuration and its Markdown section (empty without
    ``rates_path``); plots the Bland–Altman figure when the reference has window rates.

    Raises ValueError when ``bland_altman`` configurations are asked for without window rates.
    """
    agreement_md = ""
    agree: dict[str, Agreement] = {}
    if rates_path.exists():
        windows = load_window_rates(rates_path, table)
        agree = window_agreement(windows)
        if agree:
            ba = None
            if ref in agree:
                ba = "bland_altman.png"
                plot_bland_altman(windows, agree,
                                  comparison_configs(table, ref, agree, bland_altman), out / ba)
            agreement_md = agreement_section(table, ref, agree, windows, ba)
    if bland_altman and not agree:
        raise ValueError(f"Bland–Altman needs {rates_path} (written by python -m edr.evaluate)")
    return agree, agreement_md


def _batch_command(batch_json: Path) -> str | None:
    """The command lines of the batch runs recorded in ``batch.json``, one per line (None
    without the file)."""
    if not batch_json.exists():
        return None
    runs = json.loads(batch_json.read_text()).get("runs", [])
    return "\n".join(
        f"python -m edr.evaluate {' '.join(r['argv'])}   # {r['finished_utc']}, commit "
        f"{short_commit(r.get('git_commit'))}, {r['n_run']} tasks run, {r['n_errors']} errors"
        for r in runs)


def _write_summary_csv(table: ResultsTable, path: Path) -> None:
    """Median and quartiles of every metric per configuration."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["configuration", "n_ok"]
                   + [f"{m.column}_{q}" for m in METRICS for q in ("median", "q25", "q75")])
        for j, c in enumerate(table.configs):
            q = [x for m in METRICS for x in quartiles(table.values[m.column][:, j])[:3]]
            w.writerow([c, int(np.isfinite(table.values["msc"][:, j]).sum())]
                       + [f"{x:.4g}" for x in q])


def _write_agreement_csv(table: ResultsTable, agree: dict[str, Agreement], path: Path) -> None:
    """The window-rate agreement of every configuration that has window rates."""
    fields = list(Agreement.__dataclass_fields__)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["configuration", *fields])
        for c in (c for c in table.configs if c in agree):
            w.writerow([c] + [f"{getattr(agree[c], k):.4g}" for k in fields])
