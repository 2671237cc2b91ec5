"""Each record's own side file, named once for many records: an annotator name or a pattern.

A side file is a file of one's own that goes with one record: its R peaks (``--r-peaks``),
its breath times (``--breath-times``). For many records one option value names every
record's file, in one of two forms (:func:`side_file_form`):

* an **annotator name** (``qrs``, ``atr``): the record's own WFDB annotation file
  ``<record>.<annotator>`` beside its header;
* a **pattern** with the placeholders ``{record}`` (the record's name,
  :func:`edr.io.paths.record_name`) and ``{dir}`` (the record's folder):
  ``'refs/{record}_breaths.csv'``, ``'{dir}/{record}.peaks.csv'``.

One plain file cannot be every record's; :func:`side_file_form` says so (``"file"``) and the
command line refuses it. :func:`side_file` gives one record's file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from edr.io.paths import record_kind, record_name, resolve_record

__all__ = ["PLACEHOLDERS", "side_file", "side_file_form"]

PLACEHOLDERS = ("{record}", "{dir}")
"""The placeholders of a side-file pattern: the record's name and its folder."""

_ANNOTATOR_NAME = re.compile(r"[A-Za-z0-9_]+")


def side_file_form(value: str) -> str:
    """Which form an option value naming side files has: ``"pattern"``, ``"annotator"`` or
    ``"file"``.

    Parameters
    ----------
    value : str
        The option's value.

    Returns
    -------
    str
        ``"pattern"`` when it holds a placeholder of :data:`PLACEHOLDERS`; ``"annotator"`` when
        it is a bare name of letters, digits and ``_`` (no folder, no extension) that is no
        existing file; else ``"file"`` (one file, a single record's).

    See Also
    --------
    side_file : one record's file.

    Examples
    --------
    >>> from edr.io.side_files import side_file_form
    >>> side_file_form("refs/{record}_breaths.csv"), side_file_form("qrs")
    ('pattern', 'annotator')
    >>> side_file_form("peaks.csv")
    'file'
    """
    if any(p in value for p in PLACEHOLDERS):
        return "pattern"
    if _ANNOTATOR_NAME.fullmatch(value) and not os.path.exists(value):
        return "annotator"
    return "file"


def side_file(value: str, record: str | os.PathLike) -> str:
    """The side file of ``record`` that ``value`` names.

    Parameters
    ----------
    value : str
        A pattern (``{record}`` and ``{dir}`` replaced by the record's name and folder), an
        annotator name (``<record>.<annotator>`` beside the record's header) or a file (itself),
        as told by :func:`side_file_form`.
    record : str or os.PathLike
        The record's path (any of a WFDB record's files).

    Returns
    -------
    str
        The file's path (not checked to exist: the reader that opens it names what is missing).

    Raises
    ------
    FileNotFoundError, RecordError
        A WFDB record whose header is missing (:func:`edr.io.paths.record_name`).

    See Also
    --------
    side_file_form, edr.io.r_peaks.r_peaks_file, edr.io.breath_times.breath_times_file

    Examples
    --------
    >>> from edr.io.side_files import side_file
    >>> side_file("refs/{record}_breaths.csv", "data/holter.edf")
    'refs/holter_breaths.csv'
    >>> side_file("{dir}/{record}.peaks.csv", "data/holter.edf")
    'data/holter.peaks.csv'
    >>> side_file("qrs", "data/holter.edf")
    'data/holter.qrs'
    """
    form = side_file_form(value)
    if form == "file":
        return value
    name = record_name(record)
    folder = resolve_record(record).parent if record_kind(record) == "wfdb" else Path(record).parent
    if form == "annotator":
        return (folder / f"{name}.{value}").as_posix()
    return value.replace("{record}", name).replace("{dir}", folder.as_posix())
