"""extract_edr on arrays: the same EDR as from the Recording they come from, and ``import edr``
stays light."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import edr
from edr.io import Recording
from edr.pipeline import extract_edr
from edr.simulate import simulate_recording


def _same(a, b):
    np.testing.assert_array_equal(a.waveform, b.waveform)
    np.testing.assert_array_equal(a.rate_bpm, b.rate_bpm)
    np.testing.assert_array_equal(a.rate_quality, b.rate_quality)
    np.testing.assert_array_equal(a.beat_times, b.beat_times)
    assert a.sigma2 == b.sigma2 and a.status == b.status


@pytest.fixture(scope="module")
def two_leads():
    rec = simulate_recording(120.0, 250.0, leads=("II", "V"), random_state=1)
    return rec, extract_edr(rec, window_s=60.0)


def test_one_lead_array_gives_the_recordings_edr():
    rec = simulate_recording(60.0, 250.0, random_state=2)
    by_hand = Recording(name="array", fs=rec.fs, ecg=rec.ecg, ecg_channel="ECG",
                        leads={"ECG": rec.ecg})
    res = edr.extract_edr(rec.ecg, fs=rec.fs)
    _same(res, extract_edr(by_hand))
    assert res.lead == "ECG" and res.params["lead"] == "ECG"


def test_two_lead_array_gives_the_recordings_edr(two_leads):
    rec, expected = two_leads
    x = np.column_stack([rec.leads["II"], rec.leads["V"]])
    res = edr.extract_edr(x, fs=rec.fs, lead_names=["II", "V"], window_s=60.0)
    _same(res, expected)
    assert res.window_frame()["leads_used"].tolist() == ["II,V"] * len(res.windows)


def test_a_dataframe_is_its_columns(two_leads):
    rec, _ = two_leads
    frame = pd.DataFrame({"II": rec.leads["II"], "V": rec.leads["V"]})
    from_frame = edr.io.as_recording(frame, fs=rec.fs)
    from_array = edr.io.as_recording(frame.to_numpy(), fs=rec.fs, lead_names=["II", "V"])
    assert list(from_frame.leads) == list(from_array.leads) == ["II", "V"]
    for name in ("II", "V"):
        np.testing.assert_array_equal(from_frame.leads[name], from_array.leads[name])


def test_the_reference_given_with_the_array_is_kept_and_the_record_read_from_a_path(tmp_path):
    rec = simulate_recording(60.0, 250.0, random_state=3)
    built = edr.io.as_recording(rec.ecg, fs=rec.fs, resp=rec.resp, resp_fs=rec.resp_fs,
                                breath_times=rec.breath_times)
    np.testing.assert_array_equal(built.breath_times, rec.breath_times)
    assert built.breath_source == f"given: {rec.breath_times.size} breaths"
    np.testing.assert_array_equal(built.resp, rec.resp)


def test_bad_inputs_fail_before_any_analysis():
    with pytest.raises(edr.errors.SamplingRateError, match="fs is required with an array"):
        edr.extract_edr(np.zeros(1000))
    with pytest.raises(edr.errors.ArrayShapeError, match="looks like leads × samples"):
        edr.extract_edr(np.zeros((2, 30000)), fs=250.0)
    rec = simulate_recording(30.0, 250.0, random_state=0)
    with pytest.raises(TypeError, match="a Recording carries its own"):
        edr.extract_edr(rec, fs=250.0)
    for fs in (250, 250.0, np.float64(250.0)):  # NeuroKit2's habit: the rate second, no keyword
        with pytest.raises(TypeError, match=r"the second argument is the method's name; give the "
                                            r"sampling rate by keyword, extract_edr\(ecg, fs="):
            edr.extract_edr(rec.ecg, fs)


def _modules_after(code: str) -> set[str]:
    proc = subprocess.run([sys.executable, "-c", f"{code}\nimport sys, json\n"
                           "print(json.dumps(sorted(sys.modules)))"],
                          capture_output=True, text=True, timeout=600, check=True)
    return set(json.loads(proc.stdout.splitlines()[-1]))


def test_import_edr_is_light_and_names_its_entry_points():
    mods = _modules_after("import edr; edr.__version__; dir(edr)")
    assert not {"numpy", "scipy", "numba", "pandas", "wfdb", "edr.pipeline"} & mods
    assert {"extract_edr", "read_record", "EDRResult"} <= set(dir(edr))
    assert edr.extract_edr is extract_edr and edr.EDRResult is edr.pipeline.EDRResult
    assert edr.read_record is edr.io.read_record
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        edr.nothing  # noqa: B018


def test_pandas_is_imported_by_edr_only_for_a_table():
    # at run time scikit-learn (kpca's estimators) imports pandas itself when it is installed, so
    # the check is: no edr module imports it at import, only inside the functions that build a
    # table (edr.tables for a result, edr.breaths for its breaths) or read dates and times
    # written as text (edr.io.time_axis)
    assert "pandas" not in _modules_after("import edr.pipeline, edr.tables, edr.io.arrays")
    root = Path(edr.__file__).parent
    importers = {}
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text())
        top = set(tree.body)
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n.partition(".")[0] == "pandas" for n in names):
                importers.setdefault(path.relative_to(root).as_posix(), []).append(node in top)
    assert set(importers) <= {"tables.py", "breaths.py", "io/time_axis.py"}
    assert "tables.py" in importers
    assert not any(any(top) for top in importers.values())
