"""The default under the recording conditions of populations the shared records do not hold.

Every shared record (30 BIDMC, 9 MARSH) is transformed -- the ECG only; the reference
respiration and its breath annotations stay as they are -- and extracted by the default
(``kpca_fusion``) and by the plain R amplitude (``r_amplitude``):

* ``native``: as read (BIDMC every lead at 125 Hz, MARSH one lead at 250 Hz);
* ``one lead II`` / ``one lead 2nd`` / ``one lead 3rd`` (BIDMC): one lead alone, lead II and each
  other lead in file order;
* ``300 Hz`` (every lead), ``300 Hz one lead`` (BIDMC lead II), ``100 Hz`` (MARSH): resampled
  (:func:`scipy.signal.resample_poly`, as ``scripts/measure_sampling_rate.py``);
* ``x1e-3``, ``x1e3``, ``int16 counts`` (``round(x * 200) + 1024`` as int16), ``inverted``: units
  and polarity; ``300 Hz one lead, counts``: BIDMC lead II at 300 Hz in those counts (the third
  population's one lead in arbitrary units, with an offset);
* ``mains 60 Hz``, ``mains 50 Hz`` (a sinusoid of 0.1 x the lead's QRS amplitude, its 99.5th
  percentile of |x - median|), ``noise 20 dB`` (white, 20 dB below the lead's power),
  ``wander 0.3 Hz`` (a 0.3 Hz sinusoid of 1 x the QRS amplitude);

and, with ``--simulate``, simulated one-lead records of the third population (lead II at 300 Hz,
300 s, ECG x 1000: arbitrary units): heart 120 and 150 /min, breathing 20, 30 and 40 /min,
breathing on its own (respiratory sinus arrhythmia 3 bpm) or ventilated (no RSA, ventilator
depth 1), seeds 0-2.

Printed per database and condition: median MSC and |r|, rate error (per-record median, median /
mean over records), coverage (the reference's rate windows given a rate, pooled) and within 2 bpm
(of those given), the default's MSC above the R amplitude's (same condition), and the records
that fail (an exception, no output, or coverage below 50 %). Each extraction's figures are cached
(``--cache-dir``, one pickle per method, condition and record) and read back when present.

``--highpass HZ`` is an experiment, not the library: every lead is high-passed (2nd-order
Butterworth, zero-phase, ``HZ`` Hz) where the extraction removes the mains line
(``edr.windows.remove_mains`` wrapped), before beats and morphology; give it its own
``--cache-dir``.

Usage: ``EDR_DATA_DIR=/path/to/data python scripts/measure_conditions.py [--simulate]
[--cache-dir DIR] [--only CONDITION ...] [--highpass HZ]
--out scripts/output/measure_conditions.md``
"""

from __future__ import annotations

import argparse
import glob
import os
import pickle
import tempfile
import warnings
import zlib
from dataclasses import replace
from fractions import Fraction

import numpy as np
from _shared import database, write_markdown
from scipy.signal import resample_poly

from edr.io import read_record
from edr.pipeline import extract_edr
from edr.scoring import score, window_rates

METHODS = ("kpca_fusion", "r_amplitude")
DEFAULT_CACHE = os.path.join(tempfile.gettempdir(), "edr-conditions-cache")
MAINS_REL = 0.1
NOISE_SNR_DB = 20.0
WANDER_HZ, WANDER_REL = 0.3, 1.0
MIN_COVERAGE = 0.5
SIM_HEART_BPM = (120.0, 150.0)
SIM_RESP_BPM = (20.0, 30.0, 40.0)
SIM_SEEDS = range(3)


def qrs_amplitude(x) -> float:
    """A lead's QRS amplitude: the 99.5th percentile of ``|x - median|``."""
    x = np.asarray(x, dtype=float)
    return float(np.percentile(np.abs(x - np.median(x)), 99.5))


