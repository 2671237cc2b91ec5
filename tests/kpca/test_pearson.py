import numpy as np
import pytest
from scipy import integrate, stats

import kpca.pearson.sorted_draws as kpca_pearson
from kpca.pearson import (
    SortedPearsonSampler,
    in_pearson_region,
    pearson_parameters,
    pearson_type,
    pearsrnd,
    pearsrnd_sorted,
)
from kpca.pearson.laws import standard_law
from kpca.pearson.system import type4_shape

# inverse gamma with alpha = 11 lies exactly on the type V line: skew 1.5, kurtosis 432/56
TYPE_V = (1.5, 432.0 / 56.0)
CASES = {
    0: (0.0, 3.0),
    1: (0.5, 2.5),
    2: (0.0, 2.2),
    3: (1.0, 4.5),  # 2 b2 - 3 b1 - 6 = 0
    4: (0.5, 4.5),
    5: TYPE_V,
    6: (1.0, 4.7),
    7: (0.0, 4.5),
}


@pytest.mark.parametrize("ptype", sorted(CASES))
def test_type_selection_matches_pearsrnd_rules(ptype):
    assert pearson_type(*CASES[ptype]) == ptype


def test_type_boundaries():
    # denominator D = 10 b2 - 12 b1 - 18 = 0 is treated as type I (as pearsrnd)
    assert pearson_type(np.sqrt(0.5), 1.8 + 1.2 * 0.5) == 1
    assert pearson_type(0.0, 1.8) == 1  # uniform, on D = 0: pearsrnd reports type 1
    assert pearson_type(-1.0, 4.5) == 3
    assert pearson_type(-1.0, 4.7) == 6


@pytest.mark.parametrize("ptype", sorted(CASES))
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_sample_moments_match_targets(ptype, sign):
    skew, kurt = CASES[ptype]
    skew *= sign
    x = pearsrnd(2.0, 3.0, skew, kurt, 300_000, random_state=7)
    assert pearson_type(skew, kurt) == ptype
    assert x.mean() == pytest.approx(2.0, abs=0.03)
    assert x.std() == pytest.approx(3.0, rel=0.01)
    assert stats.skew(x) == pytest.approx(skew, abs=0.06)
    assert stats.kurtosis(x, fisher=False) == pytest.approx(kurt, rel=0.06)


def _type4_cdf(p):
    """CDF of the type IV density (1 + t^2)^-m exp(-nu arctan t), t = (x - lam)/a, by
    cumulative quadrature in theta = arctan t (bounded interval), fine grid."""
    m, nu, a, lam = type4_shape(p)
    theta = np.linspace(-np.pi / 2, np.pi / 2, 200_001)
    g = np.cos(theta) ** (2 * m - 2) * np.exp(-nu * theta)
    c = integrate.cumulative_trapezoid(g, theta, initial=0.0)
    c /= c[-1]
    return lambda x: np.interp(np.arctan((np.asarray(x) - lam) / a), theta, c)


def test_type4_sampler_against_numerical_cdf():
    p = pearson_parameters(0.7, 5.0)
    assert p.type == 4
    cdf = _type4_cdf(p)
    x = pearsrnd(0.0, 1.0, 0.7, 5.0, 20_000, random_state=3)
    res = stats.kstest(x, cdf)
    assert res.pvalue > 0.01


def test_truncation_gives_the_truncated_distribution():
    x = pearsrnd(1.0, 0.5, 0.8, 4.0, 50_000, random_state=1, truncate=(0.5, 1.5))
    assert x.min() >= 0.5 and x.max() <= 1.5
    ref = pearsrnd(1.0, 0.5, 0.8, 4.0, 200_000, random_state=2)
    ref = ref[(ref >= 0.5) & (ref <= 1.5)]
    assert stats.ks_2samp(x, ref).pvalue > 0.01


def test_same_seed_same_draws_and_scalar_output():
    a = pearsrnd(0, 1, 0.5, 4.5, 100, random_state=5)
    b = pearsrnd(0, 1, 0.5, 4.5, 100, random_state=5)
    np.testing.assert_array_equal(a, b)
    assert isinstance(pearsrnd(0, 1, 0, 3, random_state=0), float)
    assert pearsrnd(0, 1, 0, 3, (2, 3), random_state=0).shape == (2, 3)


