"""How much the EDR depends on the ECG's sampling rate, on the 30 shared BIDMC records.

Every record (125 Hz, every ECG lead) is resampled to 250, 500 and 1000 Hz
(:func:`scipy.signal.resample_poly`); the EDR at each rate is compared with the native-rate EDR by
|Pearson r| on the common 4 Hz grid. Printed per record, with the record's status at the native
rate, then the median, the minimum and the count below 0.9.

Usage: ``EDR_DATA_DIR=... python scripts/measure_sampling_rate.py [--method kpca_fusion]
[--lead II]``
"""

from __future__ import annotations

import argparse
import glob
import os
from dataclasses import replace

import numpy as np
from scipy.signal import resample_poly

from edr.io import read_record
from edr.pipeline import extract_edr

RATES = (250, 500, 1000)


def abs_r(a, b) -> float:
    """|Pearson r| of two EDR results on their common grid times (masked samples left out)."""
    t = np.intersect1d(np.round(a.time, 6), np.round(b.time, 6))
    ya, yb = np.interp(t, a.time, a.waveform), np.interp(t, b.time, b.waveform)
    ok = np.isfinite(ya) & np.isfinite(yb)
    return abs(float(np.corrcoef(ya[ok], yb[ok])[0, 1]))


def resampled(rec, fs):
    """The recording with every lead resampled to ``fs``."""
    leads = {k: resample_poly(v, int(fs), int(rec.fs)) for k, v in rec.leads.items()}
    return replace(rec, fs=float(fs), ecg=leads[rec.ecg_channel], leads=leads)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--method", default="kpca_fusion")
    ap.add_argument("--lead", default=None, help="one ECG lead (default: every lead)")
    args = ap.parse_args(argv)
    folder = os.path.join(os.environ["EDR_DATA_DIR"], "bidmc")
    vals = []
    for path in sorted(glob.glob(os.path.join(folder, "bidmc??.hea"))):
        rec = read_record(path[:-4], args.lead)
        if args.lead is not None:
            rec = replace(rec, leads={rec.ecg_channel: rec.ecg})
        native = extract_edr(rec, method=args.method)
        row = [abs_r(native, extract_edr(resampled(rec, fs), method=args.method)) for fs in RATES]
        vals += row
        print(rec.name, " ".join(f"{v:.3f}" for v in row), "|", native.status.split(":")[0],
              flush=True)
    print(f"median {np.median(vals):.3f}, min {min(vals):.3f}, below 0.9: "
          f"{sum(v < 0.9 for v in vals)} of {len(vals)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
