"""Tests of edr.evaluate.batch: planning, resumability, parallel back-ends, CLI."""

import csv
import json
import zlib
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from edr.evaluate import batch, cli

RECORDS = {"r1": Path("/nowhere/r1"), "r2": Path("/nowhere/r2"), "r3": Path("/nowhere/r3")}


def _fake_value(*parts):
    return (zlib.crc32("/".join(map(str, parts)).encode()) % 1000) / 1000.0


def _fake_extract(recording, method, *, sigma2=None, lead=None, **options):
    if recording == "bad":
        raise ValueError("stand-in: no beats")
    grid = np.geomspace(0.1, 10.0, 5)
    sel = None
    if sigma2 is not None:
        curve = np.array([_fake_value(recording, sigma2, g) for g in grid])
        sel = SimpleNamespace(criterion=sigma2, sigma2=float(grid[curve.argmax()]),
                              grid=grid, curve=curve)
    return SimpleNamespace(record=recording, method=method, lead=lead or "II",
                           sigma2=None if sel is None else sel.sigma2,
                           selection=sel, n_beats=100 + len(method),
                           key=(recording, method, sigma2, lead, options))


def _fake_score(result, recording):
    k = result.key
    return SimpleNamespace(msc=_fake_value("msc", *k), corr=_fake_value("corr", *k),
                           rate_error_bpm=10 * _fake_value("err", *k), f_ref=0.25)


def _fake_windows(result, recording):
    k = result.key
    edr = [12 + 10 * _fake_value("w", i, *k) for i in range(3)]
    edr[1] = float("nan")  # the method abstained in the middle window
    return {"t_s": [16.0, 32.0, 48.0], "edr_bpm": edr, "ref_bpm": [12.0, 13.0, float("nan")]}


@pytest.fixture
def stand_ins(monkeypatch):
    """Private stand-ins for read_record / extract_edr / score (pure functions of the task)."""
    monkeypatch.setattr(batch, "_read", lambda path, read_options=():
                        "bad" if path.endswith("r3") else Path(path).name)
    monkeypatch.setattr(batch, "_run_extract_edr", _fake_extract)
    monkeypatch.setattr(batch, "_run_score", _fake_score)
    monkeypatch.setattr(batch, "_window_rate_lists", _fake_windows)


def _rows(csv_path, drop=("seconds",)):
    with open(csv_path) as f:
        return [{k: v for k, v in r.items() if k not in drop} for r in csv.DictReader(f)]


def _tasks(records=RECORDS):
    return batch.plan_tasks("fake", records, ["kpca", "pca"], ["mdd", "shannon"],
                            ["default", "auto"])


def test_plan_tasks_criteria_only_for_kpca():
    tasks = _tasks()
    assert len(tasks) == 3 * (2 + 1) * 2
    assert {t.criterion for t in tasks if t.method == "pca"} == {batch.NO_CRITERION}
    assert tasks[0].relpath == "tasks/r1/kpca__mdd__default.json"
    with pytest.raises(ValueError, match="methods must not be empty"):
        batch.plan_tasks("fake", RECORDS, [], ["mdd"])
    with pytest.raises(ValueError, match="criteria contains an invalid name 'a__b'"):
        batch.plan_tasks("fake", RECORDS, ["kpca"], ["a__b"])