def test_bad_input():
    with pytest.raises(ValueError, match="kurtosis must exceed skew"):
        pearsrnd(0, 1, 1.0, 2.0, 10)
    with pytest.raises(ValueError, match="kurtosis must exceed skew"):
        pearson_type(0.0, 1.0)
    with pytest.raises(ValueError, match="sigma must be a finite positive"):
        pearsrnd(0, 0.0, 0.0, 3.0, 10)
    with pytest.raises(ValueError, match="truncate must be an interval"):
        pearsrnd(0, 1, 0.0, 3.0, 10, truncate=(1.0, 1.0))
    with pytest.raises(ValueError, match="too little probability mass"):
        pearsrnd(0, 1, 0.0, 3.0, 10, random_state=0, truncate=(50.0, 51.0))
    with pytest.raises(ValueError, match="skew must be a finite number; got skew=nan"):
        pearson_type(np.nan, 3.0)
    with pytest.raises(ValueError, match="kurtosis must be a finite number; got kurtosis=inf"):
        pearson_type(0.0, np.inf)
    with pytest.raises(ValueError, match="mu must be a finite number; got mu=nan"):
        pearsrnd(np.nan, 1.0, 0.0, 3.0, 10)


def test_pearson_region_is_kurtosis_above_skew_squared_plus_one():
    assert in_pearson_region(0.0, 1.0 + 1e-12) and in_pearson_region(-2.0, 5.5)
    assert not in_pearson_region(0.0, 1.0) and not in_pearson_region(2.0, 5.0)
    assert not in_pearson_region(np.nan, 3.0) and not in_pearson_region(0.0, np.nan)


# --- sorted draws (order statistics through the tabulated exact quantile) -------------------


@pytest.mark.parametrize("ptype", sorted(CASES))
@pytest.mark.parametrize("truncate", [None, (0.5, 6.0)])
def test_sorted_draws_follow_the_same_distribution(ptype, truncate):
    skew, kurt = CASES[ptype]
    for sign in (1.0, -1.0):
        x = pearsrnd_sorted(2.0, 3.0, sign * skew, kurt, 40_000, random_state=1, truncate=truncate)
        assert np.all(np.diff(x) >= 0)
        if truncate is not None:
            assert x.min() >= 0.5 and x.max() <= 6.0
        ref = pearsrnd(2.0, 3.0, sign * skew, kurt, 40_000, random_state=2, truncate=truncate)
        assert stats.ks_2samp(x, ref).pvalue > 0.001


@pytest.mark.parametrize("ptype", [0, 1, 2, 3, 5, 6, 7])
@pytest.mark.parametrize("truncate", [None, (-1.0, 2.5)])
def test_quantile_table_matches_the_exact_quantile(ptype, truncate):
    """Cubic Hermite interpolation of the tables = SciPy's exact ppf/isf, to 1e-5 relative in
    the extreme tails (1e-10 < u < 1e-4) and 1e-6 standard deviations in the bulk."""
    skew, kurt = CASES[ptype]
    s = SortedPearsonSampler(0.0, 1.0, skew, kurt, truncate=truncate)
    q = s._quantile
    # below ~1e-10 SciPy's own betaprime isf is off by 1e-4 (sf(isf(t)) / t), so the reference
    # stops there
    t = np.sort(
        np.concatenate(
            [np.geomspace(1e-10, 1e-4, 2000), np.random.default_rng(0).uniform(1e-4, 0.5, 20_000)]
        )
    )
    for upper in (False, True):
        exact = -q.upper(t) if upper else q.lower(t)
        got = np.array([_hermite_at(v, *s._tables[upper]) for v in t])
        err = np.abs(got - exact) * abs(s._scale)
        bulk = t >= 1e-4
        assert err[bulk].max() < 1e-6
        assert np.all(err[~bulk] <= 1e-5 * np.maximum(1.0, np.abs(exact[~bulk]) * abs(s._scale)))


@pytest.mark.parametrize("ptype", [0, 1, 2, 3, 5, 6, 7])
@pytest.mark.parametrize("truncate", [None, (-1.0, 2.5)])
def test_quantile_table_knots_are_the_exact_quantile(ptype, truncate):
    """The knots between the exact ones (one Newton step on the cdf from the Hermite
    interpolant of the exact knots) = SciPy's exact ppf/isf at the same knots, to 1e-9
    standard deviations (relative beyond one): far below the interpolation's own error."""
    skew, kurt = CASES[ptype]
    exact_at = kpca_pearson._exact_knots()
    assert 0 < exact_at.sum() < exact_at.size  # both kinds of knots are there
    for sign in (1.0, -1.0):
        s = SortedPearsonSampler(0.0, 1.0, sign * skew, kurt, truncate=truncate)
        q = s._quantile
        for upper in (False, True):
            t, z, m = q.table(upper)
            exact = -q.upper(t) if upper else q.lower(t)
            assert np.array_equal(z[exact_at], exact[exact_at])
            err = np.abs(z - exact) * abs(s._scale)
            assert np.all(err <= 1e-9 * np.maximum(1.0, np.abs(exact) * abs(s._scale)))
            assert np.all(np.isfinite(m)) and np.all(np.diff(z) >= 0)


