"""Start-up and per-record speed of the command line, as users feel it.

Times ``python -m edr.extract`` end to end in fresh processes (warm file cache: every
command runs once untimed first):

* an argument error (``--sigma2 banana``): target < 0.5 s;
* one 8-minute BIDMC record, CSV output: target <= 1.5 s;
* N records (default 10) in one process (``a.dat b.dat ... -o OUTDIR/ --overwrite``):
  target <= 0.4 s per record amortised.

The peer, timed the same way in the same run: a fresh Python process that reads the record
with wfdb and runs NeuroKit2's minimal EDR chain ``ecg_clean`` -> ``ecg_peaks`` ->
``ecg_rate`` -> ``ecg_rsp`` on its first ECG lead (once, and on the N records in one process);
the ratios ours / peer are printed.

The children run with Python's bytecode cache on (in a temporary folder), as an installed
package does, whatever ``PYTHONDONTWRITEBYTECODE`` says; the untimed first run fills it.

Wall time is what users feel; CPU time (user + sys of the child) is printed next to it
because on a shared machine the wall time grows with the load (printed at start and end).

Usage::

    EDR_DATA_DIR=/path/to/data python benchmarks/bench_cli.py [--repeat 5] [--records 10]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def interpreter_s() -> float:
    """Seconds for 10**7 Python additions (the least of three): how fast this machine runs the
    interpreter right now. A shared virtual machine's speed varies (``docs/studies/first_run.md``);
    two reports' figures compare only through it."""
    best = float("inf")
    for _ in range(3):
        t0, total = time.perf_counter(), 0
        for i in range(10**7):
            total += i
        best = min(best, time.perf_counter() - t0)
    return best


def _load() -> str:
    one, five, _ = os.getloadavg()
    return (f"load average {one:.1f} (5 min {five:.1f}) on {os.cpu_count()} CPUs; "
            f"10**7 Python additions in {interpreter_s():.2f} s")


def _child_env(pycache: str) -> dict[str, str]:
    """The environment of the timed children: Python's bytecode cache on (under ``pycache``), as
    for an installed package, even when the caller's environment sets
    ``PYTHONDONTWRITEBYTECODE`` (then every module of the package would be compiled from source
    at every start)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = pycache
    return env


def _timed(cmd: list[str], expect: int, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + sys) seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != expect:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode} (expected {expect}): "
                         f"{proc.stderr[-500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


TARGET_ONE_S = 1.5
TARGET_PER_RECORD_S = 0.4
PEER = """
import sys, warnings
import neurokit2 as nk, wfdb
warnings.simplefilter("ignore")
for path in sys.argv[1:]:
    rec = wfdb.rdrecord(path[:-4])
    names = [n.strip(" ,").upper() for n in rec.sig_name]
    ecg = rec.p_signal[:, next(i for i, n in enumerate(names) if n in ("II", "V", "I", "ECG"))]
    fs = rec.fs
    clean = nk.ecg_clean(ecg, sampling_rate=fs)
    _, info = nk.ecg_peaks(clean, sampling_rate=fs)
    rate = nk.ecg_rate(info["ECG_R_Peaks"], sampling_rate=fs, desired_length=len(ecg))
    nk.ecg_rsp(rate, sampling_rate=fs)
"""


def _bench(label: str, cmd: list[str], repeat: int, env: dict[str, str], expect: int = 0,
           per: int = 1) -> tuple[float, float]:
    _timed(cmd, expect, env)  # warm the file cache, the bytecode cache and Numba's cache
    runs = [_timed(cmd, expect, env) for _ in range(repeat)]
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    extra = f"; per record {wall / per:.2f} s wall, {cpu / per:.2f} s CPU" if per > 1 else ""
    print(f"[cli] {label}: median {wall:.2f} s wall, {cpu:.2f} s CPU "
          f"(runs {', '.join(f'{r[0]:.2f}' for r in runs)}){extra}", flush=True)
    return wall, cpu


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=5,
                   help="timed runs per case (median reported; default 5)")
    p.add_argument("--records", type=int, default=10,
                   help="records of the one-process case (default 10)")
    p.add_argument("--record", default="bidmc01",
                   help="record of the single-record case (default bidmc01)")
    p.add_argument("--skip-many", action="store_true", help="skip the several-records case")
    args = p.parse_args(argv)

    data = Path(os.environ.get("EDR_DATA_DIR", "")) / "bidmc"
    if not data.is_dir():
        raise SystemExit("set EDR_DATA_DIR to a folder holding bidmc/")
    py = [sys.executable, "-m", "edr.extract"]
    print(f"[cli] {_load()} at the start; {sys.executable}")
    with tempfile.TemporaryDirectory() as tmp:
        env = _child_env(str(Path(tmp) / "pycache"))
        _bench("argument error (--sigma2 banana)",
               [*py, "--sigma2", "banana", str(data / f"{args.record}.dat")],
               args.repeat, env, expect=2)
        _bench("--help", [*py, "--help"], args.repeat, env)
        one = str(data / f"{args.record}.dat")
        wall, cpu = _bench(f"one 8-minute record ({args.record}) end to end",
                           [*py, one, "-o", str(Path(tmp) / "one.csv")], args.repeat, env)
        p_wall, p_cpu = _bench("peer: NeuroKit2 minimal chain, one record, fresh process",
                               [sys.executable, "-c", PEER, one], args.repeat, env)
        print(f"[cli] one record: ratio ours/peer = {wall / p_wall:.2f} (wall), "
              f"{cpu / p_cpu:.2f} (CPU); target <= {TARGET_ONE_S:g} s: "
              f"{'MET' if wall <= TARGET_ONE_S else 'MISSED'} (wall)")
        if not args.skip_many:
            recs = sorted(data.glob("bidmc??.dat"))[: args.records]
            n = len(recs)
            wall, cpu = _bench(f"{n} records in one process",
                               [*py, *map(str, recs), "-o", str(Path(tmp) / "many") + os.sep,
                                "--overwrite"], max(1, args.repeat // 2), env, per=n)
            p_wall, p_cpu = _bench(f"peer: NeuroKit2 minimal chain, {n} records in one process",
                                   [sys.executable, "-c", PEER, *map(str, recs)],
                                   max(1, args.repeat // 2), env, per=n)
            print(f"[cli] {n} records: ratio ours/peer = {wall / p_wall:.2f} (wall), "
                  f"{cpu / p_cpu:.2f} (CPU); target <= {TARGET_PER_RECORD_S:g} s per record: "
                  f"{'MET' if wall / n <= TARGET_PER_RECORD_S else 'MISSED'} (wall)")
    print(f"[cli] {_load()} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
