"""Breath by breath at both points of the breath: ends of inspiration against the EDR's breaths,
starts of inspiration against the EDR's onsets, on BIDMC and MARSH, for the default EDR and the
R amplitude.

Every BIDMC and MARSH record under ``EDR_DATA_DIR`` is extracted once with the default options
and with ``method="r_amplitude"`` (cached outside the repository, ``--cache``), and its breaths
detected with the defaults (``edr.breaths.detect_breaths``: the polarity read from the ECG).

References:

* **ends of inspiration**: the records' breath annotations as ``edr.io.read_record`` chooses them
  (BIDMC annotator ``ann1``, MARSH's one annotator), which sit on the maxima of the impedance
  respiration;
* **starts of inspiration**: neither database annotates them, so they are derived from the
  reference waveform: the impedance respiration on the EDR's grid, band-passed as the protocol
  scores it (``edr.scoring.band_passed_reference``), and before every annotated end its lowest
  point since the previous annotated end, at most one median annotated interval back: the same
  computation as the EDR's onsets (``edr.breath_extrema.breath_onsets``). The reference's sign
  (which extrema the annotations sit on) is read from the reference itself (the median of the
  band-passed reference at the annotations above or below its median).

Scores (``edr.evaluate.breaths.score_kept``, the evaluation's): the breaths kept (not
``low_quality``, of a record whose polarity is decided) against the annotations outside the
withheld stretches, one to one within ±1 s or a quarter of the local annotated interval;
sensitivity, positive predictivity, F1, share kept, the breath-interval error (median of the
pooled pairs) and the timing error (detected - annotated, s, of the matched pairs: median and
quartiles), pooled per database. Also the scores as they were before the events were told apart
(the EDR's ends against the derived starts). The method sees the ECG alone; the reference only
scores.

Exploratory (not adopted): the start defined higher on the rise, as the first crossing of
``trough + f (end - trough)`` between a start and its end (linear between samples), on the EDR
and on the reference alike, for :data:`RISE_FRACTIONS`: how much of the disagreement at starts is
the flat trough's.

Usage: ``EDR_DATA_DIR=/path/to/data python scripts/measure_breath_events.py --out
scripts/output/measure_breath_events.md``
"""

from __future__ import annotations

import argparse
import glob
import os
import pickle
import tempfile
from types import SimpleNamespace

import numpy as np
from _shared import database, write_markdown

from edr.breath_extrema import breath_onsets
from edr.breaths import detect_breaths
from edr.evaluate.breaths import (
    BreathScores,
    detected_at,
    in_stretches,
    match_breaths,
    score_kept,
)
from edr.io import read_record
from edr.io.reference import END_OF_INSPIRATION, START_OF_INSPIRATION
from edr.pipeline import extract_edr
from edr.scoring import band_passed_reference

DEFAULT_CACHE = os.path.join(tempfile.gettempdir(), "edr-breath-events-cache")
"""Where the extracted EDRs are kept between runs (outside the repository)."""

METHODS = ("result", "r_amplitude")
"""The cached results: the default EDR and the R amplitude."""

RISE_FRACTIONS = (0.0, 0.1, 0.2, 0.3, 0.5)
"""Exploratory: the start as the first crossing of this fraction of the rise (0: the trough)."""


def record_paths(root: str) -> list[str]:
    """The 30 BIDMC and 9 MARSH records under ``root``."""
    return sorted(glob.glob(os.path.join(root, "bidmc", "bidmc??.hea"))) + \
        sorted(glob.glob(os.path.join(root, "marsh", "m????.hea")))


def real_record(path: str, cache_dir: str) -> dict:
    """The default EDR and the R amplitude of the record at ``path``, its annotated breaths and
    its reference respiration (cached in ``cache_dir``)."""
    name = os.path.splitext(os.path.basename(path))[0]
    file = os.path.join(cache_dir, f"{name}.pkl")
    if os.path.isfile(file):
        with open(file, "rb") as fh:
            return pickle.load(fh)
    rec = read_record(path)
    item = {"name": name, "result": extract_edr(rec),
            "r_amplitude": extract_edr(rec, "r_amplitude"),
            "breath_times": rec.breath_times, "breath_source": rec.breath_source,
            "resp": rec.resp, "resp_fs": rec.resp_fs}
    os.makedirs(cache_dir, exist_ok=True)
    with open(file + ".tmp", "wb") as fh:
        pickle.dump(item, fh)
    os.replace(file + ".tmp", file)
    return item


