"""Fourth round of the breath study (exploratory): two detector variants measured held out, and
where the remaining errors of the rightly decided records are.

Variants of the candidate extrema (``edr.breath_extrema.breath_candidates``), one new constant
each, chosen inside the folds: ``band``, the extrema found and timed on the EDR low-passed (zero
phase, Butterworth order 2) at ``factor`` times the local rate (``edr.breaths.local_period``; a
bank of corners 5 % apart, each sample read from the corner nearest its own); ``band, timed on
the EDR``, the same extrema timed on the EDR itself (its largest sample within a quarter period,
then the parabola); ``cycles``, one breath per cycle: walking in time, a maximum joins the
previous kept one (the higher stays) unless a minimum at least ``h`` times the typical
prominence below the lower of the two separates them (hysteresis), after the spacing rule.

Protocol as ``scripts/measure_breaths.py`` (leave-one-subject-out over the 23 BIDMC patients and
9 MARSH subjects, kept breaths, the record's polarity from ``edr.polarity.decide_polarity``,
records whose polarity is uncertain keep nothing), on a reduced grid: the variant's constant
(``off`` = today's detector) with the breath quality (0, 0.3, 0.5, 0.65) and the spacing (0.5,
0.6, 0.7) chosen jointly inside each fold; prominence 0.25, relative depth 0 and the arrhythmia's
threshold 1.5 bpm fixed (chosen in 31-32 of 32 folds by the full grid). The baseline is the
same reduced grid with the variant ``off``.

Diagnostics (the reference only scores): BIDMC held out against its second annotator (ann2)
and against ann1 with the breaths it skipped filled from ann2 (:func:`completed`); in-sample
scores with what the reference would tell (the better polarity, each record's EDR lag, the
skipped breaths); per record, the lag of the EDR behind the reference respiration (largest
correlation within ±:data:`LAG_S`, 4 Hz grid, both band-passed 0.05-1 Hz) beside the median
offset of the matched breaths, and the same lag of the R amplitude and QRS area where the EDR
leads by 0.5 s or more; the kept breaths' errors by kind; the ICU arrhythmia's direction.

Usage: ``EDR_DATA_DIR=/path/to/data python scripts/explore_breaths_round4.py --out
scripts/output/explore_breaths_round4.md`` (uses the cache of ``measure_breaths.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
from dataclasses import replace
from itertools import product

import numpy as np
from _shared import write_markdown
from measure_breaths import DEFAULT_CACHE, database, real_record, record_paths, subject

import edr.breath_extrema as extrema
import edr.breaths as breaths_module
from edr.breaths import detect_breaths, local_period
from edr.dsp.peaks import find_peaks
from edr.evaluate.breaths import BreathScores, match_breaths, score_breaths, score_kept
from edr.io import read_record
from edr.pipeline import extract_edr
from edr.polarity import coherence_threshold, decide_polarity
from edr.signal import bandpass, butter_sos
from edr.zero_phase import sosfiltfilt

FAMILIES = {"band": (1.5, 2.0, 2.5, 3.0), "band, timed on the EDR": (1.5, 2.0, 2.5, 3.0),
            "cycles": (0.1, 0.2, 0.3, 0.4)}
"""Each variant's constant: the low-pass corner in local rates, or the hysteresis depth in
typical prominences."""
REDUCED = {"min_quality": (0.0, 0.3, 0.5, 0.65), "min_cycle_fraction": (0.5, 0.6, 0.7)}
"""The constants of ``detect_breaths`` chosen with the variant's inside each fold."""
BANK_STEP = 1.05
"""Ratio of neighbouring corners of the low-pass bank."""
LAG_S = 1.5
"""Largest lag (s) of the EDR-reference correlation searched (half a period at 20 /min)."""


