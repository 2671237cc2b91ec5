"""Leave-one-subject-out choice of the fusion and the rate rule over BIDMC and MARSH.

Every record is analysed as the default extraction does it (``edr.window_analysis.analyse_window``
on every window: mains line removed, robust beat matrix, the default width selection, the panel
of ``kpca_fusion`` with the heart rate, every lead pooled on BIDMC), once for each QRS matrix
baseline of :data:`ANALYSES`. Each candidate then re-fuses the windows' panels with
``edr.fusion.fuse`` and is stitched, judged and scored by the library (``edr.stitch.Stitcher``,
``edr.rates.judged_rates``, ``edr.scoring.score``). Three grids, chosen in turn:

``--grid weighting`` (signs aligned, no lag, untilted rate periodogram):

* ``local_s`` in {whole window, 64 s}: where the spectral concentration is measured;
* ``consensus`` on/off: the weight also scaled by the series' agreement with the others;
* ``rsa`` on/off: the heart rate in the panel;
* ``power`` in {2, 4}.

``--grid alignment`` (the weighting's choice, 64 s, consensus, heart rate, fixed):

* ``max_lag_s`` in {0, 0.25, 0.5, 1} s: the largest shift aligning a series with the heaviest;
* ``power`` in {2, 4};
* then the rate periodogram's ``tilt`` in {0, 0.5, 1, 2} (``edr.signal.RATE_TILT``), chosen for
  the fold's fusion by the rate objective below.

``--grid matrix`` (64 s, consensus, power 4, tilt 1 fixed):

* ``baseline`` in {"detrend", "pr", "centred"}: the QRS matrix of the kernel components keeps
  the beat baseline's breathing band, removes each beat's PR-segment level, or each window's own
  mean (``edr.methods.FUSION_BASELINE``);
* ``rsa`` on/off;
* ``max_lag_s`` in {0.25, 0.5} s;

the series being aligned onto the heaviest one that is not the heart rate
(``edr.fusion.HEART_SERIES``, which lags the breath: ``anchor="morphology"``), plus the previous
default (detrended matrix, heart rate, 0.25 s, aligned onto the heaviest series of all).

``--grid default``: the default's fusion alone (its figures, in-sample; what
``benchmarks/accuracy_guard.py`` compares between width selections).

The 32 subjects (23 BIDMC patients: bidmc06-09, 20-23 and 38-39 are one patient each; 9 MARSH
subjects) are held out in turn. The fusion with the best median (MSC + |r|) / 2 over the other
subjects' records, averaged over the two databases so that each population weighs the same, is
applied to the held-out subject; the tilt with the best share of reference rate windows given a
rate within 2 bpm (pooled per database over the other subjects, averaged over the databases).
Held-out figures are reported per database, beside the R amplitude (``--method r_amplitude``) on
the same records; for MARSH also the rates by breathing segment, the abstention checked against
the reference, and sign flips between analysis windows. The method sees the ECG alone; the
reference respiration only scores.

Usage: ``EDR_DATA_DIR=... python scripts/measure_generalisation_loso.py --grid matrix --out
scripts/output/measure_generalisation_loso_matrix.md``
"""

from __future__ import annotations

import argparse
import glob
import os
import pickle
import sys
from collections import Counter
from dataclasses import replace
from itertools import product

import numpy as np
from _shared import database, subject, write_markdown

from edr.fusion import ALIGN_LAG_S, CONSENSUS, FUSION_POWER, HEART_SERIES, LOCAL_S, fuse
from edr.io import read_record
from edr.methods import FUSION_BASELINE, FUSION_RSA, MethodOutput
from edr.options import EDROptions
from edr.pipeline import extract_edr
from edr.rates import AGREEMENT_BPM, RateSpan, judged_rates
from edr.scoring import reference_on_grid, score, window_rates
from edr.signal import RATE_TILT, bandpass
from edr.stitch import Stitcher
from edr.window_analysis import analyse_window
from edr.windows import output_grid, record_leads, window_plan

