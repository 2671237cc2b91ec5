"""Speed as users feel it: every row of the speed targets, with its peer or floor, in one run.

Rows (``--rows``, default all), each the median of ``--repeat`` runs (default 5) after one
untimed run (file, bytecode and Numba caches warm); whole processes where the row is about a
process:

* ``cli`` — ``python -m edr.extract bidmc01.hea -o x.csv`` in a fresh process against
  NeuroKit2's minimal chain in a fresh process (read the record with wfdb, ``ecg_clean`` ->
  ``ecg_peaks`` -> ``ecg_rate`` -> ``ecg_rsp``; ``bench_cli.PEER``). Target: ours / peer <= 1.0
  and ours <= import floor + 0.5 s.
* ``floor`` — the import floor, ``python -c "import numpy, scipy.signal, numba, sklearn.base,
  wfdb"``, against ``python -c pass``; the command line above the floor is printed. Target:
  CLI - floor <= 0.5 s. Printed next to it: the floor plus Numba's first call of a cached
  function (``NUMBA_FIRST_CALL``), Numba's own start-up that ``import numba`` leaves out, and
  what the command line loads of that stack today (``STACK_IMPORTS``).
* ``phases`` (not a target) — a fresh process's start-up and one record phase by phase (the
  stack it loads, Numba's first call, our imports, reading, the first and a warm extraction),
  in a child process (``PHASES``): which part of the command line is whose floor.
* ``warm`` — the default (read + :func:`edr.pipeline.extract_edr`) on the 8-minute record in
  this process, warm, against NeuroKit2's minimal chain on the same ECG
  (``bench_edr.nk_minimal_chain``); CPU by stage printed (``bench_edr._stage_split``). Target:
  <= 0.15 s wall and <= 5x the chain.
* ``many`` — 10 BIDMC records in one ``python -m edr.extract`` command (its two worker processes
  on Linux, CPU included); per record beyond
  start-up = (wall - import floor) / records, and the marginal record (wall - one-record CLI)
  / (records - 1). Target: <= 0.25 s per record beyond start-up.
* ``day`` — a synthetic 24-hour record (``bench_edr.write_day``: 250 Hz, one lead, WFDB), read
  + extract in a fresh process each run (``bench_edr._run_child``), peak resident memory
  (VmHWM) of that process. Target: <= 20 s (read + extract) and <= 400 MB.
* ``stream`` — ``python -m edr.stream bidmc01.dat -o s.csv --speed max`` (8 minutes replayed)
  against the start-up (the import floor). Target: <= floor + 4.8 s (>= 100x real time beyond
  start-up).

The machine's load (``os.getloadavg``) and how fast it runs the interpreter
(``bench_cli.interpreter_s``) are printed at the start and the end: on a shared machine the
wall times grow with the one and vary with the other, and only the ratios within a run compare
between runs; CPU times are printed next to the wall times. The data folder is
``$EDR_DATA_DIR`` (``bidmc/`` in it); the rows that need it are skipped without it.

Usage::

    EDR_DATA_DIR=/path/to/data python benchmarks/bench_speed_targets.py [--rows cli floor ...]
        [--repeat 5] [--records 10] [--hours 24] [--quick]

``--quick`` (a smoke test): one run per row, 3 records, a 3-minute "day" (not judged).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_cli import PEER, _bench, _child_env, _load  # noqa: E402  (the CLI timings' helpers)
from bench_edr import (  # noqa: E402  (the pipeline timings' helpers)
    _run_child,
    _stage_split,
    _timed,
    nk_minimal_chain,
    write_day,
)

ROWS = ("cli", "floor", "phases", "warm", "many", "day", "stream")
FLOOR_IMPORTS = "import numpy, scipy.signal, numba, sklearn.base, wfdb"
"""The import floor as the speed targets define it (the stack the command line once loaded)."""
STACK_IMPORTS = "import numpy, numba, scipy.fft, scipy.linalg, scipy.special, wfdb"
"""What the default command line loads of its stack today (``edr.dsp`` and the light ``kpca``
core keep scipy.signal/stats/interpolate and scikit-learn off it: the test
``tests/edr/test_default_path_imports.py``)."""
TARGET_CLI_RATIO = 1.0
"""Largest ratio command line / NeuroKit2 chain, both fresh processes."""
TARGET_ABOVE_FLOOR_S = 0.5
"""Largest time (s) of the one-record command line above the import floor."""
TARGET_WARM_S = 0.15
"""Largest warm wall time (s) of the default on an 8-minute record, in process."""
TARGET_WARM_RATIO = 5.0
"""Largest ratio warm default / NeuroKit2 chain, in process."""
TARGET_PER_RECORD_S = 0.25
"""Largest time (s) per record beyond start-up, records in one command."""
TARGET_DAY_S = 20.0
TARGET_DAY_MB = 400.0
STREAM_BUDGET_S = 4.8
"""Largest replay time (s) of 8 minutes beyond start-up (100x real time)."""
DAY_WINDOW_S = 300.0
NUMBA_FIRST_CALL = """import numba


