"""edr.io.wfdb_reader.read_signals: a long record read in blocks gives the same bits as one
``wfdb.rdrecord`` call (the reference), for every fixed-width format, invalid samples, gains,
baselines and several samples per frame; and needs no more memory than its output."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import wfdb

import edr.io.wfdb_samples as ws
from edr.errors import RecordError
from edr.io import read_record

N_FRAMES = 5003  # not a multiple of the block nor of 3 (formats 310/311 pack 3 samples)
BLOCK = 777  # odd: blocks start inside the packed byte groups of 212/310/311
# bits per sample of the formats written as raw bytes below
_RAW_BITS = {"8": 8, "61": 16, "160": 16, "310": 32 / 3, "311": 32 / 3, "212": 12}


def _reference(base, channels):
    """One wfdb call over the whole record: what the reader read before the blocks."""
    rec = wfdb.rdrecord(str(base), channels=list(channels), smooth_frames=False, return_res=64)
    return [np.asarray(x, dtype=np.float64) for x in rec.e_p_signal]


def _same_bits(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == np.float64 and g.shape == w.shape
        assert np.array_equal(g.view(np.int64), w.view(np.int64))  # NaN bits included


def _blocked(monkeypatch, base, channels):
    monkeypatch.setattr(ws, "BLOCK_FRAMES", BLOCK)
    return ws.read_signals(base, wfdb.rdheader(str(base)), list(channels))


def _write_digital(folder, fmt, seed=0):
    """Two channels of digital samples with invalid ones planted, written by wfdb."""
    rng = np.random.default_rng(seed)
    span = {"80": 100, "212": 2000, "16": 30000, "24": 10**6, "32": 10**8}[fmt]
    d = rng.integers(-span, span, size=(N_FRAMES, 2))
    invalid = wfdb.io._signal.INVALID_SAMPLE_VALUE[fmt]
    d[BLOCK - 3:BLOCK + 4, 0] = invalid  # across a block boundary
    d[rng.choice(N_FRAMES, 40, replace=False), 1] = invalid
    d[-1, 0] = invalid  # the last sample
    name = f"d{fmt}"
    wfdb.wrsamp(name, fs=250, units=["mV", "uV"], sig_name=["II", "V"], d_signal=d,
                fmt=[fmt, fmt], adc_gain=[200.3, 1234.5678], baseline=[7, -1024],
                write_dir=str(folder))
    return folder / name, d, invalid


def _write_raw(folder, fmt, spf=(1, 1), seed=0):
    """A header and a data file of random bytes: whatever wfdb reads from them is the
    reference (random bytes hold invalid samples of the narrow formats too)."""
    rng = np.random.default_rng(seed)
    n_bytes = int(np.ceil(N_FRAMES * sum(spf) * _RAW_BITS[fmt] / 8))
    raw = rng.integers(0, 256, size=n_bytes, dtype=np.uint8)
    if fmt in ("61", "160"):  # plant invalid samples (-32768): big-endian / offset binary
        pair = (0x80, 0x00) if fmt == "61" else (0x00, 0x00)
        for k in rng.choice(n_bytes // 2, 30, replace=False):
            raw[2 * k:2 * k + 2] = pair
    name = f"r{fmt}_{spf[0]}"
    (folder / f"{name}.dat").write_bytes(raw.tobytes())
    tag = [f"{fmt}x{k}" if k > 1 else fmt for k in spf]
    (folder / f"{name}.hea").write_text(
        f"{name} 2 250 {N_FRAMES}\n"
        f"{name}.dat {tag[0]} 200.3(7)/mV 12 0 0 0 0 II\n"
        f"{name}.dat {tag[1]} 1234.5678(-100)/mV 12 0 0 0 0 V\n")
    return folder / name


@pytest.mark.parametrize("fmt", ["16", "24", "32", "80", "212"])
def test_written_formats_with_invalid_samples(tmp_path, monkeypatch, fmt):
    base, d, invalid = _write_digital(tmp_path, fmt)
    want = _reference(base, [0, 1])
    got = _blocked(monkeypatch, base, [0, 1])
    _same_bits(got, want)
    assert np.array_equal(np.isnan(got[0]), d[:, 0] == invalid)  # the test has NaN to check
    assert np.isnan(got[1]).sum() == 40


@pytest.mark.parametrize("fmt", ["61", "160", "212", "310", "311", "8"])
@pytest.mark.parametrize("spf", [(1, 1), (2, 1), (3, 2)])
def test_raw_formats_and_samples_per_frame(tmp_path, monkeypatch, fmt, spf):
    base = _write_raw(tmp_path, fmt, spf)
    for channels in ([0, 1], [1], [1, 0]):
        want = _reference(base, channels)
        got = _blocked(monkeypatch, base, channels)
        _same_bits(got, want)
        assert [g.size for g in got] == [N_FRAMES * spf[c] for c in channels]
    if fmt in ("61", "160", "310", "311"):
        assert any(np.isnan(g).any() for g in got)


def test_read_record_is_unchanged_by_the_blocks(tmp_path, monkeypatch):
    base, _, _ = _write_digital(tmp_path, "16")
    whole = read_record(base)
    monkeypatch.setattr(ws, "BLOCK_FRAMES", BLOCK)
    blocked = read_record(base)
    assert np.array_equal(whole.ecg, blocked.ecg, equal_nan=True)
    for name in whole.leads:
        assert np.array_equal(whole.leads[name], blocked.leads[name], equal_nan=True)


@pytest.mark.parametrize("record", ["bidmc/bidmc01", "marsh/m0046"])
def test_real_records(data_dir, monkeypatch, record):
    base = data_dir / record
    n_sig = wfdb.rdheader(str(base)).n_sig
    monkeypatch.setattr(ws, "BLOCK_FRAMES", 10007)
    got = ws.read_signals(base, wfdb.rdheader(str(base)), list(range(n_sig)))
    _same_bits(got, _reference(base, range(n_sig)))


def test_blocks_need_no_more_than_the_output(tmp_path, monkeypatch):
    """The whole-record call holds the digital samples, their float64 copy and the invalid
    mask at once (about 1.4x the output for format 16); the blocks only the output."""
    n = 1 << 20
    d = np.random.default_rng(1).integers(-3000, 3000, size=(n, 1))
    wfdb.wrsamp("long", fs=250, units=["mV"], sig_name=["II"], d_signal=d, fmt=["16"],
                adc_gain=[200.0], baseline=[0], write_dir=str(tmp_path))
    base, header = tmp_path / "long", wfdb.rdheader(str(tmp_path / "long"))
    out_bytes = n * 8

    def peak(read):
        tracemalloc.start()
        try:
            read()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    whole = peak(lambda: _reference(base, [0]))
    monkeypatch.setattr(ws, "BLOCK_FRAMES", 1 << 13)
    blocked = peak(lambda: ws.read_signals(base, header, [0]))
    assert whole > 1.3 * out_bytes  # what the blocks save is there to save
    assert blocked < 1.1 * out_bytes


def test_a_block_of_the_wrong_length_is_refused_and_read_record_names_the_header(
        tmp_path, monkeypatch):
    base, _, _ = _write_digital(tmp_path, "16")
    digital = ws._wfdb_digital

    def short_block(base, indices, start, stop, res):  # as a truncated data file would read
        return [x[:-1] for x in digital(base, indices, start, stop, res)]

    monkeypatch.setattr(ws, "_wfdb_digital", short_block)
    with pytest.raises(ValueError, match=rf"frames 0-{BLOCK} gave {BLOCK - 1} samples, "
                                         rf"not {BLOCK}"):
        _blocked(monkeypatch, base, [0])
    with pytest.raises(RecordError, match=r"cannot read signals of .*d16\.hea: frames 0-"):
        read_record(str(base) + ".hea")  # the block size set by _blocked still holds


@pytest.mark.parametrize("fmt", ["16", "24", "32", "80", "212"])
def test_digital_leads_of_written_formats_are_wfdbs_values(tmp_path, monkeypatch, fmt):
    """The leads held as digital samples (what read_record gives of a long record) convert to
    the bits of one wfdb call, whole and by slices across the blocks."""
    base, _, _ = _write_digital(tmp_path, fmt)
    monkeypatch.setattr(ws, "BLOCK_FRAMES", BLOCK)
    header = wfdb.rdheader(str(base))
    assert ws.held_digital(header, [0, 1])
    leads = ws.read_digital(base, header, [1, 0])
    want = _reference(base, [1, 0])
    assert leads[0].digital.dtype == (np.int32 if fmt in ("24", "32") else np.int16)
    _same_bits([np.asarray(x) for x in leads], want)
    _same_bits([x[BLOCK - 5:2 * BLOCK + 3] for x in leads],
               [w[BLOCK - 5:2 * BLOCK + 3] for w in want])


@pytest.mark.parametrize("fmt", ["160", "212", "310", "311"])
@pytest.mark.parametrize("spf", [(1, 1), (3, 2)])
def test_digital_leads_of_raw_formats_are_wfdbs_values(tmp_path, monkeypatch, fmt, spf):
    base = _write_raw(tmp_path, fmt, spf)
    monkeypatch.setattr(ws, "BLOCK_FRAMES", BLOCK)
    header = wfdb.rdheader(str(base))
    leads = ws.read_digital(base, header, [0, 1])
    _same_bits([np.asarray(x) for x in leads], _reference(base, [0, 1]))


def test_format_61_is_read_as_physical_blocks(tmp_path, monkeypatch):
    """wfdb 4.3 cannot return format 61's digital samples: read_record gives float64."""
    base = _write_raw(tmp_path, "61")
    monkeypatch.setattr(ws, "BLOCK_FRAMES", BLOCK)
    assert not ws.held_digital(wfdb.rdheader(str(base)), [0, 1])
    rec = read_record(base)
    assert isinstance(rec.ecg, np.ndarray)
    _same_bits([rec.ecg], _reference(base, [0]))
