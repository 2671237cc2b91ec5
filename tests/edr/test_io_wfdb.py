"""edr.io WFDB reading: real records, path forms, multi-rate records and bad input."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import wfdb

from edr.errors import ChannelError, RecordError, ReferenceWarning, SignalError
from edr.io import Recording, read_record
from edr.io.wfdb_reader import resolve_record


def _write(tmp_path, name="tiny", *, fs=250.0, names=("II", "V", "RESP"), n=2500, fmt="16", seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(n) / fs
    sig = np.column_stack([np.sin(2 * np.pi * (1 + k) * t) + 0.01 * rng.standard_normal(n)
                           for k in range(len(names))])
    wfdb.wrsamp(name, fs=fs, units=["mV"] * len(names), sig_name=list(names), p_signal=sig,
                fmt=[fmt] * len(names), write_dir=str(tmp_path))
    return tmp_path / name, sig


# ---------------------------------------------------------------- synthetic records


@pytest.mark.parametrize("suffix", ["", ".hea", ".dat"])
def test_path_forms_read_the_same_record(tmp_path, suffix):
    base, sig = _write(tmp_path)
    rec = read_record(str(base) + suffix)
    assert isinstance(rec, Recording)
    assert rec.name == "tiny" and rec.fs == 250.0 and rec.ecg_channel == "II"
    np.testing.assert_allclose(rec.ecg, sig[:, 0], atol=1e-3)
    assert list(rec.leads) == ["II", "V"]
    assert rec.resp_channel == "RESP" and rec.resp_fs == 250.0
    np.testing.assert_allclose(rec.resp, sig[:, 2], atol=1e-3)
    assert rec.channels == ["II", "V", "RESP"]
    assert rec.breath_times is None
    assert rec.duration_s == pytest.approx(10.0)


def test_channel_names_with_commas_and_order_by_name(tmp_path):
    base, sig = _write(tmp_path, names=("RESP,", "PLETH,", "V,", "II,"))
    rec = read_record(base)
    assert rec.ecg_channel == "II" and rec.resp_channel == "RESP"
    np.testing.assert_allclose(rec.ecg, sig[:, 3], atol=1e-3)
    assert rec.channels == ["RESP", "PLETH", "V", "II"]
    rec_v = read_record(base, "v")  # case-insensitive, comma-free request
    assert rec_v.ecg_channel == "V" and list(rec_v.leads) == ["V", "II"]


def test_nan_runs_are_kept(tmp_path):
    fs, n = 250.0, 2500
    sig = np.column_stack([np.sin(np.arange(n) / 10), np.cos(np.arange(n) / 50)])
    sig[100:180, 0] = np.nan
    wfdb.wrsamp("gap", fs=fs, units=["mV", "NU"], sig_name=["ECG", "Resp"], p_signal=sig,
                fmt=["16", "16"], write_dir=str(tmp_path))
    rec = read_record(tmp_path / "gap")
    assert np.flatnonzero(np.isnan(rec.ecg)).tolist() == list(range(100, 180))


def test_microvolts_are_converted_to_millivolts(tmp_path):
    sig = 1000 * np.sin(np.arange(1000) / 7.0)[:, None]
    wfdb.wrsamp("uv", fs=200, units=["uV"], sig_name=["MLII"], p_signal=sig, fmt=["16"],
                write_dir=str(tmp_path))
    rec = read_record(tmp_path / "uv")
    assert np.nanmax(np.abs(rec.ecg)) == pytest.approx(1.0, rel=1e-3)


def test_multi_file_data_path_is_resolved_through_the_headers(tmp_path):
    base, _ = _write(tmp_path, name="multi")
    (tmp_path / "multi.dat").rename(tmp_path / "multi_e.dat")
    hea = tmp_path / "multi.hea"
    hea.write_text(hea.read_text().replace("multi.dat", "multi_e.dat"))
    assert resolve_record(tmp_path / "multi_e.dat") == base
    (tmp_path / "other_record_data.dat").write_bytes((tmp_path / "multi_e.dat").read_bytes())
    text = hea.read_text().replace("multi_e.dat", "other_record_data.dat")
    (tmp_path / "zz.hea").write_text(text.replace("multi ", "zz ", 1))
    assert resolve_record(tmp_path / "other_record_data.dat") == tmp_path / "zz"


# ---------------------------------------------------------------- bad input


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"record not found: .*nothere"):
        read_record(tmp_path / "nothere")
    with pytest.raises(FileNotFoundError, match=r"WFDB header not found: .*nothere\.hea"):
        read_record(tmp_path / "nothere.hea")


def test_header_without_data_file(tmp_path):
    base, _ = _write(tmp_path)
    (tmp_path / "tiny.dat").unlink()
    with pytest.raises(FileNotFoundError,
                       match=r"data file .*tiny\.dat referenced by header .*tiny\.hea is missing"):
        read_record(base)


def test_data_file_without_header(tmp_path):
    _write(tmp_path)
    shutil.move(tmp_path / "tiny.dat", tmp_path / "lonely.dat")
    (tmp_path / "tiny.hea").unlink()
    with pytest.raises(FileNotFoundError, match=r"no WFDB header for data file .*lonely\.dat"):
        read_record(tmp_path / "lonely.dat")
    with pytest.raises(FileNotFoundError) as err:  # a .dat is WFDB's: no list of formats
        read_record(tmp_path / "lonely.dat")
    assert "extension" not in str(err.value)


def test_a_file_of_no_known_format_lists_the_formats_read(tmp_path):
    """An extension no reader claims is tried as WFDB; the error names every reader's."""
    (tmp_path / "one.ecg").write_text("fs=250\n0.1\n0.2\n")
    for path in (tmp_path / "one.ecg", tmp_path / "missing.ecg"):
        with pytest.raises(FileNotFoundError) as err:
            read_record(path)
        for fragment in (".ecg is no extension a reader claims", "EDF .edf, .bdf", "CSV .csv",
                         "NumPy .npy, .npz", "read as a WFDB record"):
            assert fragment in str(err.value)