@numba.njit(cache=True)
def one(x):
    return x + 1.0
"""
"""A module with one cached Numba function: its first call in a process is Numba's own floor
(``import numba`` does not build Numba's typing and target machinery; the first call, even
from the cache, does)."""
PHASES = """
import json, sys, time
out, t, c = {}, time.perf_counter(), time.process_time()
def mark(name):
    global t, c
    out[name] = (time.perf_counter() - t, time.process_time() - c)
    t, c = time.perf_counter(), time.process_time()
import numpy, numba, scipy.fft, scipy.linalg, scipy.special, wfdb
mark("the stack the command line loads (numpy, numba, scipy.fft/linalg/special, wfdb)")
sys.path.insert(0, sys.argv[2])
import numba_first_call
numba_first_call.one(1.0)
mark("Numba's first call of a cached function (its typing and target machinery)")
import edr.extract.cli, edr.extract.record, edr.io.wfdb_reader, edr.pipeline, edr.scoring
mark("edr and kpca imports of the command line")
from edr.io import read_record
from edr.pipeline import extract_edr
rec = read_record(sys.argv[1])
mark("read the record (WFDB header, signals, breath annotations)")
extract_edr(rec)
mark("extract, first call (the pipeline's Numba functions loaded from the cache)")
extract_edr(rec)
mark("extract again (warm; not part of one command)")
print(json.dumps(out))
"""
"""A fresh process's start-up and one record, phase by phase (wall, CPU)."""


@dataclass
class Row:
    """One line of the table: what was timed, against what, and the verdict."""

    work: str
    measure: str
    peer: str
    ratio: str
    target: str
    met: bool | None  # None: not judged (quick mode, or a missing part)


def verdict(met: bool | None) -> str:
    """``met``, ``NOT MET`` or ``n/a``."""
    return "n/a" if met is None else ("met" if met else "NOT MET")


def table(rows: list[Row]) -> str:
    """The rows as a Markdown table."""
    lines = ["| work | measured | peer / floor (same run) | ratio | target | verdict |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {r.work} | {r.measure} | {r.peer} | {r.ratio} | {r.target} | {verdict(r.met)} |"
              for r in rows]
    return "\n".join(lines)


