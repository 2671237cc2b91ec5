"""Leave-one-subject-out choice of the fusion's weighting over BIDMC (ICU) and MARSH (healthy).

Every record is analysed once as the default extraction does it (``edr.windows.analyse_window``
on every window: mains line removed, robust beat matrix, MDD width, the panel of
``kpca_fusion`` with the heart rate, every lead pooled on BIDMC). Each candidate weighting then
re-fuses the windows' panels with ``edr.fusion.fuse`` and is stitched, judged and scored by the
library (``edr.stitch.Stitcher``, ``edr.rates.judged_rates``, ``edr.evaluate.metrics.score``):

* ``local_s`` in {whole window, 64 s}: where the spectral concentration is measured;
* ``consensus`` on/off: the weight also scaled by the series' agreement with the others;
* ``rsa`` on/off: the heart rate in the panel;
* ``power`` in {2, 4}.

``local_s=None, consensus=False, rsa=False, power=2`` is the previous default. The 32 subjects
(23 BIDMC patients: bidmc06-09, 20-23 and 38-39 are one patient each; 9 MARSH subjects) are held
out in turn; the candidate with the best median (MSC + |r|) / 2 over the other subjects'
records, averaged over the two databases so that each population weighs the same, is applied to
the held-out subject. Held-out figures are reported per database, beside the R
amplitude (``--method r_amplitude``) on the same records; for MARSH also the rates by breathing
segment, the abstention checked against the reference, and sign flips between analysis windows.
The method sees the ECG alone; the reference respiration only scores.

Usage: ``EDR_DATA_DIR=... python scripts/measure_generalisation_loso.py --out
scripts/output/measure_generalisation_loso.md``
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
from _shared import write_markdown

from edr.evaluate.metrics import reference_on_grid, score, window_rates
from edr.fusion import AGREEMENT_BPM, fuse
from edr.io import read_record
from edr.methods import MethodOutput
from edr.options import EDROptions
from edr.pipeline import extract_edr
from edr.rates import RateSpan, judged_rates
from edr.signal import bandpass
from edr.stitch import Stitcher
from edr.windows import analyse_window, output_grid, record_leads, window_plan

CANDIDATES = [dict(local_s=loc, consensus=con, rsa=rsa, power=p)
              for loc, con, rsa, p in product((None, 64.0), (False, True), (False, True), (2, 4))]
PREVIOUS = dict(local_s=None, consensus=False, rsa=False, power=2)
SLOW_BPM, FAST_BPM = 10.5, 19.5
"""MARSH windows whose reference rate is below / above these are the slow / fast paced segments
(the protocol paces at about 8-9 and 22-24 breaths/min); the rest is spontaneous breathing."""
FLIP_MIN_R = 0.3
"""Two analysis windows flip when both correlate with the reference by at least this, with
opposite signs."""


def subject(record: str) -> str:
    if record.startswith("bidmc"):
        n = int(record[5:])
        return "p06" if 6 <= n <= 9 else "p20" if 20 <= n <= 23 else \
            "p38" if n in (38, 39) else record
    return record


def database(record: str) -> str:
    return "BIDMC" if record.startswith("bidmc") else "MARSH"


def analyse(path: str, opts: EDROptions | None = None) -> dict:
    """The window analyses of one record (the default extraction's, or ``opts``'), and the R
    amplitude's scores."""
    rec = read_record(path)
    opts = opts or EDROptions()
    if len(rec.leads or {}) > 1:
        opts = replace(opts, lead="fuse")
    leads = record_leads(rec, opts)
    duration = next(iter(leads.values())).size / rec.fs
    grid = output_grid(duration, opts.fs_out)
    windows = []
    for w in window_plan(duration, opts):
        wa = analyse_window(w, leads, rec.fs, grid, opts)
        wa.segment._matrices = {}
        windows.append((w, wa))
    ramp = extract_edr(rec, "r_amplitude")
    reference = dict(resp=rec.resp, resp_fs=rec.resp_fs, breath_times=rec.breath_times,
                     name=rec.name)
    return dict(grid=grid, windows=windows, reference=reference,
                ramp=figures(ramp, Ref(reference), windows))


class Ref:
    """A recording-like view of the stored reference (what ``score`` reads)."""

    def __init__(self, d):
        self.__dict__.update(d)


class Out:
    """An EDRResult-like view (what ``score`` and ``window_rates`` read)."""

    def __init__(self, time, waveform, rate_bpm, raw_bpm):
        self.time, self.waveform, self.fs = time, waveform, 4.0
        self.rate_bpm, self.raw_bpm = rate_bpm, raw_bpm


