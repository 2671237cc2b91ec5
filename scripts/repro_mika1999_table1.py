"""Table 1 of Mika et al. (1999), de-noising Gaussians in R^10, and the hypotheses for its gap.

Protocol (Mika et al. 1999, Sec. 4): eleven Gaussian sources in R^10 with
centres drawn uniformly from [-1, 1]^10 and standard deviation sigma in every
component; 100 training and 33 test points per source. Kernel PCA is fitted on
the training set, each test point is projected onto the first n components and
de-noised by the fixed-point pre-image iteration (Eq. (10)) started at the test
point itself. Linear PCA de-noises by projecting onto its first n principal
axes. The score is the mean squared distance of the de-noised test points to
their source centre; the table holds the ratio MSE(linear PCA) / MSE(kPCA)
(> 1: kernel PCA better). Kernel: the paper uses k(x, y) = exp(-||x - y||^2 /
(n_dim c)) with n_dim = 10 and c = 2 sigma^2, i.e. ``sigma2 = 10 sigma^2`` in
the ``kpca`` convention exp(-||x - y||^2 / (2 sigma2)).

Every hypothesis for the gap at small sigma is a variant of that protocol
(:data:`VARIANTS`), run on the same draws; the error measure (summed or per
component, per point or averaged) cancels in the ratio, and the linear-PCA
baseline is fixed by the text (n components of the training set's PCA). The
output lists, per variant, how many of the 45 cells are within a factor of 2
of the paper: for the ratio of MSEs summed over the draws, and for the best
and the median single draw (the paper reports one draw).

Usage::

    python scripts/repro_mika1999_table1.py [--draws 3] [--out scripts/output/mika1999_table1.md]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from kpca import KernelPCA
from kpca.datasets import gaussian_clusters
from kpca.denoising import linear_pca_denoise
from kpca.kernels import rbf_kernel
from kpca.preimage import expansion_coefficients, fixed_point_preimage

SIGMAS = [0.05, 0.1, 0.2, 0.4, 0.8]
N_COMPONENTS = list(range(1, 10))

# Table 1 of Mika et al. (1999): rows sigma, columns n = 1..9.
PAPER = {
    0.05: [2058.42, 1238.36, 846.14, 565.41, 309.64, 170.36, 125.97, 104.40, 92.23],
    0.1: [10.22, 31.32, 21.51, 29.24, 27.66, 23.53, 29.64, 40.07, 63.41],
    0.2: [0.99, 1.12, 1.18, 1.50, 2.11, 2.73, 3.72, 5.09, 6.32],
    0.4: [1.07, 1.26, 1.44, 1.64, 1.91, 2.08, 2.22, 2.34, 2.47],
    0.8: [1.23, 1.39, 1.54, 1.70, 1.80, 1.96, 2.10, 2.25, 2.39],
}

#: key -> (description, kernel width sigma2(sigma), kernel PCA centred, expansion,
#: fixed-point iterations); kpca's kernel is exp(-d^2 / (2 sigma2)).
VARIANTS = {
    "paper": ("as printed: c = 2 sigma^2, k = exp(-d^2/(10 c)), centred, Eq. (10) to convergence",
              lambda s: 10.0 * s**2, True, "centred", 1000),
    "no-mean": ("pre-image of sum_k beta_k V_k without the feature-space mean "
                "(the paper's footnote 1: data assumed centred)",
                lambda s: 10.0 * s**2, True, "raw", 1000),
    "uncentred": ("kernel PCA on the uncentred kernel matrix",
                  lambda s: 10.0 * s**2, False, "raw", 1000),
    "one-step": ("a single fixed-point step from the test point",
                 lambda s: 10.0 * s**2, True, "centred", 1),
    "no-n": ("kernel exp(-d^2/c) without the dimension factor (sigma2 = sigma^2)",
             lambda s: s**2, True, "centred", 1000),
    "2nc": ("kernel exp(-d^2/(2 n c)) (sigma2 = 20 sigma^2)",
            lambda s: 20.0 * s**2, True, "centred", 1000),
    "4nc": ("kernel exp(-d^2/(4 n c)) (sigma2 = 40 sigma^2)",
            lambda s: 40.0 * s**2, True, "centred", 1000),
    "n2": ("dimension factor applied twice: c = 2 n sigma^2 in exp(-d^2/(n c)) "
           "(sigma2 = 100 sigma^2)", lambda s: 100.0 * s**2, True, "centred", 1000),
    "c-sigma": ("c = sigma (the standard deviation, not 2 sigma^2) in exp(-d^2/(n c)) "
                "(sigma2 = 5 sigma)", lambda s: 5.0 * s, True, "centred", 1000),
}


def mse(A, B):
    return float(np.mean(np.sum((A - B) ** 2, axis=1)))


def _uncentred_kpca(X, sigma2, q):
    w, V = np.linalg.eigh(rbf_kernel(X, sigma2=sigma2))
    return V[:, ::-1][:, :q], w[::-1][:q]


def one_draw(sigma, seed, variants, n_train=100, n_test=33):
    """MSE of linear PCA (n = 1..9) and of kPCA per variant on one random draw."""
    rng = np.random.default_rng(seed)
    X_tr, C_tr = gaussian_clusters(n_train, sigma=sigma, random_state=rng)
    X_te, C_te = gaussian_clusters(n_test, sigma=sigma, centers=C_tr[::n_train], random_state=rng)
    q = max(N_COMPONENTS)
    lin = np.array([mse(linear_pca_denoise(X_te, n, fit_on=X_tr), C_te) for n in N_COMPONENTS])
    fits = {}
    kp, conv = {}, 1.0
    for key in variants:
        _, width, centred, expansion, max_iter = VARIANTS[key]
        sigma2 = width(sigma)
        if (sigma2, centred) not in fits:
            if centred:
                model = KernelPCA(q, sigma2).fit(X_tr)
                fits[sigma2, centred] = (model.transform(X_te), model.alphas_, model.eigenvalues_)
            else:
                alphas, lam = _uncentred_kpca(X_tr, sigma2, q)
                beta = rbf_kernel(X_te, X_tr, sigma2=sigma2) @ alphas / np.sqrt(lam)
                fits[sigma2, centred] = (beta, alphas, lam)
        beta, alphas, lam = fits[sigma2, centred]
        errs = []
        for n in N_COMPONENTS:
            if expansion == "centred":
                g = expansion_coefficients(beta[:, :n], alphas[:, :n], lam[:n])
            else:
                g = beta[:, :n] @ (alphas[:, :n] / np.sqrt(lam[:n])).T
            res = fixed_point_preimage(g, X_tr, sigma2, z0=X_te, tol=1e-5, max_iter=max_iter)
            errs.append(mse(res.z, C_te))
            if max_iter > 1:
                conv = min(conv, res.converged.mean())
        kp[key] = np.array(errs)
    return lin, kp, conv


def within2(ratio, paper):
    return np.abs(np.log(ratio / paper)) < np.log(2.0)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=3, help="random draws per sigma")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="write the Markdown report here")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    lin = {s: [] for s in SIGMAS}
    kp = {key: {s: [] for s in SIGMAS} for key in args.variants}
    min_conv = 1.0
    for sigma in SIGMAS:
        for r in range(args.draws):
            lin_r, kp_r, conv = one_draw(sigma, args.seed + 1000 * r, args.variants)
            lin[sigma].append(lin_r)
            for key in args.variants:
                kp[key][sigma].append(kp_r[key])
            min_conv = min(min_conv, conv)
        print(f"sigma={sigma} done ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - t0

    def ratios(key, sigma):
        L, K = np.array(lin[sigma]), np.array(kp[key][sigma])
        return L.sum(0) / K.sum(0), L / K  # pooled (9,), per draw (draws, 9)

    summary = []
    for key in args.variants:
        pooled = sum(within2(ratios(key, s)[0], PAPER[s]).sum() for s in SIGMAS)
        per_draw = np.sum([within2(ratios(key, s)[1], PAPER[s]).sum(1) for s in SIGMAS], axis=0)
        row_ok = " / ".join(str(within2(ratios(key, s)[0], PAPER[s]).sum()) for s in SIGMAS)
        summary.append(f"| `{key}` | {VARIANTS[key][0]} | {pooled}/45 | {row_ok} | "
                       f"{per_draw.max()}/45 | {np.median(per_draw):.0f}/45 |")

    cmd = "python scripts/repro_mika1999_table1.py " + " ".join(
        argv if argv is not None else sys.argv[1:])
    lines = [
        "# Mika et al. (1999), Table 1 — de-noising eleven Gaussians in R^10",
        "",
        "Ratio MSE(linear PCA) / MSE(kernel PCA) of the de-noised test points to their",
        "source centre (> 1: kernel PCA better); rows: the sources' standard deviation sigma,",
        "columns: number of components n.",
        "",
        f"Command: `{cmd.strip()}`  ",
        f"Draws per sigma: {args.draws} (seeds {args.seed} + 1000 r); fixed-point iterations "
        f"converged: {100 * min_conv:.1f} % (worst cell); runtime {elapsed:.0f} s.",
        "",
        "## Hypotheses",
        "",
        "Cells within a factor of 2 of the paper: pooled = ratio of the MSEs summed over the "
        "draws (per row sigma = 0.05 / 0.1 / 0.2 / 0.4 / 0.8), best and median single draw.",
        "",
        "| variant | protocol change | pooled | per row | best draw | median draw |",
        "|---|---|---|---|---|---|",
        *summary,
        "",
    ]
    if "paper" in args.variants:
        lines += [
            "## Scale check at n = 1 (`paper`)",
            "",
            "With c proportional to sigma^2 the kernel matrix and the pre-image iteration are the "
            "same problem at every small sigma (clusters many kernel widths apart), so kPCA's MSE "
            "scales with sigma^2 while linear PCA's is dominated by the centres it cannot "
            "represent. Paper-implied kPCA MSE = our linear-PCA MSE / the paper's ratio.",
            "",
            "| sigma | linear PCA MSE (ours) | kPCA MSE / sigma^2, ours (draw range) | "
            "paper-implied kPCA MSE / sigma^2 |",
            "|---|---|---|---|",
        ]
        for sigma in SIGMAS:
            L = np.array(lin[sigma])[:, 0]
            K = np.array(kp["paper"][sigma])[:, 0] / sigma**2
            lines.append(f"| {sigma} | {L.mean():.3g} | {K.min():.3g}–{K.max():.3g} | "
                         f"{L.mean() / PAPER[sigma][0] / sigma**2:.3g} |")
        lines.append("")
    for key in args.variants:
        lines += [f"## `{key}`: ours (pooled) / paper; spread of the single draws at n = 1", "",
                  "| sigma | " + " | ".join(f"n={n}" for n in N_COMPONENTS)
                  + " | single draws, n=1 |",
                  "|---|" + "---|" * (len(N_COMPONENTS) + 1)]
        for sigma in SIGMAS:
            pooled, per = ratios(key, sigma)
            cells = [f"**{a:.2f}** / {b:.2f}" for a, b in zip(pooled, PAPER[sigma], strict=True)]
            lines.append(f"| {sigma} | " + " | ".join(cells)
                         + f" | {per[:, 0].min():.3g}–{per[:, 0].max():.3g} |")
        lines.append("")
    text = "\n".join(lines)
    print(text)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)


if __name__ == "__main__":
    main()
