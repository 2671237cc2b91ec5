"""edr.io EDF/EDF+ reading on tiny files written here byte by byte (EDF spec, Kemp 1992)."""

from __future__ import annotations

import numpy as np
import pytest

from edr.errors import ChannelError, RecordError, SignalError
from edr.io import read_record
from edr.io.edf_reader import read_edf_header


def _field(value, width):
    text = str(value).encode("latin-1")[:width]
    return text + b" " * (width - len(text))


def write_edf(path, signals, *, record_s=1.0, reserved="", n_records=None):
    """Write ``signals`` = list of (label, unit, fs, x, (pmin, pmax)) as EDF with int16 records."""
    n_rec = int(round(len(signals[0][3]) / (signals[0][2] * record_s)))
    ns = len(signals)
    head = b"".join([
        _field(0, 8), _field("X X X X", 80), _field("Startdate X X X X", 80), _field("01.01.20", 8),
        _field("00.00.00", 8), _field(256 * (ns + 1), 8), _field(reserved, 44),
        _field(n_rec if n_records is None else n_records, 8), _field(record_s, 8), _field(ns, 4),
    ])
    cols = [[] for _ in range(10)]
    digital = []
    for label, unit, fs, x, (pmin, pmax) in signals:
        spr = int(round(fs * record_s))
        d = np.round((np.asarray(x) - pmin) / (pmax - pmin) * 65535 - 32768).astype("<i2")
        digital.append(d.reshape(n_rec, spr))
        for k, (v, w) in enumerate([(label, 16), ("", 80), (unit, 8), (pmin, 8),
                                    (pmax, 8), (-32768, 8),
                                    (32767, 8), ("", 80), (spr, 8), ("", 32)]):
            cols[k].append(_field(v, w))
    head += b"".join(b"".join(c) for c in cols)
    body = np.concatenate(digital, axis=1).tobytes()
    path.write_bytes(head + body)
    return path


def _signals(fs_ecg=256.0, fs_resp=32.0, seconds=10):
    t_e = np.arange(int(fs_ecg * seconds)) / fs_ecg
    t_r = np.arange(int(fs_resp * seconds)) / fs_resp
    ecg = 1000 * np.sin(2 * np.pi * 1.2 * t_e)  # µV
    resp = np.sin(2 * np.pi * 0.25 * t_r)
    return [("ECG II", "uV", fs_ecg, ecg, (-2000.0, 2000.0)),
            ("Resp chest", "", fs_resp, resp, (-2.0, 2.0))]


def test_multi_rate_edf_keeps_native_rates_and_converts_to_mv(tmp_path):
    sig = _signals()
    rec = read_record(write_edf(tmp_path / "rec.edf", sig))
    assert rec.name == "rec" and rec.fs == 256.0 and rec.ecg_channel == "ECG II"
    np.testing.assert_allclose(rec.ecg, sig[0][3] / 1000, atol=4000 / 65535 / 1000)
    assert rec.resp_channel == "Resp chest" and rec.resp_fs == 32.0
    np.testing.assert_allclose(rec.resp, sig[1][3], atol=4 / 65535)
    assert rec.channels == ["ECG II", "Resp chest"]


def test_edf_plus_annotation_channel_is_skipped(tmp_path):
    from edr.errors import ReferenceWarning

    sig = _signals() + [("EDF Annotations", "", 30.0, np.zeros(300), (-1.0, 1.0))]
    with pytest.warns(ReferenceWarning, match=r"plus\.edf \(EDF\+ annotations\) not used: "
                                              "unreadable"):  # zeros are no annotations
        rec = read_record(write_edf(tmp_path / "plus.edf", sig, reserved="EDF+C"))
    assert rec.channels == ["ECG II", "Resp chest"]
    assert read_edf_header(tmp_path / "plus.edf").labels[-1] == "EDF Annotations"


def test_edf_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"EDF file not found: .*absent\.edf"):
        read_record(tmp_path / "absent.edf")
    path = write_edf(tmp_path / "cut.edf", _signals())
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(RecordError, match=r"EDF file .*cut\.edf is truncated"):
        read_record(path)
    disc = write_edf(tmp_path / "disc.edf", _signals(), reserved="EDF+D")
    with pytest.raises(RecordError, match=r"disc\.edf is EDF\+D"):
        read_record(disc)
    (tmp_path / "junk.edf").write_bytes(b"0" * 100)
    with pytest.raises(RecordError, match=r"malformed EDF header in .*junk\.edf"):
        read_record(tmp_path / "junk.edf")
    low = write_edf(tmp_path / "low.edf", _signals(fs_ecg=64.0))
    with pytest.raises(SignalError,
                       match=r"ECG channel 'ECG II' of .*low\.edf: fs=64\.0 Hz is outside"):
        read_record(low)
    with pytest.raises(ChannelError,
                       match=r"channel 'V1' not found in .*valid channels: ECG II, Resp chest"):
        read_record(write_edf(tmp_path / "ok.edf", _signals()), "V1")


