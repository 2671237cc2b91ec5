"""edr.jobs.run_jobs, the one runner of many records: every back-end gives the results of a plain
loop (the reference), each job once, errors kept per job, resumption without duplicates."""

from __future__ import annotations

import math
import sys
import threading
import time

import pytest

from edr.jobs import JobOutcome, run_jobs

JOBS = [4.0, 9.0, -1.0, 2.25, 16.0, -4.0, 0.0]


def _reference(jobs):
    """The obviously-correct loop: job -> (value, error type name)."""
    out = {}
    for job in jobs:
        try:
            out[job] = (math.sqrt(job), None)
        except ValueError as exc:
            out[job] = (None, type(exc).__name__)
    return out


def _as_dict(outcomes: list[JobOutcome]):
    return {o.job: (o.value, None if o.error is None else type(o.error).__name__)
            for o in outcomes}


@pytest.mark.parametrize("backend", ["serial", "threads", "processes"])
@pytest.mark.parametrize("ordered", [False, True])
def test_every_backend_gives_the_loop_s_results(backend, ordered):
    outcomes = list(run_jobs(JOBS, math.sqrt, backend=backend, workers=2, ordered=ordered))
    assert sorted(o.job for o in outcomes) == sorted(JOBS)  # each job exactly once
    assert _as_dict(outcomes) == _reference(JOBS)
    assert all(o.seconds >= 0 and not o.resumed for o in outcomes)
    if ordered or backend == "serial":
        assert [o.job for o in outcomes] == JOBS


def test_dask_cluster_gives_the_loop_s_results(dask_cluster):
    outcomes = list(run_jobs(JOBS, math.sqrt, scheduler=dask_cluster.scheduler_address))
    assert sorted(o.job for o in outcomes) == sorted(JOBS)
    assert _as_dict(outcomes) == _reference(JOBS)


def _slow_first(job):
    """Earlier jobs take longer, so they complete last."""
    time.sleep(0.05 * (5 - job))
    return job * 10


def test_ordered_keeps_the_order_given_and_ahead_bounds_the_jobs_in_flight():
    running, peak, lock = [0], [0], threading.Lock()

    def work(job):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        try:
            return _slow_first(job)
        finally:
            with lock:
                running[0] -= 1

    jobs = list(range(6))
    ordered = list(run_jobs(jobs, work, backend="threads", workers=4, ahead=2, ordered=True))
    assert [o.job for o in ordered] == jobs and [o.value for o in ordered] == [j * 10 for j in jobs]
    assert peak[0] == 2
    done_first = [o.job for o in run_jobs(jobs, _slow_first, backend="threads", workers=6)]
    assert done_first[0] == 5 and sorted(done_first) == jobs  # completion order


def test_resumed_jobs_are_not_run_and_store_runs_in_the_driver():
    stored, ran = {}, []
    lock = threading.Lock()

    def work(job):
        with lock:
            ran.append(job)
        return math.sqrt(job)

    def store(job, value):
        assert threading.current_thread() is threading.main_thread()
        stored[job] = value

    previous = {4.0: 2.0, 16.0: 4.0}
    outcomes = list(run_jobs(JOBS, work, done=previous.get, store=store, backend="threads",
                             workers=3))
    assert sorted(ran) == sorted(j for j in JOBS if j not in previous)
    assert {o.job for o in outcomes if o.resumed} == set(previous)
    assert all(o.value == previous[o.job] and o.seconds == 0 for o in outcomes if o.resumed)
    # stored: every job run without an error, once; a failing job is not stored
    assert stored == {j: math.sqrt(j) for j in JOBS if j not in previous and j >= 0}
    assert _as_dict(outcomes) == _reference(JOBS)


def test_an_interrupted_run_resumes_without_duplicates():
    stored = {}

    def dies_at_the_fourth(job):
        if job == JOBS[3]:
            raise KeyboardInterrupt
        return math.sqrt(job)

    seen = []
    with pytest.raises(KeyboardInterrupt):
        for o in run_jobs(JOBS, dies_at_the_fourth, store=stored.__setitem__):
            seen.append(o.job)
    assert seen == JOBS[:3] and set(stored) == {4.0, 9.0}  # -1 failed: not stored
    again = list(run_jobs(JOBS, math.sqrt, done=stored.get, store=stored.__setitem__))
    assert sorted(o.job for o in again) == sorted(JOBS)  # once each: resumed or run
    assert [o.job for o in again if o.resumed] == [4.0, 9.0]
    assert _as_dict(again) == _reference(JOBS)


