"""A reference respiration from a file of its own: read, aligned on a recording, put on it.

A respiration recorded by another device (a belt, a spirometer, a ventilator's export) comes
in a file apart from the ECG. :func:`read_reference_file` reads its respiration channel: a CSV
(a time column as :func:`edr.io.csv_reader.read_csv` reads them, or one column and ``fs``), a
WFDB record or an EDF file. :func:`with_reference_file` puts it on a recording as its ``resp``:
its first sample at the ECG's first sample, or ``offset_s`` after it, and refuses what cannot
be the same stretch of time (:func:`check_alignment`):

* lengths that differ by more than :data:`LENGTH_TOLERANCE_S` plus
  :data:`LENGTH_TOLERANCE_SHARE` of the record, without an offset (two stretches of time, or a
  wrong rate);
* a CSV time column that does not start at 0, without an offset (the clock of which device?);
* an overlap shorter than the caller's ``min_overlap_s`` (``edr extract``: one rate window).

Outside the overlap the reference is missing (NaN), as a gap of a record's own respiration
channel is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from edr.errors import RecordError

__all__ = ["LENGTH_TOLERANCE_S", "LENGTH_TOLERANCE_SHARE", "ReferenceFile", "check_alignment",
           "read_reference_file", "with_reference_file"]

LENGTH_TOLERANCE_S = 1.0
"""Seconds by which a reference file may differ in length from the record without an offset
(plus :data:`LENGTH_TOLERANCE_SHARE` of the record): a device that starts or stops a moment
apart."""

LENGTH_TOLERANCE_SHARE = 0.01
"""Share of the record's length a reference file may differ by without an offset (plus
:data:`LENGTH_TOLERANCE_S`): two clocks that drift apart."""


@dataclass(frozen=True)
class ReferenceFile:
    """The respiration of a reference file: ``resp`` at ``fs`` Hz, from its ``channel``;
    ``start_s`` the time its own clock gives its first sample (None without a time column);
    ``source`` one line naming the file and channel."""

    resp: np.ndarray
    fs: float
    channel: str
    start_s: float | None
    source: str

    @property
    def duration_s(self) -> float:
        """Its length (s)."""
        return self.resp.size / self.fs


def _channel(names: list[str], channel: str | None, path: Path) -> int:
    """The respiration column: ``channel`` if given, else a respiration name, else the only
    column."""
    from edr.io.channels import choose_resp

    i = choose_resp(names, channel, source=str(path))
    if i is not None:
        return i
    if len(names) == 1:
        return 0
    raise RecordError(f"reference file {path} has channels {', '.join(names)}, none named as a "
                      "respiration (RESP, THOR, FLOW, ...): choose one with --ref-channel NAME")


def _csv_reference(path: Path, channel: str | None, fs: float | None) -> ReferenceFile:
    from edr.io.csv_reader import csv_table
    from edr.io.time_axis import INDEX_COLUMNS, fs_from_time

    names, _, data, time_idx, seconds = csv_table(path)
    columns = [i for i, n in enumerate(names) if i != time_idx and n.lower() not in INDEX_COLUMNS]
    if not columns:
        raise RecordError(f"reference file {path} has a time column and no signal column")
    k = columns[_channel([names[i] for i in columns], channel, path)]
    start = None
    if time_idx is not None:
        t = data[:, time_idx] * seconds
        fs_t = fs_from_time(t, source=str(path), column=names[time_idx])
        if fs is not None and abs(fs - fs_t) > 0.01 * fs_t:
            raise RecordError(f"--ref-fs {fs:g} Hz disagrees with the {fs_t:g} Hz of time column "
                              f"{names[time_idx]!r} of {path}")
        fs, start = fs_t, float(t[0])
    if fs is None:
        raise RecordError(f"reference file {path} has no time column: give its sampling rate "
                          "with --ref-fs HZ")
    return ReferenceFile(data[:, k].astype(np.float64), float(fs), names[k], start,
                         f"{path.name}: {names[k]}")


def _signal_file_reference(path: Path, kind: str, channel: str | None) -> ReferenceFile:
    from edr.io.channels import clean_name

    if kind == "edf":
        import edfio

        edf = edfio.read_edf(path)
        signals = [(clean_name(s.label), np.asarray(s.data, np.float64), s.sampling_frequency)
                   for s in edf.signals]
    else:
        import wfdb

        from edr.io.paths import resolve_record

        rec = wfdb.rdrecord(str(resolve_record(path)))
        signals = [(clean_name(n), rec.p_signal[:, i].astype(np.float64), rec.fs)
                   for i, n in enumerate(rec.sig_name)]
    names = [s[0] for s in signals]
    name, resp, fs = signals[_channel(names, channel, path)]
    return ReferenceFile(resp, float(fs), name, None, f"{path.name}: {name}")


def read_reference_file(path, *, channel: str | None = None, fs: float | None = None
                        ) -> ReferenceFile:
    """The respiration channel of a reference file.

    Parameters
    ----------
    path : str or os.PathLike
        A CSV file (``.csv``, ``.tsv``, ``.txt``, ``.csv.gz``: a time column and the
        respiration, or the respiration alone and ``fs``), a WFDB record (``rec.hea``) or an EDF
        file.
    channel : str, optional
        Its respiration channel (any case); default: the first respiration name
        (:func:`edr.io.channels.choose_resp`), else the only channel.
    fs : float, optional
        Its sampling rate (Hz): needed for a CSV file without a time column; else it must agree
        with the time column's.

    Returns
    -------
    ReferenceFile

    Raises
    ------
    FileNotFoundError
        No such file.
    RecordError
        A NumPy file, a CSV file without a time column and no ``fs``, or whose time column
        disagrees with ``fs``; several channels none named as a respiration; as
        :func:`edr.io.csv_reader.csv_table`.

    See Also
    --------
    with_reference_file : the reference put on a recording.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from edr.io.reference_file import read_reference_file
    >>> tmp = tempfile.TemporaryDirectory()
    >>> _ = (Path(tmp.name) / "belt.csv").write_text("belt\\n0.1\\n0.3\\n0.2\\n")
    >>> ref = read_reference_file(Path(tmp.name) / "belt.csv", fs=25.0)
    >>> ref.channel, ref.fs, ref.duration_s, ref.start_s
    ('belt', 25.0, 0.12, None)
    >>> tmp.cleanup()
    """
    from edr.io.paths import record_kind

    p = Path(path)
    kind = record_kind(p)
    if kind == "numpy":
        raise RecordError(f"reference file {p}: a NumPy file holds no channel names; give a CSV "
                          "file, a WFDB record or an EDF file")
    if kind != "wfdb" and not p.is_file():
        raise FileNotFoundError(f"reference file not found: {p}")
    if kind == "csv":
        return _csv_reference(p, channel, fs)
    return _signal_file_reference(p, kind, channel)


def check_alignment(record_s: float, ref: ReferenceFile, offset_s: float | None,
                    min_overlap_s: float) -> float:
    """The offset (s) of a reference file's first sample after the record's, checked.

    Parameters
    ----------
    record_s : float
        The record's length (s).
    ref : ReferenceFile
        The reference (:func:`read_reference_file`).
    offset_s : float or None
        Its first sample's time after the record's first sample (negative: before); None: the
        same first sample.
    min_overlap_s : float
        The shortest overlap accepted (s).

    Returns
    -------
    float
        ``offset_s``, 0 when None.

    Raises
    ------
    RecordError
        Without an offset: lengths that differ by more than :data:`LENGTH_TOLERANCE_S` +
        :data:`LENGTH_TOLERANCE_SHARE` of the record, or a time column that does not start at
        0; any overlap under ``min_overlap_s``.

    See Also
    --------
    with_reference_file

    Examples
    --------
    >>> import numpy as np
    >>> from edr.io.reference_file import ReferenceFile, check_alignment
    >>> ref = ReferenceFile(np.zeros(3000), 25.0, "RESP", None, "belt.csv: RESP")
    >>> check_alignment(120.0, ref, None, 32.0)
    0.0
    >>> check_alignment(120.0, ref, 100.0, 32.0)
    Traceback (most recent call last):
    ...
    edr.errors.RecordError: reference belt.csv: RESP overlaps the record by 20 s ...
    """
    if offset_s is None:
        if ref.start_s is not None and abs(ref.start_s) > 0.5 / ref.fs:
            raise RecordError(
                f"reference {ref.source}: its time column starts at {ref.start_s:g} s, not 0: "
                "give --ref-offset S, its first sample's time in s after the ECG's first")
        gap = abs(ref.duration_s - record_s)
        if gap > LENGTH_TOLERANCE_S + LENGTH_TOLERANCE_SHARE * record_s:
            raise RecordError(
                f"reference {ref.source} lasts {ref.duration_s:g} s, the record {record_s:g} s: "
                "not the same stretch of time (or a wrong --ref-fs); give --ref-offset S, its "
                "first sample's time in s after the ECG's first, to align them")
        offset_s = 0.0
    overlap = min(record_s, offset_s + ref.duration_s) - max(0.0, offset_s)
    if overlap < min_overlap_s:
        raise RecordError(
            f"reference {ref.source} overlaps the record by {max(overlap, 0.0):g} s with "
            f"--ref-offset {offset_s:g}; at least {min_overlap_s:g} s are needed: check the "
            "offset and the files")
    return float(offset_s)


def with_reference_file(recording, path, *, min_overlap_s: float, offset_s: float | None = None,
                        fs: float | None = None, channel: str | None = None):
    """``recording`` with the respiration of a reference file as its ``resp``.

    Parameters
    ----------
    recording : Recording
        The recording (:func:`edr.io.read_record`).
    path : str or os.PathLike
        The reference file (:func:`read_reference_file`).
    min_overlap_s : float
        The shortest overlap with the record accepted (s); ``edr extract`` gives one rate window,
        :data:`edr.signal.RATE_WINDOW_S`.
    offset_s : float, optional
        The time (s) of its first sample after the ECG's first (negative: before); default:
        the same first sample, checked (:func:`check_alignment`).
    fs, channel
        As :func:`read_reference_file`.

    Returns
    -------
    Recording
        A copy whose ``resp`` is the reference at its own rate, on the ECG's time (NaN outside
        the overlap, cut at the record's end), ``resp_fs`` its rate and ``resp_channel``
        ``"<file>: <channel>"``.

    Raises
    ------
    FileNotFoundError, RecordError
        As :func:`read_reference_file` and :func:`check_alignment`.

    See Also
    --------
    read_reference_file, check_alignment

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from edr.io.reference_file import with_reference_file
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(60.0, 250.0, random_state=0)
    >>> tmp = tempfile.TemporaryDirectory()
    >>> belt = Path(tmp.name) / "belt.csv"
    >>> np.savetxt(belt, rec.resp[::10], header="belt", comments="")
    >>> own = with_reference_file(rec, belt, min_overlap_s=32.0, fs=25.0, offset_s=-10.0)
    >>> own.resp_channel, own.resp_fs, own.resp.size, int(np.isnan(own.resp).sum())
    ('belt.csv: belt', 25.0, 1500, 250)
    >>> tmp.cleanup()
    """
    ref = read_reference_file(path, channel=channel, fs=fs)
    record_s = recording.duration_s
    offset = check_alignment(record_s, ref, offset_s, min_overlap_s)
    n = int(round(record_s * ref.fs))
    shift = int(round(offset * ref.fs))
    resp = np.full(n, np.nan)
    lo, hi = max(shift, 0), min(n, shift + ref.resp.size)
    resp[lo:hi] = ref.resp[lo - shift:hi - shift]
    return replace(recording, resp=resp, resp_fs=ref.fs, resp_channel=ref.source)
