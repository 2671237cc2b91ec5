"""Leave-one-patient-out choice of the robust EDR's tuned values on the shared BIDMC records.

What is tuned, and over which candidates:

* the robust beat matrix (``edr.modulation.robust_beat_matrix``): running-median span
  ``window_s`` in {off, 10, 20, 30, 60 s} and outlier threshold ``outlier_mads`` in {off, 3, 5, 8};
* the EDR built from the panel (first three kernel principal components at the MDD width, R
  amplitude, QRS area): the first component alone (``k0``, the paper's ``kpca``), the most
  concentrated component (``kwin3``), or the fusion ``edr.fusion.fuse`` with exponent 1, 2 or 4
  (weights measured in ``edr.fusion.WEIGHT_BAND_HZ``), or with exponent 2 and the weights
  measured in the whole protocol band (``fuse2w``);
* with several leads: the fusion of each lead's fused EDR across leads, or one fusion of all
  leads' panels (``joint``, what ``lead="fuse"`` does; ``joint-wide``: weights in the whole
  protocol band);
* the rate-quality threshold of ``edr.rates.rate_quality``: the largest value in 0.20..0.70
  whose training coverage is at least 90 %.

Each of the 23 patients (bidmc06-09, 20-23 and 38-39 are one patient each) is held out in turn;
the configuration with the best median (MSC + |r|) / 2 over the other patients' records is applied
to the held-out one. The held-out figures (LOPO) are printed beside the in-sample best. The
method sees the ECG alone; the reference respiration only scores.

Usage: ``EDR_DATA_DIR=... python scripts/measure_generalisation_lopo.py --out
scripts/output/measure_generalisation_lopo.md``
"""

from __future__ import annotations

import argparse
import glob
import os
import pickle
import sys
from collections import Counter
from itertools import product

import numpy as np
from _shared import subject, write_markdown

from edr.beats import detect
from edr.breath_rates import breath_rate_series
from edr.fusion import fuse, panel_weights, standardised
from edr.io import read_record
from edr.methods import MethodOutput, Segment, series_on_grid
from edr.modulation import qrs_area, r_amplitude, robust_beat_matrix
from edr.rates import rate_quality, window_starts
from edr.scoring import correlation, msc, rate_error, reference_on_grid
from edr.signal import BAND_HZ, bandpass
from kpca import KernelPCA

MATRICES = [(None, None), (20, None), (None, 5), (10, 5), (20, 3), (20, 5), (20, 8), (30, 5),
            (60, 5)]
VARIANTS = ["k0", "kwin3", "fuse1", "fuse2", "fuse4", "fuse2w"]
K = 3
ICU_WEIGHTING = dict(local_s=None, consensus=False)
"""The weighting this study compared its variants under (whole-window concentration, no
agreement term); the later weighting is chosen in ``measure_generalisation_loso.py``."""
ICU_FUSION = dict(ICU_WEIGHTING, max_lag_s=0.0)
"""Its fusion: signs aligned, not lags. The committed output predates
``edr.signal.RATE_TILT`` (rates from the untilted periodogram); rerun, the rate columns follow
the current rule."""


def panel_of(x, fs, grid, beats, window_s, outlier_mads):
    seg = Segment(x, fs, 0.0, beats, grid, 4.0, "")
    X, t = seg.valid_matrix(), seg.beat_times[seg.valid]
    X, keep = robust_beat_matrix(X, t, window_s=window_s, outlier_mads=outlier_mads)
    model = KernelPCA(n_components=K, sigma2="mdd", random_state=0)
    Z = model.fit_transform(X[keep])
    v, tv = seg.valid, seg.beat_times[seg.valid]
    series = {f"kpca_{j + 1}": MethodOutput(t[keep], Z[:, j]) for j in range(K)}
    series["r_amplitude"] = MethodOutput(tv, r_amplitude(x, fs, beats)[v])
    series["qrs_area"] = MethodOutput(tv, qrs_area(x, fs, beats)[v])
    return {k: standardised(series_on_grid(seg, o)) for k, o in series.items()}


