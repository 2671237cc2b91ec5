"""Nested leave-one-subject-out estimate of the tuned EDR over BIDMC and MARSH.

The default's fusion and rate constants were chosen grid after grid while looking at every
shared record (``scripts/measure_generalisation_loso.py``: the weighting grid, then the
alignment grid and the rate tilt with the weighting fixed, then the matrix grid), so the
leave-one-subject-out figure inside the last grid does not account for the earlier choices.
Here the whole procedure (:data:`STAGES`, in order, each stage's candidates built on the
choices of the stages before it) is replayed on the other subjects only, for each of the 32
subjects (23 BIDMC patients: bidmc06-09, 20-23 and 38-39 are one patient each; 9 MARSH
subjects) in turn, and the held-out subject is scored with what that replay chose: the nested
estimate. Beside it: the choice on every record scored in-sample, and plain
leave-one-subject-out (only the last stage chosen per fold, the earlier stages fixed at their
all-record choices), per database.

Objectives, as the project's grids used them: a fusion by the mean over the two databases of
the median (MSC + |r|) / 2 of the training subjects' records; a rate rule (tilt, quality
threshold) by the mean over the databases of the share of reference rate windows given a rate
within 2 bpm. Per-record scores of every configuration come from ``scripts/nested_scores.py``
(cached under ``--cache-dir``, outside the repository). The method sees the ECG alone; the
reference respiration only scores.

Usage: ``EDR_DATA_DIR=/path/to/data python scripts/measure_nested_loso.py --out
scripts/output/measure_nested_loso.md``
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from itertools import product

import numpy as np
from _shared import write_markdown
from accuracy_cache import DEFAULT_CACHE, load_all
from measure_generalisation_loso import ANALYSES, database, subject
from nested_scores import Scores, rates_at

START = dict(baseline="detrend", rsa=False, local_s=None, consensus=False, power=2,
             max_lag_s=0.0, anchor="heaviest", tilt=0.0, carried=False, components=3,
             threshold=0.5, heart_phase=False, counted=False)
"""The default before the first grid: whole-window concentration squared, no heart rate, no
alignment, the untilted periodogram, the detrended matrix."""
TILTS = (0.0, 0.5, 1.0, 2.0)
THRESHOLDS = tuple(np.round(np.arange(0.2, 0.701, 0.05), 2))
"""The quality thresholds of the project's leave-one-patient-out threshold grid."""
MIN_COVERAGE = 0.9
"""The threshold rule: the largest threshold that still gives a rate in this share of every
database's reference rate windows."""


def _weighting(c):
    return [dict(c, local_s=loc, consensus=con, rsa=rsa, power=p) for loc, con, rsa, p
            in product((None, 64.0), (False, True), (False, True), (2, 4))]


def _alignment(c):
    return [dict(c, max_lag_s=lag, power=p) for lag, p in product((0.0, 0.25, 0.5, 1.0),
                                                                   (2, 4))]


def _tilt(c):
    return [dict(c, tilt=t) for t in TILTS]


def _matrix(c):
    return [dict(c, baseline=b, rsa=r, max_lag_s=lag, anchor="morphology") for b, r, lag
            in product(ANALYSES, (False, True), (0.25, 0.5))] + [dict(c, max_lag_s=0.25)]


def _heart_phase(c):
    return [dict(c, heart_phase=p) for p in (False, True)]


def _carried_tilt(c):
    return [dict(c, carried=True, tilt=t) for t in TILTS]


def _counted(c):
    return [dict(c, counted=k) for k in (False, True)]


def _threshold(c):
    return [dict(c, threshold=float(q)) for q in THRESHOLDS]


STAGES = (("weighting", _weighting, "fusion"), ("alignment", _alignment, "fusion"),
          ("tilt", _tilt, "rates"), ("matrix", _matrix, "fusion"),
          ("heart phase", _heart_phase, "fusion"), ("carried tilt", _carried_tilt, "rates"),
          ("counted rates", _counted, "rates"), ("threshold", _threshold, "coverage"))