def test_results_csv_columns_and_errors_recorded(tmp_path, stand_ins):
    s = batch.run_batch(_tasks(), tmp_path, jobs=1, progress=False)
    rows = _rows(s.results_csv, drop=())
    assert list(rows[0]) == list(batch.COLUMNS)
    assert (s.n_tasks, s.n_run, s.n_errors) == (18, 18, 6)
    bad = [r for r in rows if r["record"] == "r3"]
    assert all(r["error"].startswith("ValueError: stand-in: no beats") and r["msc"]
               == "" for r in bad)
    good = [r for r in rows if r["record"] == "r1" and r["method"] == "kpca"]
    assert all(float(r["sigma2"]) > 0 and r["error"] == "" for r in good)
    # used_lead: the lead the EDR came from (the stand-in's selected lead is II), empty on failure
    assert all(r["used_lead"] == ("II" if r["lead"] == "default" else r["lead"]) for r in good)
    assert all(r["used_lead"] == "" for r in bad)
    curves = json.loads((tmp_path / "selection_curves.json").read_text())
    assert len(curves) == 2 * 2 * 2 and len(curves[0]["grid"]) == 5
    # window rates of the successful tasks only, NaN as an empty field
    with open(tmp_path / "window_rates.csv") as f:
        win = list(csv.DictReader(f))
    assert list(win[0]) == list(batch.RATE_WINDOW_COLUMNS) and len(win) == 12 * 3
    assert {w["record"] for w in win} == {"r1", "r2"}
    assert [(w["t_s"], w["edr_bpm"] == "", w["ref_bpm"]) for w in win[:3]] == [
        ("16.0", False, "12.0"), ("32.0", True, "13.0"), ("48.0", False, "")]
    stored = json.loads((tmp_path / "tasks/r1/kpca__mdd__default.json").read_text())
    assert stored["windows"]["edr_bpm"][1] is None and stored["row"]["error"] == ""
    # a resumed run keeps errors unless asked to retry them
    again = batch.run_batch(_tasks(), tmp_path, jobs=1, progress=False)
    assert (again.n_run, again.n_skipped) == (0, 18)
    retry = batch.run_batch(_tasks(), tmp_path, jobs=1, progress=False, retry_errors=True)
    assert retry.n_run == 6
    # a later, smaller run into the same folder adds to results.csv instead of replacing it
    more = batch.plan_tasks("fake", RECORDS, ["kpca"], ["kpa"])
    batch.run_batch(more, tmp_path, jobs=1, progress=False)
    rows = _rows(tmp_path / "results.csv")
    assert len(rows) == 18 + 3 and sum(r["criterion"] == "kpa" for r in rows) == 3


def test_interrupted_run_resumes_to_identical_results(tmp_path, stand_ins, monkeypatch):
    full = batch.run_batch(_tasks(), tmp_path / "full", jobs=1, progress=False)

    calls = {"n": 0}

    def dies_after_five(recording, method, **kw):
        calls["n"] += 1
        if calls["n"] > 5:
            raise KeyboardInterrupt  # the run is killed while the 6th task is in flight
        return _fake_extract(recording, method, **kw)

    out = tmp_path / "interrupted"
    monkeypatch.setattr(batch, "_run_extract_edr", dies_after_five)
    with pytest.raises(KeyboardInterrupt):
        batch.run_batch(_tasks(), out, jobs=1, progress=False)
    done = sorted(out.glob("tasks/*/*.json"))
    assert len(done) == 5 and not (out / "results.csv").exists()
    before = {p: p.read_bytes() for p in done}

    monkeypatch.setattr(batch, "_run_extract_edr", _fake_extract)
    resumed = batch.run_batch(_tasks(), out, jobs=1, progress=False)
    assert (resumed.n_skipped, resumed.n_run) == (5, 13)
    assert all(p.read_bytes() == b for p, b in before.items())  # finished work not redone
    assert _rows(resumed.results_csv) == _rows(full.results_csv)
    assert ((out / "window_rates.csv").read_text()
            == (tmp_path / "full" / "window_rates.csv").read_text())
    assert ((out / "selection_curves.json").read_text()
            == (tmp_path / "full" / "selection_curves.json").read_text())


def test_changed_options_invalidate_stored_results(tmp_path, stand_ins):
    batch.run_batch(_tasks(), tmp_path, jobs=1, progress=False, options={"random_state": 0})
    s = batch.run_batch(_tasks(), tmp_path, jobs=1, progress=False, options={"random_state": 1})
    assert s.n_run == 18 and len(_rows(s.results_csv)) == 18  # only the rows of the current options


