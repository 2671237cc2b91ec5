"""Time table: large-scale kernel PCA (FS2 + Nyström, ICF) against dense kernel PCA.

Data: the noisy two-semicircles toy (:func:`kpca.datasets.semicircles`,
SNR 10 dB) with N points; sigma2 fixed at the rule of thumb (Eq. (20) of
Varon et al. 2015); ``n_components`` leading components.

Timed per N (wall clock, one run each, same process):

* ``dense`` — :class:`kpca.KernelPCA` fit + transform of all N points (the N x N
  kernel, O(N^2) memory: 8 N^2 bytes, 3.2 GB at N = 20 000; the transform holds
  the test kernel and its centred copy, so the peak is about 3 x 8 N^2 bytes).
  Run only where it fits: when ``3 x 8 N^2`` is below 60 % of the memory
  available (``MemAvailable`` of ``/proc/meminfo``) at that moment, and
  ``N <= --dense-max`` if given.
* ``fs2`` — :class:`~kpca.largescale.FixedSizeKernelPCA` (M = 50 support
  vectors, ``train_on="all"``: k-means, Rényi swaps, Nyström features of all
  N points, their PCA) + transform of all N points.
* ``icf`` — :class:`~kpca.largescale.IncompleteCholeskyKernelPCA` (eta = 1e-2)
  fit + transform of all N points.

Accuracy against dense where it ran: the largest relative error of the leading
eigenvalues, and the subspace distance ``||sin Theta||_2`` between the score
vectors (the largest principal angle).

With ``--edr-hours H`` it instead measures, on a simulated H-hour record
(:func:`edr.simulate.simulate_recording`), one FS2 model (``train_on="all"``,
sigma2 by the rule of thumb, 1 component) fitted on the QRS matrix of the whole
record against the windowed dense kPCA of :func:`edr.pipeline.extract_edr`
(rule of thumb and MDD), scored by |r| and MSC against the known respiration
(evaluation protocol, docs/design.md section 5).

A small warm-up fit of each model runs first, so no row includes Numba
compilation. The ratios ``dense/FS2`` and ``dense/ICF`` come from timings of
the same run.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/bench_largescale.py [--sizes 1000 2000 5000
10000 20000] [--dense-max N]`` or ``python benchmarks/bench_largescale.py --edr-hours 2``
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import scipy.linalg

from kpca.datasets import semicircles
from kpca.largescale import FixedSizeKernelPCA, IncompleteCholeskyKernelPCA
from kpca.model import KernelPCA


def _timed(make, X):
    t0 = time.perf_counter()
    model = make().fit(X)
    Z = model.transform(X)
    return time.perf_counter() - t0, model, Z


def _available_bytes():
    """``MemAvailable`` of ``/proc/meminfo`` in bytes (None where it does not exist)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _dense_fits(n, dense_max):
    """True if dense kPCA of ``n`` points should run (memory, then the optional cap)."""
    if dense_max is not None and n > dense_max:
        return False
    avail = _available_bytes()
    return avail is None or 3 * 8 * n * n < 0.6 * avail


def _sin_theta(A, B):
    Qa, _ = np.linalg.qr(A)
    Qb, _ = np.linalg.qr(B)
    s = scipy.linalg.svdvals(Qa.T @ Qb)
    return float(np.sqrt(max(0.0, 1.0 - s.min() ** 2)))


