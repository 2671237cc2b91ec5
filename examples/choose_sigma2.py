"""Choose the RBF width sigma2 (and n_components) on your own data.

Reads a CSV file (rows = samples, columns = features, no header; ``--csv``)
or uses a toy, then runs every criterion of :mod:`kpca.selection` and prints
the width and the number of components each one picks.

    python examples/choose_sigma2.py [--csv data.csv] [--n-draws 50]
"""

from __future__ import annotations

import argparse

import numpy as np

from kpca import KernelPCA, select
from kpca.datasets import semicircles


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", help="CSV of samples x features (default: a 2-D toy)")
    parser.add_argument("--n-draws", type=int, default=20, help="MDD noise draws")
    parser.add_argument("--n-permutations", type=int, default=19, help="kPA permutations")
    args = parser.parse_args(argv)

    if args.csv:
        X = np.loadtxt(args.csv, delimiter=",", ndmin=2)
    else:
        X, _ = semicircles(150, noise=0.1, random_state=0)
    print(f"data: {X.shape[0]} samples x {X.shape[1]} features")
    options = {"mdd": {"n_draws": args.n_draws}, "kpa": {"n_permutations": args.n_permutations}}
    for criterion in ("mdd", "kpa", "shannon", "rule-of-thumb"):
        res = select(X, criterion, random_state=0, **options.get(criterion, {}))
        print(f"{criterion:>14}: sigma2 = {res.sigma2:.4g}, n_components = {res.n_components}")
    # the same choice inside an estimator, e.g. for a scikit-learn Pipeline
    model = KernelPCA("auto", "mdd", random_state=0, selection_options=options["mdd"]).fit(X)
    print(f"KernelPCA('auto', 'mdd'): sigma2_ = {model.sigma2_:.4g}, "
          f"n_components_ = {model.n_components_}")
    return True


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
