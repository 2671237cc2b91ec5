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


def test_figure_7_histograms_are_the_distances_and_the_draw_after_the_replicates():
    # made when first read: the data's training-to-all distances, and the next child of the
    # selection's generator, the same draw as one made eagerly after the q replicates
    # (reference: the generator's children in order)
    X, _ = semicircles(60, snr_db=10, random_state=0)
    res = select(X, "mdd", random_state=4, n_draws=5, grid=np.geomspace(0.05, 1, 4), n_train=20)
    rng = np.random.default_rng(4)
    train = np.sort(rng.permutation(len(X))[:20])
    r, mom = distance_moments(X[train], X, train)
    rng.spawn(5)  # the replicates
    one = noise_distances_packed(20, mom, rng.spawn(1)[0])
    edges = np.linspace(0.0, mom["r_max"], 61)
    hist = res.details["distance_hist"]
    assert sorted(hist) == ["data", "edges", "noise"] and len(hist) == 3
    np.testing.assert_array_equal(hist["edges"], edges)
    np.testing.assert_array_equal(hist["noise"], np.histogram(one, bins=edges, density=True)[0])
    np.testing.assert_array_equal(hist["data"], np.histogram(r, bins=edges, density=True)[0])
    assert hist["noise"] is hist["noise"] and hist["data"] is hist["data"]  # made once
    with pytest.raises(KeyError):
        hist["other"]


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


# --------------------------------------------------------------------------- shortcuts
@pytest.mark.parametrize("stop", ["fixed", "sequential"])
def test_coarse_to_fine_matches_slow_reference_at_the_widths_it_evaluates(stop):
    X, _ = semicircles(60, snr_db=10, random_state=0)
    grid = np.geomspace(0.02, 2.0, 10)
    res = select(X, "mdd", grid=grid, random_state=3, n_draws=8, n_components=1, stop=stop,
                 search="coarse-to-fine")
    q = res.details["n_draws"]
    lam, tau = _reference_mdd(X, grid, 3, q, 30)  # the first q replicates
    rows = np.searchsorted(grid, res.grid)
    np.testing.assert_allclose(res.grid, grid[rows])
    assert {0, 3, 6, 9} <= set(rows.tolist()) and rows.size < grid.size
    scale = lam[:, 0].max()
    np.testing.assert_allclose(res.data_spectra[:, 0], lam[rows, 0], rtol=0, atol=1e-3 * scale)
    np.testing.assert_allclose(res.noise_spectra[:, 0], tau[rows, 0], rtol=0, atol=1e-3 * scale)
    full = lam[:, 0] - tau[:, 0]
    # the exact curve's maximum is among the evaluated widths (it is a coarse local maximum's
    # neighbourhood) and is the one selected
    assert res.sigma2 == grid[np.argmax(full)]


def test_sequential_stop_draws_batches_up_to_the_cap(monkeypatch):
    import kpca.selection._adaptive as adaptive

    X, grid, (lam, tau) = _toy()  # q = 8 reference
    monkeypatch.setattr(adaptive, "BATCH", 3)
    monkeypatch.setattr(adaptive, "SETTLE_Z", np.inf)  # never settled: batches 3, 3, 2
    res = select(X, "mdd", grid=grid, random_state=3, n_draws=8, n_components=1,
                 stop="sequential", first_batch=3)
    assert res.details["n_draws"] == 8 and res.details["stop"] == "sequential"
    scale = lam[:, 0].max()
    np.testing.assert_allclose(res.noise_spectra[:, 0], tau[:, 0], rtol=0, atol=1e-3 * scale)
    monkeypatch.setattr(adaptive, "SETTLE_Z", 0.0)  # settled after the first batch
    res = select(X, "mdd", grid=grid, random_state=3, n_draws=8, n_components=1,
                 stop="sequential", first_batch=3)
    assert res.details["n_draws"] == 3


@pytest.mark.parametrize(("criterion", "first"), [("mdd", 5), ("mdd-fast", 2)])
def test_first_batch_of_the_sequential_stop(monkeypatch, criterion, first):
    # select_mdd's sequential stop looks first after BATCH (5) replicates, select_mdd_fast's
    # after FIRST_BATCH (2), then after every BATCH more: the first q replicates' noise levels
    import kpca.selection._adaptive as adaptive

    assert (adaptive.BATCH, adaptive.FIRST_BATCH) == (5, 2)
    X, grid, (lam, tau) = _toy()  # q = 8 reference
    options = {"stop": "sequential"} if criterion == "mdd" else {}
    monkeypatch.setattr(adaptive, "SETTLE_Z", 0.0)  # settled after the first batch
    res = select(X, criterion, grid=grid, random_state=3, n_draws=8, n_components=1,
                 search="full", **options)
    assert res.details["n_draws"] == first
    _, tau_first = _reference_mdd(X, grid, 3, first, 30)  # seed 3, the first replicates
    scale = lam[:, 0].max()
    np.testing.assert_allclose(res.noise_spectra[:, 0], tau_first[:, 0], rtol=0,
                               atol=1e-3 * scale)
    monkeypatch.setattr(adaptive, "SETTLE_Z", np.inf)  # never settled: first, then 5 at most
    res = select(X, criterion, grid=grid, random_state=3, n_draws=8, n_components=1,
                 search="full", **options)
    assert res.details["n_draws"] == 8
    with pytest.raises(ValueError, match="first_batch"):
        select(X, criterion, grid=grid, random_state=3, n_components=1, first_batch=1,
               **options)


