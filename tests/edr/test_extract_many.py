"""Several records in one process: ``python -m edr.extract a.dat b.dat 'dir/*.hea' -o OUTDIR/``."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest
import wfdb

from edr import extract
from edr.io.targets import write_all_or_none
from edr.simulate import simulate_recording


def _write(folder: Path, name: str, duration_s: float = 60.0, seed: int = 11,
           fs: float = 250.0) -> Path:
    rec = simulate_recording(duration_s, fs, random_state=seed)
    wfdb.wrsamp(name, fs=fs, units=["mV", "mV"], sig_name=["II", "RESP"],
                p_signal=np.column_stack([rec.ecg, rec.resp]), fmt=["16", "16"],
                write_dir=str(folder))
    return folder / f"{name}.dat"


@pytest.fixture
def records(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    # < 20 beats
    paths = [_write(data, "rec_a", seed=1), _write(data, "rec_b", duration_s=12.0, seed=2),
             _write(data, "rec_c", seed=3)]
    return tmp_path, paths


def _table(out: str) -> dict[str, str]:
    """record -> its table line."""
    lines = out.strip().splitlines()
    assert lines[0].split()[:2] == ["record", "duration_s"]
    return {ln.split()[0]: ln for ln in lines[1:-1]}


def test_many_records_one_process_failing_record_in_the_middle(records, capsys):
    tmp, (a, b, c) = records
    code = extract.main([str(a), str(b), str(c), "-o", "out/"])
    out, err = capsys.readouterr()
    assert code == 2  # one record failed
    rows = _table(out)
    assert list(rows) == ["rec_a", "rec_b", "rec_c"]
    assert rows["rec_a"].endswith(" ok") and rows["rec_c"].endswith(" ok")
    assert "failed:" in rows["rec_b"] and "20" in rows["rec_b"]
    assert "3 record(s): 2 extracted, 0 skipped, 1 failed" in out.strip().splitlines()[-1]
    assert sorted(p.name for p in (tmp / "out").iterdir()) == [
        "rec_a_edr.csv", "rec_a_edr.json", "rec_c_edr.csv", "rec_c_edr.json"]
    # progress on stderr: one line per record
    for name in ("rec_a", "rec_b", "rec_c"):
        assert f"{name}: " in err
    summary = json.loads((tmp / "out" / "rec_a_edr.json").read_text())
    assert summary["record"] == "rec_a" and summary["result"]["n_beats"] > 20
    # the row shows the JSON's figures
    assert f"{summary['result']['n_beats']}" in rows["rec_a"].split()
    assert f"{summary['result']['sigma2']:.4g}" in rows["rec_a"].split()


def test_same_csv_and_name_as_the_single_record_form(records, capsys):
    tmp, (a, _, c) = records
    assert extract.main([str(a), str(c), "-o", "many"]) == 0
    capsys.readouterr()
    assert extract.main([str(a)]) == 0  # single-record default: ./<record>_edr.csv
    capsys.readouterr()
    assert (tmp / "rec_a_edr.csv").read_bytes() == (tmp / "many" / "rec_a_edr.csv").read_bytes()


def test_resumable_skips_complete_outputs_unless_overwrite(records, capsys):
    tmp, (a, _, c) = records
    assert extract.main([str(a), str(c), "-o", "out/"]) == 0
    capsys.readouterr()
    out_dir = tmp / "out"
    old = {p.name: p.stat().st_mtime_ns for p in out_dir.iterdir()}
    os.utime(out_dir / "rec_a_edr.csv", ns=(1, 1))
    (out_dir / "rec_c_edr.json").unlink()  # incomplete outputs: rec_c is done again
    assert extract.main([str(a), str(c), "-o", "out/"]) == 0
    out = capsys.readouterr().out
    rows = _table(out)
    assert "skipped" in rows["rec_a"] and rows["rec_c"].endswith(" ok")
    assert rows["rec_a"].split()[2] != "-"  # figures of a skipped record come from its JSON
    assert (out_dir / "rec_a_edr.csv").stat().st_mtime_ns == 1
    assert (out_dir / "rec_c_edr.json").is_file()
    assert extract.main([str(a), str(c), "-o", "out/", "--overwrite"]) == 0
    rows = _table(capsys.readouterr().out)
    assert rows["rec_a"].endswith(" ok") and rows["rec_c"].endswith(" ok")
    assert (out_dir / "rec_a_edr.csv").stat().st_mtime_ns != 1
    assert set(old) == {p.name for p in out_dir.iterdir()}


def test_globs_expanded_by_the_cli(records, capsys):
    tmp, _ = records
    # one record matched by several of its files (rec.hea, rec.dat) is done once
    code = extract.main([str(tmp / "data" / "rec_[ac].*"), "-o", "out"])
    rows = _table(capsys.readouterr().out)
    assert code == 0 and list(rows) == ["rec_a", "rec_c"]


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["data/nothing*.hea", "-o", "out/"], "no file matches"),
        (["data/rec_a.dat", "data/rec_c.dat", "-o", "out.csv"], "give a folder"),
        (["data/rec_a.dat", "data/rec_c.dat", "--json", "x.json"], "--json applies to one record"),
        (["data/rec_a.dat", "data/rec_c.dat", "--method", "magic"], "--method"),
        (["data/rec_a.dat", "data/rec_c.dat", "-o", "out/", "--breaths", "out/b.csv"],
         "--breaths: with several records give a folder"),
        (["data/rec_a.dat", "data/rec_c.dat", "-o", "out/", "--breath-annotations",
          "out/b.edrbr"], "--breath-annotations: with several records give a folder"),
    ],
)
def test_bad_options_fail_before_any_work(argv, fragment, records, capsys):
    tmp, _ = records
    code = extract.main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and fragment in err
    assert not (tmp / "out").exists() and not (tmp / "out.csv").exists()


def test_an_output_folder_made_meanwhile_by_another_record_is_used(tmp_path, monkeypatch):
    # run_many writes two records at a time: both may find the folder missing, and the second
    # mkdir then meets the folder the first made
    real_mkdir = Path.mkdir

    def racing_mkdir(self, *args, **kwargs):
        real_mkdir(self)  # the other record's thread wins the race
        return real_mkdir(self, *args, **kwargs)  # FileExistsError

    monkeypatch.setattr(Path, "mkdir", racing_mkdir)
    target = tmp_path / "many" / "a_edr.csv"
    write_all_or_none({"csv": target}, {"csv": lambda tmp: tmp.write_text("t\n")})
    assert target.read_text() == "t\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["a_edr.csv"]


def test_an_interrupted_run_reports_the_records_done_and_exits_130(records, capsys,
                                                                   monkeypatch):
    from edr.extract import many_records

    tmp, (a, _, c) = records
    real = many_records.extract_and_write

    def ctrl_c_on_rec_c(one, *args, **kwargs):
        if "rec_c" in one.record:
            raise KeyboardInterrupt
        return real(one, *args, **kwargs)

    monkeypatch.setattr(many_records, "extract_and_write", ctrl_c_on_rec_c)
    assert extract.main([str(a), str(c), "-o", "out/"]) == 130
    out, err = capsys.readouterr()
    rows = _table(out)
    assert rows["rec_a"].endswith(" ok") and rows["rec_c"].endswith(" interrupted")
    assert "2 record(s): 1 extracted, 0 skipped, 0 failed" in out
    assert err.endswith("python -m edr.extract: interrupted\n")
    assert sorted(p.name for p in (tmp / "out").iterdir()) == ["rec_a_edr.csv", "rec_a_edr.json"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers fork on Linux only")
def test_records_run_in_worker_processes_with_the_outputs_of_threads(records, capsys,
                                                                    monkeypatch):
    from edr.extract import many_records

    tmp, (a, _, c) = records
    assert extract.main([str(a), str(c), "-o", "forked/"]) == 0
    monkeypatch.setattr("edr.jobs.forks_workers", lambda: False)  # the reference: threads
    assert extract.main([str(a), str(c), "-o", "threads/"]) == 0
    for name in ("rec_a_edr.csv", "rec_c_edr.csv"):
        assert (tmp / "forked" / name).read_bytes() == (tmp / "threads" / name).read_bytes()
    monkeypatch.undo()
    monkeypatch.chdir(tmp)

    def where(one, *args, **kwargs):
        raise ValueError(f"ran in process {os.getpid()}")

    monkeypatch.setattr(many_records, "extract_and_write", where)
    capsys.readouterr()
    assert extract.main([str(a), str(c), "-o", "where/"]) == 2
    rows = _table(capsys.readouterr().out)
    pids = {int(rows[n].split("ran in process ")[1].split()[0]) for n in ("rec_a", "rec_c")}
    assert os.getpid() not in pids


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers fork on Linux only")
def test_a_record_that_kills_its_worker_fails_alone(records, capsys, monkeypatch):
    from edr.extract import many_records

    tmp, (a, b, c) = records
    real = many_records.extract_and_write

    def dies_on_rec_a(one, *args, **kwargs):
        if "rec_a" in one.record:
            os._exit(1)  # as a crash in compiled code or the kernel's out-of-memory killer
        return real(one, *args, **kwargs)

    monkeypatch.setattr(many_records, "extract_and_write", dies_on_rec_a)
    assert extract.main([str(a), str(b), str(c), "-o", "out/"]) == 2
    rows = _table(capsys.readouterr().out)
    assert "failed: its worker process died twice" in rows["rec_a"]
    assert "failed:" in rows["rec_b"] and "20" in rows["rec_b"]  # too short, as always
    assert rows["rec_c"].endswith(" ok")
    assert sorted(p.name for p in (tmp / "out").iterdir()) == ["rec_c_edr.csv", "rec_c_edr.json"]


def test_breath_outputs_per_record_in_their_folders_and_resumed(records, capsys):
    tmp, paths = records
    argv = [str(paths[0]), str(paths[2]), "-o", "out/", "--breaths", "br/",
            "--breath-annotations", "ann/"]
    assert extract.main(argv) == 0
    capsys.readouterr()
    for name in ("rec_a", "rec_c"):
        summary = json.loads((tmp / "out" / f"{name}_edr.json").read_text())
        table = np.genfromtxt(tmp / "br" / f"{name}_breaths.csv", delimiter=",", names=True)
        assert table.dtype.names[:3] == ("time_s", "onset_s", "interval_s")
        assert table.size == summary["breaths"]["n_breaths"] > 5
        ann = wfdb.rdann(str(tmp / "ann" / name), "edrbr")
        np.testing.assert_array_equal(ann.sample, np.round(table["time_s"] * 250.0))
        assert summary["outputs"]["breaths"] == str(Path("br") / f"{name}_breaths.csv")
    (tmp / "ann" / "rec_c.edrbr").unlink()  # an output missing: that record is done again
    assert extract.main(argv) == 0
    rows = _table(capsys.readouterr().out)
    assert "skipped" in rows["rec_a"] and "skipped" not in rows["rec_c"]
    assert (tmp / "ann" / "rec_c.edrbr").is_file()


def test_a_record_another_batch_is_extracting_is_skipped(records, capsys):
    import subprocess

    tmp, (a, _, c) = records
    (tmp / "out").mkdir()
    other = os.getppid()  # alive: another batch
    dead = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True, check=True).stdout)
    (tmp / "out" / "rec_a_edr.lock").write_text(f"{other}\n")
    (tmp / "out" / "rec_c_edr.lock").write_text(f"{dead}\n")  # a batch killed with -9
    code = extract.main([str(a), str(c), "-o", "out/"])
    out, err = capsys.readouterr()
    rows = _table(out)
    assert code == 0, out + err
    assert rows["rec_a"].endswith(f"skipped (being extracted by another batch (process {other}))")
    assert rows["rec_c"].endswith(" ok")
    assert "2 record(s): 1 extracted, 1 skipped, 0 failed" in out
    assert f"rec_a: skipped (being extracted by another batch (process {other}))" in err
    assert sorted(p.name for p in (tmp / "out").iterdir()) == [
        "rec_a_edr.lock", "rec_c_edr.csv", "rec_c_edr.json"]


def test_a_record_another_batch_finished_meanwhile_is_not_extracted_again(tmp_path):
    from types import SimpleNamespace

    from edr.extract import many_records

    (job,) = many_records._planned_jobs([str(tmp_path / "rec_a.dat")], tmp_path / "out")
    job.outputs["csv"].parent.mkdir()
    job.outputs["csv"].write_text("time_s,edr\n")
    job.outputs["json"].write_text('{"result": {"n_beats": 70}}')
    with pytest.raises(many_records.RecordSkipped) as info:
        many_records._extract_one(SimpleNamespace(overwrite=False), [], job)
    assert info.value.status == "skipped (outputs written by another batch meanwhile)"
    assert info.value.summary == {"result": {"n_beats": 70}}
    assert not (tmp_path / "out" / "rec_a_edr.lock").exists()


def test_a_single_record_run_takes_the_records_lock_as_a_batch_does(records, capsys):
    """A single-record extract and a batch (or two single runs) into one output would replace
    its CSV and JSON in turn, interleaved: a CSV of one run beside the JSON of the other."""
    from edr.io.locks import output_lock

    tmp, (a, _, _) = records
    (tmp / "out").mkdir()
    argv = [str(a), "-o", "out/rec_a_edr.csv", "--json", "out/rec_a_edr.json"]
    with output_lock(tmp / "out" / "rec_a_edr.lock"):  # a batch extracting rec_a
        code = extract.main(argv)
        err = capsys.readouterr().err
        assert code == 2
        assert (f"out/rec_a_edr.csv is being written by another extract (process {os.getpid()};"
                in err)
        assert sorted(p.name for p in (tmp / "out").iterdir()) == ["rec_a_edr.lock"]
    assert extract.main(argv) == 0
    assert sorted(p.name for p in (tmp / "out").iterdir()) == ["rec_a_edr.csv", "rec_a_edr.json"]
    code = extract.main([str(a), "-o", "new/rec_a_edr.csv", "--json", "new/rec_a_edr.json"])
    assert code == 0 and not (tmp / "new" / "rec_a_edr.lock").exists()
