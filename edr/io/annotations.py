"""Breaths as files: a WFDB annotation file (``<record>.edrbr``) that ``wfdb.rdann`` reads,
and a CSV of one row per breath.

**WFDB annotations.** One annotation per breath (:class:`edr.breaths.Breaths`), at the sample
of its end of inspiration (``round(time_s * fs)``), with the symbol ``"`` (a comment
annotation, as the BIDMC and MARSH breath annotations use) and an ``aux_note`` of the form
``q=0.93`` followed by the breath's flags that are set, space-separated: ``low_quality``,
``after_gap`` (no interval: the previous breath lies across a masked stretch, or there is
none), ``after_pause`` (the interval before it is a pause, from the previous breath to this
one), ``uncertain_polarity`` (no significant evidence told which extrema end inspiration).
A record without a breath gets an annotation file holding only the end-of-file mark (WFDB
cannot write an empty one; ``wfdb.rdann`` reads it as no annotation).

**CSV.** The header :data:`BREATH_COLUMNS` (``time_s,onset_s,interval_s,quality,low_quality,
after_gap,after_pause,uncertain_polarity``), then one row per breath
(:func:`breath_csv_lines`): ``time_s`` the end of inspiration and ``onset_s`` the start of
inspiration before it (:attr:`edr.breaths.Breaths.onset`; ``nan`` where none), times and
intervals in s with 6 decimals (``nan`` for the interval of a breath after a gap), the quality
with 4, the flags as ``1``/``0``. The offline writer
(:func:`write_breath_csv`) and the stream (:mod:`edr.stream.sinks`) write the same rows.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np

from edr.io.writers import temporary_folder

__all__ = ["BREATH_ANNOTATION_EXTENSION", "BREATH_COLUMNS", "BREATH_SYMBOL", "breath_aux_notes",
           "breath_csv_lines", "write_breath_annotation_file", "write_breath_annotations",
           "write_breath_csv"]

BREATH_COLUMNS = ("time_s", "onset_s", "interval_s", "quality", "low_quality", "after_gap",
                  "after_pause", "uncertain_polarity")
"""Columns of a breath table (:meth:`edr.breaths.Breaths.to_frame`) and of the breath CSV."""

BREATH_ANNOTATION_EXTENSION = "edrbr"
"""Extension of the breath annotation files written by :func:`write_breath_annotations`."""

BREATH_SYMBOL = '"'
"""WFDB annotation symbol of a breath."""

_QUALITY_FLAGS = ("low_quality", "after_gap", "after_pause", "uncertain_polarity")


def breath_aux_notes(breaths) -> list[str]:
    """The ``aux_note`` of every breath: ``q=<quality, 2 decimals>`` and its set flags.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from edr.io.annotations import breath_aux_notes
    >>> b = SimpleNamespace(quality=np.array([0.93, 0.4]), low_quality=np.array([False, True]),
    ...                     after_gap=np.array([True, False]),
    ...                     after_pause=np.array([False, True]))
    >>> breath_aux_notes(b)
    ['q=0.93 after_gap', 'q=0.40 low_quality after_pause']
    """
    quality = np.asarray(breaths.quality, dtype=float)
    flags = [np.asarray(getattr(breaths, f, np.zeros(quality.size, bool)), dtype=bool)
             for f in _QUALITY_FLAGS]
    notes = []
    for i, q in enumerate(quality):
        set_flags = [name for name, v in zip(_QUALITY_FLAGS, flags, strict=True) if v[i]]
        notes.append(" ".join([f"q={q:.2f}", *set_flags]))
    return notes


def write_breath_annotations(path, breaths, fs: float, *,
                             extension: str = BREATH_ANNOTATION_EXTENSION) -> Path:
    """Write ``breaths`` as the WFDB annotation file ``<path>.<extension>``.

    Parameters
    ----------
    path : str or Path
        The record's path without extension (``out/rec`` writes ``out/rec.edrbr``); its folder
        must exist.
    breaths : edr.breaths.Breaths
        ``time`` (s from the record's start), ``quality`` and the flags.
    fs : float
        Sampling rate (Hz) the annotation samples count in (the ECG's, to sit beside its
        record).
    extension : str, default :data:`BREATH_ANNOTATION_EXTENSION`

    Returns
    -------
    Path
        The file written. ``wfdb.rdann(str(path), extension)`` reads it back: ``sample``,
        ``symbol`` (:data:`BREATH_SYMBOL`), ``aux_note`` (:func:`breath_aux_notes`), ``fs``.

    Raises
    ------
    ValueError
        ``fs`` not a positive number, a negative or non-finite breath time, no breath (WFDB
        cannot write an empty annotation file), or a record name or extension WFDB cannot
        write.
    FileNotFoundError
        The folder of ``path`` does not exist.

    See Also
    --------
    write_breath_annotation_file : the same under any file name, also for a record without a
        breath.
    write_breath_csv : the same breaths as a CSV table.
    edr.io.wfdb_reader.read_breath_annotations : reads breath annotations as a reference.
    edr.breaths.detect_breaths : the breaths written.

    Examples
    --------
    >>> import tempfile, os, numpy as np, wfdb
    >>> from edr.breaths import Breaths
    >>> from edr.io.annotations import write_breath_annotations
    >>> b = Breaths(np.array([1.0, 5.0]), np.array([np.nan, 4.0]), np.array([0.9, 0.8]),
    ...             np.zeros(2, bool), np.array([True, False]), np.zeros(2, bool),
    ...             np.empty((0, 2)), np.empty((0, 2)), 1)
    >>> folder = tempfile.mkdtemp()
    >>> _ = write_breath_annotations(os.path.join(folder, "rec"), b, 250.0)
    >>> ann = wfdb.rdann(os.path.join(folder, "rec"), "edrbr")
    >>> ann.sample.tolist(), ann.aux_note
    ([250, 1250], ['q=0.90 after_gap', 'q=0.80'])
    """
    if not (np.isfinite(fs) and fs > 0):
        raise ValueError(f"fs={fs!r} must be a positive number of Hz")
    time = np.asarray(breaths.time, dtype=float)
    if not np.all(np.isfinite(time)) or np.any(time < 0):
        raise ValueError("breath times must be finite and not negative to be WFDB samples")
    if time.size == 0:
        raise ValueError("no breaths to write: a WFDB annotation file holds at least one "
                         "annotation")
    path = Path(path)
    folder, name = path.parent, path.name
    if not folder.is_dir():
        raise FileNotFoundError(f"folder {folder} of the annotation file does not exist")
    import wfdb

    tmp_dir = temporary_folder(folder, name)
    try:
        try:
            wfdb.wrann(name, extension, np.round(time * fs).astype(np.int64),
                       symbol=[BREATH_SYMBOL] * time.size, aux_note=breath_aux_notes(breaths),
                       fs=float(fs), write_dir=str(tmp_dir))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"cannot write WFDB annotations {name}.{extension}: {exc}") from exc
        target = folder / f"{name}.{extension}"
        os.replace(tmp_dir / f"{name}.{extension}", target)
    finally:
        shutil.rmtree(tmp_dir, ignore_errors=True)
    return target


def breath_csv_lines(breaths) -> list[str]:
    """One CSV line (newline included) per breath, in the columns :data:`BREATH_COLUMNS`.

    See Also
    --------
    write_breath_csv : writes the header and these lines to a file.
    edr.stream.sinks.StreamOutputs.write_breaths : the stream's breath CSV, from these lines.
    edr.breaths.Breaths.columns : the values the lines print.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.breaths import Breaths
    >>> from edr.io.annotations import breath_csv_lines
    >>> b = Breaths(np.array([1.0, 5.0]), np.array([np.nan, 4.0]), np.array([0.9, 0.8]),
    ...             np.zeros(2, bool), np.array([True, False]), np.zeros(2, bool),
    ...             np.empty((0, 2)), np.empty((0, 2)), 1)
    >>> print("".join(breath_csv_lines(b)), end="")
    1.000000,nan,nan,0.9000,0,1,0,0
    5.000000,nan,4.000000,0.8000,0,0,0,0
    """
    cols = breaths.columns()
    values = [np.asarray(cols[c]) for c in BREATH_COLUMNS]
    flags = [np.asarray(v, dtype=bool).astype(int) for v in values[4:]]
    return [f"{t:.6f},{on:.6f},{iv:.6f},{q:.4f}," + ",".join(str(f[i]) for f in flags) + "\n"
            for i, (t, on, iv, q) in enumerate(zip(*values[:4], strict=True))]


def write_breath_csv(path, breaths) -> Path:
    """Write ``breaths`` as CSV (header :data:`BREATH_COLUMNS`, rows :func:`breath_csv_lines`)
    atomically (:func:`edr.io.writers.atomic_path`); a record without a breath gets the header
    alone.

    Returns
    -------
    Path
        ``path``.

    See Also
    --------
    breath_csv_lines : the rows.
    edr.breaths.Breaths.to_frame : the same columns as a pandas DataFrame.
    write_breath_annotations : the same breaths as WFDB annotations.

    Examples
    --------
    >>> import tempfile, numpy as np, pandas as pd
    >>> from pathlib import Path
    >>> from edr.breaths import Breaths
    >>> from edr.io.annotations import write_breath_csv
    >>> b = Breaths(np.array([1.0, 5.0]), np.array([np.nan, 4.0]), np.array([0.9, 0.8]),
    ...             np.zeros(2, bool), np.array([True, False]), np.zeros(2, bool),
    ...             np.empty((0, 2)), np.empty((0, 2)), 1)
    >>> out = write_breath_csv(Path(tempfile.mkdtemp()) / "rec_breaths.csv", b)
    >>> pd.read_csv(out)["interval_s"].tolist()
    [nan, 4.0]
    """
    from edr.io.writers import atomic_path

    path = Path(path)
    with atomic_path(path) as tmp:
        tmp.write_text(",".join(BREATH_COLUMNS) + "\n" + "".join(breath_csv_lines(breaths)))
    return path


def write_breath_annotation_file(path, breaths, fs: float) -> Path:
    """Write ``breaths`` as the WFDB annotation file ``path`` itself, whatever its name: the
    extension is its suffix (``out/rec.edrbr`` is read by ``wfdb.rdann("out/rec", "edrbr")``).
    Without a breath, the file holds the end-of-file mark only. The file is written in a
    temporary folder beside it and moved into place (:func:`write_breath_annotations`).

    Raises
    ------
    ValueError
        ``path`` has no suffix, or :func:`write_breath_annotations` refuses the breaths.

    See Also
    --------
    write_breath_annotations : writes ``<record>.<extension>``; refuses no breath.
    write_breath_csv : the same breaths as a CSV table.
    edr.io.wfdb_reader.read_breath_annotations : reads breath annotations as a reference.

    Examples
    --------
    >>> import tempfile, numpy as np, wfdb
    >>> from pathlib import Path
    >>> from edr.breaths import Breaths
    >>> from edr.io.annotations import write_breath_annotation_file
    >>> b = Breaths(np.array([1.0, 5.0]), np.array([np.nan, 4.0]), np.array([0.9, 0.8]),
    ...             np.zeros(2, bool), np.array([True, False]), np.zeros(2, bool),
    ...             np.empty((0, 2)), np.empty((0, 2)), 1)
    >>> out = write_breath_annotation_file(Path(tempfile.mkdtemp()) / "rec.edrbr", b, 125.0)
    >>> wfdb.rdann(str(out.with_suffix("")), "edrbr").sample.tolist()
    [125, 625]
    """
    path = Path(path)
    extension = path.suffix.removeprefix(".")
    if not extension:
        raise ValueError(f"{str(path)!r} has no extension: WFDB annotation files are read by "
                         f"record name and extension (e.g. rec.{BREATH_ANNOTATION_EXTENSION})")
    if np.size(breaths.time) == 0:
        path.write_bytes(b"\x00\x00")
        return path
    tmp_dir = temporary_folder(path.parent, path.name)
    try:
        written = write_breath_annotations(tmp_dir / "breaths", breaths, fs, extension=extension)
        os.replace(written, path)
    finally:
        shutil.rmtree(tmp_dir, ignore_errors=True)
    return path