ANALYSES = ("detrend", "pr", "centred")
"""Every record is analysed with each of these QRS matrix baselines for the kernel components
(``kpca_fusion``'s ``baseline``, ``edr.methods.BASELINES``); the weighting and alignment grids
use ``"detrend"``, the baseline they were chosen with."""
GRIDS = {
    "weighting": dict(
        candidates=[dict(local_s=loc, consensus=con, rsa=rsa, power=p) for loc, con, rsa, p
                    in product((None, 64.0), (False, True), (False, True), (2, 4))],
        fixed=dict(max_lag_s=0.0), tilts=(0.0,),
        previous=dict(local_s=None, consensus=False, rsa=False, power=2)),
    "alignment": dict(
        candidates=[dict(max_lag_s=lag, power=p) for lag, p in product((0.0, 0.25, 0.5, 1.0),
                                                                       (2, 4))],
        fixed=dict(local_s=64.0, consensus=True, rsa=True), tilts=(0.0, 0.5, 1.0, 2.0),
        previous=dict(max_lag_s=0.0, power=4)),
    "matrix": dict(
        candidates=[dict(baseline=b, rsa=r, max_lag_s=lag, anchor="morphology") for b, r, lag
                    in product(ANALYSES, (False, True), (0.25, 0.5))]
        + [dict(baseline="detrend", rsa=True, max_lag_s=0.25, anchor="heaviest")],
        fixed=dict(local_s=64.0, consensus=True, power=4), tilts=(1.0,),
        previous=dict(baseline="detrend", rsa=True, max_lag_s=0.25, anchor="heaviest")),
    "default": dict(
        candidates=[dict(baseline=FUSION_BASELINE, rsa=FUSION_RSA, max_lag_s=ALIGN_LAG_S,
                         anchor="morphology")],
        fixed=dict(local_s=LOCAL_S, consensus=CONSENSUS, power=FUSION_POWER), tilts=(RATE_TILT,),
        previous=dict(baseline=FUSION_BASELINE, rsa=FUSION_RSA, max_lag_s=ALIGN_LAG_S,
                      anchor="morphology")),
}
"""Each grid's varying ``candidates``, the ``fixed`` rest of the fusion, the rate ``tilts`` and
the ``previous`` default (whose rate tilt is the first)."""
SLOW_BPM, FAST_BPM = 10.5, 19.5
"""MARSH windows whose reference rate is below / above these are the slow / fast paced segments
(the protocol paces at about 8-9 and 22-24 breaths/min); the rest is spontaneous breathing."""
FLIP_MIN_R = 0.3
"""Two analysis windows flip when both correlate with the reference by at least this, with
opposite signs."""




def analyse(path: str, opts: EDROptions | None = None, variants=ANALYSES) -> dict:
    """The window analyses of one record (the default extraction's, or ``opts``'), one list per
    QRS matrix baseline of ``variants``, and the R amplitude's scores."""
    rec = read_record(path)
    opts = opts or EDROptions()
    if len(rec.leads or {}) > 1:
        opts = replace(opts, lead="fuse")
    leads = record_leads(rec, opts)
    duration = next(iter(leads.values())).size / rec.fs
    grid = output_grid(duration, opts.fs_out)
    plan = window_plan(duration, opts)
    windows = {}
    for variant in variants:
        o = replace(opts, method_options={**opts.method_options, "baseline": variant})
        windows[variant] = []
        for w in plan:
            wa = analyse_window(w, leads, rec.fs, grid, o)
            wa.segment._matrices = {}
            windows[variant].append((w, wa))
    ramp = extract_edr(rec, "r_amplitude")
    reference = dict(resp=rec.resp, resp_fs=rec.resp_fs, breath_times=rec.breath_times,
                     name=rec.name)
    return dict(grid=grid, plan=plan, windows=windows, reference=reference,
                ramp=figures(ramp, Ref(reference), plan))


class Ref:
    """A recording-like view of the stored reference (what ``score`` reads)."""

    def __init__(self, d):
        self.__dict__.update(d)


class Out:
    """An EDRResult-like view (what ``score`` and ``window_rates`` read)."""

    def __init__(self, time, waveform, rate_bpm, raw_bpm):
        self.time, self.waveform, self.fs = time, waveform, 4.0
        self.rate_bpm, self.raw_bpm = rate_bpm, raw_bpm