def edr_of(panel, variant):
    if variant == "k0":
        return panel["kpca_1"]
    if variant == "kwin3":
        w = panel_weights({k: panel[k] for k in ("kpca_1", "kpca_2", "kpca_3")}, **ICU_WEIGHTING)
        return panel[max(w, key=w.get)]
    if variant == "fuse2w":
        return fuse(panel, power=2, band=BAND_HZ, **ICU_FUSION).series
    return fuse(panel, power=int(variant[-1]), **ICU_FUSION).series


def scores(y, ref, breaths):
    m, _ = msc(y, ref)
    return m, correlation(y, ref), rate_error(y, breath_times=breaths,
                                              t_grid=np.arange(y.size) / 4.0)


def lopo(table, records, objective):
    """table: config -> record -> (msc, r, err). Returns held-out scores and the chosen configs."""
    held, chosen = {}, []
    for p in sorted({subject(r) for r in records}):
        train = [r for r in records if subject(r) != p]
        best = max(table, key=lambda c: objective(table[c], train))
        chosen.append(best)
        held.update({r: table[best][r] for r in records if subject(r) == p})
    return held, chosen


def med(rows):
    a = np.array(list(rows), dtype=float)
    return (f"MSC {np.median(a[:, 0]):.3f} | |r| {np.median(a[:, 1]):.3f} | rate error median "
            f"{np.nanmedian(a[:, 2]):.2f} / mean {np.nanmean(a[:, 2]):.2f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="scripts/output/measure_generalisation_lopo.md")
    ap.add_argument("--records", help="comma-separated record names (default: all)")
    ap.add_argument("--cache",
                    help="pickle file keeping the per-record figures (reused when present)")
    args = ap.parse_args(argv)
    if args.cache and os.path.exists(args.cache):
        with open(args.cache, "rb") as fh:
            records, single, multi, windows = pickle.load(fh)
        return report(args, records, single, multi, windows)
    folder = os.path.join(os.environ["EDR_DATA_DIR"], "bidmc")
    records = sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(folder,
                                                                              "bidmc??.hea")))
    if args.records:
        records = [r for r in records if r in args.records.split(",")]
    single, multi, windows = {}, {}, {"II": [], "joint": []}
    for name in records:
        rec = read_record(os.path.join(folder, name + ".dat"))
        grid = np.arange(int(np.floor(rec.ecg.size / rec.fs * 4 + 1e-9))) / 4.0
        ref = bandpass(reference_on_grid(rec.resp, rec.resp_fs, grid))
        breaths = np.asarray(rec.breath_times)
        panels = {}
        for lead, x in rec.leads.items():
            x = np.asarray(x, dtype=float)
            beats = detect(x, rec.fs)
            configs = MATRICES if lead == "II" else [(30, 5)]
            for W, k in configs:
                panels[(lead, W, k)] = panel_of(x, rec.fs, grid, beats, W, k)
        for (W, k), v in product(MATRICES, VARIANTS):
            single.setdefault((W, k, v), {})[name] = scores(edr_of(panels[("II", W, k)], v), ref,
                                                            breaths)
        leads = list(rec.leads)
        for p in (2, 4):
            per_lead = [fuse(panels[(lead, 30, 5)], power=p, **ICU_FUSION).series
                        for lead in leads]
            across = fuse(dict(enumerate(per_lead)), power=4, **ICU_FUSION).series
            multi.setdefault(("leads", p), {})[name] = scores(across, ref, breaths)
            joint = {f"{lead}/{s}": y for lead in leads for s, y in panels[(lead, 30, 5)].items()}
            multi.setdefault(("joint", p), {})[name] = scores(
                fuse(joint, power=p, **ICU_FUSION).series, ref, breaths)
            multi.setdefault(("joint-wide", p), {})[name] = scores(
                fuse(joint, power=p, band=BAND_HZ, **ICU_FUSION).series, ref, breaths)
        starts = window_starts(grid.size, 4.0)
        ref_rate = breath_rate_series(breaths, starts / 4.0)
        for mode, panel in (("II", panels[("II", 30, 5)]),
                            ("joint", {f"{lead}/{s}": y for lead in leads
                                       for s, y in panels[(lead, 30, 5)].items()})):
            y = fuse(panel, power=2, **ICU_FUSION).series
            _, rate, q = rate_quality(y, panel, panel_weights(panel, power=2, **ICU_WEIGHTING))
            windows[mode] += [(name, r, rr, qq) for r, rr, qq in zip(rate, ref_rate, q,
                                                                     strict=False)]
        print(name, file=sys.stderr, flush=True)
    if args.cache:
        with open(args.cache, "wb") as fh:
            pickle.dump((records, single, multi, windows), fh)
    return report(args, records, single, multi, windows)


