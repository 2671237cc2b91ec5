import functools

import numpy as np
import pytest
import scipy.linalg
from scipy import stats

from kpca.datasets import semicircles
from kpca.kernels import center_kernel, squared_distances
from kpca.selection import SelectionWarning, select
from kpca.selection._spectrum import pack_lower
from kpca.selection.mdd import distance_moments, noise_distance_matrix, noise_distances_packed


def _appendix_fill(values, n):
    """Brute force of the Appendix: sorted values (descending) down the lower triangle's columns."""
    v = sorted(values, reverse=True)
    R = np.zeros((n, n))
    t = 0
    for j in range(n):
        for i in range(j + 1, n):
            R[i, j] = R[j, i] = v[t]
            t += 1
    return R


def test_noise_distance_matrix_follows_appendix_and_is_a_metric():
    mom = {"mean": 2.0, "std": 0.6, "skew": 0.3, "kurtosis": 3.2, "r_max": 3.5}
    n = 30
    R = noise_distance_matrix(n, mom, np.random.default_rng(0))
    vals = R[np.tril_indices(n, -1)]
    np.testing.assert_array_equal(R, _appendix_fill(vals, n))
    assert vals.min() >= 0 and vals.max() <= 3.5
    assert np.all(np.diag(R) == 0) and np.array_equal(R, R.T)
    # Eq. (21) / triangle inequality for every triple
    assert np.all(R[:, :, None] <= R[:, None, :] + R.T[None, :, :] + 1e-12)
    # the packed draws (what select_mdd uses) are the same matrix, same stream
    np.testing.assert_array_equal(
        noise_distances_packed(n, mom, np.random.default_rng(0)), pack_lower(R)
    )


def test_distance_moments_brute_force():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20, 3))
    train = np.array([0, 3, 5, 7, 11])
    r, mom = distance_moments(X[train], X, train)
    ref = [np.linalg.norm(X[i] - X[j]) for i in train for j in range(20) if j != i]
    np.testing.assert_allclose(np.sort(r), np.sort(ref))
    assert mom["skew"] == pytest.approx(stats.skew(ref))
    assert mom["kurtosis"] == pytest.approx(stats.kurtosis(ref, fisher=False))
    assert mom["r_max"] == pytest.approx(max(ref))


@functools.lru_cache(maxsize=1)
def _toy():
    X, _ = semicircles(60, snr_db=10, random_state=0)
    grid = np.geomspace(0.02, 2.0, 7)
    return X, grid, _reference_mdd(X, grid, 3, 8, 30)


def _reference_mdd(X, grid, seed, q, nt):
    """Slow MDD: full eigh of every noise kernel at every sigma2."""
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(X))
    train = np.sort(perm[:nt])
    _, mom = distance_moments(X[train], X, train)
    children = rng.spawn(q)
    lam = np.array(
        [
            scipy.linalg.eigvalsh(center_kernel(np.exp(-squared_distances(X[train]) / (2 * s))))[
                ::-1
            ]
            for s in grid
        ]
    )
    null = np.empty((q, grid.size, nt))
    for m in range(q):
        R = noise_distance_matrix(nt, mom, children[m])
        for g, s in enumerate(grid):
            null[m, g] = scipy.linalg.eigvalsh(center_kernel(np.exp(-(R**2) / (2 * s))))[::-1]
    tau = np.percentile(null, 95, axis=0, method="hazen")
    return lam, tau


@pytest.mark.parametrize("n_components", [None, 1])
def test_mdd_matches_slow_reference(n_components):
    X, grid, (lam, tau) = _toy()
    res = select(X, "mdd", grid=grid, random_state=3, n_draws=8, n_components=n_components)
    k = res.data_spectra.shape[1]
    np.testing.assert_allclose(res.data_spectra, lam[:, :k], rtol=0, atol=1e-5)
    np.testing.assert_allclose(res.noise_spectra, tau[:, :k], rtol=0, atol=1e-5)
    diff = lam - tau
    if n_components is None:
        nc = np.array([np.argmin(np.append(d > 0, False)) for d in diff])
        curve = np.array([d[:c].sum() for d, c in zip(diff, nc, strict=False)])
        np.testing.assert_array_equal(res.n_components_grid, nc)
    else:
        curve = diff[:, 0]
    np.testing.assert_allclose(res.curve, curve, rtol=0, atol=1e-5)
    assert res.sigma2 == grid[np.argmax(curve)]
    assert res.criterion == "varon2015" and res.random_state == 3


def test_mdd_deterministic_and_thread_independent():
    X, _ = semicircles(80, snr_db=10, random_state=1)
    a = select(X, "mdd", n_components=1, random_state=5, n_draws=12, n_jobs=1)
    b = select(X, "mdd", n_components=1, random_state=5, n_draws=12, n_jobs=2)
    np.testing.assert_array_equal(a.curve, b.curve)
    np.testing.assert_array_equal(a.noise_spectra, b.noise_spectra)
    assert a.sigma2 == b.sigma2


def test_mdd_details_for_figure_7():
    X, _ = semicircles(60, snr_db=10, random_state=0)
    res = select(X, "mdd", random_state=0, n_draws=5, grid=np.geomspace(0.05, 1, 4), n_train=20)
    d = res.details
    assert d["n_train"] == 20 and d["train_index"].size == 20
    assert set(d["moments"]) == {"mean", "std", "skew", "kurtosis", "r_max"}
    assert d["distance_hist"]["data"].size == d["distance_hist"]["noise"].size == 60
    assert res.data_spectra.shape == res.noise_spectra.shape == (4, 20)


def test_mdd_outside_pearson_region():
    X = np.eye(12)  # regular simplex: every distance equals sqrt(2)
    with pytest.raises(ValueError, match="outside the Pearson region"):
        select(X, "mdd", random_state=0, n_draws=3)


def test_mdd_no_positive_criterion_falls_back_with_warning():
    X, _ = semicircles(40, snr_db=10, random_state=0)
    tiny = [1e-6, 2e-6]  # kernel = identity: data and noise spectra coincide, no structure
    with pytest.warns(SelectionWarning, match="no sigma2 in the grid gives a positive"):
        res = select(X, "mdd", grid=tiny, random_state=0, n_draws=4)
    assert res.n_components == 0 and "fallback" in res.details


def test_mdd_bad_parameters():
    X, _ = semicircles(40, snr_db=10, random_state=0)
    with pytest.raises(ValueError, match="n_draws must be an int >= 2"):
        select(X, "mdd", n_draws=1)
    with pytest.raises(ValueError, match="n_train must"):
        select(X, "mdd", n_train=1.5)
    with pytest.raises(ValueError, match="n_train must give between 5"):
        select(X, "mdd", n_train=3)
    with pytest.raises(ValueError, match="n_components must be <="):
        select(X, "mdd", n_components=30)


def test_mdd_selections_running_together_share_the_pool_and_match():
    from concurrent.futures import ThreadPoolExecutor

    data = [semicircles(70, snr_db=10, random_state=s)[0] for s in range(3)]
    alone = [select(X, "mdd", n_components=2, random_state=4, n_draws=25, n_jobs=2)
             for X in data]
    with ThreadPoolExecutor(max_workers=3) as ex:
        together = list(ex.map(lambda X: select(X, "mdd", n_components=2, random_state=4,
                                                n_draws=25, n_jobs=2), data))
    for a, b in zip(alone, together, strict=True):
        np.testing.assert_array_equal(a.noise_spectra, b.noise_spectra)
        np.testing.assert_array_equal(a.data_spectra, b.data_spectra)
        assert a.sigma2 == b.sigma2
