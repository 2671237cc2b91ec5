"""edr.io.arrays: recordings from NumPy arrays and pandas objects, and one clear error for each
thing an ECG array cannot be."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from edr.errors import (
    ArrayShapeError,
    ArrayTypeError,
    EDRError,
    MissingSignalError,
    RecordError,
    ReferenceWarning,
    SamplingRateError,
    SignalError,
    UnitError,
)
from edr.io import Recording, read_record
from edr.io.arrays import as_recording, recording_from_arrays

FS = 250.0
RNG = np.random.default_rng(0)
TWO = RNG.normal(size=(5000, 2))  # 20 s, two leads
T = np.arange(5000) / FS


def test_one_lead():
    x = TWO[:, 0]
    rec = recording_from_arrays(x, FS)
    assert isinstance(rec, Recording)
    assert (rec.name, rec.fs, rec.ecg_channel, list(rec.leads), rec.path) == (
        "array", 250.0, "ECG", ["ECG"], None)
    np.testing.assert_array_equal(rec.ecg, x)
    assert rec.resp is None and rec.breath_times is None and rec.breath_source is None


def test_two_leads_named_and_by_default():
    rec = recording_from_arrays(TWO, FS, lead_names=["II", "V"])
    assert rec.ecg_channel == "II" and list(rec.leads) == ["II", "V"]
    assert rec.channels == ["II", "V"]
    np.testing.assert_array_equal(rec.leads["V"], TWO[:, 1])
    assert rec.leads["V"].flags.c_contiguous
    assert list(recording_from_arrays(TWO, FS).leads) == ["ECG1", "ECG2"]
    assert list(recording_from_arrays(TWO[:, :1], FS).leads) == ["ECG"]
    assert list(recording_from_arrays(TWO, FS, lead_names=["II", "II"]).leads) == ["II", "II_2"]


def test_pandas_frames_and_series_name_their_leads():
    frame = pd.DataFrame(TWO, columns=["II", "V"])
    rec = recording_from_arrays(frame, FS)
    assert list(rec.leads) == ["II", "V"]
    np.testing.assert_array_equal(rec.leads["V"], TWO[:, 1])
    assert list(recording_from_arrays(frame["V"], FS).leads) == ["V"]
    assert list(recording_from_arrays(pd.Series(TWO[:, 0]), FS).leads) == ["ECG"]
    assert list(recording_from_arrays(frame, FS, lead_names=["a", "b"]).leads) == ["a", "b"]
    nullable = frame.astype("Float64")
    nullable.iloc[3, 0] = pd.NA
    rec = recording_from_arrays(nullable, FS)
    assert np.isnan(rec.ecg[3]) and rec.ecg.dtype == np.float64


@pytest.mark.parametrize("units, scale", [("mV", 1.0), ("uV", 1e-3), ("µV", 1e-3), ("V", 1e3),
                                          ("arbitrary", 1.0), ("au", 1.0)])
def test_units_are_converted_to_millivolts(units, scale):
    rec = recording_from_arrays(TWO, FS, units=units)
    np.testing.assert_allclose(rec.leads["ECG2"], TWO[:, 1] * scale)


def test_units_per_lead():
    rec = recording_from_arrays(TWO, FS, units=["mV", "uV"])
    np.testing.assert_allclose(rec.leads["ECG2"], TWO[:, 1] / 1e3)
    np.testing.assert_array_equal(rec.leads["ECG1"], TWO[:, 0])


def test_a_reference_respiration_at_its_own_rate():
    resp = np.sin(np.arange(500) / 5.0)
    rec = recording_from_arrays(TWO, FS, resp=resp, resp_fs=25.0)
    assert rec.resp_fs == 25.0 and rec.resp_channel == "RESP" and rec.channels[-1] == "RESP"
    np.testing.assert_array_equal(rec.resp, resp)
    assert recording_from_arrays(TWO, FS, resp=TWO[:, 0]).resp_fs == FS  # default: the ECG's


def test_breath_times_given_or_left_out_when_implausible():
    rec = recording_from_arrays(TWO, FS, breath_times=[2.0, 6.0, 10.0, 14.0, 18.0])
    assert rec.breath_times.tolist() == [2.0, 6.0, 10.0, 14.0, 18.0]
    assert rec.breath_source == "given: 5 breaths"
    with pytest.warns(ReferenceWarning, match=r"breath_times not used: times outside the record "
                                              r"\(2 to 40 s in a record of 20 s\)"):
        rec = recording_from_arrays(TWO, FS, breath_times=[2.0, 6.0, 40.0])
    assert rec.breath_times is None and rec.breath_source is None


NAN_LEAD = TWO.copy()
NAN_LEAD[:, 1] = np.nan


@pytest.mark.parametrize("ecg, kwargs, error, fragments", [
    (np.zeros((3, 5000)), {}, ArrayShapeError,
     ["shape (3, 5000)", "looks like leads × samples", "ecg.T"]),
    (np.zeros((100, 2, 2)), {}, ArrayShapeError, ["shape (100, 2, 2)", "1-D", "2-D"]),
    (np.zeros(0), {}, ArrayShapeError, ["ecg is empty (shape (0,))"]),
    (np.zeros((0, 2)), {}, ArrayShapeError, ["ecg is empty (shape (0, 2))"]),
    (np.float64(1.0), {}, ArrayShapeError, ["shape ()"]),
    (TWO, {"lead_names": ["II"]}, ArrayShapeError, ["lead_names=['II'] names 1 lead(s)",
                                                    "ecg has 2"]),
    (TWO, {"lead_names": ["II", " "]}, ArrayShapeError, ["empty name"]),
    (np.array(["1", "2"] * 500), {}, ArrayTypeError, ["dtype <U1", "not numbers"]),
    (np.array([1.0, None] * 500, dtype=object), {}, ArrayTypeError, ["dtype object"]),
    (TWO.astype(complex), {}, ArrayTypeError, ["dtype complex128"]),
    (pd.DataFrame({"a": TWO[:, 0], "label": ["x"] * 5000}), {}, ArrayTypeError,
     ["column 'label'", "not numbers"]),
    (np.full(5000, np.nan), {}, MissingSignalError, ["lead 'ECG'", "no valid sample",
                                                     "5000 samples"]),
    (NAN_LEAD, {"lead_names": ["II", "V"]}, MissingSignalError, ["lead 'V'"]),
    (np.full(5000, np.inf), {}, MissingSignalError, ["all NaN or infinite"]),
    (TWO, {"fs": None}, SamplingRateError, ["fs is required", "fs=250.0"]),
    (TWO, {"fs": "250"}, SamplingRateError, ["fs='250' is text, not a number of Hz",
                                             "fs=float('250')"]),
    (TWO, {"fs": np.array([250.0, 500.0])}, SamplingRateError, ["is not a number of Hz",
                                                                 "one number"]),
    (np.column_stack([T, TWO[:, 0]]), {}, ArrayShapeError,
     ["column 0 of ecg increases at every sample (0, 0.004, 0.008, ...)", "a time axis",
      "pass ecg[:, 1:] with fs="]),
    (np.column_stack([TWO[:, 0], np.arange(5000)]), {}, ArrayShapeError,
     ["column 1 of ecg", "sample counter", "np.delete(ecg, 1, axis=1)"]),
    (T, {}, ArrayShapeError, ["ecg increases at every sample", "give the ECG samples"]),
    (pd.DataFrame({"counter": np.arange(5000), "value": TWO[:, 0]}), {}, ArrayShapeError,
     ["column 'counter' of ecg increases at every sample", "name it 'time' (seconds)"]),
    (pd.DataFrame({"Time": T * 1e3, "II": TWO[:, 0]}), {"fs": None}, RecordError,
     ["time column 'Time' of the ECG's DataFrame steps by 4 s", "in milliseconds (250 Hz)",
      "rename it to 'time_ms'", "give the sampling rate with fs=HZ"]),
    (pd.DataFrame({"clock": T, "II": TWO[:, 0]}), {"fs": None}, SamplingRateError,
     ["the ECG's DataFrame (columns ['clock', 'II']) has no time column or time index",
      "extract_edr(df, fs=250.0)", "DatetimeIndex"]),
    (pd.Series(TWO[:, 0]), {"fs": None}, SamplingRateError,
     ["the ECG's Series has no time column or time index"]),
    (TWO, {"fs": True}, SamplingRateError, ["fs=True is not a number"]),
    (TWO, {"fs": -250.0}, SamplingRateError, ["fs=-250.0 must be a positive, finite number"]),
    (TWO, {"fs": float("nan")}, SamplingRateError, ["fs=nan"]),
    (TWO, {"fs": 50.0}, SamplingRateError, ["fs=50.0 Hz", "100-10000 Hz", "array given"]),
    (TWO, {"fs": 2e4}, SamplingRateError, ["fs=20000.0 Hz"]),
    (TWO, {"units": "mmHg"}, UnitError, ["units='mmHg' is not a unit of the ECG"]),
    (TWO, {"units": ["mV"]}, ArrayShapeError, ["1 unit(s) for 2 lead(s)"]),
    (TWO, {"resp": np.zeros((10, 2))}, ArrayShapeError, ["resp has shape (10, 2)"]),
    (TWO, {"resp": np.full(10, np.nan)}, MissingSignalError, ["resp has no valid sample"]),
    (TWO, {"resp": np.zeros(10), "resp_fs": 0}, SamplingRateError, ["resp_fs=0"]),
    (TWO, {"breath_times": [["a"]]}, ArrayTypeError, ["breath_times has dtype"]),
])
def test_each_bad_array_gets_one_clear_error(ecg, kwargs, error, fragments):
    kwargs = {"fs": FS, **kwargs}
    with pytest.raises(error) as info:
        recording_from_arrays(ecg, **kwargs)
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message
    # every one is an edr error and a built-in ValueError or TypeError
    assert isinstance(info.value, ValueError | TypeError)
    assert isinstance(info.value, EDRError)


@pytest.mark.parametrize("fs", [np.array(250.0), np.array([[250]]), np.array([250.0], np.float32),
                                np.int64(250), np.float32(250.0)])
def test_a_rate_held_in_a_one_number_array_is_a_rate(fs):
    # scipy.io.loadmat gives [[250]], an .npz file array(250.)
    rec = recording_from_arrays(TWO, fs)
    assert rec.fs == 250.0 and type(rec.fs) is float


def test_a_datetime_column_of_any_name_is_the_time():
    stamps = pd.Timestamp("2026-01-01 10:00") + pd.to_timedelta(T, unit="s")
    rec = recording_from_arrays(pd.DataFrame({"date": stamps, "II": TWO[:, 0]}))
    assert rec.fs == FS and list(rec.leads) == ["II"]


def test_rate_errors_are_signal_errors_too():
    with pytest.raises(SignalError):
        recording_from_arrays(TWO, 50.0)


def test_as_recording_passes_recordings_reads_paths_and_builds_arrays(tmp_path):
    rec = recording_from_arrays(TWO, FS)
    assert as_recording(rec) is rec
    with pytest.raises(TypeError, match=r"fs describe an ECG given as an array; a Recording "):
        as_recording(rec, fs=FS)
    with pytest.raises(TypeError, match=r"lead_names describe an ECG given as an array, not a "
                                        r"file"):
        as_recording("rec.hea", lead_names=["II"])
    pd.DataFrame({"time": np.arange(5000) / FS, "II": TWO[:, 0]}).to_csv(tmp_path / "r.csv",
                                                                         index=False)
    from_file = as_recording(tmp_path / "r.csv")
    np.testing.assert_allclose(from_file.ecg, read_record(tmp_path / "r.csv").ecg)
    assert as_recording(str(tmp_path / "r.csv")).name == "r"
    built = as_recording(TWO, fs=FS, lead_names=["II", "V"])
    assert list(built.leads) == ["II", "V"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert as_recording(TWO[:, 0], fs=FS, units="uV").ecg[0] == TWO[0, 0] / 1e3


def test_a_dataframe_with_ecg_and_fs_columns_is_still_an_array():
    frame = pd.DataFrame({"ecg": TWO[:, 0], "fs": TWO[:, 1]})
    rec = as_recording(frame, fs=FS)  # a table, not a Recording: its ECG-named column is the lead
    assert list(rec.leads) == ["ecg"]
    assert list(as_recording(frame, fs=FS, lead_names=["a", "b"]).leads) == ["a", "b"]


@pytest.mark.parametrize(
    "frame",
    [
        pd.DataFrame({"time": T, "II": TWO[:, 0], "V": TWO[:, 1]}),
        pd.DataFrame({"Time (ms)": T * 1e3, "II": TWO[:, 0], "V": TWO[:, 1]}),
        pd.DataFrame({"II": TWO[:, 0], "V": TWO[:, 1]}, index=pd.Index(T, name="t")),
        pd.DataFrame({"II": TWO[:, 0], "V": TWO[:, 1]}, index=pd.to_timedelta(T, unit="s")),
        pd.DataFrame({"II": TWO[:, 0], "V": TWO[:, 1]},
                     index=pd.Timestamp("2026-01-01", tz="UTC") + pd.to_timedelta(T, unit="s")),
        pd.DataFrame({"sample": np.arange(5000), "II": TWO[:, 0], "V": TWO[:, 1]}),
        pd.DataFrame({"timestamp": pd.Timestamp("2026-03-29 01:59:50", tz="Europe/Berlin")
                      + pd.to_timedelta(T, unit="s"), "II": TWO[:, 0], "V": TWO[:, 1]}),
        pd.DataFrame({"datetime": (pd.Timestamp("2026-01-01") + pd.to_timedelta(T, unit="s"))
                      .strftime("%Y-%m-%dT%H:%M:%S.%f"), "II": TWO[:, 0], "V": TWO[:, 1]}),
    ],
)
def test_a_dataframe_s_time_gives_fs_and_is_no_lead(frame):
    given = None if "sample" not in frame.columns else FS
    rec = recording_from_arrays(frame, given)
    reference = recording_from_arrays(TWO, FS, lead_names=["II", "V"])  # plain arrays
    assert rec.fs == FS and list(rec.leads) == ["II", "V"]
    for name in ("II", "V"):
        np.testing.assert_array_equal(rec.leads[name], reference.leads[name])
    if given is None:
        assert recording_from_arrays(frame, FS).fs == FS  # agreeing
        with pytest.raises(SamplingRateError, match=r"fs=500 Hz disagrees with the 250 Hz of "
                                                    r"the DataFrame's time"):
            recording_from_arrays(frame, 500)


def test_a_dataframe_of_named_channels_is_read_like_a_record():
    resp = np.cos(T)
    frame = pd.DataFrame({"PPG": TWO[:, 1], "V5": TWO[:, 1], "RSP": resp, "II": TWO[:, 0]})
    rec = recording_from_arrays(frame, FS)
    assert list(rec.leads) == ["II", "V5"] and rec.ecg_channel == "II"  # II ranks first
    assert rec.resp_channel == "RSP"
    np.testing.assert_array_equal(rec.resp, resp)
    own = recording_from_arrays(frame, FS, resp=np.sin(T))  # a given resp wins
    np.testing.assert_array_equal(own.resp, np.sin(T))
    with pytest.raises(RecordError, match=r"time column 'time' of the ECG's DataFrame is not "
                                          r"uniformly sampled"):
        recording_from_arrays(pd.DataFrame({"time": np.delete(T, 9), "II": TWO[1:, 0]}), None)


def test_a_time_column_of_text_that_is_no_time_is_named():
    frame = pd.DataFrame({"time": ["0.000", "0.004", "soon"], "II": [0.1, 0.2, 0.3]})
    with pytest.raises(RecordError, match=r"time column 'time' of the ECG's DataFrame: 'soon' is "
                                          r"neither a number nor a date and time"):
        recording_from_arrays(frame)
    stamps = pd.DataFrame({"timestamp": ["2026-01-01T10:00:00.000", "later"], "II": [0.1, 0.2]})
    with pytest.raises(RecordError, match=r"'later' \(data row 2\) is not a date and time"):
        recording_from_arrays(stamps)