class Run:
    """The measurements of one run, each taken once and shared by the rows that need it."""

    def __init__(self, data: Path | None, repeat: int, record: str, records: int, hours: float,
                 tmp: str):
        self.data, self.repeat, self.record = data, repeat, record
        self.records, self.hours, self.tmp = records, hours, tmp
        self.env = _child_env(str(Path(tmp) / "pycache"))
        self.py = sys.executable
        self._cache: dict[str, tuple[float, float]] = {}
        self.notes: list[str] = []

    def _once(self, key, label, cmd, per=1):
        if key not in self._cache:
            self._cache[key] = _bench(label, cmd, self.repeat, self.env, per=per)
        return self._cache[key]

    def numba_floor(self):
        folder = Path(self.tmp) / "numba_floor"
        folder.mkdir(exist_ok=True)
        (folder / "numba_first_call.py").write_text(NUMBA_FIRST_CALL)
        code = f"{FLOOR_IMPORTS}\nimport sys\nsys.path.insert(0, {str(folder)!r})\n" \
               "import numba_first_call\nnumba_first_call.one(1.0)"
        return self._once("numba_floor", "import floor + Numba's first cached call",
                          [self.py, "-c", code])

    def rec(self, ext: str) -> str:
        return str(self.data / f"{self.record}{ext}")

    def floor(self):
        return self._once("floor", "import floor", [self.py, "-c", FLOOR_IMPORTS])

    def stack(self):
        return self._once("stack", "the stack the command line loads",
                          [self.py, "-c", STACK_IMPORTS])

    def bare(self):
        return self._once("bare", "python -c pass", [self.py, "-c", "pass"])

    def cli(self):
        return self._once("cli", f"python -m edr.extract {self.record}.hea -o x.csv",
                          [self.py, "-m", "edr.extract", self.rec(".hea"), "-o",
                           str(Path(self.tmp) / "x.csv")])

    def peer(self):
        return self._once("peer", "NeuroKit2 minimal chain, fresh process",
                          [self.py, "-c", PEER, self.rec(".dat")])


def row_cli(run: Run) -> Row:
    (wall, cpu), (p_wall, p_cpu), (f_wall, _) = run.cli(), run.peer(), run.floor()
    ok = wall / p_wall <= TARGET_CLI_RATIO and wall <= f_wall + TARGET_ABOVE_FLOOR_S
    return Row(f"`python -m edr.extract {run.record}.hea -o x.csv`",
               f"{wall:.2f} s wall ({cpu:.2f} s CPU)",
               f"NeuroKit2 minimal chain, fresh process: {p_wall:.2f} s ({p_cpu:.2f} s CPU); "
               f"floor {f_wall:.2f} s",
               f"{wall / p_wall:.2f}x", f"<= {TARGET_CLI_RATIO:g}x the peer and <= floor + "
               f"{TARGET_ABOVE_FLOOR_S:g} s ({f_wall + TARGET_ABOVE_FLOOR_S:.2f} s)", ok)


def row_floor(run: Run) -> Row:
    (f_wall, f_cpu), (b_wall, _), (n_wall, _) = run.floor(), run.bare(), run.numba_floor()
    s_wall = run.stack()[0]
    above, ok = "CLI not timed", None
    if run.data is not None:
        cli = run.cli()[0]
        ok = cli - f_wall <= TARGET_ABOVE_FLOOR_S
        above = f"CLI - floor = {cli - f_wall:.2f} s; CLI - (floor + Numba's first call) = " \
                f"{cli - n_wall:.2f} s"
    return Row(f'import floor: `python -c "{FLOOR_IMPORTS}"`', f"{f_wall:.2f} s wall "
               f"({f_cpu:.2f} s CPU)", f"`python -c pass` {b_wall:.2f} s; floor + Numba's first "
               f"call of a cached function {n_wall:.2f} s; what the CLI loads of it today, "
               f'`python -c "{STACK_IMPORTS}"`, {s_wall:.2f} s', above,
               f"CLI - floor <= {TARGET_ABOVE_FLOOR_S:g} s", ok)


