"""Speed of the kpca core against peers measured in the same run.

1. ``KernelPCA`` fit + transform against scikit-learn's ``KernelPCA`` (dense
   and ARPACK solvers) for N in {500, 2000, 5000}.
2. The RBF kernel build (``kpca.kernels.rbf_kernel``, Numba) against the naive
   NumPy formula ``exp(-sum((x - y)^2) / (2 sigma2))`` by broadcasting (in row
   blocks of 250 so the N x N x d temporary fits in memory), against NumPy's
   Gram-matrix formula and against scikit-learn's ``rbf_kernel``, at
   N = 5000, d = 30.
3. Dense (LAPACK, subset) against ARPACK eigensolvers over (N, n_components),
   the measurement behind ``eigen_solver="auto"``.
4. ``KernelPCA`` (``--kpca-solver``, default "auto", the default; the solver it
   chose is printed) fit + transform against the fastest of scikit-learn's dense,
   ARPACK and randomized solvers (``--lanczos-sizes``; dense only for N <= 3000),
   with the largest relative eigenvalue difference to scikit-learn's ARPACK (tol=0).

Timings are the minimum over ``--repeat`` runs, with the contenders
interleaved so that load from other processes hits them alike. Ratios > 1 mean
kpca is faster.

Usage::

    python benchmarks/bench_kpca.py [--repeat 3] [--quick] [--sizes N ...] [--skip fit|rbf|solvers]
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np
import scipy.linalg
import scipy.sparse.linalg

from kpca import KernelPCA
from kpca.kernels import center_kernel, rbf_kernel, sigma2_to_gamma


def interleaved_min(funcs, repeat):
    """Minimum wall time of each function, the runs interleaved round-robin."""
    best = [np.inf] * len(funcs)
    for _ in range(repeat):
        for i, f in enumerate(funcs):
            t = time.perf_counter()
            f()
            best[i] = min(best[i], time.perf_counter() - t)
    return best


def naive_numpy_rbf(X, sigma2, block=250):
    """exp(-||x - y||^2 / (2 sigma2)) by broadcasting differences, row block by block."""
    n = X.shape[0]
    K = np.empty((n, n))
    for s in range(0, n, block):
        diff = X[s : s + block, None, :] - X[None, :, :]
        K[s : s + block] = np.exp(-np.sum(diff**2, axis=2) / (2.0 * sigma2))
    return K


def gram_numpy_rbf(X, sigma2):
    """exp(-(|x|^2 + |y|^2 - 2 x.y) / (2 sigma2)) with one BLAS product."""
    sq = np.einsum("ij,ij->i", X, X)
    D2 = sq[:, None] + sq[None, :] - 2.0 * (X @ X.T)
    np.maximum(D2, 0.0, out=D2)
    return np.exp(-D2 / (2.0 * sigma2))


def bench_fit_transform(sizes, repeat, d=10, n_components=5):
    from sklearn.decomposition import KernelPCA as SkKernelPCA

    print(f"\n## fit(X) + transform(X), d={d}, n_components={n_components}, sigma2=d")
    print("| N | solver | kpca (s) | sklearn (s) | sklearn / kpca |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for N in sizes:
        X = rng.standard_normal((N, d))
        sigma2 = float(d)
        for solver in ("dense", "arpack"):
            ours = KernelPCA(n_components, sigma2, eigen_solver=solver, random_state=0)
            sk = SkKernelPCA(n_components, kernel="rbf", gamma=sigma2_to_gamma(sigma2),
                             eigen_solver=solver, random_state=0)
            t_ours, t_sk = interleaved_min(
                [lambda ours=ours, X=X: ours.fit(X).transform(X),
                 lambda sk=sk, X=X: sk.fit(X).transform(X)], repeat
            )
            print(f"| {N} | {solver} | {t_ours:.3f} | {t_sk:.3f} | {t_sk / t_ours:.2f} |",
                  flush=True)


def bench_rbf(N, d, repeat):
    from sklearn.metrics.pairwise import rbf_kernel as sk_rbf

    print(f"\n## RBF kernel build, N={N}, d={d}")
    X = np.random.default_rng(1).standard_normal((N, d))
    sigma2 = float(d)
    rbf_kernel(X[:10], sigma2=sigma2)  # load the compiled functions
    ref = naive_numpy_rbf(X, sigma2)
    assert np.allclose(rbf_kernel(X, sigma2=sigma2), ref, atol=1e-12)
    names = ["kpca.kernels.rbf_kernel", "naive NumPy (broadcast)", "NumPy Gram formula",
             "sklearn rbf_kernel"]
    times = interleaved_min(
        [lambda: rbf_kernel(X, sigma2=sigma2), lambda: naive_numpy_rbf(X, sigma2),
         lambda: gram_numpy_rbf(X, sigma2), lambda: sk_rbf(X, gamma=sigma2_to_gamma(sigma2))],
        repeat,
    )
    print("| implementation | time (s) | time / kpca |")
    print("|---|---|---|")
    for name, t in zip(names, times, strict=False):
        print(f"| {name} | {t:.3f} | {t / times[0]:.2f} |", flush=True)


def bench_solvers(sizes, ks, repeat, d=10):
    print(f"\n## eigensolvers on the centred kernel (d={d}): dense subset eigh vs ARPACK eigsh")
    print("| N | n_components | dense (s) | arpack (s) | dense / arpack |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(2)
    for N in sizes:
        Kc = center_kernel(rbf_kernel(rng.standard_normal((N, d)), sigma2=float(d)), copy=False)
        for k in ks:
            if k >= N // 2:
                continue
            v0 = rng.uniform(-1, 1, N)
            t_dense, t_arpack = interleaved_min(
                [lambda Kc=Kc, N=N, k=k: scipy.linalg.eigh(Kc, subset_by_index=[N - k, N - 1],
                                                           check_finite=False),
                 lambda Kc=Kc, k=k, v0=v0: scipy.sparse.linalg.eigsh(Kc, k=k, which="LA", v0=v0,
                                                                     tol=0.0)],
                repeat,
            )
            print(f"| {N} | {k} | {t_dense:.3f} | {t_arpack:.3f} | {t_dense / t_arpack:.2f} |",
                  flush=True)


def bench_lanczos(sizes, repeat, solver="auto", d=10, n_components=5):
    from sklearn.decomposition import KernelPCA as SkKernelPCA

    print(f"\n## fit(X) + transform(X), d={d}, n_components={n_components}: kpca "
          f"(eigen_solver={solver!r}) vs sklearn's fastest solver")
    print("| N | kpca solver | kpca (s) | sklearn dense (s) | sklearn arpack (s) | sklearn "
          "randomized (s) | fastest sklearn / kpca | max rel. eigenvalue diff |")
    print("|---|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for N in sizes:
        X = rng.standard_normal((N, d))
        sigma2 = float(d)
        ours = KernelPCA(n_components, sigma2, eigen_solver=solver, random_state=0)
        solvers = ["dense", "arpack", "randomized"] if N <= 3000 else ["arpack", "randomized"]
        sks = {s: SkKernelPCA(n_components, kernel="rbf", gamma=sigma2_to_gamma(sigma2),
                              eigen_solver=s, random_state=0) for s in solvers}
        times = interleaved_min(
            [lambda ours=ours, X=X: ours.fit(X).transform(X)]
            + [lambda sk=sk, X=X: sk.fit(X).transform(X) for sk in sks.values()], repeat
        )
        t_sk = dict(zip(solvers, times[1:], strict=True))
        diff = np.max(np.abs(ours.eigenvalues_ - sks["arpack"].eigenvalues_)
                      / sks["arpack"].eigenvalues_)
        cells = " | ".join(f"{t_sk[s]:.4f}" if s in t_sk else "-"
                           for s in ("dense", "arpack", "randomized"))
        print(f"| {N} | {ours.eigen_solver_} | {times[0]:.4f} | {cells} | "
              f"{min(times[1:]) / times[0]:.2f} | {diff:.1e} |", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timing repeats (minimum is kept)")
    parser.add_argument("--quick", action="store_true",
                        help="N in {500, 2000} only, smaller solver grid")
    parser.add_argument("--skip", nargs="*", default=[],
                        choices=["fit", "rbf", "solvers", "lanczos"])
    parser.add_argument("--sizes", type=int, nargs="+", help="N for the fit section")
    parser.add_argument("--solver-sizes", type=int, nargs="+", help="N for the solver section")
    parser.add_argument("--solver-ks", type=int, nargs="+", default=[1, 5, 20, 60],
                        help="n_components for the solver section")
    parser.add_argument("--lanczos-sizes", type=int, nargs="+", default=[2000, 5000],
                        help="N for the section against sklearn's fastest solver")
    parser.add_argument("--kpca-solver", default="auto", choices=["auto", "lanczos", "arpack",
                                                                   "dense"],
                        help="kpca's eigen_solver in that section")
    args = parser.parse_args(argv)
    print(f"# bench_kpca  ({platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} at start)")
    sizes = args.sizes or ([500, 2000] if args.quick else [500, 2000, 5000])
    if "fit" not in args.skip:
        bench_fit_transform(sizes, args.repeat)
    if "rbf" not in args.skip:
        bench_rbf(2000 if args.quick else 5000, 30, args.repeat)
    if "solvers" not in args.skip:
        solver_sizes = args.solver_sizes or ([500, 1000, 2000] if args.quick else [500,
                                                                                   1000, 2000,
                                                                                   3000])
        bench_solvers(solver_sizes, args.solver_ks, args.repeat)
    if "lanczos" not in args.skip:
        bench_lanczos(args.lanczos_sizes, args.repeat, args.kpca_solver)
    print(f"\nload average {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