def smoothed(x, fs: float, period, factor: float) -> np.ndarray:
    """``x`` low-passed (zero phase, Butterworth order 2) at ``factor`` over the local
    ``period`` (s per sample), run by run of finite values; corners at or above 0.95 of the
    Nyquist frequency and runs too short to filter are left as they are."""
    x = np.asarray(x, dtype=float)
    out = x.copy()
    corner = factor / np.asarray(period, dtype=float)
    for a, b in extrema.finite_runs(x):
        c = corner[a:b]
        if not np.isfinite(c).any():
            continue
        c = np.where(np.isfinite(c), c, np.nanmedian(c))
        n = int(np.ceil(np.log(c.max() / c.min()) / np.log(BANK_STEP))) + 1
        k = np.clip(np.round(np.log(c / c.min()) / np.log(BANK_STEP)).astype(int), 0, n - 1)
        for j in np.unique(k):
            f = c.min() * BANK_STEP ** j
            if f >= 0.95 * fs / 2 or b - a <= 15:
                continue
            out[a:b][k == j] = sosfiltfilt(butter_sos(2, f, "lowpass", fs), x[a:b])[k == j]
    return out


def _on_edr(y: np.ndarray, idx: np.ndarray, half: np.ndarray) -> np.ndarray:
    """Index of the largest sample of ``y`` within ``half`` samples of each ``idx``."""
    out = idx.copy()
    for i, (p, w) in enumerate(zip(idx, half, strict=True)):
        lo, hi = max(p - w, 1), min(p + w + 1, y.size - 1)
        out[i] = lo + int(np.argmax(y[lo:hi]))
    return out


def _hysteresis(y: np.ndarray, idx: np.ndarray, typical: np.ndarray, h: float) -> np.ndarray:
    """Indices (into ``idx``) of the maxima kept, one per cycle (see the module docstring)."""
    kept = [0]
    for i in range(1, idx.size):
        j = kept[-1]
        dip = min(y[idx[i]], y[idx[j]]) - y[idx[j]:idx[i] + 1].min()
        if dip >= h * typical[i]:
            kept.append(i)
        elif y[idx[i]] > y[idx[j]]:
            kept[-1] = i
    return np.array(kept, dtype=int)


def variant(family: str, value: float):
    """A replacement of ``breath_candidates`` for ``family`` with its constant ``value``."""
    def candidates(x, fs, sign, period, *, prominence=extrema.PROMINENCE,
                   min_cycle_fraction=extrema.MIN_CYCLE_FRACTION):
        x, period = np.asarray(x, dtype=float), np.asarray(period, dtype=float)
        z = smoothed(x, fs, period, value) if family.startswith("band") else x
        pos, depth = [], []
        for a, b in extrema.finite_runs(z):
            y = sign * z[a:b]
            idx, props = find_peaks(y, prominence=prominence)
            if idx.size == 0:
                continue
            gap = np.nan_to_num(min_cycle_fraction * period[a + idx] * fs, nan=0.0)
            keep = extrema._spaced(idx, props["prominences"], gap)
            idx, prom = idx[keep], props["prominences"][keep]
            typical = extrema._typical(idx, prom, 0.5 * extrema.TYPICAL_SPAN_S * fs)
            if family == "cycles":
                k = _hysteresis(y, idx, typical, value)
                idx, prom, typical = idx[k], prom[k], typical[k]
            depth.append(prom / typical)
            if family == "band, timed on the EDR":
                half = np.maximum(1, np.round(0.25 * np.nan_to_num(period[a + idx], nan=4.0)
                                              * fs).astype(int))
                y = sign * x[a:b]
                idx = _on_edr(y, idx, half)
            pos.append(a + extrema._refined(y, idx))
        if not pos:
            return np.empty(0), np.empty(0)
        return np.concatenate(pos), np.concatenate(depth)
    return candidates


@contextlib.contextmanager
def candidates_of(family: str | None, value: float | None):
    """``edr.breaths.detect_breaths`` with the candidates of the variant (today's: None)."""
    new = extrema.breath_candidates if family is None else variant(family, value)
    old, breaths_module.breath_candidates = breaths_module.breath_candidates, new
    try:
        yield
    finally:
        breaths_module.breath_candidates = old


