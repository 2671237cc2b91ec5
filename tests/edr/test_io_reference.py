"""Breath annotations as a reference (edr.io.reference, edr.io.wfdb_reader): any annotator or
phase label, plausibility, and a reference that never stops a record from being read."""

from __future__ import annotations

import shutil
import warnings

import numpy as np
import pandas as pd
import pytest
import wfdb
import wfdb.io.annotation as wfdb_annotation

from edr.errors import RecordError, ReferenceWarning
from edr.io import read_record
from edr.io.reference import (
    MAX_BREATH_INTERVAL_S,
    MAX_ODD_INTERVAL_SHARE,
    MIN_BREATH_INTERVAL_S,
    MIN_BREATHS_PER_MIN,
    annotation_labels,
    choose_breath_label,
    implausible_reason,
)
from edr.io.wfdb_reader import read_breath_annotations

FS = 250.0
N = int(120 * FS)  # a 2-minute record


def _record(tmp_path, name="rec"):
    rng = np.random.default_rng(0)
    sig = np.column_stack([np.sin(np.arange(N) / 20.0), np.cos(np.arange(N) / 200.0)])
    sig += 0.01 * rng.standard_normal(sig.shape)
    wfdb.wrsamp(name, fs=FS, units=["mV", "mV"], sig_name=["II", "RESP"], p_signal=sig,
                fmt=["16", "16"], write_dir=str(tmp_path))
    return tmp_path / name


def _reference_warnings(record):
    return [w for w in record if issubclass(w.category, ReferenceWarning)]


