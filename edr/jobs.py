"""Many independent jobs, resumable: in this process, in local threads or processes, or on a
Dask cluster, with a progress bar and each job's error kept with the job.

:func:`run_jobs` is the one runner of the command lines that process many records
(``python -m edr.extract a.dat b.dat ...``, ``python -m edr.evaluate``). A job is any picklable
value; ``work(job)`` computes its result. Resumability is the caller's storage seen through two
callables: ``done(job)`` returns the stored result of a job finished by an earlier run (or
None), ``store(job, value)`` keeps a new result; the runner calls ``store`` in the driving
process, so Dask workers need no access to the output folder. Every job is reported exactly
once, as resumed or as run: a resumed run adds no duplicate.

A job that raises does not stop the others: its :class:`JobOutcome` holds the exception (a
result that cannot be sent back counts as that job's error too). A worker process that dies
breaks its pool: the jobs the broken one held go to a new pool together (in parallel, as
before), and a job whose pool breaks a second time is run again alone, so that only a job that
kills its worker on its own fails (with ``BrokenProcessPool``). An
interruption (Ctrl-C) cancels the jobs not started, waits for those running in local threads
or processes, keeps (``store``) their results, and propagates;
worker processes leave Ctrl-C to the driving process. On Linux the worker processes are forked
(:func:`forks_workers`): they inherit the driver's imports and start in milliseconds.

See Also
--------
edr.evaluate.batch.run_batch : the batch evaluation (processes or Dask).
edr.extract.many_records : several records of one ``extract`` command line (threads).
"""

from __future__ import annotations

import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

__all__ = ["BACKENDS", "JobOutcome", "forks_workers", "note", "run_jobs"]

BACKENDS = ("serial", "threads", "processes")
"""Local back-ends of :func:`run_jobs`: this process, a thread pool, a process pool (a Dask
scheduler is the other choice)."""

PARENT_POLL_S = 0.5
"""Seconds between a worker process's checks that its driving process is alive."""

EXIT_ORPHANED = 1
"""Exit status of a worker process whose driving process died."""

@dataclass(frozen=True)
class JobOutcome:
    """What became of one job.

    Attributes
    ----------
    job : object
        The job as given.
    value : object
        ``work(job)``, or the stored result (``done(job)``) of a resumed job; None on error.
    error : Exception or None
        What ``work(job)`` raised (or the back-end raised for it).
    seconds : float
        Time ``work(job)`` took where it ran; 0 for a resumed job.
    resumed : bool
        Whether the result came from an earlier run.

    See Also
    --------
    run_jobs : yields one outcome per job.

    Examples
    --------
    >>> from edr.jobs import JobOutcome, run_jobs
    >>> [o.resumed for o in run_jobs(["a", "b"], str.upper, done={"a": "A"}.get)]
    [True, False]
    >>> failed = JobOutcome("rec", error=ValueError("no beat"))
    >>> failed.value is None, str(failed.error), failed.seconds
    (True, 'no beat', 0.0)
    """

    job: object
    value: object = None
    error: Exception | None = None
    seconds: float = 0.0
    resumed: bool = False


def _attempt(work: Callable, job) -> tuple[object, Exception | None, float]:
    """``(value, error, seconds)`` of ``work(job)``: runs where the job runs (a worker)."""
    t0 = time.perf_counter()
    try:
        return work(job), None, time.perf_counter() - t0
    except Exception as exc:
        return None, exc, time.perf_counter() - t0


def _exit_with(parent: int) -> None:
    """Ends this worker process once ``parent`` (the driving process) is gone: checked every
    :data:`PARENT_POLL_S` seconds, by a daemon thread of the worker."""
    import os

    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    os._exit(EXIT_ORPHANED)


def _worker_start() -> None:
    """Start of a worker process: Ctrl-C is the driving process's to handle (a running job
    finishes, as in a thread), and the worker collects garbage whatever the driver's collector
    was doing when it forked; what it inherited is frozen, never scanned (nor copied by the
    scan). A worker ends within :data:`PARENT_POLL_S` seconds of its driver's death (a
    ``kill -9`` of the driver leaves the pool's pipes open in the workers: they would otherwise
    finish their jobs, writing outputs nobody reports, and then wait for work forever)."""
    import gc
    import os
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with, args=(os.getppid(),), name="edr-worker-parent",
                     daemon=True).start()
    gc.freeze()
    gc.enable()


