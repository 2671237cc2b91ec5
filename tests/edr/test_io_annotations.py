"""edr.io.annotations: breaths written as a WFDB annotation file read back by wfdb.rdann."""

from __future__ import annotations

import numpy as np
import pytest
import wfdb

from edr.breaths import detect_breaths
from edr.io.annotations import BREATH_ANNOTATION_EXTENSION, write_breath_annotations
from edr.pipeline import extract_edr
from edr.simulate import simulate_recording


def test_breaths_of_a_record_read_back(tmp_path):
    rec = simulate_recording(120.0, fs=250.0, random_state=0)
    b = detect_breaths(extract_edr(rec))
    path = write_breath_annotations(tmp_path / "sim", b, rec.fs)
    assert path == tmp_path / f"sim.{BREATH_ANNOTATION_EXTENSION}"
    ann = wfdb.rdann(str(tmp_path / "sim"), BREATH_ANNOTATION_EXTENSION)
    np.testing.assert_array_equal(ann.sample, np.round(b.time * rec.fs).astype(int))
    assert set(ann.symbol) == {'"'} and ann.fs == rec.fs
    quality = [float(note.split()[0][2:]) for note in ann.aux_note]
    np.testing.assert_allclose(quality, b.quality, atol=0.005)
    assert [("low_quality" in n) for n in ann.aux_note] == b.low_quality.tolist()
    assert [("after_gap" in n) for n in ann.aux_note] == b.after_gap.tolist()
    assert [("after_pause" in n) for n in ann.aux_note] == b.after_pause.tolist()
    assert not list(tmp_path.glob(".*"))  # no temporary folder left


def test_bad_inputs(tmp_path):
    rec = simulate_recording(60.0, fs=250.0, random_state=0)
    b = detect_breaths(extract_edr(rec))
    with pytest.raises(ValueError, match="fs"):
        write_breath_annotations(tmp_path / "r", b, 0.0)
    with pytest.raises(FileNotFoundError, match="folder"):
        write_breath_annotations(tmp_path / "missing" / "r", b, 250.0)
    empty = b.__class__(*(v[:0] for v in (b.time, b.interval, b.quality, b.low_quality,
                                          b.after_gap, b.after_pause)),
                        b.pauses, b.withheld, b.sign)
    with pytest.raises(ValueError, match="no breaths"):
        write_breath_annotations(tmp_path / "r", empty, 250.0)
    assert not list(tmp_path.iterdir())
