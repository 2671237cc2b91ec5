"""Beat-to-beat alternation on top of slow breathing: rates before and after the carried limit.

Simulated records (``edr.simulate.simulate_recording``, one lead II at 250 Hz, 300 s, heart
74 /min, breathing 12 /min, RSA 2 bpm, amplitude modulation 5 %) with electrical alternans
(``alternans=0.15``) or bigeminy (``bigeminy_prematurity=0.3``, wide or narrow ectopic beats),
seeds 0-2. Each record is analysed once as the default extraction does it; its window panels are
then fused, stitched, judged and scored (``scripts/nested_scores.run``) with the rate rule before
(no limit, tilt 1, quality threshold 0.5) and after (the search and the weights limited to what
the beats carry, ``edr.signal.carried_bpm``; tilt and threshold the defaults). The alternation
sits at half the heart rate, 37 /min.

Usage: ``python scripts/measure_alternation.py --out scripts/output/measure_alternation.md``
"""

from __future__ import annotations

import argparse

import numpy as np
from _shared import write_markdown
from measure_generalisation_loso import Ref, figures
from nested_scores import rates_at, run

from edr.fusion import ALIGN_LAG_S, CONSENSUS, FUSION_POWER, HEART_PHASE, LOCAL_S
from edr.options import EDROptions
from edr.pipeline import extract_edr
from edr.rates import QUALITY_THRESHOLD
from edr.scoring import score
from edr.signal import NYQUIST_MARGIN_BPM, RATE_TILT
from edr.simulate import simulate_recording
from edr.window_analysis import analyse_window
from edr.windows import output_grid, record_leads, window_plan

SLOW = dict(heart_rate_bpm=74.0, resp_rate_hz=0.2, amplitude_modulation=0.05, rsa_bpm=2.0)
CASES = {"alternans": dict(alternans=0.15),
         "bigeminy, wide ectopic beats": dict(bigeminy_prematurity=0.3),
         "bigeminy, narrow ectopic beats": dict(bigeminy_prematurity=0.3, ectopic_width=1.0)}
FUSION = dict(baseline="centred", rsa=True, local_s=LOCAL_S, consensus=CONSENSUS,
              power=FUSION_POWER, max_lag_s=ALIGN_LAG_S, anchor="morphology", components=3,
              heart_phase=HEART_PHASE)
BEFORE = dict(FUSION, tilt=1.0, carried=False, threshold=0.5)
AFTER = dict(FUSION, tilt=RATE_TILT, carried=True, threshold=QUALITY_THRESHOLD)


def analysed(rec) -> dict:
    """The default extraction's window analyses of a simulated record, in the form of
    ``scripts/accuracy_cache.py``'s (one QRS matrix baseline, the default's)."""
    opts = EDROptions()
    leads = record_leads(rec, opts)
    duration = rec.ecg.size / rec.fs
    grid = output_grid(duration, opts.fs_out)
    plan = window_plan(duration, opts)
    windows = [(w, analyse_window(w, leads, rec.fs, grid, opts)) for w in plan]
    reference = dict(resp=rec.resp, resp_fs=rec.resp_fs, breath_times=rec.breath_times,
                     name=rec.name)
    ramp = extract_edr(rec, "r_amplitude")
    return dict(grid=grid, plan=plan, windows={"centred": windows}, reference=reference,
                ramp=figures(ramp, Ref(reference), plan))


def row(name: str, seed: int, label: str, f: dict, threshold: float) -> str:
    rate = rates_at(f, threshold)
    given = np.isfinite(rate)
    near = given & (rate > f["half_hr"] - 2 * NYQUIST_MARGIN_BPM)
    return (f"| {name} | {seed} | {label} | {f['msc']:.2f} | {given.mean():.0%} | "
            f"{np.nanmedian(rate) if given.any() else np.nan:.1f} | "
            f"{np.nanmax(np.abs(rate - f['ref_bpm'])) if given.any() else np.nan:.1f} | "
            f"{near.sum()} | {np.median(f['half_hr']):.1f} |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="scripts/output/measure_alternation.md")
    args = ap.parse_args(argv)
    lines = ["# Beat-to-beat alternation on top of slow breathing", "",
             f"Command: `python scripts/measure_alternation.py --out {args.out}`", "",
             f"Before: {BEFORE}. After: {AFTER}. Rates near half the heart rate: within two "
             "margins (7.5 bpm) of it.", "",
             "| case | seed | rule | MSC | rates given | median rate (bpm) | largest error (bpm) "
             "| rates near half the heart rate | half the heart rate (bpm) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, kw in CASES.items():
        for seed in (0, 1, 2):
            rec = simulate_recording(300.0, 250.0, leads=("II",), random_state=seed, **SLOW, **kw)
            a = analysed(rec)
            for label, cfg in (("before", BEFORE), ("after", AFTER)):
                lines.append(row(name, seed, label, run(a, cfg), cfg["threshold"]))
            res = extract_edr(rec)
            lines.append(f"| {name} | {seed} | extract_edr | {score(res, rec).msc:.2f} | "
                         f"{np.isfinite(res.rate_bpm).mean():.0%} | "
                         f"{np.nanmedian(res.rate_bpm):.1f} | | | |")
    return write_markdown(args.out, lines)


if __name__ == "__main__":
    raise SystemExit(main())
