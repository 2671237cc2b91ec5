"""A reference respiration in a file of its own: :mod:`edr.io.reference_file` and
``edr extract --ref-file FILE [--ref-offset S] [--ref-fs HZ]``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import wfdb

from edr import extract
from edr.errors import RecordError
from edr.io import read_record, write_wfdb
from edr.io.reference_file import read_reference_file, with_reference_file
from edr.simulate import simulate_recording

FS = 250.0
REF_FS = 25.0


@pytest.fixture(scope="module")
def sim():
    return simulate_recording(120.0, FS, random_state=5)


@pytest.fixture
def ecg_only(tmp_path, monkeypatch, sim):
    """A WFDB record of the ECG alone, in the current folder."""
    monkeypatch.chdir(tmp_path)
    write_wfdb(tmp_path, "ecg", sim.ecg, FS, sig_name="II", units="mV")
    return tmp_path / "ecg.hea"


def _belt(path: Path, resp: np.ndarray, t0: float = 0.0, time: bool = True) -> Path:
    """The simulated respiration at 25 Hz as a CSV: ``time_s,RESP`` from ``t0``, or one
    column."""
    if time:
        t = t0 + np.arange(resp.size) / REF_FS
        np.savetxt(path, np.column_stack([t, resp]), delimiter=",", header="time_s,RESP",
                   comments="", fmt="%.6f")
    else:
        np.savetxt(path, resp, header="belt", comments="", fmt="%.6f")
    return path


def _run(argv, capsys):
    code = extract.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_csv_reference_scored_in_place_of_none(ecg_only, sim, capsys):
    _belt(Path("belt.csv"), sim.resp[::10])
    code, out, err = _run([str(ecg_only), "--ref-file", "belt.csv", "--json", "s.json"], capsys)
    assert code == 0, err
    summary = json.loads(Path("s.json").read_text())
    assert summary["reference"] == "belt.csv: RESP"
    assert summary["scores"]["msc"] > 0.5 and summary["scores"]["rate_error_bpm"] < 2.0
    assert "vs belt.csv: RESP" in out


def test_single_column_with_ref_fs_and_an_offset_aligns_the_samples(ecg_only, sim):
    rec = read_record(ecg_only)
    resp = sim.resp[::10]
    _belt(Path("late.csv"), resp[250:], time=False)  # starts 10 s after the ECG
    got = with_reference_file(rec, "late.csv", min_overlap_s=32.0, fs=REF_FS, offset_s=10.0)
    assert got.resp_fs == REF_FS and got.resp.size == resp.size
    assert np.isnan(got.resp[:250]).all()
    np.testing.assert_allclose(got.resp[250:], resp[250:], atol=1e-6)
    _belt(Path("early.csv"), np.r_[np.zeros(125), resp], time=False)  # starts 5 s before
    got = with_reference_file(rec, "early.csv", min_overlap_s=32.0, fs=REF_FS, offset_s=-5.0)
    np.testing.assert_allclose(got.resp, resp, atol=1e-6)


def test_wfdb_and_edf_reference_files(tmp_path, sim):
    import edfio

    resp = sim.resp[::10]
    wfdb.wrsamp("belt", fs=REF_FS, units=["V", "V"], sig_name=["THOR,", "ABD,"],
                p_signal=np.column_stack([resp, -resp]), fmt=["16", "16"],
                write_dir=str(tmp_path))
    ref = read_reference_file(tmp_path / "belt.hea")
    assert (ref.channel, ref.fs, ref.resp.size) == ("THOR", REF_FS, resp.size)
    assert read_reference_file(tmp_path / "belt.hea", channel="abd").channel == "ABD"
    edfio.Edf([edfio.EdfSignal(resp, sampling_frequency=REF_FS, label="Resp")]).write(
        tmp_path / "belt.edf")
    ref = read_reference_file(tmp_path / "belt.edf")
    assert ref.channel == "Resp" and ref.fs == REF_FS
    np.testing.assert_allclose(ref.resp, resp, atol=np.ptp(resp) / 1000)


@pytest.mark.parametrize(
    ("make", "argv", "fragment"),
    [
        (lambda sim: _belt(Path("b.csv"), sim.resp[::10][:2000], time=False),
         ["--ref-file", "b.csv", "--ref-fs", "25"],
         "lasts 80 s, the record 120 s: not the same stretch of time"),
        (lambda sim: _belt(Path("b.csv"), sim.resp[::10], t0=3600.0),
         ["--ref-file", "b.csv"], "its time column starts at 3600 s, not 0: give --ref-offset"),
        (lambda sim: _belt(Path("b.csv"), sim.resp[::10]),
         ["--ref-file", "b.csv", "--ref-offset", "100"], "overlaps the record by 20 s"),
        (lambda sim: _belt(Path("b.csv"), sim.resp[::10], time=False),
         ["--ref-file", "b.csv"], "no time column: give its sampling rate with --ref-fs HZ"),
        (lambda sim: None, ["--ref-offset", "3"], "--ref-offset applies to --ref-file"),
        (lambda sim: None, ["--ref-file", "none.csv"], "--ref-file: no such file: none.csv"),
    ],
)
def test_refusals_one_line_no_output(make, argv, fragment, ecg_only, sim, capsys):
    make(sim)
    code, out, err = _run([str(ecg_only), "-o", "o.csv", *argv], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert fragment in err
    assert not Path("o.csv").exists()


def test_length_within_one_second_and_one_percent_is_taken(ecg_only, sim):
    rec = read_record(ecg_only)
    resp = sim.resp[::10]
    _belt(Path("short.csv"), resp[:-50], time=False)  # 2 s short: within 1 s + 1 % of 120 s
    got = with_reference_file(rec, "short.csv", min_overlap_s=32.0, fs=REF_FS)
    assert np.isnan(got.resp[-50:]).all() and np.isfinite(got.resp[:-50]).all()
    _belt(Path("shorter.csv"), resp[:-60], time=False)  # 2.4 s short: refused
    with pytest.raises(RecordError, match="not the same stretch of time"):
        with_reference_file(rec, "shorter.csv", min_overlap_s=32.0, fs=REF_FS)


def test_many_records_take_a_pattern_not_one_file(ecg_only, sim, capsys):
    write_wfdb(ecg_only.parent, "ecg2", sim.ecg, FS, sig_name="II", units="mV")
    _belt(Path("ecg_belt.csv"), sim.resp[::10])
    code, _, err = _run(["ecg.hea", "ecg2.hea", "-o", "out/", "--ref-file", "ecg_belt.csv"],
                        capsys)
    assert code == 2 and "--ref-file: one file (ecg_belt.csv) cannot be every record's" in err
    code, out, _ = _run(["ecg.hea", "ecg2.hea", "-o", "out/", "--ref-file", "{record}_belt.csv"],
                        capsys)
    rows = {ln.split()[0]: ln for ln in out.strip().splitlines()[1:-1]}
    assert code == 2 and rows["ecg"].endswith(" ok")
    assert "no file ecg2_belt.csv for this record" in rows["ecg2"]
    assert json.loads(Path("out/ecg_edr.json").read_text())["reference"] == "ecg_belt.csv: RESP"
