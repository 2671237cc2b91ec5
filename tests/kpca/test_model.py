import types

import numpy as np
import pytest
import scipy.linalg
from kernel_references import center_kernel_numpy, center_test_kernel_numpy, rbf_kernel_numpy

from kpca import KernelPCA, NotFittedError
from kpca import datasets as ds
from kpca.preimage import expansion_coefficients

SOLVERS = ["dense", "arpack", "auto"]


@pytest.fixture(scope="module")
def blob():
    rng = np.random.default_rng(0)
    return rng.standard_normal((120, 3)) * np.array([2.0, 1.0, 0.5])


def _reference_eigh(X, sigma2, n):
    Kc = center_kernel_numpy(rbf_kernel_numpy(X, sigma2=sigma2))
    lam, vec = scipy.linalg.eigh(Kc)
    return lam[::-1][:n], vec[:, ::-1][:, :n], Kc


@pytest.mark.parametrize("solver", SOLVERS)
def test_eigenpairs_match_scipy_eigh_of_explicitly_centred_kernel(blob, solver):
    n = 6
    model = KernelPCA(n, 3.0, eigen_solver=solver, random_state=1).fit(blob)
    lam, vec, Kc = _reference_eigh(blob, 3.0, n)
    assert np.min(np.diff(lam[::-1])) > 1e-3  # distinct: eigenvectors defined up to sign
    np.testing.assert_allclose(model.eigenvalues_, lam, rtol=0, atol=1e-10)
    signs = np.sign(np.sum(vec * model.alphas_, axis=0))
    np.testing.assert_allclose(model.alphas_, vec * signs, rtol=0, atol=1e-10)
    np.testing.assert_allclose(Kc @ model.alphas_, model.alphas_ * model.eigenvalues_, atol=1e-10)


@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_eigenvector_signs_are_deterministic(blob, solver):
    a = KernelPCA(4, 3.0, eigen_solver=solver, random_state=1).fit(blob).alphas_
    b = KernelPCA(4, 3.0, eigen_solver=solver, random_state=2).fit(blob).alphas_
    np.testing.assert_allclose(a, b, atol=1e-10)
    idx = np.argmax(np.abs(a), axis=0)
    assert np.all(a[idx, np.arange(4)] > 0)


def test_auto_solver_switch():
    # block Lanczos from N = 2000 (fit 1.4x faster than ARPACK there, break-even near
    # N = 1500: benchmarks/RESULTS.md), while its block of max(2 n_c, n_c + 8) vectors fits
    model = KernelPCA(2, 1.0, eigen_solver="auto")
    assert model._solver(99, 2) == "dense"
    assert model._solver(100, 25) == "arpack"
    assert model._solver(100, 26) == "dense"
    assert model._solver(1999, 5) == "arpack"
    assert model._solver(2000, 5) == "lanczos"
    assert model._solver(2000, 166) == "lanczos"  # 4 (166 + 332) = 1992 <= 2000
    assert model._solver(2000, 167) == "arpack"


def test_auto_uses_lanczos_for_large_n():
    X = np.random.default_rng(3).standard_normal((2000, 3))
    model = KernelPCA(3, 2.0, random_state=0).fit(X)
    assert model.eigen_solver_ == "lanczos"
    Kc = center_kernel_numpy(rbf_kernel_numpy(X, sigma2=2.0))
    lam, vec = scipy.linalg.eigh(Kc, subset_by_index=[1997, 1999])
    lam, vec = lam[::-1], vec[:, ::-1]
    np.testing.assert_allclose(model.eigenvalues_, lam, rtol=1e-12)
    signs = np.sign(np.sum(vec * model.alphas_, axis=0))
    np.testing.assert_allclose(model.alphas_, vec * signs, rtol=0, atol=1e-10)
    Xnew = np.random.default_rng(4).standard_normal((50, 3))
    Kc_test = center_test_kernel_numpy(rbf_kernel_numpy(Xnew, X, sigma2=2.0),
                                       rbf_kernel_numpy(X, sigma2=2.0))
    np.testing.assert_allclose(model.transform(Xnew),
                               Kc_test @ model.alphas_ / np.sqrt(model.eigenvalues_),
                               rtol=0, atol=1e-10)


@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_fit_transform_equals_fit_then_transform(blob, solver):
    model = KernelPCA(5, 2.0, eigen_solver=solver, random_state=0)
    Z1 = model.fit_transform(blob)
    Z2 = model.fit(blob).transform(blob)
    np.testing.assert_allclose(Z1, Z2, rtol=0, atol=1e-10)