def row_phases(run: Run) -> None:
    """Not a target: where a fresh process's time goes, phase by phase, in a child process
    (``PHASES``); appended to ``run.notes``."""
    import json

    run.numba_floor()  # writes the module of Numba's first call
    cmd = [run.py, "-c", PHASES, run.rec(""), str(Path(run.tmp) / "numba_floor")]
    runs = []
    for i in range(run.repeat + 1):  # the first run untimed: caches warm
        done = subprocess.run(cmd, capture_output=True, text=True, env=run.env)
        if done.returncode:
            raise SystemExit(f"the phases child failed: {done.stderr[-500:]}")
        if i:
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    lines = [f"Where a fresh process's time goes on {run.record} (median of {len(runs)} child "
             "processes; `PHASES` in this script):", "",
             "| phase | wall (s) | CPU (s) |", "|---|---|---|"]
    for name in runs[0]:
        wall = statistics.median(r[name][0] for r in runs)
        cpu = statistics.median(r[name][1] for r in runs)
        lines.append(f"| {name} | {wall:.3f} | {cpu:.3f} |")
    run.notes.append("\n".join(lines))
    print(run.notes[-1], flush=True)


def row_warm(run: Run) -> Row:
    import warnings

    from edr.io import read_record
    from edr.pipeline import extract_edr

    path = run.rec("")
    ecg_rec = read_record(path)

    def ours():
        return extract_edr(read_record(path))

    def peer():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return nk_minimal_chain(ecg_rec.ecg, ecg_rec.fs)

    _, cold, wall, runs, cpu = _timed(ours, run.repeat)
    _, _, p_wall, _, p_cpu = _timed(peer, run.repeat)
    print(f"[warm] default: cold {cold:.2f} s, warm runs {', '.join(f'{r:.3f}' for r in runs)}",
          flush=True)
    stages = _stage_split(path)
    total = sum(stages.values())
    print("[warm] CPU by stage (one run): " + ", ".join(
        f"{k} {v:.3f} s ({100 * v / total:.0f} %)" for k, v in stages.items()), flush=True)
    ok = wall <= TARGET_WARM_S and wall / p_wall <= TARGET_WARM_RATIO
    return Row(f"the default on {run.record} (8 min), in process, warm",
               f"{wall:.3f} s wall, {cpu:.3f} s CPU",
               f"NeuroKit2 minimal chain {p_wall:.3f} s wall, {p_cpu:.3f} s CPU",
               f"{wall / p_wall:.1f}x wall, {cpu / p_cpu:.1f}x CPU",
               f"<= {TARGET_WARM_S:g} s wall, <= {TARGET_WARM_RATIO:g}x the chain", ok)


def row_many(run: Run) -> Row:
    recs = sorted(run.data.glob("bidmc??.dat"))[: run.records]
    n = len(recs)
    wall, cpu = _bench(f"{n} records in one command",
                       [run.py, "-m", "edr.extract", *map(str, recs), "-o",
                        str(Path(run.tmp) / "many") + os.sep, "--overwrite"],
                       run.repeat, run.env, per=n)
    f_wall = run.floor()[0]
    per = (wall - f_wall) / n
    marginal = (wall - run.cli()[0]) / max(n - 1, 1)
    return Row(f"{n} BIDMC records in one `python -m edr.extract` command",
               f"{wall:.2f} s wall ({cpu:.2f} s CPU): {per:.2f} s per record beyond start-up",
               f"floor {f_wall:.2f} s; one-record CLI {run.cli()[0]:.2f} s",
               f"marginal record {marginal:.2f} s",
               f"<= {TARGET_PER_RECORD_S:g} s per record beyond start-up",
               per <= TARGET_PER_RECORD_S)


