"""Monte-Carlo / permutation "null" spectra, computed in parallel threads.

Each null matrix ``j`` gets its own child generator (``rng.spawn``), so the
draws do not depend on scheduling.  Matrices are processed in fixed chunks of
``CHUNK`` consecutive indices; inside a chunk the Lanczos iteration of matrix
``j`` starts from the Ritz vectors of matrix ``j - 1`` at the same width (null
matrices of one distribution have nearly equal leading eigenvectors).  The
chunking does not depend on ``n_jobs``, so results are identical for any
number of threads.  Full spectra (LAPACK, no warm start) are scheduled one
matrix at a time, which balances the threads.  Only one null matrix per thread is in memory at a
time.  The threads belong to one process-wide pool per thread count (:func:`shared_pool`), so
selections running at the same time (e.g. one per ECG lead) share the cores instead of
oversubscribing them, and no threads are started per call.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from kpca._blas import blas_limited_to_one_thread

CHUNK = 10

#: percentile definition of MATLAB's ``prctile`` (used by both papers' code): Hazen plotting
#: positions
PERCENTILE_METHOD = "hazen"


def resolve_n_jobs(n_jobs):
    if n_jobs is None:
        return min(os.cpu_count() or 1, 8)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise ValueError(f"n_jobs must be None, a positive int or -1; got n_jobs={n_jobs!r}")
    return (os.cpu_count() or 1) if n_jobs < 0 else int(n_jobs)


_POOLS: dict[int, ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


def _forget_pools():
    """In a forked child the parent's pool threads do not exist: start new pools on demand."""
    global _POOLS_LOCK
    _POOLS.clear()
    _POOLS_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_forget_pools)


def shared_pool(n_jobs):
    """The process-wide pool of ``n_jobs`` worker threads, created on first use.

    Its tasks must not wait for other tasks of the same pool (they could all be waiting).
    """
    with _POOLS_LOCK:
        pool = _POOLS.get(n_jobs)
        if pool is None:
            pool = _POOLS[n_jobs] = ThreadPoolExecutor(max_workers=n_jobs,
                                                       thread_name_prefix="kpca-null")
        return pool


def null_spectra(make_D2, n_null, plan, rng, *, n_jobs=None, data_D2=None, chunk=CHUNK):
    """Spectra of ``n_null`` null matrices (and optionally of the data matrix, in the same pool).

    Parameters
    ----------
    make_D2 : callable ``(rng_j) -> ndarray (n, n)``
        Builds the squared-distance matrix of one null replicate.
    n_null : int
    plan : SpectrumPlan
    rng : numpy.random.Generator or sequence
        A generator spawns one child per replicate; a sequence of ``n_null`` values (e.g.
        generators, or replicate numbers that ``make_D2`` understands) is passed to ``make_D2``
        as it is (to recompute chosen replicates, e.g. at more widths).
    n_jobs : int, optional
    data_D2 : ndarray, optional
        Squared distances of the data: its spectra are computed as one more task, so no
        thread waits while it runs (its result does not depend on scheduling).
    chunk : int
        Consecutive replicates per task (sharing warm starts); the result depends on it, not
        on ``n_jobs``.

    Returns
    -------
    null : ndarray, shape (n_null, n_grid, k)
    data : ndarray, shape (n_grid, k)
        Only when ``data_D2`` is given.
    """
    children = rng.spawn(n_null) if isinstance(rng, np.random.Generator) else list(rng)
    out = np.empty((n_null, plan.order.size, plan.k_out))
    data = []
    chunk = 1 if plan.full else chunk  # full spectra (LAPACK) gain nothing from warm starts

    def run(start):
        if start < 0:
            data.append(plan.spectra(data_D2))
            return
        warm = plan.new_warm()
        for j in range(start, min(start + chunk, n_null)):
            out[j] = plan.spectra(make_D2(children[j]), warm)

    starts = ([-1] if data_D2 is not None else []) + list(range(0, n_null, chunk))
    jobs = resolve_n_jobs(n_jobs)
    # parallelism is across replicates: multi-threaded BLAS inside each would oversubscribe
    with blas_limited_to_one_thread():
        if jobs == 1 or len(starts) == 1:
            for s in starts:
                run(s)
        else:
            pool = shared_pool(jobs)
            tasks = [pool.submit(run, s) for s in starts]
            wait(tasks)  # all finished, even when one failed: no task outlives the call
            for task in tasks:
                task.result()
    return out if data_D2 is None else (out, data[0])


def percentile95(null):
    """95th percentile over replicates (axis 0), MATLAB ``prctile`` convention."""
    return np.percentile(null, 95, axis=0, method=PERCENTILE_METHOD)
