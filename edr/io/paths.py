"""Which reader a record path needs, and the checks that need no signal library.

Everything here uses the standard library only, so a command-line tool can
reject a missing file, an annotation file given as a record or a folder
before it pays for importing NumPy, wfdb or NeuroKit2.

A WFDB data file given explicitly (``rec.dat``, ``mixedsignals_e.dat``) must
be one its header stores signals in: any other file next to a header (the
``.breath`` or ``.atr`` annotations, a ``.png``) is refused instead of being
read silently as the record.
"""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

from edr.errors import RecordError

__all__ = ["EDF_SUFFIXES", "CSV_SUFFIXES", "NUMPY_SUFFIXES", "READER_SUFFIXES", "formats_text",
           "reader_suffix", "record_kind", "resolve_record", "check_record_path", "record_name",
           "record_files"]

#: Extensions read by the EDF reader (EDF, EDF+C, and 24-bit BDF).
EDF_SUFFIXES = (".edf", ".bdf")
#: Extensions read as delimited text (gzip-compressed too).
CSV_SUFFIXES = (".csv", ".txt", ".tsv", ".csv.gz", ".txt.gz", ".tsv.gz")
#: Extensions read as NumPy arrays.
NUMPY_SUFFIXES = (".npy", ".npz")
READER_SUFFIXES = {"edf": ("EDF", EDF_SUFFIXES), "csv": ("CSV", CSV_SUFFIXES),
                   "numpy": ("NumPy", NUMPY_SUFFIXES)}
"""Every reader chosen by a file's extension: kind -> (the format's name, its extensions); any
other path is a WFDB record. :func:`edr.io.read_record` runs the reader of each kind."""
_WFDB_SUFFIXES = ("", ".hea", ".dat", ".mat")
_MULTI_FILE_SUFFIX = re.compile(r"_[A-Za-z0-9]+$")


def record_kind(path: str | Path) -> str:
    """``"edf"``, ``"csv"``, ``"numpy"`` or ``"wfdb"`` from the extension of ``path`` (anything
    else is WFDB)."""
    suffix = reader_suffix(path)
    return next((kind for kind, (_, suffixes) in READER_SUFFIXES.items() if suffix in suffixes),
                "wfdb")


def reader_suffix(path: str | Path) -> str:
    """The extension of ``path`` its reader is chosen by, lower-case: the last one, or the last
    two of a compressed file (``.csv.gz``).

    See Also
    --------
    record_kind : the reader it chooses.

    Examples
    --------
    >>> from edr.io.paths import reader_suffix
    >>> reader_suffix("ECG.CSV"), reader_suffix("holter.csv.gz"), reader_suffix("rec.hea")
    ('.csv', '.csv.gz', '.hea')
    """
    p = Path(path)
    if p.suffix.lower() == ".gz" and len(p.suffixes) >= 2:
        return "".join(p.suffixes[-2:]).lower()
    return p.suffix.lower()


def formats_text() -> str:
    """The formats read by their extension (:data:`READER_SUFFIXES`), for messages and help.

    Examples
    --------
    >>> from edr.io.paths import formats_text
    >>> formats_text()
    'EDF .edf, .bdf; CSV .csv, .txt, .tsv, .csv.gz, .txt.gz, .tsv.gz; NumPy .npy, .npz'
    """
    return "; ".join(f"{name} {', '.join(s)}" for name, s in READER_SUFFIXES.values())


def _formats_note(p: Path) -> str:
    """For a path whose extension no reader claims and WFDB does not use (``rec.ecg``): the
    formats read by their extension, to end a message with; else ``""``."""
    if p.suffix.lower() in _WFDB_SUFFIXES:
        return ""
    return (f" ({p.suffix} is no extension a reader claims: {formats_text()}; any other file is "
            "read as a WFDB record)")


def _signal_files(hea: Path) -> list[str] | None:
    """File names of the signal lines of header ``hea`` (None when it cannot be read)."""
    try:
        lines = [ln for ln in hea.read_text(errors="replace").splitlines()
                 if ln.strip() and not ln.lstrip().startswith("#")]
    except OSError:
        return None
    return [ln.split()[0] for ln in lines[1:]]


def _header_referencing(folder: Path, data_name: str) -> Path | None:
    """First ``.hea`` in ``folder`` with a signal line stored in file ``data_name``."""
    for hea in sorted(folder.glob("*.hea")):
        if data_name in (_signal_files(hea) or []):
            return hea
    return None


def _link_note(p: Path) -> str:
    """Why ``p`` is no file when it is a symbolic link that leads nowhere (a loop, a missing
    target), in brackets; else ``""``."""
    if not p.is_symlink():
        return ""
    try:
        p.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return " (a symbolic link that loops)"
        return f" (a symbolic link to {os.readlink(p)}, which does not exist)"
    return ""


