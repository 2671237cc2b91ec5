"""R-peak times of one's own: :mod:`edr.io.r_peaks`, ``detect(peaks=)``, ``extract_edr(r_peaks=)``
and ``edr extract --r-peaks``."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
import wfdb

from edr import extract
from edr.beats import detect
from edr.beats.peaks import GIVEN_RADIUS_S, given_segment
from edr.beats.twins import clean_ecg
from edr.errors import RecordError, SignalError
from edr.io import read_record, write_wfdb
from edr.io.r_peaks import checked_r_peaks, r_peaks_file
from edr.pipeline import extract_edr
from edr.simulate import simulate_recording

FS = 250.0


@pytest.fixture(scope="module")
def rec():
    return simulate_recording(duration_s=120.0, fs=FS, random_state=3)


@pytest.fixture(scope="module")
def beats(rec):
    return detect(rec.ecg, rec.fs)


def _snap_reference(marks, ref, fs):
    """One mark at a time: the largest sample within the radius, then the larger of two peaks
    closer than 0.2 s."""
    r = max(int(round(GIVEN_RADIUS_S * fs)), 1)
    out = []
    for m in np.round(marks).astype(int):
        lo, hi = max(m - r, 0), min(m + r, ref.size - 1)
        out.append(lo + int(np.argmax(ref[lo:hi + 1])))
    out = sorted(set(out))
    kept = []
    for p in out:
        if kept and p - kept[-1] < 0.2 * fs:
            if ref[p] > ref[kept[-1]]:
                kept[-1] = p
        else:
            kept.append(p)
    return np.asarray(kept)


def test_given_segment_matches_a_loop(rec, beats):
    ref = clean_ecg(rec.ecg, FS, "neurokit")
    rng = np.random.default_rng(0)
    marks = beats.peaks + rng.uniform(-10, 10, beats.peaks.size)  # +-40 ms
    np.testing.assert_array_equal(given_segment(marks, ref, FS), _snap_reference(marks, ref, FS))


@pytest.mark.parametrize("sign", [1, -1])
def test_detect_on_its_own_peaks_is_detection(rec, beats, sign):
    own = detect(sign * rec.ecg, FS)
    given = detect(sign * rec.ecg, FS, peaks=np.round(own.peaks))
    assert given.method == "given" and given.polarity == own.polarity == sign
    np.testing.assert_array_equal(given.peaks, own.peaks)
    np.testing.assert_array_equal(given.valid, own.valid)


def test_marks_off_r_are_refused(rec, beats):
    # samples of a 500 Hz annotation read at 250 Hz: twice as far apart, off the R waves
    with pytest.raises(SignalError, match="do not sit on this ECG's R waves"):
        detect(rec.ecg, FS, peaks=beats.peaks[beats.peaks < rec.ecg.size / 2] * 2 + 40)


def test_extract_edr_with_own_and_jittered_peaks(rec, beats):
    base = extract_edr(rec.ecg, fs=FS)
    own = extract_edr(rec.ecg, fs=FS, r_peaks=beats.times)
    assert own.params["r_peaks"] == f"given: {beats.peaks.size} R peaks"
    np.testing.assert_array_equal(own.waveform, base.waveform)
    rng = np.random.default_rng(1)
    jittered = np.sort(beats.times + rng.uniform(-0.02, 0.02, beats.times.size))
    moved = extract_edr(rec.ecg, fs=FS, r_peaks=jittered)
    np.testing.assert_allclose(moved.waveform, base.waveform, atol=1e-9)
    shifted = extract_edr(rec.ecg, fs=FS, r_peaks=beats.times + 0.02)
    np.testing.assert_allclose(shifted.waveform, base.waveform, atol=1e-9)


def test_wrong_times_fail_clearly():
    with pytest.raises(RecordError, match="after the record's end"):
        checked_r_peaks([1.0, 2.0, 130.0], 120.0)
    with pytest.raises(RecordError, match="out of order"):
        checked_r_peaks([1.0, 3.0, 2.0], 120.0)
    with pytest.raises(RecordError, match="samples or seconds"):
        checked_r_peaks(np.array([250, 460]), 120.0)
    with pytest.warns(UserWarning, match="1 repeated R-peak times dropped"):
        assert checked_r_peaks([1.0, 2.0, 2.0, 3.0], 120.0).tolist() == [1.0, 2.0, 3.0]


def test_text_files(tmp_path, beats):
    t = beats.times
    (tmp_path / "s.txt").write_text("\n".join(f"{x:.4f}" for x in t))
    (tmp_path / "ms.csv").write_text("beat,time_ms\n" + "\n".join(
        f"{k},{1000 * x:.1f}" for k, x in enumerate(t)))
    (tmp_path / "n.csv").write_text("sample\n" + "\n".join(str(int(p)) for p in beats.peaks))
    (tmp_path / "ints.txt").write_text("\n".join(str(int(p)) for p in beats.peaks))
    for name in ("s.txt", "ms.csv", "n.csv"):
        times, source = r_peaks_file(tmp_path / name, FS)
        np.testing.assert_allclose(times, t, atol=1e-3 if name != "n.csv" else 1 / FS)
        assert source == f"{name}: {t.size} R peaks"
    with pytest.raises(RecordError, match="samples or seconds"):
        r_peaks_file(tmp_path / "ints.txt", FS)


def test_wfdb_annotator_and_cli(tmp_path, rec, beats, capsys):
    write_wfdb(tmp_path, "sim", rec.ecg, FS, sig_name="II", units="mV")
    samples = np.round(beats.peaks).astype(int)
    wfdb.wrann("sim", "qrs", samples, ["N"] * samples.size, fs=FS, write_dir=str(tmp_path))
    wfdb.wrann("sim", "atr", samples, ["N"] * samples.size, fs=FS, write_dir=str(tmp_path))
    wfdb.wrann("other", "qrs", samples, ["N"] * samples.size, fs=500, write_dir=str(tmp_path))
    hea = tmp_path / "sim.hea"
    for given in ("atr", str(tmp_path / "sim.qrs")):
        r = read_record(hea, r_peaks=given)
        np.testing.assert_allclose(r.r_peaks, samples / FS)
    with pytest.raises(RecordError, match="another sampling rate"):
        read_record(hea, r_peaks=str(tmp_path / "other.qrs"))
    with pytest.raises(FileNotFoundError, match="sim.ann"):
        read_record(hea, r_peaks="ann")
    out = tmp_path / "o.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert extract.main([str(hea), "--r-peaks", "atr", "-o", str(out),
                             "--json", str(tmp_path / "o.json")]) == 0
    printed = capsys.readouterr().out
    assert "R peaks given (sim.atr" in printed
    assert json.loads((tmp_path / "o.json").read_text())["r_peaks"] == \
        f"sim.atr: {samples.size} R peaks"
