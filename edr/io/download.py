"""Fetching database files over HTTP, each verified against its SHA-256 before it gets its name.

A file is streamed to a temporary ``.<name>.<pid>.<random>.part`` file beside its
destination (one a killed download left is removed by the next,
:func:`edr.io.writers.temporary_path`) while its SHA-256 is computed, then checked against
the expected digest (and size, when known) and renamed. A transfer that broke off (fewer
bytes than the announced ``Content-Length``, a reset connection) or stalled (no byte for
:data:`STALL_S` seconds, before or during the transfer), a size or a digest that differs: the
file is fetched once more, then :class:`~edr.errors.VerificationError` names the file, the
expected and the received digest and size (and says so when the server sent an HTML page, an
error or maintenance page served with status 200). Nothing partial or unverified is ever left
under a file's own name. Refused connections and HTTP errors (404, ...) are not retried: they
propagate.

Which digest a file must have is decided by :mod:`edr.io.datasets` (the
manifest's, else the list PhysioNet publishes, :func:`fetch_published_digests`).
Standard library only.
"""

from __future__ import annotations

import hashlib
import http.client
import io
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import BinaryIO

from edr.errors import VerificationError
from edr.io.integrity import (
    CHUNK_BYTES,
    SUMS_NAME,
    Expected,
    mismatch,
    parse_sha256_lines,
    read_verified_record,
    record_entry,
    verified_entry,
    write_record,
)
from edr.io.writers import output_error, temporary_path

__all__ = [
    "PHYSIONET_FILES",
    "BASE_URL_ENV",
    "ATTEMPTS",
    "STALL_S",
    "files_url",
    "fetch_url",
    "fetch_published_digests",
    "fetch_verified",
    "download_files",
]

#: Base URL of PhysioNet's file server.
PHYSIONET_FILES = "https://physionet.org/files"
#: Environment variable overriding :data:`PHYSIONET_FILES` (a mirror, or a local test server).
BASE_URL_ENV = "EDR_PHYSIONET_URL"
#: Transfers of one file before a failed verification is an error (the first and one more).
ATTEMPTS = 2
#: Seconds without a byte before a transfer counts as broken (its file is fetched once more).
STALL_S = 60.0
_BROKEN_TRANSFER = (http.client.IncompleteRead, ConnectionError, TimeoutError)


def files_url(base_url: str | None = None) -> str:
    """The file-server root: ``base_url``, else ``$EDR_PHYSIONET_URL``, else
    :data:`PHYSIONET_FILES` (no trailing slash).

    Examples
    --------
    >>> from edr.io.download import files_url
    >>> files_url("http://127.0.0.1:8000/files/")
    'http://127.0.0.1:8000/files'
    """
    return (base_url or os.environ.get(BASE_URL_ENV) or PHYSIONET_FILES).rstrip("/")


def fetch_url(url: str, out: BinaryIO, *, timeout: float | None = None) -> str | None:
    """Stream ``url`` into the binary file ``out`` (1 MiB chunks).

    Parameters
    ----------
    url : str
        HTTP(S) URL.
    out : binary file
        Anything with a ``write(bytes)`` method.
    timeout : float, optional
        Seconds without progress before the transfer fails (default :data:`STALL_S`).

    Returns
    -------
    str or None
        The response's ``Content-Type``.

    Raises
    ------
    http.client.IncompleteRead
        The connection closed before the announced ``Content-Length`` (never a
        silently short file).
    urllib.error.URLError, OSError
        Network errors, HTTP errors (:class:`urllib.error.HTTPError`) and time-outs propagate.
    """
    with urllib.request.urlopen(url, timeout=STALL_S if timeout is None else timeout) as response:
        expected = response.headers.get("Content-Length")
        received = 0
        for chunk in iter(lambda: response.read(CHUNK_BYTES), b""):
            out.write(chunk)
            received += len(chunk)
        if expected is not None and expected.isdigit() and received != int(expected):
            raise http.client.IncompleteRead(b"", int(expected) - received)
        return response.headers.get("Content-Type")


def fetch_published_digests(base: str) -> dict[str, Expected]:
    """The digests listed in ``<base>/SHA256SUMS.txt`` (fetched into memory, not saved).

    Parameters
    ----------
    base : str
        URL of a project version, ``https://physionet.org/files/<slug>/<version>``.

    Returns
    -------
    dict
        ``{relative path: Expected}``, each with that list's URL as its source.

    Raises
    ------
    VerificationError
        The server has no such list (HTTP 404), or it lists no digest.
    urllib.error.URLError, OSError, http.client.HTTPException
        Any other failure to fetch it.

    See Also
    --------
    edr.io.integrity.parse_sha256_lines : the line format.
    """
    url = f"{base}/{SUMS_NAME}"
    buffer = io.BytesIO()
    try:
        fetch_url(url, buffer)
    except urllib.error.HTTPError as exc:
        if exc.code != 404:
            raise
        raise VerificationError(f"{url} not found (HTTP 404): no published SHA-256 list to "
                                f"verify the files against; nothing was downloaded") from exc
    listed = parse_sha256_lines(buffer.getvalue().decode("utf-8", errors="replace"))
    if not listed:
        raise VerificationError(f"{url} lists no SHA-256 digest (expected lines "
                                f"'<64 hex>  <path>'); nothing was downloaded")
    return {name: Expected(digest, size, url) for name, (digest, size) in listed.items()}