def _with_leads(rec, leads, fs=None, channel=None):
    channel = channel or (rec.ecg_channel if rec.ecg_channel in leads else next(iter(leads)))
    return replace(rec, fs=float(fs or rec.fs), ecg=leads[channel], ecg_channel=channel,
                   leads=leads)


def _each(rec, f):
    """Every lead through ``f(x, rng, name)`` (seeded by the record and lead)."""
    out = {}
    for k, v in rec.leads.items():
        rng = np.random.default_rng(zlib.crc32(f"{rec.name}/{k}".encode()))
        out[k] = f(np.asarray(v, dtype=float), rng, k)
    return _with_leads(rec, out)


def _resampled(rec, fs):
    q = Fraction(int(fs), int(rec.fs))
    leads = {k: resample_poly(np.asarray(v, dtype=float), q.numerator, q.denominator)
             for k, v in rec.leads.items()}
    return _with_leads(rec, leads, fs=fs)


def _one_lead(rec, which):
    names = list(rec.leads)
    if len(names) < 2:
        return None
    order = [rec.ecg_channel] + [n for n in names if n != rec.ecg_channel]
    if which >= len(order):
        return None
    k = order[which]
    return _with_leads(rec, {k: rec.leads[k]}, channel=k)


def _sine(x, hz, rel, fs, rng):
    t = np.arange(x.size) / fs
    return x + rel * qrs_amplitude(x) * np.sin(2 * np.pi * hz * t + rng.uniform(0, 2 * np.pi))


def _noise(x, rng):
    return x + rng.standard_normal(x.size) * np.std(x) * 10 ** (-NOISE_SNR_DB / 20)


def _counts(x):
    return (np.round(x * 200.0) + 1024).astype(np.int16)


CONDITIONS = {
    "native": lambda r: r,
    "one lead II": lambda r: _one_lead(r, 0),
    "one lead 2nd": lambda r: _one_lead(r, 1),
    "one lead 3rd": lambda r: _one_lead(r, 2),
    "300 Hz": lambda r: _resampled(r, 300),
    "300 Hz one lead": lambda r: None if len(r.leads) < 2 else _resampled(_one_lead(r, 0), 300),
    "300 Hz one lead, counts": lambda r: None if len(r.leads) < 2 else _each(
        _resampled(_one_lead(r, 0), 300), lambda x, g, k: _counts(x)),
    "100 Hz": lambda r: None if r.fs <= 125 else _resampled(r, 100),
    "x1e-3": lambda r: _each(r, lambda x, g, k: x * 1e-3),
    "x1e3": lambda r: _each(r, lambda x, g, k: x * 1e3),
    "int16 counts": lambda r: _each(r, lambda x, g, k: _counts(x)),
    "inverted": lambda r: _each(r, lambda x, g, k: -x),
    "mains 60 Hz": lambda r: _each(r, lambda x, g, k: _sine(x, 60.0, MAINS_REL, r.fs, g)),
    "mains 50 Hz": lambda r: _each(r, lambda x, g, k: _sine(x, 50.0, MAINS_REL, r.fs, g)),
    "noise 20 dB": lambda r: _each(r, lambda x, g, k: _noise(x, g)),
    "wander 0.3 Hz": lambda r: _each(r, lambda x, g, k: _sine(x, WANDER_HZ, WANDER_REL, r.fs, g)),
}


