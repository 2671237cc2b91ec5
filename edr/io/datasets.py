"""PhysioNet databases: the manifest, local look-up, download and sha256 verification.

:func:`locate_database` looks for a database, in order, in

1. ``data_dir`` (the database folder itself, or a folder holding it),
2. ``$EDR_DATA_DIR/<folder>``,
3. the user cache ``$EDR_CACHE_DIR/<slug>-<version>`` (default
   ``$XDG_CACHE_HOME/kpca-edr`` or ``~/.cache/kpca-edr``),

and otherwise downloads it from ``https://physionet.org/files/<slug>/<version>/``
into the cache (each file streamed to a temporary file, checked against the
manifest's sha256 when the manifest has one, then renamed). A folder counts as
present when every required file exists; checksums of local copies are checked
by :func:`verify_database`, not on every look-up. Offline, or when the database
is local-only, :class:`~edr.errors.DataUnavailableError` says what to fetch and
where to put it.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import re
import tempfile
import urllib.error
import urllib.request
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import BinaryIO

import yaml

from edr.errors import DataUnavailableError

__all__ = [
    "PHYSIONET_FILES",
    "BASE_URL_ENV",
    "files_url",
    "load_manifest",
    "database_entry",
    "required_files",
    "cache_dir",
    "locate_database",
    "record_paths",
    "verify_database",
    "download_database",
    "fetch_url",
    "sha256_file",
    "parse_sha256_lines",
]

#: Base URL of PhysioNet's file server.
PHYSIONET_FILES = "https://physionet.org/files"
#: Environment variable overriding :data:`PHYSIONET_FILES` (a mirror, or a local test server).
BASE_URL_ENV = "EDR_PHYSIONET_URL"


def files_url(base_url: str | None = None) -> str:
    """The file-server root: ``base_url``, else ``$EDR_PHYSIONET_URL``, else
    :data:`PHYSIONET_FILES`."""
    return (base_url or os.environ.get(BASE_URL_ENV) or PHYSIONET_FILES).rstrip("/")
_CHUNK = 1 << 20
_SHA_LINE = re.compile(r"^([0-9a-f]{64})\s+\*?(\S+)(?:\s+\((\d+) bytes\))?\s*$")


@lru_cache(maxsize=1)
def _packaged_manifest() -> dict:
    text = resources.files("edr.io").joinpath("data_manifest.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def load_manifest(path: str | Path | None = None) -> dict:
    """The database manifest: the packaged ``edr/io/data_manifest.yaml``, or the YAML at
    ``path``."""
    if path is None:
        return _packaged_manifest()
    return yaml.safe_load(Path(path).read_text(encoding="utf-8"))


def database_entry(name: str, manifest: Mapping | None = None) -> dict:
    """The manifest entry of database ``name`` (its key or its PhysioNet slug, case-insensitive).

    Raises
    ------
    ValueError
        Unknown name; the message lists the sorted valid names.
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
    """
    if entry.get("sha256"):
        return sorted(entry["sha256"])
    return [pattern.format(record=r) for r in entry["records"]
            for pattern in entry["files_per_record"]]


def cache_dir(entry: Mapping) -> Path:
    """``$EDR_CACHE_DIR/<slug>-<version>``, else ``$XDG_CACHE_HOME/kpca-edr/...``, else
    ``~/.cache/kpca-edr/...``."""
    root = os.environ.get("EDR_CACHE_DIR")
    if not root:
        xdg = os.environ.get("XDG_CACHE_HOME")
        root = Path(xdg) / "kpca-edr" if xdg else Path.home() / ".cache" / "kpca-edr"
    return Path(root) / f"{entry['slug']}-{entry['version']}"


def _complete(folder: Path, entry: Mapping) -> bool:
    return folder.is_dir() and all((folder / f).is_file() for f in required_files(entry))


def _candidates(entry: Mapping, data_dir: str | Path | None) -> list[Path]:
    out = []
    if data_dir is not None:
        out += [Path(data_dir), Path(data_dir) / entry["folder"]]
    env = os.environ.get("EDR_DATA_DIR")
    if env:
        out.append(Path(env) / entry["folder"])
    out.append(cache_dir(entry))
    return out


def _instructions(entry: Mapping, searched: list[Path]) -> str:
    where = ", ".join(str(p) for p in searched)
    if entry.get("download", True):
        root = files_url()
        source = (f"{root}/{entry['slug']}/{entry['version']}/ (e.g. `wget -r -N -c -np "
                  f"{root}/{entry['slug']}/{entry['version']}/`)")
    else:
        source = entry.get("source", "its source (see data_manifest.yaml)")
    return (
        f"database {entry['name']!r} ({entry.get('title', entry['slug'])} {entry['version']}) is "
        f"not available: searched {where}. Fetch its files from {source} and put them in "
        f"$EDR_DATA_DIR/{entry['folder']}/ or {cache_dir(entry)}/"
    )


def locate_database(
    name: str,
    *,
    data_dir: str | Path | None = None,
    download: bool = True,
    manifest: Mapping | None = None,
    base_url: str | None = None,
) -> Path:
    """Folder holding database ``name``; downloads it into the user cache if needed.

    Parameters
    ----------
    name : str
        Manifest key or PhysioNet slug (``"bidmc"``, ``"fantasia"``, ...).
    data_dir : str or Path, optional
        Searched first: the database folder itself or a folder containing ``<folder>``.
    download : bool, default True
        Download from PhysioNet when no local copy is found.
    manifest : mapping, optional
        Manifest to use instead of the packaged one.
    base_url : str, optional
        File-server root (see :func:`files_url`).

    Raises
    ------
    ValueError
        Unknown database name.
    DataUnavailableError
        No complete local copy, and downloading is disabled, impossible (local-only
        database), failed (offline) or gave a file whose sha256 does not match.
    """
    entry = database_entry(name, manifest)
    searched = _candidates(entry, data_dir)
    for folder in searched:
        if _complete(folder, entry):
            return folder
    if not download or not entry.get("download", True):
        raise DataUnavailableError(_instructions(entry, searched))
    target = cache_dir(entry)
    try:
        download_database(entry, target, base_url=base_url)
    except (OSError, urllib.error.URLError, http.client.HTTPException) as exc:
        raise DataUnavailableError(f"download failed ({exc}); " + _instructions(entry,
                                                                                searched)) from exc
    return target


def record_paths(
    name: str,
    *,
    data_dir: str | Path | None = None,
    download: bool = True,
    manifest: Mapping | None = None,
) -> list[Path]:
    """Record paths (``<folder>/<record>``, no extension) of database ``name``, in manifest order.

    Each path can be passed to :func:`edr.io.read_record`.
    """
    entry = database_entry(name, manifest)
    folder = locate_database(name, data_dir=data_dir, download=download, manifest=manifest)
    return [folder / r for r in entry["records"]]


def sha256_file(path: str | Path) -> str:
    """Hex sha256 of a file, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def verify_database(folder: str | Path, name: str, *,
                    manifest: Mapping | None = None) -> dict[str, str]:
    """Check every file with a manifest sha256 under ``folder``.

    Returns
    -------
    dict
        ``{file: problem}`` for missing files and checksum mismatches; empty when all match
        (and for databases whose manifest has no checksums).
    """
    entry = database_entry(name, manifest)
    problems = {}
    for fname, digest in (entry.get("sha256") or {}).items():
        path = Path(folder) / fname
        if not path.is_file():
            problems[fname] = "missing"
        elif (actual := sha256_file(path)) != digest:
            problems[fname] = f"sha256 {actual} != {digest}"
    return problems


