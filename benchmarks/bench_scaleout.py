"""Scale-out of the batch evaluation: local processes against a Dask cluster, as users run it.

Writes N short simulated records (default 100 records of 60 s at 250 Hz, ECG lead II and a
respiration channel, :func:`edr.simulate.simulate_recording` with seeds 0..N-1) as WFDB
records in a temporary folder, then times the command line end to end in a fresh process::

    python -m edr.evaluate --data-dir RECORDS --methods kpca_fusion --criteria mdd-fast \\
        --no-progress -o OUT  (--jobs 1 | --jobs 2 | --scheduler ADDRESS)

``--jobs 1`` runs every record in the command's own process, ``--jobs 2`` in two local worker
processes, ``--scheduler`` on a Dask ``LocalCluster`` of 2 worker processes (one thread each)
started by this script before the timed runs. The cluster stays up between rounds, as a
long-lived cluster does: its workers import the library on their first task (inside the first
round's timed run, as local workers do in every run) and keep it. Every run writes into a new
folder, so nothing is resumed. The configurations are interleaved (``--repeat`` rounds of
jobs 1, jobs 2, Dask); each round's wall time is printed, and the median of each
configuration gives the throughput (records/s) and the ratios to ``--jobs 1``. The results of
every run must be identical (``results.csv`` without its ``seconds`` column,
``window_rates.csv``, ``selection_curves.json``); the script says so, or fails.

Wall time is what users feel; on a shared machine it grows with the load, printed at the
start and the end.

Usage::

    python benchmarks/bench_scaleout.py [--records 100] [--duration 60] [--repeat 1]
"""

from __future__ import annotations

import argparse
import csv
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (5 min {five:.1f}) on {os.cpu_count()} CPUs"


def _write_records(folder: Path, n: int, duration_s: float, fs: float) -> None:
    """``n`` simulated WFDB records ``sim000``... (lead II in mV, respiration) in ``folder``."""
    import numpy as np
    import wfdb

    from edr.simulate import simulate_recording

    for i in range(n):
        rec = simulate_recording(duration_s, fs, resp_rate_hz=0.15 + 0.2 * i / max(n - 1, 1),
                                 random_state=i, name=f"sim{i:03d}")
        resp = np.interp(np.arange(rec.ecg.size) / rec.fs,
                         np.arange(rec.resp.size) / rec.resp_fs, rec.resp)
        wfdb.wrsamp(rec.name, fs=rec.fs, units=["mV", "NU"], sig_name=["II", "RESP"],
                    p_signal=np.column_stack([rec.ecg, resp]), fmt=["16", "16"],
                    write_dir=str(folder))


def _timed_run(records: Path, out: Path, extra: list[str], args) -> float:
    """Wall seconds of one ``python -m edr.evaluate`` run; raises if it fails."""
    cmd = [sys.executable, "-m", "edr.evaluate", "--data-dir", str(records), "--methods",
           args.method, "--criteria", args.criterion, "--no-progress", "-o", str(out), *extra]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return seconds


def _results(out: Path) -> tuple:
    """What must be identical between runs: the rows without ``seconds``, and the other files."""
    with open(out / "results.csv") as f:
        rows = [{k: v for k, v in r.items() if k != "seconds"} for r in csv.DictReader(f)]
    return (rows, (out / "window_rates.csv").read_bytes(),
            (out / "selection_curves.json").read_bytes())


def _measure(records: Path, work: Path, args, address: str) -> dict[str, list[float]]:
    configs = {"local, --jobs 1": ["--jobs", "1"], "local, --jobs 2": ["--jobs", "2"],
               "Dask LocalCluster, 2 worker processes": ["--scheduler", address]}
    walls: dict[str, list[float]] = {name: [] for name in configs}
    reference = None
    for r in range(args.repeat):
        for i, (name, extra) in enumerate(configs.items()):
            out = work / f"out_{r}_{i}"
            walls[name].append(_timed_run(records, out, extra, args))
            got = _results(out)
            if reference is None:
                reference = got
                errors = [row for row in got[0] if row["error"]]
                if len(got[0]) != args.records or errors:
                    raise RuntimeError(f"{len(got[0])} rows, errors: {errors[:3]}")
            elif got != reference:
                raise RuntimeError(f"{name} (round {r + 1}) differs from the first run")
            print(f"  round {r + 1}, {name}: {walls[name][-1]:.1f} s", flush=True)
    return walls


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--records", type=int, default=100, help="simulated records (default 100)")
    p.add_argument("--duration", type=float, default=60.0,
                   help="seconds per record (default 60)")
    p.add_argument("--fs", type=float, default=250.0, help="sampling rate, Hz (default 250)")
    p.add_argument("--method", default="kpca_fusion", help="method (default kpca_fusion)")
    p.add_argument("--criterion", default="mdd-fast", help="sigma2 criterion (default mdd-fast)")
    p.add_argument("--repeat", type=int, default=1,
                   help="interleaved rounds of the three configurations (default 1)")
    args = p.parse_args(argv)

    from distributed import LocalCluster

    logging.getLogger("distributed").setLevel(logging.ERROR)  # the nanny's shutdown chatter
    load_start = os.getloadavg()[0]
    print(f"bench_scaleout: {args.records} simulated records of {args.duration:g} s at "
          f"{args.fs:g} Hz, {args.method} with {args.criterion}; python -m edr.evaluate end to "
          "end (start-up included), median of "
          f"{args.repeat} interleaved round(s)")
    print(f"start: {_load()}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "records").mkdir()
        t0 = time.perf_counter()
        _write_records(work / "records", args.records, args.duration, args.fs)
        print(f"records written in {time.perf_counter() - t0:.1f} s (not timed)")
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster:
            walls = _measure(work / "records", work, args, cluster.scheduler_address)
    print(f"end: {_load()}")
    busiest = max(load_start, os.getloadavg()[0])
    print("machine: " + (f"SHARED with other jobs (load average up to {busiest:.1f} on "
                         f"{os.cpu_count()} CPUs): wall times are inflated and the ratios noisy"
                         if busiest > 0.5 * (os.cpu_count() or 1) else "quiet"))
    base = statistics.median(next(iter(walls.values())))
    print(f"\n{'configuration':<40} {'wall s':>8} {'records/s':>10} {'vs --jobs 1':>12}")
    for name, w in walls.items():
        wall = statistics.median(w)
        print(f"{name:<40} {wall:8.1f} {args.records / wall:10.2f} {base / wall:11.2f}x")
    print("\nresults identical in every run (results.csv without seconds, window_rates.csv, "
          "selection_curves.json)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