def forks_workers() -> bool:
    """Whether the ``"processes"`` back-end forks its workers here (Linux): they then inherit
    the driving process's imports and compiled functions and start in milliseconds; elsewhere
    each worker starts a new interpreter and imports the stack again.

    Returns
    -------
    bool

    See Also
    --------
    run_jobs : its ``"processes"`` back-end.

    Examples
    --------
    >>> import sys
    >>> from edr.jobs import forks_workers
    >>> forks_workers() == sys.platform.startswith("linux")
    True
    """
    import multiprocessing

    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def _process_context():
    """The start method of worker processes: fork where :func:`forks_workers`, else the
    platform's default."""
    import multiprocessing

    return multiprocessing.get_context("fork") if forks_workers() else None


def _process_pool(workers: int | None):
    """A process pool whose workers have started (:func:`_worker_start`)."""
    from concurrent.futures import ProcessPoolExecutor

    for stream in (sys.stdout, sys.stderr):  # a forked worker would write their buffers again
        if stream is not None:
            stream.flush()
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=_process_context(),
                               initializer=_worker_start)
    pool.submit(int).result()
    return pool


class _Local:
    """A :mod:`concurrent.futures` pool behind the interface :func:`run_jobs` uses. A process
    pool starts its workers at once, before the caller starts threads of its own (a progress
    bar's), so that they fork from as few threads as possible. A worker process that dies
    (killed, out of memory, a crash in compiled code) breaks its pool: the jobs it held and the
    jobs after it go to a new pool (:meth:`resubmit`), and a job whose pool breaks a second time
    is run again alone (:meth:`again`), so that only a job that kills its worker on its own
    fails."""

    def __init__(self, backend: str, workers: int | None):
        from concurrent.futures import ThreadPoolExecutor

        self.workers = workers
        self.pool = (ThreadPoolExecutor(max_workers=workers) if backend == "threads"
                     else _process_pool(workers))
        self.unreported: set = set()

    def submit(self, fn, *args, resubmitted: bool = False):
        from concurrent.futures.process import BrokenProcessPool

        try:
            future = self.pool.submit(fn, *args)
        except BrokenProcessPool:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = _process_pool(self.workers)
            future = self.pool.submit(fn, *args)
        future.edr_call = (fn, args)
        future.edr_resubmitted = resubmitted
        self.unreported.add(future)
        return future

    def finish(self) -> list:
        """After an interruption: wait for the jobs running (:meth:`close`), and return
        ``(job, value)`` of each that finished without error and was not reported, so that
        their results are kept rather than computed again by the next run."""
        running = sum(future.running() for future in self.unreported)
        if running:
            note(f"interrupted: waiting for the {running} job(s) running; their results are kept")
        self.close()
        out = []
        for future in self.unreported:
            if future.done() and not future.cancelled() and future.exception() is None:
                value, error, _ = future.result()
                if error is None:
                    out.append((future.edr_call[1][1], value))
        return out

    def resubmit(self, future):
        """A new future for the job of ``future`` when its pool broke for the first time (a
        worker died: this job's, or another's that took the pool down): the job goes to a new
        pool with the others, in parallel; None otherwise (a second time it runs alone,
        :meth:`again`)."""
        from concurrent.futures.process import BrokenProcessPool

        if (getattr(future, "edr_resubmitted", True) or not future.done()
                or not isinstance(future.exception(), BrokenProcessPool)):
            return None
        fn, args = future.edr_call
        self.unreported.discard(future)
        return self.submit(fn, *args, resubmitted=True)

    @staticmethod
    def again(future):
        """The job of ``future``, whose worker died, run again alone in a process of its own:
        its future once done."""
        fn, args = future.edr_call
        pool = _process_pool(1)
        try:
            done = pool.submit(fn, *args)
            done.exception()  # waits
        finally:
            pool.shutdown(wait=True)
        return done

    def wait_first(self, futures):
        from concurrent.futures import FIRST_COMPLETED, wait

        return wait(futures, return_when=FIRST_COMPLETED).done

    def close(self):
        """Cancel the jobs not started, wait for those running."""
        self.pool.shutdown(wait=True, cancel_futures=True)