def test_out_of_sample_scores_follow_eq7(blob):
    # transform of a training point = its row of the centred training kernel
    # projected on the unit-norm axes; transform of new points = Eq. (7).
    model = KernelPCA(4, 2.0).fit(blob)
    _, _, Kc = _reference_eigh(blob, 2.0, 4)
    scale = 1.0 / np.sqrt(model.eigenvalues_)
    np.testing.assert_allclose(
        model.transform(blob[:7]), Kc[:7] @ model.alphas_ * scale, atol=1e-10
    )
    Xnew = np.random.default_rng(5).standard_normal((9, 3))
    K_test = rbf_kernel_numpy(Xnew, blob, sigma2=2.0)
    Kc_test = center_test_kernel_numpy(K_test, rbf_kernel_numpy(blob, sigma2=2.0))
    np.testing.assert_allclose(model.transform(Xnew), Kc_test @ model.alphas_ * scale, atol=1e-10)


def test_scores_of_training_points_have_variance_equal_eigenvalue(blob):
    # Projections on unit-norm feature-space axes: sum_i z_ik^2 = lambda_k.
    model = KernelPCA(3, 2.0)
    Z = model.fit_transform(blob)
    np.testing.assert_allclose((Z**2).sum(axis=0), model.eigenvalues_, rtol=1e-10)


def test_large_sigma2_tends_to_linear_pca(blob):
    X = blob - blob.mean(axis=0)
    V_lin = np.linalg.svd(X, full_matrices=False)[2][:2].T  # leading input-space axes
    angles = []
    for sigma2 in [1e1, 1e3, 1e5]:
        Z = KernelPCA(2, sigma2).fit_transform(X)
        # Scores of linear PCA are X @ V; the kPCA scores must span the same
        # 2-D subspace of R^N as sigma2 -> infinity.
        angles.append(np.max(scipy.linalg.subspace_angles(Z, X @ V_lin)))
    assert angles[0] > angles[1] > angles[2]
    assert angles[2] < 1e-3


def test_agrees_with_scikit_learn_up_to_sign(blob):
    skd = pytest.importorskip("sklearn.decomposition")
    from kpca.kernels import sigma2_to_gamma

    sigma2 = 2.5
    ours = KernelPCA(4, sigma2, eigen_solver="dense")
    Z = ours.fit_transform(blob)
    ref = skd.KernelPCA(4, kernel="rbf", gamma=sigma2_to_gamma(sigma2), eigen_solver="dense")
    Zs = ref.fit_transform(blob)
    signs = np.sign(np.sum(Z * Zs, axis=0))
    np.testing.assert_allclose(Z, Zs * signs, atol=1e-8)
    Xnew = blob[:10] + 0.1
    np.testing.assert_allclose(ours.transform(Xnew), ref.transform(Xnew) * signs, atol=1e-8)
    np.testing.assert_allclose(ours.eigenvalues_, ref.eigenvalues_, rtol=1e-10)


def test_components_beyond_the_rank_get_zero_scores():
    X = np.random.default_rng(0).standard_normal((5, 2))
    model = KernelPCA(5, 1.0)  # a centred 5x5 kernel has rank <= 4
    Z = model.fit_transform(X)
    assert abs(model.eigenvalues_[-1]) < 1e-12
    assert np.all(np.isfinite(model.transform(X)))
    np.testing.assert_allclose(Z[:, -1], 0.0, atol=1e-6)


# --------------------------------------------------------------------------- #
# pre-images and de-noising
# --------------------------------------------------------------------------- #
def _linear_pca_denoise(Xtr, Xte, n):
    mu = Xtr.mean(axis=0)
    V = np.linalg.svd(Xtr - mu, full_matrices=False)[2][:n]
    return (Xte - mu) @ V.T @ V + mu


def _mse(A, B):
    return float(np.mean(np.sum((A - B) ** 2, axis=1)))


def test_denoise_fixed_point_satisfies_its_equation(blob):
    model = KernelPCA(3, 2.0).fit(blob)
    Xte = blob[:15] + 0.3
    z = model.denoise(Xte)
    assert model.preimage_result_.converged.all()
    gt = expansion_coefficients(model.transform(Xte), model.alphas_, model.eigenvalues_)
    w = gt * rbf_kernel_numpy(z, blob, sigma2=2.0)
    np.testing.assert_allclose((w @ blob) / w.sum(axis=1, keepdims=True), z, atol=1e-7)


