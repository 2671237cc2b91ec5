"""Throughput and memory of the streaming EDR.

1. Throughput: a simulated 125 Hz three-lead record (``--minutes``, default 30) pushed in
   1 s blocks through :class:`edr.stream.StreamingEDR` with the defaults; CPU
   (process time, every thread) of the stream alone, as a multiple of real time, plus the
   per-update CPU (median and 99th percentile). The peers, timed in the same run on the same
   record: NeuroKit2's minimal EDR chain (``ecg_clean`` -> ``ecg_peaks`` -> ``ecg_rate`` ->
   ``ecg_rsp``, whole record, first lead) and the offline default
   (:func:`edr.pipeline.extract_edr`, every lead); the ratios stream CPU / peer CPU are
   printed.
2. Memory: a simulated stream of ``--hours`` (default 24) generated chunk by chunk
   (independent 10-minute simulated records, so the generator holds 10 minutes at a
   time), peak RSS (VmHWM) after the first hour and at the end, in a child process
   so nothing else shares its high-water mark. ``--hours 0`` skips it.

Usage::

    python benchmarks/bench_stream.py --minutes 30 --hours 24
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import numpy as np  # noqa: E402
from _shared import peak_rss_mb  # noqa: E402

FS = 125.0
LEADS = ("II", "V2", "I")


def throughput(minutes: float) -> dict:
    from edr.simulate import simulate_recording
    from edr.stream import StreamingEDR

    rec = simulate_recording(minutes * 60.0, FS, leads=LEADS, random_state=11)
    x = np.column_stack([rec.leads[n] for n in LEADS])
    s = StreamingEDR(FS, leads=LEADS)
    s.push(x[:int(40 * FS)])  # warm-up (imports, Numba) outside the timing
    per = []
    c0 = time.process_time()
    w0 = time.perf_counter()
    block = int(FS)
    for i in range(int(40 * FS), x.shape[0], block):
        a = time.process_time()
        ups = s.push(x[i:i + block])
        if ups:
            per.append(time.process_time() - a)
    s.flush()
    cpu = time.process_time() - c0
    wall = time.perf_counter() - w0
    dur = (x.shape[0] - 40 * FS) / FS
    return {"duration_s": dur, "cpu_s": cpu, "wall_s": wall, "x_real_time": dur / cpu,
            "update_ms_median": 1e3 * float(np.median(per)),
            "update_ms_p99": 1e3 * float(np.percentile(per, 99)), "n_updates": len(per),
            "selections": s.n_selections, "peers": _peers(rec, x[int(40 * FS):, 0])}


def _peers(rec, ecg) -> dict:
    """CPU seconds of NeuroKit2's minimal EDR chain on ``ecg`` and of the offline default on
    ``rec``."""
    import warnings

    from bench_edr import nk_minimal_chain

    from edr.pipeline import extract_edr

    c0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nk_minimal_chain(ecg, FS)
    c1 = time.process_time()
    extract_edr(rec)
    return {"neurokit2": c1 - c0, "offline": time.process_time() - c1}


def memory_child(hours: float) -> None:
    """Runs in a child: stream ``hours`` of simulated ECG, print peak RSS at 1 h and at the end."""
    from edr.simulate import simulate_recording
    from edr.stream import StreamingEDR

    s = StreamingEDR(FS, leads=LEADS)
    piece = 600.0
    n_pieces = int(round(hours * 3600 / piece))
    c0 = time.process_time()
    for j in range(n_pieces):
        rec = simulate_recording(piece, FS, leads=LEADS, random_state=100 + j)
        x = np.column_stack([rec.leads[n] for n in LEADS])
        for i in range(0, x.shape[0], int(FS)):
            s.push(x[i:i + int(FS)])
        if j + 1 == 6:
            print(f"rss_1h {peak_rss_mb():.1f}", flush=True)
        if (j + 1) % 36 == 0:
            print(f"rss_{(j + 1) // 6}h {peak_rss_mb():.1f} cpu {time.process_time() - c0:.0f}",
                  flush=True)
    s.flush()
    print(f"rss_end {peak_rss_mb():.1f} cpu {time.process_time() - c0:.0f} "
          f"updates {s.n_updates} selections {s.n_selections}", flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=30.0)
    p.add_argument("--hours", type=float, default=24.0)
    p.add_argument("--memory-child", type=float, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.memory_child:
        memory_child(args.memory_child)
        return 0
    print(f"load average: {os.getloadavg()[0]:.2f}, {os.getloadavg()[1]:.2f}")
    if args.minutes > 0:
        r = throughput(args.minutes)
        print(f"throughput: {r['duration_s'] / 60:.0f} min of 125 Hz ECG in {r['cpu_s']:.1f} s CPU "
              f"({r['wall_s']:.1f} s wall) = {r['x_real_time']:.0f}x real time; per update "
              f"{r['update_ms_median']:.1f} ms median, {r['update_ms_p99']:.1f} ms p99 "
              f"({r['n_updates']} updates, {r['selections']} sigma2 selections)")
        for name, cpu in r["peers"].items():
            print(f"  peer {name}: {cpu:.2f} s CPU; stream / peer = {r['cpu_s'] / cpu:.1f}")
    if args.hours > 0:
        print(f"memory over a simulated {args.hours:g} h stream (peak RSS as it goes):",
              flush=True)
        with subprocess.Popen([sys.executable, __file__, "--memory-child", str(args.hours)],
                              stdout=subprocess.PIPE, text=True) as proc:
            for line in proc.stdout:
                print(line, end="", flush=True)
        if proc.returncode:
            raise SystemExit(f"the memory child failed with exit code {proc.returncode}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