"""The procedure, in order: name, candidates given the choice so far, objective. The first four
are the project's grids as they were run (the matrix grid's last candidate is the previous
default: the detrended matrix aligned on the heaviest series, lag 0.25 s); then whether the
heart rate is added rotated onto the morphology frequency by frequency (``edr.fusion.fuse``'s
``phase``, ``docs/studies/one_lead_healthy.md``); then the rate search
limited to what the beats carry (``edr.signal.carried_bpm``) with the periodogram tilt chosen
again; whether the rates are chosen by the EDR's own breaths (``edr.breath_rates``,
``docs/studies/counted_rates.md``); and the quality threshold by the rule of the project's
threshold grid (the largest that keeps :data:`MIN_COVERAGE` of the windows; there over the ICU
records, here in each database)."""


def objective(scores: dict, names) -> float:
    """Mean over the databases of the median (MSC + |r|) / 2 of the records ``names``."""
    per_db = {}
    for n in names:
        per_db.setdefault(database(n), []).append((scores[n]["msc"] + scores[n]["r"]) / 2)
    return float(np.mean([np.median(v) for v in per_db.values()]))


def rate_objective(scores: dict, names, threshold: float) -> float:
    """Mean over the databases of the share of their reference rate windows (pooled over the
    records ``names``) given a rate within 2 bpm at ``threshold``."""
    per_db = {}
    for n in names:
        ref = scores[n]["ref_bpm"]
        has = np.isfinite(ref)
        right = np.abs(rates_at(scores[n], threshold)[has] - ref[has]) <= 2.0
        a, b = per_db.get(database(n), (0, 0))
        per_db[database(n)] = (a + has.sum(), b + right.sum())
    return float(np.mean([b / max(a, 1) for a, b in per_db.values()]))


def coverage(scores: dict, names, threshold: float) -> float:
    """The smallest share, over the databases, of the reference rate windows of the records
    ``names`` given a rate at ``threshold``."""
    per_db = {}
    for n in names:
        has = np.isfinite(scores[n]["ref_bpm"])
        given = np.isfinite(rates_at(scores[n], threshold)[has])
        a, b = per_db.get(database(n), (0, 0))
        per_db[database(n)] = (a + has.sum(), b + given.sum())
    return float(min(b / max(a, 1) for a, b in per_db.values()))


def stage_score(cfg: dict, kind: str, scores: Scores, names) -> float:
    """The stage's objective of ``cfg`` over the records ``names`` (larger is better); for the
    threshold rule, the threshold itself where it keeps :data:`MIN_COVERAGE`, else minus it."""
    s = scores(cfg)
    if kind == "fusion":
        return objective(s, names)
    if kind == "coverage":
        q = cfg["threshold"]
        return q if coverage(s, names, q) >= MIN_COVERAGE else -q
    return rate_objective(s, names, cfg["threshold"])


def choose(names, scores: Scores, stages=STAGES, start=START, fixed_upto: dict | None = None):
    """Replay ``stages`` on the records ``names``: each stage keeps its best candidate (the first
    among ties). ``fixed_upto``: the choices of every stage but the last, already made (plain
    leave-one-subject-out). Returns the final configuration and the choice of every stage."""
    cfg, trail = dict(start), []
    for i, (name, candidates, kind) in enumerate(stages):
        if fixed_upto is not None and i < len(stages) - 1:
            cfg = fixed_upto[name]
        else:
            cands = candidates(cfg)
            values = [stage_score(c, kind, scores, names) for c in cands]
            cfg = cands[int(np.argmax(values))]
        trail.append((name, cfg))
    return cfg, trail


def window_errors(rows: dict, threshold_of) -> tuple:
    """Pooled window rates: EDR (judged at each record's threshold), reference, half the heart
    rate."""
    edr = np.concatenate([rates_at(v, threshold_of(n)) for n, v in rows.items()])
    ref = np.concatenate([v["ref_bpm"] for v in rows.values()])
    half = np.concatenate([v["half_hr"] for v in rows.values()])
    return edr, ref, half