def test_inverse_transform_of_training_scores_reconstructs_with_many_components():
    X, _ = ds.square(60, noise=0.02, random_state=3)
    model = KernelPCA(59, 0.05)
    Z = model.fit_transform(X)
    # With every component, P phi(x_i) = phi(x_i): the pre-image is x_i itself.
    np.testing.assert_allclose(model.inverse_transform(Z[:10]), X[:10], atol=1e-6)


@pytest.mark.parametrize(
    "name, n_components, sigma2",
    [("square", 1, 0.02), ("square", 16, 0.1), ("semicircles", 1, 0.02), ("semicircles", 16, 0.1)],
)
def test_denoising_beats_linear_pca_2d(name, n_components, sigma2):
    gen = getattr(ds, name)
    Xtr, _ = gen(250, noise=0.1, random_state=0)
    Xte, Cte = gen(100, noise=0.1, random_state=1)
    kp = KernelPCA(n_components, sigma2).fit(Xtr).denoise(Xte)
    # Linear PCA with the same number of components (at most d = 2; with 2
    # it is the identity and leaves the noise in place).
    lin = _linear_pca_denoise(Xtr, Xte, min(n_components, 2))
    assert _mse(kp, Cte) < 0.8 * _mse(lin, Cte)


def test_denoising_beats_linear_pca_semicircles_50d():
    kw = dict(noise=0.5, radius=5.0, n_features=50)
    Xtr, _ = ds.semicircles(250, random_state=0, **kw)
    Xte, Cte = ds.semicircles(100, random_state=1, **kw)
    kp = KernelPCA(8, 10.0).fit(Xtr).denoise(Xte)
    lin = _linear_pca_denoise(Xtr, Xte, 8)
    assert _mse(kp, Cte) < 0.5 * _mse(lin, Cte)


# --------------------------------------------------------------------------- #
# model selection hook
# --------------------------------------------------------------------------- #
@pytest.fixture
def fake_select(monkeypatch):
    import kpca.selection

    calls = []

    def select(X, criterion="mdd", *, n_components=None, grid=None, random_state=None, **options):
        calls.append(
            dict(
                criterion=criterion, n_components=n_components, grid=grid, random_state=random_state
            )
        )
        return types.SimpleNamespace(sigma2=4.0 if grid is None else float(grid[0]), n_components=3)

    monkeypatch.setattr(kpca.selection, "select", select, raising=False)
    return calls


def test_string_sigma2_calls_selection(blob, fake_select):
    model = KernelPCA(2, "mdd", random_state=7).fit(blob)
    assert fake_select == [dict(criterion="mdd", n_components=2, grid=None, random_state=7)]
    assert model.sigma2_ == 4.0 and model.n_components_ == 2
    assert model.selection_.sigma2 == 4.0
    ref = KernelPCA(2, 4.0).fit(blob)
    np.testing.assert_allclose(model.eigenvalues_, ref.eigenvalues_)


def test_auto_components_with_string_sigma2(blob, fake_select):
    model = KernelPCA("auto", "kpa").fit(blob)
    assert fake_select[0]["n_components"] is None and fake_select[0]["criterion"] == "kpa"
    assert (model.sigma2_, model.n_components_) == (4.0, 3)
    assert model.alphas_.shape == (blob.shape[0], 3)


def test_auto_components_with_float_sigma2_uses_mdd_at_that_width(blob, fake_select):
    model = KernelPCA("auto", 1.5).fit(blob)
    call = fake_select[0]
    assert call["criterion"] == "mdd" and call["n_components"] is None
    np.testing.assert_array_equal(call["grid"], [1.5])
    assert (model.sigma2_, model.n_components_) == (1.5, 3)


def test_bad_parameters_raise_before_selection_runs(blob, fake_select):
    with pytest.raises(ValueError, match=r"got eigen_solver='x'"):
        KernelPCA(2, "mdd", eigen_solver="x").fit(blob)
    with pytest.raises(
        ValueError, match=r"n_components must be <= n_samples=120; got n_components=500"
    ):
        KernelPCA(500, "mdd").fit(blob)
    assert fake_select == []


def test_float_sigma2_does_not_call_selection(blob, fake_select):
    model = KernelPCA(2, 1.5).fit(blob)
    assert fake_select == [] and model.selection_ is None