def _reference_points(item: dict, ref: np.ndarray):
    """``(annotated ends, sign, starts)`` on the grid of the band-passed reference ``ref``
    (positions in samples; starts NaN where none: module docstring)."""
    res = item["result"]
    t0, fs = float(res.time[0]), float(res.fs)
    ends = np.asarray(item["breath_times"], dtype=float)
    pos = (ends - t0) * fs
    pos = pos[(pos >= 1) & (pos <= ref.size - 2)]
    sign = 1 if np.nanmedian(ref[np.round(pos).astype(int)]) >= np.nanmedian(ref) else -1
    return pos, sign, breath_onsets(ref, sign, pos, float(np.median(np.diff(ends))) * fs)


def reference_starts(item: dict) -> tuple[np.ndarray, int]:
    """``(starts of inspiration (s), the reference's sign)`` derived from the band-passed
    reference before every annotated end (module docstring); NaN-free, increasing."""
    res = item["result"]
    ref = band_passed_reference(res, SimpleNamespace(resp=item["resp"], resp_fs=item["resp_fs"]))
    _, sign, starts = _reference_points(item, ref)
    starts = float(res.time[0]) + starts / float(res.fs)
    return starts[np.isfinite(starts)], sign


def rise_crossings(x, sign: int, onsets, ends, f: float) -> np.ndarray:
    """Positions (fractional samples) where ``sign * x`` first reaches ``trough + f (end -
    trough)`` between each onset and its end (linear between samples); the onset for f = 0,
    NaN without an onset."""
    if f == 0:
        return np.asarray(onsets, dtype=float)
    y = sign * np.asarray(x, dtype=float)
    out = np.full(np.size(ends), np.nan)
    for i, (o, e) in enumerate(zip(onsets, ends, strict=True)):
        if not np.isfinite(o):
            continue
        a, b = int(round(o)), int(round(e))
        level = y[a] + f * (y[b] - y[a])
        k = int(np.flatnonzero(y[a:b + 1] >= level)[0])
        out[i] = a if k == 0 else a + k - 1 + (level - y[a + k - 1]) / (y[a + k] - y[a + k - 1])
    return out


def rise_scores(item: dict, f: float):
    """``(scores, matched offsets)`` of the default EDR's starts at the rise fraction ``f``
    against the reference's at the same fraction."""
    from dataclasses import replace

    res = item["result"]
    t0, fs = float(res.time[0]), float(res.fs)
    ref = band_passed_reference(res, SimpleNamespace(resp=item["resp"], resp_fs=item["resp_fs"]))
    ends, sign, onsets = _reference_points(item, ref)
    starts = rise_crossings(ref, sign, onsets, ends, f)
    starts = t0 + starts[np.isfinite(starts)] / fs
    b = detect_breaths(res)
    on = rise_crossings(res.waveform, b.sign, (b.onset - t0) * fs, (b.time - t0) * fs, f)
    b = replace(b, onset=t0 + on / fs)
    det, kept_ref = _kept(b, starts, START_OF_INSPIRATION)
    ri, di = match_breaths(det, kept_ref)
    return score_kept(b, starts, event=START_OF_INSPIRATION), det[di] - kept_ref[ri]


def _kept(breaths, reference, event: str):
    """``(detected, annotated)`` times that :func:`score_kept` compares (empty when the
    polarity is uncertain)."""
    ref = np.asarray(reference, dtype=float)
    if np.any(breaths.uncertain_polarity):
        return np.empty(0), np.empty(0)
    det = detected_at(breaths, event)
    det = det[~np.asarray(breaths.low_quality, dtype=bool) & np.isfinite(det)]
    return det, ref[~in_stretches(ref, breaths.withheld)]


def record_scores(item: dict) -> dict:
    """Per method: the scores and matched offsets (s) at ends, at starts, and the EDR's ends
    against the starts (as scored before the points were told apart)."""
    ends = np.asarray(item["breath_times"], dtype=float)
    starts, sign = reference_starts(item)
    out = {"ref_sign": sign, "n_starts": starts.size, "n_ends": ends.size}
    for m in METHODS:
        b = detect_breaths(item[m])
        cases = {"ends": (ends, END_OF_INSPIRATION), "starts": (starts, START_OF_INSPIRATION),
                 "ends vs starts": (starts, END_OF_INSPIRATION)}
        for case, (ref, event) in cases.items():
            det, kept_ref = _kept(b, ref, event)
            ri, di = match_breaths(det, kept_ref)
            out[(m, case)] = (score_kept(b, ref, event=event), det[di] - kept_ref[ri])
        out[(m, "uncertain")] = bool(np.any(b.uncertain_polarity))
    return out


def _iqr(x) -> str:
    x = np.asarray(x, dtype=float)
    if not x.size:
        return "–"
    q1, q2, q3 = np.percentile(x, [25, 50, 75])
    return f"{q2:+.2f} ({q1:+.2f}, {q3:+.2f})"


