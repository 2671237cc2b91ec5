"""Under anaesthesia, simulated: one lead at 300 Hz in arbitrary units, ventilated or not.

``edr.simulate.ANAESTHESIA_SCENARIOS`` (a ventilated adult at 14 /min and a ventilated child at
25 /min with no respiratory sinus arrhythmia; a child breathing at 30 /min, heart 125 /min), lead
II at 300 Hz, 300 s, the ECG scaled by 1000 (arbitrary units), seeds 0-4: the default EDR's MSC,
|r|, rates and the heart rate's weight in the fusion, beside the R amplitude's MSC and |r|.

Usage: ``python scripts/measure_anaesthesia.py --out scripts/output/measure_anaesthesia.md``
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from _shared import write_markdown

from edr.pipeline import extract_edr
from edr.scoring import score, window_rates
from edr.simulate import ANAESTHESIA_SCENARIOS, simulate_scenario


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="scripts/output/measure_anaesthesia.md")
    args = ap.parse_args(argv)
    lines = ["# Under anaesthesia (simulated)", "",
             f"Command: `python scripts/measure_anaesthesia.py --out {args.out}`", "",
             "| scenario | seed | MSC / \\|r\\| | R amplitude MSC / \\|r\\| | rates given | mean "
             "rate error (bpm) | heart rate's weight |", "|---|---|---|---|---|---|---|"]
    for name in ANAESTHESIA_SCENARIOS:
        for seed in range(5):
            rec = simulate_scenario(name, duration_s=300.0, fs=300.0, leads=("II",),
                                    random_state=seed)
            rec.ecg[:] *= 1000.0
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res, ramp = extract_edr(rec), extract_edr(rec, method="r_amplitude")
            d, r = score(res, rec), score(ramp, rec)
            _, edr_bpm, ref_bpm = window_rates(res, rec)
            given = np.isfinite(edr_bpm)
            weight = max(w.quality["weights"].get("rsa", 0.0) for w in res.windows)
            lines.append(f"| {name} | {seed} | {d.msc:.2f} / {d.corr:.2f} | {r.msc:.2f} / "
                         f"{r.corr:.2f} | {given.mean():.0%} | "
                         f"{np.mean(np.abs(edr_bpm[given] - ref_bpm[given])):.2f} | {weight:.3f} |")
    return write_markdown(args.out, lines)


if __name__ == "__main__":
    raise SystemExit(main())
