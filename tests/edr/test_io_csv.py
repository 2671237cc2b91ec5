"""edr.io CSV reading: time column or given fs, delimiters, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from edr.errors import ChannelError, RecordError, SignalError
from edr.io import read_record
from edr.io.time_axis import fs_from_time


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


_TIME_NAMES = {  # the reference: every spelling written out, seconds per unit or None
    "time": 1.0, "Time": 1.0, "t": 1.0, "T": 1.0, "time_s": 1.0, "time (s)": 1.0,
    "Time [s]": 1.0, "Time (sec)": 1.0, "time_sec": 1.0, "seconds": 1.0, "sec": 1.0, "s": 1.0,
    "'Elapsed time'": 1.0, "Elapsed time (seconds)": 1.0, "timestamp": 1.0, "TimeStamp": 1.0,
    "time_ms": 1e-3, "time (ms)": 1e-3, "timestamp_ms": 1e-3, "Timestamp [ms]": 1e-3,
    "ms": 1e-3, "t_us": 1e-6, "sensor timestamp [ns]": None, "timestamp [ns]": 1e-9,
    "time (µs)": 1e-6, "time (min)": 60.0, "Time (hh:mm:ss.mmm)": 1.0,
    "ECG": None, "II": None, "min": None, "temp": None, "resp": None, "time (kg)": None,
    "sample": None, "": None, "datetime": 1.0, "Date Time": 1.0, "date": None,
}


@pytest.mark.parametrize(("name", "seconds"), list(_TIME_NAMES.items()))
def test_time_column_names(name, seconds):
    from edr.io.time_axis import time_unit

    assert time_unit(name) == seconds


def _physionet_export(path, t, ecg_uv, resp, clock=False):
    """A CSV as PhysioNet's export writes it: quoted names, a units row, uV."""
    unit = "'hh:mm:ss.mmm'" if clock else "'seconds'"
    rows = []
    for a, b, c in zip(t, ecg_uv, resp, strict=True):
        m, s = divmod(a, 60.0)
        rows.append(f"'{int(m)}:{s:06.3f}'" if clock else f"{a:.3f}")
        rows[-1] += f",{b:.1f},{c:.4f}"
    path.write_text(f"'Elapsed time','II','RESP'\n{unit},'uV','mV'\n" + "\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize("clock", [False, True])
def test_physionet_export_with_units_row(tmp_path, clock):
    fs = 250.0
    t = np.arange(20000) / fs  # 80 s: past a minute on the clock
    ecg_mv = np.round(np.sin(2 * np.pi * 1.2 * t), 4)
    resp = np.round(np.cos(2 * np.pi * 0.25 * t), 4)
    rec = read_record(_physionet_export(tmp_path / "x.csv", t, ecg_mv * 1000, resp, clock))
    plain = read_record(_csv(tmp_path / "plain.csv", ["time_s", "II", "RESP"],
                             zip(t, ecg_mv, resp, strict=True)))
    assert rec.fs == pytest.approx(fs, rel=1e-9) and rec.channels == ["II", "RESP"]
    np.testing.assert_allclose(rec.ecg, plain.ecg, atol=1e-4)  # uV to mV, to the 0.1 uV written
    np.testing.assert_allclose(rec.resp, plain.resp, atol=1e-12)


def test_sample_number_column_is_no_channel(tmp_path):
    rows = [(k, float(np.sin(k / 40))) for k in range(2000)]
    path = _csv(tmp_path / "s.csv", ["sample", "signal"], rows)
    with pytest.raises(RecordError, match=r"no time column .*column 'sample' holds sample numbers, "
                                          r"not times; give its sampling rate with --fs HZ"):
        read_record(path)
    rec = read_record(path, fs=250, channel="signal")
    assert rec.channels == ["signal"] and rec.ecg.size == 2000


def test_text_columns_are_no_channels_and_text_among_numbers_is_an_error(tmp_path):
    fs = 250.0
    t = np.arange(3000) / fs
    ecg = np.round(np.sin(2 * np.pi * 1.1 * t), 4)
    stamp = [f"2026-03-01T10:{k // 15000:02d}:{(k / fs) % 60:09.6f}" for k in range(t.size)]
    path = tmp_path / "wearable.csv"  # as a phone app writes it: a date column, times in ms
    path.write_text("Phone timestamp;timestamp [ms];device;ecg [uV]\n" + "".join(
        f"{s};{a * 1e3:.3f};H10;{b * 1e3:.1f}\n" for s, a, b in zip(stamp, t, ecg, strict=True)))
    rec = read_record(path)
    assert rec.fs == fs and rec.channels == ["ecg [uV]"]
    np.testing.assert_allclose(rec.ecg, ecg * 1e3, atol=1e-9)
    lines = path.read_text().splitlines()
    lines[1500] = lines[1500].replace(";H10;", ";H10;x")  # text in the number column
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RecordError, match=r"data row 1500, column 'ecg \[uV\]': 'x"):
        read_record(path)


