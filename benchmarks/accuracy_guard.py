"""Accuracy guard of the default σ² selection against the paper-exact MDD selection.

Every BIDMC and MARSH record is analysed twice as the default extraction does it (the
leave-one-subject-out driver's ``analyse``, ``scripts/measure_generalisation_loso.py``): with
the default criterion (``edr.methods.DEFAULT_SIGMA2``) and with the paper-exact MDD selection
(``sigma2="mdd"``: q = 100 draws over the full grid, per window and lead). Printed:

* the figures of both per database with the default's fusion (``--grid default`` of the
  driver) — median MSC, median |r|, median and mean rate error — and their differences; the
  guard passes when every MSC and |r|
  is within :data:`TOL_SCORE` and every rate error within :data:`TOL_BPM` bpm of the exact
  selection's;
* the share of (window, lead) selections whose σ² is within one grid step (a factor
  ``2**(1/3)``) of the exact one; the guard needs at least :data:`MIN_WITHIN_STEP`.

Usage::

    EDR_DATA_DIR=/path/to/data python benchmarks/accuracy_guard.py [--cache DIR]

``--cache DIR`` keeps the two sets of analyses (``exact.pkl``, ``default.pkl``) and reuses them.
It takes about a quarter of an hour on 2 cores. ``bench_edr.py --guard`` runs it after the
speed figures.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from measure_generalisation_loso import (  # noqa: E402  (the LOSO driver's machinery)
    analyse,
    database,
    held_out,
    record_paths,
)

TOL_SCORE = 0.01
"""Largest change of a median MSC or |r|."""
TOL_BPM = 0.05
"""Largest change (bpm) of a median or mean rate error."""
MIN_WITHIN_STEP = 0.95
"""Smallest share of selections within one grid step of the exact one."""
GRID_STEP_LOG2 = 1.0 / 3.0
"""One step of the default σ² grid, in octaves (``kpca.selection._common.default_grid``)."""


def analyses(sigma2, cache_file):
    """``{record: analysis}`` of every record with criterion ``sigma2``, and the CPU seconds."""
    from edr.methods import FUSION_BASELINE
    from edr.options import EDROptions

    if cache_file and os.path.exists(cache_file):
        with open(cache_file, "rb") as fh:
            return pickle.load(fh)
    c0 = time.process_time()
    out = {}
    for p in record_paths(os.environ["EDR_DATA_DIR"]):
        name = os.path.basename(p)[:-4]
        out[name] = analyse(p[:-4] + ".dat", replace(EDROptions(), sigma2=sigma2),
                            variants=(FUSION_BASELINE,))
        print(f"[guard] {sigma2}: {name}", file=sys.stderr, flush=True)
    result = (out, time.process_time() - c0)
    if cache_file:
        with open(cache_file, "wb") as fh:
            pickle.dump(result, fh)
    return result


def lead_sigma2(records) -> dict:
    """``{(record, window start, lead): σ²}`` of every lead's selection."""
    from edr.methods import FUSION_BASELINE

    out = {}
    for name, rec in records.items():
        for w, wa in rec["windows"][FUSION_BASELINE]:
            per_lead = wa.output.quality.get("lead_sigma2") or {wa.segment.lead: wa.output.sigma2}
            out.update({(name, w.start_s, lead): s2 for lead, s2 in per_lead.items()})
    return out


def figures(held, db) -> np.ndarray:
    """Held-out median MSC, median |r|, median and mean rate error of one database."""
    rows = np.array([[v["msc"], v["r"], v["err"]] for n, v in held.items() if database(n) == db])
    return np.array([np.median(rows[:, 0]), np.median(rows[:, 1]), np.nanmedian(rows[:, 2]),
                     np.nanmean(rows[:, 2])])


def run_guard(cache_dir=None) -> bool:
    """Print the guard's figures; True when it passes (``cache_dir``, created when missing,
    keeps the analyses)."""
    from edr.methods import DEFAULT_SIGMA2

    if cache_dir:
        os.makedirs(cache_dir, exist_ok=True)
    files = {k: (os.path.join(cache_dir, f"{k}.pkl") if cache_dir else None)
             for k in ("exact", "default")}
    exact, cpu_exact = analyses("mdd", files["exact"])
    fast, cpu_fast = analyses(DEFAULT_SIGMA2, files["default"])
    print(f"[guard] analyses of {len(exact)} records: exact selection {cpu_exact:.0f} s CPU, "
          f"default ({DEFAULT_SIGMA2!r}) {cpu_fast:.0f} s CPU (ratio {cpu_exact / cpu_fast:.1f})")
    ok = True
    held = {k: held_out(r, "default")[1] for k, r in (("exact", exact), ("default", fast))}
    tol = np.array([TOL_SCORE, TOL_SCORE, TOL_BPM, TOL_BPM])
    for db in ("BIDMC", "MARSH"):
        a, b = figures(held["exact"], db), figures(held["default"], db)
        passed = bool(np.all(np.abs(b - a) <= tol + 1e-12))
        ok &= passed
        print(f"[guard] {db}, default fusion, exact -> default selection: MSC {a[0]:.3f} -> "
              f"{b[0]:.3f}, |r| {a[1]:.3f} -> {b[1]:.3f}, rate error median {a[2]:.2f} -> "
              f"{b[2]:.2f} bpm, mean {a[3]:.2f} -> {b[3]:.2f} bpm; tolerance {TOL_SCORE} / "
              f"{TOL_BPM} bpm: {'PASS' if passed else 'FAIL'}")
    s_exact, s_fast = lead_sigma2(exact), lead_sigma2(fast)
    keys = sorted(set(s_exact) & set(s_fast))
    steps = np.array([abs(np.log2(s_fast[k] / s_exact[k])) / GRID_STEP_LOG2 for k in keys])
    share = float(np.mean(steps <= 1.0 + 1e-9))
    same = float(np.mean(steps <= 1e-9))
    passed = share >= MIN_WITHIN_STEP
    ok &= passed
    print(f"[guard] sigma2 of {len(keys)} (window, lead) selections: {same:.1%} identical, "
          f"{share:.1%} within one grid step of the exact selection (largest {steps.max():.1f} "
          f"steps); needed >= {MIN_WITHIN_STEP:.0%}: {'PASS' if passed else 'FAIL'}")
    print(f"[guard] accuracy guard: {'PASS' if ok else 'FAIL'}")
    return ok


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cache", help="folder keeping the analyses (reused when present)")
    args = p.parse_args(argv)
    return 0 if run_guard(args.cache) else 1


if __name__ == "__main__":
    sys.exit(main())
