"""Impulse glitches and lost samples: what they cost an extraction, offline and streamed.

A simulated 2-minute lead (250 Hz, ``edr.simulate``) gets two samples set to ``+g`` and ``-g``
(a transmission or converter error) for ``g`` from 10**2 to 10**308, and the default is run on
it offline (``extract_edr``) and streamed (``StreamingEDR``). Reported per ``g``: the beats used
and dropped, the correlation of the waveform with that of the same lead with the two samples
missing (NaN) instead, the rate windows given, or the error. With ``EDR_DATA_DIR`` set, also how
far the shared records' leads reach: the largest distance of a sample from its lead's median
over the 99th percentile of those distances (the ratio ``edr.beats.mask.GLITCH_FACTOR`` bounds).
Then a lossy link: a share of the samples of a simulated 5-minute lead (250 Hz) lost one by one at
random (NaN), offline and streamed: beats used and dropped, rate windows given, and the rates'
largest difference from the lead's own.

Usage: ``EDR_DATA_DIR=/path/to/data python scripts/measure_glitches.py --out
scripts/output/measure_glitches.md``
"""

from __future__ import annotations

import argparse
import glob
import os

import numpy as np
from _shared import write_markdown

from edr import extract_edr
from edr.io import read_record
from edr.simulate import simulate_recording
from edr.stream import StreamingEDR

SIZES = (1e2, 1e4, 1e6, 1e12, 1e30, 1e308)
LOSSES = (0.001, 0.005, 0.02)
SAMPLES = (5000, 9000)


def offline(x: np.ndarray, reference) -> str:
    try:
        r = extract_edr(x, fs=250.0)
    except Exception as e:  # noqa: BLE001 - the outcome is what is measured
        return f"{type(e).__name__}: {str(e).split('(')[0].strip()} | | |"
    c = np.corrcoef(np.nan_to_num(r.waveform), np.nan_to_num(reference.waveform))[0, 1]
    return f"{r.n_beats} / {r.n_beats_dropped} | {c:.3f} | {int(np.isfinite(r.rate_bpm).sum())} |"


def stream_rates(x: np.ndarray) -> np.ndarray:
    s = StreamingEDR(250.0, leads=("II",))
    ups = []
    for i in range(0, x.size, 250):
        ups += s.push(x[i:i + 250, None])
    ups += s.flush()
    return np.concatenate([u.rate_bpm for u in ups])


def streamed(x: np.ndarray) -> str:
    try:
        rates = stream_rates(x)
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {str(e)[:60]}"
    return f"{int(np.isfinite(rates).sum())} of {rates.size} rate windows"


def given(rates: np.ndarray) -> str:
    return f"{int(np.isfinite(rates).sum())} of {rates.size}"


def largest_difference(rates: np.ndarray, own: np.ndarray) -> float:
    both = np.isfinite(rates) & np.isfinite(own)
    return float(np.max(np.abs(rates[both] - own[both]))) if both.any() else float("nan")


def loss_table() -> list[str]:
    ecg = simulate_recording(duration_s=300.0, fs=250.0, random_state=1).ecg
    own, own_stream = extract_edr(ecg, fs=250.0), stream_rates(ecg)
    lines = ["| samples lost | beats used / dropped | rate windows given | largest rate difference "
             "(bpm) | streamed: rate windows given | streamed: largest rate difference (bpm) |",
             "|---|---|---|---|---|---|"]
    for share in (0.0, *LOSSES):
        x = ecg.copy()
        x[np.random.default_rng(0).random(x.size) < share] = np.nan
        try:
            r = extract_edr(x, fs=250.0)
            off = (f"{r.n_beats} / {r.n_beats_dropped} | {given(r.rate_bpm)} | "
                   f"{largest_difference(r.rate_bpm, own.rate_bpm):.2f}")
        except Exception as e:  # noqa: BLE001
            off = f"{type(e).__name__}: {str(e).split('(')[0].strip()} | |"
        rs = stream_rates(x)
        lines.append(f"| {100 * share:g} % | {off} | {given(rs)} | "
                     f"{largest_difference(rs, own_stream):.2f} |")
    return lines + [""]


def glitch_table() -> list[str]:
    ecg = simulate_recording(duration_s=120.0, fs=250.0, random_state=1).ecg
    missing = ecg.copy()
    missing[list(SAMPLES)] = np.nan
    reference = extract_edr(missing, fs=250.0)
    lines = ["| glitch | beats used / dropped | correlation with the lead missing those samples "
             "| rate windows given | streamed |", "|---|---|---|---|---|",
             f"| none (NaN) | {offline(missing, reference)} {streamed(missing)} |"]
    for g in SIZES:
        x = ecg.copy()
        x[list(SAMPLES)] = g, -g
        lines.append(f"| ±{g:g} | {offline(x, reference)} {streamed(x)} |")
    return lines + [""]


def reach_table(root: str) -> list[str]:
    ratios = []
    for path in sorted(glob.glob(os.path.join(root, "*", "*.hea"))):
        try:
            rec = read_record(path)
        except Exception:  # noqa: BLE001 - numerics records and others without ECG
            continue
        for lead, x in rec.leads.items():
            x = np.asarray(x, dtype=float)
            dev = np.abs(x - np.nanmedian(x))
            ratios.append((float(np.nanmax(dev) / np.nanpercentile(dev, 99.0)),
                           f"{os.path.basename(path)[:-4]} {lead}"))
    ratios.sort()
    return [f"Shared leads ({len(ratios)}): the largest sample's distance from the median over "
            f"the 99th percentile distance is {np.median([r for r, _ in ratios]):.1f} in the "
            f"median lead and at most {ratios[-1][0]:.1f} ({ratios[-1][1]}).", ""]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="scripts/output/measure_glitches.md")
    args = ap.parse_args(argv)
    lines = ["# Impulse glitches", "",
             f"Command: `python scripts/measure_glitches.py --out {args.out}`", ""]
    lines += glitch_table() + loss_table()
    if os.environ.get("EDR_DATA_DIR"):
        lines += reach_table(os.environ["EDR_DATA_DIR"])
    return write_markdown(args.out, lines)


if __name__ == "__main__":
    raise SystemExit(main())