@pytest.mark.parametrize(("scale", "fmt"), [(1.0, "%.4f"), (1e3, "%.3f"), (1e6, "%.0f")])
def test_a_file_without_header_row(tmp_path, scale, fmt):
    fs = 250.0
    t = np.arange(2500) / fs
    leads = np.round(np.column_stack([np.sin(2 * np.pi * t), np.cos(2 * np.pi * t)]), 4)
    np.savetxt(tmp_path / "timed.csv", np.column_stack([t * scale, leads]), delimiter=",",
               fmt=[fmt, "%.4f", "%.4f"])
    rec = read_record(tmp_path / "timed.csv")  # a first column of uniform steps is the time
    assert rec.fs == fs and rec.channels == ["ECG1", "ECG2"]
    np.testing.assert_allclose(rec.leads["ECG2"], leads[:, 1], atol=1e-12)
    np.savetxt(tmp_path / "bare.csv", leads, delimiter=";", fmt="%.4f")
    with pytest.raises(RecordError, match="bare.csv has no time column"):
        read_record(tmp_path / "bare.csv")
    bare = read_record(tmp_path / "bare.csv", fs=fs)  # the first line is a sample, not a header
    assert bare.channels == ["ECG1", "ECG2"] and bare.ecg.size == 2500
    np.testing.assert_allclose(bare.ecg, leads[:, 0], atol=1e-12)


@pytest.mark.parametrize("stamp", ["%Y-%m-%dT%H:%M:%S.%f", "%Y-%m-%d %H:%M:%S.%f",
                                   "%Y-%m-%dT%H:%M:%S.%fZ", "%Y-%m-%dT%H:%M:%S.%f+01:00",
                                   "'%Y/%m/%d %H:%M:%S.%f'"])
def test_dates_and_times_in_a_time_column(tmp_path, stamp):
    import datetime as dt

    fs = 250.0
    t = np.arange(5000) / fs  # 20 s across midnight
    ecg = np.round(np.sin(2 * np.pi * 1.1 * t), 4)
    start = dt.datetime(2026, 3, 1, 23, 59, 50)
    texts = [(start + dt.timedelta(seconds=float(a))).strftime(stamp) for a in t]
    path = tmp_path / "stamped.csv"
    path.write_text("timestamp,ECG\n" + "".join(f"{s},{v:.4f}\n" for s, v in zip(texts, ecg,
                                                                                  strict=True)))
    rec = read_record(path)
    plain = read_record(_csv(tmp_path / "plain.csv", ["time_s", "ECG"], zip(t, ecg, strict=True)))
    assert rec.fs == plain.fs == fs
    np.testing.assert_array_equal(rec.ecg, plain.ecg)
    lines = path.read_text().splitlines()
    lines[300] = "yesterday," + lines[300].split(",")[1]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RecordError, match=r"'yesterday' \(data row 300\) is not a date and time"):
        read_record(path)