@pytest.mark.parametrize("criterion", ["mdd", "varon2015", "shannon", "kpa"])
@pytest.mark.parametrize("seed", [3, "generator"])
def test_selection_options_equal_select_then_fixed_width(criterion, seed):
    # KernelPCA(1, criterion, selection_options=opts) == select(...) then KernelPCA(1, float).
    from kpca.selection import select

    X = np.random.default_rng(11).standard_normal((150, 4)) * np.array([3.0, 1.0, 0.5, 0.2])
    opts = {
        "mdd": {"n_draws": 7, "n_train": 0.6},
        "varon2015": {"n_draws": 5},
        "kpa": {"n_permutations": 9},
        "shannon": {},
    }[criterion]

    def rs():
        return np.random.default_rng(42) if seed == "generator" else seed

    rs_two_step = rs()
    res = select(X, criterion, n_components=1, random_state=rs_two_step, **opts)
    ref = KernelPCA(1, sigma2=float(res.sigma2), random_state=rs_two_step).fit(X)
    model = KernelPCA(
        n_components=1, sigma2=criterion, random_state=rs(), selection_options=opts
    ).fit(X)
    assert model.sigma2_ == res.sigma2 and model.n_components_ == 1
    assert model.eigen_solver_ == ref.eigen_solver_ == "arpack"
    np.testing.assert_array_equal(model.selection_.curve, res.curve)
    np.testing.assert_array_equal(model.eigenvalues_, ref.eigenvalues_)
    np.testing.assert_array_equal(model.alphas_, ref.alphas_)
    np.testing.assert_array_equal(model.transform(X[:5]), ref.transform(X[:5]))


def test_selection_options_are_passed_to_select(blob, fake_select, monkeypatch):
    import kpca.selection

    seen = []
    inner = kpca.selection.select

    def spy(X, criterion="mdd", **kwargs):
        seen.append(kwargs)
        return inner(X, criterion, **kwargs)

    monkeypatch.setattr(kpca.selection, "select", spy)
    opts = {"n_draws": 3, "grid": [1.0, 2.0]}
    model = KernelPCA(2, "mdd", random_state=1, selection_options=opts)
    model.fit(blob)
    assert seen == [dict(n_components=2, random_state=1, n_draws=3, grid=[1.0, 2.0])]
    assert model.selection_options is opts and opts == {"n_draws": 3, "grid": [1.0, 2.0]}
    seen.clear()
    KernelPCA("auto", 1.5, selection_options={"n_draws": 4}).fit(blob)
    assert seen[0]["n_draws"] == 4 and list(seen[0]["grid"]) == [1.5]


def test_selection_options_init_only_stores():
    bad = object()
    assert KernelPCA(selection_options=bad).selection_options is bad


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (
            dict(sigma2="mdd", selection_options=[("n_draws", 3)]),
            r"selection_options must be None or a dict; got selection_options=\[\('n_draws', 3\)\]",
        ),
        (
            dict(sigma2="mdd", selection_options={"random_state": 1}),
            r"selection_options may not contain 'random_state' \(set by the estimator\)",
        ),
        (
            dict(sigma2="mdd", selection_options={"n_components": 1}),
            r"may not contain 'n_components'",
        ),
        (
            dict(sigma2=1.5, selection_options={"n_draws": 3}),
            r"selection_options apply only when a criterion runs",
        ),
        (
            dict(n_components="auto", sigma2=1.5, selection_options={"grid": [1.0]}),
            r"selection_options may not set 'grid' when sigma2 is a number",
        ),
    ],
)
def test_bad_selection_options_raise_before_selection_runs(blob, fake_select, kwargs, match):
    with pytest.raises(ValueError, match=match):
        KernelPCA(**kwargs).fit(blob)
    assert fake_select == []


def test_empty_selection_options_with_float_sigma2(blob, fake_select):
    model = KernelPCA(2, 1.5, selection_options={}).fit(blob)
    assert fake_select == [] and model.selection_ is None


