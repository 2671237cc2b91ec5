"""Locks of outputs between processes, and whether a process is alive.

A batch holds one lock file per record it extracts (:func:`output_lock`: created exclusively,
holding ``<pid>@<host>``), so that a second batch into the same folder skips that record; a lock
whose process is dead is taken over. :func:`holder_alive` also tells the writers which temporary
files a killed process left (:func:`edr.io.writers.temporary_path`).

A pid names a process of one machine only: on a folder shared between machines (a network
file system) a lock or temporary file of another host (:data:`HOST`) is taken to be alive until
it is :data:`OTHER_HOST_STALE_S` old, since its process cannot be looked up from here.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path

__all__ = ["pid_alive", "holder_alive", "holder_tag", "HOST", "HOLDER_PATTERN",
           "OTHER_HOST_STALE_S", "OutputLocked", "output_lock", "drop_stale_lock",
           "STALE_EMPTY_LOCK_S"]


def _host_name() -> str:
    """This machine's name as it can stand in a file name (letters, digits, ``.``, ``-``)."""
    return re.sub(r"[^A-Za-z0-9.-]", "_", socket.gethostname())[:64] or "localhost"


HOST = _host_name()
"""This machine's name in lock files and temporary file names (:func:`holder_tag`)."""

OTHER_HOST_STALE_S = 24 * 3600.0
"""Age (s, since its last change) after which a lock or temporary file of another host is taken
to be left by a dead process: its pid cannot be checked from this machine. A record's extraction
takes minutes; a machine that died holding a lock delays the record on another machine by up to
this long (or until the lock file is removed by hand)."""

HOLDER_PATTERN = r"(\d+)(?:@([A-Za-z0-9._-]+))?"
"""A holder ``<pid>@<host>`` (:func:`holder_tag`) as a regular expression: groups pid and host
(None in a name without a host, which is taken to be this host's)."""


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` runs on this machine (one of another user's too; an exited one
    not yet reaped by its parent does not, where ``/proc`` tells).

    Examples
    --------
    >>> import os
    >>> from edr.io.locks import pid_alive
    >>> pid_alive(os.getpid())
    True
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return pid > 0
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """Whether ``pid`` has exited but is not yet reaped by its parent (Linux's ``/proc``;
    elsewhere False): a worker that died is one until its pool notices."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2:][:1] == b"Z"


def holder_tag() -> str:
    """``<pid>@<host>`` of this process: what its lock files hold and its temporary files' names
    carry (:data:`HOLDER_PATTERN` reads it back)."""
    return f"{os.getpid()}@{HOST}"


def holder_alive(pid: int, host: str | None, age_s: float) -> bool:
    """Whether the process ``pid`` of ``host`` that made a lock or temporary file ``age_s``
    seconds ago (since its last change) is taken to be alive.

    Parameters
    ----------
    pid : int
    host : str or None
        Its host as in :func:`holder_tag`; None (a name or lock without one) or :data:`HOST` is
        this machine.
    age_s : float
        Seconds since the file last changed.

    Returns
    -------
    bool
        :func:`pid_alive` on this host; on another, whether ``age_s`` is at most
        :data:`OTHER_HOST_STALE_S`.

    See Also
    --------
    output_lock, edr.io.writers.temporary_path : use it.

    Examples
    --------
    >>> from edr.io.locks import HOST, holder_alive
    >>> holder_alive(1, "other-machine", 60.0), holder_alive(1, "other-machine", 3 * 86400.0)
    (True, False)
    """
    if host is None or host == HOST:
        return pid_alive(pid)
    return age_s <= OTHER_HOST_STALE_S


STALE_EMPTY_LOCK_S = 60.0
"""Age (s) after which a lock file without a pid is stale: its writer died between creating it
and writing its pid, a window of microseconds."""


class OutputLocked(Exception):
    """The lock of an output is held by another live process (``pid``, None when unknown, of
    ``host``, None for this one)."""

    def __init__(self, path, pid, host=None):
        super().__init__(path, pid, host)
        self.path, self.pid, self.host = path, pid, host

    def __str__(self):
        return f"{self.path} is held by {self.holder()}"

    def holder(self) -> str:
        """``process <pid>[ on <host>]``, or ``another process`` when the pid is unknown."""
        if self.pid is None:
            return "another process"
        return f"process {self.pid}" + ("" if self.host in (None, HOST) else f" on {self.host}")


def _lock_holder(path: Path) -> tuple[int | None, str | None]:
    """The pid and host a lock file holds; ``(None, None)`` when it holds none."""
    try:
        text = path.read_text().strip()
    except OSError:
        return None, None
    m = re.fullmatch(HOLDER_PATTERN, text)
    return (None, None) if m is None else (int(m.group(1)), m.group(2))


def _lock_is_stale(path: Path) -> bool:
    pid, host = _lock_holder(path)
    try:
        age_s = time.time() - path.stat().st_mtime
    except FileNotFoundError:
        return True
    if pid is not None:
        return not holder_alive(pid, host, age_s)
    return age_s > STALE_EMPTY_LOCK_S


def drop_stale_lock(path: str | Path) -> None:
    """Remove the lock file ``path`` of :func:`output_lock` if its process is dead (a worker
    killed while it held it; :func:`holder_alive`); nothing when it is absent or held."""
    path = Path(path)
    if path.exists() and _lock_is_stale(path):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


@contextlib.contextmanager
def output_lock(path: str | Path) -> Iterator[Path]:
    """Hold the lock file ``path`` (created exclusively, holding this process's
    :func:`holder_tag`, ``<pid>@<host>``) while the block runs; remove it after, and the folders
    made for it that are left empty.

    A lock whose pid is dead (a ``kill -9``), of another host and unchanged for
    :data:`OTHER_HOST_STALE_S` (:func:`holder_alive`), or without a pid for
    :data:`STALE_EMPTY_LOCK_S`, is taken over. Two processes taking over one stale lock at the
    same instant may both get it (the outputs are still whole: they are written atomically).

    Raises
    ------
    OutputLocked
        Another live process holds it.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from edr.io.locks import OutputLocked, output_lock
    >>> lock = Path(tempfile.mkdtemp()) / "rec_edr.lock"
    >>> with output_lock(lock):
    ...     try:
    ...         with output_lock(lock):
    ...             pass
    ...     except OutputLocked:
    ...         print("held")
    held
    >>> lock.exists()
    False
    """
    path = Path(path)
    created = []  # folders made for it, removed after when empty
    for _ in range(4):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileNotFoundError:
            missing = [d for d in (path.parent, *path.parent.parents) if not d.exists()]
            for d in reversed(missing):
                with contextlib.suppress(FileExistsError):
                    d.mkdir()
                    created.append(d)
            continue
        except FileExistsError:
            if not _lock_is_stale(path):
                raise OutputLocked(path, *_lock_holder(path)) from None
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            continue
        with os.fdopen(fd, "w") as f:
            f.write(f"{holder_tag()}\n")
        break
    else:
        raise OutputLocked(path, *_lock_holder(path))
    try:
        yield path
    finally:
        if _lock_holder(path) == (os.getpid(), HOST):
            path.unlink(missing_ok=True)
        for d in reversed(created):
            with contextlib.suppress(OSError):
                d.rmdir()
