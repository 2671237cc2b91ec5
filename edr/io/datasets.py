"""PhysioNet databases: the manifest, where a database is found, and its verified download.

:func:`locate_database` looks for a database, in order, in

1. ``data_dir`` (the database folder itself, or a folder holding it),
2. ``$EDR_DATA_DIR/<folder>``,
3. the user cache ``$EDR_CACHE_DIR/<slug>-<version>`` (default
   ``$XDG_CACHE_HOME/kpca-edr`` or ``~/.cache/kpca-edr``),

and otherwise downloads it from ``https://physionet.org/files/<slug>/<version>/``
(or ``$EDR_PHYSIONET_URL``) into the cache.

Every downloaded file is verified against a SHA-256: the manifest's when it has
one (it takes precedence), else the one in the ``SHA256SUMS.txt`` PhysioNet
publishes at the root of the project version, fetched once per download. A
needed file that list does not name is an error. How a file is fetched,
checked, fetched once more and renamed: :mod:`edr.io.download`.

The folders 1 and 2 belong to the user: they count as present when every
required file exists, are never written to, and are checked in full by
:func:`verify_database` on demand. The cache belongs to this module: it counts
as present only when every required file, and every file its record
(:data:`edr.io.integrity.RECORD_NAME`) lists, verifies. A file whose size and
modification time still equal the recorded ones is not read again; any other
is hashed, and one that fails is fetched again (or, without download, the
database is unavailable). Digests for that check: the manifest's, else the
recorded ones, else a ``SHA256SUMS.txt`` placed in the folder by hand.
"""

from __future__ import annotations

import errno
import http.client
import os
import urllib.error
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path

import yaml

from edr.errors import DataUnavailableError, VerificationError
from edr.io.download import download_files, fetch_published_digests, files_url
from edr.io.integrity import (
    RECORD_NAME,
    SUMS_NAME,
    Expected,
    mismatch,
    parse_sha256_lines,
    read_verified_record,
    sha256_file,
    verified_entry,
    write_record,
)

__all__ = [
    "MANIFEST_SOURCE",
    "load_manifest",
    "database_entry",
    "required_files",
    "optional_files",
    "manifest_digests",
    "cache_dir",
    "locate_database",
    "record_paths",
    "verify_database",
    "download_database",
]

#: The source named for digests taken from the manifest.
MANIFEST_SOURCE = "data_manifest.yaml"


