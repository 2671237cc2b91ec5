"""Locks of outputs between processes, and whether a process is alive.

A batch holds one lock file per record it extracts (:func:`output_lock`: created exclusively,
holding the pid), so that a second batch into the same folder skips that record; a lock whose
process is dead is taken over. :func:`pid_alive` also tells the writers which temporary files a
killed process left (:func:`edr.io.writers.temporary_path`).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

__all__ = ["pid_alive", "OutputLocked", "output_lock", "drop_stale_lock", "STALE_EMPTY_LOCK_S"]


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


STALE_EMPTY_LOCK_S = 60.0
"""Age (s) after which a lock file without a pid is stale: its writer died between creating it
and writing its pid, a window of microseconds."""


class OutputLocked(Exception):
    """The lock of an output is held by another live process (``pid``; None when unknown)."""

    def __init__(self, path, pid):
        super().__init__(path, pid)
        self.path, self.pid = path, pid

    def __str__(self):
        who = "another process" if self.pid is None else f"process {self.pid}"
        return f"{self.path} is held by {who}"


def _lock_pid(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _lock_is_stale(path: Path) -> bool:
    pid = _lock_pid(path)
    if pid is not None:
        return not pid_alive(pid)
    try:
        return time.time() - path.stat().st_mtime > STALE_EMPTY_LOCK_S
    except FileNotFoundError:
        return True


def drop_stale_lock(path: str | Path) -> None:
    """Remove the lock file ``path`` of :func:`output_lock` if its process is dead (a worker
    killed while it held it); nothing when it is absent or held."""
    path = Path(path)
    if path.exists() and _lock_is_stale(path):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


@contextlib.contextmanager
def output_lock(path: str | Path) -> Iterator[Path]:
    """Hold the lock file ``path`` (created exclusively, holding this process's pid) while the
    block runs; remove it after, and the folders made for it that are left empty.

    A lock whose pid is dead (a ``kill -9``), or without a pid for :data:`STALE_EMPTY_LOCK_S`,
    is taken over. Two processes taking over one stale lock at the same instant may both get it
    (the outputs are still whole: they are written atomically).

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
                raise OutputLocked(path, _lock_pid(path)) from None
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            continue
        with os.fdopen(fd, "w") as f:
            f.write(f"{os.getpid()}\n")
        break
    else:
        raise OutputLocked(path, _lock_pid(path))
    try:
        yield path
    finally:
        if _lock_pid(path) == os.getpid():
            path.unlink(missing_ok=True)
        for d in reversed(created):
            with contextlib.suppress(OSError):
                d.rmdir()
