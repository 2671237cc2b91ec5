"""De-noise an image by kernel PCA of its overlapping patches ("multipatch").

Kim, Franz & Schölkopf (2005), as in Schraudolph et al. (2006, Sec. 5.2):
cut the noisy image into overlapping square windows, de-noise each window as a
vector by kernel PCA pre-images, average the overlaps back. The image here is
synthetic (stripes and a disc); pass ``--image file.npy`` for your own
grey-scale array.

    python examples/denoise_image_patches.py [--size 48] [--patch 6] [--step 2]
"""

from __future__ import annotations

import argparse

import numpy as np

from kpca import KernelPCA
from kpca.denoising import extract_patches, reassemble_patches, snr_db


def synthetic_image(size):
    y, x = np.mgrid[0:size, 0:size] / size
    img = 0.5 + 0.3 * np.sin(2 * np.pi * 3 * x)
    img[(x - 0.6) ** 2 + (y - 0.4) ** 2 < 0.05] = 1.0
    return img


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", help=".npy file holding a 2-D grey-scale array")
    parser.add_argument("--size", type=int, default=48, help="size of the synthetic image")
    parser.add_argument("--patch", type=int, default=6)
    parser.add_argument("--step", type=int, default=2)
    parser.add_argument("--noise", type=float, default=0.1)
    parser.add_argument("--n-components", type=int, default=8)
    args = parser.parse_args(argv)

    clean = np.load(args.image) if args.image else synthetic_image(args.size)
    rng = np.random.default_rng(0)
    noisy = clean + args.noise * rng.standard_normal(clean.shape)
    patches = extract_patches(noisy, args.patch, args.step)
    # kPCA on the patches; the width from the rule of thumb (Eq. (20) of Varon et al. 2015)
    model = KernelPCA(args.n_components, "rule-of-thumb", random_state=0).fit(patches)
    restored = reassemble_patches(model.denoise(patches), clean.shape, args.patch, args.step)
    print(f"{patches.shape[0]} patches of {args.patch}x{args.patch}, sigma2 = {model.sigma2_:.4g}")
    print(f"SNR noisy     : {snr_db(clean, noisy):5.2f} dB")
    print(f"SNR de-noised : {snr_db(clean, restored):5.2f} dB")
    return snr_db(clean, restored) > snr_db(clean, noisy)


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
