"""Streaming EDR against the offline pipeline on the BIDMC records.

Every record's ECG (lead II unless ``--lead``) is replayed through
:class:`edr.stream.StreamingEDR` in 1 s blocks; the emitted 4 Hz EDR is scored
exactly like the offline :func:`edr.pipeline.extract_edr` result on the same
lead, with :mod:`edr.evaluate.metrics` (MSC and |r| against the band-passed
reference, rate error against the ann1 breath annotations, 32 s windows every
16 s). The live rates (one per update, trailing 32 s window) are scored too,
against the annotated rate of the same trailing window. CPU seconds are
process time of the stream alone.

Usage::

    EDR_DATA_DIR=/work/shared/data python scripts/measure_stream_accuracy.py \
        -o scripts/output/measure_stream_accuracy.md
    # variants: --tracker kha, --span 240, --hop 6 --delay 3, --records bidmc01,bidmc02
    # trackers side by side (one offline run per record, one table):
    EDR_DATA_DIR=/work/shared/data python scripts/measure_stream_accuracy.py \
        --records bidmc01,bidmc04 --trackers refit,project,kha,kha_smd \
        -o scripts/output/measure_stream_trackers.md

The stream sees the ECG only; the reference enters the scoring alone.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from _shared import median_iqr

from edr.stream import TRACKERS


def _score(t, y, rec):
    from edr.evaluate import metrics
    from edr.signal import bandpass

    ref = bandpass(metrics.reference_on_grid(rec.resp, rec.resp_fs, t), fs=4.0)
    return (metrics.msc(y, ref, fs=4.0)[0], metrics.correlation(y, ref),
            metrics.rate_error(y, fs=4.0, breath_times=rec.breath_times, t_grid=t))


def _live_rate_error(updates, rec):
    from edr.evaluate.metrics import breath_rate_series

    ok = [u for u in updates if np.isfinite(u.rate_bpm)]
    if not ok:
        return float("nan")
    starts = np.array([u.rate_time_s - 32.0 for u in ok])
    ref = breath_rate_series(rec.breath_times, starts)
    err = np.abs(np.array([u.rate_bpm for u in ok]) - ref)
    err = err[np.isfinite(err)]
    return float(np.median(err)) if err.size else float("nan")


def one(path, args, tracker=None, cache=None):
    from edr.io import read_record
    from edr.pipeline import extract_edr
    from edr.stream import StreamingEDR

    cache = {} if cache is None else cache
    if "rec" not in cache:
        cache["rec"] = rec = read_record(path, args.lead)
        cache["off"] = extract_edr(rec, method=args.method, lead=rec.ecg_channel)
    rec, off = cache["rec"], cache["off"]
    s = StreamingEDR(rec.fs, method=args.method, span_s=args.span, hop_s=args.hop,
                     delay_s=args.delay, tracker=tracker)
    c0 = time.process_time()
    ups = []
    block = int(round(rec.fs))
    for i in range(0, rec.ecg.size, block):
        ups += s.push(rec.ecg[i:i + block])
    ups += s.flush()
    cpu = time.process_time() - c0
    t = np.concatenate([u.edr_time for u in ups])
    y = np.concatenate([u.edr for u in ups])
    n = min(t.size, off.time.size)
    so = _score(off.time[:n], off.waveform[:n], rec)
    ss = _score(t[:n], y[:n], rec)
    agree = abs(float(np.corrcoef(y[:n], off.waveform[:n])[0, 1]))
    return {"record": rec.name, "msc_off": so[0], "msc_stream": ss[0], "r_off": so[1],
            "r_stream": ss[1], "rate_off": so[2], "rate_stream": ss[2],
            "rate_live": _live_rate_error(ups, rec), "agree": agree, "cpu_s": cpu,
            "duration_s": rec.ecg.size / rec.fs, "selections": s.n_selections}


def _compare(names, root, args, argv) -> int:
    """One table: each tracker's median MSC, rate error and speed over the records."""
    trackers = [t.strip() for t in args.trackers.split(",") if t.strip()]
    bad = [t for t in trackers if t not in TRACKERS]
    if bad:
        print(f"unknown tracker(s) {bad}; choose from {list(TRACKERS)}", file=sys.stderr)
        return 2
    rows = {t: [] for t in trackers}
    for name in names:
        cache = {}
        for t in trackers:
            r = one(root / name, args, t, cache)
            rows[t].append(r)
            print(f"{r['record']} {t:8s}: MSC off {r['msc_off']:.3f} stream {r['msc_stream']:.3f}"
                  f" | rate err off {r['rate_off']:.2f} stream {r['rate_stream']:.2f} | agree "
                  f"{r['agree']:.2f} | {r['duration_s'] / r['cpu_s']:.0f}x real time", flush=True)
    first = rows[trackers[0]]
    lines = [
        "# Streaming EDR trackers on BIDMC",
        "",
        f"`python scripts/measure_stream_accuracy.py {' '.join(argv or sys.argv[1:])}` — "
        f"{len(names)} records ({', '.join(r['record'] for r in first)}), lead "
        f"{args.lead or 'II'}, method {args.method}, span {args.span:g} s, hop {args.hop:g} s, "
        f"delay {args.delay:g} s; stream fed in 1 s blocks; trackers run one after the other on "
        "each record. Median (25th, 75th) over records; speed = record duration / stream CPU "
        "time.",
        "",
        "| tracker | MSC | rate error (bpm) | live rate error (bpm) | \\|corr\\| with offline "
        "| speed (× real time) |",
        "|---|---|---|---|---|---|",
    ]
    for t in trackers:
        col = {k: np.array([r[k] for r in rows[t]], dtype=float) for k in first[0]
               if k != "record"}
        lines.append(f"| `{t}` | {median_iqr(col['msc_stream'])} | "
                     f"{median_iqr(col['rate_stream'])} | {median_iqr(col['rate_live'])} | "
                     f"{median_iqr(col['agree'])} | {median_iqr(col['duration_s'] / col['cpu_s'])}"
                     " |")
    col = {k: np.array([r[k] for r in first], dtype=float) for k in ("msc_off", "rate_off")}
    lines += [f"| offline `extract_edr` | {median_iqr(col['msc_off'])} | "
              f"{median_iqr(col['rate_off'])} | – | – | – |", "",
              "| record | " + " | ".join(f"MSC {t}" for t in trackers) + " | "
              + " | ".join(f"rate err {t}" for t in trackers) + " |",
              "|---|" + "---|" * (2 * len(trackers))]
    for i, r0 in enumerate(first):
        lines.append(f"| {r0['record']} | "
                     + " | ".join(f"{rows[t][i]['msc_stream']:.3f}" for t in trackers) + " | "
                     + " | ".join(f"{rows[t][i]['rate_stream']:.2f}" for t in trackers) + " |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        Path(args.output).write_text(text)
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-o", "--output", help="Markdown output (default: print only)")
    p.add_argument("--records", help="comma-separated names (default: all bidmc records)")
    p.add_argument("--lead", default=None, help="ECG lead (default: the reader's, lead II)")
    p.add_argument("--method", default="kpca")
    p.add_argument("--tracker", default=None, choices=list(TRACKERS))
    p.add_argument("--trackers", help="comma-separated trackers to compare in one table "
                   f"(of {', '.join(TRACKERS)}); overrides --tracker")
    p.add_argument("--span", type=float, default=None,
                   help="analysis span s (default: the stream's)")
    p.add_argument("--hop", type=float, default=None)
    p.add_argument("--delay", type=float, default=None)
    args = p.parse_args(argv)
    from edr import stream

    args.span = args.span or stream.DEFAULT_SPAN_S
    args.hop = args.hop or stream.DEFAULT_HOP_S
    args.delay = stream.DEFAULT_DELAY_S if args.delay is None else args.delay
    root = Path(os.environ.get("EDR_DATA_DIR", "/work/shared/data")) / "bidmc"
    if not root.is_dir():
        print(f"no BIDMC folder at {root} (set EDR_DATA_DIR)", file=sys.stderr)
        return 2
    names = args.records.split(",") if args.records else sorted(
        p.stem for p in root.glob("bidmc[0-9][0-9].hea"))
    if args.trackers:
        return _compare(names, root, args, argv)
    rows = []
    for name in names:
        r = one(root / name, args, args.tracker)
        rows.append(r)
        print(f"{r['record']}: MSC off {r['msc_off']:.3f} stream {r['msc_stream']:.3f} | rate err "
              f"off {r['rate_off']:.2f} stream {r['rate_stream']:.2f} live {r['rate_live']:.2f} | "
              f"agree {r['agree']:.2f} | {r['duration_s'] / r['cpu_s']:.0f}x real time", flush=True)
    col = {k: np.array([r[k] for r in rows], dtype=float) for k in rows[0] if k != "record"}
    med_off, med_st = np.median(col["msc_off"]), np.median(col["msc_stream"])
    rate_off, rate_st = np.nanmedian(col["rate_off"]), np.nanmedian(col["rate_stream"])
    lines = [
        "# Streaming EDR vs offline on BIDMC",
        "",
        f"`python scripts/measure_stream_accuracy.py {' '.join(argv or sys.argv[1:])}` — "
        f"{len(rows)} records, lead {args.lead or 'II'}, method {args.method}, tracker "
        f"{args.tracker or 'project (default)'}, span {args.span:g} s, hop {args.hop:g} s, "
        f"delay {args.delay:g} s; "
        "stream fed in 1 s blocks. Median (25th, 75th) over records.",
        "",
        "| | offline `extract_edr` | stream |",
        "|---|---|---|",
        f"| MSC | {median_iqr(col['msc_off'])} | {median_iqr(col['msc_stream'])} |",
        f"| \\|r\\| | {median_iqr(col['r_off'])} | {median_iqr(col['r_stream'])} |",
        f"| rate error (bpm), 32 s windows / 16 s step | {median_iqr(col['rate_off'])} | "
        f"{median_iqr(col['rate_stream'])} |",
        "| live rate error (bpm), each update's trailing 32 s | – | "
        f"{median_iqr(col['rate_live'])} |",
        "",
        f"Median MSC ratio stream/offline: {med_st / med_off:.3f} (target >= 0.9); median rate "
        f"error difference: {rate_st - rate_off:+.2f} bpm (target <= +0.3). |corr| of the stream "
        f"waveform with the offline one: {median_iqr(col['agree'])}. Stream speed: "
        f"{median_iqr(col['duration_s'] / col['cpu_s'])} x real time (CPU, while the offline "
        f"runs alternate with it); σ² selections per 8-min record: "
        f"{median_iqr(col['selections'])}.",
        "",
        "| record | MSC off | MSC stream | rate err off | rate err stream | live rate err "
        "| agree |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [f"| {r['record']} | {r['msc_off']:.3f} | {r['msc_stream']:.3f} | "
              f"{r['rate_off']:.2f} | "
              f"{r['rate_stream']:.2f} | {r['rate_live']:.2f} | {r['agree']:.2f} |" for r in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        Path(args.output).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