def _read(base, **kw):
    """``(recording, ReferenceWarning messages)``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rec = read_record(base, **kw)
    return rec, [str(w.message) for w in _reference_warnings(caught)]


#: breaths every 4 s (15 /min): ends of inspiration at 2, 6, ..., starts 1.5 s before
EXP = np.arange(2.0, 118.0, 4.0)
INSP = EXP - 1.5


# ------------------------------------------------------------------ labels and their choice


def test_labels_are_notes_or_else_symbols():
    assert annotation_labels(["ann1", "", None, " exp "], ['"', "I", '"', float("nan")],
                             4).tolist() == ["ann1", "I", '"', "exp"]
    assert annotation_labels(None, ["N", float("nan")], 2).tolist() == ["N", ""]


@pytest.mark.parametrize("labels, chosen", [
    (["ann1", "ann2"], "ann1"),
    (["ann2", "ann10"], "ann2"),  # by number, not by text
    (["ann2"], "ann2"),
    (["insp", "exp"], "exp"),  # the end of inspiration, as MARSH annotates
    (["INSP", "EXP"], "EXP"),
    (["startinsp", "startexp"], "startexp"),
    (["insp", "other"], "insp"),
    (["ann2", "exp", "insp"], "ann2"),  # annotators before phases
    (['"'], '"'),  # one plain symbol: all of them
    (["x"], "x"),
    (["a", "b"], None),  # cannot tell annotators from phases
    (["e", "i"], None),  # one-letter symbols are beat labels in WFDB
    ([], None),
])
def test_the_label_is_chosen_by_the_documented_order(labels, chosen):
    label, why = choose_breath_label(labels * 3)
    assert label == chosen
    assert (label is None) == ("pass annotator" in why or why == "no annotation")


# ------------------------------------------------------------------ plausibility


def _slow_plausible(t, duration):
    """Obviously-correct reading of the rules, one breath at a time."""
    t = list(t)
    if not t or any(not np.isfinite(x) for x in t):
        return False
    for a, b in zip(t, t[1:], strict=False):
        if b < a:
            return False
    if t[0] < 0 or t[-1] > duration:
        return False
    odd = sum(1 for a, b in zip(t, t[1:], strict=False)
              if b - a < MIN_BREATH_INTERVAL_S or b - a > MAX_BREATH_INTERVAL_S)
    if len(t) > 1 and odd > MAX_ODD_INTERVAL_SHARE * (len(t) - 1):
        return False
    return len(t) / duration * 60.0 >= MIN_BREATHS_PER_MIN


def test_plausibility_agrees_with_a_slow_reading_of_the_rules():
    rng = np.random.default_rng(0)
    verdicts = []
    for _ in range(600):
        duration = float(rng.uniform(20, 600))
        rate = rng.uniform(1, 70) / 60.0  # breaths per s, outside the rules' range too
        shape = rng.choice([3.0, 50.0])  # irregular or regular breathing
        n = int(duration * rate * rng.uniform(0.1, 2.0)) + 1  # some end early
        t = np.cumsum(rng.gamma(shape, 1.0 / (rate * shape), size=n))
        t = t[t < duration]
        kind = rng.integers(0, 6)
        if kind == 1 and t.size > 2:
            i = rng.integers(0, t.size - 1)
            t[i], t[i + 1] = t[i + 1] + 0.1, t[i]  # swapped
        elif kind == 2 and t.size:
            t[-1] = duration + 1.0  # past the end
        elif kind == 3 and t.size:
            t[rng.integers(0, t.size)] = np.nan
        ok = implausible_reason(t, duration) is None
        assert ok == _slow_plausible(t, duration), (t, duration, implausible_reason(t, duration))
        verdicts.append(ok)
    assert 0.2 < np.mean(verdicts) < 0.8  # both verdicts are exercised


@pytest.mark.parametrize("times, fragment", [
    ([], "no breath"),
    ([2.0, 6.0, 4.0, 10.0], "out of order (6 s before 4 s)"),
    ([-1.0, 3.0, 7.0, 11.0], "outside the record"),
    ([2.0, 2.3, 2.6, 2.9, 3.2, 3.5], "5 of 5 intervals (100%) are shorter than 1 s"),
    ([2.0, 80.0], "longer than 60 s"),
    ([5.0, 9.0], "2 breath(s) in 120 s, fewer than 3 per minute"),
    ([2.0, np.inf], "not finite"),
])
def test_implausible_times_are_named(times, fragment):
    assert fragment in implausible_reason(times, 120.0)


@pytest.mark.realdata
def test_every_shared_breath_annotation_is_plausible_and_reported(data_dir):
    files = sorted(data_dir.glob("*/*.breath"))
    assert len(files) >= 39
    for path in files:
        rec, warned = _read(path.with_suffix(""))
        assert not warned and rec.breath_times is not None, path
        assert rec.breath_source.startswith(f"{path.name}: ")
        assert rec.breath_source.endswith(f"; {rec.breath_times.size} breaths")


@pytest.mark.realdata
def test_marsh_ends_of_inspiration_are_all_taken(data_dir):
    rec, warned = _read(data_dir / "marsh" / "m0046")
    assert not warned and rec.breath_times.size == 175
    assert rec.breath_source == "m0046.breath: label 'ann1'; 175 breaths"


# ------------------------------------------------------------------ annotation files


def test_insp_exp_notes_give_the_ends_of_inspiration(tmp_path):
    base = _record(tmp_path)
    both = np.sort(np.concatenate([INSP, EXP]))
    notes = ["insp" if t in set(INSP) else "exp" for t in both]
    wfdb.wrann("rec", "breath", sample=np.round(both * FS).astype(int), symbol=['"'] * both.size,
               aux_note=notes, fs=FS, write_dir=str(tmp_path))
    rec, warned = _read(base)
    assert not warned
    np.testing.assert_allclose(rec.breath_times, EXP)
    assert rec.breath_source == (f"rec.breath: end of inspiration 'exp' of exp, insp; "
                                 f"{EXP.size} breaths")
    # asked for by name: the other phase
    np.testing.assert_allclose(_read(base, annotator="insp")[0].breath_times, INSP)


def _write_symbols(tmp_path, times, symbols):
    """Breath annotations labelled by their (custom, several-character) symbols. wfdb-python
    4.3 writes one-character custom symbols only; its writer of the custom label definitions
    is replaced here by one that writes the whole symbol (the reader reads it whole)."""
    def triplet_bytes(triplet):
        store, symbol, text = str(triplet[0]), triplet[1], triplet[2]
        body = f"{store} {symbol} {text}"
        out = [0, 88, len(body), 252] + [ord(c) for c in body]
        return out + [0] * (len(out) % 2)

    labels = sorted(set(symbols))
    custom = pd.DataFrame({"label_store": [42 + k for k in range(len(labels))], "symbol": labels,
                           "description": [f"breath {s}" for s in labels]})
    original = wfdb_annotation.custom_triplet_bytes
    wfdb_annotation.custom_triplet_bytes = triplet_bytes
    try:
        wfdb.wrann("rec", "breath", sample=np.round(np.asarray(times) * FS).astype(int),
                   symbol=list(symbols), custom_labels=custom, fs=FS, write_dir=str(tmp_path))
    finally:
        wfdb_annotation.custom_triplet_bytes = original


def test_insp_exp_symbols_give_the_ends_of_inspiration(tmp_path):
    base = _record(tmp_path)
    both = np.sort(np.concatenate([INSP, EXP]))
    _write_symbols(tmp_path, both, ["ins" if t in set(INSP) else "exp" for t in both])
    ann = wfdb.rdann(str(base), "breath")
    assert set(ann.symbol) == {"ins", "exp"} and not any(ann.aux_note)  # really symbols
    rec, warned = _read(base)
    assert not warned
    np.testing.assert_allclose(rec.breath_times, EXP)
    assert "end of inspiration 'exp' of exp, ins" in rec.breath_source


def test_plain_symbols_are_all_breaths(tmp_path):
    base = _record(tmp_path)
    wfdb.wrann("rec", "breath", sample=np.round(EXP * FS).astype(int), symbol=["N"] * EXP.size,
               fs=FS, write_dir=str(tmp_path))
    rec, warned = _read(base)
    assert not warned and rec.breath_source == f"rec.breath: label 'N'; {EXP.size} breaths"
    np.testing.assert_allclose(rec.breath_times, EXP)


def test_the_second_annotator_alone_is_taken(tmp_path):
    base = _record(tmp_path)
    wfdb.wrann("rec", "breath", sample=np.round(EXP * FS).astype(int), symbol=['"'] * EXP.size,
               aux_note=["ann2"] * EXP.size, fs=FS, write_dir=str(tmp_path))
    rec, warned = _read(base)
    assert not warned and rec.breath_source == f"rec.breath: label 'ann2'; {EXP.size} breaths"


def test_starts_of_inspiration_alone_are_named_as_such(tmp_path):
    """A file of ``insp`` only gives the starts of inspiration, not the ends the EDR's breaths
    mark: its source says so (the rate is the same, the times are not)."""
    base = _record(tmp_path)
    wfdb.wrann("rec", "breath", sample=np.round(INSP * FS).astype(int), symbol=['"'] * INSP.size,
               aux_note=["insp"] * INSP.size, fs=FS, write_dir=str(tmp_path))
    rec, warned = _read(base)
    assert not warned and rec.breath_source == (
        f"rec.breath: start of inspiration 'insp', the only label; {INSP.size} breaths")
    np.testing.assert_allclose(rec.breath_times, INSP)


def test_breath_times_of_ones_own_replace_a_files_starts_as_ends_of_inspiration(tmp_path):
    """Breath times given in place of a file of ``insp`` only are ends of inspiration (the
    ``time_s`` of the breaths CSV), not the point the file's labels marked."""
    from edr.io.reference import END_OF_INSPIRATION, START_OF_INSPIRATION

    base = _record(tmp_path)
    wfdb.wrann("rec", "breath", sample=np.round(INSP * FS).astype(int), symbol=['"'] * INSP.size,
               aux_note=["insp"] * INSP.size, fs=FS, write_dir=str(tmp_path))
    assert _read(base)[0].breath_event == START_OF_INSPIRATION
    rec, warned = _read(base, breath_times=EXP)
    assert not warned and rec.breath_source == f"given: {EXP.size} breaths"
    assert rec.breath_event == END_OF_INSPIRATION


