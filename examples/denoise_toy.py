"""De-noise a 2-D toy (two interleaved half circles) with kernel PCA pre-images.

Mika et al. (1999): project the noisy points onto the leading kernel principal
axes and map them back by the fixed-point pre-image. The width sigma2 is
chosen by MDD (Varon et al. 2015) or given.

    python examples/denoise_toy.py [--n 400] [--sigma2 mdd|0.1] [--plot toy.png]
"""

from __future__ import annotations

import argparse

from kpca import KernelPCA
from kpca.datasets import semicircles
from kpca.denoising import linear_pca_denoise, mse


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=400, help="number of points")
    parser.add_argument("--sigma2", default="0.1", help="kernel width or a criterion (mdd, ...)")
    parser.add_argument("--n-components", type=int, default=16)
    parser.add_argument("--plot", help="write a figure to this file (needs matplotlib)")
    args = parser.parse_args(argv)
    sigma2 = args.sigma2 if args.sigma2.isalpha() else float(args.sigma2)

    X, X_clean = semicircles(args.n, noise=0.1, random_state=0)
    model = KernelPCA(args.n_components, sigma2, random_state=0,
                      selection_options={"n_draws": 20} if isinstance(sigma2, str) else None)
    X_hat = model.fit(X).denoise(X)
    print(f"sigma2 = {model.sigma2_:.4g}, n_components = {model.n_components_}")
    print(f"MSE noisy      : {mse(X_clean, X):.5f}")
    print(f"MSE linear PCA : {mse(X_clean, linear_pca_denoise(X, 1)):.5f}")
    print(f"MSE kernel PCA : {mse(X_clean, X_hat):.5f}")
    if args.plot:
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5, 4))
        ax.plot(*X.T, ".", ms=3, color="0.6", label="noisy")
        ax.plot(*X_hat.T, ".", ms=3, label="de-noised")
        ax.legend()
        fig.savefig(args.plot, dpi=100)
        print(f"wrote {args.plot}")
    return mse(X_clean, X_hat) < mse(X_clean, X)


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
