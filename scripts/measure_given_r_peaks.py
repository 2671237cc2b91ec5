"""R peaks of one's own on the shared records: the detector's own peaks written to a file and fed
back (``read_record(..., r_peaks=FILE)``), then moved by +20 ms and jittered by ±20 ms.

The shared records (30 BIDMC, 9 MARSH) hold no beat annotations (no ``.atr`` / ``.qrs``), so the
given peaks are :func:`edr.beats.detect`'s on the record's selected lead, as times in s in a
``time_s`` CSV. Each record is extracted by the default (every lead) with its peaks detected, with
the file's peaks, with them 20 ms late, and with a seeded uniform ±20 ms jitter; per record the
MSC against its reference and the largest difference from the detected run's EDR are written.

``--one-lead`` extracts the selected lead alone (``lead=<its name>``), so that the peaks are
given to the lead they were detected on; by default every lead takes them, each moving them onto
its own R waves (a lead on whose R waves they do not sit is left out, as a lead whose detection
fails).

``--dump DIR`` writes only the detected run's EDR per record (``DIR/<record>.npy``) and compares
it with ``--against DIR`` when given (another checkout's dump): the records whose EDR differs.

Usage: ``EDR_DATA_DIR=/path/to/data python scripts/measure_given_r_peaks.py
--out scripts/output/given_r_peaks.csv [--one-lead]`` (``--dump DIR [--against DIR]`` for the
identity check)
"""

from __future__ import annotations

import argparse
import glob
import os
import tempfile
import warnings
from pathlib import Path

import numpy as np

from edr.beats import detect
from edr.io import read_record
from edr.pipeline import extract_edr
from edr.scoring import score


def _records() -> list[str]:
    root = os.environ.get("EDR_DATA_DIR", "data")
    return sorted(glob.glob(os.path.join(root, "bidmc", "bidmc??.hea"))
                  + glob.glob(os.path.join(root, "marsh", "m*.hea")))


def _differ(a: np.ndarray, b: np.ndarray) -> float:
    """Largest |a - b| where both are finite; inf when their NaN patterns differ."""
    if not np.array_equal(np.isnan(a), np.isnan(b)):
        return float("inf")
    ok = np.isfinite(a)
    return float(np.max(np.abs(a[ok] - b[ok]))) if ok.any() else 0.0


def _given(path: str, rec, det, folder: Path, lead=None) -> list:
    """The row of one record: MSC detected / given / +20 ms / ±20 ms, and the differences."""
    own = detect(rec.ecg, rec.fs).times
    rng = np.random.default_rng(0)
    moved = {"given": own, "late20": np.minimum(own + 0.02, rec.duration_s - 1e-3),
             "jitter20": np.sort(own + rng.uniform(-0.02, 0.02, own.size))}
    row = [rec.name, own.size, score(det, rec).msc]
    for key, times in moved.items():
        f = folder / f"{rec.name}_{key}.csv"
        f.write_text("time_s\n" + "\n".join(f"{t:.6f}" for t in times) + "\n")
        res = extract_edr(read_record(path, r_peaks=f), lead=lead)
        row += [score(res, rec).msc, _differ(res.waveform, det.waveform)]
    return row


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", help="CSV of the given-peaks runs")
    p.add_argument("--dump", help="folder for the detected runs' EDRs (identity check)")
    p.add_argument("--against", help="a --dump folder of another checkout to compare with")
    p.add_argument("--one-lead", action="store_true", help="the selected lead alone")
    args = p.parse_args(argv)
    warnings.simplefilter("ignore")
    rows, changed = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for path in _records():
            rec = read_record(path)
            lead = rec.ecg_channel if args.one_lead else None
            det = extract_edr(rec, lead=lead)
            if args.dump:
                Path(args.dump).mkdir(parents=True, exist_ok=True)
                np.save(Path(args.dump) / f"{rec.name}.npy", det.waveform)
                if args.against:
                    other = np.load(Path(args.against) / f"{rec.name}.npy")
                    if _differ(other, det.waveform) != 0.0:
                        changed.append(rec.name)
                continue
            rows.append(_given(path, rec, det, Path(tmp), lead))
            print(*(f"{v:.4g}" if isinstance(v, float) else v for v in rows[-1]), flush=True)
    if args.against:
        print(f"{len(changed)} of {len(_records())} records differ: {', '.join(changed) or '-'}")
    if args.out and rows:
        head = ("record,n_peaks,msc_detected,msc_given,maxdiff_given,msc_late20,maxdiff_late20,"
                "msc_jitter20,maxdiff_jitter20")
        Path(args.out).write_text(head + "\n" + "\n".join(
            ",".join(f"{v:.6g}" if isinstance(v, float) else str(v) for v in r) for r in rows)
            + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