def test_annotations_no_breathing_has_are_dropped_with_a_warning(tmp_path):
    base = _record(tmp_path)
    fast = np.arange(1.0, 100.0, 0.5)  # 120 /min
    wfdb.wrann("rec", "breath", sample=np.round(fast * FS).astype(int), symbol=['"'] * fast.size,
               fs=FS, write_dir=str(tmp_path))
    rec, warned = _read(base)
    assert rec.breath_times is None and rec.breath_source is None
    assert len(warned) == 1 and "are shorter than 1 s" in warned[0]
    np.testing.assert_array_equal(rec.ecg, _read(base)[0].ecg)  # the record itself is read


@pytest.mark.parametrize("content", [b"", b"\x00", b"not an annotation file\n" * 3])
def test_an_unreadable_annotation_file_is_warned_about(tmp_path, content):
    base = _record(tmp_path)
    (tmp_path / "rec.breath").write_bytes(content)
    rec, warned = _read(base)
    assert rec.breath_times is None and rec.ecg.size == N and rec.resp_channel == "RESP"
    assert len(warned) == 1 and warned[0].startswith("breath annotations ")
    assert "rec.breath not used: " in warned[0] and "\n" not in warned[0]


@pytest.mark.realdata
def test_random_bytes_are_never_a_reference_nor_an_error(tmp_path, bidmc_dir):
    for ext in ("hea", "dat"):
        shutil.copy(bidmc_dir / f"bidmc01.{ext}", tmp_path / f"bidmc01.{ext}")
    base = tmp_path / "bidmc01"
    for seed in range(300):
        noise = np.random.default_rng(seed).integers(0, 256, 300, dtype=np.uint8).tobytes()
        (tmp_path / "bidmc01.breath").write_bytes(noise)
        if seed < 20:  # the whole record: read, without breath times
            rec, warned = _read(base)
            assert rec.breath_times is None and rec.ecg.size == 60001, seed
        else:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                times, source = read_breath_annotations(base, fs=125.0, duration_s=480.0)
            assert times is None and source is None, seed
            warned = [str(w.message) for w in _reference_warnings(caught)]
        assert len(warned) == 1 and "\n" not in warned[0], (seed, warned)


