"""Breath-by-breath detection from the default EDR, measured against annotated breaths.

``--part real`` (default): every BIDMC and MARSH record under ``EDR_DATA_DIR`` is extracted
once with the default options (``edr.pipeline.extract_edr``; the results are cached outside
the repository, ``--cache``) and its breaths detected (``edr.breaths.detect_breaths``) for
every candidate of :data:`GRID` (smallest prominence, relative prominence, the coherent
heart-rate swing from which the arrhythmia decides the polarity, the breath quality, the
smallest spacing of two breaths as a fraction of the local period). Scores
(``edr.evaluate.breaths``): sensitivity, positive predictivity, F1 with a tolerance of ±1 s or
a quarter of the local annotated interval, whichever is smaller (one-to-one), on the breaths
kept (not ``low_quality``, of a record whose polarity is decided) against the annotated breaths
outside the withheld stretches; the share of annotated breaths kept; the median breath-interval
error.

The 32 subjects (23 BIDMC patients: bidmc06-09, 20-23 and 38-39 are one patient each; 9 MARSH
subjects) are held out in turn: the candidate with the best pooled kept F1 over the other
subjects' records, averaged over the two databases, is applied to the held-out subject; among
equal candidates the middle one (sorted in the order of :data:`GRID`: the largest margin to
both sides). The significance level of the polarity's tests (``edr.polarity.POLARITY_ALPHA``)
is stated, not tuned. Held-out figures are pooled per
database. The polarity (``edr.polarity.decide_polarity``) is checked record by record against
the better of the two fixed polarities, and the precision of the breaths kept and flagged
(``low_quality``, by quality) with the better polarity. The method sees the ECG alone; the
annotations only score.

``--part simulated``: pauses on simulated records (``edr.simulate``): records of 8 minutes (2
leads, 125 Hz) on the bases of :data:`SIM_BASES`, seeds ``0..--seeds-1``, each with apnoea
episodes (depth 0), hypopnoea episodes (depth :data:`HYPOPNOEA_DEPTH`) or none (with sighs, and
without), episodes of 10-60 s drawn by :func:`draw_episodes`. An episode is found when a pause
overlaps it; a false pause overlaps none (per hour of breathing outside the episodes).

Usage: ``EDR_DATA_DIR=/path/to/data python scripts/measure_breaths.py --part real
--out scripts/output/measure_breaths_real.md`` (and ``--part simulated``).
"""

from __future__ import annotations

import argparse
import glob
import os
import pickle
import tempfile
from itertools import product

import numpy as np
from _shared import database, subject, write_markdown

from edr.breaths import (
    BREATH_MIN_QUALITY,
    MIN_CYCLE_FRACTION,
    POLARITIES,
    PROMINENCE,
    RELATIVE_PROMINENCE,
    detect_breaths,
)
from edr.evaluate.breaths import BreathScores, match_breaths, score_breaths, score_kept
from edr.io import read_record
from edr.pipeline import extract_edr
from edr.polarity import POLARITY_ALPHA, RSA_MIN_BPM, coherence_threshold, decide_polarity
from edr.rates import QUALITY_THRESHOLD
from edr.simulate import SCENARIOS, simulate_recording

DEFAULT_CACHE = os.path.join(tempfile.gettempdir(), "edr-breaths-cache")
"""Where the extracted EDRs are kept between runs (outside the repository)."""

GRID = {"prominence": (0.25, 0.5, 1.0), "relative": (0.0, 0.2, 0.3, 0.4, 0.5),
        "rsa_min_bpm": (0.5, 1.0, 1.5, 2.0, 3.0, np.inf),
        "min_quality": (0.0, 0.3, 0.5, QUALITY_THRESHOLD),
        "min_cycle_fraction": (0.4, 0.5, 0.6, 0.7)}
"""Candidates: the smallest prominence (SD of the EDR), the smallest prominence relative to
the typical one (``edr.breaths.breath_peaks``; pauses are found between the breaths of at
least ``edr.breaths.PAUSE_RELATIVE``) and the coherent heart-rate swing (bpm) from which the
arrhythmia's sign gives the polarity (``edr.polarity.decide_polarity``; inf: the shape
alone), and the quality below which a breath where the rate is withheld for low agreement is
flagged (``edr.breaths.BREATH_MIN_QUALITY``; ``edr.rates.QUALITY_THRESHOLD``: every such
breath), and the fraction of the local breathing period within which two extrema are one
breath (``edr.breaths.MIN_CYCLE_FRACTION``)."""
CANDIDATES = tuple(product(*GRID.values()))
"""Every candidate of :data:`GRID` as ``(prominence, relative, threshold, min_quality,
min_cycle_fraction)``."""
DEFAULT = (PROMINENCE, RELATIVE_PROMINENCE, RSA_MIN_BPM, BREATH_MIN_QUALITY, MIN_CYCLE_FRACTION)
"""The defaults of ``edr.breaths`` and ``edr.polarity``."""

