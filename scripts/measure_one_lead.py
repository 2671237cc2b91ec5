"""One lead on people the method has never seen: a benchmark, a diagnosis and one-lead panels.

Cases: every ECG lead of every shared BIDMC record alone (its own case, grouped by patient for
leave-one-subject-out: ``_shared.subject``), optionally resampled (``--fs 300``: the third
population's rate), and the 9 MARSH subjects (one lead, 250 Hz, as read); beside them, not in
any choice, simulated one-lead records under controlled ventilation (``edr.simulate``'s
``ventilated`` and ``child_ventilated``: fixed rate, no respiratory sinus arrhythmia, amplitude
and axis modulation only) and ``child_spontaneous``, lead II at 300 Hz, x1000, 300 s, seeds 0-2.

Each case is analysed once as the default extraction does it
(``edr.window_analysis.analyse_window``, the ``kpca_fusion`` panel, one lead) and cached
(``--cache-dir``); candidate one-lead panels
(:data:`CANDIDATES`: the default's, and the default's with more morphology series of the same
QRS windows, :func:`morphology_series`) are re-fused, stitched, judged and scored by the
library as ``scripts/nested_scores.py`` does, under the default's fusion and rate configuration
(:data:`DEFAULT`) or, nested, under the configuration the nested replay of the whole procedure
(``scripts/measure_nested_loso.py``, on the shared multi-lead records) chose without the held-out
subject. The candidate is then chosen per fold on the other subjects' one-lead cases by the
project's fusion objective (mean over the two databases of the median (MSC + |r|) / 2), and the
held-out subject is scored with it. The method sees the ECG alone; the reference only scores.

Usage: ``EDR_DATA_DIR=... python scripts/measure_one_lead.py [--fs 300] [--diagnose]
--cache-dir DIR --out scripts/output/measure_one_lead.md``
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import os
import pickle
import sys
import warnings
from dataclasses import replace

import numpy as np
from _shared import database, subject, write_markdown
from measure_conditions import _resampled, _with_leads
from measure_generalisation_loso import Ref, figures
from nested_scores import rates_at
from nested_scores import run as score_run

from edr.fusion import band_passed
from edr.io import read_record
from edr.methods import MethodOutput
from edr.methods.grid import series_on_grid
from edr.options import EDROptions
from edr.pipeline import extract_edr
from edr.scoring import reference_on_grid
from edr.signal import bandpass
from edr.similarity import correlation, msc
from edr.window_analysis import analyse_window
from edr.windows import output_grid, record_leads, window_plan

DEFAULT = dict(baseline="centred", rsa=True, local_s=64.0, consensus=True, power=4,
               max_lag_s=0.25, anchor="morphology", tilt=0.5, carried=True, components=3,
               heart_phase=True, counted=True, threshold=0.65)
"""The default's fusion and rate configuration in ``scripts/nested_scores.py``'s keys (its
choice on every shared record, ``scripts/output/measure_nested_loso.md``)."""
EXTRA = ("rs_amplitude", "up_slope", "down_slope")
CANDIDATES = {
    "default": (),
    "+ R-S amplitude": ("rs_amplitude",),
    "+ QRS slopes": ("up_slope", "down_slope"),
    "+ R-S amplitude, QRS slopes": EXTRA,
}
"""One-lead panels: the default's and the default's with these morphology series added."""
SIM = (("ventilated", 80.0, 0.23), ("child_ventilated", 120.0, 0.42),
       ("child_ventilated", 150.0, 0.5), ("child_spontaneous", 125.0, 0.5))


def morphology_series(seg) -> dict:
    """Per valid beat, from the beat's QRS window (R +- 60 ms read at 125 Hz, the lead's polarity
    turned, no baseline removed): the R-S amplitude (R minus the window's minimum after R), the
    steepest upstroke before R and the steepest downstroke after R (Lazaro et al. 2014, in
    units per matrix sample)."""
    X = seg.matrix("none")[seg.valid]
    t = seg.beat_times[seg.valid]
    c = X.shape[1] // 2
    d = np.diff(X, axis=1)
    vals = {"rs_amplitude": X[:, c] - X[:, c:].min(axis=1), "up_slope": d[:, :c].max(axis=1),
            "down_slope": -d[:, c:].min(axis=1)}
    out = {}
    for k, v in vals.items():
        ok = np.isfinite(v)
        y = band_passed(series_on_grid(seg, MethodOutput(t[ok], v[ok])), seg.fs_out)
        s = float(y.std())
        out[k] = y / s if s > 0 else y
    return out


def analyse(rec) -> dict:
    """One one-lead recording's window analyses (the default's, centred matrix, without the
    one-lead QRS shape series: the candidates add them), the extra morphology series of each
    window and the R amplitude's figures."""
    opts = EDROptions(method_options={"shape": False})
    leads = record_leads(rec, opts)
    duration = next(iter(leads.values())).size / rec.fs
    grid = output_grid(duration, opts.fs_out)
    plan = window_plan(duration, opts)
    windows, extras = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for w in plan:
            wa = analyse_window(w, leads, rec.fs, grid, opts)
            extras.append(morphology_series(wa.segment))
            wa.segment._matrices = {}
            windows.append((w, wa))
        ramp = extract_edr(rec, "r_amplitude")
    reference = dict(resp=rec.resp, resp_fs=rec.resp_fs, breath_times=rec.breath_times,
                     name=rec.name)
    return dict(grid=grid, plan=plan, windows=windows, extras=extras, reference=reference,
                ramp=figures(ramp, Ref(reference), plan))


