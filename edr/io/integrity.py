"""SHA-256 digests of files, digest lists, and the record of what a download verified.

A verified download writes :data:`RECORD_NAME` (JSON) into its folder: for each
file its SHA-256, size, modification time (``st_mtime_ns``) and the source of the
digest it was checked against. :func:`verified_entry` trusts a file without
reading it when its size and modification time still equal the recorded ones
and the recorded digest is the one expected; any other file (new, changed,
truncated, touched) is hashed in full. A record that cannot be read counts as
empty, so every file is hashed again: the record saves time, never decides
alone.

Standard library only, like :mod:`edr.io.paths`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from edr.io.writers import output_error, temporary_path

__all__ = [
    "SUMS_NAME",
    "RECORD_NAME",
    "CHUNK_BYTES",
    "Expected",
    "sha256_file",
    "parse_sha256_lines",
    "mismatch",
    "read_verified_record",
    "write_record",
    "record_entry",
    "verified_entry",
]

#: Name of the digest list PhysioNet publishes at the root of each project version.
SUMS_NAME = "SHA256SUMS.txt"
#: Name of the record a verified download keeps in its folder.
RECORD_NAME = ".verified.json"
_RECORD_FORMAT = 1
#: Bytes read at once from a file being hashed or a download being received.
CHUNK_BYTES = 1 << 20
_SHA_LINE = re.compile(r"^([0-9a-fA-F]{64}) [ *](.+?)(?:\s+\((\d+) bytes\))?$")
_ENTRY_KEYS = {"sha256": str, "size": int, "mtime_ns": int, "source": str}


@dataclass(frozen=True)
class Expected:
    """What one file must be: its SHA-256, its size when known, and where both come from.

    Parameters
    ----------
    sha256 : str
        Lower-case hex digest.
    size : int or None
        Size in bytes, None when the source gives none.
    source : str
        Where the digest comes from (``data_manifest.yaml``, a ``SHA256SUMS.txt`` URL, ...).
    """

    sha256: str
    size: int | None
    source: str

    def describe(self) -> str:
        """``sha256 <hex>[, <n> bytes] (<source>)``, as the error messages print it."""
        size = "" if self.size is None else f", {self.size} bytes"
        return f"sha256 {self.sha256}{size} ({self.source})"


def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 of a file, read in 1 MiB chunks.

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    str
        64 lower-case hex digits.

    Raises
    ------
    OSError
        The file cannot be read.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from edr.io.integrity import sha256_file
    >>> with tempfile.TemporaryDirectory() as d:
    ...     f = pathlib.Path(d) / "empty"
    ...     _ = f.write_bytes(b"")
    ...     sha256_file(f)[:16]
    'e3b0c44298fc1c14'
    """
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(CHUNK_BYTES), b""):
            h.update(chunk)
    return h.hexdigest()


def parse_sha256_lines(text: str) -> dict[str, tuple[str, int | None]]:
    """Digests listed in ``sha256sum`` output, such as PhysioNet's ``SHA256SUMS.txt``.

    Parameters
    ----------
    text : str
        Lines ``<64 hex>  <relative path>`` (text mode) or ``<64 hex> *<path>``
        (binary mode), optionally ending in ``(N bytes)`` as in the SHA-256
        blocks of the reference-data README. A leading ``./`` of a path is
        dropped; other lines are ignored.

    Returns
    -------
    dict
        ``{path: (sha256 in lower case, size in bytes or None)}``.

    See Also
    --------
    edr.io.download.fetch_published_digests : reads a database's list from its server.

    Examples
    --------
    >>> from edr.io.integrity import parse_sha256_lines
    >>> h = "ab" * 32
    >>> parse_sha256_lines(f"{h}  r1.hea\\n{h} *./r1.dat  (12 bytes)\\nnot a digest line")
    ... # doctest: +ELLIPSIS
    {'r1.hea': ('abab...', None), 'r1.dat': ('abab...', 12)}
    """
    out = {}
    for line in text.splitlines():
        m = _SHA_LINE.match(line.strip())
        if m:
            name = m.group(2).removeprefix("./")
            out[name] = (m.group(1).lower(), int(m.group(3)) if m.group(3) else None)
    return out