def _outcome(job, future, runner=None) -> JobOutcome:
    """The outcome of ``job`` from its future; a job whose worker process died is run again
    alone once (``runner.again``) when the runner can."""
    from concurrent.futures.process import BrokenProcessPool

    getattr(runner, "unreported", set()).discard(future)
    try:
        value, error, seconds = future.result()
    except Exception as exc:  # the worker died, or the result could not be sent back
        if isinstance(exc, BrokenProcessPool) and hasattr(runner, "again"):
            return _outcome(job, runner.again(future))
        value, error, seconds = None, exc, 0.0
    return JobOutcome(job, value, error, seconds)


def _resubmit_broken(runner, futures) -> dict:
    """``{future: new future}`` of the ``futures`` (done, or waited for) whose pool broke for the
    first time, each job resubmitted (:meth:`_Local.resubmit`); empty for other runners."""
    resubmit = getattr(runner, "resubmit", None)
    if resubmit is None:
        return {}
    out = {}
    for future in futures:
        new = resubmit(future)
        if new is not None:
            out[future] = new
    return out


def _in_order(runner, todo, work, ahead) -> Iterator[JobOutcome]:
    """Outcomes in the order of ``todo`` (``(job, stored)`` pairs), at most ``ahead`` jobs
    running; a resumed job is reported when its turn comes."""
    queue: deque = deque()
    running = 0
    todo = iter(todo)
    exhausted = False
    while queue or not exhausted:
        while not exhausted and running < ahead:
            item = next(todo, None)
            if item is None:
                exhausted = True
                break
            job, stored = item
            if stored is not None:
                queue.append((job, stored, None))
            else:
                queue.append((job, None, runner.submit(_attempt, work, job)))
                running += 1
        if not queue:
            break
        job, stored, future = queue[0]
        if future is not None and hasattr(runner, "resubmit"):
            runner.wait_first([future])  # its outcome is read next
            renewed = _resubmit_broken(runner, [f for _, _, f in queue if f is not None])
            if renewed:  # the whole broken pool at once, in order
                queue = deque((j, s, renewed.get(f, f)) for j, s, f in queue)
                continue
        queue.popleft()
        if future is None:
            yield JobOutcome(job, stored, resumed=True)
        else:
            running -= 1
            yield _outcome(job, future, runner)


def _as_completed(runner, todo, work, ahead) -> Iterator[JobOutcome]:
    """Resumed outcomes first, then each run job's as it completes, at most ``ahead`` running."""
    waiting = deque()
    for job, stored in todo:
        if stored is not None:
            yield JobOutcome(job, stored, resumed=True)
        else:
            waiting.append(job)
    running: dict = {}
    while waiting or running:
        while waiting and len(running) < ahead:
            job = waiting.popleft()
            running[runner.submit(_attempt, work, job)] = job
        done = runner.wait_first(running)
        for old, new in _resubmit_broken(runner, done).items():
            running[new] = running.pop(old)
        for future in done:
            if future in running:
                yield _outcome(running.pop(future), future, runner)


def _serial(todo, work) -> Iterator[JobOutcome]:
    for job, stored in todo:
        if stored is not None:
            yield JobOutcome(job, stored, resumed=True)
        else:
            value, error, seconds = _attempt(work, job)
            yield JobOutcome(job, value, error, seconds)


def note(text: str) -> None:
    """Print ``text`` on stderr above the progress bar of :func:`run_jobs` (if one shows)."""
    from tqdm.auto import tqdm

    tqdm.write(text, file=sys.stderr)


