"""Tests of kpca.denoising: end-to-end de-noising, linear baseline, patch helpers."""

from __future__ import annotations

import numpy as np
import pytest

from kpca.datasets import semicircles
from kpca.denoising import (
    denoise,
    extract_patches,
    linear_pca_denoise,
    mse,
    reassemble_patches,
    snr_db,
)
from kpca.model import KernelPCA


@pytest.fixture(scope="module")
def toy():
    noisy, clean = semicircles(200, snr_db=10.0, random_state=1)
    return noisy, clean


def test_patches_round_trip_exactly():
    img = np.random.default_rng(0).random((23, 30))
    for p, s in [(11, 2), (5, 3), (4, 4), (1, 1)]:
        P = extract_patches(img, p, s)
        assert P.shape[1] == p * p
        np.testing.assert_allclose(reassemble_patches(P, img.shape, p, s), img, atol=1e-15)


def test_patch_grid_and_averaging():
    img = np.arange(36.0).reshape(6, 6)
    P = extract_patches(img, 3, 2)  # origins 0, 2, 3 on each axis (last flush with edge)
    assert P.shape == (9, 9)
    np.testing.assert_array_equal(P[0].reshape(3, 3), img[:3, :3])
    np.testing.assert_array_equal(P[-1].reshape(3, 3), img[3:, 3:])
    # Overlaps are averaged: constant patches c_k give pixel = mean of covering c_k.
    vals = np.arange(9.0)
    out = reassemble_patches(np.repeat(vals[:, None], 9, axis=1), img.shape, 3, 2)
    assert out[0, 0] == 0.0
    assert out[2, 2] == pytest.approx(np.mean([0, 1, 3, 4]))
    assert out[5, 5] == 8.0


def test_patch_bad_input():
    with pytest.raises(ValueError, match="patch_size=9 exceeds"):
        extract_patches(np.zeros((5, 8)), 9, 1)
    with pytest.raises(ValueError, match="step must be an int >= 1; got step=0"):
        extract_patches(np.zeros((5, 8)), 3, 0)
    with pytest.raises(ValueError, match="2-D"):
        extract_patches(np.zeros((5, 8, 3)), 3, 1)
    with pytest.raises(ValueError, match=r"patches must have shape \(4, 9\)"):
        reassemble_patches(np.zeros((3, 9)), (5, 5), 3, 2)


def test_linear_pca_denoise_full_rank_is_identity_and_projects(toy):
    noisy, _ = toy
    np.testing.assert_allclose(linear_pca_denoise(noisy, 2), noisy, atol=1e-12)
    Y = linear_pca_denoise(noisy, 1)
    # The residual is orthogonal to the kept axis and Y lies on a line.
    assert np.linalg.matrix_rank(Y - Y.mean(axis=0), tol=1e-9) == 1


def test_dense_denoise_equals_kernel_pca(toy):
    noisy, _ = toy
    ref = KernelPCA(4, 0.3, random_state=0).fit(noisy).denoise(noisy[:20])
    np.testing.assert_allclose(denoise(noisy[:20], 4, 0.3, fit_on=noisy, random_state=0), ref,
                               atol=1e-10)


@pytest.mark.parametrize(
    "solver, options",
    [("dense", {}), ("fixed-size", {"n_support": 60, "train_on": "all"}), ("icf", {"eta": 1e-2})],
)
def test_kpca_denoising_beats_noise_and_linear_pca(toy, solver, options):
    noisy, clean = toy
    # Semicircles, N=200, SNR 10 dB: dense kPCA (8 components, sigma2=0.2)
    # removes ~30 % of the noise power (measured 0.68); linear PCA cannot.
    out = denoise(noisy, 8, 0.2, solver=solver, random_state=0, **options)
    assert mse(clean, out) < 0.8 * mse(clean, noisy)
    assert mse(clean, out) < mse(clean, linear_pca_denoise(noisy, 1))
    assert snr_db(clean, out) > snr_db(clean, noisy) + 1.0


def test_denoise_bad_input(toy):
    noisy, _ = toy
    with pytest.raises(ValueError, match=r"solver must be one of \['dense'"):
        denoise(noisy, 2, 0.3, solver="svd")
    with pytest.raises(ValueError, match="fit_on has 3 features"):
        denoise(noisy, 2, 0.3, fit_on=np.zeros((10, 3)))
    with pytest.raises(ValueError, match="n_components must be <= n_samples=2"):
        linear_pca_denoise(noisy, 3)
