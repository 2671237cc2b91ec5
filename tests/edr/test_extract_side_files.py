"""Each record's own side files over many records: ``edr extract a b c --r-peaks qrs`` and
``--breath-times 'refs/{record}_breaths.csv'`` (:mod:`edr.io.side_files`)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
import wfdb

from edr import extract
from edr.beats import detect
from edr.io.side_files import side_file, side_file_form
from edr.simulate import simulate_recording

FS = 250.0


def _write(folder: Path, name: str, seed: int, resp: bool = True):
    rec = simulate_recording(60.0, FS, random_state=seed)
    signals = np.column_stack([rec.ecg, rec.resp]) if resp else rec.ecg[:, None]
    names = ["II", "RESP"] if resp else ["II"]
    wfdb.wrsamp(name, fs=FS, units=["mV"] * len(names), sig_name=names, p_signal=signals,
                fmt=["16"] * len(names), write_dir=str(folder))
    return rec


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    (tmp_path / "refs").mkdir()
    recs = {name: _write(tmp_path / "data", name, seed, resp=False)
            for name, seed in (("rec_a", 1), ("rec_b", 2), ("rec_c", 3))}
    return tmp_path, recs


def _table(out: str) -> dict[str, str]:
    return {ln.split()[0]: ln for ln in out.strip().splitlines()[1:-1]}


def _records():
    return [f"data/rec_{x}.hea" for x in "abc"]


def test_side_file_forms_and_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert side_file_form("{dir}/peaks.csv") == "pattern"
    assert side_file_form("qrs") == "annotator" and side_file_form("atr_2") == "annotator"
    assert side_file_form("refs/peaks.csv") == "file" and side_file_form("peaks") == "annotator"
    Path("peaks").write_text("1.0\n")  # an existing file of that name is a file
    assert side_file_form("peaks") == "file"
    (tmp_path / "d").mkdir()
    wfdb.wrsamp("r1", fs=FS, units=["mV"], sig_name=["II"], p_signal=np.zeros((10, 1)),
                fmt=["16"], write_dir=str(tmp_path / "d"))
    for given in ("d/r1.dat", "d/r1.hea", "d/r1"):  # one name and folder for any of its files
        assert side_file("{dir}/{record}_b.csv", given) == "d/r1_b.csv"
        assert side_file("qrs", given) == "d/r1.qrs"
    assert side_file("refs/{record}.txt", "x/ecg.csv.gz") == "refs/ecg.txt"
    assert side_file("one.csv", "d/r1.hea") == "one.csv"


def test_r_peaks_annotator_for_many_records_a_missing_one_fails_alone(data, capsys):
    tmp, recs = data
    n = {}
    for name in ("rec_a", "rec_c"):  # rec_b has no .qrs
        peaks = np.round(detect(recs[name].ecg, FS).peaks).astype(int)
        wfdb.wrann(name, "qrs", peaks, ["N"] * peaks.size, fs=FS, write_dir=str(tmp / "data"))
        n[name] = peaks.size
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = extract.main([*_records(), "-o", "out/", "--r-peaks", "qrs"])
    out, _ = capsys.readouterr()
    rows = _table(out)
    assert code == 2 and list(rows) == ["rec_a", "rec_b", "rec_c"]
    assert rows["rec_a"].endswith(" ok") and rows["rec_c"].endswith(" ok")
    assert "failed:" in rows["rec_b"] and "rec_b.qrs" in rows["rec_b"]
    for name in ("rec_a", "rec_c"):
        summary = json.loads((tmp / "out" / f"{name}_edr.json").read_text())
        assert summary["r_peaks"] == f"{name}.qrs: {n[name]} R peaks"


def test_breath_times_pattern_for_many_records_and_one(data, capsys):
    tmp, recs = data
    for name in ("rec_a", "rec_b"):  # rec_c has none
        (tmp / "refs" / f"{name}_breaths.csv").write_text(
            "time_s\n" + "".join(f"{t:.3f}\n" for t in recs[name].breath_times))
    code = extract.main([*_records(), "-o", "out/", "--breath-times",
                         "refs/{record}_breaths.csv"])
    out, _ = capsys.readouterr()
    rows = _table(out)
    assert code == 2 and rows["rec_a"].endswith(" ok") and rows["rec_b"].endswith(" ok")
    assert ("failed: --breath-times refs/{record}_breaths.csv: no file "
            "refs/rec_c_breaths.csv for this record") in rows["rec_c"]
    for name in ("rec_a", "rec_b"):
        summary = json.loads((tmp / "out" / f"{name}_edr.json").read_text())
        assert summary["breath_reference"] == (f"refs/{name}_breaths.csv: "
                                               f"{recs[name].breath_times.size} breaths")
        assert np.isfinite(summary["scores"]["rate_error_bpm"])
    # one record takes the pattern too
    assert extract.main(["data/rec_a.hea", "-o", "one.csv", "--json", "one.json",
                         "--breath-times", "refs/{record}_breaths.csv"]) == 0
    capsys.readouterr()
    assert json.loads(Path("one.json").read_text())["breath_reference"].startswith(
        "refs/rec_a_breaths.csv")


def test_dir_placeholder_names_a_file_beside_each_record(data, capsys):
    tmp, recs = data
    for name in ("rec_a", "rec_c"):
        (tmp / "data" / f"{name}.peaks.csv").write_text(
            "time_s\n" + "".join(f"{t:.4f}\n" for t in detect(recs[name].ecg, FS).peaks / FS))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = extract.main(["data/rec_a.hea", "data/rec_c.hea", "-o", "out/", "--r-peaks",
                             "{dir}/{record}.peaks.csv"])
    capsys.readouterr()
    assert code == 0
    assert json.loads((tmp / "out" / "rec_c_edr.json").read_text())["r_peaks"].startswith(
        "rec_c.peaks.csv: ")


@pytest.mark.parametrize(("flag", "also"), [("--breath-times", ""), ("--r-peaks", "annotator")])
def test_one_plain_file_for_many_records_is_refused_naming_the_pattern(flag, also, data, capsys):
    Path("refs/one.csv").write_text("time_s\n1.0\n2.0\n")
    code = extract.main([*_records(), "-o", "out/", flag, "refs/one.csv"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert f"{flag}: one file (refs/one.csv) cannot be every record's" in err
    assert "{record}" in err and also in err
    assert not Path("out").exists()


@pytest.mark.parametrize("flag", ["--r-peaks", "--breath-times"])
def test_stream_refuses_given_r_peaks_and_breath_times(flag, tmp_path, capsys):
    from edr.stream.cli import main

    code = main(["rec.hea", "-o", str(tmp_path / "o.csv"), flag, "peaks.csv"])
    out, err = capsys.readouterr()
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"{flag} applies to edr extract" in err and "edr extract" in err


def test_a_glob_takes_no_records_side_file_for_a_record(data):
    from edr.extract.many_records import expand_records

    tmp, recs = data
    folder = tmp / "data"
    for name in ("rec_a_breaths.csv", "rec_b.peaks.csv", "rec_c_edr.csv"):
        (folder / name).write_text("time_s\n1.0\n5.0\n")
    peaks = np.arange(1, 50) * 250
    wfdb.wrann("rec_a", "qrs", peaks, ["N"] * peaks.size, fs=FS, write_dir=str(folder))
    t = np.arange(recs["rec_a"].ecg.size) / FS
    for name in ("holter", "holter_2"):  # ECG in CSV files: records, though one name starts
        np.savetxt(folder / f"{name}.csv", np.column_stack([t, recs["rec_a"].ecg]),  # another's
                   delimiter=",", header="time_s,ECG", comments="", fmt="%.5f")
    (folder / "holter_edr.csv").write_text("time_s,edr\n0,1\n")  # an earlier run's output
    records, any_glob = expand_records(["data/*"])
    assert any_glob and records == ["data/holter.csv", "data/holter_2.csv", "data/rec_a.dat",
                                    "data/rec_b.dat", "data/rec_c.dat"]
    assert expand_records(["data/rec_a*"])[0] == ["data/rec_a.dat"]


def test_a_cold_numba_cache_is_announced_once(tmp_path, monkeypatch, capsys):
    """A kernel whose cache index does not exist yet is cold; compiled once, it is not."""
    import importlib
    import sys

    from edr.extract import record

    (tmp_path / "cold_kernel_mod.py").write_text(
        "import numba\n\n\n@numba.njit(cache=True)\ndef twice(x):\n    return 2.0 * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    mod = importlib.import_module("cold_kernel_mod")
    try:
        assert record.kernels_cold(mod.twice)
        assert mod.twice(1.5) == 3.0  # compiled and written to its cache
        assert not record.kernels_cold(mod.twice)
    finally:
        sys.modules.pop("cold_kernel_mod", None)
    assert record.kernels_cold(object()) is False  # no cache to ask: no announcement
    for tty, cold, printed in ((True, True, [record.COMPILE_NOTE]), (True, False, []),
                               (False, True, [])):  # a log or a pipe: no such line
        monkeypatch.setattr(sys.stderr, "isatty", lambda tty=tty: tty)
        monkeypatch.setattr(record, "kernels_cold", lambda cold=cold: cold)
        record.compile_note()
        assert capsys.readouterr().err.splitlines() == printed
