"""Warnings silenced around third-party calls, safely from several threads.

``warnings.catch_warnings`` saves and restores the process-wide filter list: two threads
using it at once can restore each other's state (and leave every warning ignored). The leads
and windows of a record are analysed in threads (:mod:`edr.windows`, :mod:`edr.pipeline`),
so every silenced block of ``edr`` goes through :func:`ignored_warnings`, which holds one
process-wide re-entrant lock for the block's duration.
"""

from __future__ import annotations

import threading
import warnings
from contextlib import contextmanager

__all__ = ["ignored_warnings"]

_LOCK = threading.RLock()


@contextmanager
def ignored_warnings():
    """Context manager: every warning ignored inside the block, one block at a time per
    process (re-entrant in the same thread); the filters are restored on exit.

    Warnings that other threads raise while a block runs are ignored as well.
    """
    with _LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