def record_scores(item: dict, decided, ref=None, families=FAMILIES) -> dict:
    """Kept scores of one record for every (family, value, quality, spacing), against ``ref``
    (the record's annotated breaths when None)."""
    res = item["result"]
    ref = item["breath_times"] if ref is None else ref
    out = {}
    settings = [(None, None)] + [(f, v) for f, vs in families.items() for v in vs]
    for family, value in settings:
        with candidates_of(family, value):
            for q, c in product(*REDUCED.values()):
                b = detect_breaths(res, polarity="peaks" if decided.sign > 0 else "troughs",
                                   min_quality=q, min_cycle_fraction=c)
                s = score_kept(b, ref)
                out[(family, value, q, c)] = s if decided.confident else \
                    BreathScores(0, 0, 0, np.empty(0), s.n_annotated)
    return out


def second_annotator(path: str) -> np.ndarray | None:
    """The breath times (s) of annotator ``ann2`` of a BIDMC record (None elsewhere)."""
    import wfdb

    if not os.path.basename(path).startswith("bidmc"):
        return None
    ann = wfdb.rdann(os.path.splitext(path)[0], "breath")
    aux = np.array(ann.aux_note)
    return np.sort(ann.sample[aux == "ann2"] / float(ann.fs or 125.0))


def annotator_table(scores: dict, others: dict) -> list[str]:
    """Held-out figures (reduced grid, today's detector, the constants chosen on both
    databases) with BIDMC scored against each of ``others`` (label -> BIDMC scores)."""
    keys = [(None, None, q, c) for q, c in product(*REDUCED.values())]
    lines = ["## BIDMC against other references (held out, today's detector)", "",
             "| BIDMC reference | F1 | sensitivity | pos. predictivity | share kept | "
             "median interval error (s) | MARSH F1 (same folds) |", "|---|---|---|---|---|---|---|"]
    for label, sc in [("ann1 (the protocol's)", {})] + list(others.items()):
        pooled, _ = held_out({**scores, **sc}, keys)
        p = pooled["BIDMC"]
        lines.append(f"| {label} | {p.f1:.3f} | {p.sensitivity:.3f} | "
                     f"{p.positive_predictivity:.3f} | {p.share_kept:.3f} | "
                     f"{p.interval_error_s:.2f} | {pooled['MARSH'].f1:.3f} |")
    return lines


def _objective(scores, names, key) -> float:
    f1 = [BreathScores.pooled([scores[n][key] for n in names if database(n) == db]).f1
          for db in ("BIDMC", "MARSH") if any(database(n) == db for n in names)]
    return float(np.mean(f1))


