"""The stream's breaths (``edr stream --breaths``) against the offline ones, record by record.

Every record under ``EDR_DATA_DIR`` (``bidmc/*.hea`` with an ECG channel, ``marsh/**/*.hea``;
``--records`` to choose) is extracted offline (``extract_edr(rec).breaths``) and replayed through
the stream at full speed with its defaults (:func:`edr.stream.session.run_stream`, every ECG
lead, a breath output). Per record: the breaths of each, the stream's breaths whose polarity is
decided matched one to one to the offline breaths after the first of them
(:func:`edr.evaluate.breaths.match_breaths`, ±1 s or a quarter of the local interval) —
the share of the stream's matched (PPV vs offline) and of the offline's matched (sensitivity vs
offline) —, the median |time difference| of the matched pairs, at their ends of inspiration
(``time_s``) and at their starts (``onset_s``, both columns the offline breath CSV's), the
stream time until the
polarity is decided, and the largest latency (``reported_s - time_s``) of the breaths after the
first 32 s against the bound (:func:`edr.stream.breaths.latency_bound_s`). The stream sees the
ECG only.

Usage::

    EDR_DATA_DIR=/path/to/data nice -n 10 python scripts/measure_stream_breaths.py \\
        --records bidmc01,bidmc22,m0046 -o scripts/output/measure_stream_breaths.md
"""

from __future__ import annotations

import argparse
import glob
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _shared import write_markdown

from edr.evaluate.breaths import match_breaths
from edr.io import read_record
from edr.pipeline import extract_edr
from edr.signal import RATE_WINDOW_S
from edr.stream import DEFAULT_DELAY_S, DEFAULT_HOP_S, StreamingEDR
from edr.stream.breaths import StreamBreaths, latency_bound_s
from edr.stream.session import run_stream
from edr.stream.sinks import StreamOutputs
from edr.stream.sources import open_record


def _records(data: Path, wanted: list[str] | None) -> list[Path]:
    paths = sorted(glob.glob(str(data / "bidmc" / "bidmc[0-9][0-9].hea")))
    paths += sorted(glob.glob(str(data / "marsh" / "**" / "*.hea"), recursive=True))
    out = [Path(p) for p in paths]
    return [p for p in out if wanted is None or p.stem in wanted]


def _stream_breaths(path: Path, folder: Path) -> pd.DataFrame:
    source = open_record(str(path), speed=np.inf)
    engine = StreamingEDR(source.fs, leads=source.names)
    out = folder / f"{path.stem}_breaths.csv"
    with StreamOutputs(folder / f"{path.stem}.csv", breaths=out) as sink:
        breaths = StreamBreaths(engine.fs_out)
        run_stream(source, engine, sink, breaths=breaths)
    return pd.read_csv(out), breaths.n_late


def one(path: Path, folder: Path) -> dict:
    offline = extract_edr(read_record(str(path))).breaths
    t0 = time.perf_counter()
    st, n_late = _stream_breaths(path, folder)
    seconds = time.perf_counter() - t0
    decided = st[st["uncertain_polarity"] == 0]
    row = {"record": path.stem, "offline": len(offline), "stream": len(st),
           "decided_s": float(decided["reported_s"].min()) if len(decided) else np.nan,
           "seconds": seconds, "late": n_late}
    late = st[st["time_s"] >= RATE_WINDOW_S]
    row["latency_max_s"] = float((late["reported_s"] - late["time_s"]).max()) if len(late) \
        else np.nan
    if len(decided):
        t = decided["time_s"].to_numpy()
        ref = offline.time[offline.time >= t[0] - 0.5]
        ri, di = match_breaths(t, ref)
        onsets = decided["onset_s"].to_numpy()[di] - offline.onset[offline.time >= t[0] - 0.5][ri]
        row.update(ppv=di.size / t.size, sens=ri.size / max(ref.size, 1),
                   dt_median_s=float(np.median(np.abs(t[di] - ref[ri]))) if di.size else np.nan,
                   onset_dt_median_s=float(np.nanmedian(np.abs(onsets)))
                   if np.isfinite(onsets).any() else np.nan)
    return row


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--records", help="comma-separated record names (default: all)")
    p.add_argument("-o", "--out", help="Markdown output")
    args = p.parse_args(argv)
    data = Path(os.environ.get("EDR_DATA_DIR", "data"))
    records = _records(data, args.records.split(",") if args.records else None)
    bound = latency_bound_s(DEFAULT_DELAY_S, DEFAULT_HOP_S)
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for path in records:
            rows.append(one(path, Path(d)))
            print(rows[-1], flush=True)
    lines = [f"# Stream breaths vs offline ({len(rows)} records)", "",
             f"Latency bound {bound:g} s (after the first {RATE_WINDOW_S:g} s). Command: "
             "`python scripts/measure_stream_breaths.py"
             + (f" --records {args.records}" if args.records else "") + "`", "",
             "| record | offline | stream | polarity decided at (s) | PPV vs offline | "
             "sensitivity vs offline | median \\|dt\\| (s) | median \\|dt\\| of the onsets (s) | "
             "max latency (s) | found late, not reported | stream s |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['record']} | {r['offline']} | {r['stream']} | {r['decided_s']:.0f} | "
                     f"{r.get('ppv', np.nan):.3f} | {r.get('sens', np.nan):.3f} | "
                     f"{r.get('dt_median_s', np.nan):.3f} | "
                     f"{r.get('onset_dt_median_s', np.nan):.3f} | {r['latency_max_s']:.1f} | "
                     f"{r['late']} | {r['seconds']:.1f} |")
    ppv = [r.get("ppv", np.nan) for r in rows]
    sens = [r.get("sens", np.nan) for r in rows]
    dt = [r.get("dt_median_s", np.nan) for r in rows]
    onset_dt = [r.get("onset_dt_median_s", np.nan) for r in rows]
    lines += ["", f"Median over records: PPV {np.nanmedian(ppv):.3f}, sensitivity "
              f"{np.nanmedian(sens):.3f}; median |dt| {np.nanmedian(dt):.3f} s at the ends, "
              f"{np.nanmedian(onset_dt):.3f} s at the onsets; largest latency "
              f"{np.nanmax([r['latency_max_s'] for r in rows]):.1f} s (bound {bound:g} s)."]
    return write_markdown(args.out, lines)


if __name__ == "__main__":
    raise SystemExit(main())
