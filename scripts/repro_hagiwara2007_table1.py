"""Table 1 of Hagiwara (ICONIP 2007): orthogonal shrinkage vs leave-one-out CV.

Set-up of Section 4: target ``h(x) = 5 sinc(8x)`` with ``sinc(t) = sin(t)/t``
(the unnormalised sinc; with ``sin(pi t)/(pi t)`` the tau^2 = 0.05 basis could
not follow the oscillations), inputs uniform on [-1, 1], i.i.d. N(0, 1) noise,
Gaussian basis functions with tau^2 = 0.05 centred on the inputs, test error =
mean squared error against ``h`` on 1000 equally spaced points of [-1, 1],
n = 100 / 200 / 400, 1000 training sets per n. LOOCV picks lambda from
{m 10^j : m = 1, 2, 5; j = -4..3}; CHT, HTU and BHT fix lambda = 1e-4. The
paper reports mean +- (standard deviation / 2).

CPU times are ours (one fit, this machine) and are not comparable in absolute
terms with the paper's Matlab timings; the ratio LOOCV / shrinkage is.

Usage::

    python scripts/repro_hagiwara2007_table1.py [--trials 1000] [--quick] [--seed 0] [--out
    scripts/output]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from kpca.shrinkage import LeaveOneOutRidgeRegression, OrthogonalShrinkageRegression

#: Paper's Table 1: n -> method -> ((test error mean, sd/2), (CPU s mean, sd/2)).
PAPER = {
    100: {"LOOCV": ((0.079, 0.027), (0.079, 0.002)), "CHT": ((0.101, 0.034), (0.013, 0.002)),
          "HTU": ((0.100, 0.034), (0.014, 0.002)), "BHT": ((0.076, 0.027), (0.014, 0.002))},
    200: {"LOOCV": ((0.040, 0.013), (0.533, 0.003)), "CHT": ((0.046, 0.014), (0.080, 0.002)),
          "HTU": ((0.045, 0.014), (0.080, 0.002)), "BHT": ((0.035, 0.011), (0.080, 0.002))},
    400: {"LOOCV": ((0.021, 0.006), (3.657, 0.003)), "CHT": ((0.023, 0.007), (0.523, 0.004)),
          "HTU": ((0.023, 0.007), (0.523, 0.004)), "BHT": ((0.017, 0.005), (0.523, 0.004))},
}
METHODS = ("LOOCV", "CHT", "HTU", "BHT")


def target(x):
    """``5 sinc(8x)`` with ``sinc(t) = sin(t)/t``."""
    return 5.0 * np.sinc(8.0 * x / np.pi)


def make_model(name):
    if name == "LOOCV":
        return LeaveOneOutRidgeRegression(tau2=0.05)
    return OrthogonalShrinkageRegression(name.lower(), tau2=0.05, lam=1e-4)


def run(n, trials, rng):
    x_test = np.linspace(-1.0, 1.0, 1000)
    h_test = target(x_test)
    err = {m: np.empty(trials) for m in METHODS}
    cpu = {m: np.empty(trials) for m in METHODS}
    for t in range(trials):
        x = rng.uniform(-1.0, 1.0, n)
        y = target(x) + rng.standard_normal(n)
        for m in METHODS:
            t0 = time.process_time()
            model = make_model(m).fit(x, y)
            cpu[m][t] = time.process_time() - t0
            err[m][t] = np.mean((model.predict(x_test) - h_test) ** 2)
    return err, cpu


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=1000)
    ap.add_argument("--quick", action="store_true", help="100 trials per n")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("scripts/output"))
    args = ap.parse_args(argv)
    trials = 100 if args.quick else args.trials
    rng = np.random.default_rng(args.seed)
    rows_err, rows_cpu, wins = [], [], []
    for n in (100, 200, 400):
        err, cpu = run(n, trials, rng)
        pe = PAPER[n]
        rows_err.append(f"| {n} | " + " | ".join(
            f"{err[m].mean():.3f} ± {err[m].std() / 2:.3f} ({pe[m][0][0]:.3f} ± {pe[m][0][1]:.3f})"
            for m in METHODS) + " |")
        rows_cpu.append(f"| {n} | " + " | ".join(
            f"{1e3 * cpu[m].mean():.1f} ms ({pe[m][1][0]:.3f} s)" for m in METHODS)
            + f" | {cpu['LOOCV'].mean() / cpu['BHT'].mean():.1f} "
              f"({pe['LOOCV'][1][0] / pe['BHT'][1][0]:.1f}) |")
        wins.append(f"| {n} | {np.mean(err['BHT'] < err['LOOCV']):.2f} | "
                    f"{np.mean(err['CHT'] < err['LOOCV']):.2f} |")
        print(rows_err[-1], flush=True)
    cmd = "python scripts/repro_hagiwara2007_table1.py" + (" --quick" if args.quick else " "
                                                           f"--trials {trials}")
    md = [
        "# Hagiwara (ICONIP 2007) Table 1: orthogonal shrinkage vs LOOCV",
        "",
        f"Command: `{cmd} --seed {args.seed}` ({trials} training sets per n; the paper uses 1000).",
        "Target 5 sinc(8x) (sinc(t) = sin t / t), x ~ U[-1, 1], noise N(0, 1), Gaussian basis",
        "tau^2 = 0.05, lambda = 1e-4 for CHT/HTU/BHT, LOOCV over {1,2,5} x 10^(-4..3).",
        "",
        "## (a) Test error, mean ± sd/2 — ours (paper)",
        "",
        "| n | LOOCV | CHT | HTU | BHT |",
        "|---|---|---|---|---|",
        *rows_err,
        "",
        "## (b) CPU time per fit — ours (paper, Matlab 2.13 GHz Core2); "
        "last column LOOCV/BHT ratio",
        "",
        "| n | LOOCV | CHT | HTU | BHT | LOOCV/BHT |",
        "|---|---|---|---|---|---|",
        *rows_cpu,
        "",
        "Our LOOCV shares one eigendecomposition across its 24 candidates (closed-form LOO",
        "residuals), so its cost over the thresholding methods is far below the paper's 6-7x.",
        "",
        "## Fraction of training sets where the method beats LOOCV",
        "",
        "| n | BHT < LOOCV | CHT < LOOCV |",
        "|---|---|---|",
        *wins,
        "",
    ]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "hagiwara_table1.md").write_text("\n".join(md), encoding="utf-8")
    print(f"wrote {args.out / 'hagiwara_table1.md'}")


if __name__ == "__main__":
    main()