def figures(rec, method: str) -> dict:
    """One extraction's figures: MSC, |r|, rate error, rate windows (reference, given, within 2
    bpm), or the exception's text."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = extract_edr(rec, method=method)
            s = score(res, rec)
            _, edr_bpm, ref_bpm = window_rates(res, rec)
    except Exception as exc:  # noqa: BLE001  (a failure is a result here)
        return {"error": f"{type(exc).__name__}: {exc}"[:160]}
    has = np.isfinite(ref_bpm)
    given = has & np.isfinite(edr_bpm)
    return {"msc": s.msc, "r": s.corr, "rate_err": s.rate_error_bpm, "n_ref": int(has.sum()),
            "n_given": int(given.sum()),
            "n_within": int(np.sum(np.abs(edr_bpm[given] - ref_bpm[given]) <= 2.0)),
            "output": bool(np.isfinite(res.waveform).any()), "status": res.status}


def cached(cache_dir, method, condition, name, make):
    """``figures`` of one method, condition and record, read from ``cache_dir`` or computed."""
    file = os.path.join(cache_dir, method, condition.replace(" ", "_"), f"{name}.pkl")
    if os.path.exists(file):
        with open(file, "rb") as fh:
            return pickle.load(fh)
    rec = make()
    out = None if rec is None else figures(rec, method)
    os.makedirs(os.path.dirname(file), exist_ok=True)
    with open(file + ".part", "wb") as fh:
        pickle.dump(out, fh)
    os.replace(file + ".part", file)
    return out


def failure(f) -> str | None:
    """Why an extraction counts as failed, or None."""
    if "error" in f:
        return f["error"]
    if not f["output"]:
        return "no output"
    if f["n_ref"] and f["n_given"] / f["n_ref"] < MIN_COVERAGE:
        return f"coverage {f['n_given'] / f['n_ref']:.0%}"
    return None


def row(label: str, rows: dict, ramp: dict | None) -> str:
    """One table row of the records ``rows`` (``{name: figures}``)."""
    ok = {n: f for n, f in rows.items() if "error" not in f}
    fails = [f"{n} ({why})" for n, f in rows.items() if (why := failure(f))]
    if not ok:
        return f"| {label} | {len(rows)} | – | – | – | – | – | {'; '.join(fails)} |"
    msc = np.median([f["msc"] for f in ok.values()])
    r = np.median([f["r"] for f in ok.values()])
    err = np.array([f["rate_err"] for f in ok.values()], dtype=float)
    n_ref = sum(f["n_ref"] for f in ok.values())
    n_given = sum(f["n_given"] for f in ok.values())
    within = sum(f["n_within"] for f in ok.values()) / max(n_given, 1)
    wins = "" if ramp is None else \
        f"{sum(f['msc'] > ramp[n]['msc'] for n, f in ok.items() if 'msc' in (ramp.get(n) or {}))}"
    return (f"| {label} | {len(rows)} | {msc:.3f} | {r:.3f} | {np.nanmedian(err):.2f} / "
            f"{np.nanmean(err):.2f} | {n_given / max(n_ref, 1):.1%} / {within:.1%} | {wins} | "
            f"{'; '.join(fails) or 'none'} |")


HEAD = ["| condition | records | median MSC | median \\|r\\| | rate error median / mean (bpm) | "
        "coverage / within 2 bpm | MSC above R amplitude | failures |",
        "|---|---|---|---|---|---|---|---|"]


def shared_tables(args) -> list:
    """The per-database tables of every condition over the shared records."""
    root = os.environ["EDR_DATA_DIR"]
    paths = sorted(glob.glob(os.path.join(root, "bidmc", "bidmc??.hea"))) + \
        sorted(glob.glob(os.path.join(root, "marsh", "m????.hea")))
    conds = args.only or list(CONDITIONS)
    res = {}  # (method, condition) -> {name: figures}
    for p in paths:
        name = os.path.basename(p)[:-4]
        base = {}
        for method in METHODS:
            for c in conds:
                def make(c=c, base=base, p=p):
                    if "rec" not in base:
                        base["rec"] = read_record(p[:-4])
                    return CONDITIONS[c](base["rec"])
                f = cached(args.cache_dir, method, c, name, make)
                if f is not None:
                    res.setdefault((method, c), {})[name] = f
        print(f"[conditions] {name}", flush=True)
    lines = []
    for db in ("BIDMC", "MARSH"):
        for method in METHODS:
            lines += ["", f"### {db}, {method}", ""] + HEAD
            for c in conds:
                rows = {n: f for n, f in res.get((method, c), {}).items() if database(n) == db}
                if rows:
                    ramp = None if method == "r_amplitude" else res.get(("r_amplitude", c), {})
                    lines.append(row(c, rows, ramp))
    return lines


def simulated_tables(args) -> list:
    """The third population simulated: one lead at 300 Hz in arbitrary units."""
    from edr.simulate import SCENARIOS, simulate_recording

    lines = ["", "### Simulated third population (lead II, 300 Hz, x1000, 300 s, seeds 0-2)", "",
             "| heart (/min) | breathing (/min) | ventilated | method | records | median MSC | "
             "median \\|r\\| | rate error median / mean (bpm) | coverage / within 2 bpm | "
             "MSC above R amplitude | failures |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for hr in SIM_HEART_BPM:
        for br in SIM_RESP_BPM:
            for vent in (False, True):
                base = SCENARIOS["child_ventilated" if vent else "child_spontaneous"]
                res = {}
                for seed in SIM_SEEDS:
                    name = f"sim_hr{hr:g}_br{br:g}_{'vent' if vent else 'spont'}_{seed}"

                    def make(seed=seed, base=base, hr=hr, br=br):
                        rec = simulate_recording(300.0, 300.0, leads=("II",), random_state=seed,
                                                 **{**base, "heart_rate_bpm": hr,
                                                    "resp_rate_hz": br / 60.0})
                        return replace(rec, ecg=rec.ecg * 1000.0,
                                       leads={"II": rec.ecg * 1000.0})
                    for method in METHODS:
                        f = cached(args.cache_dir, method, "simulated", name, make)
                        res.setdefault(method, {})[name] = f
                for method in METHODS:
                    ramp = None if method == "r_amplitude" else res["r_amplitude"]
                    cells = row(method, res[method], ramp)
                    lines.append(f"| {hr:g} | {br:g} | {'yes' if vent else 'no'} {cells}")
    return lines


def high_passed_leads(hz: float) -> None:
    """The experiment of ``--highpass``: every lead high-passed at ``hz`` before the mains step of
    the extraction (``edr.windows.remove_mains`` replaced in this process)."""
    import edr.windows
    from edr import zero_phase
    from edr.signal import butter_sos

    mains = edr.windows.remove_mains

    def high_passed(x, fs):
        x = np.asarray(x, dtype=float)
        ok = np.isfinite(x)
        y = zero_phase.sosfiltfilt(butter_sos(2, hz, "highpass", fs),
                                   np.where(ok, x, np.median(x[ok])))
        return mains(np.where(ok, y, np.nan), fs)

    edr.windows.remove_mains = high_passed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="Markdown file written (default: print only)")
    ap.add_argument("--cache-dir", default=DEFAULT_CACHE)
    ap.add_argument("--only", nargs="+", choices=list(CONDITIONS), default=None,
                    help="these conditions only (default: every one)")
    ap.add_argument("--simulate", action="store_true", help="also the simulated third population")
    ap.add_argument("--no-records", action="store_true", help="skip the shared records")
    ap.add_argument("--highpass", type=float, default=None,
                    help="experiment: every lead high-passed at this cut-off (Hz) first")
    args = ap.parse_args(argv)
    if args.highpass:
        high_passed_leads(args.highpass)
    cmd = "python scripts/measure_conditions.py" + (" --simulate" if args.simulate else "") + \
        (f" --highpass {args.highpass:g}" if args.highpass else "") + \
        (" --no-records" if args.no_records else "") + \
        (f" --only {' '.join(repr(c) for c in args.only)}" if args.only else "") + \
        (f" --out {args.out}" if args.out else "")
    lines = ["# The default under unseen recording conditions", "", f"Command: `{cmd}`"]
    if not args.no_records:
        lines += shared_tables(args)
    if args.simulate:
        lines += simulated_tables(args)
    return write_markdown(args.out, lines)


if __name__ == "__main__":
    raise SystemExit(main())
