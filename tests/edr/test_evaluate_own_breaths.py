"""``python -m edr.evaluate --breath-times PATTERN``: records without a respiration channel scored
against breath times of one's own, by the rule ``edr extract`` scores them with
(:func:`edr.scoring.score_reference`)."""

from __future__ import annotations

import csv
import json

import pytest
import wfdb

from edr import extract
from edr.evaluate import cli
from edr.simulate import simulate_recording

FS = 250.0
PATTERN = "{dir}/../refs/{record}_breaths.csv"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """``data/`` of two ECG-only records, ``refs/`` with the breath times of ``rec_a`` alone."""
    root = tmp_path_factory.mktemp("own_breaths")
    (root / "data").mkdir()
    (root / "refs").mkdir()
    for seed, name in enumerate(("rec_a", "rec_b")):
        rec = simulate_recording(90.0, FS, random_state=seed + 7)
        wfdb.wrsamp(name, fs=FS, units=["mV"], sig_name=["II"], p_signal=rec.ecg[:, None],
                    fmt=["16"], write_dir=str(root / "data"))
        if name == "rec_a":
            (root / "refs" / "rec_a_breaths.csv").write_text(
                "time_s\n" + "".join(f"{t:.3f}\n" for t in rec.breath_times))
    return root


def _rows(out):
    with open(out / "results.csv") as f:
        return {r["record"]: r for r in csv.DictReader(f)}


def test_rate_error_against_own_breath_times_as_extract_scores_it(folder, tmp_path, capsys):
    out = tmp_path / "ev"
    code = cli.main(["--data-dir", str(folder / "data"), "--methods", "rsa", "--jobs", "1",
                     "--no-progress", "-o", str(out), "--breath-times", PATTERN])
    assert code == 0
    rows = _rows(out)
    a, b = rows["rec_a"], rows["rec_b"]
    assert a["error"] == "" and a["msc"] == ""  # NaN: no waveform to score
    assert float(a["rate_error_bpm"]) < 3.0 and int(float(a["breath_n_annotated"])) > 10
    assert "rec_b_breaths.csv" in b["error"]  # its file is missing: named, the batch went on
    # the same number edr extract gives the same record, breath times and method
    assert extract.main([str(folder / "data" / "rec_a.hea"), "--method", "rsa", "-o",
                         str(tmp_path / "a.csv"), "--json", str(tmp_path / "a.json"),
                         "--breath-times", PATTERN]) == 0
    capsys.readouterr()
    scored = json.loads((tmp_path / "a.json").read_text())["scores"]["rate_error_bpm"]
    assert float(a["rate_error_bpm"]) == pytest.approx(scored, abs=1e-9)


def test_without_breath_times_the_error_names_the_option(folder, tmp_path, capsys):
    out = tmp_path / "none"
    assert cli.main(["--data-dir", str(folder / "data"), "--methods", "rsa", "--jobs", "1",
                     "--no-progress", "-o", str(out)]) == 0
    assert "--breath-times PATTERN" in _rows(out)["rec_a"]["error"]


@pytest.mark.parametrize(("value", "fragment"), [
    ("refs/rec_a_breaths.csv", "one file (refs/rec_a_breaths.csv) cannot be every record's"),
    ("breath", "use --annotator breath"),
])
def test_one_file_or_an_annotator_name_is_refused(value, fragment, folder, tmp_path, capsys):
    code = cli.main(["--data-dir", str(folder / "data"), "--methods", "rsa", "-o",
                     str(tmp_path / "x"), "--breath-times", value])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and fragment in err
    assert not (tmp_path / "x").exists()
