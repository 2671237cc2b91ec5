import numpy as np
import pytest

from kpca import datasets as ds


@pytest.mark.parametrize(
    "gen, kwargs, d",
    [
        (ds.semicircles, {}, 2),
        (ds.semicircles, dict(n_features=50, radius=5.0, noise=0.5), 50),
        (ds.square, {}, 2),
        (ds.two_rings, {}, 3),
    ],
)
def test_shapes_reproducibility_and_noise_level(gen, kwargs, d):
    noisy, clean = gen(4000, random_state=0, **kwargs)
    assert noisy.shape == clean.shape == (4000, d)
    again, _ = gen(4000, random_state=0, **kwargs)
    np.testing.assert_array_equal(noisy, again)
    other, _ = gen(4000, random_state=1, **kwargs)
    assert not np.allclose(noisy, other)
    std = kwargs.get("noise", 0.1)
    assert abs(np.std(noisy - clean) - std) < 0.05 * std


def test_semicircles_geometry():
    _, clean = ds.semicircles(1001, radius=2.0, noise=0.0, random_state=0)
    up, low = clean[:501], clean[501:]
    np.testing.assert_allclose(np.linalg.norm(up, axis=1), 2.0)
    assert (up[:, 1] >= 0).all()
    np.testing.assert_allclose(np.linalg.norm(low - [2.0, 1.0], axis=1), 2.0)
    assert (low[:, 1] <= 1.0).all()
    # non-intersecting: the arcs never come closer than a positive gap
    gap = np.min(np.linalg.norm(up[:, None] - low[None], axis=2))
    assert gap > 0.1


def test_semicircles_50d_embedding_is_isometric_and_block_spread():
    _, clean2 = ds.semicircles(200, noise=0.0, random_state=3)
    _, clean50 = ds.semicircles(200, noise=0.0, n_features=50, random_state=3)
    np.testing.assert_allclose(clean50, ds.embed(clean2, 50))
    d2 = np.linalg.norm(clean2[:, None] - clean2[None], axis=2)
    d50 = np.linalg.norm(clean50[:, None] - clean50[None], axis=2)
    np.testing.assert_allclose(d50, d2, atol=1e-12)
    # coordinate 1 occupies dims 0-24, coordinate 2 dims 25-49, evenly
    np.testing.assert_allclose(clean50[:, :25], np.repeat(clean2[:, :1], 25, axis=1) / 5.0)
    np.testing.assert_allclose(clean50[:, 25:], np.repeat(clean2[:, 1:], 25, axis=1) / 5.0)


def test_square_points_lie_on_the_outline():
    _, clean = ds.square(2000, side=3.0, noise=0.0, random_state=0)
    np.testing.assert_allclose(np.max(np.abs(clean), axis=1), 1.5)
    # all four edges populated
    for axis, value in [(0, 1.5), (0, -1.5), (1, 1.5), (1, -1.5)]:
        assert np.sum(np.isclose(clean[:, axis], value)) > 300


def test_two_rings_are_interlocked_circles():
    _, clean = ds.two_rings(3000, radius=1.0, noise=0.0, random_state=0)
    r1, r2 = clean[:1500], clean[1500:]
    np.testing.assert_allclose(r1[:, 2], 0.0)
    np.testing.assert_allclose(np.linalg.norm(r1, axis=1), 1.0)
    np.testing.assert_allclose(r2[:, 1], 0.0)
    np.testing.assert_allclose(np.linalg.norm(r2 - [1.0, 0, 0], axis=1), 1.0)
    # ring 2 passes through the centre of ring 1 (the rings are linked)
    assert np.min(np.linalg.norm(r2, axis=1)) < 0.01


def test_snr_db_sets_the_noise_power():
    noisy, clean = ds.square(20000, snr_db=10.0, random_state=0)
    snr = 10 * np.log10(clean.var(axis=0).sum() / (noisy - clean).var(axis=0).sum())
    assert abs(snr - 10.0) < 0.1


def test_gaussian_clusters_as_in_mika_table1():
    noisy, clean = ds.gaussian_clusters(100, sigma=0.2, random_state=0)
    assert noisy.shape == clean.shape == (1100, 10)
    centers = clean[::100]
    assert np.unique(centers, axis=0).shape[0] == 11
    assert (np.abs(centers) <= 1).all()
    np.testing.assert_array_equal(clean, np.repeat(centers, 100, axis=0))
    assert abs(np.std(noisy - clean) - 0.2) < 0.01
    test, test_clean = ds.gaussian_clusters(33, sigma=0.2, centers=centers, random_state=1)
    np.testing.assert_array_equal(test_clean[::33], centers)
    assert test.shape == (363, 10)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: ds.square(0), r"n_samples must be an int >= 1; got n_samples=0"),
        (lambda: ds.semicircles(1), r"n_samples must be an int >= 2; got n_samples=1"),
        (lambda: ds.square(10, noise=-1.0), r"noise must be a finite number >= 0; got noise=-1.0"),
        (lambda: ds.square(10, noise=0.1, snr_db=3.0), r"exactly one of noise and snr_db"),
        (lambda: ds.square(10, snr_db=np.nan), r"snr_db must be a finite number; got snr_db=nan"),
        (lambda: ds.square(10, side=0), r"side must be a finite positive number; got side=0"),
        (
            lambda: ds.two_rings(10, radius=-1.0),
            r"radius must be a finite positive number; got radius=-1.0",
        ),
        (
            lambda: ds.semicircles(10, n_features=51),
            r"n_features must be a multiple of .* 2; got n_features=51",
        ),
        (
            lambda: ds.gaussian_clusters(10, sigma=0.0),
            r"sigma must be a finite positive number; got sigma=0.0",
        ),
        (
            lambda: ds.gaussian_clusters(10, centers=np.zeros(3)),
            r"centers must be a finite 2-D array",
        ),
        (lambda: ds.square(10, random_state=1.5), r"random_state=1.5"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