def run(rec: dict, local_s, consensus, rsa, power, max_lag_s, tilt, baseline="detrend",
        anchor="heaviest") -> dict:
    """Stitch, judge and score one record's windows (those of its ``baseline`` analysis) fused
    with one candidate fusion (``anchor``: the heaviest series, or the heaviest one that is not
    the heart rate)."""
    grid = rec["grid"]
    stitcher = Stitcher(grid, 4.0, True)
    spans = []
    fusion = dict(power=power, local_s=local_s, consensus=consensus, max_lag_s=max_lag_s,
                  delayed=HEART_SERIES if anchor == "morphology" else ())
    for w, wa in rec["windows"][baseline]:
        panel = {k: v for k, v in wa.panel.items() if rsa or not k.endswith("rsa")}
        fused = fuse(panel, 4.0, **fusion)
        out = MethodOutput(wa.output.times, fused.series, "grid", wa.output.sigma2, None, {},
                           panel, fused.weights)
        wa = replace(wa, output=out, series=fused.series, panel=panel, weights=fused.weights)
        stitcher.add(w, wa)
        spans.append(RateSpan.of(w, wa))
    stitched = stitcher.finish()
    rates = judged_rates(stitched.waveform, grid, spans, 4.0, tilt=tilt)
    res = Out(grid, stitched.waveform, rates.rate_bpm, rates.raw_bpm)
    return figures(res, Ref(rec["reference"]), rec["plan"])


def figures(res, ref, plan) -> dict:
    """Protocol scores plus the window-level rates and the correlation with the reference in
    each window of ``plan``."""
    s = score(res, ref)
    _, edr_bpm, ref_bpm = window_rates(res, ref)
    raw = getattr(res, "raw_bpm", edr_bpm)
    y = bandpass(reference_on_grid(ref.resp, ref.resp_fs, res.time), fs=res.fs)
    x = np.nan_to_num(np.asarray(res.waveform, dtype=float))
    corr = []
    for w in plan:
        a, b = w.core
        m = (res.time >= a) & (res.time < b)
        corr.append(float(np.corrcoef(x[m], y[m])[0, 1]) if m.sum() > 8 else np.nan)
    return dict(msc=s.msc, r=s.corr, err=s.rate_error_bpm, edr_bpm=np.asarray(edr_bpm),
                raw_bpm=np.asarray(raw), ref_bpm=np.asarray(ref_bpm), window_r=corr)


def objective(rows: dict) -> float:
    """Mean over the databases of the median (MSC + |r|) / 2 of their records: each population
    weighs the same, however many records it has."""
    per_db = {}
    for name, v in rows.items():
        per_db.setdefault(database(name), []).append((v["msc"] + v["r"]) / 2)
    return float(np.mean([np.median(x) for x in per_db.values()]))


def rate_objective(rows: dict) -> float:
    """Mean over the databases of the share of their reference rate windows (pooled over their
    records) given a rate within 2 bpm: coverage and accuracy at once."""
    per_db = {}
    for name, v in rows.items():
        has = np.isfinite(v["ref_bpm"])
        right = np.abs(v["edr_bpm"][has] - v["ref_bpm"][has]) <= 2.0  # NaN (withheld) is False
        n, k = per_db.get(database(name), (0, 0))
        per_db[database(name)] = (n + has.sum(), k + right.sum())
    return float(np.mean([k / max(n, 1) for n, k in per_db.values()]))


def flips(window_r) -> bool:
    r = np.asarray(window_r, dtype=float)
    strong = r[np.abs(r) >= FLIP_MIN_R]
    return bool(strong.size and (strong.max() > 0 > strong.min()))


def summary(rows: dict, ramp: dict) -> list[str]:
    """Table rows of one database's figures."""
    a = np.array([[v["msc"], v["r"], v["err"]] for v in rows.values()])
    edr = np.concatenate([v["edr_bpm"] for v in rows.values()])
    ref = np.concatenate([v["ref_bpm"] for v in rows.values()])
    has_ref = np.isfinite(ref)
    covered = has_ref & np.isfinite(edr)
    within = np.abs(edr[covered] - ref[covered]) <= 2.0
    wins = sum(rows[k]["msc"] > ramp[k]["msc"] for k in rows)
    n_flip = sum(flips(v["window_r"]) for v in rows.values())
    return [f"| {np.median(a[:, 0]):.3f} | {np.median(a[:, 1]):.3f} | "
            f"{np.nanmedian(a[:, 2]):.2f} / {np.nanmean(a[:, 2]):.2f} | "
            f"{covered.sum() / max(has_ref.sum(), 1):.1%} / {within.mean():.1%} | "
            f"{wins} of {len(rows)} | {n_flip} |"]


