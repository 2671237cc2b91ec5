"""Measure lead choice and multi-lead fusion on BIDMC by the evaluation protocol (docs/design.md
§5).

For every record in ``$EDR_DATA_DIR/bidmc`` and every ECG lead, a single-lead
``kpca`` EDR (:func:`edr.pipeline.extract_edr`, σ² by ``--criterion``) is
scored against the reference (:func:`edr.scoring.score`). The lead
quality (:func:`edr.leads.assess_leads`) sees the ECG and the single-lead EDRs
only. Then, per record:

* ``II`` — lead II alone (the single-lead default);
* ``oracle`` — the lead with the best MSC (uses the reference: a yardstick,
  not a method);
* ``auto:<rule>`` — the lead :func:`edr.leads.choose_lead` picks when the
  leads are ranked by indicator ``<rule>`` (``concentration``, ``margin``,
  ``template_corr``, ``agreement``);
* ``fuse_b:<rule>`` — :func:`edr.leads.fuse_edrs` of the single-lead EDRs
  weighted by ``<rule>``;
* ``fuse_a`` — multi-lead kernel PCA on the concatenated QRS windows at the
  joint beats (:func:`edr.multilead.joint_beats`, :func:`edr.multilead.multilead_kpca`),
  same σ² criterion. ``--refresh-fuse-a`` recomputes only this variant for the
  stored rows (lead quality as stored) after a change to the multi-lead code.

Output: medians (25th, 75th percentiles) of MSC, |r| and rate error over
records, how often each ``auto`` rule picks the oracle lead, and per-record
rows (JSON lines) for the report.

Usage::

    EDR_DATA_DIR=../shared/data python scripts/measure_leads.py --criterion mdd \
        --jobs 2 -o scripts/output/leads_mdd.txt
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np

RULES = ("concentration", "margin", "template_corr", "agreement")


def _scores(s):
    return {"msc": float(s.msc), "corr": float(s.corr), "rate": float(s.rate_error_bpm)}


def one_record(args):
    path, criterion = args
    from edr.beats import detect
    from edr.errors import SignalError
    from edr.io import read_record
    from edr.leads import assess_leads, choose_lead, fuse_edrs
    from edr.multilead import joint_beats, multilead_kpca
    from edr.pipeline import extract_edr
    from edr.scoring import score
    from edr.signal import bandpass, to_uniform_grid

    t0 = time.perf_counter()
    rec = read_record(path)
    sigma2 = float(criterion) if criterion.replace(".", "", 1).isdigit() else criterion
    beats, edrs, margins, eigs, single = {}, {}, {}, {}, {}
    grid = None
    for name, x in rec.leads.items():
        try:
            beats[name] = detect(x, rec.fs)
            res = extract_edr(rec, "kpca", sigma2=sigma2, lead=name)
        except SignalError as exc:
            single[name] = {"error": str(exc).splitlines()[0]}
            continue
        grid = res.time
        edrs[name] = res.waveform
        q = res.windows[0].quality
        if "margin" in q:
            margins[name] = q["margin"]
        eigs[name] = q.get("eigenvalue")
        single[name] = _scores(score(res, rec))
    quality = assess_leads(rec.leads, rec.fs, beats=beats, edrs=edrs, margins=margins,
                           eigenvalues=eigs)
    out = {"record": rec.name, "leads": single,
           "quality": {n: q.as_dict() for n, q in quality.items()}}
    scored = {n: v for n, v in single.items() if "msc" in v}
    out["II"] = single.get("II")
    out["oracle_lead"] = max(scored, key=lambda n: scored[n]["msc"])
    out["oracle"] = scored[out["oracle_lead"]]
    wave = type("R", (), {})
    for rule in RULES:
        qr = {n: replace(q,
                         score=(float(getattr(q, rule)) if q.usable and np.isfinite(getattr(q,
                                                                                            rule))
                                    else 0.0)) for n, q in quality.items()}
        lead = choose_lead({n: q for n, q in qr.items() if n in edrs})
        out[f"auto:{rule}"] = dict(single[lead], lead=lead)
        wave.time, wave.fs = grid, 4.0
        wave.waveform = fuse_edrs(edrs, qr)
        out[f"fuse_b:{rule}"] = _scores(score(wave, rec))
    try:
        joint, offsets = joint_beats(beats, quality)
        t, v, model = multilead_kpca(rec.leads, rec.fs, joint, offsets, sigma2=sigma2,
                                     random_state=0)
        _, y = to_uniform_grid(t, v, t_start=grid[0], t_end=grid[-1])
        wave.waveform = bandpass(y)
        out["fuse_a"] = dict(_scores(score(wave, rec)), n_leads=len(offsets),
                             n_beats=int(joint.valid.sum()), sigma2=float(model.sigma2_))
    except SignalError as exc:
        out["fuse_a"] = {"error": str(exc).splitlines()[0]}
    out["seconds"] = time.perf_counter() - t0
    return out


def refresh_fuse_a(args):
    """Recompute ``fuse_a`` of a stored row with the current code (lead quality as stored)."""
    path, criterion, row = args
    from edr.beats import detect
    from edr.errors import SignalError
    from edr.io import read_record
    from edr.leads import LeadQuality
    from edr.multilead import joint_beats, multilead_kpca
    from edr.scoring import score
    from edr.signal import bandpass, to_uniform_grid

    rec = read_record(path)
    sigma2 = float(criterion) if criterion.replace(".", "", 1).isdigit() else criterion
    quality = {n: LeadQuality(**{k: (float("nan") if v is None else v) for k, v in d.items()})
               for n, d in row["quality"].items()}
    beats = {n: detect(rec.leads[n], rec.fs) for n, q in quality.items() if q.usable}
    wave = type("R", (), {})
    wave.fs = 4.0
    wave.time = np.arange(int(np.floor(rec.leads[next(iter(rec.leads))].size / rec.fs * 4
                                       + 1e-9))) / 4.0
    try:
        joint, offsets = joint_beats(beats, {n: q for n, q in quality.items() if n in beats})
        t, v, model = multilead_kpca(rec.leads, rec.fs, joint, offsets, sigma2=sigma2,
                                     random_state=0)
        _, y = to_uniform_grid(t, v, t_start=wave.time[0], t_end=wave.time[-1])
        wave.waveform = bandpass(y)
        row["fuse_a"] = dict(_scores(score(wave, rec)), n_leads=len(offsets),
                             n_beats=int(joint.valid.sum()), sigma2=float(model.sigma2_))
    except SignalError as exc:
        row["fuse_a"] = {"error": str(exc).splitlines()[0]}
    return row


def _fmt(vals):
    v = np.asarray([x for x in vals if x is not None and np.isfinite(x)], dtype=float)
    if v.size == 0:
        return "       n/a        "
    q1, med, q3 = np.percentile(v, [25, 50, 75])
    return f"{med:.3f} ({q1:.2f}, {q3:.2f})"


def summarise(rows, argv) -> list[str]:
    keys = ["II", "oracle"] + [f"auto:{r}" for r in RULES] + [f"fuse_b:{r}"
                                                              for r in RULES] + ["fuse_a"]
    lines = [f"# {' '.join(argv)}",
             f"# {len(rows)} BIDMC records; medians (25th, 75th percentile) over records; "
             "oracle = best single lead by MSC (uses the reference: a yardstick only)",
             f"{'variant':<22} {'MSC':>20} {'|r|':>20} {'rate err (bpm)':>20}  oracle-lead hits"]
    for k in keys:
        got = [r[k] for r in rows if r.get(k) and "msc" in r[k]]
        hits = ""
        if k.startswith("auto:"):
            n_hit = sum(r[k]["lead"] == r["oracle_lead"] for r in rows if r.get(k)
                        and "lead" in r[k])
            hits = f"{n_hit}/{len(got)}"
        lines.append(f"{k:<22} {_fmt([g['msc'] for g in got]):>20} "
                     f"{_fmt([g['corr'] for g in got]):>20} {_fmt([g['rate'] for g in got]):>20}  "
                     f"{hits}")
    lines.append("")
    lines.append("# per record: MSC of each lead; oracle lead; lead chosen by each auto rule; "
                 "fuse_a MSC")
    for r in rows:
        per = " ".join(f"{n}={v['msc']:.2f}" if "msc" in v else f"{n}=ERR"
                       for n, v in r["leads"].items())
        picks = " ".join(f"{rule}->{r[f'auto:{rule}']['lead']}" for rule in RULES)
        fa = r["fuse_a"].get("msc", float("nan"))
        lines.append(f"{r['record']}: {per} | oracle {r['oracle_lead']} | {picks} | "
                     f"fuse_a {fa:.2f}")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--criterion", default="mdd", help="sigma2 criterion or value (default mdd)")
    ap.add_argument("--records", default=None, help="comma-separated record names (default: all)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("-o", "--output", default="scripts/output/leads.txt")
    ap.add_argument("--refresh-fuse-a", action="store_true",
                    help="recompute only fuse_a of the stored rows with the current code")
    a = ap.parse_args(argv)
    root = Path(os.environ.get("EDR_DATA_DIR", "")) / "bidmc"
    if not root.is_dir():
        sys.exit(f"set EDR_DATA_DIR to a folder holding bidmc/ (not found: {root})")
    names = a.records.split(",") if a.records else sorted(p.stem for p in root.glob("bidmc??.hea"))
    out = Path(a.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    jsonl = out.with_suffix(".jsonl")
    done = {}
    if jsonl.exists():  # resume: records already measured are kept
        for line in jsonl.read_text().splitlines():
            r = json.loads(line)
            done[r["record"]] = r
    if a.refresh_fuse_a:
        stored = [n for n in names if n in done]
        with ProcessPoolExecutor(a.jobs) as ex:
            for r in ex.map(refresh_fuse_a,
                            [(str(root / n), a.criterion, done[n]) for n in stored]):
                done[r["record"]] = r
        jsonl.write_text("".join(json.dumps(done[n], default=float) + "\n" for n in stored))
    todo = [n for n in names if n not in done]
    with ProcessPoolExecutor(a.jobs) as ex, jsonl.open("a") as fh:
        for r in ex.map(one_record, [(str(root / n), a.criterion) for n in todo]):
            fh.write(json.dumps(r, default=float) + "\n")
            fh.flush()
            done[r["record"]] = r
            print(r["record"], f"{r['seconds']:.0f}s", flush=True)
    rows = [done[n] for n in names if n in done]
    lines = summarise(rows,
                      ["scripts/measure_leads.py"] + (argv if argv is not None else sys.argv[1:]))
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:15]))


if __name__ == "__main__":
    main()