def run_jobs(jobs: Iterable, work: Callable, *, done: Callable | None = None,
             store: Callable | None = None, backend: str = "serial",
             workers: int | None = None, scheduler=None, ahead: int | None = None,
             ordered: bool = False, progress: Mapping | None = None) -> Iterator[JobOutcome]:
    """Run ``work(job)`` for every job not done yet; yield one :class:`JobOutcome` per job.

    Parameters
    ----------
    jobs : iterable
        The jobs (picklable for processes and Dask).
    work : callable
        ``work(job) -> value``; a module-level function for processes and Dask.
    done : callable, optional
        ``done(job)``: the stored result of a job an earlier run finished, or None. Called for
        every job before any work starts.
    store : callable, optional
        ``store(job, value)``: keep a new result; called in this process, in completion order,
        for every job that did not raise, before its outcome is yielded.
    backend : {"serial", "threads", "processes"}, default "serial"
        Where the jobs run when ``scheduler`` is None (:data:`BACKENDS`).
    workers : int, optional
        Threads or processes (default: the pool's, from the CPU count).
    scheduler : str or object, optional
        A Dask distributed scheduler address (``"tcp://host:8786"``) or anything
        ``distributed.Client`` accepts: the jobs run there (needs the ``distributed`` extra).
    ahead : int, optional
        At most this many jobs submitted and not yet reported (memory: each holds a record);
        default: all.
    ordered : bool, default False
        Yield in the order of ``jobs`` (else in completion order, resumed jobs first).
    progress : mapping, optional
        Keyword arguments of a ``tqdm`` progress bar (``desc``, ``unit``, ``file``, ...) over
        every job; None shows none.

    Yields
    ------
    JobOutcome
        Exactly one per job.

    Raises
    ------
    ValueError
        Unknown ``backend``, or ``workers`` / ``ahead`` below 1.
    ImportError
        ``scheduler`` given without Dask's ``distributed`` installed.
    ConnectionError
        No Dask scheduler answered at ``scheduler`` within
        :data:`edr._dask_runner.SCHEDULER_CONNECT_S` seconds (nothing listening there, or
        another service), or it went away during the run.

    See Also
    --------
    JobOutcome : what each job became.
    note : prints a line above the progress bar.
    edr.evaluate.batch.run_batch : the batch evaluation, run through this function.

    Examples
    --------
    >>> import math
    >>> from edr.jobs import run_jobs
    >>> [(o.job, o.value, type(o.error).__name__) for o in run_jobs([4, -1, 9], math.sqrt,
    ...                                                             done={9: 3.0}.get)]
    [(4, 2.0, 'NoneType'), (-1, None, 'ValueError'), (9, 3.0, 'NoneType')]
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    for name, value in (("workers", workers), ("ahead", ahead)):
        if value is not None and (not isinstance(value, int) or value < 1):
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    jobs = list(jobs)
    todo = [(job, None if done is None else done(job)) for job in jobs]
    return _run_todo(todo, work, store, backend, workers, scheduler, ahead, ordered, progress)


def _run_todo(todo, work, store, backend, workers, scheduler, ahead, ordered, progress):
    from tqdm.auto import tqdm

    n_resumed = sum(stored is not None for _, stored in todo)
    runner = None
    if n_resumed < len(todo) and (scheduler is not None or backend != "serial"):
        if scheduler is not None:
            from edr._dask_runner import DaskRunner

            runner = DaskRunner(scheduler)
        else:
            runner = _Local(backend, workers)
    bar = tqdm(total=len(todo), initial=n_resumed, disable=progress is None, **(progress or {}))
    try:
        if runner is None:
            outcomes = _serial(todo, work)
        else:
            walk = _in_order if ordered else _as_completed
            outcomes = walk(runner, todo, work, ahead or len(todo) or 1)
        for outcome in outcomes:
            if not outcome.resumed:
                if outcome.error is None and store is not None:
                    store(outcome.job, outcome.value)
                bar.update(1)
            yield outcome
    except KeyboardInterrupt:  # the jobs running finish: their results are kept too
        if store is not None and hasattr(runner, "finish"):
            for job, value in runner.finish():
                store(job, value)
        raise
    finally:
        if runner is not None:
            runner.close()
        bar.close()