def segments(rows: dict) -> list[str]:
    """MARSH rate error by breathing segment (reference rate) and the abstention's verdicts."""
    edr = np.concatenate([v["edr_bpm"] for v in rows.values()])
    raw = np.concatenate([v["raw_bpm"] for v in rows.values()])
    ref = np.concatenate([v["ref_bpm"] for v in rows.values()])
    out = ["| segment | windows | covered | median / mean error (bpm) | within 2 bpm |",
           "|---|---|---|---|---|"]
    for name, m in (("slow paced", ref < SLOW_BPM), ("spontaneous", (ref >= SLOW_BPM)
                                                    & (ref <= FAST_BPM)),
                    ("fast paced", ref > FAST_BPM)):
        e = np.abs(edr[m] - ref[m])
        c = np.isfinite(e)
        out.append(f"| {name} | {m.sum()} | {c.mean():.1%} | {np.median(e[c]):.2f} / "
                   f"{np.mean(e[c]):.2f} | {np.mean(e[c] <= 2):.1%} |")
    has = np.isfinite(ref) & np.isfinite(raw)
    withheld = has & ~np.isfinite(edr)
    kept = has & np.isfinite(edr)
    right = np.abs(raw - ref) <= AGREEMENT_BPM
    out += ["", f"- withheld rate windows: {withheld.sum()}, of which the unjudged rate would have "
            f"been within 2 bpm in {(withheld & right).sum()}",
            f"- kept rate windows: {kept.sum()}, of which {(kept & ~right).sum()} are more than "
            "2 bpm off"]
    return out


def record_paths(root: str) -> list[str]:
    """The BIDMC and MARSH records under ``root``, sorted."""
    return sorted(glob.glob(os.path.join(root, "bidmc", "bidmc??.hea"))) + \
        sorted(glob.glob(os.path.join(root, "marsh", "m????.hea")))


