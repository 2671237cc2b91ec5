"""End-to-end speed and memory of the EDR pipeline.

1. An 8-minute BIDMC record (default bidmc01, 125 Hz), end to end: read the
   WFDB record, detect and align the beats, choose σ² (the default criterion,
   ``edr.methods.DEFAULT_SIGMA2``: MDD with the sequential stop and the
   coarse-to-fine grid), extract the EDR. Target: <= 0.4 s warm. Timed in
   the same run against the paper-exact MDD selection (``sigma2="mdd"``, q noise
   realisations, default 100) and two NeuroKit2 peers on the same ECG — the minimal
   EDR chain ``ecg_clean`` → ``ecg_peaks`` → ``ecg_rate`` → ``ecg_rsp`` and
   ``ecg_process`` + ``ecg_rsp`` — and split into CPU time per stage of the
   default extraction (``kpca_fusion``, every lead; reading, cleaning, detection,
   alignment, matrix, selection, kPCA, panel, fusion, rates).
2. A synthetic 24-hour record (``edr.simulate``, written as WFDB), end to end
   (read + extract in sliding windows) in a fresh subprocess so that its peak
   resident memory (VmHWM, ``scripts/_shared.peak_rss_mb``) is its own. Targets: <= 30 s, <= 0.5 GB.
   With ``--largescale`` the same record is also extracted with ONE FS2 model over
   all beats (``extract_edr(..., solver="fs2", n_support=M)``) in another
   fresh subprocess, and the ratios windowed / one-model of time and memory are
   printed from the same run.
3. With ``--guard``: the accuracy guard of the default σ² selection against the paper-exact
   one on every BIDMC and MARSH record (``benchmarks/accuracy_guard.py``; about a quarter of an
   hour; ``--guard-cache DIR`` keeps its analyses).

Usage::

    EDR_DATA_DIR=/path/to/data python benchmarks/bench_edr.py
    python benchmarks/bench_edr.py --skip-day            # only the 8-minute record
    python benchmarks/bench_edr.py --hours 2 --profile   # shorter day, cProfile top functions
    python benchmarks/bench_edr.py --skip-record --largescale --n-support 200  # + one FS2 model
    python benchmarks/bench_edr.py --skip-day --guard --guard-cache GUARD_DIR  # + accuracy guard

The first call of each kind is reported separately ("cold": imports, Numba
compilation); the timed figures are the median of ``--repeat`` warm runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from _shared import peak_rss_mb  # noqa: E402  (helpers shared with scripts/)

TARGET_8MIN_S = 0.4
TARGET_DAY_S = 30.0
TARGET_DAY_MB = 512.0


def _timed(fn, repeat):
    """Cold wall time, then median wall and CPU time (all threads) of ``repeat`` warm runs.

    CPU time is reported next to wall time because a shared machine's load
    inflates wall time; on an idle machine the two agree for single-threaded
    code.
    """
    t0 = time.perf_counter()
    out = fn()
    cold = time.perf_counter() - t0
    warm, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        warm.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return out, cold, statistics.median(warm), warm, statistics.median(cpu)


def nk_minimal_chain(ecg, fs):
    """NeuroKit2's shortest EDR chain, the peer of every speed figure: ``ecg_clean`` ->
    ``ecg_peaks`` -> ``ecg_rate`` -> ``ecg_rsp`` on one ECG lead; its EDR."""
    import neurokit2 as nk

    clean = nk.ecg_clean(ecg, sampling_rate=fs)
    _, info = nk.ecg_peaks(clean, sampling_rate=fs)
    rate = nk.ecg_rate(info["ECG_R_Peaks"], sampling_rate=fs, desired_length=len(ecg))
    return nk.ecg_rsp(rate, sampling_rate=fs)


def _stage_split(record_path):
    """CPU seconds per stage of the default extraction (``kpca_fusion``, every ECG lead fused),
    one run, from the public stage functions, lead after lead.

    Stages, summed over the leads: reading (``edr.io.read_record``); mains (the leads as the
    pipeline takes them, ``edr.windows.record_leads``: every ECG lead, its mains line found and
    notched out, :func:`edr.mains.remove_mains`); cleaning
    (``nk.ecg_clean``, the filter ``edr.beats.detect`` runs first); detection
    (``detect(align=False)`` minus cleaning: polarity, peaks, template correlation, RR flags);
    alignment (``detect()`` minus ``detect(align=False)``: sub-sample shifts on the 10x
    upsampled QRS); matrix (``Segment.beat_matrix``: the detrended, robust QRS matrix of the
    valid beats); selection (``kpca.selection.select(..., DEFAULT_SIGMA2, n_components=3)``,
    its Monte-Carlo draws on the thread pool); kPCA (``kpca.KernelPCA`` fit
    + transform of the 3 leading components at the chosen σ²); panel (R amplitude, QRS area and
    the 5 panel series on the grid, band-passed and standardised); fusion (the pooled
    ``edr.fusion.fuse`` of every lead's panel); rates (``edr.rates.rate_quality`` of the fused
    series against the pooled panel). It re-creates the pipeline's steps one lead at a time,
    with BLAS limited to one thread as in the pipeline (which overlaps the leads in threads),
    so its sum is close to, not equal to, the end-to-end CPU time.
    """
    from dataclasses import replace

    import numpy as np

    from edr.fusion import fuse, panel_weights
    from edr.io import read_record
    from edr.options import DEFAULT_MULTI_LEAD, EDROptions
    from edr.rates import rate_quality
    from edr.signal import GRID_FS
    from edr.windows import record_leads
    from kpca._blas import blas_limited_to_one_thread

    cpu = time.process_time
    t = dict.fromkeys(["reading", "mains", "cleaning", "detection", "alignment", "matrix",
                       "selection", "kPCA", "panel", "fusion", "rates"], 0.0)
    c0 = cpu()
    rec = read_record(record_path)
    t["reading"] = cpu() - c0
    fs = rec.fs
    c0 = cpu()
    leads = record_leads(rec, replace(EDROptions(), lead=DEFAULT_MULTI_LEAD))
    t["mains"] = cpu() - c0
    grid = np.arange(int(np.floor(rec.duration_s * GRID_FS + 1e-9))) / GRID_FS
    pooled = {}
    with blas_limited_to_one_thread():
        for name, ecg in leads.items():
            _lead_stages(name, np.asarray(ecg, dtype=float), fs, grid, t, pooled)
    c0 = cpu()
    fused = fuse(pooled, GRID_FS)
    t["fusion"] = cpu() - c0
    c0 = cpu()
    rate_quality(fused.series, pooled, panel_weights(pooled, GRID_FS), fs=GRID_FS)
    t["rates"] = cpu() - c0
    return t


def _lead_stages(name, ecg, fs, grid, t, pooled):
    """One lead's stages of :func:`_stage_split`: adds their CPU seconds to ``t`` and the lead's
    standardised panel series to ``pooled``."""
    import neurokit2 as nk

    from edr.beats import detect
    from edr.fusion import standardised
    from edr.methods import (
        DEFAULT_SIGMA2,
        FUSION_COMPONENTS,
        MethodOutput,
        Segment,
        series_on_grid,
    )
    from edr.modulation import qrs_area, r_amplitude
    from edr.signal import GRID_FS
    from kpca import KernelPCA
    from kpca.selection import select

    cpu = time.process_time
    c0 = cpu()
    nk.ecg_clean(ecg, sampling_rate=fs, method="neurokit")
    t_clean = cpu() - c0
    c0 = cpu()
    detect(ecg, fs, align=False)
    t_unaligned = cpu() - c0
    c0 = cpu()
    beats = detect(ecg, fs)
    t_full = cpu() - c0
    t["cleaning"] += t_clean
    t["detection"] += max(t_unaligned - t_clean, 0.0)
    t["alignment"] += max(t_full - t_unaligned, 0.0)
    seg = Segment(ecg, fs, 0.0, beats, grid, GRID_FS, name)
    c0 = cpu()
    X, tb, _ = seg.beat_matrix()
    t["matrix"] += cpu() - c0
    c0 = cpu()
    sel = select(X, DEFAULT_SIGMA2, n_components=FUSION_COMPONENTS, random_state=0)
    t["selection"] += cpu() - c0
    c0 = cpu()
    Z = KernelPCA(n_components=FUSION_COMPONENTS, sigma2=sel.sigma2,
                  random_state=0).fit_transform(X)
    t["kPCA"] += cpu() - c0
    c0 = cpu()
    v = seg.valid
    series = {f"kpca_{j + 1}": MethodOutput(tb, Z[:, j]) for j in range(Z.shape[1])}
    series["r_amplitude"] = MethodOutput(seg.beat_times[v], r_amplitude(ecg, fs, beats)[v])
    series["qrs_area"] = MethodOutput(seg.beat_times[v], qrs_area(ecg, fs, beats)[v])
    for k, o in series.items():
        pooled[f"{name}/{k}"] = standardised(series_on_grid(seg, o), GRID_FS)
    t["panel"] += cpu() - c0


def bench_record(record_path, repeat, q):
    """Our pipeline end to end (default, and with the paper-exact MDD selection) against two
    NeuroKit2 peers on the same ECG, in one run."""
    from edr.io import read_record
    from edr.methods import DEFAULT_SIGMA2
    from edr.pipeline import extract_edr

    print(f"[8-min] load average at the start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")

    def ours():
        rec = read_record(record_path)
        return rec, extract_edr(rec)

    def ours_exact():
        return extract_edr(read_record(record_path), sigma2="mdd", n_draws=q)

    (rec, res), cold, warm, runs, cpu = _timed(ours, repeat)
    print(f"[8-min] {rec.name}: {rec.duration_s:.0f} s at {rec.fs:g} Hz, lead {res.lead}, "
          f"{res.n_beats} beats used, {res.n_beats_dropped} dropped, sigma2 {res.sigma2:.4g}")
    n_leads = len(res.windows[0].quality.get("fused_leads", [res.lead]))
    print(f"[8-min] ours {res.method} ({n_leads} leads), default sigma2={DEFAULT_SIGMA2!r}, end "
          f"to end: cold {cold:.2f} s, warm median {warm:.2f} s wall (runs "
          f"{', '.join(f'{r:.2f}' for r in runs)}; min {min(runs):.2f}), {cpu:.2f} s CPU; "
          f"target <= {TARGET_8MIN_S:g} s: {'MET' if warm <= TARGET_8MIN_S else 'MISSED'} (wall)")
    exact, _, e_warm, _, e_cpu = _timed(ours_exact, repeat)
    print(f"[8-min] ours with the paper-exact selection (sigma2='mdd', q={q}): warm median "
          f"{e_warm:.2f} s wall, {e_cpu:.2f} s CPU, sigma2 {exact.sigma2:.4g}; ratio exact/default "
          f"= {e_warm / warm:.2f} (wall), {e_cpu / cpu:.2f} (CPU)")

    import neurokit2 as nk

    ecg, fs = rec.ecg, rec.fs

    def peer_minimal():  # the shortest NeuroKit2 EDR chain
        return nk_minimal_chain(ecg, fs)

    def peer_process():  # the documented NeuroKit2 route
        signals, _ = nk.ecg_process(ecg, sampling_rate=fs)
        return nk.ecg_rsp(signals["ECG_Rate"].to_numpy(), sampling_rate=fs)

    for name, fn in (("ecg_clean+ecg_peaks+ecg_rate+ecg_rsp", peer_minimal),
                     ("ecg_process+ecg_rsp", peer_process)):
        _, p_cold, p_warm, _, p_cpu = _timed(fn, repeat)
        print(f"[8-min] peer NeuroKit2 {name}: cold {p_cold:.2f} s, warm median {p_warm:.2f} s "
              f"wall, {p_cpu:.2f} s CPU; ratio ours/peer = {warm / p_warm:.2f} (wall), "
              f"{cpu / p_cpu:.2f} (CPU)")

    splits = [_stage_split(record_path) for _ in range(repeat)]
    med = {k: statistics.median(s[k] for s in splits) for k in splits[0]}
    total = sum(med.values())
    print(f"[8-min] ours, CPU by stage (median of {repeat} runs; sum {total:.2f} s vs end to end "
          f"{cpu:.2f} s): "
          + ", ".join(f"{k} {v:.3f} s ({100 * v / total:.0f} %)" for k, v in med.items()))
    print(f"[8-min] load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


def _child_day(path, window_s, profile, n_support=None):
    """Run in a fresh process: read + extract one long record; print a JSON line.

    ``n_support`` None: windowed dense kPCA; an int: one FS2 model with that many
    support vectors (``window_s`` is then unused).
    """
    t0 = time.perf_counter()
    from edr.io import read_record
    from edr.pipeline import extract_edr

    t_import = time.perf_counter() - t0
    t0 = time.perf_counter()
    rec = read_record(path)
    t_read = time.perf_counter() - t0
    kw = {"window_s": window_s} if n_support is None else {"solver": "fs2", "n_support": n_support}
    t0, c0 = time.perf_counter(), time.process_time()
    if profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        res = prof.runcall(extract_edr, rec, **kw)
        pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(25)
    else:
        res = extract_edr(rec, **kw)
    t_extract, c_extract = time.perf_counter() - t0, time.process_time() - c0
    print(json.dumps({
        "import_s": t_import, "read_s": t_read, "extract_s": t_extract, "extract_cpu_s": c_extract,
        "maxrss_mb": peak_rss_mb(),
        "n_beats": res.n_beats, "n_dropped": res.n_beats_dropped, "n_windows": len(res.windows),
        "duration_s": rec.duration_s,
    }))


def _run_child(path, window_s, profile, n_support=None):
    cmd = [sys.executable, __file__, "--child-day", path, "--window", str(window_s)]
    if profile:
        cmd.append("--profile")
    if n_support is not None:
        cmd += ["--n-support", str(n_support)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        print(proc.stderr, file=sys.stderr)
        raise SystemExit(f"[day] child failed with code {proc.returncode}")
    if profile:
        print(proc.stderr)
    return json.loads(proc.stdout.strip().splitlines()[-1]), wall


def write_day(folder, hours, fs):
    """Simulate a ``hours``-long one-lead record at ``fs`` Hz (``edr.simulate``, seed 0) and write
    it as WFDB format 16 record ``day`` in ``folder``; its path (without extension)."""
    import numpy as np
    import wfdb

    from edr.simulate import simulate_recording

    t0 = time.perf_counter()
    rec = simulate_recording(hours * 3600.0, fs, random_state=0, name="day")
    t_sim = time.perf_counter() - t0
    wfdb.wrsamp("day", fs=fs, units=["mV"], sig_name=["II"],
                p_signal=rec.ecg[:, None].astype(np.float64), fmt=["16"], write_dir=str(folder))
    print(f"[day] simulated {hours:g} h at {fs:g} Hz in {t_sim:.1f} s, written as WFDB format 16")
    return os.path.join(folder, "day")


def bench_day(hours, fs, window_s, profile, largescale_m=None):
    with tempfile.TemporaryDirectory(prefix="edr_bench_") as tmp:
        write_day(tmp, hours, fs)
        out, wall = _run_child(os.path.join(tmp, "day"), window_s, profile)
        one = None if largescale_m is None else _run_child(os.path.join(tmp, "day"),
                                                           window_s, profile,
                                                           largescale_m)[0]
    total = out["read_s"] + out["extract_s"]
    print(f"[day] read {out['read_s']:.1f} s + extract {out['extract_s']:.1f} s = {total:.1f} s "
          f"(extract CPU {out['extract_cpu_s']:.1f} s; imports {out['import_s']:.1f} s, process "
          f"wall {wall:.1f} s); {out['n_beats']} beats used, "
          f"{out['n_dropped']} dropped, {out['n_windows']} windows of {window_s:g} s")
    print("[day] peak resident memory of the read + extract process (VmHWM) "
          f"{out['maxrss_mb']:.0f} MB")
    scale = 24.0 / hours
    print(f"[day] targets for 24 h: <= {TARGET_DAY_S:g} s -> "
          f"{'MET' if total * scale <= TARGET_DAY_S else 'MISSED'} (scaled {total * scale:.0f} s); "
          f"<= {TARGET_DAY_MB:g} MB -> {'MET' if out['maxrss_mb'] <= TARGET_DAY_MB else 'MISSED'}")
    cpu_total = out["read_s"] + out["extract_cpu_s"]
    print(f"[day] in CPU time (load-independent): read + extract {cpu_total:.1f} s, scaled to 24 h "
          f"{cpu_total * scale:.0f} s -> "
          f"{'MET' if cpu_total * scale <= TARGET_DAY_S else 'MISSED'}")
    if one is not None:
        print(f"[day] one FS2 model (M = {largescale_m}): extract {one['extract_s']:.1f} s wall, "
              f"{one['extract_cpu_s']:.1f} s CPU, peak {one['maxrss_mb']:.0f} MB (VmHWM), "
              f"{one['n_beats']} beats; ratio windowed / one-model: "
              f"{out['extract_s'] / one['extract_s']:.2f} (wall), "
              f"{out['extract_cpu_s'] / one['extract_cpu_s']:.2f} (CPU), "
              f"{out['maxrss_mb'] / one['maxrss_mb']:.2f} (peak memory)")
    print(f"[day] load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--record", default="bidmc01",
                   help="BIDMC record under $EDR_DATA_DIR/bidmc (default bidmc01)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--q", type=int, default=100,
                   help="noise realisations of the paper-exact MDD reference (default 100)")
    p.add_argument("--hours", type=float, default=24.0)
    p.add_argument("--fs", type=float, default=250.0,
                   help="sampling rate of the synthetic day (Hz)")
    p.add_argument("--window", type=float, default=300.0,
                   help="window length (s) for the day record")
    p.add_argument("--skip-day", action="store_true")
    p.add_argument("--skip-record", action="store_true")
    p.add_argument("--profile", action="store_true",
                   help="print the cProfile top functions of the day run")
    p.add_argument("--largescale", action="store_true",
                   help="also extract the day with one FS2 model over all beats (solver='fs2')")
    p.add_argument("--n-support", type=int, default=None,
                   help="FS2 support vectors for --largescale (default "
                        "edr.methods.DEFAULT_N_SUPPORT)")
    p.add_argument("--guard", action="store_true",
                   help="also run the accuracy guard (benchmarks/accuracy_guard.py)")
    p.add_argument("--guard-cache", help="folder keeping the guard's analyses")
    p.add_argument("--child-day", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child_day:
        _child_day(args.child_day, args.window, args.profile, args.n_support)
        return 0
    if not args.skip_record:
        data = os.environ.get("EDR_DATA_DIR")
        if not data or not (Path(data) / "bidmc" / f"{args.record}.hea").exists():
            print("[8-min] skipped: set EDR_DATA_DIR to a folder holding bidmc/", file=sys.stderr)
        else:
            bench_record(str(Path(data) / "bidmc" / args.record), args.repeat, args.q)
    if not args.skip_day:
        from edr.methods import DEFAULT_N_SUPPORT

        m = (args.n_support or DEFAULT_N_SUPPORT) if args.largescale else None
        bench_day(args.hours, args.fs, args.window, args.profile, m)
    if args.guard:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from accuracy_guard import run_guard

        return 0 if run_guard(args.guard_cache) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
