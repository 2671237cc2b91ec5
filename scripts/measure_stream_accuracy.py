"""The streaming EDR against the offline default on the shared BIDMC and MARSH records.

Every record's ECG, all its leads, is pushed through :class:`edr.stream.StreamingEDR` (the
defaults: ``kpca_fusion``, every lead fused) in 1 s blocks; the emitted 4 Hz EDR and the rates
the stream reported for the 32 s rate windows are scored exactly like the offline default
(``extract_edr(rec)``, the whole record) on the same record, by :func:`edr.scoring.score`
(MSC against the band-passed reference; rate error against the breath annotations, over the
rate windows where the extraction gave a rate). CPU seconds are process time of the stream
alone. The offline scores and the stream's are cached (``--cache``), keyed by record (and the
stream's options). The stream's window rates are kept with the reference's and half the local
heart rate (of the offline extraction's beats, :func:`edr.signal.carried_bpm` without its margin):
the largest window errors and the rates near half the heart rate are listed.

Usage::

    EDR_DATA_DIR=../shared/data nice -n 10 python scripts/measure_stream_accuracy.py \\
        -o scripts/output/measure_stream_accuracy.md
    # variants: --span 180 --hop 4 --delay 5, --records bidmc01,m0046,
    # --set edr.stream.beats.POLARITY_S=40 (a constant of an edr.stream module, for this run)

The stream sees the ECG only; the reference enters the scoring alone.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _shared import median_iqr, write_markdown

DATABASES = ("bidmc", "marsh")


class _Streamed:
    """What :func:`edr.scoring.score` reads of a result: the stream's output."""

    def __init__(self, updates, n_grid, fs_out):
        from edr.rates import window_starts

        self.fs = fs_out
        self.time = np.arange(n_grid) / fs_out
        self.waveform = np.full(n_grid, np.nan)
        t = np.concatenate([u.edr_time for u in updates])
        self.waveform[np.round(t * fs_out).astype(int)] = np.concatenate([u.edr for u in updates])
        self.rate_bpm = np.full(window_starts(n_grid, fs_out).size, np.nan)
        rb = np.concatenate([u.rate_bpm for u in updates])
        self.rate_bpm[:rb.size] = rb[:self.rate_bpm.size]


def stream_record(rec, **options):
    """(updates, CPU seconds, engine) of ``rec``'s leads pushed in 1 s blocks."""
    from edr.stream import StreamingEDR

    names = [rec.ecg_channel] + [n for n in rec.leads if n != rec.ecg_channel]
    x = np.column_stack([rec.leads[n] for n in names])
    s = StreamingEDR(rec.fs, leads=names, **options)
    block = int(round(rec.fs))
    c0 = time.process_time()
    ups = []
    for i in range(0, x.shape[0], block):
        ups += s.push(x[i:i + block])
    ups += s.flush()
    return ups, time.process_time() - c0, s


def offline_scores(rec, cache: Path) -> dict:
    from edr.pipeline import extract_edr
    from edr.rates import window_starts
    from edr.scoring import score
    from edr.signal import NYQUIST_MARGIN_BPM, RATE_WINDOW_S, carried_bpm

    path = cache / f"offline_{rec.name}.json"
    if path.is_file():
        kept = json.loads(path.read_text())
        if "half_hr" in kept:  # (older caches lack the heart rate: computed again)
            return kept
    c0 = time.process_time()
    res = extract_edr(rec)
    cpu = time.process_time() - c0
    sc = score(res, rec)
    beats = np.unique(np.round(np.asarray(res.beat_times, dtype=float), 2))
    starts = res.time[0] + window_starts(res.time.size, res.fs) / res.fs
    half_hr = carried_bpm(beats, starts, RATE_WINDOW_S) + NYQUIST_MARGIN_BPM
    out = {"msc": sc.msc, "rate": sc.rate_error_bpm, "cpu_s": cpu,
           "coverage": float(np.isfinite(res.rate_bpm).mean()), "half_hr": half_hr.tolist()}
    path.write_text(json.dumps(out))
    return out


