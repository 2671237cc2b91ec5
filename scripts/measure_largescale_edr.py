"""Measure one large-scale kPCA model per record against windowed dense kPCA.

Compares :func:`edr.pipeline.extract_edr` with ``solver="dense"`` (the default:
dense kernel PCA per 300 s window for records > 600 s, σ² by MDD per window,
windows stitched) and ``solver="fs2"`` (one FS2 + Nyström model over all beats
of the record, σ² by MDD on the support vectors + validation set, Varon et al.
2015 Fig. 8) on

1. simulated long records (:func:`edr.simulate.simulate_recording`, 250 Hz,
   lead II, seed 0 — the 24-hour record of ``benchmarks/bench_edr.py``),
   written as WFDB; each configuration reads + extracts in a fresh
   subprocess whose wall time, CPU time and peak resident memory (VmHWM) are
   its own; the EDR is scored against the simulator's respiration;
2. the 30 BIDMC records (``$EDR_DATA_DIR/bidmc``, lead II, 8 min each, so the
   dense solver sees the whole record in one window), scored against the
   reference by :func:`edr.scoring.score` (rate error against the
   ``ann1`` breath annotations).

Scores follow the evaluation protocol of docs/design.md, section 5 (MSC, |r|, median
respiratory-rate error). Writes a Markdown report (command at the top) and the per-record
BIDMC rows as CSV.

Usage::

    EDR_DATA_DIR=../shared/data OPENBLAS_NUM_THREADS=1 \\
        python scripts/measure_largescale_edr.py --hours 2 24 \\
        --out scripts/output/measure_largescale_edr.md
    python scripts/measure_largescale_edr.py --hours 0.5 --skip-bidmc --out scratch/m.md  # quick
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from _shared import median_iqr, peak_rss_mb

FS_SIM = 250.0
# (label, extract_edr keywords); the first is the reference of the ratios.
DAY_CONFIGS = [
    ("dense, 300 s windows", {}),
    ("fs2 M=100, train_on=all", {"solver": "fs2", "n_support": 100, "train_on": "all"}),
    ("fs2 M=200, train_on=all", {"solver": "fs2", "n_support": 200, "train_on": "all"}),
    ("fs2 M=500, train_on=all", {"solver": "fs2", "n_support": 500, "train_on": "all"}),
    ("fs2 M=200, train_on=support", {"solver": "fs2", "n_support": 200, "train_on": "support"}),
]
BIDMC_CONFIGS = [
    ("dense", {}),
    ("fs2 M=100, train_on=all", {"solver": "fs2", "n_support": 100, "train_on": "all"}),
    ("fs2 M=200, train_on=all", {"solver": "fs2", "n_support": 200, "train_on": "all"}),
    ("fs2 M=200, train_on=support", {"solver": "fs2", "n_support": 200, "train_on": "support"}),
]


def _child(path: str, kwargs_json: str, out_npz: str) -> None:
    """Fresh process: read + extract one record, save the waveform, print a JSON line."""
    from edr.io import read_record
    from edr.pipeline import extract_edr

    kwargs = json.loads(kwargs_json)
    t0 = time.perf_counter()
    rec = read_record(path)
    t_read = time.perf_counter() - t0
    t0, c0 = time.perf_counter(), time.process_time()
    res = extract_edr(rec, "kpca", **kwargs)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    np.savez(out_npz, time=res.time, waveform=res.waveform, fs=res.fs)
    sig = [w.sigma2 for w in res.windows if w.sigma2 is not None]
    print(json.dumps({"read_s": t_read, "extract_s": wall, "extract_cpu_s": cpu,
                      "peak_mb": peak_rss_mb(), "n_beats": res.n_beats,
                      "n_windows": len(res.windows), "sigma2_median": float(np.median(sig)),
                      "n_support": res.params.get("n_support")}))


def _score(npz_path, rec):
    from edr.scoring import score

    d = np.load(npz_path)
    res = SimpleNamespace(time=d["time"], waveform=d["waveform"], fs=float(d["fs"]))
    return score(res, rec)


def measure_day(hours: float, lines: list[str]) -> None:
    import wfdb

    from edr.simulate import simulate_recording

    rec = simulate_recording(hours * 3600.0, FS_SIM, random_state=0, name="day")
    lines += [f"### Simulated {hours:g}-hour record (edr.simulate, {FS_SIM:g} Hz, lead II, seed 0)",
              "",
              "Each row: read + `extract_edr(rec, 'kpca', **kw)` in a fresh subprocess; peak = its "
              "VmHWM (includes the record itself: "
              f"{rec.ecg.size * 8 / 2**20:.0f} MB of float64 samples).", "",
              "| configuration | extract wall (s) | extract CPU (s) | peak memory (MB) | beats | "
              "windows | sigma2 (median) | MSC | abs(r) | rate error (/min) | CPU dense / this |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory(prefix="edr_ls_") as tmp:
        wfdb.wrsamp("day", fs=FS_SIM, units=["mV"], sig_name=["II"],
                    p_signal=rec.ecg[:, None].astype(np.float64), fmt=["16"], write_dir=tmp)
        ref_cpu = None
        for label, kw in DAY_CONFIGS:
            out_npz = os.path.join(tmp, "out.npz")
            cmd = [sys.executable, __file__, "--child", os.path.join(tmp, "day"),
                   json.dumps(kw), out_npz]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                msg = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "?"
                lines.append(f"| {label} | failed: {msg} |")
                print(lines[-1], flush=True)
                continue
            out = json.loads(proc.stdout.strip().splitlines()[-1])
            s = _score(out_npz, rec)
            ref_cpu = out["extract_cpu_s"] if ref_cpu is None else ref_cpu
            lines.append(f"| {label} | {out['extract_s']:.1f} | {out['extract_cpu_s']:.1f} | "
                         f"{out['peak_mb']:.0f} | {out['n_beats']} | {out['n_windows']} | "
                         f"{out['sigma2_median']:.4g} | {s.msc:.3f} | {s.corr:.3f} | "
                         f"{s.rate_error_bpm:.2f} | {ref_cpu / out['extract_cpu_s']:.2f} |")
            print(lines[-1], flush=True)
    lines += ["", f"load average after the {hours:g}-hour runs: {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} CPUs", ""]


def measure_bidmc(root: Path, csv_path: Path, lines: list[str]) -> None:
    from scipy.stats import wilcoxon

    from edr.io import read_record
    from edr.pipeline import extract_edr
    from edr.scoring import score

    records = sorted(p.with_suffix("") for p in root.glob("bidmc[0-9][0-9].hea"))
    rows = []
    for path in records:
        rec = read_record(path)
        for label, kw in BIDMC_CONFIGS:
            c0 = time.process_time()
            try:
                res = extract_edr(rec, "kpca", lead="II", **kw)
                s = score(res, rec)
                row = dict(msc=s.msc, corr=s.corr, rate_error_bpm=s.rate_error_bpm,
                           sigma2=res.sigma2, n_beats=res.n_beats, error="")
            except Exception as exc:  # reported in the table, never hidden
                row = dict(msc=np.nan, corr=np.nan, rate_error_bpm=np.nan, sigma2=np.nan,
                           n_beats=0, error=f"{type(exc).__name__}: {exc}".splitlines()[0])
            row.update(record=rec.name, config=label, cpu_s=time.process_time() - c0)
            rows.append(row)
        print(rec.name,
              " | ".join(f"{r['config']}: {r['msc']:.3f}" for r in rows[-len(BIDMC_CONFIGS):]),
              flush=True)
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    cols = ["record", "config", "msc", "corr", "rate_error_bpm", "sigma2", "n_beats",
            "cpu_s", "error"]
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow({k: r[k] for k in cols})
    lines += [f"### BIDMC, {len(records)} records, lead II, sigma2 by MDD (per-record rows: "
              f"`{csv_path}`)", "",
              "Median (25th, 75th percentile) over records; p = two-sided Wilcoxon signed-rank "
              "test of the per-record MSC against dense.", "",
              "| configuration | MSC | abs(r) | rate error (/min) | CPU s / record (median) | "
              "records where MSC >= dense | p (MSC vs dense) | errors |",
              "|---|---|---|---|---|---|---|---|"]
    dense = {r["record"]: r for r in rows if r["config"] == BIDMC_CONFIGS[0][0]}
    for label, _ in BIDMC_CONFIGS:
        sub = [r for r in rows if r["config"] == label]
        a = np.array([r["msc"] for r in sub])
        b = np.array([dense[r["record"]]["msc"] for r in sub])
        ok = np.isfinite(a) & np.isfinite(b)
        if label == BIDMC_CONFIGS[0][0]:
            wins, p = "-", "-"
        else:
            wins = f"{int(np.sum(a[ok] >= b[ok]))}/{int(ok.sum())}"
            p = f"{wilcoxon(a[ok], b[ok]).pvalue:.3f}"
        lines.append(f"| {label} | {median_iqr(a)} | {median_iqr([r['corr'] for r in sub])} | "
                     f"{median_iqr([r['rate_error_bpm'] for r in sub])} | "
                     f"{np.median([r['cpu_s'] for r in sub]):.2f} | {wins} | {p} | "
                     f"{sum(bool(r['error']) for r in sub)} |")
    for r in rows:
        if r["error"]:
            lines.append(f"- {r['record']} {r['config']}: {r['error']}")
    lines.append("")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hours", type=float, nargs="*", default=[24.0],
                   help="simulated record lengths in hours (default 24; none: skip)")
    p.add_argument("--skip-bidmc", action="store_true")
    p.add_argument("--out", default="scripts/output/measure_largescale_edr.md")
    p.add_argument("--csv", default="scripts/output/measure_largescale_edr_bidmc.csv")
    p.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        _child(*a.child)
        return 0
    cmd = " ".join(["python", "scripts/measure_largescale_edr.py",
                    *(argv if argv is not None else sys.argv[1:])])
    env = " ".join(f"{k}={os.environ[k]}" for k in ("EDR_DATA_DIR",
                                                    "OPENBLAS_NUM_THREADS") if k in os.environ)
    lines = ["# One large-scale kPCA model per record vs windowed dense kPCA", "",
             f"Command: `{env} {cmd}`".replace("`  ", "`"), "",
             f"Started {time.strftime('%Y-%m-%d %H:%M:%S')}, load average {os.getloadavg()[0]:.1f} "
             f"on {os.cpu_count()} CPUs (shared machine: compare CPU seconds, not wall).", ""]
    t0 = time.perf_counter()
    for h in a.hours:
        measure_day(h, lines)
    if not a.skip_bidmc:
        root = Path(os.environ.get("EDR_DATA_DIR", "")) / "bidmc"
        if not any(root.glob("bidmc[0-9][0-9].hea")):
            print(f"no BIDMC records under {root} (set EDR_DATA_DIR)", file=sys.stderr)
            return 2
        measure_bidmc(root, Path(a.csv), lines)
    lines.append(f"Total {time.perf_counter() - t0:.0f} s.")
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
