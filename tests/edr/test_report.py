"""Tests of edr.evaluate.report (python -m edr.evaluate.report results.csv -o report/)."""

import csv
import json
import runpy
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from edr.evaluate import report, stats
from edr.evaluate.batch import COLUMNS, RATE_WINDOW_COLUMNS
from edr.evaluate.report.comparisons import comparison_configs, reference_config

# 5 records. kpca/mdd MSC 0.2..1.0 -> median 0.60, 25th 0.40, 75th 0.80 (numpy linear percentiles);
# pca = kpca/mdd - 0.1 on every record (kpca/mdd wins 5-0, but n = 5 Wilcoxon: exact p = 2/32 =
# 0.0625, x 3 pairs -> Bonferroni 0.1875: not significant); kpca/kpa fails on record r5.
MDD = [0.2, 0.4, 0.6, 0.8, 1.0]


# Window rates (breaths/min) per record: kpca/mdd errors 2, 0, -3 and one abstention (NaN EDR rate);
# pca is 1 bpm high on every window; kpca/kpa has the windows of its 4 successful records.
WIN_REF = [10.0, 15.0, 13.0, 14.0]
WIN_EDR = {"mdd": [12.0, 15.0, 10.0, float("nan")], "kpa": [10.0, 15.0, 13.0, 14.0],
           "none": [11.0, 16.0, 14.0, 15.0]}