def mismatch(expected: Expected, sha256: str, size: int) -> str | None:
    """None when a file of digest ``sha256`` and ``size`` bytes is ``expected``, else why not.

    Parameters
    ----------
    expected : Expected
        The published digest (and size, when known).
    sha256 : str
        Digest of the file received.
    size : int
        Its size in bytes.

    Returns
    -------
    str or None
        ``"expected <digest, size, source>, got sha256 <hex>, <n> bytes"``, or None.

    Examples
    --------
    >>> from edr.io.integrity import Expected, mismatch
    >>> want = Expected("0" * 64, 3, "a list")
    >>> mismatch(want, "0" * 64, 3) is None
    True
    >>> mismatch(want, "1" * 64, 2)  # doctest: +ELLIPSIS
    'expected sha256 000..., 3 bytes (a list), got sha256 111..., 2 bytes'
    """
    if sha256 == expected.sha256 and expected.size in (None, size):
        return None
    return f"expected {expected.describe()}, got sha256 {sha256}, {size} bytes"


def _valid_entry(entry: object) -> bool:
    return isinstance(entry, dict) and all(
        isinstance(entry.get(k), t) for k, t in _ENTRY_KEYS.items())


def read_verified_record(folder: str | Path) -> dict[str, dict]:
    """The files a verified download recorded in ``folder``: ``{name: entry}``.

    Parameters
    ----------
    folder : str or Path
        The download folder.

    Returns
    -------
    dict
        Each entry has ``sha256``, ``size``, ``mtime_ns`` and ``source``. Empty
        when there is no record or it cannot be read (unreadable, not JSON,
        another format); malformed entries are left out.
    """
    try:
        data = json.loads((Path(folder) / RECORD_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != _RECORD_FORMAT:
        return {}
    files = data.get("files")
    if not isinstance(files, dict):
        return {}
    return {name: entry for name, entry in files.items() if _valid_entry(entry)}


def write_record(folder: str | Path, files: Mapping[str, Mapping]) -> None:
    """Replace the record of ``folder`` by ``files`` (written to a temporary file, then renamed).

    Parameters
    ----------
    folder : str or Path
        The download folder (exists).
    files : mapping
        ``{name: entry}`` as :func:`record_entry` makes them.

    Raises
    ------
    OSError
        The folder cannot be written.
    """
    folder = Path(folder)
    text = json.dumps({"format": _RECORD_FORMAT, "files": dict(sorted(files.items()))},
                      indent=1)
    tmp = temporary_path(folder / RECORD_NAME, suffix=".part")
    try:
        with open(tmp, "w", encoding="utf-8") as out:
            out.write(text + "\n")
        os.replace(tmp, folder / RECORD_NAME)
    except OSError as exc:  # a read-only or full disk: named by the record, not its temporary
        raise output_error(exc, tmp, folder / RECORD_NAME) from exc
    finally:
        Path(tmp).unlink(missing_ok=True)


def record_entry(path: str | Path, expected: Expected) -> dict:
    """The record entry of ``path``, whose content was checked to be ``expected``."""
    st = Path(path).stat()
    return {"sha256": expected.sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "source": expected.source}


def verified_entry(path: str | Path, expected: Expected,
                   recorded: Mapping | None = None) -> dict | None:
    """The record entry of ``path`` if its content is ``expected``, else None.

    Parameters
    ----------
    path : str or Path
        The file (missing is not an error: None).
    expected : Expected
        What the file must be.
    recorded : mapping, optional
        Its entry in the folder's record. When that entry has the expected
        digest and the file's size and ``st_mtime_ns`` still equal the
        recorded ones, the file is not read; otherwise it is hashed in full.

    Returns
    -------
    dict or None
        The entry to record (the stat refreshed after a full hash), or None
        for a missing file, a size or a digest that differs.

    Notes
    -----
    The shortcut is the quick check of ``make`` and ``rsync``: it misses a
    change that keeps both the size and the modification time (a file
    rewritten within the file system's timestamp resolution, or an mtime set
    back on purpose). :func:`edr.io.datasets.verify_database` always hashes.
    """
    path = Path(path)
    if not path.is_file():
        return None
    st = path.stat()
    if (recorded is not None and recorded.get("sha256") == expected.sha256
            and recorded.get("size") == st.st_size
            and recorded.get("mtime_ns") == st.st_mtime_ns):
        return dict(recorded)
    if expected.size not in (None, st.st_size) or sha256_file(path) != expected.sha256:
        return None
    return record_entry(path, expected)