def held_out(scores: dict, keys: list) -> tuple[dict, dict]:
    """Leave-one-subject-out over ``keys`` (the best pooled kept F1 averaged over the
    databases on the other subjects; among equal ones the middle one): the held-out scores per
    database and how often each key was chosen."""
    names = sorted(scores)
    held, counts = {"BIDMC": [], "MARSH": []}, {}
    for subj in sorted({subject(n) for n in names}):
        train = [n for n in names if subject(n) != subj]
        value = {k: round(_objective(scores, train, k), 12) for k in keys}
        tied = [k for k in keys if value[k] == max(value.values())]
        best = tied[(len(tied) - 1) // 2]
        counts[best] = counts.get(best, 0) + 1
        for n in names:
            if subject(n) == subj:
                held[database(n)].append(scores[n][best])
    return {db: BreathScores.pooled(v) for db, v in held.items() if v}, counts


def _row(label: str, pooled: dict) -> str:
    return f"| {label} | " + " | ".join(
        f"{pooled[db].f1:.3f} | {pooled[db].share_kept:.3f} | {pooled[db].interval_error_s:.2f}"
        for db in ("BIDMC", "MARSH")) + " |"


_HEAD = ["| {} | BIDMC F1 | BIDMC kept | BIDMC interval error (s) | MARSH F1 | MARSH kept | "
         "MARSH interval error (s) |", "|---|---|---|---|---|---|---|"]


def variant_tables(scores: dict) -> list[str]:
    """Held-out (per family, its constant chosen with the quality and spacing) and in-sample
    (defaults) tables."""
    reduced = list(product(*REDUCED.values()))
    lines = ["## Held out (reduced grid)", "", _HEAD[0].format("detector"), _HEAD[1]]
    base, _ = held_out(scores, [(None, None, q, c) for q, c in reduced])
    lines.append(_row("today's (off)", base))
    chosen_lines = []
    for family, values in FAMILIES.items():
        keys = [(f, v, q, c) for f, v in [(None, None)] + [(family, v) for v in values]
                for q, c in reduced]
        pooled, counts = held_out(scores, keys)
        lines.append(_row(family, pooled))
        chosen_lines.append(f"* {family}: " + ", ".join(
            f"{'off' if k[0] is None else k[1]} (quality {k[2]}, spacing {k[3]}) in {m}"
            for k, m in sorted(counts.items(), key=lambda kv: -kv[1])))
    lines += ["", "Chosen in the 32 folds:", ""] + chosen_lines
    lines += ["", "## In sample (quality 0.3, spacing 0.6)", "", _HEAD[0].format("detector"),
              _HEAD[1]]
    for family, value in [(None, None)] + [(f, v) for f, vs in FAMILIES.items() for v in vs]:
        pooled = {db: BreathScores.pooled([s[(family, value, 0.3, 0.6)] for n, s in
                                           scores.items() if database(n) == db])
                  for db in ("BIDMC", "MARSH")}
        lines.append(_row("today's" if family is None else f"{family} {value:g}", pooled))
    return lines


def reference_on_grid(path: str, item: dict) -> np.ndarray:
    """The record's reference respiration on the EDR's grid, band-passed as the EDR, standardised
    (NaN where the EDR is)."""
    rec = read_record(path)
    res = item["result"]
    r = np.interp(res.time, np.arange(rec.resp.size) / rec.resp_fs, rec.resp)
    ok = np.isfinite(res.waveform)
    out = np.full(r.size, np.nan)
    out[ok] = bandpass(r[ok], fs=res.fs)
    return (out - np.nanmean(out)) / np.nanstd(out)


def reference_lag(item: dict, r: np.ndarray, sign: int | None) -> float:
    """Lag (s) of ``sign`` times the EDR behind the reference respiration ``r`` (largest
    correlation within ±:data:`LAG_S`, either sign when None; negative: the EDR leads)."""
    res = item["result"]
    e = np.asarray(res.waveform)
    ok = np.isfinite(e) & np.isfinite(r)
    e, r = e[ok], r[ok]
    lags = np.arange(-int(LAG_S * res.fs), int(LAG_S * res.fs) + 1)
    cc = np.array([np.corrcoef(e[max(0, m):e.size + min(0, m)],
                               r[max(0, -m):r.size + min(0, -m)])[0, 1] for m in lags])
    cc = cc * sign if sign is not None else np.abs(cc)
    return float(lags[int(np.argmax(cc))] / res.fs)


def feature_lags(paths, lags: dict) -> list[str]:
    """The lag of the R amplitude and QRS area (``extract_edr``'s methods) on the records whose
    EDR leads by 0.5 s or more: is the lead the ECG's or the fusion's?"""
    lines = ["| record | EDR | r_amplitude | qrs_area |", "|---|---|---|---|"]
    for path in paths:
        name = os.path.splitext(os.path.basename(path))[0]
        if lags[name] > -0.5:
            continue
        rec = read_record(path)
        cells = [f"{lags[name]:+.2f}"]
        for method in ("r_amplitude", "qrs_area"):
            item = {"result": extract_edr(rec, method=method)}
            cells.append(f"{reference_lag(item, reference_on_grid(path, item), None):+.2f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def _unannotated_maxima(ref: np.ndarray, r: np.ndarray, t: np.ndarray):
    """``(times, relative prominence)`` of the maxima of the reference respiration ``r`` (grid
    ``t``) with no annotation within 1 s; the prominence over the median of the annotated
    maxima's."""
    idx, props = find_peaks(np.nan_to_num(r, nan=np.nanmean(r)), prominence=0.1)
    near = np.abs(ref[None, :] - t[idx][:, None]).min(1) if ref.size else np.full(idx.size, 9.0)
    annotated = near <= 1.0
    scale = np.median(props["prominences"][annotated]) if annotated.any() else 1.0
    return t[idx][~annotated], props["prominences"][~annotated] / scale


def error_kinds(item: dict, decided, r: np.ndarray, ref2=None) -> dict:
    """The kept breaths' errors of one record by kind: false detections within 1.5 s of an
    unmatched annotation (timing: early or late) or not (extra); misses with a kept detection
    within 1.5 s (timing) or none; the extra ones' depth (prominence over the typical one) and
    spacing to their neighbours (local periods), and which of them lie within 1 s of a maximum
    of the reference respiration ``r`` that no annotation marks (its relative prominence) or
    within 1 s of a breath of the second annotator ``ref2`` (when given)."""
    res, ref = item["result"], np.asarray(item["breath_times"])
    b = detect_breaths(res, polarity="peaks" if decided.sign > 0 else "troughs")
    wh = b.withheld
    outside = ~((ref[:, None] >= wh[None, :, 0]) & (ref[:, None] <= wh[None, :, 1])).any(1)
    ref, det = ref[outside], b.time[~b.low_quality]
    ri, di = match_breaths(det, ref)
    free_ref = np.setdiff1d(np.arange(ref.size), ri)
    out = {"annotated": ref.size, "detected": det.size, "matched": ri.size, "early": 0,
           "late": 0, "extra": 0, "extra at an unannotated maximum": 0,
           "extra at an ann2 breath": 0, "miss timing": 0, "miss none": 0}
    extra = []
    for j in np.setdiff1d(np.arange(det.size), di):
        d = ref[free_ref] - det[j]
        if d.size and np.abs(d).min() < 1.5:
            out["early" if d[np.argmin(np.abs(d))] > 0 else "late"] += 1
        else:
            extra.append(j)
    for j in free_ref:
        near = np.abs(det - ref[j]).min() if det.size else np.inf
        out["miss timing" if near < 1.5 else "miss none"] += 1
    x, t0 = np.asarray(res.waveform), float(res.time[0])
    period = local_period(x, res.fs, t0)
    pos, depth = extrema.breath_candidates(x, res.fs, decided.sign, period)
    extra = np.array(extra, dtype=int)
    out["extra"] = extra.size
    out["extra_depth"] = np.interp(det[extra], t0 + pos / res.fs, depth)
    per = period[np.clip(np.round((det[extra] - t0) * res.fs).astype(int), 0, x.size - 1)]
    out["extra_spacing"] = np.concatenate([
        ((det[extra] - det[np.maximum(extra - 1, 0)]) / per)[extra > 0],
        ((det[np.minimum(extra + 1, det.size - 1)] - det[extra]) / per)[extra < det.size - 1]])
    un_t, un_prom = _unannotated_maxima(np.asarray(item["breath_times"]), r, res.time)
    gap = np.abs(un_t[None, :] - det[extra][:, None]) if un_t.size else np.full((extra.size, 1), 9.)
    hit = gap.min(1) < 1.0
    out["extra at an unannotated maximum"] = int(hit.sum())
    out["extra_ref_prominence"] = un_prom[gap.argmin(1)[hit]] if un_t.size else np.empty(0)
    if ref2 is not None and ref2.size:
        out["extra at an ann2 breath"] = int((np.abs(ref2[None, :] - det[extra][:, None])
                                              .min(1) < 1.0).sum())
    return out


def _lag_rows(paths, items: dict, better: dict, refs: dict, lags: dict) -> list[str]:
    lines = []
    for path in paths:
        name = os.path.splitext(os.path.basename(path))[0]
        item = items[name]
        b = detect_breaths(item["result"], polarity="peaks" if better[name] > 0 else "troughs")
        ri, di = match_breaths(b.time, item["breath_times"])
        off = np.median(b.time[di] - np.asarray(item["breath_times"])[ri]) if ri.size else np.nan
        lines.append(f"| {name} | {lags[name]:+.2f} | {off:+.2f} |")
    return lines


def completed(ref: np.ndarray, ref2) -> np.ndarray:
    """``ref`` with its skipped breaths filled from ``ref2``: in every interval of ``ref`` longer
    than 1.5 times the median of the ten intervals around it, the breaths of ``ref2`` more than
    1 s from both its ends."""
    if ref2 is None or ref2.size == 0 or ref.size < 3:
        return ref
    iv = np.diff(ref)
    local = np.array([np.median(iv[max(0, i - 5):i + 6]) for i in range(iv.size)])
    add = [ref2[(ref2 > ref[i] + 1.0) & (ref2 < ref[i + 1] - 1.0)]
           for i in np.flatnonzero(iv > 1.5 * local)]
    return np.sort(np.concatenate([ref] + add))


def ceilings(items: dict, decided: dict, better: dict, lags: dict, second: dict) -> list[str]:
    """In-sample kept scores (defaults) with what the reference tells, one at a time: the
    better polarity on the confidently decided records, each record's breaths moved by its
    EDR's lag, the first annotator's omissions filled from the second. Diagnostics, not
    methods."""
    rows = {"today's": [], "the better polarity (confident records)": [],
            "breaths moved by the record's EDR lag": [],
            "against ann1, its skipped breaths filled from ann2": [], "all three": []}
    for n in sorted(items):
        item, d = items[n], decided[n]
        ref = np.asarray(item["breath_times"])
        full = completed(ref, second[n])
        for label, sign, shift, r in (("today's", d.sign, 0.0, ref),
                                      (list(rows)[1], better[n], 0.0, ref),
                                      (list(rows)[2], d.sign, lags[n], ref),
                                      (list(rows)[3], d.sign, 0.0, full),
                                      ("all three", better[n], lags[n], full)):
            b = detect_breaths(item["result"], polarity="peaks" if sign > 0 else "troughs")
            s = score_kept(replace(b, time=b.time - shift), r)
            rows[label].append((database(n), s if d.confident else
                                BreathScores(0, 0, 0, np.empty(0), s.n_annotated)))
    lines = ["## What the reference would tell (in sample, defaults; diagnostics)", "",
             _HEAD[0].format("kept breaths"), _HEAD[1]]
    for label, sc in rows.items():
        lines.append(_row(label, {db: BreathScores.pooled([s for d, s in sc if d == db])
                                  for db in ("BIDMC", "MARSH")}))
    return lines


def diagnostics(paths, items: dict, decided: dict, better: dict) -> list[str]:
    """The lag table and the error kinds (kept breaths, rightly decided records)."""
    second = {os.path.splitext(os.path.basename(p))[0]: second_annotator(p) for p in paths}
    refs = {os.path.splitext(os.path.basename(p))[0]: reference_on_grid(
        p, items[os.path.splitext(os.path.basename(p))[0]]) for p in paths}
    lags = {n: reference_lag(items[n], refs[n], better[n]) for n in refs}
    lines = ceilings(items, decided, better, lags, second) + [""]
    lines += ["## The EDR against the reference respiration", "",
              "| record | lag of the EDR (s; −: leads) | median offset of matched breaths (s) |",
              "|---|---|---|"] + _lag_rows(paths, items, better, refs, lags)
    lines += ["", "The same lag (s) of other EDRs where the EDR leads by 0.5 s or more:", ""]
    lines += feature_lags(paths, lags)
    kinds = ("annotated", "detected", "matched", "early", "late", "extra",
             "extra at an unannotated maximum", "extra at an ann2 breath", "miss timing",
             "miss none")
    lines += ["", "## Errors of the kept breaths (confidently and rightly decided records)", "",
              "| database | " + " | ".join(kinds) + " | extra: depth | extra: spacing | extra: "
              "the unannotated maximum's prominence |", "|---" * (len(kinds) + 4) + "|"]
    for db in ("BIDMC", "MARSH"):
        sel = [error_kinds(items[n], decided[n], refs[n], second[n]) for n in sorted(items)
               if database(n) == db and decided[n].confident and decided[n].sign == better[n]]
        q = [np.percentile(np.concatenate([s[k] for s in sel]), [25, 50, 75]).round(2).tolist()
             for k in ("extra_depth", "extra_spacing", "extra_ref_prominence")]
        lines.append(f"| {db} | " + " | ".join(str(sum(s[k] for s in sel)) for k in kinds)
                     + " | " + " | ".join(str(v) for v in q) + " |")
    return lines + ["", "(quartiles; depth: prominence over the typical one; spacing: to each "
                    "neighbour, in local periods; the reference maximum's prominence over the "
                    "median of the annotated maxima's)"]


def arrhythmia_direction(items: dict, decided: dict, better: dict) -> list[str]:
    """On the BIDMC records whose arrhythmia is coherent: is the heart fastest at the end of
    inspiration (the better polarity's extrema: normal) or of expiration (reversed, as under
    positive-pressure ventilation), against the regularity of the breaths (the coefficient of
    variation of the intervals, a ventilator's mark)."""
    cv = {"normal": [], "reversed": []}
    for n in sorted(items):
        rsa = decided[n].rsa
        if database(n) != "BIDMC" or rsa.coherence <= coherence_threshold(rsa.n_segments):
            continue
        iv = detect_breaths(items[n]["result"]).interval
        iv = iv[np.isfinite(iv)]
        kind = "normal" if np.sign(rsa.swing_bpm) == better[n] else "reversed"
        cv[kind].append(f"{n} {np.std(iv) / np.mean(iv):.2f}")
    return ["## The arrhythmia's direction in the ICU against the breaths' regularity", ""] + [
        f"* {k} ({len(v)}): " + ", ".join(v) for k, v in cv.items()]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=DEFAULT_CACHE, help="the cache of measure_breaths.py")
    ap.add_argument("--out", default=None, help="Markdown output file")
    args = ap.parse_args(argv)
    paths = record_paths(os.environ["EDR_DATA_DIR"])
    items, decided, better, scores, scores2, filled, n_filled = {}, {}, {}, {}, {}, {}, {}
    for p in paths:
        item = real_record(p, args.cache)
        name = item["name"]
        items[name], decided[name] = item, decide_polarity(item["result"])
        f1 = {s: score_breaths(detect_breaths(item["result"], polarity=pol).time,
                               item["breath_times"]).f1
              for s, pol in ((1, "peaks"), (-1, "troughs"))}
        better[name] = max(f1, key=f1.get)
        scores[name] = record_scores(item, decided[name])
        ref2 = second_annotator(p)
        if ref2 is not None:
            scores2[name] = record_scores(item, decided[name], ref2, families={})
            full = completed(np.asarray(item["breath_times"]), ref2)
            filled[name] = record_scores(item, decided[name], full, families={})
            n_filled[name] = full.size - len(item["breath_times"])
    lines = ["# Breath detection, fourth round (exploratory)", "",
             "`EDR_DATA_DIR=/path/to/data python scripts/explore_breaths_round4.py`", ""]
    lines += variant_tables(scores) + [""] + annotator_table(scores, {
        "ann2": scores2, "ann1, its skipped breaths filled from ann2": filled})
    lines += ["", f"ann1's skipped breaths filled from ann2 (`completed`): {sum(n_filled.values())}"
              f" on {sum(v > 0 for v in n_filled.values())} of {len(n_filled)} records, against "
              f"{sum(len(items[n]['breath_times']) for n in n_filled)} ann1 breaths.", ""]
    lines += diagnostics(paths, items, decided, better) + [""]
    lines += arrhythmia_direction(items, decided, better)
    return write_markdown(args.out, lines)


if __name__ == "__main__":
    raise SystemExit(main())
