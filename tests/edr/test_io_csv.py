"""edr.io CSV reading: time column or given fs, delimiters, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from edr.errors import ChannelError, RecordError, SignalError
from edr.io import read_record
from edr.io.csv_reader import fs_from_time


def _csv(path, header, rows, delimiter=","):
    lines = [delimiter.join(header)] + [delimiter.join(f"{v:.6f}" if isinstance(v,
                                                                                float)
                                                       else str(v) for v in r)
                                        for r in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_time_column_gives_fs(tmp_path):
    fs = 360.0
    t = np.arange(720) / fs
    ecg = np.sin(2 * np.pi * t)
    path = _csv(tmp_path / "a.csv", ["time_s", "MLII", "Resp"],
                zip(t, ecg, np.cos(t), strict=False))
    rec = read_record(path)
    assert rec.fs == pytest.approx(fs, rel=1e-5) and rec.ecg_channel == "MLII"
    np.testing.assert_allclose(rec.ecg, ecg, atol=1e-6)
    assert rec.resp_channel == "Resp" and rec.resp_fs == rec.fs and rec.channels == ["MLII", "Resp"]


def test_fs_given_without_time_column_and_semicolons(tmp_path):
    rows = [(float(np.sin(k / 5)), "") if k == 3 else (float(np.sin(k / 5)),
                                                       float(k)) for k in range(500)]
    path = _csv(tmp_path / "b.csv", ["ECG", "Other"], rows, delimiter=";")
    rec = read_record(path, fs=250)
    assert rec.fs == 250.0 and rec.ecg.size == 500 and rec.resp is None and rec.ecg_channel == "ECG"


def test_milliseconds_time_column(tmp_path):
    t = np.arange(400) * 4.0
    rec = read_record(_csv(tmp_path / "ms.csv", ["time_ms", "II"], zip(t, np.sin(t), strict=False)))
    assert rec.fs == pytest.approx(250.0)


def test_nan_fields_are_kept(tmp_path):
    path = tmp_path / "n.csv"
    path.write_text("t,II\n"
                    + "".join(f"{k / 200:.3f},{'' if 5 <= k < 9 else k}\n" for k in range(300)))
    rec = read_record(path)
    assert np.flatnonzero(np.isnan(rec.ecg)).tolist() == [5, 6, 7, 8]


def test_rounded_times_are_uniform():
    t = np.round(np.arange(1000) / 360.0, 3)
    assert fs_from_time(t, source="x", column="t") == pytest.approx(360.0, rel=1e-4)


def test_csv_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"CSV file not found: .*none\.csv"):
        read_record(tmp_path / "none.csv")
    no_time = _csv(tmp_path / "c.csv", ["II"], [(1.0,), (2.0,)])
    with pytest.raises(RecordError,
                       match=r"c\.csv has no time column .*; give its sampling rate with --fs HZ"):
        read_record(no_time)
    t = np.arange(300) / 250
    gap = _csv(tmp_path / "gap.csv", ["time", "II"],
               zip(np.delete(t, 100), np.zeros(299), strict=False))
    with pytest.raises(RecordError,
                       match=r"time column 'time' of .*gap\.csv is not uniformly sampled: step "
                             r"0\.008 s"):
        read_record(gap)
    ok = _csv(tmp_path / "ok.csv", ["time", "II"], zip(t, np.zeros(300), strict=False))
    with pytest.raises(RecordError,
                       match=r"sampling rate given \(500 Hz, --fs\) disagrees with the 250 Hz of "
                             r"time column 'time'"):
        read_record(ok, fs=500)
    with pytest.raises(SignalError, match=r"ECG channel 'II' of .*c\.csv: fs=50\.0 Hz is outside"):
        read_record(no_time, fs=50)
    noecg = _csv(tmp_path / "d.csv", ["t", "PLETH", "RESP"], zip(t, t, t, strict=False))
    with pytest.raises(ChannelError,
                       match=r"no ECG channel in .*d\.csv; channels found: PLETH, RESP"):
        read_record(noecg)
    ragged = tmp_path / "r.csv"
    ragged.write_text("t,II\n0,1\n0.004,2,3\n")
    with pytest.raises(RecordError, match=r"r\.csv has a malformed row"):
        read_record(ragged)
    (tmp_path / "e.csv").write_text("t,II\n")
    with pytest.raises(RecordError, match=r"e\.csv has no data rows"):
        read_record(tmp_path / "e.csv")


def test_semicolon_csv_with_decimal_commas_is_read(tmp_path):
    t = np.arange(500) / 250
    x = np.sin(2 * np.pi * t)
    path = tmp_path / "comma.csv"
    path.write_text("time;II\n" + "".join(f"{a:.4f};{b:.6f}\n".replace(".", ",") for a, b in zip(t,
                                                                                                 x,
                                                                                                 strict=False)))
    rec = read_record(path)
    assert rec.fs == pytest.approx(250.0)
    np.testing.assert_allclose(rec.ecg, x, atol=1e-6)
    mixed = tmp_path / "mixed.csv"
    mixed.write_text("time;II\n0;1,5\n0,004;2,a,5\n")
    with pytest.raises(RecordError, match=r"mixed\.csv: data row 2 has a ','"):
        read_record(mixed)