def row_day(run: Run) -> Row:
    path = write_day(run.tmp, run.hours, 250.0)
    _run_child(path, DAY_WINDOW_S, False)  # untimed: caches warm
    outs = []
    for _ in range(run.repeat):
        out, wall = _run_child(path, DAY_WINDOW_S, False)
        outs.append((out["read_s"] + out["extract_s"], out["read_s"] + out["extract_cpu_s"],
                     out["maxrss_mb"], wall))
        print(f"[day] read + extract {outs[-1][0]:.1f} s wall ({outs[-1][1]:.1f} s CPU), peak "
              f"{outs[-1][2]:.0f} MB, process {wall:.1f} s", flush=True)
    med = [statistics.median(o[i] for o in outs) for i in range(4)]
    full = run.hours == 24.0
    note = "" if full else "; the targets are for 24 h: not judged"
    return Row(f"synthetic {run.hours:g}-h record (250 Hz, one lead{note}), read + extract",
               f"{med[0]:.1f} s wall ({med[1]:.1f} s CPU), peak {med[2]:.0f} MB",
               f"whole process {med[3]:.1f} s", "",
               f"<= {TARGET_DAY_S:g} s and <= {TARGET_DAY_MB:g} MB",
               (med[0] <= TARGET_DAY_S and med[2] <= TARGET_DAY_MB) if full else None)


def row_stream(run: Run) -> Row:
    wall, cpu = _bench(f"edr stream {run.record}.dat --speed max",
                       [run.py, "-m", "edr.stream", run.rec(".dat"), "-o",
                        str(Path(run.tmp) / "s.csv"), "--speed", "max"], run.repeat, run.env)
    f_wall = run.floor()[0]
    return Row(f"`python -m edr.stream {run.record}.dat -o s.csv --speed max` (8 min)",
               f"{wall:.2f} s wall ({cpu:.2f} s CPU)",
               f"start-up (import floor) {f_wall:.2f} s",
               f"{480.0 / max(wall - f_wall, 1e-9):.0f}x real time beyond start-up, "
               f"{480.0 / wall:.0f}x with it",
               f"<= start-up + {STREAM_BUDGET_S:g} s ({f_wall + STREAM_BUDGET_S:.2f} s)",
               wall <= f_wall + STREAM_BUDGET_S)


BUILDERS = {"cli": row_cli, "floor": row_floor, "phases": row_phases, "warm": row_warm,
            "many": row_many, "day": row_day, "stream": row_stream}
NEEDS_DATA = {"cli", "phases", "warm", "many", "stream"}


def _header(argv: list[str]) -> str:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE,
                            capture_output=True, text=True).stdout.strip() or "unknown"
    return (f"# bench_speed_targets {' '.join(argv)}\n"
            f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit}, "
            f"Python {platform.python_version()}, {platform.machine()}, {_load()} at the start")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", nargs="+", choices=ROWS, default=list(ROWS),
                   help="rows to measure (default all)")
    p.add_argument("--repeat", type=int, default=5, help="timed runs per row (median; default 5)")
    p.add_argument("--record", default="bidmc01", help="BIDMC record (default bidmc01)")
    p.add_argument("--records", type=int, default=10, help="records of the 'many' row")
    p.add_argument("--hours", type=float, default=24.0, help="length of the 'day' record")
    p.add_argument("--quick", action="store_true",
                   help="smoke test: 1 run per row, 3 records, a 3-minute day")
    given = sys.argv[1:] if argv is None else list(argv)
    args = p.parse_args(given)
    if args.quick:
        args.repeat, args.records, args.hours = 1, min(args.records, 3), 0.05
    folder = Path(os.environ.get("EDR_DATA_DIR", "")) / "bidmc"
    data = folder if os.environ.get("EDR_DATA_DIR") and folder.is_dir() else None
    print(_header(given), flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="edr_speed_") as tmp:
        run = Run(data, args.repeat, args.record, args.records, args.hours, tmp)
        for name in ROWS:
            if name not in args.rows:
                continue
            if name in NEEDS_DATA and data is None:
                print(f"[{name}] skipped: set EDR_DATA_DIR to a folder holding bidmc/",
                      flush=True)
                continue
            row = BUILDERS[name](run)
            if row is not None:
                rows.append(row)
    print(f"\n{table(rows)}\n")
    for note in run.notes:
        print(f"{note}\n")
    print(f"# {_load()} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