def pooled_rows(scores: dict, method: str, cases) -> list[str]:
    """Table rows: per database and case, the pooled scores of ``method``."""
    rows = []
    for db in ("BIDMC", "MARSH"):
        names = [n for n in scores if database(n) == db]
        for case in cases:
            s = BreathScores.pooled(scores[n][(method, case)][0] for n in names)
            dt = np.concatenate([scores[n][(method, case)][1] for n in names])
            rows.append(f"| {db} | {case} | {s.n_reference} | {s.share_kept:.3f} | "
                        f"{s.sensitivity:.3f} | {s.positive_predictivity:.3f} | {s.f1:.3f} | "
                        f"{_iqr(dt)} | {np.median(np.abs(dt)) if dt.size else np.nan:.2f} | "
                        f"{s.interval_error_s:.2f} |")
    return rows


_HEAD = ["| database | annotations vs EDR | annotated scored | share kept | sensitivity | "
         "pos. predictivity | F1 | timing error, s: median (IQR) | median abs. timing error, s "
         "| median interval error, s |", "|---|---|---|---|---|---|---|---|---|---|"]


def per_record_rows(scores: dict) -> list[str]:
    """One row per record: the default EDR's F1 and median timing error at ends and starts."""
    rows = ["| record | reference sign | polarity | F1 ends | F1 starts | timing ends (s) | "
            "timing starts (s) |", "|---|---|---|---|---|---|---|"]
    for n, v in scores.items():
        e, s = v[("result", "ends")], v[("result", "starts")]
        med = [f"{np.median(x[1]):+.2f}" if x[1].size else "–" for x in (e, s)]
        rows.append(f"| {n} | {v['ref_sign']:+d} | "
                    f"{'uncertain' if v[('result', 'uncertain')] else 'decided'} | "
                    f"{e[0].f1:.3f} | {s[0].f1:.3f} | {med[0]} | {med[1]} |")
    return rows


def report(paths, cache_dir: str) -> list[str]:
    """The Markdown lines of the measurement."""
    items = {}
    for p in paths:
        item = real_record(p, cache_dir)
        items[item["name"]] = item
    scores = {n: record_scores(item) for n, item in items.items()}
    cases = ("ends", "starts", "ends vs starts")
    lines = ["# Breaths at both points of the breath: BIDMC and MARSH", "",
             "`EDR_DATA_DIR=/path/to/data python scripts/measure_breath_events.py`", "",
             "Ends: the annotations (BIDMC ann1, MARSH) against the EDR's breaths; starts: the "
             "reference waveform's starts of inspiration before the annotated ends against the "
             "EDR's onsets; ends vs starts: the EDR's breaths against those starts (how an "
             "`insp`-only reference was scored before). Kept breaths, pooled per database; "
             "timing error = detected - annotated (s) of the matched pairs.", "",
             "## Default EDR (kpca_fusion)", ""] + _HEAD + pooled_rows(scores, "result", cases)
    lines += ["", "## R amplitude (baseline)", ""] + _HEAD + pooled_rows(scores, "r_amplitude",
                                                                          cases)
    lines += ["", "## Per record (default EDR)", ""] + per_record_rows(scores)
    lines += ["", "## Exploratory: the start higher on the rise (EDR and reference alike)", "",
              "The first crossing of trough + f (end - trough) on the rise of each breath, on "
              "the default EDR and on the reference alike (f = 0: the starts above).", ""]
    return lines + rise_rows(items)


def rise_rows(items: dict) -> list[str]:
    """The exploratory table: per rise fraction and database, the pooled scores at starts."""
    rows = ["| f | database | F1 | sensitivity | pos. predictivity | timing error, s: median "
            "(IQR) | median interval error, s |", "|---|---|---|---|---|---|---|"]
    for f in RISE_FRACTIONS:
        got = {n: rise_scores(item, f) for n, item in items.items()}
        for db in ("BIDMC", "MARSH"):
            names = [n for n in got if database(n) == db]
            s = BreathScores.pooled(got[n][0] for n in names)
            dt = np.concatenate([got[n][1] for n in names])
            rows.append(f"| {f:g} | {db} | {s.f1:.3f} | {s.sensitivity:.3f} | "
                        f"{s.positive_predictivity:.3f} | {_iqr(dt)} | "
                        f"{s.interval_error_s:.2f} |")
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=DEFAULT_CACHE,
                    help="folder of the cached extractions (outside the repository)")
    ap.add_argument("--out", help="Markdown file to write")
    args = ap.parse_args(argv)
    return write_markdown(args.out, report(record_paths(os.environ["EDR_DATA_DIR"]), args.cache))


if __name__ == "__main__":
    raise SystemExit(main())