def shared_cases(root: str, fs: float | None):
    """``(case name, make)`` of every BIDMC lead alone (resampled to ``fs`` when given) and every
    MARSH subject."""
    for p in sorted(glob.glob(os.path.join(root, "bidmc", "bidmc??.hea"))):
        name = os.path.basename(p)[:-4]
        leads = [ln.split()[-1].rstrip(",") for ln in open(p).read().splitlines()[1:]]
        for k in [k for k in leads if k in ("I", "II", "III", "AVR", "V", "MCL")]:
            def make(p=p, k=k):
                rec = read_record(p[:-4])
                one = _with_leads(rec, {k: rec.leads[k]}, channel=k)
                return _resampled(one, fs) if fs else one
            yield f"{name}/{k}", make
    for p in sorted(glob.glob(os.path.join(root, "marsh", "m????.hea"))):
        yield os.path.basename(p)[:-4], (lambda p=p: read_record(p[:-4]))


def sim_cases():
    """``(case name, make)`` of the simulated one-lead records (lead II, 300 Hz, x1000)."""
    from edr.simulate import SCENARIOS, simulate_recording
    for scen, hr, br in SIM:
        for seed in range(3):
            def make(scen=scen, hr=hr, br=br, seed=seed):
                rec = simulate_recording(300.0, 300.0, leads=("II",), random_state=seed,
                                         **{**SCENARIOS[scen], "heart_rate_bpm": hr,
                                            "resp_rate_hz": br})
                return replace(rec, ecg=rec.ecg * 1000.0, leads={"II": rec.ecg * 1000.0},
                               name=f"{scen}_{hr:g}_{seed}")
            yield f"sim/{scen}/hr{hr:g}/{seed}", make


def load(cases, cache: str) -> dict:
    """Every case's analyses, from ``cache`` or computed and written there."""
    out = {}
    for name, make in cases:
        file = os.path.join(cache, name.replace("/", "__") + ".pkl")
        if os.path.exists(file):
            with open(file, "rb") as fh:
                out[name] = pickle.load(fh)
            continue
        out[name] = analyse(make())
        os.makedirs(cache, exist_ok=True)
        with open(file + ".part", "wb") as fh:
            pickle.dump(out[name], fh)
        os.replace(file + ".part", file)
        print(name, file=sys.stderr, flush=True)
    return out


def with_panel(rec: dict, extra) -> dict:
    """``rec`` whose windows' panels carry the morphology series ``extra`` too."""
    wins = [(w, replace(wa, panel={**wa.panel, **{k: ex[k] for k in extra}}))
            for (w, wa), ex in zip(rec["windows"], rec["extras"], strict=True)]
    return dict(rec, windows={"centred": wins})


