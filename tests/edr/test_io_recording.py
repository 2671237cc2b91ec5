"""edr.io.recording: the Recording dataclass and assembly of multi-rate channels."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.signal import resample_poly

from edr.errors import SignalError
from edr.io.recording import Recording, assemble_recording, to_millivolts


def _assemble(signals, fs, names, units=None, **kw):
    read_calls = []

    def read(indices):
        read_calls.append(list(indices))
        return [signals[i] for i in indices]

    rec = assemble_recording(name="r", path="r.hea", source="r.hea", names=names, read=read, fs=fs,
                             units=units or ["mV"] * len(names), channel=kw.pop("channel", None),
                             resp_channel=kw.pop("resp_channel", None), **kw)
    return rec, read_calls


def test_leads_at_another_rate_are_resampled_to_the_ecg_rate():
    fs_ecg, fs_other, seconds = 500.0, 125.0, 4
    t5 = np.arange(int(fs_ecg * seconds)) / fs_ecg
    t1 = np.arange(int(fs_other * seconds)) / fs_other
    mcl1 = np.sin(2 * np.pi * 3 * t5)
    ii = np.sin(2 * np.pi * 3 * t1)
    resp = np.cos(2 * np.pi * 0.3 * t1)
    rec, calls = _assemble([mcl1, np.zeros_like(t1), ii, resp],
                           [fs_ecg, fs_other, fs_other, fs_other],
                           ["MCL1", "ABP", "II", "RESP"], channel="MCL1")
    assert calls == [[0, 2, 3]]  # ABP is never read
    assert rec.fs == fs_ecg and rec.ecg_channel == "MCL1" and list(rec.leads) == ["MCL1", "II"]
    assert rec.leads["II"].size == mcl1.size
    np.testing.assert_allclose(rec.leads["II"], resample_poly(ii, 4, 1))
    inner = slice(100, -100)  # away from the filter's edge effects
    np.testing.assert_allclose(rec.leads["II"][inner], mcl1[inner], atol=0.02)
    assert rec.resp_fs == fs_other and rec.resp.size == t1.size


def test_nan_runs_survive_resampling():
    ii = np.sin(np.arange(400) / 9.0)
    ii[40:60] = np.nan
    rec, _ = _assemble([np.zeros(800), ii], [250.0, 125.0], ["MLII", "V"])
    v = rec.leads["V"]
    assert np.isnan(v[80:120]).all() and not np.isnan(v[:78]).any() and not np.isnan(v[122:]).any()


def test_duplicate_lead_names_are_kept_apart():
    rec, _ = _assemble([np.zeros(300), np.ones(300)], [250.0, 250.0], ["ECG", "ECG"])
    assert list(rec.leads) == ["ECG", "ECG_2"] and rec.leads["ECG_2"][0] == 1.0


def test_units_are_converted_to_millivolts():
    rec, _ = _assemble([np.full(300, 1500.0), np.full(300, 0.002)], [250.0, 250.0], ["II", "V"],
                       units=["uV", "V"])
    assert rec.ecg[0] == pytest.approx(1.5) and rec.leads["V"][0] == pytest.approx(2.0)
    assert to_millivolts(np.ones(2), "mmHg")[0] == 1.0  # unknown units are left alone


def test_recording_validation_and_duration():
    rec = Recording(name="x", fs=250, ecg=[0, 1, 2, 3], ecg_channel="II", leads={})
    assert rec.ecg.dtype == np.float64 and rec.duration_s == pytest.approx(4 / 250)
    with pytest.raises(SignalError, match=r"sampling rate fs=-1.0 of record 'x' must be positive"):
        Recording(name="x", fs=-1, ecg=np.zeros(3), ecg_channel="II", leads={})
    with pytest.raises(SignalError, match=r"ecg of record 'x' must be 1-D, got shape \(2, 2\)"):
        Recording(name="x", fs=250, ecg=np.zeros((2, 2)), ecg_channel="II", leads={})
    with pytest.raises(SignalError, match=r"record 'x' has a resp signal but resp_fs is None"):
        Recording(name="x", fs=250, ecg=np.zeros(3), ecg_channel="II", leads={}, resp=np.zeros(3))


def test_a_respiration_channel_without_a_sample_is_left_out_with_a_warning():
    from edr.errors import ReferenceWarning

    resp = np.full(300, np.nan)
    with pytest.warns(ReferenceWarning, match=r"respiration channel 'RESP' of r\.hea has no valid "
                                              r"sample \(300 samples, all missing\)"):
        rec, _ = _assemble([np.sin(np.arange(300.0)), resp], [250.0, 250.0], ["II", "RESP"])
    assert rec.resp is None and rec.resp_fs is None and rec.resp_channel is None
    assert rec.channels == ["II", "RESP"]  # still listed as found in the file


def test_from_leads_selects_the_first_lead_and_keeps_names_apart():
    x, y = np.arange(500.0), np.ones(500)
    rec = Recording.from_leads("r", 250, [("II", x), ("V", y), ("II", y)], resp=np.zeros(50),
                               resp_fs=25.0, resp_channel="RESP", breath_times=np.array([1.0]),
                               breath_source="given: 1 breaths")
    assert rec.ecg is rec.leads["II"] and rec.ecg_channel == "II" and rec.fs == 250.0
    assert list(rec.leads) == ["II", "V", "II_2"]
    assert rec.channels == ["II", "V", "II", "RESP"] and rec.path is None
    assert rec.breath_source == "given: 1 breaths" and rec.resp_fs == 25.0


def test_a_recording_prints_as_a_digest_not_its_arrays():
    from edr.simulate import simulate_recording

    rec = simulate_recording(120.0, 250.0, leads=("II", "V"), random_state=0)
    text = repr(rec)
    assert text.splitlines()[0] == ("Recording('simulated', 120.0 s at 250 Hz, ECG lead 'II' of "
                                    "II, V;")
    assert f"{rec.breath_times.size} breath times" in text and "array" not in text
    bare = Recording(name="x", fs=250, ecg=np.zeros(500), ecg_channel="ECG", leads={"ECG": None})
    assert repr(bare) == ("Recording('x', 2.0 s at 250 Hz, ECG lead 'ECG' of ECG;\n"
                          "          no respiration)")