def fetch_url(url: str, out: BinaryIO, *, timeout: float = 60.0) -> None:
    """Stream ``url`` into the binary file ``out`` (1 MiB chunks). Network errors propagate.

    A connection dropped before the announced ``Content-Length`` raises
    :class:`http.client.IncompleteRead` (never a silently short file).
    """
    with urllib.request.urlopen(url, timeout=timeout) as response:
        expected = response.headers.get("Content-Length")
        received = 0
        for chunk in iter(lambda: response.read(_CHUNK), b""):
            out.write(chunk)
            received += len(chunk)
        if expected is not None and expected.isdigit() and received != int(expected):
            raise http.client.IncompleteRead(b"", int(expected) - received)


def _download_file(url: str, dest: Path, sha256: str | None) -> None:
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    tmp = Path(tmp)
    try:
        with os.fdopen(fd, "wb") as out:
            try:
                fetch_url(url, out)
            except http.client.HTTPException as exc:  # e.g. IncompleteRead: the connection dropped
                raise OSError(f"download of {url} broke off ({exc!r}); nothing was kept") from exc
        if sha256 is not None and (actual := sha256_file(tmp)) != sha256:
            raise DataUnavailableError(
                f"checksum mismatch for {url}: sha256 {actual}, manifest says {sha256}; "
                f"the download was discarded (retry, or fetch it by hand into {dest.parent})"
            )
        os.replace(tmp, dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def download_database(entry: Mapping, target: str | Path, *, base_url: str | None = None) -> Path:
    """Download the required files of manifest ``entry`` into ``target`` (skipping present ones).

    Files with a manifest sha256 are verified (present ones too; a mismatching one
    is fetched again); ``optional_files_per_record`` are fetched when the server
    has them (HTTP 404 is skipped). Each file is streamed to a temporary
    ``.part`` file and renamed only when complete and verified, so an
    interrupted download leaves nothing under the final name and a rerun
    fetches exactly the missing files. ``base_url``: see :func:`files_url`.
    """
    target = Path(target)
    target.mkdir(parents=True, exist_ok=True)
    base = f"{files_url(base_url)}/{entry['slug']}/{entry['version']}"
    checksums = entry.get("sha256") or {}
    for fname in required_files(entry):
        dest = target / fname
        digest = checksums.get(fname)
        if dest.is_file() and (digest is None or sha256_file(dest) == digest):
            continue
        _download_file(f"{base}/{fname}", dest, digest)
    optional = [] if checksums else entry.get("optional_files_per_record", [])
    for dest in (target / p.format(record=r) for r in entry["records"] for p in optional):
        if dest.is_file():
            continue
        try:
            _download_file(f"{base}/{dest.name}", dest, None)
        except urllib.error.HTTPError as exc:
            if exc.code != 404:
                raise
    return target


def parse_sha256_lines(text: str) -> dict[str, tuple[str, int | None]]:
    """``{file: (sha256, size or None)}`` from ``sha256sum`` output / PhysioNet ``SHA256SUMS.txt``.

    Also accepts lines ending in ``(N bytes)``, as in ``/work/shared/data/README.md``;
    other lines are ignored.
    """
    out = {}
    for line in text.splitlines():
        m = _SHA_LINE.match(line.strip())
        if m:
            out[m.group(2)] = (m.group(1), int(m.group(3)) if m.group(3) else None)
    return out
