"""BLAS thread control shared by the ``kpca`` modules.

Small BLAS/LAPACK calls (matrices of a few hundred rows) run slower with
several BLAS threads than with one: the thread start-up and synchronisation
cost more than the work, and the code that parallelises across independent
matrices itself would oversubscribe the cores. These helpers limit BLAS to one
thread around such code. See ``docs/design.md#4-kpca-core-decisions``.
"""

from __future__ import annotations

import functools

from threadpoolctl import ThreadpoolController

__all__ = ["blas_limited_to", "blas_limited_to_one_thread", "blas_threads",
           "single_threaded_blas"]

_CONTROLLER = None


def _controller():
    """The cached ``ThreadpoolController``: the library scan (~3 ms) is done once."""
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


def blas_threads():
    """BLAS's current thread count (the largest over the loaded BLAS libraries; 1 if none)."""
    blas = _controller().select(user_api="blas").info()
    return max((lib["num_threads"] for lib in blas), default=1)


def blas_limited_to(n_threads):
    """Context manager limiting BLAS to ``n_threads`` threads."""
    return _controller().limit(limits=n_threads, user_api="blas")


def blas_limited_to_one_thread():
    """Context manager limiting BLAS to one thread."""
    return blas_limited_to(1)


def single_threaded_blas(func):
    """Decorator: run ``func`` with BLAS/LAPACK limited to one thread."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with blas_limited_to_one_thread():
            return func(*args, **kwargs)

    return wrapper