def _hermite_at(t, kt, inv_h, c):
    j = max(0, min(np.searchsorted(kt, t) - 1, kt.size - 2))
    z, _ = kpca_pearson._hermite(t, kt, inv_h, c, j)
    return z


def test_hermite_coefficients_reproduce_values_and_slopes():
    kt = np.array([0.0, 0.5, 1.5])
    kz = np.array([1.0, 2.0, 0.0])
    km = np.array([0.5, -1.0, 3.0])
    kt_, inv_h, c = kpca_pearson._hermite_coefficients(kt, kz, km)
    for j in range(2):
        h = kt[j + 1] - kt[j]
        assert c[j].sum() == pytest.approx(kz[j + 1]) and c[j, 0] == kz[j]
        assert c[j, 1] / h == pytest.approx(km[j])
        assert (c[j, 1] + 2 * c[j, 2] + 3 * c[j, 3]) / h == pytest.approx(km[j + 1])


def test_order_statistics_kernel_matches_the_slow_formula():
    """The compiled merge walk = sorted uniforms U_(k) = S_k / S_{n+1} mapped through the table."""
    s = SortedPearsonSampler(1.0, 0.5, 0.5, 2.5, truncate=(0.0, 2.5))
    e = np.random.default_rng(3).standard_exponential(5001)
    y = np.empty(5000)
    kpca_pearson._order_statistics(e, *s._tables[0], *s._tables[1], y)
    u = np.cumsum(e)[:-1] / e.sum()
    v = np.cumsum(e[::-1])[::-1][1:] / e.sum()  # 1 - u without cancellation
    ref = np.where(
        u <= 0.5, s._quantile.lower(np.minimum(u, 0.5)), s._quantile.upper(np.minimum(v, 0.5))
    )
    np.testing.assert_allclose(y, ref, rtol=0, atol=1e-6)


def test_sorted_draws_are_reproducible_and_type4_is_the_sorted_rejection_sample():
    a = pearsrnd_sorted(0, 1, 0.5, 2.5, 1000, random_state=4, truncate=(-1, 2))
    np.testing.assert_array_equal(
        a, pearsrnd_sorted(0, 1, 0.5, 2.5, 1000, random_state=4, truncate=(-1, 2))
    )
    assert pearson_type(0.5, 4.5) == 4
    np.testing.assert_array_equal(
        pearsrnd_sorted(0, 1, 0.5, 4.5, 1000, random_state=4),
        np.sort(pearsrnd(0, 1, 0.5, 4.5, 1000, random_state=4)),
    )


def test_sorted_draws_bad_input():
    with pytest.raises(ValueError, match="low < high"):
        pearsrnd_sorted(0, 1, 0.5, 2.5, 10, truncate=(2.0, 1.0))
    with pytest.raises(ValueError, match="too little probability mass"):
        pearsrnd_sorted(0, 1, 0.0, 3.0, 10, truncate=(50.0, 60.0))
    with pytest.raises(ValueError, match="sigma must be"):
        SortedPearsonSampler(0, 0.0, 0.5, 2.5)
    with pytest.raises(ValueError, match="kurtosis must exceed"):
        SortedPearsonSampler(0, 1.0, 2.0, 4.0)


# --- the standard laws from scipy.special against scipy.stats --------------------------------

#: every law of the sorted sampler (types 0-III, V-VII), shapes from the bulk to the extremes
LAWS = [("norm",), ("beta", 0.4, 0.7), ("beta", 3.0, 50.0), ("beta", 1.5, 1.5), ("gamma", 0.3),
        ("gamma", 4.0), ("gamma", 300.0), ("invgamma", 2.5), ("invgamma", 40.0),
        ("betaprime", 2.0, 5.0), ("betaprime", 0.6, 30.0), ("betaprime", 40.0, 3.2),
        ("t", 0.7), ("t", 3.0), ("t", 40.0)]