@pytest.mark.parametrize("token", ["n/a", "null", "-", "NaT", " nan", "NA", ""])
def test_one_set_of_missing_values_for_dates_and_numbers(tmp_path, token):
    """A missing number and a missing date and time are the same texts (``MISSING_TOKENS``):
    ``NaT`` among numbers was an error, ``n/a``, ``null``, ``-`` in a date column were "not a
    date and time"; a missing time is named with its row."""
    fs = 250.0
    t = np.arange(2500) / fs
    ecg = [f"{v:.4f}" for v in np.sin(2 * np.pi * 1.1 * t)]
    ecg[400] = token
    path = tmp_path / "gaps.csv"
    path.write_text("time_s,ECG\n" + "".join(f"{a:.4f},{v}\n" for a, v in zip(t, ecg,
                                                                               strict=True)))
    rec = read_record(path)
    assert rec.fs == fs and np.flatnonzero(np.isnan(rec.ecg)).tolist() == [400]
    texts = [f"2026-03-01T10:00:{a:09.6f}" for a in t]
    texts[300] = token
    path.write_text("timestamp,ECG\n" + "".join(f"{s},0.1\n" for s in texts))
    with pytest.raises(RecordError, match=r"'timestamp' .* has no time in data row 301 \(a"):
        read_record(path)



def test_a_column_of_numbers_that_starts_and_ends_missing_is_a_channel(tmp_path):
    """``NaT`` is a missing value, not text: a column of numbers that starts and ends with it is
    no text column (it was left out as one)."""
    t = np.arange(2500) / 250.0
    path = tmp_path / "nat.csv"
    path.write_text("time_s,ECG,Other\n" + "".join(
        f"{a:.4f},{np.sin(7 * a):.4f},{'NaT' if i in (0, t.size - 1) else i}\n"
        for i, a in enumerate(t)))
    rec = read_record(path)
    assert rec.channels == ["ECG", "Other"] and rec.ecg_channel == "ECG"


def _export(path, text: str, encoding: str = "utf-8", newline: str = "\n"):
    data = text.replace("\n", newline).encode(encoding)
    if path.name.endswith(".gz"):
        import gzip

        data = gzip.compress(data, mtime=0)
    path.write_bytes(data)
    return path


_T = np.arange(2500) / 250.0
_X = np.round(np.sin(2 * np.pi * 1.1 * _T) + 0.1 * np.cos(2 * np.pi * 7 * _T), 4)
_STAMPS = [f"2026-03-01T10:00:{10 + t:09.6f}" for t in _T]


def _rows(fmt, times=_T, values=_X):
    return "".join(fmt(t, v) for t, v in zip(times, values, strict=True))


@pytest.mark.parametrize(("name", "text", "encoding"), [
    ("gz.csv.gz", "time,ECG\n" + _rows(lambda t, v: f"{t:.3f},{v:.4f}\n"), "utf-8"),
    ("gz.tsv.gz", "time\tECG\n" + _rows(lambda t, v: f"{t:.3f}\t{v:.4f}\n"), "utf-8"),
    ("quoted.csv", '"time","ECG"\n' + _rows(lambda t, v: f'"{t:.3f}","{v:.4f}"\n'), "utf-8"),
    ("quoted_comma.csv", '"time","ECG"\n' + _rows(lambda t, v: f'"{t:.3f}","{v:.4f}"\n'
                                                  .replace(".", ",")), "utf-8"),
    ("quoted_semicolon.csv", '"time";"ECG"\n' + _rows(lambda t, v: f'"{t:.3f}";"{v:.4f}"\n'
                                                      .replace(".", ",")), "utf-8"),
    ("comments.csv", "# device: X\n% rate 250\n\ntime,ECG\n"
     + _rows(lambda t, v: f"{t:.3f},{v:.4f}\n"), "utf-8"),
    ("excel.csv", "sep=;\ntime;ECG\n" + _rows(lambda t, v: f"{t:.3f};{v:.4f}\n".replace(".", ",")),
     "utf-8"),
    ("cp1252.csv", "Zeit (s);EKG (µV)\n" + _rows(lambda t, v: f"{t:.3f};{v:.4f}\n"
                                                 .replace(".", ",")), "cp1252"),
    ("utf16.txt", "time\tECG\n" + _rows(lambda t, v: f"{t:.3f}\t{v:.4f}\n"), "utf-16"),
    ("pandas.csv", ",ECG\n" + _rows(lambda t, v: f"{t},{v}\n", _STAMPS), "utf-8"),
    ("pandas_seconds.csv", ",ECG\n" + _rows(lambda t, v: f"{t:.3f},{v}\n"), "utf-8"),
])
def test_exports_as_they_come_are_read_as_the_plain_file(tmp_path, name, text, encoding):
    plain = read_record(_export(tmp_path / "plain.csv", "time,ECG\n"
                                + _rows(lambda t, v: f"{t:.3f},{v:.4f}\n")))
    rec = read_record(_export(tmp_path / name, text, encoding, newline="\r\n"))
    assert rec.fs == plain.fs == 250.0 and rec.name == name.split(".")[0]
    assert len(rec.channels) == 1
    np.testing.assert_allclose(rec.ecg, plain.ecg, atol=1e-12)


