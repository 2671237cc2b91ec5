"""``edr evaluate`` on one's own folder with one's own reference names: ``--ref-channel``,
``--annotator`` (the annotation file's extension) and ``--breath-label``.

The folder is an anaesthesia-like one: one ECG lead at 300 Hz, a capnogram named ``Kapno`` (no
name the readers know as respiration) and breaths in ``<record>.resp`` labelled ``insp``/``exp``.
"""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from edr.errors import RecordError
from edr.evaluate import cli

FS = 300.0
DURATION_S = 60.0
RECORDS = ("case1", "case2")


@pytest.fixture(scope="module")
def own_folder(tmp_path_factory):
    wfdb = pytest.importorskip("wfdb")
    from edr.simulate import ANAESTHESIA_SCENARIOS, simulate_scenario

    folder = tmp_path_factory.mktemp("anaesthesia")
    for seed, (name, scenario) in enumerate(zip(RECORDS, ANAESTHESIA_SCENARIOS, strict=False)):
        rec = simulate_scenario(scenario, duration_s=DURATION_S, fs=FS, leads=("II",),
                                random_state=seed)
        t = np.arange(rec.ecg.size) / FS
        co2 = np.interp(t, np.arange(rec.resp.size) / rec.resp_fs, rec.resp)
        wfdb.wrsamp(name, fs=FS, units=["mV", "mmHg"], sig_name=["ECG", "Kapno"],
                    p_signal=np.column_stack([rec.ecg, co2]), fmt=["16", "16"],
                    write_dir=str(folder))
        ends = np.round(rec.breath_times * FS).astype(int)
        starts = np.array([a + int(np.argmin(co2[a:b])) for a, b in zip(ends[:-1], ends[1:],
                                                                          strict=True)])
        samples = np.concatenate([starts, ends])
        labels = np.array(["insp"] * starts.size + ["exp"] * ends.size)
        order = np.argsort(samples, kind="stable")
        wfdb.wrann(name, "resp", samples[order], symbol=['"'] * samples.size,
                   aux_note=labels[order].tolist(), fs=FS, write_dir=str(folder))
    return folder


def _evaluate(folder, out, *options):
    return cli.main(["--data-dir", str(folder), "--methods", "pca", "--jobs", "1",
                     "--no-progress", "-o", str(out), *options])


def _rows(out):
    with open(out / "results.csv") as f:
        return list(csv.DictReader(f))


def test_named_channel_and_annotation_file_score_every_record(own_folder, tmp_path, capsys):
    out = tmp_path / "named"
    assert _evaluate(own_folder, out, "--ref-channel", "Kapno", "--annotator", "resp") == 0
    rows = _rows(out)
    assert [r["record"] for r in rows] == list(RECORDS)
    assert all(r["error"] == "" and float(r["msc"]) > 0 for r in rows)
    # the breaths are the file's ends of inspiration: as many as the simulated breaths
    n_exp = [int(float(r["breath_n_annotated"])) for r in rows]
    assert all(n > 5 for n in n_exp)
    out_insp = tmp_path / "insp"
    assert _evaluate(own_folder, out_insp, "--ref-channel", "Kapno", "--annotator", "resp",
                     "--breath-label", "INSP") == 0
    n_insp = [int(float(r["breath_n_annotated"])) for r in _rows(out_insp)]
    assert [n - 1 for n in n_exp] == n_insp  # one start fewer: the last breath has none


def test_without_the_names_each_record_says_why_it_has_no_reference(own_folder, tmp_path,
                                                                     capsys):
    out = tmp_path / "unnamed"
    assert _evaluate(own_folder, out) == 0
    errors = [r["error"] for r in _rows(out)]
    assert len(errors) == len(RECORDS)
    for name, error in zip(RECORDS, errors, strict=True):
        assert f"no reference respiration in {name}" in error
        assert "ECG, Kapno" in error and "--ref-channel" in error
        assert f"{name}.resp" in error and "--annotator" in error
    assert f"{len(RECORDS)} errors" in capsys.readouterr().err