@pytest.mark.parametrize("stop", ["fixed", "sequential"])
def test_kept_replicates_are_the_replicates_drawn_again(monkeypatch, stop):
    # the coarse stage's replicates kept for the refinement (and the later batches) give the
    # numbers of replicates drawn again from their seeds, each replicate drawn once
    import kpca.selection._adaptive as adaptive
    import kpca.selection.mdd as mdd

    drawn = []

    def counted(n, moments, rng, *, sampler=None):
        drawn.append(n)
        return noise_distances_packed(n, moments, rng, sampler=sampler)

    monkeypatch.setattr(mdd, "noise_distances_packed", counted)
    monkeypatch.setattr(adaptive, "BATCH", 3)
    monkeypatch.setattr(adaptive, "SETTLE_Z", np.inf)  # never settled: batches 3, 3, 2
    X, _ = semicircles(60, snr_db=10, random_state=0)
    grid = np.geomspace(0.02, 2.0, 10)
    runs = {}
    for keep in (0, adaptive.KEEP_BYTES):
        monkeypatch.setattr(adaptive, "KEEP_BYTES", keep)
        drawn.clear()
        runs[keep] = select(X, "mdd", grid=grid, random_state=3, n_draws=8, n_components=1,
                            stop=stop, search="coarse-to-fine"), len(drawn)
    (again, n_again), (kept, n_kept) = runs.values()
    assert n_kept == 8 < n_again
    np.testing.assert_array_equal(kept.grid, again.grid)
    np.testing.assert_array_equal(kept.curve, again.curve)
    np.testing.assert_array_equal(kept.noise_spectra, again.noise_spectra)
    np.testing.assert_array_equal(kept.data_spectra, again.data_spectra)
    assert kept.sigma2 == again.sigma2 and kept.details["n_draws"] == 8


def test_fast_mdd_is_deterministic_thread_independent_and_named():
    X, _ = semicircles(80, snr_db=10, random_state=1)
    a = select(X, "mdd-fast", n_components=3, random_state=5, n_jobs=1)
    b = select(X, "varon2015-fast", n_components=3, random_state=5, n_jobs=2)
    np.testing.assert_array_equal(a.curve, b.curve)
    np.testing.assert_array_equal(a.grid, b.grid)
    assert a.sigma2 == b.sigma2 and a.criterion == "varon2015-fast"
    assert a.details["search"] == "coarse-to-fine" and 2 <= a.details["n_draws"] <= 100
    exact = select(X, "mdd", n_components=3, random_state=5)
    assert abs(np.log2(a.sigma2 / exact.sigma2)) <= 1 / 3 + 1e-9


def test_refinement_brute_force():
    from kpca.selection._adaptive import coarse_positions, refinement

    coarse = coarse_positions(13)
    np.testing.assert_array_equal(coarse, [0, 3, 6, 9, 12])
    np.testing.assert_array_equal(coarse_positions(11), [0, 3, 6, 9, 10])
    for values, expected in (
        ([0, 1, 5, 2, 0], [4, 5, 7, 8]),  # one peak: the widths between its coarse neighbours
        ([0, 4, 1, 4, 0], [1, 2, 4, 5, 7, 8, 10, 11]),  # two maxima: both refined
        ([5, 1, 0, 0, 0], [1, 2]),  # maximum at the first width
        ([0, 0, 1, 2, 3], [10, 11]),  # maximum at the last width
    ):
        got = refinement(np.array(values, float), coarse, coarse, 13)
        np.testing.assert_array_equal(got, expected)
    # widths already evaluated are not returned again
    done = np.array([0, 3, 4, 6, 9, 12])
    got = refinement(np.array([0, 1, 9, 5, 2, 0], float), done, coarse, 13)
    np.testing.assert_array_equal(got, [5, 7, 8])


def test_settled_and_standard_errors_brute_force():
    from scipy import stats as st

    from kpca.selection._adaptive import QUANTILE_SE_FACTOR, is_settled, standard_errors

    p = 0.95
    assert QUANTILE_SE_FACTOR == pytest.approx(np.sqrt(p * (1 - p)) / st.norm.pdf(st.norm.ppf(p)),
                                               abs=1e-4)
    null = np.random.default_rng(0).normal(size=(9, 4, 2))
    se = standard_errors(null, np.array([1, 2, 2, 0]))
    sd = null.std(axis=0, ddof=1)
    ref = QUANTILE_SE_FACTOR / 3 * np.array([sd[0, 0], sd[1].sum(), sd[2].sum(), 0.0])
    np.testing.assert_allclose(se, ref)
    pos = np.array([0, 3, 4, 5, 9])
    curve = np.array([0.0, 1.0, 10.0, 9.9, 2.0])
    ones = np.ones(5)
    assert is_settled(curve, ones, pos, z=3.0)  # 10 - 2 > 3 sqrt(2); the neighbours are exempt
    assert not is_settled(curve, ones, pos, z=6.0)
    assert not is_settled(np.array([0.0, 1.0, 10.0, 9.9, 9.0]), ones, pos, z=3.0)


def test_mdd_bad_shortcut_options():
    X, _ = semicircles(40, snr_db=10, random_state=0)
    with pytest.raises(ValueError, match="stop must be one of"):
        select(X, "mdd", stop="early")
    with pytest.raises(ValueError, match="search must be one of"):
        select(X, "mdd", search="golden")
