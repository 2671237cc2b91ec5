"""Which Shannon-entropy estimator should ``kpca.selection`` use?  Measured on real ECG (BIDMC).

For each BIDMC record (lead II, whole 8-min record, aligned QRS windows, beats as data points —
the default ``edr.pipeline.extract_edr(..., method="kpca")``), sigma2 is chosen by

* Shannon, 256-bin histogram of the kernel entries on [0, 1] (public re-implementations),
* Shannon, 1024-bin histogram (sensitivity to the bin count),
* Shannon, KDE differential entropy (bin-free alternative),
* the rule of thumb (Eq. (20) of Varon et al. 2015) and MDD with n_c = 1 (q = 100),

and the EDR is scored against the reference respiration with the evaluation protocol
(docs/design.md, section 5) (``edr.scoring.score``: MSC around f_ref, |r|).  Output: one
CSV row per record and criterion, and a summary (median, 25th, 75th percentile of the MSC per
criterion).

Run:  EDR_DATA_DIR=../shared/data python scripts/measure_shannon_bidmc.py [--records N]
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

import numpy as np

from edr.io import read_record
from edr.pipeline import extract_edr
from edr.scoring import score

VARIANTS = {
    "shannon-hist256": ("shannon", {"estimator": "histogram", "bins": 256}),
    "shannon-hist1024": ("shannon", {"estimator": "histogram", "bins": 1024}),
    "shannon-kde": ("shannon", {"estimator": "kde", "bins": 1024}),
    "rule-of-thumb": ("rule-of-thumb", {}),
    "mdd-nc1": ("mdd", {}),
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=None, help="first N records only")
    ap.add_argument("--offset", type=int, default=0,
                    help="skip the first K records (to split a run)")
    ap.add_argument("-o", "--output", default="scripts/output/shannon_bidmc.csv")
    ap.add_argument("--summary-only", nargs="+", metavar="CSV",
                    help="summarise existing CSV file(s)")
    args = ap.parse_args(argv)
    if args.summary_only:
        rows = []
        for path in args.summary_only:
            with open(path) as fh:
                rows += [{**r, "msc": float(r["msc"] or "nan"), "corr": float(r["corr"] or "nan")}
                         for r in csv.DictReader(fh)]
        summarize(rows, len({r["record"] for r in rows}), ", ".join(args.summary_only))
        return
    root = Path(os.environ.get("EDR_DATA_DIR", "")) / "bidmc"
    if not root.is_dir():
        sys.exit(f"BIDMC records not found under {root}: set EDR_DATA_DIR")
    names = sorted(p.stem for p in root.glob("bidmc[0-9][0-9].hea"))[args.offset:][: args.records]
    keys = ["record", "criterion", "sigma2", "msc", "corr", "n_beats", "seconds", "error"]
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    fh = open(out, "w", newline="")  # written row by row: a partial run keeps what it measured
    w = csv.DictWriter(fh, fieldnames=keys)
    w.writeheader()
    rows = []
    for name in names:
        rec = read_record(root / name)
        for label, (crit, opts) in VARIANTS.items():
            t0 = time.perf_counter()
            try:
                res = extract_edr(rec, "kpca", sigma2=crit, random_state=0, **opts)
                sc = score(res, rec)
                row = {"record": name, "criterion": label, "sigma2": res.sigma2, "msc": sc.msc,
                       "corr": sc.corr, "n_beats": res.n_beats, "seconds": time.perf_counter() - t0}
            except Exception as exc:  # a record the pipeline rejects is reported, not hidden
                row = {"record": name, "criterion": label, "sigma2": np.nan, "msc": np.nan,
                       "corr": np.nan, "n_beats": 0, "seconds": time.perf_counter() - t0,
                       "error": f"{type(exc).__name__}: {exc}"}
            rows.append(row)
            w.writerow({k: row.get(k, "") for k in keys})
            fh.flush()
            print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                           for k, v in row.items()),
                  flush=True)
    fh.close()
    summarize(rows, len(names), out)


def summarize(rows, n_records, out):
    """Print MSC median (25th, 75th) and median |r| per criterion, over the records that have
    every criterion (a partial run may stop mid-record), plus paired win counts vs hist256."""
    seen, unique = set(), []
    for r in rows:  # split runs may overlap: keep the first row per (record, criterion)
        if (r["record"], r["criterion"]) not in seen:
            seen.add((r["record"], r["criterion"]))
            unique.append(r)
    rows = unique
    have = {}
    for r in rows:
        have.setdefault(r["record"], set()).add(r["criterion"])
    complete = {rec for rec, c in have.items() if set(VARIANTS) <= c}
    rows = [r for r in rows if r["record"] in complete]
    n_records = len(complete)
    print(f"\n{n_records} complete records -> {out}\ncriterion            MSC median (25th, 75th)  "
          "  |r| median   MSC higher/equal/lower than shannon-hist256 (paired)")
    base = {r["record"]: r["msc"] for r in rows if r["criterion"] == "shannon-hist256"}
    for label in VARIANTS:
        m = np.array([r["msc"] for r in rows if r["criterion"] == label], dtype=float)
        c = np.array([r["corr"] for r in rows if r["criterion"] == label], dtype=float)
        q = np.nanpercentile(m, [50, 25, 75])
        d = np.array([r["msc"] - base[r["record"]] for r in rows if r["criterion"] == label])
        wins = f"{np.sum(d > 1e-9)}/{np.sum(np.abs(d) <= 1e-9)}/{np.sum(d < -1e-9)}"
        print(f"{label:20s} {q[0]:.3f} ({q[1]:.3f}, {q[2]:.3f})          {np.nanmedian(c):.3f}     "
              f" {wins}")


if __name__ == "__main__":
    main()