@pytest.mark.parametrize("options, expected", [
    (("--ref-channel", "CO2"), "valid channels: ECG, Kapno"),
    (("--ref-channel", "Kapno", "--annotator", "atr"), "annotation files: {}.resp"),
    (("--ref-channel", "Kapno", "--annotator", "resp", "--breath-label", "ann1"),
     "no annotation labelled 'ann1' (labels found: exp, insp)"),
])
def test_a_named_reference_missing_is_each_records_error(own_folder, tmp_path, options,
                                                         expected, capsys):
    out = tmp_path / "missing"
    assert _evaluate(own_folder, out, *options) == 0  # the batch goes on
    errors = [r["error"] for r in _rows(out)]
    assert all(expected.format(name) in e for name, e in zip(RECORDS, errors, strict=True))


def test_another_reference_is_another_task(own_folder, tmp_path, capsys):
    """A resumed folder run with another reference recomputes its tasks; the same one resumes,
    and a run without reference options keeps the options a task stored before them."""
    out = tmp_path / "resumed"
    named = ("--ref-channel", "Kapno", "--annotator", "resp")
    assert _evaluate(own_folder, out, *named) == 0
    assert "(2 run, 0 resumed" in capsys.readouterr().err
    assert _evaluate(own_folder, out, *named) == 0
    assert "(0 run, 2 resumed" in capsys.readouterr().err
    assert _evaluate(own_folder, out, *named, "--breath-label", "insp") == 0
    assert "(2 run, 0 resumed" in capsys.readouterr().err
    assert _evaluate(own_folder, out, "--ref-channel", "Kapno") == 0
    assert "(2 run, 0 resumed" in capsys.readouterr().err
    assert all(r["breath_n_annotated"] == "" for r in _rows(out))  # no rec.breath: no breaths
    stored = json.loads((out / "tasks" / "case1" / "pca__none__default.json").read_text())
    assert stored["options"] == {"random_state": 0, "resp_channel": "Kapno"}
    bare = tmp_path / "bare"  # without the names, a task stores the options it stored before them
    assert _evaluate(own_folder, bare) == 0
    stored = json.loads((bare / "tasks" / "case1" / "pca__none__default.json").read_text())
    assert stored["options"] == {"random_state": 0}


def test_read_record_names_the_annotation_files_of_a_record(own_folder, tmp_path):
    from edr.io import read_record

    rec = read_record(own_folder / "case1.hea", resp_channel="kapno", breath_extension="resp")
    assert rec.resp_channel == "Kapno" and rec.breath_source.startswith("case1.resp: ")
    with pytest.raises(RecordError, match=r"no annotation file case1\.breath .*: case1\.resp"):
        read_record(own_folder / "case1", breath_extension="breath")
    (tmp_path / "x.edf").write_bytes(b"0" * 256)
    with pytest.raises(RecordError, match="applies to WFDB records"):
        read_record(tmp_path / "x.edf", breath_extension="resp")


def test_evaluate_options(tmp_path):
    parser = cli.build_parser()
    defaults = parser.parse_args(["-o", "x"])
    assert defaults.methods.split(",")[0] == "kpca_fusion"
    assert set(cli.PAPER_METHODS) < set(defaults.methods.split(","))
    assert cli._methods("paper") == list(cli.PAPER_METHODS)
    for bad in ("re.sp", "hea", ""):
        assert cli.main(["--data-dir", str(tmp_path), "--annotator", bad, "-o",
                         str(tmp_path / "o")]) == 2


def test_extract_takes_the_same_reference_options(own_folder, tmp_path, capsys):
    from edr.extract.cli import main

    out = tmp_path / "case1.json"
    assert main([str(own_folder / "case1.hea"), "--ref-channel", "kapno", "--annotator", "resp",
                 "--breath-label", "insp", "-o", str(tmp_path / "case1.csv"), "--json",
                 str(out)]) == 0
    summary = json.loads(out.read_text())
    assert summary["reference"] == "Kapno"
    assert summary["breath_reference"].startswith("case1.resp: label 'insp'")
    assert main(["--demo", "--annotator", "resp"]) == 2
    assert "--annotator applies to a record file" in capsys.readouterr().err
