"""Reproduce the large-scale toy experiments of Varon, Alzate & Suykens (2015), Sec. VI-A.

Toys (SNR = 10, read as 10 dB = power ratio 10, :mod:`kpca.datasets`):
two semicircles (N = 500, 2-D), square (N = 2000, 2-D), two rings (N = 3000,
3-D). Splits as in the text: semicircles — 50 support vectors, N_v = 250,
test = the other 200 points; square and rings — 50 support vectors, N_v =
1000, test = the rest. The test points are set aside first; the model only
sees the remaining pool.

Methods (Fig. 8):

* ``FS2 + MDD`` — :class:`~kpca.largescale.FixedSizeKernelPCA` with 50 FS2
  support vectors as training set (Sec. VI-A), MDD on support vectors +
  validation set for (sigma2, n_c);
* ``FS2(all) + MDD`` — the same support vectors and MDD choice, but the
  principal axes from the Nyström features of the whole pool
  (``train_on="all"``);
* ``ICF + MDD`` — :class:`~kpca.largescale.IncompleteCholeskyKernelPCA`,
  eta = 1e-2, sigma2 from the rule of thumb (Eq. (20)), n_c by MDD with the
  pivots as training set (N_v capped at the points not used as pivots): the
  Q eigenvalues of Eq. (19) against the spectrum of Q x Q noise matrices;
* ``ICF, n_c of FS2+MDD`` — the same factorisation with the number of
  components chosen by FS2 + MDD (isolates the solver from the n_c choice);
* ``ICF + MDD, paper's split`` — ICF + MDD on the whole data set, validation
  and test drawn from the N - Q non-pivots (Sec. V-2), so its test set is
  its own.

A second section shows, for the first seed, the spectra and the n_c of the
other readings of ICF + MDD (pivot kernel, rescaled Eq. (19), dense MDD at
the same width) and the ICF test MSE as a function of n_c.

MSE = mean over test points and coordinates of (denoised - clean)^2.
Writes ``scripts/output/varon2015_largescale.md`` and ``.png``.

Run: ``MPLBACKEND=Agg OPENBLAS_NUM_THREADS=1 python scripts/repro_varon2015_largescale.py
[--seeds 0 1 2]`` (about 5 min on one core).
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

from kpca.datasets import semicircles, square, two_rings
from kpca.denoising import mse
from kpca.largescale import FixedSizeKernelPCA, IncompleteCholeskyKernelPCA

OUT = Path(__file__).resolve().parent / "output"
TOYS = {
    "semicircles": (lambda rs: semicircles(500, snr_db=10.0, random_state=rs), 250, 200),
    "square": (lambda rs: square(2000, snr_db=10.0, random_state=rs), 1000, 950),
    "rings": (lambda rs: two_rings(3000, snr_db=10.0, random_state=rs), 1000, 1950),
}
METHODS = ["noisy", "FS2 + MDD", "FS2(all) + MDD", "ICF + MDD", "ICF, n_c of FS2+MDD"]
PAPER_SPLIT = "ICF + MDD, paper's split*"
# What the paper's text states per (toy, method); Table I's numbers (MSE and the
# square / rings model parameters) are not in our text copy.
PAPER = {
    ("semicircles", "FS2 + MDD"): "sigma2=2.19, n_c=9 (50 SVs, N_v=250, test 200)",
    ("semicircles", PAPER_SPLIT): "sigma2=1.13 (Eq. 20), n_c=24, Q=70, N_v=250",
    ("square", "FS2 + MDD"): "50 SVs, N_v=1000",
    ("square", PAPER_SPLIT): "sigma2 Eq. 20, Q=98, N_v=1000",
    ("rings", "FS2 + MDD"): "50 SVs, N_v=1000",
    ("rings", PAPER_SPLIT): "sigma2 Eq. 20, Q=493, N_v=1000",
}
N_C_CURVE = (1, 3, 5, 9, 15, 25, 40, 60)


def run(name, seed):
    make, n_val, n_test = TOYS[name]
    noisy, clean = make(seed)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(noisy))
    test, pool = perm[:n_test], perm[n_test:]
    Xp = noisy[pool]
    res = {"noisy": (mse(clean[test], noisy[test]), None, None, None, 0.0, noisy[test])}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MDD fallbacks are recorded in selection_.details
        t0 = time.perf_counter()
        fs = FixedSizeKernelPCA("auto", "mdd", n_support=50, n_validation=n_val,
                                random_state=seed).fit(Xp)
        t_fs = time.perf_counter() - t0
        Z = fs.denoise(noisy[test])
        res["FS2 + MDD"] = (mse(clean[test], Z), fs.sigma2_, fs.n_components_, 50, t_fs, Z)
        t0 = time.perf_counter()
        fa = FixedSizeKernelPCA(fs.n_components_, fs.sigma2_, n_support=50, train_on="all",
                                support_sigma2=fs.sigma2_, random_state=seed).fit(Xp)
        Z = fa.denoise(noisy[test])
        res["FS2(all) + MDD"] = (mse(clean[test], Z), fa.sigma2_, fa.n_components_, 50,
                                 t_fs + time.perf_counter() - t0, Z)
        t0 = time.perf_counter()
        icf = IncompleteCholeskyKernelPCA("auto", "rule-of-thumb", eta=1e-2, n_validation=n_val,
                                          random_state=seed).fit(Xp)
        t_icf = time.perf_counter() - t0
        Z = icf.denoise(noisy[test])
        res["ICF + MDD"] = (mse(clean[test], Z), icf.sigma2_, icf.n_components_,
                            icf.pivots_.size, t_icf, Z)
        t0 = time.perf_counter()
        icf_n = IncompleteCholeskyKernelPCA(fs.n_components_, icf.sigma2_, eta=1e-2).fit(Xp)
        Z = icf_n.denoise(noisy[test])
        res["ICF, n_c of FS2+MDD"] = (mse(clean[test], Z), icf_n.sigma2_, icf_n.n_components_,
                                      icf_n.pivots_.size, time.perf_counter() - t0, Z)
        # The paper's split (Sec. V-2): ICF on the whole data set, validation and test
        # drawn from the N - Q non-pivots. Its test set differs from the other rows'.
        t0 = time.perf_counter()
        whole = IncompleteCholeskyKernelPCA("auto", "rule-of-thumb", eta=1e-2,
                                            n_validation=n_val, random_state=seed).fit(noisy)
        t_whole = time.perf_counter() - t0
        own = np.setdiff1d(np.setdiff1d(np.arange(len(noisy)), whole.pivots_), whole.validation_)
        own = np.sort(rng.choice(own, size=min(n_test, own.size), replace=False))
        res[PAPER_SPLIT] = (mse(clean[own], whole.denoise(noisy[own])), whole.sigma2_,
                            whole.n_components_, whole.pivots_.size, t_whole, None)
    return res, clean[test], (noisy, clean, test, pool, icf, whole)


def evidence(name, seed, data):
    """Spectra and n_c of the ICF + MDD readings, and the ICF test MSE against n_c.

    Readings (all at the Eq. (20) width, the same pivots, validation set and
    ``Q x Q`` noise spectrum as the fitted model):

    * ``Eq. (19) vs QxQ noise`` — the estimator (paper's reading);
    * ``pivot kernel vs QxQ noise`` — the earlier reading: the centred kernel of
      the ``Q`` pivots as data spectrum;
    * ``Eq. (19) x Q/N vs QxQ noise`` — the Eq. (19) spectrum rescaled to the
      noise matrices' size;
    * ``dense MDD, all N pool points`` — :func:`kpca.selection.select` ("mdd",
      training half / validation half as in Fig. 7) with ``grid=[sigma2]``;
    * ``Eq. (19) vs QxQ noise, ICF on all points`` — the paper's split (ICF on
      the whole data set, test points among the non-pivots), also with the
      kernel ``exp(-r^2 / sigma2)`` at the Eq. (20) value (LS-SVMlab's RBF
      convention, which the paper's MATLAB code may have used).
    """
    from kpca.largescale import mdd_on_split
    from kpca.selection import select

    noisy, clean, test, pool, icf, whole = data
    Xp = noisy[pool]
    N, Q, s2 = Xp.shape[0], icf.pivots_.size, icf.sigma2_
    sel = icf.selection_
    lam19, tau = sel.data_spectra[0], sel.noise_spectra[0]
    val = Xp[icf.validation_]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        piv = mdd_on_split(icf.basis_, val, grid=[s2], random_state=seed)
        scaled = mdd_on_split(icf.basis_, val, grid=[s2], random_state=seed,
                              data_spectra=lam19 * Q / N)
        dense = select(Xp, "mdd", n_components=None, grid=[s2], random_state=seed,
                       n_eigenvalues=60, n_jobs=1)
        # The paper's split with the kernel exp(-r^2 / sigma2) (LS-SVMlab's RBF
        # convention) instead of Eq. (12)'s exp(-r^2 / (2 sigma2)): our width x 2.
        wide = IncompleteCholeskyKernelPCA("auto", 2.0 * whole.sigma2_, eta=1e-2,
                                           n_validation=TOYS[name][1], random_state=seed)
        wide.fit(noisy)
    k = 6
    fmt = lambda v: ", ".join(f"{x:.3g}" for x in v[:k])  # noqa: E731
    out = [
        f"**{name}, seed {seed}**: pool N = {N}, Q = {Q} pivots, sigma2 = {s2:.3g} (Eq. (20)), "
        f"N_v = {val.shape[0]}.",
        "",
        "| spectrum (leading 6) | values |",
        "|---|---|",
        f"| Eq. (19), ICF of the N x N kernel | {fmt(lam19)} |",
        f"| centred pivot kernel (Q x Q) | {fmt(piv.data_spectra[0])} |",
        f"| Eq. (19) x Q/N | {fmt(lam19 * Q / N)} |",
        f"| noise, 95th pct of 100 Q x Q draws | {fmt(tau)} |",
        f"| dense: training half's kernel | {fmt(dense.data_spectra[0])} |",
        f"| dense: noise (training-half size) | {fmt(dense.noise_spectra[0])} |",
        "",
        "| reading | n_c by Eq. (14) |",
        "|---|---|",
        f"| Eq. (19) vs QxQ noise (estimator) | {sel.n_components} |",
        f"| pivot kernel vs QxQ noise | {piv.n_components} |",
        f"| Eq. (19) x Q/N vs QxQ noise | {scaled.n_components} |",
        f"| dense MDD, all N pool points | {dense.n_components} |",
        f"| Eq. (19) vs QxQ noise, ICF on all {noisy.shape[0]} points (paper's split) "
        f"| {whole.selection_.n_components} (Q = {whole.pivots_.size}) |",
        f"| the same, kernel exp(-r^2 / sigma2) (sigma2 = 2 x Eq. (20) in Eq. (12)'s form) "
        f"| {wide.selection_.n_components} (Q = {wide.pivots_.size}) |",
        f"| paper | {PAPER[(name, PAPER_SPLIT)]} |",
        "",
    ]
    errs = []
    for n_c in sorted(set(N_C_CURVE) | {icf.n_components_}):
        if n_c <= Q:
            m = IncompleteCholeskyKernelPCA(n_c, s2, eta=1e-2).fit(Xp)
            tag = " (ICF+MDD)" if n_c == icf.n_components_ else ""
            errs.append(f"{n_c}{tag}: {mse(clean[test], m.denoise(noisy[test])):.4f}")
    out += [f"ICF test MSE against n_c (noisy {mse(clean[test], noisy[test]):.4f}): "
            + "; ".join(errs), ""]
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = ap.parse_args(argv)
    t_start = time.perf_counter()
    lines = [
        "# Varon et al. (2015) Sec. VI-A toys: large-scale kPCA + MDD, test-set MSE",
        "",
        f"Seeds {args.seeds}. Command: `MPLBACKEND=Agg OPENBLAS_NUM_THREADS=1 python "
        "scripts/repro_varon2015_largescale.py`. Test points set aside first (200 / 950 / "
        "1950); the models see only the pool. MSE = mean over test points and coordinates. "
        "(sigma2, n_c[, Q]) per seed; fit time = mean over seeds. Our toys' scale differs from "
        "the paper's (our Eq. (20) gives 0.10-0.14, theirs 1.13 on the semicircles): sigma2 "
        "values are comparable only as ratios to Eq. (20). \\* ICF on the whole data set, "
        "validation and test drawn from the non-pivots as in Sec. V-2 (test set of that size "
        "drawn from the rest; it differs from the other rows' and its points took part in "
        "the factorisation).",
        "",
        "| toy | method | MSE mean ± std | (sigma2, n_c[, Q]) per seed | fit s | paper (text) |",
        "|---|---|---|---|---|---|",
    ]
    shown, ev = {}, []
    for name in TOYS:
        runs = []
        for seed in args.seeds:
            r, clean, data = run(name, seed)
            runs.append(r)
            print(name, seed, {m: round(r[m][0], 5) for m in METHODS}, flush=True)
            if seed == args.seeds[0]:
                shown[name] = (r, clean)
                ev += evidence(name, seed, data)
        for m in METHODS + [PAPER_SPLIT]:
            vals = np.array([r[m][0] for r in runs])
            params = "—"
            if runs[0][m][1] is not None:
                params = " ".join(
                    f"({r[m][1]:.3g}, {r[m][2]}" + (f", {r[m][3]}" if m.startswith("ICF") else "")
                    + ")" for r in runs)
            t = np.mean([r[m][4] for r in runs])
            lines.append(f"| {name} | {m} | {vals.mean():.4f} ± {vals.std():.4f} | {params} "
                         f"| {t:.1f} | {PAPER.get((name, m), '')} |")
    lines += [
        "",
        "## ICF + MDD: which spectrum is compared with the noise",
        "",
        "The estimator compares the Q eigenvalues of Eq. (19) (the centred ICF approximation "
        "of the N x N kernel) with the 95th percentile spectrum of Q x Q noise matrices built "
        "from pivot-to-(pivots ∪ validation) distance moments (see the docstring of "
        "`IncompleteCholeskyKernelPCA`). The alternatives below use the same pivots, "
        "validation set and width (first seed).",
        "",
    ] + ev + [f"Total run time {time.perf_counter() - t_start:.0f} s."]
    OUT.mkdir(exist_ok=True)
    (OUT / "varon2015_largescale.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    _figure(shown, METHODS, OUT / "varon2015_largescale.png")


def _figure(shown, methods, path):
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(3.2 * len(methods), 3.0 * len(shown)))
    for i, (name, (r, clean)) in enumerate(shown.items()):
        for j, m in enumerate(methods):
            three_d = clean.shape[1] == 3
            ax = fig.add_subplot(len(shown), len(methods), i * len(methods) + j + 1,
                                 projection="3d" if three_d else None)
            Z = r[m][5]
            cols = [clean[:, c] for c in range(clean.shape[1])]
            ax.scatter(*cols, s=2, c="0.7")
            ax.scatter(*[Z[:, c] for c in range(Z.shape[1])], s=2, c="k")
            ax.set_title(f"{name}: {m}\nMSE {r[m][0]:.4f}", fontsize=8)
            ax.tick_params(labelsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    main()