SIM_BASES = ("healthy_rest", "paced_breathing", "deep_slow_breathing", "mixed_icu")
"""Scenarios of ``edr.simulate.SCENARIOS`` the pauses are carved into."""
HYPOPNOEA_DEPTH = 0.4
"""Breathing depth during a simulated hypopnoea (relative to normal)."""
EVENTS = ("apnoea", "hypopnoea", "sighs", "none")
"""The simulated records' events: apnoea or hypopnoea episodes, three sighs, or none."""
QUALITY_BINS = (0.0, 0.5, 0.65, 0.8, 0.9, 1.0)
"""Edges of the quality classes of the precision table."""


def record_paths(root: str) -> list[str]:
    """The 30 BIDMC and 9 MARSH records under ``root``."""
    return sorted(glob.glob(os.path.join(root, "bidmc", "bidmc??.hea"))) + \
        sorted(glob.glob(os.path.join(root, "marsh", "m????.hea")))




def cached(key: str, cache_dir: str, make) -> dict:
    """``make()`` computed once and kept in ``cache_dir/key.pkl`` (outside the repository)."""
    file = os.path.join(cache_dir, f"{key}.pkl")
    if os.path.isfile(file):
        with open(file, "rb") as fh:
            return pickle.load(fh)
    item = make()
    os.makedirs(cache_dir, exist_ok=True)
    with open(file + ".tmp", "wb") as fh:
        pickle.dump(item, fh)
    os.replace(file + ".tmp", file)
    return item


def real_record(path: str, cache_dir: str) -> dict:
    """The default EDR of the record at ``path`` and its annotated breaths (cached)."""
    name = os.path.splitext(os.path.basename(path))[0]

    def make():
        rec = read_record(path)
        return {"name": name, "result": extract_edr(rec), "breath_times": rec.breath_times}

    return cached(name, cache_dir, make)


def _uncertain(n_annotated: int) -> BreathScores:
    """The kept scores of a record whose polarity is uncertain: nothing kept."""
    return BreathScores(0, 0, 0, np.empty(0), n_annotated)


def record_scores(item: dict) -> dict:
    """Kept-breath scores of one record for every candidate of :data:`GRID` (the breaths of
    either fixed polarity, taken as the decision says), the polarity decisions, the F1 of all
    breaths with maxima and with minima, and the breaths' match flags with the better one."""
    res, ref = item["result"], item["breath_times"]
    decisions = {r: decide_polarity(res, rsa_min_bpm=r) for r in GRID["rsa_min_bpm"]}
    out = {}
    for prom, rel, q, c in product(GRID["prominence"], GRID["relative"], GRID["min_quality"],
                                   GRID["min_cycle_fraction"]):
        kept = {p: score_kept(detect_breaths(res, polarity=p, prominence=prom, relative=rel,
                                             min_quality=q, min_cycle_fraction=c), ref)
                for p in ("peaks", "troughs")}
        for r, d in decisions.items():
            out[(prom, rel, r, q, c)] = kept["peaks" if d.sign > 0 else "troughs"] \
                if d.confident else _uncertain(kept["peaks"].n_annotated)
    fixed = {p: detect_breaths(res, polarity=p) for p in ("peaks", "troughs")}
    f1 = {p: score_breaths(b.time, ref).f1 for p, b in fixed.items()}
    better = detect_breaths(res, polarity=max(f1, key=f1.get), min_quality=QUALITY_THRESHOLD)
    matched = np.zeros(len(better), dtype=bool)
    matched[match_breaths(better.time, ref)[1]] = True
    return {"scores": out, "polarity": decisions[RSA_MIN_BPM], "fixed_f1": f1,
            "fixed_kept": {p: score_kept(b, ref) for p, b in fixed.items()},
            "quality": better.quality, "low_quality": better.low_quality, "matched": matched}


def objective(scores: dict, names, candidate) -> float:
    """Pooled kept F1 of ``candidate`` over ``names``, averaged over the databases present."""
    f1 = []
    for db in ("BIDMC", "MARSH"):
        sel = [scores[n]["scores"][candidate] for n in names if database(n) == db]
        if sel:
            f1.append(BreathScores.pooled(sel).f1)
    return float(np.mean(f1))


