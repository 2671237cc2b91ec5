"""Tests of kpca.largescale: FS2, Nyström, ICF and the reduced eigenproblem."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from kernel_references import rbf_kernel_numpy

from kpca.base import NotFittedError
from kpca.kernels import center_kernel, center_test_kernel, rbf_kernel
from kpca.largescale import (
    FixedSizeKernelPCA,
    IncompleteCholeskyKernelPCA,
    fs2_support_vectors,
    incomplete_cholesky,
    kmeans_support_vectors,
    nystrom_kpca,
    reduced_eigenproblem,
    renyi_entropy,
)
from kpca.preimage import expansion_coefficients, fixed_point_preimage


def _semicircles(n, noise=0.1, seed=0):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, np.pi, n)
    half = rng.integers(0, 2, n)
    X = np.c_[np.cos(t) - 0.5 * half, np.sin(t) * (1 - 2 * half) + 0.3 * half]
    return X + noise * rng.normal(size=X.shape)


def _dense(X, sigma2, k):
    """Brute-force reference: eigh of the centred kernel, sorted descending."""
    K = rbf_kernel(X, sigma2=sigma2)
    lam, V = scipy.linalg.eigh(center_kernel(K))
    return K, lam[::-1][:k], V[:, ::-1][:, :k]


def _same_up_to_sign(A, B):
    s = np.sign(np.sum(A * B, axis=0))
    return np.abs(A - B * s).max()


@pytest.fixture(scope="module")
def toy():
    return _semicircles(300)


# --------------------------------------------------------------------------- FS2
def test_renyi_entropy_matches_definition():
    K = rbf_kernel(_semicircles(20), sigma2=0.5)
    assert renyi_entropy(K) == pytest.approx(-np.log(np.mean(K)), rel=1e-14)
    with pytest.raises(ValueError, match="square"):
        renyi_entropy(np.ones((2, 3)))


def test_kmeans_start_distinct_points_and_seeded(toy):
    a = kmeans_support_vectors(toy, 40, random_state=3)
    b = kmeans_support_vectors(toy, 40, random_state=3)
    np.testing.assert_array_equal(a, b)
    assert np.unique(a).size == 40


def test_fs2_entropy_never_decreases_and_improves(toy):
    res = fs2_support_vectors(toy, 30, 0.5, random_state=0)
    assert np.all(np.diff(res.entropy) >= 0)
    assert res.entropy[-1] > res.entropy[0]
    assert res.converged
    assert np.unique(res.support).size == 30
    K = rbf_kernel(toy[res.support], sigma2=0.5)
    assert renyi_entropy(K) == pytest.approx(res.entropy[-1], rel=1e-10)
    K0 = rbf_kernel(toy[res.initial_support], sigma2=0.5)
    assert renyi_entropy(K0) == pytest.approx(res.entropy[0], rel=1e-10)


def test_fs2_swap_rule_is_greedy_on_max_similarity(toy):
    # After convergence no remaining point can replace the most redundant SV
    # with a gain in entropy (brute force over all candidates).
    X = toy[:120]
    res = fs2_support_vectors(X, 15, 0.5, random_state=1)
    S = res.support.copy()
    K = rbf_kernel(X[S], sigma2=0.5)
    i = np.argmax(K.sum(axis=1))
    best = res.entropy[-1]
    for r in np.setdiff1d(np.arange(len(X)), S):
        T = S.copy()
        T[i] = r
        assert renyi_entropy(rbf_kernel_numpy(X[T], sigma2=0.5)) <= best + 1e-12


# ---------------------------------------------------------------------- Nyström
def test_nystrom_with_all_points_equals_dense(toy):
    _, lam, V = _dense(toy, 0.5, 6)
    ne = nystrom_kpca(toy, np.arange(len(toy)), 0.5, 6)
    np.testing.assert_allclose(ne.eigenvalues, lam, rtol=1e-10)
    assert _same_up_to_sign(ne.eigenvectors, V) < 1e-8


def test_fixed_size_with_all_points_equals_dense_kpca(toy):
    K, lam, V = _dense(toy, 0.5, 4)
    model = FixedSizeKernelPCA(4, 0.5, n_support=len(toy), random_state=0).fit(toy)
    np.testing.assert_allclose(model.eigenvalues_, lam, rtol=1e-10)
    # Scores = Kc alpha / sqrt(lambda) for training and (Eq. (7)) new points.
    Xn = _semicircles(7, seed=5)
    Kt = center_test_kernel(rbf_kernel(Xn, toy, sigma2=0.5), K.mean(axis=0), K.mean())
    ref = np.vstack([center_kernel(K) @ V, Kt @ V]) / np.sqrt(lam)
    got = np.vstack([model.transform(toy), model.transform(Xn)])
    assert _same_up_to_sign(got, ref) < 1e-8
    # Denoising equals the dense fixed-point pre-image.
    signs = np.sign(np.sum(got * ref, axis=0))
    gam = expansion_coefficients(ref[-7:] * signs, V * signs, lam)
    z_ref = fixed_point_preimage(gam, toy, 0.5, z0=Xn).z
    np.testing.assert_allclose(model.denoise(Xn), z_ref, atol=1e-7)


def test_fixed_size_support_model_is_dense_kpca_on_support_vectors(toy):
    model = FixedSizeKernelPCA(3, 0.5, n_support=40, random_state=0).fit(toy)
    _, lam, V = _dense(toy[model.support_], 0.5, 3)
    np.testing.assert_allclose(model.eigenvalues_, lam, rtol=1e-8)
    assert _same_up_to_sign(model.alphas_, V) < 1e-6


def test_solvers_agree_with_dense_on_toy(toy):
    """Stated tolerances on the semicircles toy (N=300, sigma2=0.5, 3 components).

    FS2 + Nyström (M=100, train_on="all") and ICF (eta=1e-4): leading
    eigenvalues within 1 % and denoised points within 0.01 of dense kPCA.
    """
    X = toy
    dense = FixedSizeKernelPCA(3, 0.5, n_support=len(X), random_state=0).fit(X)
    fs = FixedSizeKernelPCA(3, 0.5, n_support=100, train_on="all", random_state=0).fit(X)
    icf = IncompleteCholeskyKernelPCA(3, 0.5, eta=1e-4).fit(X)
    Xd = dense.denoise(X[:20])
    for model in (fs, icf):
        np.testing.assert_allclose(model.eigenvalues_, dense.eigenvalues_, rtol=1e-2)
        assert np.abs(model.denoise(X[:20]) - Xd).max() < 1e-2


# -------------------------------------------------------------------------- ICF
def test_icf_error_vanishes_as_eta_decreases(toy):
    K = rbf_kernel(toy, sigma2=0.5)
    errs = []
    for eta in (1e-1, 1e-3, 1e-6, 1e-10):
        r = incomplete_cholesky(toy, 0.5, eta)
        assert r.residual_trace[-1] < eta
        assert np.trace(K - r.G @ r.G.T) == pytest.approx(r.residual_trace[-1], abs=1e-9)
        errs.append(np.linalg.norm(K - r.G @ r.G.T, 2))
    assert all(b < a for a, b in zip(errs, errs[1:], strict=False))
    assert errs[-1] < 1e-9


def test_complete_icf_is_pivoted_full_cholesky():
    X = _semicircles(40)
    sigma2 = 0.01  # well-conditioned kernel: complete factorisation exists
    r = incomplete_cholesky(X, sigma2, 1e-300)
    assert r.pivots.size == 40 and np.unique(r.pivots).size == 40
    K = rbf_kernel(X, sigma2=sigma2)
    L = r.G[r.pivots]
    np.testing.assert_array_equal(np.triu(L, 1), 0.0)
    np.testing.assert_allclose(L, scipy.linalg.cholesky(K[np.ix_(r.pivots, r.pivots)], lower=True),
                               atol=1e-12)
    # Greedy pivoting: each pivot had the largest remaining diagonal.
    for q in range(1, 40):
        d = 1.0 - np.sum(r.G[:, :q] ** 2, axis=1)
        d[r.pivots[:q]] = -np.inf
        assert d[r.pivots[q]] == pytest.approx(d.max(), abs=1e-12)


def test_reduced_eigenproblem_matches_eigh_of_low_rank_kernel(toy):
    G = incomplete_cholesky(toy, 0.5, 1e-2).G
    red = reduced_eigenproblem(G, 5)
    lam, V = scipy.linalg.eigh(center_kernel(G @ G.T))
    np.testing.assert_allclose(red.eigenvalues, lam[::-1][:5], atol=1e-10 * lam[-1])
    # Eq. (19) itself holds for rho.
    N, Q = G.shape
    UMU = red.U.T @ (red.U - red.U.mean(axis=0))
    np.testing.assert_allclose(UMU @ (red.singular_values**2 * red.rho.T).T,
                               red.rho * red.eigenvalues, atol=1e-9)
    # alpha ~= U rho: close to the exact eigenvectors (1 is almost in range(U)).
    assert _same_up_to_sign(red.alphas, V[:, ::-1][:, :5]) < 1e-3


def test_reduced_eigenproblem_exact_when_complete():
    X = _semicircles(60)
    G = incomplete_cholesky(X, 0.02, 1e-300).G
    assert G.shape == (60, 60)
    red = reduced_eigenproblem(G, 4)
    _, lam, V = _dense(X, 0.02, 4)
    np.testing.assert_allclose(red.eigenvalues, lam, rtol=1e-10)
    assert _same_up_to_sign(red.alphas, V) < 1e-8


def test_icf_transform_of_training_points_uses_factor(toy):
    model = IncompleteCholeskyKernelPCA(2, 0.5, eta=1e-3).fit(toy)
    G = incomplete_cholesky(toy, 0.5, 1e-3).G
    ref = (G - G.mean(axis=0)) @ model._W
    np.testing.assert_allclose(model.transform(toy), ref, atol=1e-8)
    np.testing.assert_allclose(model.fit_transform(toy), ref, atol=1e-8)


# -------------------------------------------------------------------- bad input
@pytest.mark.parametrize("eta", [0.0, -1e-3, float("nan")])
def test_bad_eta(toy, eta):
    with pytest.raises(ValueError, match="eta"):
        incomplete_cholesky(toy, 0.5, eta)
    with pytest.raises(ValueError, match="eta"):
        IncompleteCholeskyKernelPCA(1, 0.5, eta=eta).fit(toy)


def test_more_support_vectors_than_points(toy):
    with pytest.raises(ValueError, match=r"n_support must be <= n_samples=300.*n_support=301"):
        FixedSizeKernelPCA(1, 0.5, n_support=301).fit(toy)
    with pytest.raises(ValueError, match="n_support must be an int >= 1"):
        fs2_support_vectors(toy, 0, 0.5)


def test_other_bad_parameters(toy):
    with pytest.raises(ValueError, match="train_on"):
        FixedSizeKernelPCA(1, 0.5, n_support=10, train_on="some").fit(toy)
    with pytest.raises(ValueError, match="sigma2"):
        FixedSizeKernelPCA(1, -1.0, n_support=10).fit(toy)
    with pytest.raises(ValueError, match="sigma2 must be a positive number or 'rule-of-thumb'"):
        IncompleteCholeskyKernelPCA(1, "mdd").fit(toy)
    with pytest.raises(ValueError, match=r"n_components must be <= the number of pivots"):
        IncompleteCholeskyKernelPCA(50, 0.5, eta=1.0).fit(toy)
    with pytest.raises(ValueError, match="max_iter"):
        fs2_support_vectors(toy, 5, 0.5, max_iter=-1)
    with pytest.raises(NotFittedError, match="not fitted"):
        FixedSizeKernelPCA().transform(toy)
    with pytest.raises(NotFittedError, match="not fitted"):
        IncompleteCholeskyKernelPCA().denoise(toy)
    model = FixedSizeKernelPCA(1, 0.5, n_support=10, random_state=0).fit(toy)
    with pytest.raises(ValueError, match="features"):
        model.transform(np.ones((3, 5)))


# ------------------------------------------------------------ MDD on the split
def test_mdd_on_split_matches_its_definition(toy):
    from kpca.selection import mdd_on_split

    grid = [0.1, 0.3, 1.0]
    res = mdd_on_split(toy[:40], toy[40:140], grid=grid, n_draws=5, random_state=0)
    assert res.criterion == "varon2015" and res.sigma2 in grid
    # Data spectrum = eigenvalues of the centred training kernel (Eq. (4)).
    for g, s2 in enumerate(res.grid):
        ev = np.linalg.eigvalsh(center_kernel(rbf_kernel(toy[:40], sigma2=s2)))[::-1]
        np.testing.assert_allclose(res.data_spectra[g], ev, atol=1e-10)
    # n_c per width: leading components above the noise (Eq. (14)); I_s (Eq. (15)).
    diff = res.data_spectra - res.noise_spectra
    for g in range(len(grid)):
        n = res.n_components_grid[g]
        assert np.all(diff[g, :n] > 0) and (n == diff.shape[1] or diff[g, n] <= 0)
        assert res.curve[g] == pytest.approx(diff[g, :n].sum())
    with pytest.raises(ValueError, match="n_draws must be an int >= 2; got n_draws=1"):
        mdd_on_split(toy[:40], toy[40:140], n_draws=1)


def test_fixed_size_selects_on_support_and_validation(toy):
    model = FixedSizeKernelPCA("auto", "mdd", n_support=30, n_validation=100, grid=[0.1, 0.3, 1.0],
                               selection_options={"n_draws": 5}, random_state=0).fit(toy)
    assert model.validation_.size == 100
    assert not np.intersect1d(model.validation_, model.support_).size
    assert model.selection_.details["n_train"] == 30
    assert model.sigma2_ == model.selection_.sigma2
    assert model.n_components_ == max(1, model.selection_.n_components)
    with pytest.raises(ValueError, match=r"n_validation must be in \[1, 270\]"):
        FixedSizeKernelPCA("auto", 0.3, n_support=30, n_validation=271).fit(toy)


@pytest.mark.parametrize("alias", ["varon2015", "MDD", " Mdd "])
def test_fixed_size_accepts_criterion_aliases(toy, alias):
    # Every key or alias of kpca.selection runs the same criterion (MDD on the split, Fig. 8).
    kw = dict(n_support=30, n_validation=100, grid=[0.1, 0.3, 1.0],
              selection_options={"n_draws": 5}, random_state=0)
    ref = FixedSizeKernelPCA(1, "mdd", **kw).fit(toy)
    model = FixedSizeKernelPCA(1, alias, **kw).fit(toy)
    assert model.selection_.criterion == ref.selection_.criterion == "varon2015"
    assert model.selection_.details["n_train"] == 30
    np.testing.assert_array_equal(model.selection_.curve, ref.selection_.curve)
    assert model.sigma2_ == ref.sigma2_
    np.testing.assert_array_equal(model.alphas_, ref.alphas_)


def test_fixed_size_rejects_bad_criterion_and_options_before_fs2(toy, monkeypatch):
    import kpca.largescale.model as lsm

    monkeypatch.setattr(lsm, "fs2_support_vectors", lambda *a, **k: pytest.fail("FS2 ran"))
    with pytest.raises(ValueError, match=r"unknown criterion='nope'; valid keys: "):
        FixedSizeKernelPCA(1, "nope", n_support=30).fit(toy)
    with pytest.raises(ValueError, match=r"selection_options must be None or a dict"):
        FixedSizeKernelPCA(1, "mdd", n_support=30, selection_options=[1]).fit(toy)
    with pytest.raises(ValueError, match=r"selection_options may not contain 'grid'"):
        FixedSizeKernelPCA(1, "mdd", n_support=30, selection_options={"grid": [1.0]}).fit(toy)
    with pytest.raises(ValueError, match=r"selection_options apply only when a criterion runs"):
        FixedSizeKernelPCA(1, 0.3, n_support=30, selection_options={"n_draws": 5}).fit(toy)
    with pytest.raises(ValueError, match=r"selection_options apply only when a criterion runs"):
        IncompleteCholeskyKernelPCA(1, 0.3, selection_options={"n_draws": 5}).fit(toy)


# ------------------------------------------------------------------ ICF + MDD
def test_icf_with_vanishing_eta_equals_dense_kernel_pca(toy):
    """eta -> 0: eigenvalues equal ``eigh`` to 1e-8 (relative), scores to 1e-6."""
    from kpca import KernelPCA

    icf = IncompleteCholeskyKernelPCA(4, 0.5, eta=1e-12).fit(toy)
    dense = KernelPCA(4, 0.5, eigen_solver="dense").fit(toy)
    _, lam, _ = _dense(toy, 0.5, 4)
    np.testing.assert_allclose(icf.eigenvalues_, lam, rtol=1e-8)
    np.testing.assert_allclose(dense.eigenvalues_, lam, rtol=1e-8)
    Xn = _semicircles(9, seed=7)
    assert _same_up_to_sign(icf.transform(Xn), dense.transform(Xn)) < 1e-6


def test_icf_mdd_compares_eq19_spectrum_with_pivot_sized_noise(toy):
    model = IncompleteCholeskyKernelPCA("auto", 0.1, eta=1e-2, n_validation=100,
                                        selection_options={"n_draws": 20},
                                        random_state=0).fit(toy)
    sel = model.selection_
    Q = model.pivots_.size
    # Data spectrum: all Q eigenvalues of Eq. (19) (= the centred low-rank kernel's).
    G = incomplete_cholesky(toy, 0.1, 1e-2).G
    np.testing.assert_allclose(sel.data_spectra[0], reduced_eigenproblem(G, Q).eigenvalues,
                               rtol=1e-12)
    # Noise: Q x Q matrices (training set = pivots) and the validation set from non-pivots.
    assert sel.noise_spectra.shape == (1, Q) and sel.details["n_train"] == Q
    assert not np.intersect1d(model.validation_, model.pivots_).size
    # The paper's ICF + MDD selects many components here (24 of 70 pivots in the paper).
    assert model.n_components_ == sel.n_components > 1
    np.testing.assert_allclose(model.eigenvalues_, sel.data_spectra[0, :model.n_components_])


def test_mdd_on_split_with_given_data_spectrum(toy):
    from kpca.selection import mdd_on_split

    Xt, Xv = toy[:40], toy[40:140]
    lam = np.linspace(30.0, 0.0, 25)
    res = mdd_on_split(Xt, Xv, grid=[0.3], n_draws=5, random_state=0, data_spectra=lam)
    ref = mdd_on_split(Xt, Xv, grid=[0.3], n_draws=5, random_state=0)
    np.testing.assert_array_equal(res.data_spectra[0], lam)
    # Same noise draws, cut to the length of the given spectrum.
    np.testing.assert_array_equal(res.noise_spectra[0], ref.noise_spectra[0, :25])
    with pytest.raises(ValueError, match=r"data_spectra must be finite with shape \(1, k\)"):
        mdd_on_split(Xt, Xv, grid=[0.3], n_draws=5, data_spectra=np.ones(41))
    with pytest.raises(ValueError, match="data_spectra"):
        mdd_on_split(Xt, Xv, grid=[0.3, 1.0], n_draws=5, data_spectra=lam)
    with pytest.raises(ValueError, match=r"n_components must be <= 25"):
        mdd_on_split(Xt, Xv, grid=[0.3], n_draws=5, n_components=30, data_spectra=lam)


def test_icf_auto_needs_enough_pivots(toy):
    with pytest.raises(ValueError, match=r"needs at least 5 pivots.*got Q=2"):
        IncompleteCholeskyKernelPCA("auto", 0.5, max_rank=2).fit(toy)


def test_icf_auto_default_validation_set_is_capped_at_the_non_pivots(toy):
    # Fewer than 1000 points: the default validation set is every non-pivot (as FS2's is every
    # non-support point), not an error about 1000 > N.
    model = IncompleteCholeskyKernelPCA("auto", 0.3, selection_options={"n_draws": 5},
                                        random_state=0).fit(toy)
    assert model.validation_.size == toy.shape[0] - model.pivots_.size
    assert model.selection_.details["n_validation"] == model.validation_.size
    with pytest.raises(ValueError, match=r"n_validation must be in \[1, 300\]"):
        IncompleteCholeskyKernelPCA("auto", 0.3, n_validation=301).fit(toy)
