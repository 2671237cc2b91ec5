"""edr.io.wfdb_reader's own decoding of breath annotation files against ``wfdb.rdann``."""

from __future__ import annotations

import numpy as np
import pytest
import wfdb

from edr.io import read_record
from edr.io.reference import annotation_labels
from edr.io.wfdb_reader import _annotation_fields, _breath_times


def _rdann_fields(base):
    ann = wfdb.rdann(str(base), "breath")
    return ann.sample, list(ann.aux_note), ann.symbol, ann.fs


def _assert_as_rdann(base, header_rate=None):
    """The decoded fields equal wfdb.rdann's (sample, notes, the labels the reader uses, fs: the
    file's, else the header's rate ``header_rate`` that wfdb reads and the reader passes);
    returns whether the file was decoded (not left to wfdb)."""
    got = _annotation_fields(base.with_name(base.name + ".breath"))
    if got is None:
        return False
    sample, aux_note, symbol, fs = got
    ref_sample, ref_aux, ref_symbol, ref_fs = _rdann_fields(base)
    np.testing.assert_array_equal(sample, ref_sample)
    assert sample.dtype == np.int64
    assert aux_note == ref_aux
    assert annotation_labels(aux_note, symbol, len(sample)).tolist() == \
        annotation_labels(ref_aux, ref_symbol, len(ref_sample)).tolist()
    assert (fs if fs is not None else header_rate) == (None if ref_fs is None else float(ref_fs))
    return True


def _write(tmp_path, name, seed, *, fs=None, custom=False):
    """A breath file with the fields wfdb writes: gaps beyond 1023 samples (SKIP), notes of odd
    and even length and none, symbols, subtypes, channels and numbers."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    sample = np.cumsum(rng.choice([0, 1, 300, 1023, 1024, 5000, 70_000], size=n))
    symbol = list(rng.choice(['"', "N", "+", "~", "|"], size=n))
    notes = ["", "ann1", "exp", "insp", "x" * 7, "é"]
    kwargs = dict(sample=sample, symbol=symbol,
                  aux_note=[str(rng.choice(notes)) if rng.random() < 0.7 else "" for _ in range(n)],
                  subtype=rng.integers(0, 3, n), chan=rng.integers(0, 2, n),
                  num=rng.integers(0, 2, n), write_dir=str(tmp_path))
    if fs is not None:
        kwargs["fs"] = fs
    if custom:
        kwargs.update(custom_labels=[("@", "custom")], symbol=["@"] * n)
    wfdb.wrann(name, "breath", **kwargs)
    return tmp_path / name


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("fs", [None, 125, 62.5])
def test_written_files_decode_as_rdann(tmp_path, seed, fs):
    assert _assert_as_rdann(_write(tmp_path, "rec", seed, fs=fs))


def test_custom_labels_are_left_to_rdann(tmp_path):
    base = _write(tmp_path, "rec", 0, fs=125, custom=True)
    assert _annotation_fields(tmp_path / "rec.breath") is None
    times, _, _ = _breath_times(base, 125.0, None, True)
    assert times.size == wfdb.rdann(str(base), "breath").sample.size


@pytest.mark.parametrize("cut", [1, 3, 5])
def test_bytes_that_do_not_parse_are_left_to_rdann(tmp_path, cut):
    base = _write(tmp_path, "rec", 1, fs=125)
    data = (tmp_path / "rec.breath").read_bytes()
    (tmp_path / "rec.breath").write_bytes(data[: len(data) // 2 - cut])
    try:
        ref = _rdann_fields(base)
    except Exception:  # noqa: BLE001 - wfdb's own error is what the reader reports
        ref = None
    got = _annotation_fields(tmp_path / "rec.breath")
    if ref is None:
        assert got is None
    elif got is not None:
        np.testing.assert_array_equal(got[0], ref[0])
        assert got[1] == ref[1]


def test_every_breath_file_of_the_databases_decodes_as_rdann(data_dir):
    files = sorted(data_dir.glob("*/*.breath"))
    if not files:
        pytest.skip("no breath annotation files")
    for f in files:
        base = f.with_suffix("")
        rate = float(wfdb.rdheader(str(base)).fs)
        assert _assert_as_rdann(base, rate), f
        fast, slow = (_breath_times(base, rate, "auto", h) for h in (True, False))
        np.testing.assert_array_equal(fast[0], slow[0])
        assert fast[1] == slow[1]


def test_read_record_keeps_the_breath_times(bidmc_dir):
    rec = read_record(bidmc_dir / "bidmc01")
    ann = wfdb.rdann(str(bidmc_dir / "bidmc01"), "breath")
    keep = annotation_labels(ann.aux_note, ann.symbol, ann.sample.size) == "ann1"
    np.testing.assert_array_equal(rec.breath_times, np.sort(ann.sample[keep] / 125.0))
