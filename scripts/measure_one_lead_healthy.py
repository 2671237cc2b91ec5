"""One lead, healthy volunteers: why the fused series does not beat the R amplitude, and fixes.

Each candidate re-fuses the cached window panels of the default extraction (centred QRS matrix,
``scripts/accuracy_cache.py``) of every shared BIDMC and MARSH record and, with ``--simulate``,
of simulated one-lead records of healthy people breathing at a paced rate that changes every
minute (``edr.simulate``: 8, 14, 23 and 14 breaths/min) over a grid of conditions: the ratio of
respiratory sinus arrhythmia to amplitude modulation, the noise, the heart rate, the sampling
rate and the delay of the heart rate's respiratory modulation behind the breath
(``rsa_delay_s``). Candidates (the weights are the default's, :func:`edr.fusion.panel_weights`):

* ``default``: the previous default, every series shifted onto the heaviest morphology series
  within ±0.5 s and signed (``edr.fusion.fuse`` with ``phase=False``);
* ``no alignment``: signs only;
* ``heart witness``: the heart rate counts in the others' agreement but is not summed;
* ``heart aligned locally``: the heart rate shifted, stretch by stretch (64 s, half-overlapping,
  tapered), onto the weighted morphology sum by the lag within a quarter of that stretch's
  breathing period, and signed;
* ``heart delay and phase``: the heart rate shifted by one delay (within half the period of the
  slowest weighted rate) and rotated by one constant phase onto the morphology sum;
* ``heart rotated (new default)``: ``edr.fusion.fuse`` as shipped: the heart rate rotated
  frequency by frequency onto the morphology sum (``edr.cross_phase.phase_onto``) where the
  morphology outweighs it.

Each is stitched, judged and scored by the protocol (MSC, |r|) against the reference, which the
method never sees. Output: per database the median MSC / |r| and the number of records where the
candidate's MSC is above the R amplitude's, and the nine MARSH subjects one by one.

Usage: ``EDR_DATA_DIR=/path/to/data python scripts/measure_one_lead_healthy.py [--simulate]
--out scripts/output/measure_one_lead_healthy.md``
"""

from __future__ import annotations

import argparse
import itertools
from dataclasses import replace

import numpy as np
from _shared import write_markdown
from accuracy_cache import DEFAULT_CACHE, load_all
from measure_generalisation_loso import Out, Ref, database, figures

from edr.fusion import (
    ALIGN_LAG_S,
    HEART_SERIES,
    LOCAL_S,
    WEIGHT_BAND_HZ,
    aligned_sum,
    carried_band,
    carried_hz,
    fuse,
    panel_weights,
)
from edr.methods import MethodOutput
from edr.rates import RateSpan, judged_rates
from edr.series_alignment import shifted
from edr.stitch import Stitcher

CANDIDATES = ("default", "no alignment", "heart witness", "heart aligned locally",
              "heart delay and phase", "heart rotated (new default)")
SIM_GRID = dict(modulation=((8.0, 0.02), (8.0, 0.06), (2.0, 0.06)), noise_std=(0.03, 0.1),
                heart_rate_bpm=(60.0, 85.0), fs=(100.0, 250.0), rsa_delay_s=(0.0, 1.0))
"""Simulated conditions: (RSA bpm, amplitude modulation), noise (mV), heart rate (/min),
sampling rate (Hz), delay of the RSA (s)."""


def peak_hz(x: np.ndarray, fs: float, band) -> float:
    """Frequency (Hz) of the largest periodogram peak of ``x`` (Hann-tapered, zero-padded to
    4096 points) within ``band``."""
    f = np.fft.rfftfreq(4096, 1.0 / fs)
    p = np.abs(np.fft.rfft(np.hanning(x.size) * (x - x.mean()), 4096)) ** 2
    inside = (f >= band[0]) & (f <= band[1])
    return float(f[inside][np.argmax(p[inside])])


