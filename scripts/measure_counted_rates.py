"""Window rates chosen by the EDR's own breaths against the spectral peak alone.

Every shared BIDMC and MARSH record and a set of simulated records is extracted with the default
twice: as it is (the rates chosen by the breaths, ``edr.breath_rates.with_counted_rates``) and
with that step left out (each window's spectral peak, as before). Rates are scored window by
window against the reference's count (``edr.scoring.window_rates``): coverage, share within
2 bpm, windows off by more than 5 bpm, the per-record median absolute error (median and mean
over records), bias and limits of agreement; then the windows whose rate the breaths changed,
better or worse. The simulated records: breathing that switches between 6 and 24 /min every 45 s
with weak respiratory sinus arrhythmia (where the deep slow breaths own the periodogram of a
window that holds both), the project's paced protocol, and the anaesthesia and healthy
scenarios at 300 Hz in arbitrary units (regular breathing: the precision of the rate must stay).
The reference only scores; no constant is chosen here (the rule has none of its own).

Usage: ``EDR_DATA_DIR=/path/to/data python scripts/measure_counted_rates.py --out
scripts/output/measure_counted_rates.md``
"""

from __future__ import annotations

import argparse
import glob
import os

import numpy as np
from _shared import write_markdown

import edr.pipeline as pipeline
from edr.io import read_record
from edr.scoring import window_rates
from edr.simulate import SCENARIOS, simulate_recording

SWITCHING = {**SCENARIOS["paced_breathing"], "resp_rate_schedule_hz": (0.1, 0.4),
             "resp_rate_step_s": 45.0, "rsa_bpm": 2.0}
"""Paced breathing alternating 6 and 24 /min every 45 s, weak respiratory sinus arrhythmia."""
REGULAR = ("ventilated", "child_ventilated", "child_spontaneous", "healthy_rest")
SEEDS = range(4)


def _rates(rec, counted: bool):
    """``(edr_bpm, ref_bpm)`` of the default's rate windows, with or without the count."""
    real = pipeline.with_counted_rates
    try:
        if not counted:
            pipeline.with_counted_rates = lambda result: result
        _, edr_bpm, ref_bpm = window_rates(pipeline.extract_edr(rec), rec)
    finally:
        pipeline.with_counted_rates = real
    return edr_bpm, ref_bpm


def _row(name: str, pairs) -> str:
    """One table row of ``(edr_bpm, ref_bpm)`` pairs, one per record."""
    d, per_record, n_ref, n_given = [], [], 0, 0
    for e, r in pairs:
        ok = np.isfinite(r)
        given = ok & np.isfinite(e)
        n_ref, n_given = n_ref + ok.sum(), n_given + given.sum()
        d.append(e[given] - r[given])
        if given.any():
            per_record.append(np.median(np.abs(e[given] - r[given])))
    d = np.concatenate(d)
    sd = d.std(ddof=1)
    return (f"| {name} | {n_given / n_ref:.1%} | {np.mean(np.abs(d) <= 2):.1%} | "
            f"{int(np.sum(np.abs(d) > 5))} | {np.median(per_record):.2f} / "
            f"{np.mean(per_record):.2f} | {d.mean():+.2f} ({d.mean() - 1.96 * sd:+.1f} … "
            f"{d.mean() + 1.96 * sd:+.1f}) |")


def _changed(records, spectral, counted) -> list[str]:
    """The windows whose rate the breaths moved by more than 0.5 bpm, and whether closer."""
    out = ["| record | window centre (s) | spectral peak | chosen by the breaths | reference | |",
           "|---|---|---|---|---|---|"]
    better = worse = 0
    for rec, (e0, ref), (e1, _) in zip(records, spectral, counted, strict=True):
        for i in np.flatnonzero(np.isfinite(e0) & np.isfinite(ref) & (np.abs(e0 - e1) > 0.5)):
            closer = abs(e1[i] - ref[i]) < abs(e0[i] - ref[i])
            better, worse = better + closer, worse + (not closer)
            out.append(f"| {rec.name} | {16 * i + 16} | {e0[i]:.1f} | {e1[i]:.1f} | "
                       f"{ref[i]:.1f} | {'closer' if closer else 'farther'} |")
    return [f"{better} windows closer to the reference, {worse} farther.", "", *out]


HEAD = ["| | coverage | within 2 bpm | off by > 5 bpm | per-record median error, median / "
        "mean (bpm) | bias (limits of agreement) |", "|---|---|---|---|---|---|"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="scripts/output/measure_counted_rates.md")
    args = ap.parse_args(argv)
    root = os.environ["EDR_DATA_DIR"]
    lines = ["# Window rates chosen by the EDR's breaths", "",
             f"Command: `python scripts/measure_counted_rates.py --out {args.out}`", ""]
    for db, pattern in (("BIDMC", "bidmc/bidmc??.hea"), ("MARSH", "marsh/m????.hea")):
        records = [read_record(p[:-4]) for p in sorted(glob.glob(os.path.join(root, pattern)))]
        spectral = [_rates(r, False) for r in records]
        counted = [_rates(r, True) for r in records]
        lines += [f"## {db} ({len(records)} records, in-sample: the rule has no constant)", "",
                  *HEAD, _row("spectral peak", spectral), _row("chosen by the breaths", counted),
                  "", *_changed(records, spectral, counted), ""]
    lines += ["## Simulated (4 seeds each)", "", *HEAD]
    sims = {"switching 6 / 24 per min, 8 min, 250 Hz": [
        simulate_recording(480.0, 250.0, leads=("II",), random_state=s, **SWITCHING)
        for s in SEEDS]}
    sims["paced protocol, 8 min, 250 Hz"] = [
        simulate_recording(480.0, 250.0, leads=("II",), random_state=s,
                           **SCENARIOS["paced_breathing"]) for s in SEEDS]
    for name in REGULAR:
        recs = [simulate_recording(300.0, 300.0, leads=("II",), name=name, random_state=s,
                                   **SCENARIOS[name]) for s in SEEDS]
        for r in recs:
            r.ecg[:] *= 1000.0  # arbitrary units
        sims[f"{name}, 5 min, 300 Hz"] = recs
    for name, recs in sims.items():
        lines += [_row(f"{name}: spectral peak", [_rates(r, False) for r in recs]),
                  _row(f"{name}: chosen by the breaths", [_rates(r, True) for r in recs])]
    return write_markdown(args.out, lines + [""])


if __name__ == "__main__":
    raise SystemExit(main())
