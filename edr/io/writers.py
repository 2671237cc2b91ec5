"""Atomic writers: EDR as CSV (``time_s,edr``), as a WFDB record, and JSON summaries.

Every writer writes to a temporary file in the destination folder and moves it
into place with :func:`os.replace` (atomic on POSIX and Windows within one file
system). If anything fails the temporary file is removed, so no partial output
is ever left under the final name. A temporary file's name holds its writer's pid and host
(:func:`edr.io.locks.holder_tag`), so one left by a killed process is removed by a later write of
the same output (:func:`temporary_path`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import re
import shutil
import stat
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np

from edr.io.arrays import as_series
from edr.io.locks import HOLDER_PATTERN, holder_alive, holder_tag

__all__ = ["atomic_path", "output_error", "temporary_path", "temporary_folder",
           "new_file_mode", "write_csv", "write_wfdb", "write_json", "to_jsonable"]

_RECORD_NAME_PATTERN = re.compile(r"^[-\w]+$")
_RANDOM_PART = r"[a-z0-9_]{8}"  # tempfile's random part of a name


def new_file_mode(path: str | Path | None = None) -> int:
    """Permission bits for an output file: those of ``path`` when it exists, else ``0o666`` minus
    the umask.

    :func:`tempfile.mkstemp` creates files with mode 0600; an output renamed into
    place must look like one written with :func:`open` instead.
    """
    if path is not None:
        try:
            return stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            pass
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_SCANNED: dict[tuple, list[str]] = {}
"""Per folder (its path, device and inode), the names of its hidden entries when this process
first wrote into it: the candidates of :func:`_remove_stale`, less those it removed."""
_SCANNED_LOCK = threading.Lock()
_SCANNED_MAX = 1024  # folders remembered; past that, forgotten and scanned again


def _hidden_entries(folder: Path) -> list[str]:
    """The names starting with ``.`` in ``folder`` when this process first asked (one scan of
    a folder per process, however many files it writes there); ``[]`` when it cannot be read."""
    try:
        st = os.stat(folder)
    except OSError:
        return []
    key = (os.path.abspath(folder), st.st_dev, st.st_ino)
    with _SCANNED_LOCK:
        names = _SCANNED.get(key)
        if names is None:
            try:
                with os.scandir(folder) as entries:
                    names = [e.name for e in entries if e.name.startswith(".")]
            except OSError:
                return []
            if len(_SCANNED) >= _SCANNED_MAX:
                _SCANNED.clear()
            _SCANNED[key] = names
        return names


def _remove_stale(folder: Path, name: str, suffix: str) -> None:
    """Remove the temporaries ``.<name>.<pid>@<host>.<random><suffix>`` (or, as older versions
    named them, ``.<name>.<pid>.<random><suffix>``) of dead processes
    (:func:`edr.io.locks.holder_alive`) among those ``folder`` held when this process first
    wrote into it (:func:`_hidden_entries`)."""
    pattern = re.compile(re.escape(f".{name}.") + HOLDER_PATTERN + r"\." + _RANDOM_PART
                         + re.escape(suffix))
    names = _hidden_entries(folder)
    for m in [m for m in map(pattern.fullmatch, names) if m is not None]:
        entry = m.string
        path = folder / entry
        try:
            st = os.lstat(path)
        except OSError:
            _forget(names, entry)  # written into place or removed since
            continue
        if holder_alive(int(m.group(1)), m.group(2), time.time() - st.st_mtime):
            continue
        if stat.S_ISDIR(st.st_mode):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(path)
        _forget(names, entry)


def _forget(names: list[str], entry: str) -> None:
    with _SCANNED_LOCK, contextlib.suppress(ValueError):
        names.remove(entry)


def temporary_path(path: str | Path, suffix: str | None = None) -> Path:
    """A new empty file next to ``path`` (same folder) with the mode of :func:`new_file_mode`.

    The name is ``.<name>.<pid>@<host>.<random><suffix>``, ``suffix`` by default ``.tmp<path's
    suffix>`` (a writer that picks its format from the suffix, Matplotlib, still sees it).
    Temporaries of ``path`` by that scheme whose process is dead (a ``kill -9``;
    :func:`edr.io.locks.holder_alive`: one of another host when older than
    :data:`edr.io.locks.OTHER_HOST_STALE_S`) are removed first: a rerun cleans up after the run
    it replaces, never after one still running. A folder is scanned for them once per process,
    when it first writes there, so that writing n files into a folder is not n scans of it.
    """
    path = Path(path)
    suffix = f".tmp{path.suffix}" if suffix is None else suffix
    _remove_stale(path.parent, path.name, suffix)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{holder_tag()}.",
                               suffix=suffix)
    try:
        os.fchmod(fd, new_file_mode(path))
    finally:
        os.close(fd)
    return Path(tmp)


def temporary_folder(folder: str | Path, name: str) -> Path:
    """A new folder ``.<name>.<pid>@<host>.<random>`` in ``folder``, for a writer that writes by
    record name (WFDB); those of ``name`` whose process is dead are removed first (as by
    :func:`temporary_path`)."""
    _remove_stale(Path(folder), name, "")
    return Path(tempfile.mkdtemp(dir=folder, prefix=f".{name}.{holder_tag()}."))


def output_error(exc: OSError, tmp: str | Path, path: str | Path) -> OSError:
    """``exc``, raised while writing the temporary file ``tmp`` of ``path``, naming ``path``.

    Parameters
    ----------
    exc : OSError
        What the writer raised.
    tmp : str or Path
        The temporary file (:func:`temporary_path`).
    path : str or Path
        The output.

    Returns
    -------
    OSError
        A new error of the same errno naming ``path`` when ``exc`` names no file or ``tmp``
        (a full disk, a file-size limit); else ``exc`` itself.

    See Also
    --------
    atomic_path, edr.io.targets.write_all_or_none : raise it.

    Examples
    --------
    >>> import errno
    >>> from edr.io.writers import output_error
    >>> exc = OSError(errno.ENOSPC, "No space left on device", "/data/.a.csv.x1.tmp.csv")
    >>> str(output_error(exc, "/data/.a.csv.x1.tmp.csv", "/data/a.csv"))
    "[Errno 28] No space left on device: '/data/a.csv'"
    """
    name = None if exc.filename is None else Path(os.fsdecode(exc.filename)).name
    if exc.errno is None or name not in (None, Path(tmp).name):
        return exc
    return OSError(exc.errno, exc.strerror, str(path))


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; on success move it onto ``path``.

    On an exception the temporary file is deleted and ``path`` is untouched; an
    :class:`OSError` that names no file, or the temporary one (a full disk), is raised
    again naming ``path``. The file ends up with the mode of :func:`new_file_mode` (the
    user's umask for a new file), not the 0600 of a temporary file.
    """
    path = Path(path)
    tmp = temporary_path(path)
    try:
        yield tmp
        os.chmod(tmp, new_file_mode(path))
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        named = output_error(exc, tmp, path)
        if named is exc:
            raise
        raise named from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_csv(path: str | Path, time_s, edr, **columns) -> Path:
    """Write ``time_s,edr[,<column>...]`` rows (header included) atomically; NaN is written as
    ``nan``.

    ``columns`` adds named columns in the order given (e.g. ``rate_bpm=..., quality=...``).

    Raises
    ------
    ValueError
        The columns are not 1-D arrays of the length of ``time_s``.

    See Also
    --------
    write_json, write_wfdb

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from pathlib import Path
    >>> from edr.io import write_csv
    >>> tmp = tempfile.TemporaryDirectory()
    >>> edr = np.array([0.1, 0.2, np.nan])
    >>> path = write_csv(Path(tmp.name) / "out.csv", np.arange(3) / 4.0, edr)
    >>> print(path.read_text(), end="")
    time_s,edr
    0.000000,0.1
    0.250000,0.2
    0.500000,nan
    >>> tmp.cleanup()
    """
    cols = {"time_s": as_series(time_s, "time_s"), "edr": as_series(edr, "edr")}
    cols.update({name: as_series(v, name) for name, v in columns.items()})
    n = cols["time_s"].size
    for name, v in cols.items():
        if v.size != n:
            raise ValueError(f"time_s has {n} values but {name} has {v.size}")
    path = Path(path)
    fmt = ["%.6f"] + ["%.9g"] * (len(cols) - 1)
    with atomic_path(path) as tmp:
        np.savetxt(tmp, np.column_stack(list(cols.values())), fmt=fmt, delimiter=",",
                   header=",".join(cols), comments="")
    return path