def test_sample_numbers_without_header_or_unnamed_are_no_rate(tmp_path):
    # 0, 1, 2, ... was read as a time in ms: 250 Hz data became 1000 Hz, and --fs 250 an error
    np.savetxt(tmp_path / "n.csv", np.column_stack([np.arange(2500), _X]), delimiter=",",
               fmt=["%d", "%.4f"])
    _export(tmp_path / "p.csv", ",ECG\n" + _rows(lambda t, v: f"{round(t * 250)},{v}\n"))
    for path, column in ((tmp_path / "n.csv", "sample"), (tmp_path / "p.csv", "index")):
        with pytest.raises(RecordError, match=rf"column '{column}' holds sample numbers, not "
                                              r"times; give its sampling rate with --fs HZ"):
            read_record(path)
        rec = read_record(path, fs=250.0)
        assert rec.fs == 250.0 and rec.channels == ["ECG"]
        np.testing.assert_allclose(rec.ecg, _X, atol=1e-12)


def test_a_gz_name_that_is_no_gzip_and_a_binary_file_are_named(tmp_path):
    (tmp_path / "a.csv.gz").write_text("time,ECG\n0,1\n")
    with pytest.raises(RecordError, match=r"a\.csv\.gz is named \.gz but is not gzip-compressed"):
        read_record(tmp_path / "a.csv.gz")
    (tmp_path / "b.csv").write_bytes(b"time,ECG\n\x00\x01\xff\xfe\n")
    with pytest.raises(RecordError, match=r"b\.csv is not text: byte 0xff"):
        read_record(tmp_path / "b.csv")


def test_an_uneven_time_axis_says_what_to_do(tmp_path):
    t = np.arange(2500) / 250.0
    dropped = np.delete(t, np.arange(1000, 1250))  # a logger lost 1 s of rows
    _export(tmp_path / "dropped.csv", "time,ECG\n" + _rows(lambda a, v: f"{a:.3f},{v:.4f}\n",
                                                          dropped, _X[: dropped.size]))
    with pytest.raises(RecordError, match=r"about 250 sample\(s\) of 0\.004 s are missing there "
                                          r"\(rows dropped\): keep their rows with empty values"):
        read_record(tmp_path / "dropped.csv")
    jitter = t + np.random.default_rng(0).uniform(-0.0025, 0.0025, t.size)
    _export(tmp_path / "jitter.csv", "time,ECG\n" + _rows(lambda a, v: f"{a:.5f},{v:.4f}\n",
                                                         jitter))
    with pytest.raises(RecordError, match=r"the times jitter by more than half a sample: if the "
                                          r"samples were taken at a steady rate, drop the time"):
        read_record(tmp_path / "jitter.csv")