def one(path, args, cache: Path) -> dict:
    from edr.io import read_record
    from edr.scoring import score, window_rates

    settings = "".join(f"_{name}{value:g}" for name, value in sorted(args.set))
    key = cache / (f"stream_{path.stem}_span{args.span:g}_hop{args.hop:g}_delay{args.delay:g}"
                   f"_reselect{args.reselect:g}{settings}.json")
    if key.is_file():
        return json.loads(key.read_text())
    rec = read_record(path)
    off = offline_scores(rec, cache)
    ups, cpu, s = stream_record(rec, span_s=args.span, hop_s=args.hop, delay_s=args.delay,
                                reselect_s=args.reselect)
    n_grid = int(np.floor(rec.ecg.size / rec.fs * s.fs_out + 1e-9))
    res = _Streamed(ups, n_grid, s.fs_out)
    sc = score(res, rec)
    centres, edr_bpm, ref_bpm = window_rates(res, rec)
    row = {"record": rec.name, "leads": len(rec.leads), "msc_off": off["msc"],
           "msc_stream": sc.msc, "rate_off": off["rate"], "rate_stream": sc.rate_error_bpm,
           "cov_off": off["coverage"], "cov_stream": float(np.isfinite(res.rate_bpm).mean()),
           "cpu_s": cpu, "duration_s": rec.ecg.size / rec.fs, "selections": s.n_selections,
           "windows": {"time": centres.tolist(), "edr": edr_bpm.tolist(), "ref": ref_bpm.tolist(),
                       "half_hr": off["half_hr"][:centres.size]}}
    key.write_text(json.dumps(row))
    return row


def _table(rows, label) -> list[str]:
    col = {k: np.array([r[k] for r in rows], dtype=float) for k in rows[0]
           if k not in ("record", "windows")}
    m_off, m_st = np.median(col["msc_off"]), np.median(col["msc_stream"])
    r_off, r_st = np.nanmedian(col["rate_off"]), np.nanmedian(col["rate_stream"])
    return [f"| {label} ({len(rows)}) | {median_iqr(col['msc_off'])} | "
            f"{median_iqr(col['msc_stream'])} | **{m_st / m_off:.3f}** | "
            f"{median_iqr(col['rate_off'])} | {median_iqr(col['rate_stream'])} | "
            f"**{r_st - r_off:+.2f}** | {np.median(col['cov_off']):.2f} / "
            f"{np.median(col['cov_stream']):.2f} | "
            f"{np.median(col['duration_s'] / col['cpu_s']):.0f} |"]


def _largest(rows, n: int = 15) -> list[str]:
    """The window-error lines: counts over every window with a rate and a reference, and the
    ``n`` largest errors (record, centre, stream rate, reference, half the heart rate)."""
    from edr.signal import NYQUIST_MARGIN_BPM

    w = [(r["record"], t, e, f, h) for r in rows if "windows" in r for t, e, f, h in
         zip(*(r["windows"][k] for k in ("time", "edr", "ref", "half_hr")), strict=False)
         if e is not None and f is not None and np.isfinite(e) and np.isfinite(f)]
    if not w:  # (stream rows cached before the windows were kept)
        return []
    err = np.array([e - f for _, _, e, f, _ in w])
    half = np.array([h for *_, h in w], dtype=float)
    rate = np.array([e for _, _, e, _, _ in w])
    with np.errstate(invalid="ignore"):
        near = int(np.sum(rate > half - 2 * NYQUIST_MARGIN_BPM))
        above = int(np.sum(rate > half))
    lines = ["", f"Window rates (stream, with a reference): {err.size}; off by more than 5 bpm: "
             f"{int(np.sum(np.abs(err) > 5))}, by more than 2 bpm: {int(np.sum(np.abs(err) > 2))};"
             f" bias {np.mean(err):+.2f} bpm (limits of agreement "
             f"{np.mean(err) - 1.96 * np.std(err):+.1f}…{np.mean(err) + 1.96 * np.std(err):+.1f});"
             f" rates above half the heart rate: {above}, within {2 * NYQUIST_MARGIN_BPM:g} bpm of "
             f"it or above: {near}.", "",
             "| record | window centre | stream rate | reference | error | half the heart "
             "rate |", "|---|---|---|---|---|---|"]
    for i in np.argsort(-np.abs(err), kind="stable")[:n]:
        name, t, e, f, h = w[i]
        lines.append(f"| {name} | {t:.0f} s | {e:.1f} | {f:.1f} | {e - f:+.1f} | {h:.1f} |")
    return lines


