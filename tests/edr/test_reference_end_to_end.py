"""The command line with references in other conventions: a record whose breaths are labelled
``insp``/``exp`` runs and is scored against its ends of inspiration; one whose annotation file
is random bytes runs with a warning, scored as if it had none."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
import wfdb

from edr import extract
from edr.errors import ReferenceWarning
from edr.simulate import simulate_recording

FS = 250.0


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A simulated 90 s record (II, RESP) and its breath times (ends of inspiration)."""
    path = tmp_path_factory.mktemp("rec")
    rec = simulate_recording(90.0, FS, random_state=11)
    wfdb.wrsamp("sim", fs=FS, units=["mV", "NU"], sig_name=["II", "RESP"],
                p_signal=np.column_stack([rec.ecg, rec.resp]), fmt=["16", "16"],
                write_dir=str(path))
    return path, rec.breath_times


def _breaths(path, times, notes):
    (path / "sim.breath").unlink(missing_ok=True)
    if times is not None:
        order = np.argsort(times, kind="stable")
        wfdb.wrann("sim", "breath", sample=np.round(np.asarray(times)[order] * FS).astype(int),
                   symbol=['"'] * len(times), aux_note=[notes[i] for i in order], fs=FS,
                   write_dir=str(path))


def _run(path, capsys):
    """``(exit code, scores, warning lines on stderr, the JSON summary)``; no Python warning
    escapes the command line (each reference not used is one ``warning:`` line)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = extract.main([str(path / "sim.hea"), "-o", str(path / "out.csv"), "--json",
                             str(path / "out.json")])
    err = capsys.readouterr().err
    assert not [w for w in caught if issubclass(w.category, ReferenceWarning)]
    warned = [line for line in err.splitlines() if line.startswith("warning: ")]
    summary = json.loads((path / "out.json").read_text())
    return code, summary["scores"], warned, summary


def test_insp_exp_labels_are_scored_against_the_ends_of_inspiration(folder, capsys):
    path, exp = folder
    exp = exp[exp > 2.0]
    insp = exp - 1.5
    _breaths(path, np.concatenate([exp, insp]), ["exp"] * exp.size + ["insp"] * insp.size)
    code, both, warned, summary = _run(path, capsys)
    assert code == 0 and not warned and summary["references_not_used"] == []
    assert "label 'exp'" in summary["breath_reference"] or "'exp'" in summary["breath_reference"]
    _breaths(path, exp, ["ann1"] * exp.size)  # the same breaths as a BIDMC-style annotator
    code, ann1, _, summary = _run(path, capsys)
    assert code == 0 and both == ann1 and "'ann1'" in summary["breath_reference"]
    _breaths(path, None, None)
    _, resp_only, _, summary = _run(path, capsys)
    assert summary["breath_reference"] is None
    assert resp_only["rate_error_bpm"] != both["rate_error_bpm"]  # the breaths were used


def test_random_bytes_as_annotations_run_with_one_warning(folder, capsys):
    path, _ = folder
    _breaths(path, None, None)
    _, without, _, _ = _run(path, capsys)
    for seed in range(3):
        noise = np.random.default_rng(seed).integers(0, 256, 300, dtype=np.uint8).tobytes()
        (path / "sim.breath").write_bytes(noise)
        code, scores, warned, summary = _run(path, capsys)
        assert code == 0 and scores == without
        assert len(warned) == 1 and "sim.breath not used" in warned[0]
        assert summary["references_not_used"] == [warned[0].removeprefix("warning: ")]
        assert summary["breath_reference"] is None