def test_single_rate_edf_agrees_with_wfdb_read_edf(tmp_path):
    """Reference: wfdb's EDF reader on a single-rate file (where it does not average frames)."""
    from wfdb.io.convert.edf import read_edf as wfdb_read_edf

    path = write_edf(tmp_path / "same.edf", _signals(fs_ecg=256.0, fs_resp=256.0))
    ref = wfdb_read_edf(str(path))
    rec = read_record(path)
    lsb = 4000.0 / 65535 / 1000  # one digital step of the ECG channel, in mV
    assert ref.fs == rec.fs == 256.0
    np.testing.assert_allclose(rec.ecg, ref.p_signal[:, 0] / 1000, atol=lsb)  # wfdb keeps uV
    np.testing.assert_allclose(rec.resp, ref.p_signal[:, 1], atol=4 / 65535)


def test_padding_of_the_last_data_record_is_trimmed(tmp_path):
    """48 s recorded in 13 s data records is stored as 52 s; the padded tail is dropped."""
    import edfio

    fs, seconds = 256, 48
    t = np.arange(fs * seconds) / fs
    ecg = np.sin(2 * np.pi * 1.2 * t) + 0.01 * np.random.default_rng(0).standard_normal(t.size)
    resp = np.sin(2 * np.pi * 0.25 * t)
    edf = edfio.Edf([edfio.EdfSignal(ecg, fs, label="ECG II", physical_dimension="mV"),
                     edfio.EdfSignal(resp, fs, label="Resp", physical_dimension="")])
    edf.update_data_record_duration(13, method="pad")
    edf.write(tmp_path / "pad.edf")
    assert edfio.read_edf(tmp_path / "pad.edf").duration == 52
    rec = read_record(tmp_path / "pad.edf")
    assert rec.duration_s == pytest.approx(seconds, abs=1 / fs)
    np.testing.assert_allclose(rec.ecg[:100], ecg[:100], atol=1e-3)


def test_bdf_24_bit_is_read(tmp_path):
    import edfio

    fs = 256
    t = np.arange(fs * 30) / fs
    x = np.sin(2 * np.pi * 1.1 * t)
    bdf = edfio.Bdf([edfio.BdfSignal(x, fs, label="ECG", physical_dimension="mV")])
    bdf.write(tmp_path / "r.bdf")
    rec = read_record(tmp_path / "r.bdf")
    assert rec.fs == fs and rec.ecg_channel == "ECG"
    np.testing.assert_allclose(rec.ecg, x, atol=1e-5)


def _edf_plus(path, annotations, seconds=120, fs=250.0):
    """An EDF+ file of ``seconds`` of simulated ECG and the EDF+ ``annotations``, (onset, text)."""
    import edfio

    from edr.simulate import simulate_recording

    rec = simulate_recording(float(seconds), fs, random_state=0)
    edf = edfio.Edf([edfio.EdfSignal(rec.ecg, sampling_frequency=fs, label="ECG",
                                     physical_dimension="mV")],
                    annotations=[edfio.EdfAnnotation(t, None, text) for t, text in annotations])
    edf.write(path)
    return path


def test_edf_plus_breath_annotations_are_the_reference(tmp_path):
    """EDF+ annotations ``insp``/``exp`` (a breath is one cycle): the ``exp`` onsets, the ends of
    inspiration, are the breath times, each breath once; ``annotator`` picks another label."""
    exp = np.arange(3.0, 118.0, 4.0)
    notes = sorted([(t - 1.5, "insp") for t in exp] + [(t, "exp") for t in exp])
    path = _edf_plus(tmp_path / "an.edf", notes + [(0.0, "Sleep stage W")])
    rec = read_record(path)
    np.testing.assert_allclose(rec.breath_times, exp)
    assert rec.breath_source == (f"an.edf EDF+ annotations: end of inspiration 'exp' of "
                                 f"Sleep stage ..., exp, insp; {exp.size} breaths")
    assert rec.breath_event == "end_of_inspiration"
    starts = read_record(path, annotator="INSP")
    np.testing.assert_allclose(starts.breath_times, exp - 1.5)
    assert starts.breath_event == "start_of_inspiration"  # scored against the breaths' onsets


def test_edf_plus_annotations_of_no_breath_are_no_reference(tmp_path, recwarn):
    """Sleep stages or events are no breaths: no reference and no warning; breath labels whose
    times no breathing has are left out with one ReferenceWarning naming the file."""
    from edr.errors import ReferenceWarning

    rec = read_record(_edf_plus(tmp_path / "psg.edf", [(0.0, "Sleep stage W"),
                                                        (30.0, "Sleep stage N1")]))
    assert rec.breath_times is None and rec.breath_source is None and not recwarn.list
    with pytest.warns(ReferenceWarning, match=r"odd\.edf \(EDF\+ annotations\) not used: 3 of 4"):
        rec = read_record(_edf_plus(tmp_path / "odd.edf", [(t, "exp") for t in
                                                            (1.0, 1.2, 1.4, 1.6, 5.0)]))
    assert rec.breath_times is None