def summary(rows: dict, threshold_of, ramp: dict) -> str:
    """One table row: MSC, |r|, rate error, coverage / within 2 bpm, limits of agreement,
    largest error, rates above half the heart rate, wins over the R amplitude."""
    msc = np.median([v["msc"] for v in rows.values()])
    r = np.median([v["r"] for v in rows.values()])
    per_rec = []
    for n, v in rows.items():
        e = np.abs(rates_at(v, threshold_of(n)) - v["ref_bpm"])
        e = e[np.isfinite(e)]
        per_rec.append(np.median(e) if e.size else np.nan)
    edr, ref, half = window_errors(rows, threshold_of)
    has = np.isfinite(ref)
    cov = has & np.isfinite(edr)
    d = edr[cov] - ref[cov]
    within = np.mean(np.abs(d) <= 2.0)
    loa = (d.mean() - 1.96 * d.std(), d.mean() + 1.96 * d.std())
    above = int(np.sum(edr[np.isfinite(edr)] > half[np.isfinite(edr)]))
    wins = sum(rows[n]["msc"] > ramp[n]["msc"] for n in rows)
    return (f"| {msc:.3f} | {r:.3f} | {np.nanmedian(per_rec):.2f} / {np.nanmean(per_rec):.2f} | "
            f"{cov.sum() / max(has.sum(), 1):.1%} / {within:.1%} | {d.mean():+.2f} "
            f"({loa[0]:+.1f} … {loa[1]:+.1f}) | {np.abs(d).max():.1f} | {above} | "
            f"{wins} of {len(rows)} |")


HEAD = ["| | MSC | \\|r\\| | rate error median / mean (bpm) | coverage / within 2 bpm | "
        "bias (limits of agreement) | largest error | rates above half the heart rate | "
        "MSC above the R amplitude |", "|---|---|---|---|---|---|---|---|---|"]


def label(cfg: dict, keys) -> str:
    return ", ".join(f"{k}={cfg[k]}" for k in keys)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="scripts/output/measure_nested_loso.md")
    ap.add_argument("--cache-dir", default=DEFAULT_CACHE)
    args = ap.parse_args(argv)
    records = load_all(args.cache_dir)
    scores = Scores(records, args.cache_dir, log=lambda m: print(m, file=sys.stderr, flush=True))
    names = list(records)
    subjects = sorted({subject(n) for n in names})
    full, full_trail = choose(names, scores)
    fixed = dict(full_trail)
    nested, plain, per_stage = {}, {}, {s[0]: Counter() for s in STAGES}
    for s in subjects:
        train = [n for n in names if subject(n) != s]
        test = [n for n in names if subject(n) == s]
        cfg, trail = choose(train, scores)
        pcfg, _ = choose(train, scores, fixed_upto=fixed)
        for stage, c in trail:
            per_stage[stage][label(c, _changed(stage, c))] += 1
        nested.update({n: (cfg, scores(cfg)[n]) for n in test})
        plain.update({n: (pcfg, scores(pcfg)[n]) for n in test})
    return write_markdown(args.out, report(records, scores, full, full_trail, nested, plain,
                                           per_stage, args.out))


def _changed(stage: str, cfg: dict) -> list:
    return {"weighting": ["local_s", "consensus", "rsa", "power"],
            "alignment": ["max_lag_s", "power"], "tilt": ["tilt"],
            "matrix": ["baseline", "rsa", "max_lag_s", "anchor"],
            "heart phase": ["heart_phase"], "carried tilt": ["tilt"],
            "counted rates": ["counted"], "threshold": ["threshold"]}[stage]