def edr_one_model(hours, supports=(200, 500)):
    """Print one-model FS2 vs windowed dense kPCA on a simulated ``hours``-hour record."""
    from edr.beats import detect
    from edr.modulation import qrs_matrix
    from edr.pipeline import extract_edr
    from edr.scoring import correlation, msc, reference_on_grid
    from edr.signal import bandpass, to_uniform_grid
    from edr.simulate import simulate_recording
    from kpca.selection import rule_of_thumb_sigma2

    rec = simulate_recording(duration_s=3600.0 * hours, fs=250.0, random_state=0)
    t0 = time.perf_counter()
    beats = detect(rec.ecg, rec.fs)
    t_det = time.perf_counter() - t0
    X = qrs_matrix(rec.ecg, rec.fs, beats)[beats.valid]
    print(f"{hours} h simulated record: {X.shape[0]} valid beats, detection {t_det:.1f} s")
    print("| model | seconds | corr | MSC |\n|---|---|---|---|")
    for M in supports:
        t0 = time.perf_counter()
        model = FixedSizeKernelPCA(1, rule_of_thumb_sigma2(X), n_support=M, train_on="all",
                                   random_state=0).fit(X)
        z = model.transform(X)[:, 0]
        secs = time.perf_counter() - t0
        t_grid, x_grid = to_uniform_grid(beats.times[beats.valid], z)
        e = bandpass(x_grid)
        r = bandpass(reference_on_grid(rec.resp, rec.resp_fs, t_grid))
        print(f"| one FS2 model, M={M} (after detection) | {secs:.1f} | {correlation(e, r):.3f} "
              f"| {msc(e, r)[0]:.3f} |", flush=True)
    for crit in ("rule-of-thumb", "mdd"):
        t0 = time.perf_counter()
        res = extract_edr(rec, method="kpca", sigma2=crit, random_state=0)
        secs = time.perf_counter() - t0
        r = bandpass(reference_on_grid(rec.resp, rec.resp_fs, res.time))
        print(f"| windowed dense kPCA, sigma2={crit}, {len(res.windows)} windows (incl. detection) "
              f"| {secs:.1f} | {correlation(res.waveform, r):.3f} | "
               f"{msc(res.waveform, r)[0]:.3f} |",
              flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 5000, 10000, 20000])
    ap.add_argument("--dense-max", type=int, default=None,
                    help="largest N for dense kPCA (default: wherever it fits in memory)")
    ap.add_argument("--n-components", type=int, default=4)
    ap.add_argument("--n-support", type=int, default=50)
    ap.add_argument("--eta", type=float, default=1e-2)
    ap.add_argument("--edr-hours", type=float, default=None)
    args = ap.parse_args(argv)
    if args.edr_hours is not None:
        edr_one_model(args.edr_hours)
        return
    k = args.n_components
    # Warm-up (Numba compilation, k-means, BLAS start-up) outside the table.
    Xw, _ = semicircles(300, snr_db=10.0, random_state=1)
    for make in (lambda: KernelPCA(k, 0.1, random_state=0),
                 lambda: FixedSizeKernelPCA(k, 0.1, n_support=args.n_support, train_on="all",
                                            random_state=0),
                 lambda: IncompleteCholeskyKernelPCA(k, 0.1, eta=args.eta)):
        _timed(make, Xw)
    print(f"load average at start: {os.getloadavg()[0]:.2f}; "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
    print(f"| N | dense s | FS2 (M={args.n_support}) s | ICF (eta={args.eta:g}) s | Q pivots "
          "| dense/FS2 | dense/ICF | FS2 eig rel err | ICF eig rel err | FS2 sin(theta) "
          "| ICF sin(theta) |")
    print("|---" * 11 + "|")
    for n in args.sizes:
        X, _ = semicircles(n, snr_db=10.0, random_state=0)
        sigma2 = 0.1 * X.shape[1] * X.var(axis=0).mean()
        t_fs, fs, Z_fs = _timed(
            lambda sigma2=sigma2: FixedSizeKernelPCA(k, sigma2, n_support=args.n_support,
                                                     train_on="all", random_state=0), X)
        t_icf, icf, Z_icf = _timed(
            lambda sigma2=sigma2: IncompleteCholeskyKernelPCA(k, sigma2, eta=args.eta), X)
        row = [f"{n}"]
        if _dense_fits(n, args.dense_max):
            t_d, dense, Z_d = _timed(lambda sigma2=sigma2: KernelPCA(k, sigma2, random_state=0),
                                     X)
            lam = dense.eigenvalues_
            e_fs = np.max(np.abs(fs.eigenvalues_ - lam) / lam)
            e_icf = np.max(np.abs(icf.eigenvalues_ - lam) / lam)
            row += [f"{t_d:.2f}", f"{t_fs:.2f}", f"{t_icf:.2f}", f"{icf.pivots_.size}",
                    f"{t_d / t_fs:.1f}", f"{t_d / t_icf:.1f}", f"{e_fs:.1e}", f"{e_icf:.1e}",
                    f"{_sin_theta(Z_fs, Z_d):.1e}", f"{_sin_theta(Z_icf, Z_d):.1e}"]
        else:
            row += ["—", f"{t_fs:.2f}", f"{t_icf:.2f}", f"{icf.pivots_.size}"] + ["—"] * 6
        print("| " + " | ".join(row) + " |", flush=True)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
