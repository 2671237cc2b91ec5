"""Cost and agreement of the MDD selection's shortcuts on the default's beat matrices.

For every (window, lead) beat matrix of the chosen records (the robust QRS matrix of the
default extraction, ``Segment.beat_matrix``), σ² is selected as ``kpca_fusion`` does it
(``n_components=3``, seed 0) by the paper-exact MDD (q = 100 over the 31-value grid) and by
each combination of the shortcuts of :mod:`kpca.selection._adaptive`: the sequential stop
(batches of ``BATCH`` draws, capped at 100), the coarse-to-fine search, both (the default
``mdd-fast``), both with at most 250 or 175 training points instead of half the beats (a
direction measured and not taken), and both with a first batch of 10. Printed per strategy:
single-threaded CPU seconds, draws and widths evaluated, and how many selections are identical
to / within one grid step of the exact one. Also: how far the exact criterion's maximum stands
above every width more than one step away, in standard deviations of one noise replicate's
summed leading eigenvalues (what lets a few replicates decide).

Usage: ``EDR_DATA_DIR=... python scripts/measure_fast_selection.py --out
scripts/output/measure_fast_selection.md``
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace

import numpy as np
from _shared import write_markdown

from edr.io import read_record
from edr.methods import FUSION_COMPONENTS
from edr.options import EDROptions
from edr.window_analysis import _segment
from edr.windows import output_grid, record_leads, window_plan

RECORDS = ("bidmc/bidmc01", "bidmc/bidmc04", "bidmc/bidmc11", "bidmc/bidmc20", "bidmc/bidmc38",
           "marsh/m0046", "marsh/m1707", "marsh/m8000")


def beat_matrices(root: str, names) -> list[tuple[str, float, str, np.ndarray]]:
    """``(record, window start, lead, X)`` of every window and lead of the default extraction."""
    out = []
    for name in names:
        rec = read_record(os.path.join(root, name + ".dat"))
        opts = EDROptions()
        if len(rec.leads or {}) > 1:
            opts = replace(opts, lead="fuse")
        leads = record_leads(rec, opts)
        n = next(iter(leads.values())).size
        grid = output_grid(n / rec.fs, opts.fs_out)
        for w in window_plan(n / rec.fs, opts):
            i0, i1 = int(np.floor(w.start_s * rec.fs)), min(int(np.ceil(w.end_s * rec.fs)), n)
            tg = grid[(grid >= i0 / rec.fs) & (grid <= (i1 - 1) / rec.fs)]
            for lead, x in leads.items():
                X, _, _ = _segment(x, i0, i1, rec.fs, tg, lead, opts).beat_matrix()
                out.append((name, w.start_s, lead, X))
    return out


def replicate_sd(X, sigma2):
    """Standard deviation over 100 noise replicates of the summed leading eigenvalues at
    ``sigma2``, with the exact selection's split and draws (seed 0)."""
    from kpca.selection._common import check_data, rng_of
    from kpca.selection._null import null_spectra
    from kpca.selection._spectrum import SpectrumPlan
    from kpca.selection.mdd import _n_train, distance_moments, noise_distances_packed, noise_sampler

    X, _ = check_data(X)
    nt = _n_train(0.5, X.shape[0])
    rng = rng_of(0)
    train = np.sort(rng.permutation(X.shape[0])[:nt])
    _, mom = distance_moments(X[train], X, train)
    sampler = noise_sampler(mom)

    def noise_D2(r_):
        d = noise_distances_packed(nt, mom, r_, sampler=sampler)
        return d * d

    null = null_spectra(noise_D2, 100, SpectrumPlan([sigma2], FUSION_COMPONENTS, nt), rng)
    return float(null[:, 0].sum(axis=1).std(ddof=1))


def main(argv=None) -> int:
    import kpca.selection._adaptive as adaptive
    from kpca.selection import select

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="scripts/output/measure_fast_selection.md")
    args = ap.parse_args(argv)
    mats = beat_matrices(os.environ["EDR_DATA_DIR"], RECORDS)

    def run(criterion, cap=None, **options):
        out = []
        for *_, X in mats:
            if cap is not None:  # at most `cap` training points
                options["n_train"] = 0.5 if round(0.5 * len(X)) <= cap else cap
            c0 = time.process_time()
            res = select(X, criterion, n_components=FUSION_COMPONENTS, random_state=0, n_jobs=1,
                         **options)
            out.append((res, time.process_time() - c0))
        return out

    exact = run("mdd")
    rows = [("exact (q = 100, full grid)", exact)]
    rows.append(("sequential stop, full grid", run("mdd", stop="sequential")))
    rows.append(("q = 100, coarse-to-fine", run("mdd", search="coarse-to-fine")))
    rows.append(("both (the default, mdd-fast)", run("mdd-fast")))
    for cap in (250, 175):
        rows.append((f"both, at most {cap} training points", run("mdd-fast", cap=cap)))
    batch = adaptive.BATCH
    adaptive.BATCH = 10
    rows.append(("both, first batch of 10", run("mdd-fast")))
    adaptive.BATCH = batch
    t_exact = sum(t for _, t in exact)
    lines = ["# Cost and agreement of the MDD selection's shortcuts", "",
             f"Command: `python scripts/measure_fast_selection.py --out {args.out}`", "",
             f"{len(mats)} (window, lead) beat matrices of {len(RECORDS)} records "
             f"({', '.join(r.split('/')[1] for r in RECORDS)}), {min(m[3].shape[0] for m in mats)}-"
             f"{max(m[3].shape[0] for m in mats)} beats; `n_components=3`, seed 0, one thread.",
             "", "| strategy | CPU (s) | exact / this | draws (median, max) | widths (median) | "
             "σ² identical | within one step |", "|---|---|---|---|---|---|---|"]
    for label, res in rows:
        t = sum(x for _, x in res)
        steps = np.array([abs(np.log2(r.sigma2 / e.sigma2)) * 3
                          for (r, _), (e, _) in zip(res, exact, strict=True)])
        draws = [r.details["n_draws"] for r, _ in res]
        lines.append(f"| {label} | {t:.2f} | {t_exact / t:.1f} | {np.median(draws):.0f}, "
                     f"{max(draws)} | {np.median([r.grid.size for r, _ in res]):.0f} | "
                     f"{np.mean(steps < 1e-9):.0%} | {np.mean(steps <= 1 + 1e-9):.0%} |")
    lead = []
    for (res, _), (*_, X) in zip(exact, mats, strict=True):
        k = res.index
        far = np.abs(np.arange(res.grid.size) - k) > 1
        lead.append((res.curve[k] - res.curve[far].max()) / replicate_sd(X, res.sigma2))
    lines += ["", "Lead of the exact criterion's maximum over every width more than one grid "
              "step away, in standard deviations of one replicate's summed leading noise "
              f"eigenvalues: median {np.median(lead):.1f}, smallest {np.min(lead):.1f}."]
    return write_markdown(args.out, lines)


if __name__ == "__main__":
    raise SystemExit(main())