def _setting(text: str) -> tuple[str, float]:
    """``MODULE.NAME=X`` of an existing numeric constant of an ``edr.stream`` module."""
    name, _, value = text.partition("=")
    module, _, attr = name.rpartition(".")
    if not module.startswith("edr.stream") or not value:
        raise argparse.ArgumentTypeError(f"expected edr.stream.MODULE.NAME=NUMBER, got {text!r}")
    current = getattr(importlib.import_module(module), attr, None)
    if not isinstance(current, (int, float)):
        raise argparse.ArgumentTypeError(f"{name} is not a numeric constant")
    try:
        return name, float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-o", "--output", help="Markdown output (default: print only)")
    p.add_argument("--records", help="comma-separated names (default: every bidmc and marsh "
                   "record)")
    p.add_argument("--span", type=float, default=None, help="analysis span s (default: the "
                   "stream's)")
    p.add_argument("--hop", type=float, default=None, help="update period s")
    p.add_argument("--delay", type=float, default=None, help="emission delay s")
    p.add_argument("--reselect", type=float, default=None, help="sigma2 reselection period s")
    p.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "edr-stream-accuracy"),
                   help="folder of the cached offline scores")
    p.add_argument("--set", type=_setting, action="append", default=[], metavar="MODULE.NAME=X",
                   help="set a numeric constant of an edr.stream module for this run, e.g. "
                        "edr.stream.beats.POLARITY_S=40 (repeatable)")
    args = p.parse_args(argv)
    from edr import stream

    for name, value in args.set:
        module, attr = name.rsplit(".", 1)
        setattr(importlib.import_module(module), attr, value)

    args.span = args.span or stream.DEFAULT_SPAN_S
    args.hop = args.hop or stream.DEFAULT_HOP_S
    args.delay = stream.DEFAULT_DELAY_S if args.delay is None else args.delay
    args.reselect = args.reselect or stream.RESELECT_S
    root = Path(os.environ.get("EDR_DATA_DIR", "data"))
    paths = {p.stem: p for db in DATABASES for p in sorted((root / db).glob("*.hea"))
             if not p.stem.endswith("n")}
    if not paths:
        print(f"no records under {root} (set EDR_DATA_DIR)", file=sys.stderr)
        return 2
    names = args.records.split(",") if args.records else list(paths)
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    rows = []
    for name in names:
        r = one(paths[name], args, cache)
        rows.append(r)
        print(f"{r['record']}: MSC off {r['msc_off']:.3f} stream {r['msc_stream']:.3f} | rate err "
              f"off {r['rate_off']:.2f} stream {r['rate_stream']:.2f} | "
              f"{r['duration_s'] / r['cpu_s']:.0f}x real time", flush=True)
    groups = [(db, [r for r in rows if r["record"].startswith("m" if db == "marsh" else db)])
              for db in DATABASES]
    lines = [
        "# Streaming EDR vs the offline default",
        "",
        f"`python scripts/measure_stream_accuracy.py {' '.join(argv or sys.argv[1:])}` — "
        f"span {args.span:g} s, hop {args.hop:g} s, delay {args.delay:g} s, σ² reselected "
        f"every {args.reselect:g} s; every lead, method kpca_fusion (the defaults of both); "
        "stream fed in 1 s blocks; scored by `edr.scoring.score` (rate error over the "
        "rate windows with a rate). Median (25th, 75th) over records; speed = record duration / "
        "stream CPU time (one core).",
        "",
        "| records | MSC offline | MSC stream | ratio (≥ 0.9) | rate err offline (bpm) | "
        "rate err stream | difference (≤ +0.1) | rate coverage off / stream | speed (× real "
        "time) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for db, rs in groups:
        if rs:
            lines += _table(rs, db)
    lines += _table(rows, "all")
    lines += ["", "| record | leads | MSC off | MSC stream | rate err off | rate err stream | "
              "coverage off | coverage stream | σ² selections |", "|---|---|---|---|---|---|---|"
              "---|---|"]
    lines += [f"| {r['record']} | {r['leads']} | {r['msc_off']:.3f} | {r['msc_stream']:.3f} | "
              f"{r['rate_off']:.2f} | {r['rate_stream']:.2f} | {r['cov_off']:.2f} | "
              f"{r['cov_stream']:.2f} | {r['selections']} |" for r in rows]
    lines += _largest(rows)
    return write_markdown(args.output, lines)


if __name__ == "__main__":
    sys.exit(main())
