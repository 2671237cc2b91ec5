"""The short stretches of flat or missing ECG an EDR is carried across: :mod:`edr.gaps`, the
summary line and the JSON of ``edr extract``."""

from __future__ import annotations

import json

import numpy as np

from edr import extract
from edr.gaps import carried_gaps
from edr.io.arrays import as_recording
from edr.pipeline import extract_edr
from edr.simulate import simulate_recording

FS = 250.0


def _holed(seed=5):
    ecg = simulate_recording(duration_s=180.0, fs=FS, random_state=seed).ecg
    ecg[int(40 * FS):int(41.5 * FS)] = ecg[int(40 * FS)]  # 1.5 s flat (a lead off)
    ecg[int(90 * FS):int(102 * FS)] = np.nan  # 12 s lost
    ecg[int(130 * FS):int(130 * FS) + 3] = np.nan  # 3 samples lost
    return ecg


def _reference_runs(ecg, fs):
    """Every run of NaN samples, and of at least 1 s of equal samples, one sample at a time."""
    runs, k = [], 0
    while k < ecg.size:
        j = k
        if np.isnan(ecg[k]):
            while j < ecg.size and np.isnan(ecg[j]):
                j += 1
        else:
            while j < ecg.size and ecg[j] == ecg[k]:
                j += 1
            if j - k < fs:
                k += 1
                continue
        runs.append((k / fs, j / fs))
        k = j
    return runs


def test_carried_gaps_name_every_stretch():
    ecg = _holed()
    rec = as_recording(ecg, fs=FS)
    result = extract_edr(rec)
    assert result.masked == []
    gaps = carried_gaps(rec, result)
    assert len(gaps) == 3
    np.testing.assert_allclose(gaps, _reference_runs(ecg, FS), atol=1.5 / FS)


def test_summary_and_json_name_them(tmp_path, capsys):
    ecg = _holed()
    t = np.arange(ecg.size) / FS
    csv = tmp_path / "holed.csv"
    rows = ("" if np.isnan(v) else f"{v:.5f}" for v in ecg)
    lines = (f"{a:.3f},{v}" for a, v in zip(t, rows, strict=True))
    csv.write_text("time,ECG\n" + "\n".join(lines) + "\n")
    out = tmp_path / "o.csv"
    assert extract.main([str(csv), "-o", str(out), "--json", str(tmp_path / "o.json")]) == 0
    printed = capsys.readouterr().out
    line = next(x for x in printed.splitlines() if x.startswith("gaps"))
    assert "3 stretch(es)" in line and "90.0-102.0 s (12.0 s)" in line and "40.0-41.5 s" in line
    gaps = json.loads((tmp_path / "o.json").read_text())["gaps"]
    assert [round(g["seconds"], 2) for g in gaps] == [1.5, 12.0, 0.01]