class CaseScores:
    """Per-case figures of (candidate, configuration), computed once and kept in memory and,
    with ``cache``, on disk (clear it when the library or the analyses change)."""

    def __init__(self, cases: dict, cache: str | None = None):
        self.cases, self.memo, self.cache = cases, {}, cache

    def __call__(self, cand: str, cfg: dict) -> dict:
        k = (cand, tuple(sorted(cfg.items())))
        if k not in self.memo:
            file = None if self.cache is None else os.path.join(
                self.cache, "scores", hashlib.sha1(repr(k).encode()).hexdigest()[:16] + ".pkl")
            if file and os.path.exists(file):
                with open(file, "rb") as fh:
                    self.memo[k] = pickle.load(fh)
                return self.memo[k]
            self.memo[k] = {n: score_run(with_panel(r, CANDIDATES[cand]), cfg)
                            for n, r in self.cases.items()}
            if file:
                os.makedirs(os.path.dirname(file), exist_ok=True)
                with open(file, "wb") as fh:
                    pickle.dump(self.memo[k], fh)
        return self.memo[k]


def objective(rows: dict, names) -> float:
    """Mean over the databases of the median (MSC + |r|) / 2 of the cases ``names``."""
    per_db = {}
    for n in names:
        per_db.setdefault(database(n), []).append((rows[n]["msc"] + rows[n]["r"]) / 2)
    return float(np.mean([np.median(v) for v in per_db.values()]))


def nested(scores: CaseScores, names, fold_cfg) -> tuple[dict, dict]:
    """Held-out figures per case: the candidate chosen on the other subjects' cases under the
    fold's configuration ``fold_cfg(subject)``; and the choice per subject."""
    held, chosen = {}, {}
    for s in sorted({subject(n.split("/")[0]) for n in names}):
        cfg = fold_cfg(s)
        train = [n for n in names if subject(n.split("/")[0]) != s]
        best = max(CANDIDATES, key=lambda c: objective(scores(c, cfg), train))
        chosen[s] = best
        held.update({n: scores(best, cfg)[n] for n in names
                     if subject(n.split("/")[0]) == s})
    return held, chosen


def fold_configs(cache_dir: str) -> dict:
    """The nested replay's configuration per held-out subject (``measure_nested_loso.choose`` on
    the shared multi-lead records without that subject)."""
    from accuracy_cache import load_all
    from measure_nested_loso import choose
    from nested_scores import Scores
    records = load_all(cache_dir)
    sc = Scores(records, cache_dir)
    names = list(records)
    return {s: choose([n for n in names if subject(n) != s], sc)[0]
            for s in sorted({subject(n) for n in names})}


def row(label: str, rows: dict, ramp: dict, threshold_of) -> str:
    """MSC, |r|, rate coverage / within 2 bpm, wins over the R amplitude, mean MSC."""
    m = np.array([v["msc"] for v in rows.values()])
    r = np.median([v["r"] for v in rows.values()])
    edr = np.concatenate([rates_at(v, threshold_of(n)) for n, v in rows.items()])
    ref = np.concatenate([v["ref_bpm"] for v in rows.values()])
    has = np.isfinite(ref)
    cov = has & np.isfinite(edr)
    within = np.mean(np.abs(edr[cov] - ref[cov]) <= 2.0) if cov.any() else np.nan
    wins = sum(rows[n]["msc"] > ramp[n]["msc"] for n in rows)
    return (f"| {label} | {np.median(m):.3f} | {r:.3f} | {m.mean():.3f} | "
            f"{cov.sum() / max(has.sum(), 1):.1%} / {within:.1%} | {wins} of {len(rows)} |")


HEAD = ["| | median MSC | median \\|r\\| | mean MSC | coverage / within 2 bpm | "
        "MSC above the R amplitude |", "|---|---|---|---|---|---|"]


