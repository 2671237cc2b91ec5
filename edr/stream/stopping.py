"""Ending a live stream on request: a flag that SIGINT and SIGTERM set and the loop checks.

A signal handler that raised would cut an update, or a write, in two. The handlers installed by
:func:`stop_on_signals` only set a :class:`StopFlag`; the stream loop checks it between blocks and
the sources check it while they wait for input (at least every :data:`POLL_S` seconds: the
standard-input reader never blocks the loop, see :mod:`edr.stream.sources`), so the stream ends
with its current update finished and its outputs flushed. A second signal while it ends raises
:class:`KeyboardInterrupt`, for a stream that would not end.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterator

__all__ = ["POLL_S", "StopFlag", "Stopped", "stop_on_signals"]

POLL_S = 0.2
"""Longest wait (s) for input between two checks of the stop flag."""


class Stopped(Exception):
    """The stream was asked to stop before it had started (no sample read yet)."""


class StopFlag:
    """Whether the stream was asked to stop, and by what.

    Only an attribute is set (no lock is taken), so a signal handler can set it at any point.

    Examples
    --------
    >>> from edr.stream.stopping import StopFlag
    >>> flag = StopFlag()
    >>> flag.is_set(), flag.wait(0.01)
    (False, False)
    >>> flag.set("SIGTERM")
    >>> flag.is_set(), flag.reason, flag.wait(10.0)
    (True, 'SIGTERM', True)
    """

    def __init__(self):
        self.reason: str | None = None

    def set(self, reason: str = "a stop request") -> None:
        """Ask the stream to stop; the first reason is kept."""
        if self.reason is None:
            self.reason = reason

    def is_set(self) -> bool:
        """Whether :meth:`set` was called."""
        return self.reason is not None

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``, waking within :data:`POLL_S` of a stop; returns
        :meth:`is_set`."""
        end = time.monotonic() + seconds
        while not self.is_set():
            left = end - time.monotonic()
            if left <= 0:
                break
            time.sleep(min(left, POLL_S))
        return self.is_set()


@contextlib.contextmanager
def stop_on_signals(flag: StopFlag, signals=("SIGINT", "SIGTERM")) -> Iterator[StopFlag]:
    """Within the block, the first of ``signals`` sets ``flag`` and a second raises
    :class:`KeyboardInterrupt`; the previous handlers are restored on exit.

    Handlers can only be installed from the main thread: elsewhere nothing is installed (the
    flag can still be set by hand). Signals the platform lacks are skipped.

    Parameters
    ----------
    flag : StopFlag
    signals : sequence of str
        Signal names.

    Yields
    ------
    StopFlag
        ``flag``.

    Examples
    --------
    >>> import os, signal
    >>> from edr.stream.stopping import StopFlag, stop_on_signals
    >>> with stop_on_signals(StopFlag()) as flag:
    ...     os.kill(os.getpid(), signal.SIGTERM)  # the handler sets the flag, nothing else
    ...     flag.wait(5.0)
    True
    >>> flag.reason
    'SIGTERM'
    """
    previous = {}

    def handler(signum, frame):
        if flag.is_set():
            raise KeyboardInterrupt
        flag.set(signal.Signals(signum).name)

    if threading.current_thread() is threading.main_thread():
        for name in signals:
            sig = getattr(signal, name, None)
            if sig is not None:
                previous[sig] = signal.signal(sig, handler)
    try:
        yield flag
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