def run(rec: dict, local_s, consensus, rsa, power) -> dict:
    """Stitch, judge and score one record's windows fused with one candidate weighting."""
    grid = rec["grid"]
    stitcher = Stitcher(grid, 4.0, True)
    spans = []
    weighting = dict(power=power, local_s=local_s, consensus=consensus)
    for w, wa in rec["windows"]:
        panel = {k: v for k, v in wa.panel.items() if rsa or not k.endswith("rsa")}
        fused = fuse(panel, 4.0, **weighting)
        out = MethodOutput(wa.output.times, fused.series, "grid", wa.output.sigma2, None, {},
                           panel, fused.weights)
        wa = replace(wa, output=out, series=fused.series, panel=panel, weights=fused.weights)
        stitcher.add(w, wa)
        spans.append(RateSpan.of(w, wa))
    stitched = stitcher.finish()
    rates = judged_rates(stitched.waveform, grid, spans, 4.0)
    res = Out(grid, stitched.waveform, rates.rate_bpm, rates.raw_bpm)
    return figures(res, Ref(rec["reference"]), rec["windows"])


def figures(res, ref, windows) -> dict:
    """Protocol scores plus the window-level rates and the per-window reference correlation."""
    s = score(res, ref)
    _, edr_bpm, ref_bpm = window_rates(res, ref)
    raw = getattr(res, "raw_bpm", edr_bpm)
    y = bandpass(reference_on_grid(ref.resp, ref.resp_fs, res.time), fs=res.fs)
    x = np.nan_to_num(np.asarray(res.waveform, dtype=float))
    corr = []
    for w, _ in windows:
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


def held_out(records: dict):
    """``(table, held, chosen)``: every candidate's figures per record, the held-out figures
    per record (each subject scored with the candidate chosen on the other subjects) and the
    chosen candidate's index per subject."""
    table = {}
    for i, c in enumerate(CANDIDATES):
        table[i] = {n: run(r, **c) for n, r in records.items()}
        print(f"candidate {c}", file=sys.stderr, flush=True)
    held, chosen = {}, []
    for s in sorted({subject(n) for n in records}):
        train = [n for n in records if subject(n) != s]
        best = max(table, key=lambda i: objective({n: table[i][n] for n in train}))
        chosen.append(best)
        held.update({n: table[best][n] for n in records if subject(n) == s})
    return table, held, chosen


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="scripts/output/measure_generalisation_loso.md")
    ap.add_argument("--cache", help="pickle file keeping the window analyses (reused when present)")
    args = ap.parse_args(argv)
    if args.cache and os.path.exists(args.cache):
        with open(args.cache, "rb") as fh:
            records = pickle.load(fh)
    else:
        records = {}
        for p in record_paths(os.environ["EDR_DATA_DIR"]):
            name = os.path.basename(p)[:-4]
            records[name] = analyse(p[:-4] + ".dat")
            print(name, file=sys.stderr, flush=True)
        if args.cache:
            with open(args.cache, "wb") as fh:
                pickle.dump(records, fh)
    table, held, chosen = held_out(records)
    ramp = {n: r["ramp"] for n, r in records.items()}
    full = max(table, key=lambda i: objective(table[i]))
    prev = CANDIDATES.index(PREVIOUS)
    head = ("| MSC | \\|r\\| | rate error median / mean (bpm) | rate coverage / within 2 bpm | "
            "MSC above the R amplitude | subjects with a sign flip |")
    rule = "|---|---|---|---|---|---|"
    lines = ["# Leave-one-subject-out choice of the fusion weighting (BIDMC + MARSH)", "",
             f"Command: `python scripts/measure_generalisation_loso.py --out {args.out}`", "",
             f"{len(records)} records, {len({subject(n) for n in records})} subjects. Objective: "
             "the mean over the two databases of the median (MSC + |r|) / 2 of the training "
             "subjects' records (each population weighs the same).", "",
             f"- chosen per fold: "
             f"{ {str(CANDIDATES[i]): k for i, k in Counter(chosen).items()} }",
             f"- chosen on all records: {CANDIDATES[full]}", ""]
    for db in ("BIDMC", "MARSH"):
        names = [n for n in records if database(n) == db]
        lines += [f"## {db} ({len(names)} records)", "", "| | " + head[2:], "|---" + rule]
        for label, rows in (("held out (LOSO)", {n: held[n] for n in names}),
                            ("chosen, in-sample", {n: table[full][n] for n in names}),
                            ("previous default, in-sample", {n: table[prev][n] for n in names}),
                            ("R amplitude", {n: ramp[n] for n in names})):
            lines += [f"| {label} " + summary(rows, ramp)[0]]
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
    lines += ["## Every candidate, in-sample", "",
              "| candidate | BIDMC MSC / \\|r\\| | MARSH MSC / \\|r\\| |", "|---|---|---|"]
    for i, c in enumerate(CANDIDATES):
        cells = []
        for db in ("BIDMC", "MARSH"):
            rows = [v for n, v in table[i].items() if database(n) == db]
            cells.append(f"{np.median([v['msc'] for v in rows]):.3f} / "
                         f"{np.median([v['r'] for v in rows]):.3f}")
        lines.append(f"| {c} | {cells[0]} | {cells[1]} |")
    return write_markdown(args.out, lines)


if __name__ == "__main__":
    raise SystemExit(main())