@pytest.mark.parametrize("case", LAWS, ids=lambda c: "-".join(map(str, c)))
def test_laws_match_scipy_stats_to_the_far_tails(case):
    name, *shapes = case
    law, ref = standard_law(name, *shapes), getattr(stats, name)(*shapes)
    p = np.concatenate([np.geomspace(1e-13, 0.25, 300), np.linspace(0.25, 0.5, 51)])
    y = np.concatenate([ref.ppf(p), ref.isf(p), [-np.inf, -2.0, 0.0, 1.0, 1e6, np.inf]])
    want = {f: getattr(ref, f) for f in ("cdf", "sf", "pdf", "ppf", "isf")}
    if name == "betaprime":
        # SciPy's betaprime.sf and .isf lose up to 2e-9 and 1e-4 (below q ~ 1e-10) relative;
        # Y = X / (1 - X) with 1 - X ~ beta(b, a) gives the exact references
        flip = stats.beta(shapes[1], shapes[0])
        want["sf"] = lambda v: flip.cdf(1.0 / (1.0 + np.maximum(v, 0.0)))
        want["isf"] = lambda q: (1.0 - flip.ppf(q)) / flip.ppf(q)
        bulk = p >= 1e-6
        np.testing.assert_allclose(law.isf(p[bulk]), ref.isf(p[bulk]), rtol=1e-9, atol=0)
    for f in ("ppf", "isf"):
        np.testing.assert_allclose(getattr(law, f)(p), want[f](p), rtol=1e-13, atol=0,
                                   err_msg=f)
    for f in ("cdf", "sf", "pdf"):
        with np.errstate(invalid="ignore", over="ignore"):  # SciPy's, at +-inf
            got, exact = getattr(law, f)(y), want[f](y)
        ok = np.isfinite(exact)  # SciPy's gamma pdf is nan at +inf where this one is 0
        np.testing.assert_allclose(got[ok], exact[ok], rtol=2e-13, atol=0, err_msg=f)


@pytest.mark.parametrize("ptype", [0, 1, 2, 3, 5, 6, 7])
@pytest.mark.parametrize("truncate", [None, (0.0, 6.0), (2.5, 4.0)])
def test_truncated_quantile_matches_scipy_stats(ptype, truncate):
    """The truncated quantile of the sampler (MDD's ``[0, r_max]`` and narrower) = the same
    built from the frozen :mod:`scipy.stats` law."""
    skew, kurt = CASES[ptype]
    for sign in (1.0, -1.0):
        s = SortedPearsonSampler(3.0, 1.0, sign * skew, kurt, truncate=truncate)
        q = s._quantile
        ref = kpca_pearson._TruncatedQuantile(getattr(stats, q.law.name)(*q.law.shapes),
                                              q.y_lo, q.y_hi)
        assert q.mass == pytest.approx(ref.mass, rel=1e-13)
        t = np.geomspace(1e-13, 0.5, 200)
        scale = max(1.0, np.abs(ref.lower(t)).max(), np.abs(ref.upper(t)).max())
        np.testing.assert_allclose(q.lower(t), ref.lower(t), rtol=0, atol=1e-13 * scale)
        if q.law.name != "betaprime":  # SciPy's isf: see the test above
            np.testing.assert_allclose(q.upper(t), ref.upper(t), rtol=0, atol=1e-13 * scale)


@pytest.mark.parametrize("b", [0.7, -0.7])
def test_finish_matches_the_slow_loop(b):
    """Clip to [lo, hi], keep the order (a running maximum), map a + b y, ascending."""
    y = np.sort(np.random.default_rng(5).normal(size=300))
    y[[50, 120, 121]] = y[[49, 119, 119]] - 1e-12  # ulp-sized breaks of the order
    lo, hi, a = -1.0, 1.5, 0.3
    ref, prev = [], lo
    for v in y:
        prev = min(max(v, prev), hi)
        ref.append(a + b * prev)
    ref = np.array(ref if b > 0 else ref[::-1])
    got = kpca_pearson._finish(y, lo, hi, a, b)
    np.testing.assert_array_equal(got, ref)
    assert np.all(np.diff(got) >= 0) and got.min() >= a + min(b * lo, b * hi)


@pytest.mark.parametrize("b", [1.7, -0.3])
def test_finish_in_place_is_the_written_out_formula(b):
    # clip, running maximum, clip, a + b * v (reversed for b < 0), bit for bit, in place
    rng = np.random.default_rng(0)
    y = np.sort(rng.normal(size=5000))
    y[100] = y[99] - 1e-16  # an ulp out of order (Hermite rounding)
    y[0], y[-1] = -50.0, 50.0  # beyond the clip limits
    v = np.minimum(np.maximum.accumulate(np.maximum(y, -3.0)), 2.0)
    ref = 0.4 + b * (v if b > 0 else v[::-1])
    got = kpca_pearson._finish(y.copy(), -3.0, 2.0, 0.4, b)
    assert np.array_equal(got, ref) and got.flags.c_contiguous