@pytest.mark.parametrize("fmt", ["16", "212"])
def test_truncated_dat(tmp_path, fmt):
    base, _ = _write(tmp_path, fmt=fmt)
    dat = tmp_path / "tiny.dat"
    dat.write_bytes(dat.read_bytes()[:-100])
    with pytest.raises(RecordError,
                       match=r"data file .*tiny\.dat is truncated: \d+ bytes, header .* needs \d+"):
        read_record(base)


def test_no_ecg_channel_lists_channels_found(tmp_path):
    base, _ = _write(tmp_path, names=("PLETH", "ABP", "RESP"))
    with pytest.raises(ChannelError,
                       match=r"no ECG channel in .*tiny\.hea; channels found: PLETH, ABP, RESP"):
        read_record(base)


def test_unknown_channel_lists_valid_ones(tmp_path):
    base, _ = _write(tmp_path)
    with pytest.raises(ChannelError,
                       match=r"channel 'AVF' not found in .*tiny\.hea; "
                             r"valid channels: II, V, RESP"):
        read_record(base, "AVF")
    with pytest.raises(ChannelError,
                       match=r"channel 'Thorax' not found .*valid channels: II, V, RESP"):
        read_record(base, resp_channel="Thorax")


@pytest.mark.parametrize("fs", [50.0, 20_000.0])
def test_sampling_rate_out_of_range(tmp_path, fs):
    base, _ = _write(tmp_path, fs=fs, n=500)
    with pytest.raises(SignalError,
                       match=rf"ECG channel 'II' of .*tiny\.hea: fs={fs!r} Hz is outside"):
        read_record(base)


def test_fs_disagreeing_with_header(tmp_path):
    base, _ = _write(tmp_path)
    with pytest.raises(RecordError,
                       match=r"sampling rate given \(500 Hz, --fs\) disagrees with the 250 Hz "
                             r"stated in .*tiny for channel 'II'"):
        read_record(base, fs=500.0)


def test_unknown_annotator_is_warned_about_and_the_record_read(tmp_path):
    base, _ = _write(tmp_path)
    wfdb.wrann("tiny", "breath", sample=np.array([100, 400, 700]), symbol=['"'] * 3,
               aux_note=["ann1", "ann2", "ann1"], fs=250, write_dir=str(tmp_path))
    assert read_record(base).breath_times.tolist() == [0.4, 2.8]
    assert read_record(base, annotator="ann2").breath_times.tolist() == [1.6]
    assert read_record(base, annotator=None).breath_times.tolist() == [0.4, 1.6, 2.8]
    with pytest.warns(ReferenceWarning,
                      match=r"breath annotations .*tiny\.breath not used: no annotation labelled "
                            r"'ann3' \(labels found: ann1, ann2\)"):
        rec = read_record(base, annotator="ann3")
    assert rec.breath_times is None and rec.breath_source is None and rec.ecg.size == 2500


# ---------------------------------------------------------------- real records


@pytest.mark.realdata
def test_bidmc01(bidmc_dir):
    rec = read_record(bidmc_dir / "bidmc01.dat")
    assert rec.name == "bidmc01" and rec.fs == 125.0 and rec.ecg.size == 60001
    assert rec.ecg_channel == "II" and set(rec.leads) == {"II", "V", "AVR"}
    assert rec.resp_channel == "RESP" and rec.resp_fs == 125.0 and rec.resp.size == 60001
    assert rec.channels == ["RESP", "PLETH", "V", "AVR", "II"]
    assert rec.breath_times.size == 165  # README: 165 breaths by ann1, 170 by ann2
    assert rec.breath_source == "bidmc01.breath: annotator 'ann1' of ann1, ann2; 165 breaths"
    assert read_record(bidmc_dir / "bidmc01", annotator="ann2").breath_times.size == 170
    assert 0 < rec.breath_times[0] < rec.breath_times[-1] < rec.duration_s
    assert np.nanstd(rec.ecg) > 0.01  # physical units (mV), not ADC counts


@pytest.mark.realdata
def test_03700181_ecg_at_native_500_hz(data_dir):
    rec = read_record(data_dir / "wfdb-samples" / "03700181")
    assert rec.ecg_channel == "MCL1" and rec.fs == 500.0 and rec.ecg.size == 300_000
    assert rec.resp_channel == "RESP" and rec.resp_fs == 125.0 and rec.resp.size == 75_000
    assert rec.duration_s == pytest.approx(600.0)


@pytest.mark.realdata
def test_v102s(data_dir):
    rec = read_record(data_dir / "wfdb-samples" / "v102s.hea")
    assert rec.fs == 250.0 and rec.ecg_channel == "II" and list(rec.leads) == ["II", "V"]
    assert rec.resp_channel == "RESP" and rec.ecg.size == 75_000


@pytest.mark.realdata
def test_mixedsignals_multi_file_multi_rate(data_dir):
    rec = read_record(data_dir / "wfdb-samples" / "mixedsignals_e.dat")
    assert rec.name == "mixedsignals" and rec.ecg_channel == "II"
    assert rec.fs == pytest.approx(249.89) and set(rec.leads) == {"II", "III", "V"}
    assert rec.resp_channel == "Resp" and rec.resp_fs == pytest.approx(62.4725)
    # the first 256 frames (4 ECG samples each at the native rate) are NaN, then data
    nan = np.isnan(rec.ecg)
    assert nan[:1024].all() and not nan[1024:].any()