class _HashingWriter:
    """Writes to ``out`` and hashes what it writes, so no file is read twice."""

    def __init__(self, out: BinaryIO):
        self.out = out
        self.sha256 = hashlib.sha256()
        self.size = 0

    def write(self, chunk: bytes) -> int:
        self.out.write(chunk)
        self.sha256.update(chunk)
        self.size += len(chunk)
        return len(chunk)


def _fetch_once(url: str, dest: Path, expected: Expected) -> str | None:
    """One transfer of ``url`` to ``dest``; None when verified and renamed, else the problem."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_path(dest, suffix=".part")
    try:
        try:
            out = open(tmp, "wb")
        except OSError as exc:  # a read-only disk: named by the file, not its temporary
            raise output_error(exc, tmp, dest) from exc
        with out:
            writer = _HashingWriter(out)
            try:
                content_type = fetch_url(url, writer)
            except (*_BROKEN_TRANSFER, urllib.error.URLError) as exc:
                if isinstance(exc, urllib.error.HTTPError) or (
                        isinstance(exc, urllib.error.URLError)
                        and not isinstance(exc.reason, TimeoutError)):
                    raise  # an HTTP error, a refused connection: not retried
                stalled = isinstance(getattr(exc, "reason", exc), TimeoutError)
                how = f"stalled (no byte for {STALL_S:g} s)" if stalled else "broke off"
                return (f"expected {expected.describe()}, got {writer.size} bytes before the "
                        f"transfer {how} ({exc!r})")
        problem = mismatch(expected, writer.sha256.hexdigest(), writer.size)
        if problem is None:
            os.replace(tmp, dest)
        elif "html" in (content_type or "").lower() and "htm" not in dest.suffix.lower():
            problem += (f" (the server sent an HTML page, {content_type}, instead of the file: "
                        "an error or maintenance page)")
        return problem
    finally:
        Path(tmp).unlink(missing_ok=True)


def fetch_verified(url: str, dest: str | Path, expected: Expected, *,
                   attempts: int = ATTEMPTS) -> dict:
    """Download ``url`` to ``dest`` and verify it; a failed verification is fetched again.

    Parameters
    ----------
    url : str
        The file's URL.
    dest : str or Path
        Its final name (replaced only by a verified file).
    expected : Expected
        Its SHA-256, and its size when known.
    attempts : int, default :data:`ATTEMPTS`
        Transfers before giving up (a broken transfer, a size or a digest that differs).

    Returns
    -------
    dict
        The file's entry for the folder's record (:func:`edr.io.integrity.record_entry`).

    Raises
    ------
    VerificationError
        Every attempt failed; the message names the file, the expected and the
        received digest and size (of the last attempt) and the URL.
    urllib.error.URLError, OSError
        A refused connection, an HTTP error: not retried.
    """
    dest = Path(dest)
    for _ in range(attempts):
        problem = _fetch_once(url, dest, expected)
        if problem is None:
            return record_entry(dest, expected)
    raise VerificationError(
        f"{dest.name} failed verification {attempts} times: {problem}; fetched from {url}, "
        f"nothing was kept under {dest}"
    )


def download_files(base: str, target: str | Path,
                   expected: Mapping[str, Expected]) -> dict[str, dict]:
    """Make every file of ``expected`` present and verified in ``target``.

    A file already there is kept when it verifies (without reading it when the
    folder's record vouches for its size and modification time, see
    :func:`edr.io.integrity.verified_entry`); otherwise it is removed and
    fetched from ``<base>/<name>``. The record is rewritten at the end when
    it changed, also when a file fails, so a rerun neither fetches nor hashes the
    files verified so far.

    Parameters
    ----------
    base : str
        URL the names are relative to.
    target : str or Path
        Download folder (created if needed).
    expected : mapping
        ``{relative path: Expected}``.

    Returns
    -------
    dict
        The folder's record after the download.

    Raises
    ------
    VerificationError
        A file failed verification :data:`ATTEMPTS` times.
    urllib.error.URLError, OSError, http.client.HTTPException
        Network and HTTP errors.
    """
    target = Path(target)
    target.mkdir(parents=True, exist_ok=True)
    record = read_verified_record(target)
    before = dict(record)
    try:
        for name, want in expected.items():
            dest = target / name
            entry = verified_entry(dest, want, record.get(name))
            if entry is None:
                record.pop(name, None)
                dest.unlink(missing_ok=True)  # an unverified copy never keeps the name
                entry = fetch_verified(f"{base}/{name}", dest, want)
            record[name] = entry
    finally:
        if record != before:
            try:
                write_record(target, record)
            except OSError:
                if sys.exc_info()[0] is None:  # else the error on its way is the one to tell
                    raise
    return record
