"""Row-blocked FS2 / Nyström / transform (``kpca.largescale._blocks``) vs the whole-array forms.

``ROW_BLOCK`` is lowered so that small data span many blocks (and a last
partial one); the reference is the same code with one block, i.e. the
whole-array computation (``N x M`` kernel, SVD of the ``N x r`` features) of
the implementation before the blocking, and SciPy's ``kmeans2`` for the
k-means start. Stated tolerance: support vectors identical, eigenvalues
within ``1e-10`` relative, eigenvectors / axes / scores within ``1e-10``.
"""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest
from scipy.cluster.vq import kmeans2

from kpca.kernels import squared_distances
from kpca.largescale import (
    FixedSizeKernelPCA,
    _blocks,
    fs2_support_vectors,
    kmeans_support_vectors,
    nystrom_kpca,
)
from kpca.largescale.fs2 import _kmeans

SMALL_BLOCK = 37  # divides none of the sizes below: the last block is partial


def _data(n, d, seed=0):
    """Clustered points; d >= 16 takes the BLAS (Gram) path of the kernels."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(6, d))
    return centres[rng.integers(0, 6, n)] + 0.4 * rng.normal(size=(n, d))


def _kmeans_support_reference(X, n_support, seed):
    """The k-means start before the blocking: scipy kmeans2, full M x N argsort."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="One of the clusters is empty")
        centroids, _ = kmeans2(X, n_support, iter=20, minit="++", rng=np.random.default_rng(seed))
    order = np.argsort(squared_distances(centroids, X), axis=1)
    taken = np.zeros(X.shape[0], dtype=bool)
    support = np.empty(n_support, dtype=np.intp)
    for c in range(n_support):
        support[c] = next(i for i in order[c] if not taken[i])
        taken[support[c]] = True
    return support


@pytest.fixture
def small_blocks(monkeypatch):
    monkeypatch.setattr(_blocks, "ROW_BLOCK", SMALL_BLOCK)


def _one_block(monkeypatch, func):
    with monkeypatch.context() as m:
        m.setattr(_blocks, "ROW_BLOCK", 10**9)
        return func()


@pytest.mark.parametrize("d", [3, 20])
@pytest.mark.parametrize("n_support", [5, 40])
def test_kmeans_is_scipy_kmeans2(monkeypatch, d, n_support):
    X = _data(400, d, seed=d)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="One of the clusters is empty")
        ref, _ = kmeans2(X, n_support, iter=20, minit="++", rng=np.random.default_rng(7))
    with monkeypatch.context() as m:
        m.setattr(_blocks, "ROW_BLOCK", SMALL_BLOCK)
        np.testing.assert_array_equal(_kmeans(X, n_support, np.random.default_rng(7)), ref)
        if d < 16:  # exact distances: the same values in any block
            np.testing.assert_array_equal(
                kmeans_support_vectors(X, n_support, random_state=7),
                _kmeans_support_reference(X, n_support, 7),
            )
    # BLAS distances (d >= 16) round differently in other block shapes, which can flip a
    # centroid's choice between two points equidistant in exact arithmetic (the centroid
    # of a two-point cluster; 2 of these 40 centroids with 37-row blocks); with all
    # centroids in one block (the default block for these sizes) the choice is the same.
    np.testing.assert_array_equal(
        kmeans_support_vectors(X, n_support, random_state=7),
        _kmeans_support_reference(X, n_support, 7),
    )


@pytest.mark.parametrize("d", [3, 20])
def test_fs2_support_identical_with_row_blocks(monkeypatch, small_blocks, d):
    X = _data(500, d, seed=1)
    sigma2 = 0.1 * d
    got = fs2_support_vectors(X, 30, sigma2, random_state=3)
    ref = _one_block(monkeypatch, lambda: fs2_support_vectors(X, 30, sigma2, random_state=3))
    np.testing.assert_array_equal(got.initial_support, ref.initial_support)
    np.testing.assert_array_equal(got.support, ref.support)
    np.testing.assert_allclose(got.entropy, ref.entropy, rtol=1e-12)
    assert got.converged == ref.converged
    assert got.entropy.size > 1  # swaps happened, so the row sums were used


@pytest.mark.parametrize("d", [3, 20])
@pytest.mark.parametrize("n_components", [1, 4])
def test_fit_all_blocked_equals_svd_of_whole_features(monkeypatch, small_blocks, d, n_components):
    X = _data(600, d, seed=2)

    def fit():
        model = FixedSizeKernelPCA(
            n_components, 0.2 * d, n_support=50, train_on="all", random_state=0
        )
        return model.fit(X), model.transform(X)

    got, z = fit()
    ref, z_ref = _one_block(monkeypatch, fit)
    np.testing.assert_array_equal(got.support_, ref.support_)
    np.testing.assert_allclose(got.eigenvalues_, ref.eigenvalues_, rtol=1e-10)
    for a, b in (
        (got.alphas_, ref.alphas_),
        (got._W, ref._W),
        (got._f_mean, ref._f_mean),
        (z, z_ref),
    ):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-10)
    # Scores of the training points = sqrt(lambda) * alphas, as for the SVD.
    np.testing.assert_allclose(z, got.alphas_ * np.sqrt(got.eigenvalues_), rtol=0, atol=1e-10)


def test_fit_auto_by_mdd_blocked_equals_one_block(monkeypatch, small_blocks):
    X = _data(500, 20, seed=4)

    def fit():
        return FixedSizeKernelPCA(
            "auto",
            "mdd",
            n_support=30,
            train_on="all",
            n_validation=60,
            selection_options={"n_draws": 10},
            random_state=5,
        ).fit(X)

    got = fit()
    ref = _one_block(monkeypatch, fit)
    np.testing.assert_array_equal(got.support_, ref.support_)
    assert (got.sigma2_, got.n_components_) == (ref.sigma2_, ref.n_components_)
    np.testing.assert_allclose(got.eigenvalues_, ref.eigenvalues_, rtol=1e-10)
    np.testing.assert_allclose(got.alphas_, ref.alphas_, rtol=0, atol=1e-10)


def test_nystrom_kpca_blocked_equals_one_block(monkeypatch, small_blocks):
    X = _data(300, 3, seed=6)
    got = nystrom_kpca(X, np.arange(0, 300, 5), 0.5, 5)
    ref = _one_block(monkeypatch, lambda: nystrom_kpca(X, np.arange(0, 300, 5), 0.5, 5))
    assert got.rank == ref.rank
    np.testing.assert_allclose(got.eigenvalues, ref.eigenvalues, rtol=1e-10)
    np.testing.assert_allclose(got.eigenvectors, ref.eigenvectors, rtol=0, atol=1e-10)


def test_blocked_pca_rejects_null_components(small_blocks):
    # All 100 points as support vectors: the centred features have rank <= 99.
    X = _data(100, 3, seed=8)
    with pytest.raises(ValueError, match="exceeds the .* components of the centred features"):
        nystrom_kpca(X, np.arange(100), 0.05, 100)


def test_fit_all_memory_stays_below_one_n_by_m_array():
    """Peak traced allocation of fit + transform well under one N x M float64 array."""
    N, d, M = 40_000, 20, 100
    X = _data(N, d, seed=9)
    tracemalloc.start()
    try:
        model = FixedSizeKernelPCA(
            1, 2.0, n_support=M, train_on="all", max_iter=20, random_state=0
        ).fit(X)
        model.transform(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 0.5 * N * M * 8, f"peak {peak / 2**20:.1f} MB"
