"""edr.io NumPy files: a .npy array (rate given) and a .npz file of named channels (rate stored
or given), read as the same arrays through edr.io.arrays / a CSV would be; bad files named."""

from __future__ import annotations

import numpy as np
import pytest

from edr import extract
from edr.errors import ChannelError, RecordError
from edr.io import read_record
from edr.simulate import simulate_recording


@pytest.fixture(scope="module")
def sim():
    return simulate_recording(60.0, 250.0, random_state=3)


def test_npz_channels_by_name_and_its_stored_rate(tmp_path, sim):
    path = tmp_path / "rec.npz"
    np.savez(path, PLETH=sim.ecg * 0, II=sim.ecg, RESP=sim.resp, fs=250)
    rec = read_record(path)
    assert (rec.name, rec.fs, rec.ecg_channel, rec.resp_channel) == ("rec", 250.0, "II", "RESP")
    assert rec.channels == ["PLETH", "II", "RESP"]
    np.testing.assert_array_equal(rec.ecg, sim.ecg)  # the arrays as saved: no conversion
    np.testing.assert_array_equal(rec.resp, sim.resp)
    assert read_record(path, fs=250.0).fs == 250.0
    with pytest.raises(RecordError, match=r"given \(500 Hz, --fs\) disagrees with the 250 Hz "
                                          r"stored in .*rec\.npz"):
        read_record(path, fs=500)


def test_npy_leads_need_the_rate_and_match_the_arrays_reader(tmp_path, sim):
    from edr.io.arrays import recording_from_arrays

    two = np.column_stack([sim.ecg, -sim.ecg])
    np.save(tmp_path / "two.npy", two)
    with pytest.raises(RecordError, match=r"two\.npy holds no sampling rate; give it with --fs"):
        read_record(tmp_path / "two.npy")
    rec = read_record(tmp_path / "two.npy", fs=250)
    ref = recording_from_arrays(two, 250.0)  # the reference: the same array in Python
    assert rec.channels == list(ref.leads) == ["ECG1", "ECG2"] and rec.ecg_channel == "ECG1"
    for name in ref.leads:
        np.testing.assert_array_equal(rec.leads[name], ref.leads[name])
    second = read_record(tmp_path / "two.npy", "ECG2", fs=250)
    np.testing.assert_array_equal(second.ecg, -sim.ecg)


@pytest.mark.parametrize(
    ("save", "fragment"),
    [
        (lambda p, s: np.save(p / "x.npy", np.vstack([s.ecg, s.ecg])),
         "looks like leads × samples"),
        (lambda p, s: np.save(p / "x.npy", np.array(["a", "b"])), "1-D array of numbers"),
        (lambda p, s: np.save(p / "x.npy", np.array([{}, 1], dtype=object)), "cannot be read"),
        (lambda p, s: np.savez(p / "x.npz", II=s.ecg, RESP=s.resp[:-5], fs=250),
         "differ in length"),
        (lambda p, s: np.savez(p / "x.npz", II=np.column_stack([s.ecg, s.ecg]), fs=250),
         "channel 'II' must be a 1-D array"),
        (lambda p, s: np.savez(p / "x.npz", fs=250), "holds no channel"),
        (lambda p, s: np.savez(p / "x.npz", II=s.ecg, fs=[250, 250]), "must be one number of Hz"),
        (lambda p, s: (p / "x.npy").write_bytes(b"not numpy"), "cannot be read"),
    ],
)
def test_bad_numpy_files_are_named(tmp_path, sim, save, fragment):
    save(tmp_path, sim)
    path = next(tmp_path.glob("x.np*"))
    with pytest.raises(RecordError, match=fragment):
        read_record(path, fs=250 if path.suffix == ".npy" else None)


def test_missing_file_and_no_ecg(tmp_path, sim):
    with pytest.raises(FileNotFoundError, match=r"NumPy file not found: .*none\.npz"):
        read_record(tmp_path / "none.npz")
    np.savez(tmp_path / "resp.npz", RESP=sim.resp, fs=250)
    with pytest.raises(ChannelError, match="channels found: RESP"):
        read_record(tmp_path / "resp.npz")


def test_the_command_line_reads_a_npz_as_its_arrays(tmp_path, sim, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    np.savez("rec.npz", II=sim.ecg, fs=250)
    np.save("rec.npy", sim.ecg)
    assert extract.main(["rec.npz", "-o", "a.csv"]) == 0
    assert extract.main(["rec.npy", "--fs", "250", "-o", "b.csv"]) == 0
    capsys.readouterr()
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


def test_the_stream_replays_a_npy_with_its_rate_and_refuses_a_disagreeing_one(tmp_path, sim,
                                                                               monkeypatch, capsys):
    from edr.stream.cli import main as stream_main

    monkeypatch.chdir(tmp_path)
    np.save("rec.npy", sim.ecg)
    np.savez("rec.npz", II=sim.ecg, fs=250)
    assert stream_main(["rec.npy", "--fs", "250", "-o", "a.csv", "--speed", "max"]) == 0
    assert stream_main(["rec.npz", "-o", "b.csv", "--speed", "max"]) == 0
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    capsys.readouterr()
    assert stream_main(["rec.npz", "--fs", "500", "-o", "c.csv", "--speed", "max"]) == 2
    assert "disagrees with the 250 Hz stored in" in capsys.readouterr().err


def test_a_time_column_saved_with_the_leads_is_refused(tmp_path):
    # np.save of np.column_stack([t, ecg]): the time was read as lead ECG1
    t = np.arange(5000) / 250.0
    np.save(tmp_path / "te.npy", np.column_stack([t, np.sin(2 * np.pi * t)]))
    with pytest.raises(RecordError, match=r"te\.npy: column 0 increases at every sample \(a time "
                                          r"axis or a sample counter, not an ECG lead\)"):
        read_record(tmp_path / "te.npy", fs=250.0)