@lru_cache(maxsize=1)
def _packaged_manifest() -> dict:
    text = resources.files("edr.io").joinpath("data_manifest.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def load_manifest(path: str | Path | None = None) -> dict:
    """The database manifest: the packaged ``edr/io/data_manifest.yaml``, or the YAML at
    ``path``.

    See Also
    --------
    locate_database, record_paths

    Examples
    --------
    >>> from edr.io import load_manifest
    >>> "bidmc" in load_manifest()["databases"]
    True
    """
    if path is None:
        return _packaged_manifest()
    return yaml.safe_load(Path(path).read_text(encoding="utf-8"))


def database_entry(name: str, manifest: Mapping | None = None) -> dict:
    """The manifest entry of database ``name`` (its key or its PhysioNet slug, case-insensitive).

    Raises
    ------
    ValueError
        Unknown name; the message lists the sorted valid names.

    Examples
    --------
    >>> from edr.io.datasets import database_entry
    >>> entry = database_entry("BIDMC")
    >>> entry["name"], entry["slug"], entry["version"]
    ('bidmc', 'bidmc', '1.0.0')
    """
    databases = (manifest or load_manifest())["databases"]
    key = name.lower()
    for db_key, entry in databases.items():
        if key in (db_key.lower(), str(entry.get("slug", "")).lower()):
            return {"name": db_key, **entry}
    raise ValueError(f"unknown database {name!r}; valid names: {', '.join(sorted(databases))}")


def required_files(entry: Mapping) -> list[str]:
    """Files that must exist for the database to count as present.

    With checksums: every file listed under ``sha256``. Without: ``files_per_record``
    (``{record}`` replaced) for every record.

    Examples
    --------
    >>> from edr.io.datasets import database_entry, required_files
    >>> required_files(database_entry("fantasia"))[:3]
    ['f1o01.hea', 'f1o01.dat', 'f1o02.hea']
    """
    if entry.get("sha256"):
        return sorted(entry["sha256"])
    return [pattern.format(record=r) for r in entry["records"]
            for pattern in entry["files_per_record"]]


def optional_files(entry: Mapping) -> list[str]:
    """Files downloaded when the server has them: ``optional_files_per_record`` for every record.

    Empty when the manifest has checksums (its ``sha256`` list is then the whole
    download). Without, an optional file is fetched when the published
    ``SHA256SUMS.txt`` lists it, and skipped otherwise.
    """
    if entry.get("sha256"):
        return []
    return [pattern.format(record=r) for r in entry["records"]
            for pattern in entry.get("optional_files_per_record", [])]


def manifest_digests(entry: Mapping) -> dict[str, Expected]:
    """The manifest's ``sha256`` (and ``size_bytes``, where given) of each file, as
    :class:`~edr.io.integrity.Expected` with the source :data:`MANIFEST_SOURCE`.

    Examples
    --------
    >>> from edr.io.datasets import database_entry, manifest_digests
    >>> manifest_digests(database_entry("bidmc"))["bidmc01.hea"].size
    595
    """
    sizes = entry.get("size_bytes") or {}
    return {name: Expected(digest.lower(), sizes.get(name), MANIFEST_SOURCE)
            for name, digest in (entry.get("sha256") or {}).items()}


def _known_digests(entry: Mapping, folder: Path, record: Mapping) -> dict[str, Expected]:
    """Digests to check a folder's files against: the manifest's, else the folder's record,
    else a ``SHA256SUMS.txt`` in the folder."""
    known: dict[str, Expected] = {}
    sums = folder / SUMS_NAME
    if sums.is_file():
        listed = parse_sha256_lines(sums.read_text(encoding="utf-8", errors="replace"))
        known.update({n: Expected(h, size, str(sums)) for n, (h, size) in listed.items()})
    known.update({n: Expected(e["sha256"], e["size"], e["source"]) for n, e in record.items()})
    known.update(manifest_digests(entry))
    return known


def cache_dir(entry: Mapping) -> Path:
    """``$EDR_CACHE_DIR/<slug>-<version>``, else ``$XDG_CACHE_HOME/kpca-edr/...``, else
    ``~/.cache/kpca-edr/...``."""
    root = os.environ.get("EDR_CACHE_DIR")
    if not root:
        xdg = os.environ.get("XDG_CACHE_HOME")
        root = Path(xdg) / "kpca-edr" if xdg else Path.home() / ".cache" / "kpca-edr"
    return Path(root) / f"{entry['slug']}-{entry['version']}"


def _has_files(folder: Path, entry: Mapping) -> bool:
    return folder.is_dir() and all((folder / f).is_file() for f in required_files(entry))


def _user_folders(entry: Mapping, data_dir: str | Path | None) -> list[Path]:
    out = []
    if data_dir is not None:
        out += [Path(data_dir), Path(data_dir) / entry["folder"]]
    env = os.environ.get("EDR_DATA_DIR")
    if env:
        out.append(Path(env) / entry["folder"])
    return out


def _cache_problem(entry: Mapping, folder: Path) -> str | None:
    """None when every required and every recorded file of the cache ``folder`` verifies,
    else what the first one that does not is."""
    if not folder.is_dir():
        return "no cache folder"
    record = read_verified_record(folder)
    known = _known_digests(entry, folder, record)
    updated, problem = dict(record), None
    for name in dict.fromkeys([*required_files(entry), *sorted(record)]):
        if not (folder / name).is_file():
            problem = f"{name} is missing"
        elif name not in known:
            problem = f"{name} has no known SHA-256"
        elif (verified := verified_entry(folder / name, known[name], record.get(name))) is None:
            problem = f"{name} failed verification against {known[name].describe()}"
        else:
            updated[name] = verified
            continue
        break
    if updated != record:  # files hashed now need not be hashed again
        try:
            write_record(folder, updated)
        except OSError:  # the record only saves hashing next time
            pass
    return problem


def _instructions(entry: Mapping, searched: list[Path]) -> str:
    where = ", ".join(str(p) for p in searched)
    if entry.get("download", True):
        root = files_url()
        source = (f"{root}/{entry['slug']}/{entry['version']}/ (e.g. `wget -r -N -c -np "
                  f"{root}/{entry['slug']}/{entry['version']}/`)")
    else:
        source = entry.get("source", "its source (see data_manifest.yaml)")
    check = "the manifest" if entry.get("sha256") else f"a {SUMS_NAME} put beside them"
    return (
        f"database {entry['name']!r} ({entry.get('title', entry['slug'])} {entry['version']}) is "
        f"not available: searched {where}. Fetch its files from {source} and put them in "
        f"$EDR_DATA_DIR/{entry['folder']}/ (used as they are) or {cache_dir(entry)}/ (verified "
        f"against {check})"
    )


def locate_database(
    name: str,
    *,
    data_dir: str | Path | None = None,
    download: bool = True,
    manifest: Mapping | None = None,
    base_url: str | None = None,
) -> Path:
    """Folder holding database ``name``; downloads it, verified, into the user cache if needed.

    Parameters
    ----------
    name : str
        Manifest key or PhysioNet slug (``"bidmc"``, ``"fantasia"``, ...).
    data_dir : str or Path, optional
        Searched first: the database folder itself or a folder containing ``<folder>``.
    download : bool, default True
        Download from PhysioNet when no local copy is found (see :func:`download_database`).
    manifest : mapping, optional
        Manifest to use instead of the packaged one.
    base_url : str, optional
        File-server root (see :func:`edr.io.download.files_url`).

    Returns
    -------
    Path
        The first complete user folder (``data_dir``, ``$EDR_DATA_DIR/<folder>``;
        used as they are), else the cache folder once every file in it verifies.

    Raises
    ------
    ValueError
        Unknown database name.
    VerificationError
        A downloaded file failed verification twice, or the published
        ``SHA256SUMS.txt`` does not list a needed file (the message names it).
    DataUnavailableError
        No complete local copy, and downloading is disabled, impossible (local-only
        database) or failed (offline, HTTP error); the message says what to fetch
        and where to put it.

    See Also
    --------
    verify_database : the full check of any folder.
    """
    entry = database_entry(name, manifest)
    searched = _user_folders(entry, data_dir)
    for folder in searched:
        if _has_files(folder, entry):
            return folder
    target = cache_dir(entry)
    searched.append(target)
    problem = _cache_problem(entry, target)
    if problem is None:
        return target
    if not download or not entry.get("download", True):
        detail = f" (in the cache, {problem})" if target.is_dir() else ""
        raise DataUnavailableError(_instructions(entry, searched) + detail)
    try:
        download_database(entry, target, base_url=base_url)
    except (OSError, urllib.error.URLError, http.client.HTTPException) as exc:
        url = getattr(exc, "url", None)  # an HTTP error names the file it was for
        where = (" (the cache cannot be written: set EDR_CACHE_DIR to a folder that can)"
                 if getattr(exc, "errno", None) in (errno.EROFS, errno.EACCES, errno.EPERM)
                 else "")
        raise DataUnavailableError(f"download failed ({exc}{f' for {url}' if url else ''})"
                                   f"{where}; " + _instructions(entry, searched)) from exc
    return target


def record_paths(
    name: str,
    *,
    data_dir: str | Path | None = None,
    download: bool = True,
    manifest: Mapping | None = None,
) -> list[Path]:
    """Record paths (``<folder>/<record>``, no extension) of database ``name``, in manifest order.

    Each path can be passed to :func:`edr.io.read_record`. The folder is found
    (or downloaded) by :func:`locate_database`.

    See Also
    --------
    locate_database : the folder.
    edr.io.read_record : reads each path.

    References
    ----------
    .. [1] A. L. Goldberger et al., "PhysioBank, PhysioToolkit, and PhysioNet: components of a new
       research resource for complex physiologic signals," Circulation 101(23), e215-e220, 2000.
       PhysioNet, where the databases are published.

    Examples
    --------
    >>> from edr.io import load_manifest
    >>> "bidmc" in load_manifest()["databases"]  # record_paths("bidmc") lists its records
    True
    """
    entry = database_entry(name, manifest)
    folder = locate_database(name, data_dir=data_dir, download=download, manifest=manifest)
    return [folder / r for r in entry["records"]]


def verify_database(folder: str | Path, name: str, *,
                    manifest: Mapping | None = None) -> dict[str, str]:
    """Hash every required file of database ``name`` under ``folder``, and every file its
    download record lists, against their SHA-256.

    Parameters
    ----------
    folder : str or Path
        A user folder or the cache folder.
    name : str
        Manifest key or PhysioNet slug.
    manifest : mapping, optional
        Manifest to use instead of the packaged one.

    Returns
    -------
    dict
        ``{file: problem}``: ``"missing"``, no digest known, or the expected and
        received digest and size; empty when every file matches. Digests: the
        manifest's, else the folder's download record, else a ``SHA256SUMS.txt``
        in the folder. Always hashes (no size-and-time shortcut).

    See Also
    --------
    locate_database : finds the folder; checks only the cache's files.
    download_database : fetches and verifies the files.
    edr.io.integrity.sha256_file : the digest of one file.
    """
    entry = database_entry(name, manifest)
    folder = Path(folder)
    record = read_verified_record(folder)
    known = _known_digests(entry, folder, record)
    problems = {}
    for fname in dict.fromkeys([*required_files(entry), *sorted(record)]):
        path = folder / fname
        if not path.is_file():
            problems[fname] = "missing"
        elif fname not in known:
            problems[fname] = (f"no SHA-256 known (not in {MANIFEST_SOURCE}, {RECORD_NAME} or "
                               f"a {SUMS_NAME} in the folder)")
        elif (bad := mismatch(known[fname], sha256_file(path), path.stat().st_size)) is not None:
            problems[fname] = bad
    return problems


def download_database(entry: Mapping, target: str | Path, *, base_url: str | None = None) -> Path:
    """Download the files of manifest ``entry`` into ``target``, each one verified.

    The digests: the manifest's ``sha256`` (and ``size_bytes``) where it has
    them; for any other file, ``<base>/SHA256SUMS.txt``, fetched once. Every
    required file must be listed there; ``optional_files_per_record`` are
    fetched when listed and skipped otherwise. Files already in ``target`` that
    verify are kept; the others are fetched (see
    :func:`edr.io.download.download_files`).

    Parameters
    ----------
    entry : mapping
        A manifest entry (:func:`database_entry`).
    target : str or Path
        Download folder.
    base_url : str, optional
        File-server root (see :func:`edr.io.download.files_url`).

    Returns
    -------
    Path
        ``target``.

    Raises
    ------
    VerificationError
        A required file the published list does not name (nothing is downloaded
        then), or a file that failed verification twice.
    urllib.error.URLError, OSError, http.client.HTTPException
        Network and HTTP errors.

    See Also
    --------
    locate_database : downloads through this function into the user cache.
    verify_database : checks the downloaded folder again.
    edr.io.download.download_files : fetches, checks and renames each file.
    """
    target = Path(target)
    base = f"{files_url(base_url)}/{entry['slug']}/{entry['version']}"
    expected = manifest_digests(entry)
    needed = required_files(entry)
    optional = optional_files(entry)
    if any(n not in expected for n in [*needed, *optional]):
        published = fetch_published_digests(base)
        unlisted = [n for n in needed if n not in expected and n not in published]
        if unlisted:
            raise VerificationError(
                f"{base}/{SUMS_NAME} does not list {', '.join(unlisted)}: no SHA-256 to verify "
                f"{'it' if len(unlisted) == 1 else 'them'} against; nothing was downloaded")
        needed += [n for n in optional if n in published]
        expected = {**{n: published[n] for n in needed if n in published}, **expected}
    download_files(base, target, {n: expected[n] for n in needed})
    return target