# --------------------------------------------------------------------------- #
# bad input
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize(
    "X, match",
    [
        (
            np.array([[0.0, 1.0], [np.nan, 2.0]]),
            r"X must contain only finite values; got X\[1, 0\]=nan",
        ),
        (np.array([[0.0, 1.0], [np.inf, 2.0]]), r"X\[1, 0\]=inf"),
        (np.zeros(5), r"X must be a 2-D array.*X.ndim=1"),
        (np.zeros((2, 3, 4)), r"X.ndim=3"),
    ],
)
def test_fit_rejects_bad_X(X, match):
    with pytest.raises(ValueError, match=match):
        KernelPCA(1, 1.0).fit(X)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(n_components=11), r"n_components must be <= n_samples=10; got n_components=11"),
        (dict(n_components=0), r"n_components must be an int >= 1; got n_components=0"),
        (
            dict(n_components="many"),
            r"n_components must be a positive integer or 'auto'; got n_components='many'",
        ),
        (dict(sigma2=0.0), r"sigma2 must be a finite positive number; got sigma2=0.0"),
        (dict(sigma2=-2.0), r"got sigma2=-2.0"),
        (dict(sigma2=np.inf), r"got sigma2=inf"),
        (dict(eigen_solver="lobpcg"), r"eigen_solver must be one of .*got eigen_solver='lobpcg'"),
        (dict(eigen_solver="arpack", tol=-1.0), r"tol must be a finite number >= 0; got tol=-1.0"),
        (
            dict(eigen_solver="arpack", max_iter=0),
            r"max_iter must be None or an int >= 1; got max_iter=0",
        ),
        (
            dict(preimage_tol=-1e-3),
            r"preimage_tol must be a finite number >= 0; got preimage_tol=-0.001",
        ),
        (
            dict(preimage_max_iter=0),
            r"preimage_max_iter must be an int >= 1; got preimage_max_iter=0",
        ),
        (dict(random_state="x"), r"random_state='x'"),
    ],
)
def test_fit_rejects_bad_parameters(kwargs, match):
    X = np.random.default_rng(0).standard_normal((10, 2))
    params = dict(n_components=1, sigma2=1.0) | kwargs
    with pytest.raises(ValueError, match=match):
        KernelPCA(**params).fit(X)


@pytest.mark.parametrize("method", ["transform", "denoise", "inverse_transform"])
def test_methods_before_fit_raise(method):
    with pytest.raises(NotFittedError, match=rf"not fitted yet; call fit\(X\) before {method}\(\)"):
        getattr(KernelPCA(), method)(np.zeros((2, 1)))


def test_feature_count_mismatch_raises(blob):
    model = KernelPCA(2, 1.0).fit(blob)
    with pytest.raises(
        ValueError, match=r"X has 2 features, but KernelPCA is expecting 3 .*X.shape=\(4, 2\)"
    ):
        model.transform(np.zeros((4, 2)))
    with pytest.raises(ValueError, match=r"X has 4 features, but KernelPCA is expecting 3"):
        model.denoise(np.zeros((1, 4)))
    with pytest.raises(ValueError, match=r"Z has 3 features but 2 were expected"):
        model.inverse_transform(np.zeros((1, 3)))
    with pytest.raises(ValueError, match=r"X must contain only finite values"):
        model.transform(np.full((1, 3), np.nan))


def test_init_only_stores_parameters():
    model = KernelPCA(n_components=-5, sigma2="nonsense", eigen_solver="bogus")
    assert (model.n_components, model.sigma2, model.eigen_solver) == (-5, "nonsense", "bogus")
    assert not hasattr(model, "alphas_")


def test_transform_is_stable_for_near_zero_eigenvalues():
    # two distinct points: the centred kernel has rank 1, so its second eigenvalue is rounding
    # noise and the second eigenvector an arbitrary null-space direction
    X = np.zeros((12, 1))
    X[0, 0] = 1.125
    model = KernelPCA(2, 19.0, random_state=0)
    Z = model.fit_transform(X)
    N, lam = X.shape[0], model.eigenvalues_
    eps = np.finfo(float).eps
    assert lam[1] < N * eps * max(1.0, lam[0])
    # a numerically zero component carries no variance: zero scores, in and out of sample
    assert np.all(Z[:, 1] == 0) and np.all(model.transform(X)[:, 1] == 0)
    # the resolved one: Kc is exact to N eps (entries <= 1), scaled by 1/sqrt(lambda_1)
    np.testing.assert_allclose(model.transform(X), Z, rtol=0, atol=10 * N * eps / np.sqrt(lam[0]))


def test_transform_is_stable_for_small_resolved_eigenvalues():
    # a third of the points slightly apart: lambda_2 ~ 1e-8 lambda_1, above the rounding floor,
    # so transform centres the test kernel explicitly; its error is N eps / sqrt(lambda_k)
    rng = np.random.default_rng(0)
    X = np.zeros((30, 2))
    X[:10] = 1.0
    X[10:20, 0] = 1e-3 * rng.standard_normal(10)
    model = KernelPCA(2, 50.0, random_state=0)
    Z = model.fit_transform(X)
    N, lam = X.shape[0], model.eigenvalues_
    eps = np.finfo(float).eps
    assert N * eps * max(1.0, lam[0]) < lam[1] < 1e-6 * lam[0]
    bound = 10 * N * eps / np.sqrt(lam)
    assert np.all(np.abs(model.transform(X) - Z) <= bound)