def report(records, scores, full, full_trail, nested, plain, per_stage, out) -> list:
    ramp = {n: r["ramp"] for n, r in records.items()}
    before = dict(full, counted=False)
    lines = ["# Nested leave-one-subject-out estimate (BIDMC + MARSH)", "",
             f"Command: `python scripts/measure_nested_loso.py --out {out}`", "",
             f"{len(records)} records, {len({subject(n) for n in records})} subjects. Stages, in "
             "order: " + ", ".join(s[0] for s in STAGES) + ".", "",
             "## Choices", "", "| stage | on every record | per fold (32) |", "|---|---|---|"]
    for stage, cfg in full_trail:
        lines.append(f"| {stage} | {label(cfg, _changed(stage, cfg))} | "
                     + "; ".join(f"{k}: {v}" for k, v in per_stage[stage].most_common()) + " |")
    lines.append("")
    for db in ("BIDMC", "MARSH"):
        names = [n for n in records if database(n) == db]
        lines += [f"## {db} ({len(names)} records)", "", *HEAD]
        rows = (("nested LOSO (held out, the whole procedure per fold)",
                 {n: nested[n][1] for n in names}, lambda n: nested[n][0]["threshold"]),
                ("plain LOSO (the last stage per fold)", {n: plain[n][1] for n in names},
                 lambda n: plain[n][0]["threshold"]),
                ("in-sample (chosen on every record)", {n: scores(full)[n] for n in names},
                 lambda n: full["threshold"]),
                ("the same without the counted rates (the spectral peak), in-sample",
                 {n: scores(before)[n] for n in names},
                 lambda n: before["threshold"]))
        for name, rows_, thr in rows:
            lines.append(f"| {name} " + summary(rows_, thr, ramp))
        held = {n: nested[n][1]["msc"] for n in names}
        lo, hi = median_interval(held)
        lines += ["", f"R amplitude median MSC {np.median([ramp[n]['msc'] for n in names]):.3f}. "
                  f"The nested median MSC's 95 % bootstrap interval over {db}'s subjects: "
                  f"{lo:.3f}-{hi:.3f}.", ""]
    lines += largest_errors(records, scores(before), before["threshold"], scores(full),
                            full["threshold"])
    lines += ["## Per record (nested LOSO MSC against the R amplitude's)", "",
              "| record | MSC | R amplitude MSC | \\|r\\| |", "|---|---|---|---|"]
    lines += [f"| {n} | {nested[n][1]['msc']:.3f} | {ramp[n]['msc']:.3f} | "
              f"{nested[n][1]['r']:.3f} |" for n in records]
    return lines


def median_interval(values: dict, n_boot: int = 4000, seed: int = 0) -> tuple:
    """95 % bootstrap interval of the median of the records' ``values``, resampling subjects
    (with all their records)."""
    by_subject = {}
    for n, v in values.items():
        by_subject.setdefault(subject(n), []).append(v)
    groups = list(by_subject.values())
    rng = np.random.default_rng(seed)
    meds = [np.median(np.concatenate([groups[i] for i in rng.integers(0, len(groups),
                                                                        len(groups))]))
            for _ in range(n_boot)]
    return tuple(np.percentile(meds, [2.5, 97.5]))


def _windows(records, rows, threshold) -> list:
    """(|error|, record, centre, rate, reference, half the heart rate, quality) of every rate
    window given a rate."""
    out = []
    for n in records:
        v = rows[n]
        rate = rates_at(v, threshold)
        for i in np.flatnonzero(np.isfinite(rate) & np.isfinite(v["ref_bpm"])):
            out.append((abs(rate[i] - v["ref_bpm"][i]), n, 16.0 * i + 16.0, rate[i],
                        v["ref_bpm"][i], v["half_hr"][i], v["quality"][i]))
    return sorted(out, reverse=True)


def largest_errors(records, before, t_before, after, t_after, k: int = 15) -> list:
    """The ``k`` largest window errors before and after the counted rates, in-sample."""
    lines = ["## Largest window errors, in-sample (every shared record)", "",
             "| | before: record, window centre (s) | rate / reference / half the heart rate "
             "(bpm), quality | after: record, window centre (s) | rate / reference / half the "
             "heart rate (bpm), quality |", "|---|---|---|---|---|"]
    b, a = _windows(records, before, t_before), _windows(records, after, t_after)
    for i in range(k):
        cells = []
        for _e, n, c, rate, ref, half, q in (b[i], a[i]):
            cells += [f"{n}, {c:.0f}", f"{rate:.1f} / {ref:.1f} / {half:.1f}, {q:.2f}"]
        lines.append(f"| {i + 1} | " + " | ".join(cells) + " |")
    for name, rows in (("before", b), ("after", a)):
        e = np.array([r[0] for r in rows])
        lines.append(f"\n- {name}: {e.size} windows given a rate, {np.sum(e > 5)} off by more "
                     f"than 5 bpm, {np.sum(e > 2)} by more than 2 bpm; rates above half the heart "
                     f"rate: {sum(r[3] > r[5] for r in rows)}")
    return lines + [""]


if __name__ == "__main__":
    raise SystemExit(main())