def _write_results(folder, with_curves=True, with_windows=True):
    rows = []
    for i in range(5):
        rec = f"r{i + 1}"
        for method, crit, msc in [("kpca", "mdd", MDD[i]), ("kpca", "kpa", 0.05 * (i + 1)),
                                  ("pca", "none", MDD[i] - 0.1)]:
            err = "SignalError: too few beats" if (crit == "kpa" and rec == "r5") else ""
            rows.append(dict(record=rec, database="fake", method=method, criterion=crit,
                             lead="default",
                             msc="" if err else msc, corr="" if err else msc / 2,
                             rate_error_bpm="" if err else 1 + i, f_ref=0.25,
                             sigma2="" if crit == "none" or err else 0.5 * (i + 1),
                             n_beats=300, seconds=0.1,
                             error=err))
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, COLUMNS)
        w.writeheader()
        w.writerows(rows)
    if with_windows:
        with open(folder / "window_rates.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(RATE_WINDOW_COLUMNS)
            for r in rows:
                if not r["error"]:
                    w.writerows([r["record"], r["method"], r["criterion"], r["lead"],
                                 16.0 * (k + 1), e, ref]
                                for k, (e, ref) in enumerate(zip(WIN_EDR[r["criterion"]], WIN_REF,
                                                                 strict=False)))
    if with_curves:
        grid = np.geomspace(0.1, 10, 9).tolist()
        curves = [dict(record=f"r{i + 1}", method="kpca", criterion=c, lead="default",
                       sigma2=grid[4 + (c == "kpa")],
                       grid=grid, curve=(-(np.log(grid) - np.log(grid[4])) ** 2).tolist())
                  for i in range(4) for c in ("mdd", "kpa")]
        (folder / "selection_curves.json").write_text(json.dumps(curves))
    return folder / "results.csv"


def test_load_results_pivots_and_marks_failures(tmp_path):
    t = report.load_results(_write_results(tmp_path))
    assert t.configs == ["kpca/mdd", "kpca/kpa", "pca"]
    assert t.records == ["r1", "r2", "r3", "r4", "r5"]
    np.testing.assert_allclose(t.values["msc"][:, 0], MDD)
    assert np.isnan(t.values["msc"][4, 1]) and t.errors == [("r5", "kpca/kpa",
                                                             "SignalError: too few beats")]


def test_report_markdown_numbers_and_figures(tmp_path):
    md_path = report.write_report(_write_results(tmp_path / "res"), tmp_path / "rep")
    md = md_path.read_text()
    # headline medians (25th, 75th)
    assert ("| **kpca/mdd** | 5/5 | 0.60 (0.40, 0.80) | 0.30 (0.20, 0.40) | 3.0 (2.0, 4.0) | 1.5 "
              "|" in md)
    assert "| kpca/kpa | 4/5 |" in md
    # honest summary: kpca/mdd better than pca on every record, yet not significant with 5 records
    assert "no significant difference from kpca/kpa (4–0), pca (5–0)" in md
    # per-record counts: on the 4 complete records kpca/mdd is best and kpca/kpa worst by MSC and
    # |r|; the rate errors (1..5 bpm for every configuration) tie on every record
    assert "| kpca/mdd | 4 | 0 | (reference) | 4 | 0 | (reference) | 4 | 4 | (reference) |" in md
    assert "| pca | 0 | 0 | 5–0–0 | 0 | 0 | 5–0–0 | 4 | 4 | 0–0–5 |" in md
    assert "| kpca/kpa | 0 | 4 | 4–0–0 | 0 | 4 | 4–0–0 | 4 | 4 | 0–0–4 |" in md
    # significance table: Friedman on the 4 complete records, same numbers as edr.evaluate.stats
    t = report.load_results(tmp_path / "res" / "results.csv")
    fr = stats.friedman({c: t.values["msc"][:, j] for j, c in enumerate(t.configs)})
    assert fr.n_obs == 4
    assert f"| MSC | {fr.statistic:.2f} | 2 | {fr.pvalue:.2g} | {fr.effect_size:.2f} | 4 |" in md
    assert "Failed tasks" in md and "| r5 | kpca/kpa | SignalError: too few beats |" in md
    for png in ("boxplots.png", "sigma2_curves.png", "sigma2_criteria_r1.png"):
        assert f"]({png})" in md
        assert (tmp_path / "rep" / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = list(csv.DictReader(open(tmp_path / "rep" / "summary.csv")))
    assert (summary[0]["configuration"] == "kpca/mdd" and float(summary[0]["msc_median"])
            == pytest.approx(0.6))
    # window agreement: kpca/mdd pools errors 2, 0, -3 of 5 records (15 of 20 windows have an EDR
    # rate)
    sd = np.std([2.0, 0.0, -3.0] * 5, ddof=1)
    lo, hi = -1 / 3 - 1.96 * sd, -1 / 3 + 1.96 * sd
    assert (f"| **kpca/mdd** | 5 | 15/20 | 75 % | -0.33 | {lo:+.1f} to {hi:+.1f} | 1.67 | "
            f"{np.sqrt(13 / 3):.2f} | 67 % |") in md
    assert "| pca | 5 | 20/20 | 100 % | +1.00 | +1.0 to +1.0 | 1.00 | 1.00 | 100 % |" in md
    assert "| kpca/kpa | 4 | 16/16 | 100 % | +0.00 | +0.0 to +0.0 | 0.00 | 0.00 | 100 % |" in md
    assert ("](bland_altman.png)" in md
            and (tmp_path / "rep" / "bland_altman.png").read_bytes()[:4] == b"\x89PNG")
    agree = {r["configuration"]: r
             for r in csv.DictReader(open(tmp_path / "rep" / "agreement.csv"))}
    assert float(agree["kpca/mdd"]["coverage"]) == 0.75 and float(agree["pca"]["bias"]) == 1.0


def test_report_without_curves_and_with_explicit_reference(tmp_path):
    md = report.write_report(_write_results(tmp_path / "res", with_curves=False), tmp_path / "rep",
                             reference="pca", bland_altman=["kpca/kpa"]).read_text()
    assert "Reference configuration: **pca**" in md and "sigma2_curves.png" not in md
    assert comparison_configs(report.load_results(tmp_path / "res" / "results.csv"), "pca",
                              {"pca": None, "kpca/kpa": None},
                              ["kpca/kpa"]) == ["pca", "kpca/kpa"]
    with pytest.raises(ValueError, match="'nope' has no window rates"):
        report.write_report(tmp_path / "res" / "results.csv", tmp_path / "rep",
                            bland_altman=["nope"])
    with pytest.raises(ValueError, match="reference 'nope' not among the configurations"):
        report.write_report(tmp_path / "res" / "results.csv", tmp_path / "rep", reference="nope")


def test_report_without_window_rates(tmp_path):
    md = report.write_report(_write_results(tmp_path / "res", with_windows=False),
                             tmp_path / "rep").read_text()
    assert "limits of agreement" not in md and not (tmp_path / "rep" / "bland_altman.png").exists()
    with pytest.raises(ValueError, match="Bland–Altman needs"):
        report.write_report(tmp_path / "res" / "results.csv", tmp_path / "rep",
                            bland_altman=["pca"])


def test_bad_results_file(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("record,method\nr1,kpca\n")
    with pytest.raises(ValueError, match="lacks column"):
        report.load_results(bad)
    empty = tmp_path / "empty.csv"
    empty.write_text(",".join(COLUMNS) + "\n")
    with pytest.raises(ValueError, match="has no rows"):
        report.load_results(empty)
    with pytest.raises(FileNotFoundError):
        report.load_results(tmp_path / "missing.csv")


@pytest.mark.filterwarnings("ignore:'edr.evaluate.report' found in sys.modules:RuntimeWarning")
def test_cli_module_exit_code_and_one_line_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv",
                        ["report", str(tmp_path / "missing.csv"), "-o", str(tmp_path / "r")])
    with pytest.raises(SystemExit) as exit_info:
        runpy.run_module("edr.evaluate.report", run_name="__main__")
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert (err.count("\n") == 1 and err.startswith("python -m edr.evaluate.report: error:")
            and "missing.csv" in err)
    assert not (tmp_path / "r" / "README.md").exists()


def test_lead_choice_section_counts_oracle_picks(tmp_path):
    # Two records; single leads II and V. r1: auto chose V, and V is the best single lead (hit);
    # r2: auto chose II, but V is best (miss). Single-lead rows stay out of the main tables.
    single = {("r1", "II"): 0.3, ("r1", "V"): 0.7, ("r2", "II"): 0.4, ("r2", "V"): 0.5}
    auto = {"r1": ("V", 0.7), "r2": ("II", 0.4)}
    rows = []
    for rec in ("r1", "r2"):
        base = dict(record=rec, database="fake", method="kpca", criterion="mdd",
                    f_ref=0.25, sigma2=1.0,
                    n_beats=300, seconds=0.1, error="")
        cells = [("default", "II", single[(rec, "II")]), ("auto", *auto[rec])]
        cells += [(lead, lead, single[(rec, lead)]) for lead in ("II", "V")]
        for k, (lead, used, msc) in enumerate(cells):
            rows.append(base | dict(lead=lead, used_lead=used, msc=msc, corr=msc,
                                    rate_error_bpm=1 + k + msc))
    (tmp_path / "res").mkdir()
    with open(tmp_path / "res" / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, COLUMNS)
        w.writeheader()
        w.writerows(rows)
    t = report.load_results(tmp_path / "res" / "results.csv")
    assert t.configs == ["kpca/mdd@default", "kpca/mdd@auto"] and len(t.single_lead_rows) == 4
    picks = report.lead_choice(t)
    assert [(p["record"], p["auto_lead"], p["oracle_lead"]) for p in picks] == [("r1", "V", "V"),
                                                                                ("r2", "II", "V")]
    md = report.write_report(tmp_path / "res" / "results.csv", tmp_path / "rep").read_text()
    assert "`auto` picked the oracle's lead on **1 of 2** records" in md
    assert "| r2 | II | V | 0.40 | 0.40 | 0.50 |" in md


def _with_breaths(path, scores, events=None):
    """``results.csv`` at ``path`` with breath scores: (record, method, criterion) -> (annotated,
    scored, detected, matched, median interval error); ``events``: record -> the point of the
    breath scored (default the end of inspiration)."""
    from edr.evaluate.breaths import EVENT_COLUMN, BreathScores

    rows = list(csv.DictReader(open(path)))
    for r in rows:
        key = (r["record"], r["method"], r["criterion"])
        if key in scores and not r["error"]:
            a, n_ref, n_det, n_match, err = scores[key]
            row = BreathScores(n_ref, n_det, n_match, np.array([err]), a).row()
            r.update({k: repr(float(v)) for k, v in row.items()})
            r[EVENT_COLUMN] = (events or {}).get(r["record"], "end_of_inspiration")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, COLUMNS)
        w.writeheader()
        w.writerows(rows)
    return path


def test_report_breath_table_per_configuration(tmp_path):
    scores = {("r1", "kpca", "mdd"): (100, 90, 92, 85, 0.2),
              ("r2", "kpca", "mdd"): (60, 60, 55, 50, 0.6),
              ("r3", "kpca", "mdd"): (80, 40, 45, 38, 0.3),
              ("r1", "pca", "none"): (100, 100, 130, 70, 0.9)}
    path = _with_breaths(_write_results(tmp_path / "res"), scores)
    md = report.write_report(path, tmp_path / "rep").read_text()
    assert "## Breath by breath" in md and "±1 s or 0.25 of the local annotated interval" in md
    # slow reference: the counts pooled by hand over r1-r3
    ann, ref, det, match = 240, 190, 192, 173
    assert (f"| **kpca/mdd** | end of inspiration | 3 | {ann} | {ref / ann:.2f} | "
            f"{match / ref:.3f} | {match / det:.3f} | {2 * match / (ref + det):.3f} | 0.30 |") in md
    assert "| pca | end of inspiration | 1 | 100 | 1.00 | 0.700 | 0.538 | 0.609 | 0.90 |" in md
    assert "| kpca/kpa | " not in md.split("## Breath by breath")[1].split("##")[0]


def test_report_never_pools_breaths_scored_at_different_points(tmp_path):
    scores = {("r1", "kpca", "mdd"): (100, 90, 92, 85, 0.2),
              ("r2", "kpca", "mdd"): (60, 60, 55, 50, 0.6),
              ("r3", "kpca", "mdd"): (80, 40, 45, 38, 0.3)}
    path = _with_breaths(_write_results(tmp_path / "res"), scores,
                         {"r2": "start_of_inspiration"})
    md = report.write_report(path, tmp_path / "rep").read_text()
    table = md.split("## Breath by breath")[1].split("##")[0]
    ann, ref, det, match = 180, 130, 137, 123  # r1 and r3 pooled by hand; r2 alone
    assert (f"| **kpca/mdd** | end of inspiration | 2 | {ann} | {ref / ann:.2f} | "
            f"{match / ref:.3f} | {match / det:.3f} | {2 * match / (ref + det):.3f} | 0.25 |"
            in table)
    assert ("| **kpca/mdd** | start of inspiration | 1 | 60 | 1.00 | 0.833 | 0.909 | 0.870 | "
            "0.60 |" in table)


def test_report_without_breath_annotations_has_no_breath_table(tmp_path):
    md = report.write_report(_write_results(tmp_path / "res"), tmp_path / "rep").read_text()
    assert "Breath by breath" not in md


def test_a_method_run_on_a_named_lead_only_is_a_configuration(tmp_path):
    # kpca/mdd on lead II only (no lead mode): its rows are a configuration of the main tables,
    # not dropped as the yardstick of a lead choice that was never run
    rows = []
    for i, rec in enumerate(("r1", "r2", "r3")):
        base = dict(record=rec, database="fake", f_ref=0.25, n_beats=300, seconds=0.1, error="",
                    corr=0.5, rate_error_bpm=1.0)
        rows.append(base | dict(method="kpca_fusion", criterion="mdd", lead="default",
                                used_lead="fuse", msc=0.7 + 0.01 * i, sigma2=1.0))
        rows.append(base | dict(method="kpca", criterion="mdd", lead="II", used_lead="II",
                                msc=0.5 + 0.01 * i, sigma2=2.0))
    (tmp_path / "res").mkdir()
    with open(tmp_path / "res" / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, COLUMNS)
        w.writeheader()
        w.writerows(rows)
    t = report.load_results(tmp_path / "res" / "results.csv")
    assert t.configs == ["kpca/mdd@II", "kpca_fusion/mdd@default"] and not t.single_lead_rows
    np.testing.assert_allclose(t.values["msc"][:, t.configs.index("kpca/mdd@II")],
                               [0.50, 0.51, 0.52])


def test_reference_is_the_default_method_with_its_own_rule_when_mdd_was_not_run():
    """``edr evaluate``'s default runs ``kpca_fusion`` with ``mdd-fast`` only: the report then
    compares against it, not against the paper's ``kpca/mdd``; ``kpca_fusion/mdd`` still comes
    first when a run holds it."""
    msc = np.array([[0.1, 0.2, 0.9]])
    table = SimpleNamespace(configs=["kpca/mdd", "kpca_fusion/mdd-fast", "pca"],
                            values={"msc": msc})
    assert reference_config(table, None) == "kpca_fusion/mdd-fast"
    table.configs = ["kpca_fusion/mdd-fast", "kpca_fusion/mdd", "pca"]
    assert reference_config(table, None) == "kpca_fusion/mdd"
    table.configs = ["kpca/kpa", "pca", "rsa"]
    assert reference_config(table, None) == "rsa"  # the best median MSC