def diagnose(cases: dict) -> list:
    """Per panel member and database: its median MSC and |r| with the reference over each
    analysis window, its mean weight in the default's panel and in the panel with every extra
    series, and the windows in which it is the best member and in which it is the heaviest."""
    from edr.fusion import carried_hz, fuse
    stats = {}
    for n, rec in cases.items():
        db = "simulated" if n.startswith("sim/") else database(n)
        ref = rec["reference"]
        for (_w, wa), ex in zip(rec["windows"], rec["extras"], strict=True):
            seg = wa.segment
            y = bandpass(reference_on_grid(ref["resp"], ref["resp_fs"], seg.grid), fs=4.0)
            panel = {**wa.panel, **ex}
            wide = fuse(panel, 4.0, max_hz=carried_hz(seg.beat_times[seg.valid])).weights
            m = {k: (msc(v, y)[0], abs(correlation(v, y))) for k, v in panel.items()}
            best = max(m, key=lambda k: m[k][0])
            for k, (c, r) in m.items():
                s = stats.setdefault((db, k), dict(msc=[], r=[], w=[], wide=[], best=0, heavy=0,
                                                   n=0))
                s["msc"].append(c)
                s["r"].append(r)
                s["w"].append(wa.weights.get(k, np.nan))
                s["wide"].append(wide.get(k, np.nan))
                s["best"] += k == best
                s["heavy"] += k == max(wa.weights, key=wa.weights.get)
                s["n"] += 1
    lines = ["## Diagnosis: the one-lead panel window by window", "",
             "| database | member | windows | median MSC | median \\|r\\| | mean weight, default "
             "panel | mean weight, with every extra series | best member in | heaviest in "
             "(default panel) |", "|---|---|---|---|---|---|---|---|---|"]
    for (db, k), s in sorted(stats.items()):
        lines.append(f"| {db} | {k} | {s['n']} | {np.median(s['msc']):.3f} | "
                     f"{np.median(s['r']):.3f} | {np.nanmean(s['w']):.3f} | "
                     f"{np.nanmean(s['wide']):.3f} | {s['best']} | {s['heavy']} |")
    return lines + [""]


def tables(scores: CaseScores, cases: dict, folds: dict | None) -> list:
    """Per database: in-sample per candidate, plain and nested leave-one-subject-out, the R
    amplitude; and the choice per fold."""
    names = list(cases)
    ramp = {n: r["ramp"] for n, r in cases.items()}
    plain, plain_choice = nested(scores, names, lambda s: DEFAULT)
    lines = [f"- plain LOSO, one-lead panel chosen per fold: {_count(plain_choice)}"]
    held = None
    if folds is not None:
        def fold_cfg(s):
            return dict(folds.get(s, DEFAULT), baseline="centred")
        held, held_choice = nested(scores, names, fold_cfg)
        base = {n: scores("default", fold_cfg(subject(n.split("/")[0])))[n] for n in names}
        lines.append(f"- nested LOSO, one-lead panel chosen per fold: {_count(held_choice)}")
        lines += paired(held, base, "nested LOSO: chosen per fold against the default's panel")
    full = max(CANDIDATES, key=lambda c: objective(scores(c, DEFAULT), names))
    lines.append(f"- chosen on every case (in-sample): {full}")
    lines += paired(scores(full, DEFAULT), scores("default", DEFAULT),
                    f"in-sample: {full} against the default's panel")
    for db in ("BIDMC", "MARSH"):
        sub = [n for n in names if database(n) == db]
        lines += ["", f"### {db} ({len(sub)} one-lead cases, "
                  f"{len({subject(n.split('/')[0]) for n in sub})} subjects)", "", *HEAD]
        if held is not None:
            def thr(n):
                return folds.get(subject(n.split("/")[0]), DEFAULT)["threshold"]
            lines.append(row("nested LOSO, the one-lead panel chosen per fold",
                             {n: held[n] for n in sub}, ramp, thr))
            lines.append(row("nested LOSO, the default's panel", {n: base[n] for n in sub},
                             ramp, thr))
        lines.append(row("plain LOSO, the one-lead panel chosen per fold",
                         {n: plain[n] for n in sub}, ramp, lambda n: DEFAULT["threshold"]))
        for c in CANDIDATES:
            lines.append(row(f"{c}, in-sample", {n: scores(c, DEFAULT)[n] for n in sub}, ramp,
                             lambda n: DEFAULT["threshold"]))
        m = [ramp[n]["msc"] for n in sub]
        lines.append(f"| R amplitude | {np.median(m):.3f} | "
                     f"{np.median([ramp[n]['r'] for n in sub]):.3f} | {np.mean(m):.3f} | | |")
    lines += ["", "### Per case, in-sample MSC", "",
              "| case | R amplitude | " + " | ".join(CANDIDATES) + " |",
              "|---|---" + "|---" * len(CANDIDATES) + "|"]
    for n in names:
        lines.append(f"| {n} | {ramp[n]['msc']:.3f} | "
                     + " | ".join(f"{scores(c, DEFAULT)[n]['msc']:.3f}" for c in CANDIDATES)
                     + " |")
    return lines + [""]


