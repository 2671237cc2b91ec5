import functools

import numpy as np
import pytest
import scipy.linalg

from kpca.datasets import semicircles, square
from kpca.kernels import center_kernel, squared_distances
from kpca.selection import SelectionWarning, rule_of_thumb_sigma2, select


@functools.lru_cache(maxsize=1)
def _toy():
    X, _ = semicircles(50, n_features=6, noise=0.3, random_state=0)
    grid = np.geomspace(0.3, 10, 6)
    return X, grid, _reference_kpa(X, grid, 2, 9)


def _reference_kpa(X, grid, seed, p):
    """Slow Algorithm 1 of Jørgensen & Hansen: full eigh of every permuted kernel."""
    rng = np.random.default_rng(seed)
    children = rng.spawn(p)

    def spec(Y):
        D2 = squared_distances(Y)
        return np.array(
            [scipy.linalg.eigvalsh(center_kernel(np.exp(-D2 / (2 * s))))[::-1] for s in grid]
        )

    lam = spec(X)
    null = np.array([spec(children[j].permuted(X, axis=0)) for j in range(p)])
    T = np.percentile(null, 95, axis=0, method="hazen")
    return lam, T


def test_kpa_matches_slow_reference():
    X, grid, (lam, T) = _toy()
    res = select(X, "kpa", grid=grid, random_state=2, n_permutations=9)
    np.testing.assert_allclose(res.data_spectra, lam, atol=1e-9)
    np.testing.assert_allclose(res.noise_spectra, T, atol=1e-9)
    q = np.array([np.argmin(np.append(d > 0, False)) for d in lam - T])
    E = np.array([(d[:c]).sum() for d, c in zip(lam - T, q, strict=False)])
    np.testing.assert_array_equal(res.n_components_grid, q)
    np.testing.assert_allclose(res.curve, E, atol=1e-9)
    assert res.sigma2 == grid[np.argmax(E)] and res.n_components == q[np.argmax(E)]


def test_kpa_fixed_components_uses_leading_differences():
    X, grid, (lam, T) = _toy()
    res = select(X, "kpa", grid=grid, random_state=2, n_permutations=9, n_components=2)
    np.testing.assert_allclose(res.curve, (lam - T)[:, :2].sum(axis=1), rtol=0, atol=1e-5)
    assert res.n_components == 2


def test_kpa_on_square_retains_no_component():
    # Varon et al. 2015, Figs. 9-10: in 2-D the permuted data look like the data.  Grid with the
    # rule of thumb as upper bound (Fig. 9 caption); scripts/repro_square_kpa_vs_mdd.py reports
    # the wider default grid too.
    X, _ = square(300, snr_db=10, random_state=0)
    grid = rule_of_thumb_sigma2(X) * 2.0 ** (np.arange(-15, 1) / 3)
    with pytest.warns(SelectionWarning):
        res = select(X, "kpa", grid=grid, random_state=0, n_permutations=9, n_eigenvalues=5)
    assert res.n_components == 0
    assert np.all(res.n_components_grid == 0)


def test_kpa_deterministic():
    X, _ = semicircles(40, n_features=4, noise=0.3, random_state=0)
    a = select(X, "jorgensen2012", random_state=7, n_permutations=5, n_components=1)
    b = select(X, "kpa", random_state=7, n_permutations=5, n_components=1)
    np.testing.assert_array_equal(a.curve, b.curve)


def test_kpa_full_spectra_do_not_depend_on_threads():
    """Full spectra run one matrix per thread task (and the data spectrum in the same pool)."""
    X, _ = semicircles(40, n_features=4, noise=0.3, random_state=0)
    a = select(X, "kpa", random_state=7, n_permutations=7, n_jobs=1)
    b = select(X, "kpa", random_state=7, n_permutations=7, n_jobs=2)
    np.testing.assert_array_equal(a.noise_spectra, b.noise_spectra)
    np.testing.assert_array_equal(a.data_spectra, b.data_spectra)
    assert a.data_spectra.shape[1] == 40 and a.n_components == b.n_components


def test_kpa_bad_parameters():
    X, _ = semicircles(40, noise=0.3, random_state=0)
    with pytest.raises(ValueError, match="n_permutations must be an int >= 2"):
        select(X, "kpa", n_permutations=1)
    with pytest.raises(ValueError, match="n_eigenvalues must be None or an int"):
        select(X, "kpa", n_eigenvalues=0)