def test_process_pool_matches_in_process(tmp_path, stand_ins):
    # stand-ins reach the workers through fork (Linux default start method)
    a = batch.run_batch(_tasks(), tmp_path / "a", jobs=1, progress=False)
    b = batch.run_batch(_tasks(), tmp_path / "b", jobs=2, progress=False)
    assert _rows(a.results_csv) == _rows(b.results_csv)


def test_run_batch_bad_jobs(tmp_path):
    with pytest.raises(ValueError, match="jobs must be a positive integer, got 0"):
        batch.run_batch([], tmp_path, jobs=0)


def test_main_reports_bad_input_in_one_line(tmp_path, capsys):
    assert cli.main(["--data-dir", str(tmp_path / "missing"), "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "database folder not found" in err


def test_list_records_skips_numerics_records(bidmc_dir):
    recs = batch.list_records(bidmc_dir)
    assert "bidmc01" in recs and "bidmc01n" not in recs and len(recs) == 30


@pytest.fixture(scope="module")
def simulated_db(tmp_path_factory):
    """Two short simulated recordings written as WFDB records (ECG lead II + RESP)."""
    wfdb = pytest.importorskip("wfdb")
    from edr.simulate import simulate_recording

    folder = tmp_path_factory.mktemp("simdb")
    for i, rate in enumerate((0.2, 0.3)):
        rec = simulate_recording(duration_s=70, fs=125, resp_rate_hz=rate, name=f"sim{i}",
                                 random_state=i)
        resp = np.interp(np.arange(rec.ecg.size) / rec.fs,
                         np.arange(rec.resp.size) / rec.resp_fs, rec.resp)
        wfdb.wrsamp(f"sim{i}", fs=rec.fs, units=["mV", "NU"], sig_name=["II", "RESP"],
                    p_signal=np.column_stack([rec.ecg, resp]), fmt=["16", "16"],
                    write_dir=str(folder))
    return folder


def test_real_chain_cli_resumes_to_identical_results(simulated_db, tmp_path, monkeypatch, capsys):
    """extract_edr + score on simulated records; a run interrupted after 2 tasks resumes
    identically."""
    argv = ["--data-dir", str(simulated_db), "--methods", "kpca,r_amplitude", "--criteria",
            "rule-of-thumb",
            "--jobs", "1", "--no-progress"]
    assert cli.main(argv + ["-o", str(tmp_path / "full")]) == 0
    rows = _rows(tmp_path / "full" / "results.csv")
    assert [(r["record"], r["method"], r["criterion"]) for r in rows] == [
        ("sim0", "kpca", "rule-of-thumb"), ("sim0", "r_amplitude", "none"),
        ("sim1", "kpca", "rule-of-thumb"), ("sim1", "r_amplitude", "none")]
    assert all(r["error"] == "" for r in rows), rows
    assert all(float(r["corr"]) > 0.4 for r in rows)  # the simulated respiration is recovered
    assert all(float(r["sigma2"]) > 0 for r in rows if r["method"] == "kpca")
    # the stored window rates are the rate error's windows: their median |error| is the row's
    with open(tmp_path / "full" / "window_rates.csv") as f:
        win = list(csv.DictReader(f))
    for r in rows:
        mine = [w for w in win if (w["record"], w["method"]) == (r["record"], r["method"])]
        err = [abs(float(w["edr_bpm"]) - float(w["ref_bpm"])) for w in mine if w["edr_bpm"]
               and w["ref_bpm"]]
        assert len(mine) == 3 and np.median(err) == pytest.approx(float(r["rate_error_bpm"]),
                                                                  abs=1e-12)

    real_extract, calls = batch._run_extract_edr, {"n": 0}

    def killed_after_two(*a, **k):
        calls["n"] += 1
        if calls["n"] > 2:
            raise KeyboardInterrupt
        return real_extract(*a, **k)

    monkeypatch.setattr(batch, "_run_extract_edr", killed_after_two)
    capsys.readouterr()
    assert cli.main(argv + ["-o", str(tmp_path / "resumed")]) == 130  # Ctrl-C: the protocol's code
    assert capsys.readouterr().err == "python -m edr.evaluate: interrupted\n"
    monkeypatch.setattr(batch, "_run_extract_edr", real_extract)
    assert cli.main(argv + ["-o", str(tmp_path / "resumed")]) == 0
    assert _rows(tmp_path / "resumed" / "results.csv") == rows
    (run,) = json.loads((tmp_path / "resumed" / "batch.json").read_text())["runs"]
    # the 2 finished tasks were kept
    assert (run["n_tasks"], run["n_run"], run["n_errors"]) == (4, 2, 0)


def test_dask_cluster_of_two_processes_gives_the_local_results(simulated_db, tmp_path,
                                                                dask_cluster):
    """``--scheduler``: the real chain on a LocalCluster of 2 worker processes writes the
    results of the in-process run (the ``seconds`` column apart)."""
    pids = {w.process.pid for w in dask_cluster.workers.values()}
    assert len(pids) == 2
    argv = ["--data-dir", str(simulated_db), "--methods", "kpca,r_amplitude", "--criteria",
            "rule-of-thumb", "--no-progress"]
    assert cli.main(argv + ["--jobs", "1", "-o", str(tmp_path / "local")]) == 0
    assert cli.main(argv + ["--scheduler", dask_cluster.scheduler_address,
                            "-o", str(tmp_path / "dask")]) == 0
    local = _rows(tmp_path / "local" / "results.csv")
    dask = _rows(tmp_path / "dask" / "results.csv")
    assert len(local) == 4 and all(r["error"] == "" for r in local) and dask == local
    for name in ("window_rates.csv", "selection_curves.json"):
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()


def test_breath_columns_are_the_breath_scores(monkeypatch):
    from dataclasses import replace

    from edr.evaluate.breaths import EVENT_COLUMN, SCORE_COLUMNS, score_kept
    from edr.pipeline import extract_edr
    from edr.simulate import simulate_recording

    assert tuple(c for c in batch.COLUMNS if c.startswith("breath_")) == (*SCORE_COLUMNS,
                                                                          EVENT_COLUMN)
    rec = simulate_recording(180.0, 125.0, random_state=3, apnoea_episodes=[(80.0, 25.0)])
    task = batch.Task("sim", "sim", "/nowhere/sim", "kpca_fusion", "mdd-fast", "default")
    monkeypatch.setattr(batch, "_read", lambda path, read_options=(): rec)
    row = batch.run_task(task)["row"]
    assert row["error"] == ""
    expected = score_kept(extract_edr(rec, sigma2="mdd-fast").breaths, rec.breath_times)
    assert {c: row[c] for c in SCORE_COLUMNS} == pytest.approx(expected.row(), nan_ok=True)
    n_ref, n_det, n_match = (row[f"breath_n_{k}"] for k in ("reference", "detected", "matched"))
    assert row["breath_n_annotated"] == len(rec.breath_times) and n_match > 0.9 * n_ref
    assert row["breath_f1"] == pytest.approx(2 * n_match / (n_ref + n_det))
    assert row["breath_interval_error_s"] < 0.5
    assert row[EVENT_COLUMN] == "end_of_inspiration"
    monkeypatch.setattr(batch, "_read",
                        lambda path, read_options=(): replace(rec, breath_times=None))
    row = batch.run_task(task)["row"]
    assert row["error"] == "" and all(np.isnan(row[c]) for c in SCORE_COLUMNS)
    assert row[EVENT_COLUMN] == ""


def test_own_folder_rows_carry_the_folders_name(simulated_db, tmp_path, stand_ins):
    """``--data-dir`` on one's own records: the rows are named after the folder, not after the
    default database (``bidmc``); ``--database`` given with it names them."""
    argv = ["--data-dir", str(simulated_db), "--methods", "r_amplitude", "--jobs", "1",
            "--no-progress"]
    assert cli.main(argv + ["-o", str(tmp_path / "own")]) == 0
    rows = _rows(tmp_path / "own" / "results.csv")
    assert len(rows) == 2 and {r["database"] for r in rows} == {simulated_db.name}
    assert cli.main(argv + ["--database", "mine", "-o", str(tmp_path / "named")]) == 0
    assert {r["database"] for r in _rows(tmp_path / "named" / "results.csv")} == {"mine"}


def test_own_folder_of_edf_files_is_evaluated(tmp_path, stand_ins):
    """``--data-dir`` on EDF files: each file with an ECG channel is a record (a WFDB record of
    the same name wins), one without is left out."""
    edfio = pytest.importorskip("edfio")
    wfdb = pytest.importorskip("wfdb")
    from edr.simulate import simulate_recording

    rec = simulate_recording(40.0, 250.0, random_state=0)
    for name, label in (("a", "ECG"), ("b", "EEG Fpz-Cz"), ("c", "ECG")):
        edfio.Edf([edfio.EdfSignal(rec.ecg, sampling_frequency=250.0, label=label,
                                   physical_dimension="mV")]).write(tmp_path / f"{name}.edf")
    wfdb.wrsamp("c", fs=250.0, units=["mV"], sig_name=["II"], p_signal=rec.ecg[:, None],
                fmt=["16"], write_dir=str(tmp_path))
    assert batch.list_records(tmp_path) == {"a": tmp_path / "a.edf", "c": tmp_path / "c"}
    out = tmp_path / "out"
    assert cli.main(["--data-dir", str(tmp_path), "--methods", "r_amplitude", "--jobs", "1",
                     "--no-progress", "-o", str(out)]) == 0
    assert [r["record"] for r in _rows(out / "results.csv")] == ["a", "c"]


def test_scheduler_without_distributed_fails_before_any_output(simulated_db, tmp_path,
                                                               monkeypatch, capsys):
    """``--scheduler`` without the ``distributed`` extra: one line naming the extra to install,
    exit 2, and no output folder."""
    monkeypatch.setitem(__import__("sys").modules, "distributed", None)  # not installed
    out = tmp_path / "out"
    assert cli.main(["--data-dir", str(simulated_db), "--scheduler", "tcp://127.0.0.1:1",
                     "--no-progress", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'kpca-edr[distributed]'" in err
    assert not out.exists()


def test_plan_tasks_gives_a_method_its_own_criteria():
    tasks = batch.plan_tasks("fake", RECORDS, ["kpca_fusion", "kpca", "pca"], ["mdd", "kpa"],
                             criteria_of={"kpca_fusion": ["mdd-fast"]})
    by_method = {m: {t.criterion for t in tasks if t.method == m} for m in ("kpca_fusion", "kpca")}
    assert by_method == {"kpca_fusion": {"mdd-fast"}, "kpca": {"mdd", "kpa"}}
    with pytest.raises(ValueError, match="criteria of kpca_fusion must not be empty"):
        batch.plan_tasks("fake", RECORDS, ["kpca_fusion"], ["mdd"], criteria_of={"kpca_fusion": []})


def test_default_criteria_run_the_default_method_as_extract_does(simulated_db, tmp_path,
                                                                  stand_ins):
    """Without ``--criteria`` the default method runs with its own σ² rule (``mdd-fast``, as
    ``edr extract``) and the other kernel methods with the paper's four; ``--criteria`` given
    holds for every kernel method."""
    argv = ["--data-dir", str(simulated_db), "--methods", "kpca_fusion,kpca,pca", "--jobs", "1",
            "--no-progress"]
    assert cli.main(argv + ["-o", str(tmp_path / "default")]) == 0
    rows = _rows(tmp_path / "default" / "results.csv")
    got = {(r["method"], r["criterion"]) for r in rows}
    assert {c for m, c in got if m == "kpca_fusion"} == {"mdd-fast"}
    assert {c for m, c in got if m == "kpca"} == set(cli.DEFAULT_CRITERIA)
    assert cli.main(argv + ["--criteria", "shannon", "-o", str(tmp_path / "given")]) == 0
    given = {(r["method"], r["criterion"]) for r in _rows(tmp_path / "given" / "results.csv")}
    assert {c for m, c in given if m != "pca"} == {"shannon"}
