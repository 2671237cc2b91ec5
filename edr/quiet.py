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

__all__ = ["ignored_warnings", "recorded_warnings"]

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


@contextmanager
def recorded_warnings(category: type[Warning]):
    """Context manager: the warnings of ``category`` raised inside the block are collected in
    the list it yields (each once, not shown); other warnings are shown as usual after the
    block. One block at a time per process, like :func:`ignored_warnings`.

    Examples
    --------
    >>> import warnings
    >>> from edr.quiet import recorded_warnings
    >>> with recorded_warnings(UserWarning) as caught:
    ...     warnings.warn("reference not used", UserWarning)
    >>> [str(w.message) for w in caught]
    ['reference not used']
    """
    kept: list[warnings.WarningMessage] = []
    with _LOCK:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always", category)
            yield kept
        for w in seen:
            if issubclass(w.category, category):
                kept.append(w)
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
