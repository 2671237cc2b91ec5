"""Under anaesthesia, simulated: one lead at 300 Hz in arbitrary units, ventilated or not.

``edr.simulate.ANAESTHESIA_SCENARIOS`` (a ventilated adult at 14 /min and a ventilated child at
25 /min with no respiratory sinus arrhythmia; a child breathing at 30 /min, heart 125 /min), lead
II at 300 Hz, 300 s, the ECG scaled by 1000 (arbitrary units), seeds 0-4: the default EDR's MSC,
|r|, rates and the heart rate's weight in the fusion (the largest over the analysis windows),
beside the R amplitude's MSC and |r|; the same record streamed (``edr.stream.StreamingEDR``, 1 s
blocks): its MSC, rates and the heart rate's weight (the largest over the stream's fusion models,
read after every block). Then the ventilated scenarios with a stronger heart-rate variability
that is not the breathing's (``hrv_std_bpm`` 3 and 6 instead of 1), offline.

Usage: ``python scripts/measure_anaesthesia.py --out scripts/output/measure_anaesthesia.md``
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from _shared import write_markdown
from measure_stream_accuracy import _Streamed

from edr.fusion import HEART_SERIES
from edr.pipeline import extract_edr
from edr.scoring import score, window_rates
from edr.simulate import (
    ANAESTHESIA_SCENARIOS,
    SCENARIOS,
    SimulationParameters,
    simulate_recording,
)
from edr.stream import StreamingEDR

(HEART,) = HEART_SERIES
SEEDS = range(5)
STRONGER_HRV_BPM = (3.0, 6.0)


def _record(name: str, seed: int, **changes):
    rec = simulate_recording(300.0, 300.0, leads=("II",), name=name, random_state=seed,
                             **{**SCENARIOS[name], **changes})
    rec.ecg[:] *= 1000.0
    return rec


def _rates(result, rec) -> str:
    """``rates given | mean rate error`` cells of a result."""
    _, edr_bpm, ref_bpm = window_rates(result, rec)
    given = np.isfinite(edr_bpm)
    err = np.mean(np.abs(edr_bpm[given] - ref_bpm[given])) if given.any() else np.nan
    return f"{given.mean():.0%} | {err:.2f}"


def _streamed(rec):
    """``(result for edr.scoring.score, largest heart-rate weight of the stream's models)``."""
    s = StreamingEDR(rec.fs, leads=["II"])
    x = rec.ecg[:, None]
    block = int(round(rec.fs))
    ups, weight = [], 0.0
    for i in range(0, x.shape[0], block):
        ups += s.push(x[i:i + block])
        model = s._path.model  # the projected default's current fusion model
        if model is not None:
            weight = max(weight, model.weights.get(HEART, 0.0) / sum(model.weights.values()))
    ups += s.flush()
    n_grid = int(np.floor(rec.ecg.size / rec.fs * s.fs_out + 1e-9))
    return _Streamed(ups, n_grid, s.fs_out), weight


def _row(name: str, label, seed: int, rec, stream: bool) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res, ramp = extract_edr(rec), extract_edr(rec, method="r_amplitude")
    d, r = score(res, rec), score(ramp, rec)
    weight = max(w.quality["weights"].get(HEART, 0.0) for w in res.windows)
    cells = (f"| {name} | {label} | {seed} | {d.msc:.2f} / {d.corr:.2f} | {r.msc:.2f} / "
             f"{r.corr:.2f} | {_rates(res, rec)} | {weight:.4f} |")
    if stream:
        streamed, s_weight = _streamed(rec)
        cells += f" {score(streamed, rec).msc:.2f} | {_rates(streamed, rec)} | {s_weight:.4f} |"
    return cells


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="scripts/output/measure_anaesthesia.md")
    args = ap.parse_args(argv)
    head = ("| scenario | HRV (bpm) | seed | MSC / \\|r\\| | R amplitude MSC / \\|r\\| | rates "
            "given | mean rate error (bpm) | heart rate's weight |")
    lines = ["# Under anaesthesia (simulated)", "",
             f"Command: `python scripts/measure_anaesthesia.py --out {args.out}`", "",
             "Offline default, the R amplitude and the stream (the default, 1 s blocks); the "
             "heart rate's weight is the largest over the analysis windows (offline) and over the "
             "stream's fusion models.", "",
             head + " stream MSC | stream rates given | stream mean rate error | stream heart "
             "rate's weight |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name in ANAESTHESIA_SCENARIOS:
        hrv = SCENARIOS[name].get("hrv_std_bpm", SimulationParameters.hrv_std_bpm)
        for seed in SEEDS:
            lines.append(_row(name, f"{hrv:g}", seed, _record(name, seed), True))
    lines += ["", "Ventilated, with a stronger heart-rate variability that is not the breathing's "
              "(offline):", "", head, "|---|---|---|---|---|---|---|---|"]
    for name in ANAESTHESIA_SCENARIOS:
        if SCENARIOS[name].get("rsa_bpm", 1.0) == 0.0:
            for hrv in STRONGER_HRV_BPM:
                for seed in SEEDS:
                    lines.append(_row(name, f"{hrv:g}", seed, _record(name, seed, hrv_std_bpm=hrv),
                                      False))
    return write_markdown(args.out, lines)


if __name__ == "__main__":
    raise SystemExit(main())
