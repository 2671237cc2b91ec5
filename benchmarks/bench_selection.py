"""Speed of MDD and kPA model selection against the naive formulations, measured in one run.

MDD: q = 100 Monte-Carlo draws, 30 sigma2 values, n_c = 1, N = 700 points (default split:
N_t = 350 training points -> 350 x 350 noise matrices; also N_t = 700 with --train-all).
Naive = for every draw and every sigma2 a full eigendecomposition of the centred noise kernel
(what a direct transcription of §IV does): ``scipy.linalg.eigvalsh`` (eigenvalues only: the
stricter peer, the ratios quoted are against it) and ``scipy.linalg.eigh``
(values and vectors).  The naive runs are timed on a subset of draws and extrapolated linearly to
q = 100 (each draw costs the same); this is printed.  With ``--jobs 1`` both sides run on one
core (CPU-for-CPU ratio); the default ``--jobs 2`` uses the machine's two cores for the fast path
while the naive peer stays single-threaded (2 OpenBLAS threads made it slower, see RESULTS.md).

kPA: N = 400, p = 50 permutations, 3 scales, full spectra (and the paper's k = 30 leading
eigenvalues), against the 92.1 s reported by Jørgensen & Hansen (2012, §III-B, i7 2.67 GHz)
and against a naive run (full ``eigvalsh`` per permutation and scale, timed on a subset).

Run:  python benchmarks/bench_selection.py [--naive-draws 4] [--jobs 2]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import scipy.linalg
from threadpoolctl import threadpool_limits

from kpca.datasets import semicircles
from kpca.kernels import center_kernel, squared_distances
from kpca.selection import rule_of_thumb_sigma2, select
from kpca.selection.mdd import distance_moments, noise_distance_matrix

PAPER_KPA_SECONDS = 92.1


def naive_mdd_seconds(X, grid, n_train, n_draws_timed, seed=0, eig=scipy.linalg.eigvalsh):
    """(wall, CPU) seconds of the naive MDD for ``n_draws_timed`` draws (``eig`` per matrix)."""
    rng = np.random.default_rng(seed)
    train = np.sort(rng.permutation(len(X))[:n_train])
    t0, c0 = time.perf_counter(), time.process_time()
    _, mom = distance_moments(X[train], X, train)
    for child in rng.spawn(n_draws_timed):
        R2 = noise_distance_matrix(n_train, mom, child) ** 2
        for s in grid:
            eig(center_kernel(np.exp(-R2 / (2 * s))))
    return time.perf_counter() - t0, time.process_time() - c0


def naive_kpa_seconds(X, grid, n_perm_timed, seed=0):
    """(wall, CPU) seconds of the naive kPA for ``n_perm_timed`` permutations."""
    rng = np.random.default_rng(seed)
    t0, c0 = time.perf_counter(), time.process_time()
    for child in rng.spawn(n_perm_timed):
        D2 = squared_distances(child.permuted(X, axis=0))
        for s in grid:
            scipy.linalg.eigvalsh(center_kernel(np.exp(-D2 / (2 * s))))
    return time.perf_counter() - t0, time.process_time() - c0


def best_of(f, repeat):
    """Best-of-``repeat`` ``(wall, cpu)`` seconds (CPU = ``time.process_time``, all threads)."""
    times = []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = f()
        times.append((time.perf_counter() - t0, time.process_time() - c0))
    return min(times), out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--naive-draws", type=int, default=4,
                    help="draws/permutations timed for the naive runs")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    print(f"cores={os.cpu_count()} load average={os.getloadavg()[0]:.1f} (1 min) jobs={args.jobs} "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')} (selection pins "
          "BLAS to 1 thread and runs draws in jobs threads; the naive runs use 1 BLAS thread)")

    X, _ = semicircles(700, snr_db=10, random_state=0)
    grid = rule_of_thumb_sigma2(X) * 2.0 ** (np.arange(-15, 15) / 3)  # 30 values
    select(X[:60], "mdd", n_components=1, grid=grid[:4], random_state=0, n_draws=2)  # JIT warm-up
    for n_train, label in ((0.5, "N=700, N_t=350 (default split)"),
                           (1.0, "N=700, N_t=700 (no validation)")):
        nt = int(round(n_train * 700))
        (fast, fast_cpu), res = best_of(
            lambda n_train=n_train: select(X, "mdd", n_components=1, grid=grid, random_state=0,
                                           n_draws=100, n_train=n_train, n_jobs=args.jobs),
            args.repeat)
        with threadpool_limits(limits=1, user_api="blas"):
            t_sub, c_sub = naive_mdd_seconds(X, grid, nt, args.naive_draws)
            t_eigh, _ = naive_mdd_seconds(X, grid, nt, args.naive_draws, eig=scipy.linalg.eigh)
        naive, naive_cpu = t_sub * 100 / args.naive_draws, c_sub * 100 / args.naive_draws
        naive_eigh = t_eigh * 100 / args.naive_draws
        print(f"MDD q=100, 30 sigma2, n_c=1, {label}: fast {fast:.2f} s wall / {fast_cpu:.2f} s "
              f"CPU | naive eigvalsh {naive:.1f} s wall / {naive_cpu:.1f} s CPU (timed "
              f"{args.naive_draws} draws: {t_sub:.2f} s, x{100 / args.naive_draws:.0f}) | ratio "
              f"{naive / fast:.0f}x wall, {naive_cpu / fast_cpu:.0f}x CPU | naive eigh "
              f"(values+vectors) {naive_eigh:.1f} s -> {naive_eigh / fast:.0f}x wall | "
              f"sigma2={res.sigma2:.4g}")

    # EDR-sized calls (one per 8-minute record: N ~ 500-900 beats), default 31-value grid
    Xe, _ = semicircles(900, snr_db=10, random_state=0)
    for n in (500, 900):
        (t_w, t_c), res = best_of(lambda n=n: select(Xe[:n], "mdd", n_components=1,
                                                     random_state=0, n_jobs=args.jobs),
                                  args.repeat)
        print(f"MDD EDR-sized, N={n} (N_t={n // 2}), default grid (31 sigma2), q=100, n_c=1: "
              f"{t_w:.2f} s wall / {t_c:.2f} s CPU | sigma2={res.sigma2:.5g}")

    Xk, _ = semicircles(400, n_features=50, noise=0.5, random_state=0)
    scales = np.array([4.0, 4.5, 5.0]) ** 2
    select(Xk[:50], "kpa", grid=scales, random_state=0, n_permutations=2)  # JIT warm-up
    (fast_full, cpu_full), r1 = best_of(lambda: select(Xk, "kpa", grid=scales, random_state=0,
                                                       n_permutations=50,
                                                       n_jobs=args.jobs), args.repeat)
    (fast_k30, cpu_k30), r2 = best_of(lambda: select(Xk, "kpa", grid=scales, random_state=0,
                                                     n_permutations=50,
                                                     n_eigenvalues=30,
                                                     n_jobs=args.jobs), args.repeat)
    with threadpool_limits(limits=1, user_api="blas"):
        t_sub, c_sub = naive_kpa_seconds(Xk, scales, args.naive_draws)
    # 50 permutations + data
    naive, naive_cpu = t_sub * 51 / args.naive_draws, c_sub * 51 / args.naive_draws
    print("kPA N=400, p=50, 3 scales, full spectra (all 400 eigenvalues of each of the 51 x 3 "
          f"centred kernels, LAPACK): {fast_full:.2f} s wall / {cpu_full:.2f} s CPU | paper "
          f"{PAPER_KPA_SECONDS} s -> {PAPER_KPA_SECONDS / fast_full:.0f}x (wall) | naive (same "
          f"machine, extrapolated from {args.naive_draws} permutations) {naive:.1f} s wall / "
          f"{naive_cpu:.1f} s CPU -> {naive / fast_full:.1f}x wall, {naive_cpu / cpu_full:.1f}x "
          f"CPU | q={r1.n_components}")
    print(f"kPA N=400, p=50, 3 scales, k=30 leading eigenvalues (paper's k): {fast_k30:.2f} s wall "
          f"/ {cpu_k30:.2f} s CPU | paper -> {PAPER_KPA_SECONDS / fast_k30:.0f}x | naive -> "
          f"{naive / fast_k30:.1f}x wall | q={r2.n_components}")

if __name__ == "__main__":
    main()