def report(args, records, single, multi, windows) -> int:
    """Write the LOPO tables of the gathered figures to ``args.out``."""
    objective = lambda table, rs: np.median([(table[r][0] + table[r][1]) / 2 for r in rs])  # noqa: E731
    lines = ["# Leave-one-patient-out choice of the robust EDR (shared BIDMC records)", "",
             f"Command: `python scripts/measure_generalisation_lopo.py --out {args.out}`", "",
             f"{len(records)} records, {len({subject(r) for r in records})} patients. "
             "Objective: median (MSC + |r|) / 2 over the training patients' records.", ""]
    base = single[(None, None, "k0")]
    lines += ["## Single lead (II)", "",
              "- today's method (first component, no robust matrix), in-sample: "
              f"{med(base.values())}"]
    held, chosen = lopo(single, records, objective)
    best = max(single, key=lambda c: objective(single[c], records))
    lines += [f"- **LOPO** (held-out patients): {med(held.values())}",
              f"- in-sample best {best}: {med(single[best].values())}",
              f"- configurations chosen per fold: {dict(Counter(chosen))}", "",
              "| matrix (window_s, outlier_mads) | variant | MSC | \\|r\\| | rate err med / mean |",
              "|---|---|---|---|---|"]
    for c in sorted(single, key=lambda c: -objective(single[c], records)):
        a = np.array(list(single[c].values()))
        lines.append(f"| {c[0]}, {c[1]} | {c[2]} | {np.median(a[:, 0]):.3f} | "
                     f"{np.median(a[:, 1]):.3f} | "
                     f"{np.nanmedian(a[:, 2]):.2f} / {np.nanmean(a[:, 2]):.2f} |")
    held, chosen = lopo(multi, records, objective)
    lines += ["", "## Every lead (matrix 30 s / 5 MADs)", "",
              f"- **LOPO**: {med(held.values())}; chosen per fold: {dict(Counter(chosen))}", ""]
    for c in multi:
        lines.append(f"- {c}: {med(multi[c].values())}")
    lines += ["", "## Rate quality and abstention (fusion exponent 2)", ""]
    grid_q = np.round(np.arange(0.2, 0.71, 0.05), 2)
    for mode, rows in windows.items():
        rows = [r for r in rows if np.isfinite(r[2])]
        held, ths = [], []
        for p in sorted({subject(r[0]) for r in rows}):
            q = np.array([r[3] for r in rows if subject(r[0]) != p])
            th = max(t for t in grid_q if np.mean(q >= t) >= 0.90)
            ths.append(th)
            held += [(r, r[3] >= th) for r in rows if subject(r[0]) == p]
        err = np.array([abs(r[1] - r[2]) for r, _ in held])
        kept = np.array([k for _, k in held])
        per = [np.median([abs(r[1] - r[2]) for r, k in held if r[0] == n and k] or [np.nan])
               for n in records]
        q_all = np.array([r[3] for r in rows])
        th_all = max(t for t in grid_q if np.mean(q_all >= t) >= 0.90)
        lines.append(f"- {mode}: LOPO thresholds {sorted(set(map(float, ths)))} (all records: "
                     f"{th_all:g}); "
                     f"held-out coverage {kept.mean():.3f}, within 2 bpm "
                     f"{np.mean(err[kept] <= 2):.3f} "
                     f"(without abstention {np.mean(err <= 2):.3f}); per-record rate error median "
                     "/ mean "
                     f"{np.nanmedian(per):.2f} / {np.nanmean(per):.2f}")
    return write_markdown(args.out, lines)


if __name__ == "__main__":
    sys.exit(main())
