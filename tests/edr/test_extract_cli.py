"""Tests of the command line: ``python -m edr.extract`` / ``edr extract`` and the ``edr``
dispatcher."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import wfdb

from edr import cli, extract
from edr.names import CRITERION_NAMES, METHOD_NAMES
from edr.simulate import simulate_recording


def _write_wfdb(folder: Path, name: str, signals: dict[str, np.ndarray], fs: float) -> Path:
    """Write a format-16 WFDB record ``folder/name`` with the given channels (mV)."""
    names = list(signals)
    data = np.column_stack([signals[k] for k in names])
    wfdb.wrsamp(name, fs=fs, units=["mV"] * len(names), sig_name=names, p_signal=data,
                fmt=["16"] * len(names), write_dir=str(folder))
    return folder / f"{name}.dat"


def _simulated_record(folder: Path, name="sim", duration_s=60.0, fs=250.0,
                      names=("II", "RESP")) -> Path:
    rec = simulate_recording(duration_s, fs, random_state=11)
    signals = {names[0]: rec.ecg}
    if len(names) > 1:
        signals[names[1]] = rec.resp
    return _write_wfdb(folder, name, signals, fs)


def _run(argv, capsys):
    code = extract.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _assert_one_line_error(code, err, *fragments):
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("python -m edr.extract: error: ")
    assert "Traceback" not in err
    for f in fragments:
        assert f in lines[0], lines[0]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _listing(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def test_extract_writes_csv_json_plot_and_scores_against_resp(workdir, capsys):
    dat = _simulated_record(workdir)
    code, out, err = _run([str(dat), "--json", "out/sim.json", "--plot", "out/sim.png"], capsys)
    assert code == 0, err
    csv = workdir / "sim_edr.csv"  # default: <record>_edr.csv in the current directory
    table = np.genfromtxt(csv, delimiter=",", names=True)
    assert table.dtype.names == ("time_s", "edr", "rate_bpm", "quality")
    assert np.allclose(np.diff(table["time_s"]), 0.25)  # the 4 Hz grid
    rated = np.isfinite(table["rate_bpm"])
    assert rated.any() and np.all(table["quality"][rated] >= 0.5)  # no rate below the threshold
    assert table.size == pytest.approx(60 * 4, abs=8)
    summary = json.loads((workdir / "out/sim.json").read_text())
    assert (summary["record"] == "sim" and summary["ecg_channel"] == "II"
            and summary["reference"] == "RESP")
    assert 0.0 <= summary["scores"]["msc"] <= 1.0 and summary["scores"]["corr"] > 0.5
    assert (workdir / "out/sim.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for key in ("record     sim", "lead       ", "beats      ", "status     ok", "sigma2 = ",
                "(chosen by varon2015-fast = mdd-fast)", "vs RESP    MSC",
                "sim_edr.csv"):
        assert key in out, out
    assert not [p for p in _listing(workdir) if p.endswith(".tmp")]



def test_the_csv_writes_every_grid_column(workdir, capsys, monkeypatch):
    """A column added to ``EDRResult.grid_columns`` reaches the CSV with no other edit."""
    from edr.pipeline import EDRResult

    plain = EDRResult.grid_columns
    monkeypatch.setattr(EDRResult, "grid_columns",
                        lambda self: {**plain(self), "extra": np.ones(np.size(self.time))})
    code, _, err = _run([str(_simulated_record(workdir)), "-o", "x.csv"], capsys)
    assert code == 0, err
    assert (workdir / "x.csv").read_text().splitlines()[0] == "time_s,edr,rate_bpm,quality,extra"

def test_demo_runs_without_data_and_compares_with_the_truth(workdir, capsys):
    code, out, err = _run(["--demo"], capsys)
    assert code == 0, err
    for suffix in ("csv", "json", "png"):
        assert (workdir / "demo_output" / f"edr_demo.{suffix}").stat().st_size > 0
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("vs truth"))
    assert "MSC" in lines[at + 1] and "|r|" in lines[at + 1]  # the scores explained in one line
    scores = json.loads((workdir / "demo_output/edr_demo.json").read_text())["scores"]
    # the synthetic respiration is strong and known: the EDR must find it
    assert scores["corr"] > 0.7 and scores["rate_error_bpm"] < 1.0


def _bad_record(kind: str, folder: Path) -> list[str]:
    """Command-line arguments for one bad-input case, built in ``folder``."""
    if kind == "missing file":
        return [str(folder / "nope.dat")]
    if kind == "header without data":
        dat = _simulated_record(folder, duration_s=30.0)
        dat.unlink()
        return [str(folder / "sim.hea")]
    if kind == "truncated dat":
        dat = _simulated_record(folder, duration_s=30.0)
        raw = dat.read_bytes()
        dat.write_bytes(raw[: len(raw) // 3 + 1])  # also cuts a sample in half
        return [str(dat)]
    if kind == "no ECG channel":
        rec = simulate_recording(30.0, 250.0)
        return [str(_write_wfdb(folder, "noecg",
                                {"RESP": rec.resp, "PLETH": rec.resp ** 2}, 250.0))]
    if kind == "unknown channel":
        return [str(_simulated_record(folder, duration_s=30.0)), "--channel", "V9"]
    if kind == "fewer than 20 beats":
        return [str(_simulated_record(folder, duration_s=12.0))]
    if kind == "fs below 100 Hz":
        rec = simulate_recording(60.0, 80.0)
        return [str(_write_wfdb(folder, "slow", {"II": rec.ecg}, 80.0))]
    raise AssertionError(kind)


@pytest.mark.parametrize(
    ("kind", "fragments"),
    [
        ("missing file", ["nope"]),
        ("header without data", ["sim.dat"]),
        ("truncated dat", ["sim"]),
        ("no ECG channel", ["RESP", "PLETH"]),
        ("unknown channel", ["V9"]),
        ("fewer than 20 beats", ["20"]),
        ("fs below 100 Hz", ["80"]),
    ],
)
def test_bad_input_one_line_exit_2_no_output(kind, fragments, workdir, capsys):
    argv = _bad_record(kind, workdir)
    before = _listing(workdir)
    code, out, err = _run([*argv, "-o", "res/edr.csv", "--json", "res/edr.json", "--plot",
                           "res/edr.png"], capsys)
    _assert_one_line_error(code, err, *fragments)
    assert _listing(workdir) == before  # no output file, no output folder, no temp file


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["--sigma2", "-1", "x.dat"], ["--sigma2", "'-1'"]),
        (["--sigma2", "nan", "x.dat"], ["--sigma2", "'nan'"]),
        (["--sigma2", "bogus", "--demo"], ["--sigma2", "'bogus'", "mdd"]),
        (["--method", "bogus", "--demo"], ["--method", "'bogus'", "kpca"]),
        (["--window", "0", "x.dat"], ["--window", "'0'"]),
        (["--seed", "one", "x.dat"], ["--seed"]),
        (["--frobnicate", "x.dat"], ["--frobnicate"]),
        ([], ["record file is required"]),
        (["--demo", "x.dat"], ["either a record or --demo"]),
    ],
)
def test_bad_options_one_line_exit_2(argv, fragments, workdir, capsys):
    code, out, err = _run(argv, capsys)
    _assert_one_line_error(code, err, *fragments)
    assert _listing(workdir) == set()


def test_edr_dispatcher(workdir, capsys, monkeypatch):
    assert cli.main(["extract", "missing.dat"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("edr extract: error: ") and err.count("\n") == 1
    assert cli.main(["frobnicate"]) == 2
    assert "unknown command 'frobnicate'" in capsys.readouterr().err
    assert cli.main([]) == 2 and "usage: edr" in capsys.readouterr().err
    assert cli.main(["--help"]) == 0 and "extract --demo" in capsys.readouterr().out
    monkeypatch.setitem(cli.COMMANDS, "report", ("edr.evaluate.no_such_module", "test"))
    assert cli.main(["report", "results.csv"]) == 2
    assert ("not available in this installation (edr.evaluate.no_such_module is "
                        "missing)" in capsys.readouterr().err)


def test_python_dash_m_edr_exits_2_with_one_line(workdir):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    proc = subprocess.run([sys.executable, "-m", "edr", "extract", "nope.dat"],
                          capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("edr extract: error: ") and proc.stderr.count("\n") == 1
    assert "nope.dat" in proc.stderr and "Traceback" not in proc.stderr


def test_outputs_follow_the_umask_and_are_all_or_nothing(workdir, capsys, monkeypatch):
    dat = _simulated_record(workdir, duration_s=60.0)
    (workdir / "adir").mkdir()
    code, out, err = _run([str(dat), "-o", "res/e.csv", "--json", "adir", "--plot",
                           "res/e.png"], capsys)
    _assert_one_line_error(code, err, "--json", "adir")
    assert not (workdir / "res").exists()
    old = os.umask(0o027)
    try:
        code, out, err = _run([str(dat), "-o", "res/e.csv", "--json", "res/e.json"], capsys)
    finally:
        os.umask(old)
    assert code == 0, err
    for name in ("e.csv", "e.json"):
        assert (workdir / "res" / name).stat().st_mode & 0o777 == 0o640
    assert "chosen by varon2015-fast = mdd-fast" in out
    summary = json.loads((workdir / "res" / "e.json").read_text())
    assert summary["result"]["selection"]["criterion"] == "varon2015-fast"


def test_reference_channel_found_by_common_name_or_named_with_ref_channel(workdir, capsys):
    """A MARSH-like RSP channel is scored by default; an unusual name is reported and can be
    named with --ref-channel."""
    _simulated_record(workdir, "rsp", duration_s=60.0, names=("ECG", "RSP"))
    _simulated_record(workdir, "odd", duration_s=60.0, names=("ECG", "Breath"))
    code, out, err = _run(["rsp.dat"], capsys)
    assert code == 0, err
    assert "vs RSP     MSC" in out
    code, out, err = _run(["odd.dat"], capsys)
    assert code == 0, err
    assert "reference  none found among the channels; name it with --ref-channel" in out
    code, out, err = _run(["odd.dat", "--ref-channel", "breath"], capsys)
    assert code == 0, err
    assert "vs Breath  MSC" in out
    code, out, err = _run(["odd.dat", "--ref-channel", "Flow"], capsys)
    _assert_one_line_error(code, err, "respiration channel 'Flow'", "odd", "ECG, Breath")
    code, out, err = _run(["--demo", "--ref-channel", "RESP"], capsys)
    _assert_one_line_error(code, err, "--ref-channel", "--demo")


def _parsers():
    from edr.evaluate import cli as evaluate_cli
    from edr.evaluate.report import cli as report_cli

    return {"extract": extract.build_parser(), "evaluate": evaluate_cli.build_parser(),
            "report": report_cli.build_parser()}


@pytest.mark.parametrize("command", ["extract", "evaluate", "report"])
def test_every_option_has_help(command):
    parser = _parsers()[command]
    assert parser.description.endswith("."), parser.description
    for action in parser._actions:
        assert action.help and len(action.help) > 10, action.option_strings or action.dest


def test_help_lists_the_valid_choices(monkeypatch):
    from edr.io.datasets import load_manifest

    monkeypatch.setenv("COLUMNS", "1000")  # no line breaks inside names such as rule-of-thumb

    texts = {name: p.format_help() for name, p in _parsers().items()}
    for command in ("extract", "evaluate"):
        flat = " ".join(texts[command].split())
        for key in (*METHOD_NAMES, *CRITERION_NAMES):
            assert key in flat, (command, key)
        assert "edr.methods" not in flat
    flat = " ".join(texts["extract"].split())
    for fragment in ("20 to 1800 s", "dense", "fs2", "auto", "fuse", "RSP", "CO2"):
        assert fragment in flat, fragment
    from edr.io.paths import READER_SUFFIXES

    for name, suffixes in READER_SUFFIXES.values():  # every reader, from its one table
        assert f"{name} {', '.join(suffixes)}" in flat, name
    flat = " ".join(texts["evaluate"].split())
    for key in load_manifest()["databases"]:
        assert key in flat, key
    usage = cli._usage()
    for command in cli.COMMANDS:
        assert command in usage
    assert "--version" in usage


@pytest.mark.parametrize("dead, why", [("0.0", "flat"), ("nan", "missing (NaN)")])
def test_the_json_names_a_lead_flat_or_missing_over_the_whole_record(dead, why, workdir, capsys):
    rec = simulate_recording(60.0, 250.0, random_state=11)
    lines = ["time,II,V"] + [f"{i / 250.0:.3f},{v:.5f},{dead}" for i, v in enumerate(rec.ecg)]
    (workdir / "two.csv").write_text("\n".join(lines) + "\n")
    code, _, err = _run(["two.csv", "--json", "two.json", "--sigma2", "rot"], capsys)
    assert code == 0, err
    summary = json.loads((workdir / "two.json").read_text())
    assert summary["result"]["unusable_leads"] == {"V": f"{why} over the whole record"}


def test_breath_times_of_ones_own_score_the_rate_without_a_respiration(workdir, capsys):
    # a CSV of ECG alone, and the breaths in a file of one's own: there was no way to pass them
    rec = simulate_recording(120.0, 250.0, random_state=11)
    t = np.arange(rec.ecg.size) / rec.fs
    np.savetxt(workdir / "ecg.csv", np.column_stack([t, rec.ecg]), delimiter=",",
               header="time_s,ECG", comments="", fmt="%.6f")
    (workdir / "own.txt").write_text("".join(f"{b:.3f}\n" for b in rec.breath_times))
    code, out, _ = _run(["ecg.csv", "--breath-times", "own.txt", "--json", "s.json"], capsys)
    assert code == 0
    assert f"annotated  own.txt: {rec.breath_times.size} breaths" in out
    summary = json.loads((workdir / "s.json").read_text())
    got = summary["scores"]["rate_error_bpm"]
    assert summary["scores"]["msc"] is None and summary["breath_reference"].startswith("own.txt")
    assert f"vs breaths rate error {got:.2f} breaths/min" in out
    # the reference: edr.scoring.rate_error of the result against the same times
    from edr import extract_edr
    from edr.scoring import rate_error

    res = extract_edr(rec.ecg, fs=rec.fs)
    expected = rate_error(res.waveform, fs=res.fs, breath_times=np.round(rec.breath_times, 3),
                          t_grid=res.time, edr_bpm=res.rate_bpm)
    assert got == pytest.approx(expected, abs=1e-9)


def test_breath_times_options_errors(workdir, capsys):
    _simulated_record(workdir, "a")
    _simulated_record(workdir, "b")
    code, _, err = _run(["a.hea", "--breath-times", "none.csv"], capsys)
    _assert_one_line_error(code, err, "--breath-times: no such file: none.csv")
    (workdir / "own.csv").write_text("time_s\n1.0\n5.0\n")
    code, _, err = _run(["a.hea", "b.hea", "-o", "out/", "--breath-times", "own.csv"], capsys)
    _assert_one_line_error(code, err, "--breath-times: one file (own.csv) cannot be every "
                                      "record's; with several records give a pattern")
    code, _, err = _run(["a.hea", "--breath-times", "breath"], capsys)
    _assert_one_line_error(code, err, "use --annotator breath")
    code, _, err = _run(["--demo", "--breath-times", "own.csv"], capsys)
    _assert_one_line_error(code, err, "--breath-times applies to a record file, not to --demo")


def test_clipping_is_reported_in_the_json_and_the_summary(workdir, capsys):
    """A lead held at its rails: its clipped samples (the stream's count) and the beats with a
    clipped QRS (those the detection drops) in the JSON and the printed summary; a clean lead
    reports zeros and prints no line."""
    from edr.beats.flags import clipped_samples

    rec = simulate_recording(60.0, 250.0, leads=("II", "V2"), random_state=11)
    ii = np.clip(rec.leads["II"], *np.percentile(rec.leads["II"], [5, 95]))
    _write_wfdb(workdir, "clip", {"II": ii, "V2": rec.leads["V2"]}, 250.0)
    code, out, err = _run(["clip.hea", "--json", "clip.json", "--sigma2", "rot"], capsys)
    assert code == 0, err
    result = json.loads((workdir / "clip.json").read_text())["result"]
    read = wfdb.rdrecord("clip").p_signal[:, 0]
    assert result["clipped_samples"] == {"II": clipped_samples(read, 250.0), "V2": 0}
    assert result["clipped_samples"]["II"] > 0
    beats = result["clipped_beats"]
    assert set(beats) <= {"II", "V2"} and sum(beats.values()) > 0
    line = next(ln for ln in out.splitlines() if ln.startswith("clipped "))
    assert f"II {result['clipped_samples']['II']} samples held at the rail for 40 ms" in line
    _simulated_record(workdir, "clean")
    code, out, err = _run(["clean.hea", "--json", "clean.json", "--sigma2", "rot"], capsys)
    result = json.loads((workdir / "clean.json").read_text())["result"]
    assert code == 0 and result["clipped_samples"] == {"II": 0}
    assert result["clipped_beats"] == {"II": 0} and "clipped " not in out