def test_an_interruption_in_the_driver_cancels_the_jobs_not_started():
    started = []

    def work(job):
        started.append(job)
        time.sleep(0.05)
        return job

    def store(job, value):
        raise KeyboardInterrupt  # Ctrl-C while the first result is being kept

    with pytest.raises(KeyboardInterrupt):
        list(run_jobs(range(20), work, store=store, backend="threads", workers=1))
    time.sleep(0.2)
    assert len(started) < 20  # the queue was cancelled, the running job finished


def _worker_state(job):
    import gc
    import os
    import signal
    import sys

    return (os.getpid(), gc.isenabled(), signal.getsignal(signal.SIGINT) is signal.SIG_IGN,
            "edr.tests_marker_module" in sys.modules)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers fork on Linux only")
def test_process_workers_fork_collect_garbage_and_leave_ctrl_c_to_the_driver(monkeypatch):
    import gc
    import os
    import types

    from edr.jobs import forks_workers

    assert forks_workers()
    # a module only this process has: a forked worker inherits it, a spawned one would not
    monkeypatch.setitem(sys.modules, "edr.tests_marker_module", types.ModuleType("marker"))
    gc.disable()  # the command lines start with the collector off
    try:
        outcomes = list(run_jobs([1, 2], _worker_state, backend="processes", workers=2))
    finally:
        gc.enable()
    for o in outcomes:
        pid, collects, ignores_ctrl_c, inherited = o.value
        assert pid != os.getpid() and collects and ignores_ctrl_c and inherited


def _dies_at_3(job):
    import os

    time.sleep(0.05)
    if job == 3.0:
        os._exit(1)  # the worker process dies (as when killed, or out of memory)
    return math.sqrt(job)


@pytest.mark.parametrize("ordered", [False, True])
def test_a_job_that_kills_its_worker_fails_alone(ordered):
    from concurrent.futures.process import BrokenProcessPool

    jobs = [4.0, 9.0, 3.0, 2.25, 16.0, 1.0, 0.0, 25.0]
    outcomes = list(run_jobs(jobs, _dies_at_3, backend="processes", workers=2, ordered=ordered))
    assert sorted(o.job for o in outcomes) == sorted(jobs)  # each once
    for o in outcomes:
        if o.job == 3.0:
            assert o.value is None and isinstance(o.error, BrokenProcessPool)
        else:  # the others, running beside it or queued behind it, run again
            assert o.error is None and o.value == math.sqrt(o.job)


def _unpicklable(job):
    return threading.Lock()


def test_a_result_that_cannot_come_back_is_that_job_s_error():
    (outcome,) = run_jobs([1], _unpicklable, backend="processes", workers=1)
    assert outcome.value is None and "pickle" in str(outcome.error)


def test_bad_arguments():
    with pytest.raises(ValueError, match="backend must be one of serial, threads, processes"):
        run_jobs([], math.sqrt, backend="gpu")
    with pytest.raises(ValueError, match="workers must be a positive integer, got 0"):
        run_jobs([], math.sqrt, workers=0)
    with pytest.raises(ValueError, match="ahead must be a positive integer, got 0"):
        run_jobs([], math.sqrt, ahead=0)
    assert list(run_jobs([], math.sqrt, backend="processes")) == []


_DRIVER = """
import os, sys, time
from edr.jobs import run_jobs

def work(job):
    open(os.path.join(sys.argv[1], f"{os.getpid()}.pid"), "w").close()
    time.sleep(60)  # far longer than the test waits

list(run_jobs([1, 2], work, backend="processes", workers=2))
"""


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers fork on Linux only")
def test_worker_processes_end_when_their_driver_is_killed(tmp_path):
    """``kill -9`` of the driving process (its pool's pipes stay open in the workers): the
    workers end within seconds instead of running on, or waiting for work forever."""
    import os
    import signal
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    driver = subprocess.Popen([sys.executable, "-c", _DRIVER, str(tmp_path)], cwd=root,
                              env={**os.environ, "PYTHONPATH": str(root)})
    deadline = time.monotonic() + 60
    while len(list(tmp_path.glob("*.pid"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    workers = [int(p.stem) for p in tmp_path.glob("*.pid")]
    assert len(workers) == 2, "the workers did not start"
    driver.send_signal(signal.SIGKILL)
    driver.wait(10)
    deadline = time.monotonic() + 10
    while any(map(_running, workers)) and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = [pid for pid in workers if _running(pid)]
    for pid in alive:
        os.kill(pid, signal.SIGKILL)  # leave nothing behind when the test fails
    assert not alive, f"worker processes {alive} outlived their driver"
