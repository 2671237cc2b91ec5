"""Why the fused series does not beat the R amplitude on healthy volunteers: the panel's members.

For each shared record (the cached window analyses of ``scripts/accuracy_cache.py``, the default's
centred QRS matrix), the panel of every analysis window is fused, stitched and scored by the
protocol with the default's fusion (weights from local concentration and agreement, alignment on
the heaviest morphology series within 0.5 s) restricted to a subset of the members, or with one
alternative: each member alone; without the heart rate; without the kernel components; with one
or two components; without alignment; squared concentrations; no agreement factor; and weights by
maximum-ratio combining of a one-factor model of the members' band coherence (each member's
coherence with the common signal estimated from the pairwise coherences, weight
``sqrt(g) / (1 - g)``), alone or times the default's weights. Diagnosis only: the reference
scores, the method never sees it.

Usage: ``EDR_DATA_DIR=/path/to/data python scripts/measure_marsh_members.py --out
scripts/output/measure_marsh_members.md``
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import numpy as np
from _shared import write_markdown
from accuracy_cache import DEFAULT_CACHE, load_all
from measure_generalisation_loso import Out, Ref, database, figures
from scipy import signal as sps

from edr.fusion import (
    ALIGN_LAG_S,
    CONSENSUS,
    FUSION_POWER,
    HEART_SERIES,
    LOCAL_S,
    aligned_sum,
    carried_hz,
    panel_weights,
)
from edr.methods import MethodOutput
from edr.rates import RateSpan, judged_rates
from edr.stitch import Stitcher

MEMBERS = ("kpca_1", "kpca_2", "kpca_3", "r_amplitude", "qrs_area", "rsa")


def coherence_factor(panel: dict, band) -> dict:
    """Each member's coherence with a common signal, from a rank-one fit of the members' pairwise
    power-weighted band coherences (diagonal left out)."""
    names = list(panel)
    y = np.array([panel[k] for k in names])
    f, s = sps.csd(y[:, None, :], y[None, :, :], fs=4.0, nperseg=min(y.shape[1], 128))
    s = s[..., (f >= band[0]) & (f <= band[1])]
    p = np.real(np.einsum("iif->if", s))
    c = (np.abs(s) ** 2).sum(-1) / np.maximum(np.einsum("if,jf->ij", p, p), 1e-300)
    np.fill_diagonal(c, 0.0)
    g = np.sqrt(np.maximum(c.sum(1) / max(len(names) - 1, 1), 1e-6))
    for _ in range(50):
        g = np.clip((c * g[None, :]).sum(1) / np.maximum((g ** 2).sum() - g ** 2, 1e-12), 0, 0.99)
    return dict(zip(names, g, strict=True))


def weights(panel: dict, beats, variant: str) -> dict:
    max_hz = carried_hz(beats)
    kw = dict(power=FUSION_POWER, local_s=LOCAL_S, consensus=CONSENSUS, max_hz=max_hz)
    kw.update({"power 2": dict(power=2), "no agreement": dict(consensus=False)}.get(variant, {}))
    base = panel_weights(panel, 4.0, **kw)
    if not variant.startswith("coherence"):
        return base
    g = coherence_factor(panel, (0.1, min(1.0, max_hz or 1.0)))
    w = {k: np.sqrt(g[k]) / (1 - g[k]) * (base[k] if variant.endswith("x default") else 1.0)
         for k in panel}
    total = sum(w.values())
    return {k: v / total for k, v in w.items()}


def keep(name: str, variant: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    if variant in MEMBERS:
        return base == variant
    comps = {"no kernel components": 0, "one component": 1, "two components": 2}.get(variant, 3)
    if base.startswith("kpca_") and int(base[5:]) > comps:
        return False
    return not (variant == "no heart rate" and base in HEART_SERIES)


def run(rec: dict, variant: str) -> dict:
    grid = rec["grid"]
    stitcher, spans = Stitcher(grid, 4.0, True), []
    for w, wa in rec["windows"]["centred"]:
        panel = {k: v for k, v in wa.panel.items() if keep(k, variant)}
        beats = wa.segment.beat_times[wa.segment.valid]
        wts = weights(panel, beats, variant)
        anchors = {k: v for k, v in wts.items()
                   if k.rsplit("/", 1)[-1] not in HEART_SERIES and v > 0} or wts
        lag = 0 if variant == "no alignment" else int(round(ALIGN_LAG_S * 4.0))
        series, _, _ = aligned_sum(panel, wts, max(anchors, key=anchors.get), lag)
        out = MethodOutput(wa.output.times, series, "grid", None, None, {}, panel, wts)
        wa = replace(wa, output=out, series=series, panel=panel, weights=wts)
        stitcher.add(w, wa)
        spans.append(RateSpan.of(w, wa))
    s = stitcher.finish()
    rates = judged_rates(s.waveform, grid, spans, 4.0)
    return figures(Out(grid, s.waveform, rates.rate_bpm, rates.raw_bpm), Ref(rec["reference"]),
                   rec["plan"])


VARIANTS = ("default", *MEMBERS, "no heart rate", "no kernel components", "one component",
            "two components", "no alignment", "power 2", "no agreement", "coherence weights",
            "coherence weights x default")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="scripts/output/measure_marsh_members.md")
    ap.add_argument("--cache-dir", default=DEFAULT_CACHE)
    args = ap.parse_args(argv)
    records = load_all(args.cache_dir)
    res = {v: {n: run(r, v) for n, r in records.items()} for v in VARIANTS}
    ramp = {n: r["ramp"]["msc"] for n, r in records.items()}
    marsh = [n for n in records if database(n) == "MARSH"]
    lines = ["# The panel's members on healthy volunteers (and the ICU records)", "",
             f"Command: `python scripts/measure_marsh_members.py --out {args.out}`", "",
             "| variant | BIDMC MSC / \\|r\\| / above R amplitude | MARSH MSC / \\|r\\| / above R "
             "amplitude | " + " | ".join(marsh) + " |", "|---|---|---|" + "---|" * len(marsh)]
    for v in VARIANTS:
        cells = []
        for db in ("BIDMC", "MARSH"):
            names = [n for n in records if database(n) == db]
            cells.append(f"{np.median([res[v][n]['msc'] for n in names]):.3f} / "
                         f"{np.median([res[v][n]['r'] for n in names]):.3f} / "
                         f"{sum(res[v][n]['msc'] > ramp[n] for n in names)} of {len(names)}")
        lines.append(f"| {v} | {cells[0]} | {cells[1]} | "
                     + " | ".join(f"{res[v][n]['msc']:.2f}" for n in marsh) + " |")
    lines.append("| R amplitude (method) | | | " + " | ".join(f"{ramp[n]:.2f}" for n in marsh)
                 + " |")
    return write_markdown(args.out, lines)


if __name__ == "__main__":
    raise SystemExit(main())