def resolve_record(path: str | Path) -> Path:
    """Record base path (no extension) of ``path`` given as ``rec``, ``rec.hea`` or a data file.

    A data file whose stem has no header (``mixedsignals_e.dat``) is matched to
    ``<stem without _suffix>.hea`` or else to any header in its folder that
    references it. A file next to a header that does not store its signals in
    that file (annotations such as ``rec.breath``) is refused.

    Raises
    ------
    FileNotFoundError
        The file does not exist, or no header belongs to the data file.
    RecordError
        ``path`` is a folder, or a file that is not a signal file of its record
        (the message names the header and the files it does reference).

    See Also
    --------
    check_record_path, edr.io.read_record

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from pathlib import Path
    >>> from edr.io import write_wfdb
    >>> from edr.io.paths import resolve_record
    >>> tmp = tempfile.TemporaryDirectory()
    >>> folder = Path(tmp.name)
    >>> hea, dat = write_wfdb(folder, "r1", np.zeros(10), 4.0)
    >>> [resolve_record(folder / name) == folder / "r1" for name in ("r1", "r1.hea", "r1.dat")]
    [True, True, True]
    >>> tmp.cleanup()
    """
    p = Path(path)
    if p.is_dir():
        raise RecordError(f"{p} is a folder, not a record file")
    suffix = p.suffix.lower()
    if suffix == ".hea":
        if not p.is_file():
            raise FileNotFoundError(f"WFDB header not found: {p}{_link_note(p)}")
        return p.with_suffix("")
    if p.with_name(p.name + ".hea").is_file():
        return p
    hea = p.with_name(p.name + ".hea")
    if not p.exists() and (hea.is_dir() or hea.is_symlink()):
        if hea.is_dir():
            raise RecordError(f"{hea} is a folder, not a WFDB header")
        raise FileNotFoundError(f"WFDB header not found: {hea}{_link_note(hea)}")
    if not p.is_file():
        raise FileNotFoundError(f"record not found: {p}{_link_note(p)} (no such file, and no "
                                f"header {p.name}.hea)" + _formats_note(p))
    tried = [p.with_suffix(".hea")]
    stripped = _MULTI_FILE_SUFFIX.sub("", p.stem)
    if stripped != p.stem:
        tried.append(p.with_name(stripped + ".hea"))
    for hea in tried:
        if hea.is_file():
            files = _signal_files(hea)
            if files and p.name in files:
                return hea.with_suffix("")
            if files:
                raise RecordError(
                    f"{p} is not a signal file of record {hea} (its signals are in "
                    f"{', '.join(sorted(set(files)))}); give the record itself, e.g. {hea}"
                    + ("; annotation files are read together with their record"
                       if suffix not in (".dat", ".mat") else "")
                )
    hea = _header_referencing(p.parent, p.name)
    if hea is None:
        existing = [t for t in tried if t.is_file()]
        if existing:  # a header exists but its signal lines cannot be read: let the reader say why
            return existing[0].with_suffix("")
        raise FileNotFoundError(
            f"no WFDB header for data file {p}: tried {', '.join(str(t) for t in tried)}, "
            f"and no .hea file in {p.parent} references {p.name}" + _formats_note(p)
        )
    return hea.with_suffix("")


def check_record_path(path: str | Path) -> str:
    """Check that ``path`` names a readable record file; returns its kind (see :func:`record_kind`).

    Cheap checks only (existence, folders, WFDB header look-up, annotation files);
    the readers check the contents.

    Raises
    ------
    FileNotFoundError
        No such file (for WFDB: no such record).
    RecordError
        A folder, or a file that is not a signal file of its WFDB record.

    See Also
    --------
    record_kind, edr.io.read_record

    Examples
    --------
    >>> from edr.io import check_record_path
    >>> check_record_path("no_such_record.hea")
    Traceback (most recent call last):
    ...
    FileNotFoundError: WFDB header not found: no_such_record.hea
    """
    p = Path(path)
    kind = record_kind(p)
    if kind == "wfdb":
        resolve_record(p)
        return kind
    if p.is_dir():
        raise RecordError(f"{p} is a folder, not a record file")
    if not p.is_file():
        raise FileNotFoundError(f"{READER_SUFFIXES[kind][0]} file not found: {p}{_link_note(p)}")
    return kind


def record_name(path: str | Path) -> str:
    """The name :func:`edr.io.read_record` gives the record at ``path``: its WFDB base name, else
    the file's stem.

    Raises
    ------
    FileNotFoundError, RecordError
        As :func:`resolve_record`, for a WFDB path.

    Examples
    --------
    >>> from edr.io.paths import record_name
    >>> record_name("data/bidmc01.hea"), record_name("holter.edf"), record_name("ecg.csv.gz")
    ('bidmc01', 'holter', 'ecg')
    """
    p = Path(path)
    if record_kind(p) != "wfdb":
        return p.name[: len(p.name) - len(reader_suffix(p))]
    return p.with_suffix("").name if p.suffix.lower() == ".hea" else resolve_record(p).name


def record_files(path: str | Path) -> list[Path]:
    """The existing files the record at ``path`` is read from: the file itself and, for a WFDB
    record, every ``<record>.*`` file beside its header (an output must not overwrite them).

    Raises
    ------
    FileNotFoundError, RecordError
        As :func:`resolve_record`, for a WFDB path.
    """
    p = Path(path)
    files = [p]
    if record_kind(p) == "wfdb":
        base = resolve_record(p)
        files += list(base.parent.glob(base.name + ".*"))
    return [f for f in files if f.is_file()]
