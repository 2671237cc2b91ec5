"""Experiment (not the library): a long record's windows in forked worker processes against the
pipeline's window threads, the same values, with the peak of the sum of the processes' PSS.

Usage: ``python benchmarks/window_processes.py RECORD threads|fork [INTERVAL_S]`` (RECORD a
WFDB record without extension, e.g. ``bench_edr.write_day``'s). ``fork`` replaces
``edr.pipeline._analyses`` by one that analyses the first window here (Numba and the thread pools
loaded before the fork, BLAS on one thread as the threads have it) and the others in 2 processes
forked from this one (the lead shared copy-on-write, each window's analysis pickled back), at
most 4 windows ahead. A thread samples the PSS (``/proc/<pid>/smaps_rollup``) of this process
and its children every ``INTERVAL_S`` (default 0.2 s; reading ``smaps_rollup`` costs CPU: every
20 ms it cost the fork mode, three processes, several seconds of this process's CPU over a day).
Prints one JSON line (wall and CPU of read + extract, this process's and its children's CPU, the
peak PSS sum, VmHWM) and the windows' statuses; saves the waveform and the rates in the working
folder (``wave_<mode>.npy``, ``rate_<mode>.npy``) to compare the two modes. Measured in
``docs/studies/fast_selection.md``, sixth round.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import resource
import sys
import threading
import time
from collections import Counter, deque
from concurrent.futures import ProcessPoolExecutor
from itertools import islice

import numpy as np

import edr.pipeline as pl
from edr.errors import SignalError
from edr.window_analysis import analyse_window
from kpca._blas import blas_limited_to_one_thread

WORKERS = 2
_S: dict = {}


def _one(i):
    w = _S["plan"][i]
    try:
        return w, analyse_window(w, _S["leads"], _S["fs"], _S["grid"], _S["opts"]), None
    except SignalError as exc:
        return w, None, exc


def _analyses_fork(plan, leads, fs, grid, opts):
    plan = list(plan)
    _S.update(plan=plan, leads=leads, fs=fs, grid=grid, opts=opts)
    with blas_limited_to_one_thread():
        first = _one(0)  # in this process: Numba and the pools loaded before the fork
    yield first
    ctx = mp.get_context("fork")
    with blas_limited_to_one_thread(), ProcessPoolExecutor(WORKERS, mp_context=ctx) as pool:
        idx = iter(range(1, len(plan)))
        ahead = deque(pool.submit(_one, i) for i in islice(idx, 2 * WORKERS))
        while ahead:
            done = ahead.popleft().result()
            ahead.extend(pool.submit(_one, i) for i in islice(idx, 1))
            yield done


def pss_total():
    """(sum of the PSS of this process and its children in kB, number of processes)."""
    pids = [os.getpid()]
    try:
        for tid in os.listdir(f"/proc/{os.getpid()}/task"):
            with open(f"/proc/{os.getpid()}/task/{tid}/children") as f:
                pids += [int(p) for p in f.read().split()]
    except OSError:
        pass
    tot = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/smaps_rollup") as f:
                tot += next(int(ln.split()[1]) for ln in f if ln.startswith("Pss:"))
        except (OSError, StopIteration):
            pass
    return tot, len(pids)


def main(path, mode, interval_s=0.2):
    if mode == "fork":
        pl._analyses = _analyses_fork
    peak, stop = [0, 0], threading.Event()

    def monitor():
        while not stop.is_set():
            t, n = pss_total()
            if t > peak[0]:
                peak[:] = [t, n]
            time.sleep(interval_s)

    th = threading.Thread(target=monitor, daemon=True)
    th.start()
    from edr.io import read_record

    t0 = time.perf_counter()
    rec = read_record(path)
    res = pl.extract_edr(rec, window_s=300.0)
    wall = time.perf_counter() - t0
    stop.set()
    th.join()
    own = os.times()
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(f"/proc/{os.getpid()}/status") as f:
        hwm = next(ln for ln in f if ln.startswith("VmHWM")).split()[1]
    print(json.dumps({"mode": mode, "wall": round(wall, 1),
                      "cpu_all": round(own.user + own.system + ch.ru_utime + ch.ru_stime, 1),
                      "peak_pss_sum_kB": peak[0], "procs": peak[1],
                      "children_cpu": round(ch.ru_utime + ch.ru_stime, 1),
                      "self_cpu": round(own.user + own.system, 1), "parent_VmHWM_kB": int(hwm)}))
    print(Counter(w.quality["status"][:60] for w in res.windows).most_common(4))
    np.save(f"wave_{mode}.npy", res.waveform)
    np.save(f"rate_{mode}.npy", res.rate_bpm)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], *map(float, sys.argv[3:4]))
