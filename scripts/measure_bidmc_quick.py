"""Quick BIDMC evaluation of the EDR methods.

Runs :func:`edr.pipeline.extract_edr` on the 30 BIDMC records (lead II unless
``--lead``) for each method (and each σ² criterion for the kernel methods),
scores every result with the evaluation protocol (docs/design.md, section 5)
(:func:`edr.scoring.score`: MSC, |r|, respiratory-rate error against
the ann1 breath annotations) and prints the median (25th, 75th percentile)
over records. Per-record rows go to ``--csv``.

Usage::

    EDR_DATA_DIR=../shared/data python scripts/measure_bidmc_quick.py \
        --methods kpca,pca,r_amplitude,qrs_area,rsa,kpca_rsa,neurokit_vangent2019 \
        --criteria mdd,shannon,rule-of-thumb --jobs 2 \
        --csv scripts/output/bidmc_quick.csv

The method sees the ECG only; the reference enters the scoring alone.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from _shared import median_iqr


def _records(folder: Path) -> list[Path]:
    return sorted(p.with_suffix("") for p in folder.glob("bidmc[0-9][0-9].hea"))


def _one(args):
    path, method, criterion, lead, window_s, options = args
    from edr.io import read_record
    from edr.pipeline import extract_edr
    from edr.scoring import score

    rec = read_record(path)
    t0 = time.perf_counter()
    kw = dict(options)
    if criterion != "none":
        kw["sigma2"] = float(criterion) if _is_number(criterion) else criterion
    try:
        res = extract_edr(rec, method, lead=lead, window_s=window_s, **kw)
        s = score(res, rec)
        row = dict(msc=s.msc, corr=s.corr, rate_error_bpm=s.rate_error_bpm, sigma2=res.sigma2,
                   n_beats=res.n_beats, error="")
    except Exception as exc:  # one failing record must not hide the others; it is reported
        row = dict(msc=np.nan, corr=np.nan, rate_error_bpm=np.nan, sigma2=None, n_beats=0,
                   error=f"{type(exc).__name__}: {exc}".splitlines()[0])
    row.update(record=rec.name, method=method, criterion=criterion, lead=lead or rec.ecg_channel,
               seconds=time.perf_counter() - t0)
    return row


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def _cell(a) -> str:
    return median_iqr(a, na="      n/a          ")


def _print_table(rows) -> None:
    print(f"# {'method':22s} {'criterion':14s} {'MSC median (25th, 75th)':26s} "
          f"{'|r|':26s} {'rate error bpm':26s} errors")
    for m in dict.fromkeys(r["method"] for r in rows):
        for c in dict.fromkeys(r["criterion"] for r in rows if r["method"] == m):
            sub = [r for r in rows if r["method"] == m and r["criterion"] == c]
            err = sum(bool(r["error"]) for r in sub)
            print(f"  {m:22s} {c:14s} {_cell([r['msc'] for r in sub]):26s} "
                  f"{_cell([r['corr'] for r in sub]):26s} "
                  f"{_cell([r['rate_error_bpm'] for r in sub]):26s} {err}")
    for r in rows:
        if r["error"]:
            print(f"  ! {r['record']} {r['method']} {r['criterion']}: {r['error']}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--methods", default="kpca,pca,r_amplitude,qrs_area,rsa,kpca_rsa")
    p.add_argument("--criteria", default="mdd",
                   help="σ² criteria (or numbers) for the kernel methods")
    p.add_argument("--lead", default=None)
    p.add_argument("--window-s", type=float, default=None)
    p.add_argument("--option", action="append", default=[], help="method option KEY=VALUE")
    p.add_argument("--records", default=None, help="comma-separated record names (default: all)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--csv", default=None)
    p.add_argument("--summarise", nargs="+", default=None, metavar="CSV",
                   help="only print the table of existing per-record CSV files")
    a = p.parse_args(argv)
    if a.summarise:
        rows = []
        for path in a.summarise:
            with open(path, newline="") as f:
                rows += [dict(r, msc=float(r["msc"]), corr=float(r["corr"]),
                              rate_error_bpm=float(r["rate_error_bpm"])) for r in csv.DictReader(f)]
        _print_table(rows)
        return 0
    root = Path(os.environ.get("EDR_DATA_DIR", "")) / "bidmc"
    recs = _records(root)
    if a.records:
        keep = set(a.records.split(","))
        recs = [r for r in recs if r.name in keep]
    if not recs:
        print(f"no BIDMC records under {root} (set EDR_DATA_DIR)", file=sys.stderr)
        return 2
    options = dict(kv.split("=", 1) for kv in a.option)
    from edr.methods import METHODS

    tasks = []
    for m in a.methods.split(","):
        crits = a.criteria.split(",") if METHODS[m].uses_sigma2 else ["none"]
        for c in crits:
            opts = options if METHODS[m].uses_sigma2 else {}
            tasks += [(str(r), m, c, a.lead, a.window_s, opts) for r in recs]
    t0 = time.perf_counter()
    cols = ["record", "method", "criterion", "lead", "msc", "corr", "rate_error_bpm", "sigma2",
            "n_beats", "seconds", "error"]
    rows = []
    out = None
    if a.csv:
        Path(a.csv).parent.mkdir(parents=True, exist_ok=True)
        out = open(a.csv, "w", newline="")
        writer = csv.DictWriter(out, fieldnames=cols)
        writer.writeheader()
    with ProcessPoolExecutor(a.jobs) as ex:
        for row in ex.map(_one, tasks, chunksize=1):  # rows written as they arrive
            rows.append(row)
            if out is not None:
                writer.writerow({k: row[k] for k in cols})
                out.flush()
    if out is not None:
        out.close()
    print(f"# {len(recs)} BIDMC records, lead {a.lead or 'II (recording default)'}, "
          f"window_s={a.window_s}, options={options}; {time.perf_counter() - t0:.0f} s")
    _print_table(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