def paired(a: dict, b: dict, label: str) -> list:
    """Per database: cases whose MSC rose / fell by more than 0.01, the mean paired difference
    of MSC and |r| and the Wilcoxon signed-rank p of the MSC (over cases)."""
    from scipy.stats import wilcoxon
    out = []
    for db in ("BIDMC", "MARSH"):
        d = np.array([a[n]["msc"] - b[n]["msc"] for n in a if database(n) == db])
        dr = np.array([a[n]["r"] - b[n]["r"] for n in a if database(n) == db])
        p = wilcoxon(d).pvalue if np.any(d != 0) else 1.0
        out.append(f"- {label}, {db}: MSC up by > 0.01 in {np.sum(d > 0.01)}, down in "
                   f"{np.sum(d < -0.01)} of {d.size}; mean difference MSC {d.mean():+.4f}, "
                   f"|r| {dr.mean():+.4f}; Wilcoxon p = {p:.3f}")
    return out


def _count(choice: dict) -> str:
    out = {}
    for c in choice.values():
        out[c] = out.get(c, 0) + 1
    return "; ".join(f"{c}: {k}" for c, k in sorted(out.items(), key=lambda x: -x[1]))


def sim_table(sims: dict) -> list:
    """Median MSC / |r| of each candidate and the R amplitude per simulated scenario."""
    sc = CaseScores(sims)
    lines = ["### Simulated one-lead records (300 Hz, x1000, 300 s, seeds 0-2)", "",
             "| scenario, heart rate | R amplitude | " + " | ".join(CANDIDATES) + " |",
             "|---|---" + "|---" * len(CANDIDATES) + "|"]
    groups = sorted({n.rsplit("/", 1)[0] for n in sims})
    for g in groups:
        sub = [n for n in sims if n.startswith(g + "/")]
        cells = [f"{np.median([sims[n]['ramp']['msc'] for n in sub]):.3f} / "
                 f"{np.median([sims[n]['ramp']['r'] for n in sub]):.3f}"]
        for c in CANDIDATES:
            f = sc(c, DEFAULT)
            cells.append(f"{np.median([f[n]['msc'] for n in sub]):.3f} / "
                         f"{np.median([f[n]['r'] for n in sub]):.3f}")
        lines.append(f"| {g[4:]} | " + " | ".join(cells) + " |")
    return lines + [""]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fs", type=float, default=None, help="BIDMC leads resampled to this rate")
    ap.add_argument("--cache-dir", required=True, help="outside the repository")
    ap.add_argument("--out", default=None)
    ap.add_argument("--diagnose", action="store_true")
    ap.add_argument("--no-nested", action="store_true",
                    help="skip the nested estimate (it needs the multi-lead nested replay)")
    args = ap.parse_args(argv)
    root = os.environ["EDR_DATA_DIR"]
    tag = f"onelead_{args.fs:g}hz" if args.fs else "onelead"
    cases = load(shared_cases(root, args.fs), os.path.join(args.cache_dir, tag))
    sims = load(sim_cases(), os.path.join(args.cache_dir, "onelead_sim"))
    folds = None if args.no_nested else fold_configs(args.cache_dir)
    cmd = ("python scripts/measure_one_lead.py" + (f" --fs {args.fs:g}" if args.fs else "")
           + (" --diagnose" if args.diagnose else "") + (" --no-nested" if args.no_nested else "")
           + " --cache-dir DIR" + (f" --out {args.out}" if args.out else ""))
    lines = ["# One lead: the default, the R amplitude and one-lead panels", "",
             f"Command: `{cmd}`", "",
             f"Candidates: {CANDIDATES}. Fusion and rates: {DEFAULT} (nested: each fold's "
             "configuration from the nested replay on the multi-lead records).", ""]
    lines += tables(CaseScores(cases, os.path.join(args.cache_dir, tag)), cases, folds)
    lines += sim_table(sims)
    if args.diagnose:
        lines += diagnose({**cases, **sims})
    return write_markdown(args.out, lines)


if __name__ == "__main__":
    raise SystemExit(main())
