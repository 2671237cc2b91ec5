"""R-peak times of one's own: a WFDB beat annotator, a text file or an array, checked and put on a
recording.

The times are the beats of every analysis window in place of detected ones
(:func:`edr.beats.detect`'s ``peaks``: each moved onto R, then aligned and flagged as detected
ones are). Times beyond the record, out of order or of integers whose unit is not said are
refused; repeated times are dropped with a warning.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np

from edr.errors import RecordError
from edr.io.breath_times import time_file_column
from edr.io.time_axis import time_unit

__all__ = ["SAMPLE_COLUMNS", "checked_r_peaks", "r_peaks_file", "with_r_peaks"]

SAMPLE_COLUMNS = ("sample", "samples", "sample_index")
"""Column names (lower case) of R peaks given as sample numbers at the record's rate."""
_TEXT_SUFFIXES = (".csv", ".tsv", ".txt", ".gz")


def r_peaks_file(path, fs: float, record_path=None) -> tuple[np.ndarray, str]:
    """R-peak times (s from the record's first sample) from a file, and a one-line source.

    Parameters
    ----------
    path : str or os.PathLike
        A WFDB annotation file (``rec.qrs``, ``rec.atr``: its beat annotations, samples at its
        stated rate or ``fs``); a bare annotator name (``"atr"``) for the record's own
        ``<record>.atr``; or a text file (``.csv``, ``.tsv``, ``.txt``) of one time in s per
        line, or with a column ``time_s`` / ``time_ms`` (any time name,
        :func:`edr.io.time_axis.time_unit`) or ``sample`` (samples at ``fs``).
    fs : float
        The ECG's sampling rate (Hz).
    record_path : str or os.PathLike, optional
        The record's file: where a bare annotator name is looked for.

    Returns
    -------
    times : numpy.ndarray
        In the file's order.
    source : str
        ``"<file>: <n> R peaks"``.

    Raises
    ------
    FileNotFoundError
        No such file (nor ``<record>.<annotator>``).
    RecordError
        A text file of whole numbers without a unit (samples or seconds?), an annotation file
        for another sampling rate or without beats, or as :func:`time_file_column`.

    See Also
    --------
    with_r_peaks, edr.io.breath_times.time_file_column

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from edr.io.r_peaks import r_peaks_file
    >>> tmp = tempfile.TemporaryDirectory()
    >>> _ = (Path(tmp.name) / "r.csv").write_text("sample\\n250\\n460\\n")
    >>> r_peaks_file(Path(tmp.name) / "r.csv", fs=250.0)[0].tolist()
    [1.0, 1.84]
    >>> _ = (Path(tmp.name) / "n.txt").write_text("250\\n460\\n")
    >>> r_peaks_file(Path(tmp.name) / "n.txt", fs=250.0)
    Traceback (most recent call last):
    ...
    edr.errors.RecordError: R peaks file ... holds whole numbers without a unit: samples or ...
    >>> tmp.cleanup()
    """
    p = Path(path)
    if not p.is_file() and record_path is not None and p.name == str(path) and "." not in p.name:
        base = Path(record_path)
        base = base.with_suffix("") if base.suffix.lower() in (".hea", ".dat") else base
        p = base.with_name(f"{base.name}.{path}")
        if not p.is_file():
            raise FileNotFoundError(f"R peaks: no annotation file {p.name} beside the record "
                                    f"(--r-peaks {path} names the record's annotator)")
    if not p.is_file():
        raise FileNotFoundError(f"R peaks file not found: {p}")
    if p.suffix.lower() not in _TEXT_SUFFIXES and b"\0" in p.read_bytes()[:4096]:
        times = _annotator_times(p, fs)
    else:
        times = _text_times(p, fs)
    return times, f"{p.name}: {times.size} R peaks"


def _text_times(p: Path, fs: float) -> np.ndarray:
    """The times of a text file of R peaks (:func:`r_peaks_file`)."""
    values, name = time_file_column(p, "R peaks", also=SAMPLE_COLUMNS)
    if name is not None and name.strip().lower() in SAMPLE_COLUMNS:
        return values / fs
    unit = time_unit(name) if name is not None else None
    if unit is None and values.size > 1 and np.all(values == np.round(values)):
        raise RecordError(
            f"R peaks file {p} holds whole numbers without a unit: samples or seconds? Give the "
            f"column a header: sample (samples at {fs:g} Hz), time_s or time_ms")
    return values * (unit or 1.0)