def locally_aligned(y: np.ndarray, ref: np.ndarray, fs: float, band,
                    local_s: float = LOCAL_S) -> np.ndarray:
    """``y`` aligned onto ``ref`` stretch by stretch (``local_s``, half-overlapping, Hann
    overlap-add): in each stretch the shift within a quarter of the period of ``ref``'s peak in
    ``band`` (with a free sign, every phase) that maximises the absolute inner product, and
    that product's sign."""
    n = min(int(round(local_s * fs)), y.size)
    starts = list(range(0, y.size - n + 1, max(n // 2, 1)))
    if starts[-1] != y.size - n:
        starts.append(y.size - n)
    taper = np.hanning(n + 2)[1:-1]
    acc, wsum = np.zeros(y.size), np.zeros(y.size)
    for s0 in starts:
        sl = slice(s0, s0 + n)
        max_lag = int(fs / (4.0 * peak_hz(ref[sl], fs, band)))
        best, best_c = 0, -1.0
        for lag in sorted(range(-max_lag, max_lag + 1), key=abs):
            c = abs(float(np.dot(shifted(y, lag)[sl], ref[sl])))
            if c > best_c:
                best, best_c = lag, c
        ys = shifted(y, best)[sl]
        acc[sl] += taper * np.sign(np.dot(ys, ref[sl]) or 1.0) * ys
        wsum[sl] += taper
    return acc / np.where(wsum > 0, wsum, 1.0)


def heart_aligned_sum(panel: dict, wts: dict, anchor: str, max_lag: int, fs: float,
                      max_hz) -> np.ndarray:
    """The morphology series' aligned sum (as the default) plus the heart rate aligned onto it
    stretch by stretch (:func:`locally_aligned`)."""
    heart = [k for k in panel if k.rsplit("/", 1)[-1] in HEART_SERIES]
    morph = {k: w for k, w in wts.items() if k not in heart}
    if not heart or not any(morph.values()):
        return aligned_sum(panel, wts, anchor, max_lag)[0]
    series = aligned_sum(panel, morph, anchor, max_lag)[0]
    band = carried_band(WEIGHT_BAND_HZ, max_hz)
    ref = series.copy()
    for k in heart:
        y = np.asarray(panel[k], dtype=float)
        y = y / y.std() if y.std() > 0 else y
        series = series + wts[k] * locally_aligned(y, ref, fs, band)
    return series


def delay_phase_aligned(y: np.ndarray, ref: np.ndarray, max_lag: int) -> np.ndarray:
    """``y`` shifted by the lag within ``±max_lag`` samples and rotated by the constant phase
    that together maximise the magnitude of the inner product of the two analytic signals
    (a delay plus a constant phase: a first-order model of the heart rate's response to the
    breath); a sign flip is the rotation by pi."""
    from scipy import signal as sps

    ya, ra = sps.hilbert(y), sps.hilbert(ref)
    best, best_c = 0, 0j
    for lag in sorted(range(-max_lag, max_lag + 1), key=abs):
        c = complex(np.vdot(shifted(ya, lag), ra))
        if abs(c) > abs(best_c):
            best, best_c = lag, c
    return np.real(shifted(ya, best) * np.exp(1j * np.angle(best_c)))


def heart_delay_sum(panel: dict, wts: dict, anchor: str, max_lag: int, fs: float) -> np.ndarray:
    """The morphology series' aligned sum (as the default) plus the heart rate shifted and
    rotated onto it by one delay and one constant phase (:func:`delay_phase_aligned`)."""
    heart = [k for k in panel if k.rsplit("/", 1)[-1] in HEART_SERIES]
    morph = {k: w for k, w in wts.items() if k not in heart}
    if not heart or not any(morph.values()):
        return aligned_sum(panel, wts, anchor, max_lag)[0]
    series = aligned_sum(panel, morph, anchor, max_lag)[0]
    ref = series.copy()
    for k in heart:
        y = np.asarray(panel[k], dtype=float)
        y = y / y.std() if y.std() > 0 else y
        series = series + wts[k] * delay_phase_aligned(
            y, ref, int(round(fs / (2.0 * WEIGHT_BAND_HZ[0]))))
    return series


def fused(panel: dict, beats, candidate: str) -> tuple[np.ndarray, dict]:
    """One window's fused series and weights under ``candidate``."""
    max_hz = carried_hz(beats)
    wts = panel_weights(panel, 4.0, max_hz=max_hz)
    heart = [k for k in panel if k.rsplit("/", 1)[-1] in HEART_SERIES]
    if candidate == "heart witness" and len(heart) < len(panel):
        wts = {k: (0.0 if k in heart else w) for k, w in wts.items()}
        total = sum(wts.values())
        wts = {k: w / total for k, w in wts.items()} if total > 0 else wts
    anchors = {k: v for k, v in wts.items() if k not in heart and v > 0} or wts
    best = max(anchors, key=anchors.get)
    lag = 0 if candidate == "no alignment" else int(round(ALIGN_LAG_S * 4.0))
    if candidate == "heart rotated (new default)":
        return fuse(panel, 4.0, max_hz=max_hz, phase=True).series, wts
    if candidate == "heart delay and phase":
        series = heart_delay_sum(panel, wts, best, lag, 4.0)
    elif candidate == "heart aligned locally":
        series = heart_aligned_sum(panel, wts, best, lag, 4.0, max_hz)
    else:
        series = aligned_sum(panel, wts, best, lag)[0]
    return series, wts


def run(rec: dict, candidate: str) -> dict:
    """Stitch, judge and score one record's cached windows fused by ``candidate``."""
    grid = rec["grid"]
    stitcher, spans = Stitcher(grid, 4.0, True), []
    for w, wa in rec["windows"]["centred"]:
        series, wts = fused(wa.panel, wa.segment.beat_times[wa.segment.valid], candidate)
        out = MethodOutput(wa.output.times, series, "grid", None, None, {}, wa.panel, wts)
        wa = replace(wa, output=out, series=series, weights=wts)
        stitcher.add(w, wa)
        spans.append(RateSpan.of(w, wa))
    s = stitcher.finish()
    rates = judged_rates(s.waveform, grid, spans, 4.0)
    return figures(Out(grid, s.waveform, rates.rate_bpm, rates.raw_bpm), Ref(rec["reference"]),
                   rec["plan"])


def analyse_simulated(condition: dict, seed: int, duration_s: float) -> dict:
    """The window analyses of one simulated paced-breathing record (as
    ``measure_generalisation_loso.analyse`` does for a stored one, centred matrix only)."""
    import measure_generalisation_loso as m

    from edr.simulate import SCENARIOS, simulate_recording

    rsa, amp = condition["modulation"]
    opts = {**SCENARIOS["paced_breathing"], "rsa_bpm": rsa, "amplitude_modulation": amp,
            **{k: v for k, v in condition.items() if k != "modulation"}}
    rec = simulate_recording(duration_s=duration_s, random_state=seed, **opts)
    eo = m.EDROptions()
    leads = m.record_leads(rec, eo)
    grid = m.output_grid(duration_s, eo.fs_out)
    plan = m.window_plan(duration_s, eo)
    o = replace(eo, method_options={**eo.method_options, "baseline": "centred"})
    windows = [(w, m.analyse_window(w, leads, rec.fs, grid, o)) for w in plan]
    reference = dict(resp=rec.resp, resp_fs=rec.resp_fs, breath_times=rec.breath_times,
                     name=rec.name)
    return dict(grid=grid, plan=plan, windows={"centred": windows}, reference=reference,
                ramp=figures(m.extract_edr(rec, "r_amplitude"), Ref(reference), plan))


def analyse_resampled(path: str, fs: float) -> dict:
    """The window analyses of one stored record with its ECG resampled to ``fs`` (polyphase,
    ``scipy.signal.resample_poly``; the reference untouched), centred matrix only."""
    from fractions import Fraction

    import measure_generalisation_loso as m
    from scipy import signal as sps

    rec = m.read_record(path)
    ratio = Fraction(fs / rec.fs).limit_denominator(1000)
    leads = {k: sps.resample_poly(v, ratio.numerator, ratio.denominator)
             for k, v in (rec.leads or {rec.ecg_channel: rec.ecg}).items()}
    rec = replace(rec, fs=float(fs), ecg=leads[rec.ecg_channel], leads=leads)
    eo = m.EDROptions()
    rl = m.record_leads(rec, eo)
    duration = next(iter(rl.values())).size / rec.fs
    grid, plan = m.output_grid(duration, eo.fs_out), m.window_plan(duration, eo)
    o = replace(eo, method_options={**eo.method_options, "baseline": "centred"})
    windows = [(w, m.analyse_window(w, rl, rec.fs, grid, o)) for w in plan]
    reference = dict(resp=rec.resp, resp_fs=rec.resp_fs, breath_times=rec.breath_times,
                     name=rec.name)
    return dict(grid=grid, plan=plan, windows={"centred": windows}, reference=reference,
                ramp=figures(m.extract_edr(rec, "r_amplitude"), Ref(reference), plan))


def resampled_tables(fs: float) -> list[str]:
    """The MARSH subjects' ECG resampled to ``fs``: the candidates against the R amplitude."""
    import os

    from accuracy_cache import record_names

    paths = {n: p for n, p in record_names(os.environ["EDR_DATA_DIR"]).items()
             if database(n) == "MARSH"}
    records = {n: analyse_resampled(p, fs) for n, p in sorted(paths.items())}
    lines = [f"## MARSH resampled to {fs:g} Hz (in-sample)", "",
             "| candidate | median MSC / \\|r\\| | above R amplitude | " + " | ".join(records)
             + " |", "|---|---|---|" + "---|" * len(records)]
    ramp = {n: r["ramp"]["msc"] for n, r in records.items()}
    for c in ("default", "heart rotated (new default)"):
        res = {n: run(r, c) for n, r in records.items()}
        lines.append(f"| {c} | {np.median([v['msc'] for v in res.values()]):.3f} / "
                     f"{np.median([v['r'] for v in res.values()]):.3f} | "
                     f"{sum(res[n]['msc'] > ramp[n] for n in res)} of {len(res)} | "
                     + " | ".join(f"{res[n]['msc']:.2f}" for n in records) + " |")
    lines.append(f"| R amplitude | {np.median(list(ramp.values())):.3f} | | "
                 + " | ".join(f"{ramp[n]:.2f}" for n in records) + " |")
    return lines + [""]


def candidate_rows(res: dict, records: dict) -> list[str]:
    """The table of the candidates' scores ``res[candidate][record]`` on the shared records:
    per database the median MSC / |r| and the records above the R amplitude, then every MARSH
    subject's MSC (header included)."""
    ramp = {n: r["ramp"]["msc"] for n, r in records.items()}
    marsh = [n for n in records if database(n) == "MARSH"]
    lines = ["| candidate | BIDMC MSC / \\|r\\| / above R amplitude | MARSH MSC / \\|r\\| / "
             "above R amplitude | " + " | ".join(marsh) + " |",
             "|---|---|---|" + "---|" * len(marsh)]
    for c, scores in res.items():
        cells = []
        for db in ("BIDMC", "MARSH"):
            names = [n for n in records if database(n) == db]
            cells.append(f"{np.median([scores[n]['msc'] for n in names]):.3f} / "
                         f"{np.median([scores[n]['r'] for n in names]):.3f} / "
                         f"{sum(scores[n]['msc'] > ramp[n] for n in names)} of {len(names)}")
        lines.append(f"| {c} | {cells[0]} | {cells[1]} | "
                     + " | ".join(f"{scores[n]['msc']:.2f}" for n in marsh) + " |")
    return lines


def real_tables(records: dict) -> list[str]:
    res = {c: {n: run(r, c) for n, r in records.items()} for c in CANDIDATES}
    ramp = {n: r["ramp"]["msc"] for n, r in records.items()}
    marsh = [n for n in records if database(n) == "MARSH"]
    lines = ["## Shared records (in-sample: nothing here is tuned)", ""]
    lines += candidate_rows(res, records)
    lines.append("| R amplitude | " + " | ".join(
        f"{np.median([ramp[n] for n in records if database(n) == db]):.3f}"
        for db in ("BIDMC", "MARSH")) + " | " + " | ".join(f"{ramp[n]:.2f}" for n in marsh)
        + " |")
    return lines + [""]


def simulated_tables(seeds, duration_s: float) -> list[str]:
    keys = list(SIM_GRID)
    rows = []
    for values in itertools.product(*SIM_GRID.values()):
        cond = dict(zip(keys, values, strict=True))
        for seed in seeds:
            rec = analyse_simulated(cond, seed, duration_s)
            row = {**cond, "seed": seed, "R amplitude": rec["ramp"]["msc"]}
            row.update({c: run(rec, c)["msc"] for c in CANDIDATES})
            rows.append(row)
    lines = ["## Simulated paced breathing, one lead (median MSC over seeds)", "",
             "| RSA bpm / amplitude | noise | heart /min | fs | RSA delay s | R amplitude | "
             + " | ".join(CANDIDATES) + " |", "|---" * (6 + len(CANDIDATES)) + "|"]
    for values in itertools.product(*SIM_GRID.values()):
        rs = [r for r in rows if all(r[k] == v for k, v in zip(keys, values, strict=True))]
        med = {c: np.median([r[c] for r in rs]) for c in ("R amplitude", *CANDIDATES)}
        lines.append(f"| {values[0][0]:g} / {values[0][1]:g} | {values[1]:g} | {values[2]:g} | "
                     f"{values[3]:g} | {values[4]:g} | "
                     + " | ".join(f"{med[c]:.2f}" for c in ("R amplitude", *CANDIDATES)) + " |")
    lines += ["", "Over every record of the grid: median MSC; records above the R amplitude; "
              "wins against the default.", "",
              "| candidate | median MSC | above R amplitude | above the default |",
              "|---|---|---|---|"]
    for c in ("R amplitude", *CANDIDATES):
        lines.append(f"| {c} | {np.median([r[c] for r in rows]):.3f} | "
                     f"{sum(r[c] > r['R amplitude'] for r in rows)} of {len(rows)} | "
                     f"{sum(r[c] > r['default'] for r in rows)} of {len(rows)} |")
    return lines + [""]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="scripts/output/measure_one_lead_healthy.md")
    ap.add_argument("--cache-dir", default=DEFAULT_CACHE)
    ap.add_argument("--simulate", action="store_true", help="also the simulated grid")
    ap.add_argument("--no-records", action="store_true", help="skip the shared records")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--duration", type=float, default=480.0)
    ap.add_argument("--resample", type=float, default=None,
                    help="also the MARSH subjects with their ECG resampled to this rate (Hz)")
    args = ap.parse_args(argv)
    lines = ["# One lead, healthy volunteers: the fusion's candidates", "",
             "Command: `python scripts/measure_one_lead_healthy.py"
             + (" --no-records" if args.no_records else "")
             + (f" --resample {args.resample:g}" if args.resample else "")
             + (" --simulate" if args.simulate else "") + f" --out {args.out}`", ""]
    if not args.no_records:
        lines += real_tables(load_all(args.cache_dir))
    if args.resample:
        lines += resampled_tables(args.resample)
    if args.simulate:
        lines += simulated_tables(args.seeds, args.duration)
    return write_markdown(args.out, lines)


if __name__ == "__main__":
    raise SystemExit(main())
