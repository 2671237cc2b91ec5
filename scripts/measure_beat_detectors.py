"""Choose the default R-peak detector of ``edr.beats.detect`` by measurement.

For every BIDMC record in ``$EDR_DATA_DIR/bidmc`` and every candidate NeuroKit2
detector, on lead II and the next ECG lead of the record:

* **agreement across leads** — F1 of lead II's beats against the beats of the
  record's next ECG lead (same detector, match within 50 ms); the leads see
  the same heart, so disagreement is a detection error;
* **RR irregularity** — the fraction of beats flagged ectopic, and the median
  absolute successive RR difference (ms); false and missed beats inflate both;
* **downstream EDR quality** — protocol (docs/design.md, section 5) MSC and |r| of a simple EDR
  from lead II: the first linear principal component of the QRS-window matrix
  (valid beats), and the R amplitude series;
* run time per lead.

It also measures whether dropping *clipped* beats (lead II saturates in many
BIDMC records) helps or hurts the downstream MSC: ``msc_pca`` uses the
default policy of ``detect`` (clipped beats dropped only when they are a
minority), ``msc_pca_keepclipped`` never drops them, ``msc_pca_dropclipped``
always does (NaN when fewer than 20 beats remain).

Usage::

    EDR_DATA_DIR=../shared/data python scripts/measure_beat_detectors.py \
        [--methods neurokit,pantompkins1985,...] [--records bidmc01,...] \
        [-o scripts/output/beat_detectors.txt]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from edr import scoring
from edr.beats import detect
from edr.errors import SignalError
from edr.io import read_record
from edr.modulation import qrs_matrix, r_amplitude
from edr.signal import GRID_FS, bandpass, to_uniform_grid

CANDIDATES = ["neurokit", "pantompkins1985", "hamilton2002", "elgendi2010", "engzeemod2012",
              "kalidas2017", "rodrigues2021"]


def f1_match(a: np.ndarray, b: np.ndarray, tol: float) -> float:
    """F1 of beat times ``a`` against ``b`` (greedy nearest match within ``tol`` s)."""
    if a.size == 0 or b.size == 0:
        return 0.0
    j = np.clip(np.searchsorted(b, a), 1, b.size - 1)
    nearest = np.minimum(np.abs(b[j - 1] - a), np.abs(b[j] - a))
    tp = int(np.sum(nearest <= tol))
    return 2 * tp / (a.size + b.size)


def simple_scores(values, beats, keep, rec):
    """Protocol MSC and |r| of a beat-sampled series (beats in ``keep``); NaN if < 20 beats."""
    if keep.sum() < 20:
        return np.nan, np.nan
    t = beats.times[keep]
    tg, xg = to_uniform_grid(t, values[keep], t_start=np.ceil(t[0]), t_end=np.floor(t[-1]))
    edr = bandpass(xg)
    res = type("R", (), {"time": tg, "waveform": edr, "fs": GRID_FS})
    sc = scoring.score(res, rec)
    return sc.msc, sc.corr


def pca_edr(mat):
    if mat.shape[0] < 20:
        return np.full(mat.shape[0], np.nan)
    xc = mat - mat.mean(axis=0)
    _, _, vt = np.linalg.svd(xc, full_matrices=False)
    return xc @ vt[0]


def one_record(args):
    path, methods = args
    rec = read_record(path)
    rows = []
    for method in methods:
        per_lead = {}
        secs = {}
        # lead II and the first other lead of the record (enough for agreement, half the cost)
        names = ["II"] + [n for n in rec.leads if n != "II"][:1]
        for name in names:
            x = rec.leads[name]
            t0 = time.perf_counter()
            try:
                per_lead[name] = detect(x, rec.fs, method=method)
            except (SignalError, ValueError, IndexError) as exc:
                per_lead[name] = exc
            secs[name] = time.perf_counter() - t0
        b = per_lead.get("II")
        if not hasattr(b, "peaks"):
            rows.append(dict(record=rec.name, method=method, failed=str(b)))
            continue
        others = [v for k, v in per_lead.items() if k != "II" and hasattr(v, "peaks")]
        agree = np.mean([f1_match(b.times, o.times, 0.05) for o in others]) if others else np.nan
        rr = np.diff(b.times)
        msc_pca, r_pca = simple_scores(pca_edr(qrs_matrix(rec.leads["II"], rec.fs, b)[b.valid]),
                                       _sub(b, b.valid), np.ones(b.valid.sum(), bool), rec)
        ra = r_amplitude(rec.leads["II"], rec.fs, b)
        msc_ra, r_ra = simple_scores(ra, b, b.valid, rec)
        mat = qrs_matrix(rec.leads["II"], rec.fs, b)
        keep_clip = b.valid | b.clipped
        msc_pca_c, _ = simple_scores(pca_edr(mat[keep_clip]), _sub(b, keep_clip),
                                     np.ones(keep_clip.sum(), bool), rec)
        drop_clip = b.valid & ~b.clipped
        msc_pca_d, _ = simple_scores(pca_edr(mat[drop_clip]), _sub(b, drop_clip),
                                     np.ones(drop_clip.sum(), bool), rec)
        rows.append(dict(record=rec.name, method=method, n=len(b), agree=agree,
                         ectopic=b.n_ectopic / len(b),
                         msd_ms=1000 * np.median(np.abs(np.diff(rr))),
                         clipped=float(b.clipped.mean()), valid=float(b.valid.mean()),
                         msc_pca=msc_pca, r_pca=r_pca, msc_ra=msc_ra, r_ra=r_ra,
                         msc_pca_keepclipped=msc_pca_c, msc_pca_dropclipped=msc_pca_d,
                         sec=float(np.mean(list(secs.values())))))
    return rows


def _sub(b, mask):
    """A shallow Beats view restricted to ``mask`` (for the spline times)."""
    from dataclasses import replace
    return replace(b, peaks=b.peaks[mask], valid=b.valid[mask])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", default=",".join(CANDIDATES))
    ap.add_argument("--records", default=None)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("-o", "--output", default="scripts/output/beat_detectors.txt")
    a = ap.parse_args(argv)
    root = Path(os.environ.get("EDR_DATA_DIR", "")) / "bidmc"
    if not root.is_dir():
        sys.exit(f"set EDR_DATA_DIR to a folder holding bidmc/ (not found: {root})")
    names = a.records.split(",") if a.records else sorted(
        p.stem for p in root.glob("bidmc??.hea"))
    methods = a.methods.split(",")
    with ProcessPoolExecutor(a.jobs) as ex:
        rows = [r for rs in ex.map(one_record,
                                   [(str(root / n), methods) for n in names]) for r in rs]
    cols = ["n", "agree", "ectopic", "msd_ms", "clipped", "valid", "msc_pca", "r_pca", "msc_ra",
            "r_ra", "msc_pca_keepclipped", "msc_pca_dropclipped", "sec"]
    lines = [f"# {' '.join(sys.argv)}", f"# {len(names)} records; medians over records "
             "(failures: records where lead II gave < 20 beats or an error)",
             f"{'method':<16} fail " + " ".join(f"{c:>10}" for c in cols)]
    for m in methods:
        ok = [r for r in rows if r["method"] == m and "failed" not in r]
        fail = sum(1 for r in rows if r["method"] == m and "failed" in r)
        med = [np.nanmedian([r[c] for r in ok]) if ok else np.nan for c in cols]
        lines.append(f"{m:<16} {fail:>4} " + " ".join(f"{v:>10.3f}" for v in med))
    lines.append("")
    lines.append("# per record (method, record, " + ", ".join(cols) + ")")
    for r in rows:
        if "failed" in r:
            lines.append(f"{r['method']} {r['record']} FAILED {r['failed']}")
        else:
            lines.append(f"{r['method']} {r['record']} " + " ".join(f"{r[c]:.3f}" for c in cols))
    out = Path(a.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:len(methods) + 3]))


if __name__ == "__main__":
    main()