def _annotator_times(p: Path, fs: float) -> np.ndarray:
    """The beat annotations of a WFDB annotation file, in s (:func:`r_peaks_file`)."""
    import wfdb
    from wfdb.io.annotation import ann_labels, is_qrs

    try:
        ann = wfdb.rdann(str(p.with_suffix("")), p.suffix[1:])
    except Exception as exc:  # wfdb raises bare ValueError/IndexError on what it cannot parse
        raise RecordError(f"R peaks file {p} is not a readable WFDB annotation file "
                          f"({type(exc).__name__}: {exc})") from exc
    if ann.fs and abs(float(ann.fs) - fs) > 1e-6 * fs:
        raise RecordError(f"R peaks file {p} is for another sampling rate: its samples are at "
                          f"{float(ann.fs):g} Hz, the ECG's at {fs:g} Hz")
    symbols = {a.symbol for a in ann_labels if is_qrs[a.label_store]}
    beats = np.isin(np.asarray(ann.symbol, dtype=object), list(symbols))
    if not beats.any():
        raise RecordError(f"R peaks file {p} holds no beat annotation (symbols: "
                          f"{', '.join(sorted(set(ann.symbol)))})")
    return np.asarray(ann.sample, dtype=float)[beats] / fs


def checked_r_peaks(times, duration_s: float, source: str = "r_peaks") -> np.ndarray:
    """R-peak times (s) checked against a record of ``duration_s``; repeats dropped (warned).

    Parameters
    ----------
    times : array_like
        Times in s from the record's first sample, in order.
    duration_s : float
        The record's length (s).
    source : str, default "r_peaks"
        What the times are, for the messages.

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    RecordError
        Not numbers, an integer array (samples or seconds?), a time that is not finite, before
        0 or after the record's end, or times out of order.

    Warns
    -----
    UserWarning
        Repeated times: each kept once.

    See Also
    --------
    with_r_peaks

    Examples
    --------
    >>> from edr.io.r_peaks import checked_r_peaks
    >>> checked_r_peaks([0.5, 1.3, 2.1], 10.0).tolist()
    [0.5, 1.3, 2.1]
    >>> checked_r_peaks([0.5, 1.3, 12.0], 10.0)
    Traceback (most recent call last):
    ...
    edr.errors.RecordError: r_peaks: 1 of 3 R-peak times lie after the record's end (10 s; ...
    """
    a = np.asarray(times)
    if a.dtype.kind in "iu":
        raise RecordError(f"{source}: integers: samples or seconds? Give times in s (for "
                          "samples: peaks / fs)")
    try:
        t = np.asarray(a, dtype=np.float64).ravel()
    except (TypeError, ValueError) as exc:
        raise RecordError(f"{source}: R-peak times must be numbers in s ({exc})") from exc
    if not np.all(np.isfinite(t)):
        raise RecordError(f"{source}: {int(np.sum(~np.isfinite(t)))} R-peak times are not finite")
    late, early = int(np.sum(t >= duration_s)), int(np.sum(t < 0))
    if late or early:
        where = (f"after the record's end ({duration_s:g} s; the last {t.max():g} s)" if late
                 else f"before its start (the first {t.min():g} s)")
        raise RecordError(f"{source}: {late or early} of {t.size} R-peak times lie {where}: "
                          "times in s from its first sample (or samples at another rate?)")
    step = np.diff(t)
    if np.any(step < 0):
        k = int(np.argmax(step < 0)) + 1
        raise RecordError(f"{source}: R-peak times out of order: {t[k]:g} s (number {k + 1}) "
                          f"after {t[k - 1]:g} s; sort them, or check the column")
    if np.any(step == 0):
        warnings.warn(f"{source}: {int(np.sum(step == 0))} repeated R-peak times dropped (each "
                      "kept once)", UserWarning, stacklevel=3)
        t = np.unique(t)
    return t


def with_r_peaks(recording, r_peaks):
    """``recording`` with R-peak times of one's own: its beats in place of detected ones.

    Parameters
    ----------
    recording : Recording
        The recording (:func:`edr.io.read_record`, :func:`edr.io.arrays.as_recording`).
    r_peaks : array_like or str or os.PathLike
        Times in s from its first sample, or a file of them (:func:`r_peaks_file`: a WFDB
        annotator, or ``"atr"`` for the record's own, or a text file).

    Returns
    -------
    Recording
        A copy with ``r_peaks`` (s) and ``r_peaks_source``.

    Raises
    ------
    FileNotFoundError, RecordError
        As :func:`r_peaks_file` and :func:`checked_r_peaks`.

    See Also
    --------
    r_peaks_file, checked_r_peaks, edr.beats.detect

    Examples
    --------
    >>> from edr.io.r_peaks import with_r_peaks
    >>> from edr.simulate import simulate_recording
    >>> rec = with_r_peaks(simulate_recording(30.0, 250.0, random_state=0), [0.9, 1.8, 2.6])
    >>> rec.r_peaks_source, rec.r_peaks.tolist()
    ('given: 3 R peaks', [0.9, 1.8, 2.6])
    """
    if isinstance(r_peaks, (str, os.PathLike)):
        times, source = r_peaks_file(r_peaks, recording.fs, getattr(recording, "path", None))
    else:
        times, source = r_peaks, f"given: {np.size(r_peaks)} R peaks"
    duration = np.asarray(recording.ecg).size / recording.fs
    origin = source.split(":")[0]
    t = checked_r_peaks(times, duration, origin)
    return replace(recording, r_peaks=t, r_peaks_source=f"{origin}: {t.size} R peaks")