def held_out(records: dict, grid: str = "alignment", table: dict | None = None) -> tuple:
    """Leave-one-subject-out over ``records`` with the candidates of ``GRIDS[grid]``; every
    candidate's figures computed go into ``table`` (``{(i, tilt): {record: figures}}``) when
    given.

    Returns
    -------
    rows : callable
        ``rows(i, tilt)``: candidate ``i``'s figures per record with that rate tilt (computed
        once, on demand).
    held : dict
        Held-out figures per record (each subject scored with the fusion and tilt chosen on the
        other subjects).
    chosen : list of (int, float)
        The choice per subject.
    full, prev : (int, float)
        The choice on every record; the grid's previous default.
    """
    spec = GRIDS[grid]
    cands, tilts = spec["candidates"], spec["tilts"]
    table = {} if table is None else table

    def rows(i: int, t: float) -> dict:
        if (i, t) not in table:
            table[i, t] = {n: run(r, **spec["fixed"], **cands[i], tilt=t)
                           for n, r in records.items()}
            print(f"candidate {cands[i]}, tilt {t}", file=sys.stderr, flush=True)
        return table[i, t]

    def choose(names) -> tuple[int, float]:
        best = max(range(len(cands)),
                   key=lambda i: objective({n: rows(i, tilts[0])[n] for n in names}))
        tilt = max(tilts, key=lambda t: rate_objective({n: rows(best, t)[n] for n in names}))
        return best, tilt

    held, chosen = {}, []
    for s in sorted({subject(n) for n in records}):
        best, tilt = choose([n for n in records if subject(n) != s])
        chosen.append((best, tilt))
        held.update({n: rows(best, tilt)[n] for n in records if subject(n) == s})
    return rows, held, chosen, choose(list(records)), (cands.index(spec["previous"]), tilts[0])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grid", choices=sorted(GRIDS), default="matrix",
                    help="which grid of candidates to choose from (default: matrix)")
    ap.add_argument("--out", help="Markdown output (default: scripts/output/"
                    "measure_generalisation_loso.md for the weighting grid, "
                    "..._loso_<grid>.md for the others)")
    ap.add_argument("--cache", help="pickle file keeping the window analyses (reused when present)")
    args = ap.parse_args(argv)
    out = args.out or ("scripts/output/measure_generalisation_loso.md" if args.grid == "weighting"
                       else f"scripts/output/measure_generalisation_loso_{args.grid}.md")
    grid = GRIDS[args.grid]
    records = load_records(args.cache)
    cands, tilts = grid["candidates"], grid["tilts"]
    table = {}
    rows, held, chosen, full, prev = held_out(records, args.grid, table)
    ramp = {n: r["ramp"] for n, r in records.items()}

    def label(i: int, t: float) -> str:
        return f"{cands[i]}" + (f", tilt {t}" if len(tilts) > 1 else "")

    head = ("| MSC | \\|r\\| | rate error median / mean (bpm) | rate coverage / within 2 bpm | "
            "MSC above the R amplitude | subjects with a sign flip |")
    rule = "|---|---|---|---|---|---|"
    lines = ["# Leave-one-subject-out choice of the fusion (BIDMC + MARSH): "
             f"the {args.grid} grid", "",
             f"Command: `python scripts/measure_generalisation_loso.py --grid {args.grid} "
             f"--out {out}`", "",
             f"{len(records)} records, {len({subject(n) for n in records})} subjects. Fixed: "
             f"{grid['fixed']}. Objective: the mean over the two databases of the median "
             "(MSC + |r|) / 2 of the training subjects' records (each population weighs the "
             "same)" + ("; then the rate tilt by the mean over the databases of the share of "
                        "reference rate windows given a rate within 2 bpm." if len(tilts) > 1
                        else "."), "",
             "- chosen per fold: "
             f"{ {label(*c): k for c, k in Counter(chosen).items()} }",
             f"- chosen on all records: {label(*full)}",
             f"- previous default: {label(*prev)}", ""]
    for db in ("BIDMC", "MARSH"):
        names = [n for n in records if database(n) == db]
        lines += [f"## {db} ({len(names)} records)", "", "| | " + head[2:], "|---" + rule]
        for name, rows_ in (("held out (LOSO)", {n: held[n] for n in names}),
                            ("chosen, in-sample", {n: rows(*full)[n] for n in names}),
                            ("previous default, in-sample", {n: rows(*prev)[n] for n in names}),
                            ("R amplitude", {n: ramp[n] for n in names})):
            lines += [f"| {name} " + summary(rows_, ramp)[0]]
        lines.append("")
        if db == "MARSH":
            lines += ["### MARSH held out: rates by breathing segment and the abstention", ""]
            lines += segments({n: held[n] for n in names}) + [""]
            lines += ["| record | MSC | \\|r\\| | R amplitude MSC | window r |",
                      "|---|---|---|---|---|"]
            for n in names:
                v = held[n]
                lines.append(f"| {n} | {v['msc']:.2f} | {v['r']:.2f} | {ramp[n]['msc']:.2f} | "
                             + " ".join(f"{x:+.2f}" for x in v["window_r"]) + " |")
            lines.append("")
    lines += ["## Every candidate computed, in-sample", "",
              "| candidate | BIDMC MSC / \\|r\\| / within 2 bpm | "
              "MARSH MSC / \\|r\\| / within 2 bpm |", "|---|---|---|"]
    for (i, t), res in table.items():
        cells = []
        for db in ("BIDMC", "MARSH"):
            sub = {n: v for n, v in res.items() if database(n) == db}
            cells.append(f"{np.median([v['msc'] for v in sub.values()]):.3f} / "
                         f"{np.median([v['r'] for v in sub.values()]):.3f} / "
                         f"{rate_objective(sub):.1%}")
        lines.append(f"| {label(i, t)} | {cells[0]} | {cells[1]} |")
    return write_markdown(out, lines)


def load_records(cache: str | None) -> dict:
    """Every shared record's window analyses (:func:`analyse`), from ``cache`` when it exists
    (and written there when given)."""
    if cache and os.path.exists(cache):
        with open(cache, "rb") as fh:
            return pickle.load(fh)
    records = {}
    for p in record_paths(os.environ["EDR_DATA_DIR"]):
        name = os.path.basename(p)[:-4]
        records[name] = analyse(p[:-4] + ".dat")
        print(name, file=sys.stderr, flush=True)
    if cache:
        with open(cache, "wb") as fh:
            pickle.dump(records, fh)
    return records


if __name__ == "__main__":
    raise SystemExit(main())