def choose(scores: dict, names) -> tuple:
    """The candidate of the best objective over ``names``; among equal ones the middle one."""
    value = {c: round(objective(scores, names, c), 12) for c in CANDIDATES}
    best = max(value.values())
    tied = sorted(c for c in CANDIDATES if value[c] == best)
    return tied[(len(tied) - 1) // 2]


def loso(scores: dict):
    """``(held-out scores per database, the candidate chosen per subject)``."""
    names = sorted(scores)
    held, chosen = {"BIDMC": [], "MARSH": []}, {}
    for subj in sorted({subject(n) for n in names}):
        best = choose(scores, [n for n in names if subject(n) != subj])
        chosen[subj] = best
        for n in names:
            if subject(n) == subj:
                held[database(n)].append(scores[n]["scores"][best])
    return {db: BreathScores.pooled(v) for db, v in held.items()}, chosen


def _fmt(s: BreathScores) -> str:
    return (f"{s.f1:.3f} | {s.sensitivity:.3f} | {s.positive_predictivity:.3f} | "
            f"{s.share_kept:.3f} | {s.interval_error_s:.2f}")


_SCORE_HEAD = ["| database | F1 | sensitivity | pos. predictivity | share kept | "
               "median interval error (s) |", "|---|---|---|---|---|---|"]


def real_report(paths, cache_dir: str) -> list[str]:
    """The Markdown lines of ``--part real``."""
    scores = {}
    for p in paths:
        item = real_record(p, cache_dir)
        scores[item["name"]] = record_scores(item)
    held, chosen = loso(scores)
    lines = ["# Breath detection on BIDMC and MARSH (default EDR)", "",
             "`EDR_DATA_DIR=/path/to/data python scripts/measure_breaths.py --part real`", "",
             "Leave-one-subject-out, pooled per database (kept breaths; tolerance ±1 s or a "
             "quarter of the local annotated interval; records whose polarity is uncertain are "
             f"not kept; significance level {POLARITY_ALPHA:g}):", ""] + _SCORE_HEAD
    lines += [f"| {db} | {_fmt(s)} |" for db, s in held.items()]
    counts: dict = {}
    for c in chosen.values():
        counts[c] = counts.get(c, 0) + 1
    lines += ["", "Chosen (prominence, relative, arrhythmia threshold in bpm, breath quality, "
              "smallest spacing in local periods): "
              + ", ".join(f"{c} in {k} folds" for c, k in sorted(counts.items())), "",
              "In-sample with the defaults " + str(DEFAULT) + ":", ""] + _SCORE_HEAD
    for db in ("BIDMC", "MARSH"):
        pooled = BreathScores.pooled(v["scores"][DEFAULT] for n, v in scores.items()
                                     if database(n) == db)
        lines.append(f"| {db} | {_fmt(pooled)} |")
    lines += [""] + _grid_table(scores) + [""] + _polarity_table(scores) + [""]
    return lines + _quality_table(scores)


def _pooled_row(scores: dict, candidate) -> str:
    pooled = {db: BreathScores.pooled([v["scores"][candidate] for n, v in scores.items()
                                       if database(n) == db]) for db in ("BIDMC", "MARSH")}
    return " | ".join(f"{pooled[db].f1:.3f} | {pooled[db].share_kept:.3f}"
                      for db in ("BIDMC", "MARSH")) + " |"


def _grid_table(scores: dict) -> list[str]:
    head = "BIDMC F1 | BIDMC kept | MARSH F1 | MARSH kept |"
    p0, r0, t0, q0, c0 = DEFAULT
    lines = [f"In-sample (pooled kept F1 and share kept per database), the other constants at "
             f"their defaults {DEFAULT}:", "", f"| prominence | relative | {head}",
             "|---|---|---|---|---|---|"]
    lines += [f"| {p} | {r} | {_pooled_row(scores, (p, r, t0, q0, c0))}"
              for p, r in product(GRID["prominence"], GRID["relative"])]
    lines += ["", "By the coherent heart-rate swing from which the arrhythmia decides the "
              "polarity (inf: the waveform's shape alone):", "",
              f"| threshold (bpm) | {head}", "|---|---|---|---|---|"]
    lines += [f"| {t:g} | {_pooled_row(scores, (p0, r0, t, q0, c0))}"
              for t in GRID["rsa_min_bpm"]]
    lines += ["", "By the breath quality below which a breath where the rate is withheld for "
              f"low agreement is flagged ({QUALITY_THRESHOLD:g}: every one):", "",
              f"| breath quality | {head}", "|---|---|---|---|---|"]
    lines += [f"| {q:g} | {_pooled_row(scores, (p0, r0, t0, q, c0))}"
              for q in GRID["min_quality"]]
    lines += ["", "By the smallest spacing of two breaths (fraction of the local breathing period; "
              "the less prominent extremum goes):", "",
              f"| spacing | {head}", "|---|---|---|---|---|"]
    lines += [f"| {c:g} | {_pooled_row(scores, (p0, r0, t0, q0, c))}"
              for c in GRID["min_cycle_fraction"]]
    return lines


def _polarity_row(n: str, s: dict) -> tuple[str, int]:
    """A row of the polarity table and whether the decision is right (1), wrong (-1) or
    uncertain (0)."""
    d = s["polarity"]
    better = 1 if s["fixed_f1"]["peaks"] > s["fixed_f1"]["troughs"] else -1
    verdict = 0 if not d.confident else (1 if d.sign == better else -1)
    rsa, shape = d.rsa, d.shape
    row = (f"| {n} | {s['fixed_f1']['peaks']:.2f} | {s['fixed_f1']['troughs']:.2f} | "
           f"{rsa.swing_bpm:+.2f} | {rsa.coherence:.2f} ({coherence_threshold(rsa.n_segments):.2f})"
           f" | {rsa.phase_deg:+.0f} | {shape.skewness:+.3f} | {shape.p_value:.3g} | "
           f"{d.sign:+d} | {d.source} | {('uncertain', 'yes', 'no')[[0, 1, -1].index(verdict)]} |")
    return row, verdict


def _polarity_table(scores: dict) -> list[str]:
    lines = ["Polarity per record (defaults): F1 of all breaths with the EDR's maxima / minima "
             "as ends of inspiration; the heart-rate swing in phase with the EDR at the "
             "breathing frequency (bpm, + when the heart is fastest at the maxima), its "
             "coherence (significance threshold) and phase (degrees); the mean skewness of the "
             "EDR's 32 s windows and its t test's p-value; the sign chosen, by which evidence, "
             "and whether it is the better one:", "",
             "| record | F1 maxima | F1 minima | swing | coherence | phase | skewness | p | "
             "chosen | by | right |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    tally = {(db, src): [0, 0, 0] for db in ("BIDMC", "MARSH")
             for src in ("arrhythmia", "shape", "none")}
    for n in sorted(scores):
        row, verdict = _polarity_row(n, scores[n])
        lines.append(row)
        tally[(database(n), scores[n]["polarity"].source)][[1, -1, 0].index(verdict)] += 1
    lines += ["", "Decisions (right / wrong / uncertain) by evidence: " + "; ".join(
        f"{db} {src} {a}/{b}/{c}" for (db, src), (a, b, c) in tally.items() if a + b + c),
        "", "Diagnostic, not a method: each record with the better of the two fixed "
        "polarities (read from the annotations), default constants, kept breaths:", ""]
    lines += _SCORE_HEAD
    for db in ("BIDMC", "MARSH"):
        best = [s["fixed_kept"][max(s["fixed_f1"], key=s["fixed_f1"].get)]
                for n, s in scores.items() if database(n) == db]
        lines.append(f"| {db} | {_fmt(BreathScores.pooled(best))} |")
    return lines


def _quality_table(scores: dict) -> list[str]:
    """Precision of the breaths (better polarity) kept and flagged, and by quality class."""
    lines = ["Is the per-breath quality honest? Precision (matched / detected) of the breaths "
             "detected with each record's better polarity, all records pooled:", "",
             "| database | breaths | class | share of breaths | precision |",
             "|---|---|---|---|---|"]
    for db in ("BIDMC", "MARSH"):
        sel = [s for n, s in scores.items() if database(n) == db]
        q = np.concatenate([s["quality"] for s in sel])
        low = np.concatenate([s["low_quality"] for s in sel])
        hit = np.concatenate([s["matched"] for s in sel])
        classes = [("kept", ~low), ("low_quality", low)]
        classes += [(f"quality {a:g}-{b:g}", (q >= a) & ((q < b) | (b == QUALITY_BINS[-1])))
                    for a, b in zip(QUALITY_BINS[:-1], QUALITY_BINS[1:], strict=True)]
        for name, m in classes:
            prec = f"{hit[m].mean():.3f}" if m.any() else "-"
            lines.append(f"| {db} | {q.size} | {name} | {m.mean():.3f} | {prec} |")
    return lines


def draw_episodes(rng, duration_s: float, *, margin_s: float = 45.0, gap_s: float = 45.0):
    """Non-overlapping ``(start_s, length_s)`` episodes of 10-60 s (uniform), at least
    ``gap_s`` apart and ``margin_s`` from the record's ends, drawn until none fits."""
    episodes, t = [], margin_s + rng.uniform(0, gap_s)
    while True:
        length = rng.uniform(10.0, 60.0)
        if t + length > duration_s - margin_s:
            return episodes
        episodes.append((float(t), float(length)))
        t += length + gap_s + rng.uniform(0, gap_s)


def simulated_record(base: str, kind: str, seed: int, cache_dir: str) -> dict:
    """A simulated 8-minute record of ``base`` with ``kind`` events ("apnoea", "hypopnoea",
    "sighs", "none"), its EDR and the episodes (cached)."""
    duration = 480.0
    rng = np.random.default_rng([seed, EVENTS.index(kind)])
    episodes = draw_episodes(rng, duration) if kind in ("apnoea", "hypopnoea") else []
    sighs = sorted(rng.uniform(30, duration - 30, 3).tolist()) if kind == "sighs" else []

    def make():
        rec = simulate_recording(duration, 125.0, leads=("II", "V"), random_state=seed,
                                 name=f"{base}-{kind}-{seed}", apnoea_episodes=episodes,
                                 apnoea_depth=0.0 if kind == "apnoea" else HYPOPNOEA_DEPTH,
                                 sigh_times_s=sighs, **SCENARIOS[base])
        return {"result": extract_edr(rec), "breath_times": rec.breath_times,
                "episodes": episodes, "duration_s": duration}

    return cached(f"sim-{base}-{kind}-{seed}", cache_dir, make)


def pause_counts(item: dict, **options) -> tuple[int, int, int, float]:
    """``(episodes, found, false pauses, hours outside the episodes)`` of one simulated
    record (``options`` of ``detect_breaths``)."""
    b = detect_breaths(item["result"], **options)
    ep = np.array(item["episodes"], dtype=float).reshape(-1, 2)
    ep_end = ep[:, 0] + ep[:, 1]
    overlap = (b.pauses[:, None, 0] < ep_end[None, :]) & (b.pauses[:, None, 1] > ep[None, :, 0])
    found = int(overlap.any(axis=0).sum())
    false = int((~overlap.any(axis=1)).sum())
    return ep.shape[0], found, false, (item["duration_s"] - ep[:, 1].sum()) / 3600.0


def simulated_report(seeds: int, cache_dir: str) -> list[str]:
    """The Markdown lines of ``--part simulated``."""
    lines = ["# Pauses on simulated records", "",
             f"`python scripts/measure_breaths.py --part simulated --seeds {seeds}`", "",
             f"8-minute records, 2 leads at 125 Hz, seeds 0-{seeds - 1}; episodes of 10-60 s; "
             f"hypopnoea depth {HYPOPNOEA_DEPTH}.", "",
             "| base | events | records | episodes | found | sensitivity | false pauses | "
             "hours | false per hour | breath F1 | breath F1, better polarity |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for base, kind in product(SIM_BASES, EVENTS):
        n_ep = n_found = n_false = 0
        hours = 0.0
        auto, better = [], []
        for seed in range(seeds):
            item = simulated_record(base, kind, seed, cache_dir)
            e, f, fp, h = pause_counts(item)
            n_ep, n_found, n_false, hours = n_ep + e, n_found + f, n_false + fp, hours + h
            s = {p: score_breaths(detect_breaths(item["result"], polarity=p).time,
                                  item["breath_times"]) for p in POLARITIES}
            auto.append(s["auto"])
            better.append(max(s["peaks"], s["troughs"], key=lambda v: v.f1))
        sens = f"{n_found / n_ep:.2f}" if n_ep else "-"
        lines.append(f"| {base} | {kind} | {seeds} | {n_ep} | {n_found} | {sens} | {n_false} | "
                     f"{hours:.2f} | {n_false / hours:.2f} | {BreathScores.pooled(auto).f1:.3f} "
                     f"| {BreathScores.pooled(better).f1:.3f} |")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=("real", "simulated"), default="real")
    ap.add_argument("--cache", default=DEFAULT_CACHE,
                    help="folder for the extracted EDRs (outside the repository)")
    ap.add_argument("--seeds", type=int, default=10, help="simulated records per setting")
    ap.add_argument("--out", default=None, help="Markdown output file")
    args = ap.parse_args(argv)
    if args.part == "real":
        lines = real_report(record_paths(os.environ["EDR_DATA_DIR"]), args.cache)
    else:
        lines = simulated_report(args.seeds, args.cache)
    return write_markdown(args.out, lines)


if __name__ == "__main__":
    raise SystemExit(main())