@pytest.mark.parametrize(("text", "expected"), [
    ("2.5\n6.1\n9.8\n", [2.5, 6.1, 9.8]),                                  # one per line
    ("# from my detector\nbreath\n2.5\n6.1\n", [2.5, 6.1]),                # a header, one column
    ("time_s,interval_s,quality\n2.5,nan,0.9\n6.1,3.6,0.9\n", [2.5, 6.1]),  # edr's breaths CSV
    ("n;t [ms]\n1;2500\n2;6100\n", [2.5, 6.1]),                            # its unit is read
    ("id\ttime\n1\t2,5\n2\t6,1\n", [2.5, 6.1]),                            # decimal commas
    ('"onset_s"\r\n"2.5"\r\n"6.1"\r\n', [2.5, 6.1]),                       # quoted, CRLF
])
def test_breath_times_from_a_file_of_ones_own(tmp_path, text, expected):
    from edr.io.breath_times import breath_times_file

    path = tmp_path / "b.csv"
    path.write_text(text, newline="")
    np.testing.assert_allclose(breath_times_file(path), expected)


def test_breath_times_files_that_hold_none_are_named(tmp_path):
    from edr.io.breath_times import breath_times_file

    with pytest.raises(FileNotFoundError, match="breath times file not found"):
        breath_times_file(tmp_path / "none.csv")
    (tmp_path / "a.csv").write_text("start,stop\n1,2\n")
    with pytest.raises(RecordError, match=r"has columns start, stop, none named as a time: name "
                                          r"the column of breath times time_s"):
        breath_times_file(tmp_path / "a.csv")
    (tmp_path / "b.csv").write_text("time_s\n1.0\nsoon\n")
    with pytest.raises(RecordError, match=r"'soon' is not a time in seconds"):
        breath_times_file(tmp_path / "b.csv")
    (tmp_path / "c.csv").write_text("time_s\n")
    with pytest.raises(RecordError, match=r"holds no time"):
        breath_times_file(tmp_path / "c.csv")


def test_breath_times_given_with_a_path_replace_the_files_own(tmp_path):
    from edr.io.arrays import as_recording

    t = np.arange(15000) / 250.0
    pd.DataFrame({"time": t, "II": np.sin(t), "RESP": np.cos(t)}).to_csv(tmp_path / "r.csv",
                                                                         index=False)
    (tmp_path / "own.csv").write_text("time_s\n" + "".join(f"{b}\n" for b in range(2, 58, 4)))
    for rec in (read_record(tmp_path / "r.csv", breath_times=tmp_path / "own.csv"),
                as_recording(tmp_path / "r.csv", breath_times=str(tmp_path / "own.csv"))):
        assert rec.breath_source == f"{tmp_path / 'own.csv'}: 14 breaths"
        np.testing.assert_array_equal(rec.breath_times, np.arange(2, 58, 4))
        assert rec.resp_channel == "RESP"
    given = read_record(tmp_path / "r.csv", breath_times=[3.0, 7.0, 11.0])
    assert given.breath_source == "given: 3 breaths"
    with pytest.warns(ReferenceWarning, match=r"breath times .*own2\.csv not used: times outside "
                                              r"the record"):
        (tmp_path / "own2.csv").write_text("5\n90\n")
        out = read_record(tmp_path / "r.csv", breath_times=tmp_path / "own2.csv")
    assert out.breath_times is None and out.breath_source is None