def write_wfdb(
    path_or_dir: str | Path,
    record_name: str,
    edr,
    fs: float,
    *,
    sig_name: str = "EDR",
    units: str = "NU",
    fmt: str = "16",
    comments: list[str] | None = None,
) -> tuple[Path, Path]:
    """Write ``edr`` as a one-channel WFDB record ``<dir>/<record_name>.hea/.dat``.

    ``wfdb.wrsamp`` writes into a temporary folder inside the destination; the
    data file is moved into place first and the header last, so a header never
    points at a missing or partial data file. NaN samples are stored as the
    format's invalid-sample value and read back as NaN.

    Parameters
    ----------
    path_or_dir : str or Path
        Destination folder, or a path whose parent is the folder (its name is ignored).
    record_name : str
        Letters, digits, ``_`` and ``-`` only.
    edr : array_like, shape (n,)
    fs : float
        Sampling rate in Hz (> 0).

    Returns
    -------
    (header_path, data_path)

    See Also
    --------
    wfdb.rdrecord : reads it back.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> import wfdb
    >>> from edr.io import write_wfdb
    >>> tmp = tempfile.TemporaryDirectory()
    >>> hea, dat = write_wfdb(tmp.name, "edr1", np.sin(np.arange(400) / 8.0), 4.0)
    >>> back = wfdb.rdrecord(str(hea.with_suffix("")))
    >>> hea.name, dat.name, back.sig_name, back.fs, back.p_signal.shape
    ('edr1.hea', 'edr1.dat', ['EDR'], 4, (400, 1))
    >>> tmp.cleanup()
    """
    if not _RECORD_NAME_PATTERN.match(record_name or ""):
        raise ValueError(f"record_name {record_name!r} may only hold letters, digits, '_' and '-'")
    if not (np.isfinite(fs) and fs > 0):
        raise ValueError(f"fs={fs!r} must be a positive number of Hz")
    y = as_series(edr, "edr")
    out_dir = Path(path_or_dir)
    if not out_dir.is_dir():
        out_dir = out_dir.parent
    import wfdb

    tmp_dir = temporary_folder(out_dir, record_name)
    try:
        wfdb.wrsamp(record_name, fs=float(fs), units=[units], sig_name=[sig_name],
                    p_signal=y[:, None],
                    fmt=[fmt], comments=comments or [], write_dir=str(tmp_dir))
        final = []
        for ext in (".dat", ".hea"):
            target = out_dir / f"{record_name}{ext}"
            os.replace(tmp_dir / f"{record_name}{ext}", target)
            final.append(target)
    finally:
        shutil.rmtree(tmp_dir, ignore_errors=True)
    return final[1], final[0]


def to_jsonable(obj):
    """Convert ``obj`` to plain JSON types: NumPy scalars/arrays, Paths, dataclasses, tuples.

    Non-finite floats become ``None`` (JSON has no NaN). Unknown types raise ``TypeError``.
    """
    if isinstance(obj, (str, bool)) or obj is None:
        return obj
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    raise TypeError(f"cannot write an object of type {type(obj).__name__} as JSON")


def write_json(path: str | Path, obj) -> Path:
    """Write ``obj`` (see :func:`to_jsonable`) as indented JSON, atomically.

    See Also
    --------
    to_jsonable, write_csv

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from pathlib import Path
    >>> from edr.io import write_json
    >>> tmp = tempfile.TemporaryDirectory()
    >>> summary = {"sigma2": np.float64(np.nan), "n": np.int64(3)}
    >>> path = write_json(Path(tmp.name) / "out.json", summary)
    >>> print(path.read_text())
    {
      "sigma2": null,
      "n": 3
    }
    >>> tmp.cleanup()
    """
    text = json.dumps(to_jsonable(obj), indent=2, allow_nan=False) + "\n"
    path = Path(path)
    with atomic_path(path) as tmp:
        tmp.write_text(text)
    return path
