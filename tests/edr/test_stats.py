"""Tests of edr.evaluate.stats against SciPy and hand-worked examples."""

import numpy as np
import pytest
from scipy import stats as st

from edr.evaluate import stats

A = [1.0, 2.0, 3.0]
B = [4.0, 5.0, 6.0]
C = [7.0, 8.0, 9.0]


def test_bonferroni_hand_and_validation():
    np.testing.assert_allclose(stats.bonferroni([0.01, 0.2, 0.5]), [0.03, 0.6, 1.0])
    with pytest.raises(ValueError, match="pvalues must lie in"):
        stats.bonferroni([0.5, 1.5])
    with pytest.raises(ValueError, match="pvalues must be 1-D"):
        stats.bonferroni([[0.1]])


def test_kruskal_wallis_hand_worked():
    # N = 9, rank sums 6, 15, 24 (n = 3 each):
    # H = 12 / (9 * 10) * (6^2 + 15^2 + 24^2) / 3 - 3 * 10 = 12/90 * 279 - 30 = 7.2
    # epsilon^2 = H / (N - 1) = 7.2 / 8 = 0.9 ; p = chi2(2).sf(7.2) = exp(-3.6)
    r = stats.kruskal_wallis({"a": A, "b": B, "c": C})
    assert r.statistic == pytest.approx(7.2)
    assert r.pvalue == pytest.approx(np.exp(-3.6))
    assert r.effect_size == pytest.approx(0.9)
    assert (r.df, r.n_groups, r.n_obs, r.test) == (2, 3, 9, "kruskal-wallis")


def test_kruskal_wallis_matches_scipy_with_ties_and_nan():
    rng = np.random.default_rng(3)
    g = {k: np.round(rng.normal(m, 1, n), 1) for k, m, n in [("x", 0, 12),
                                                             ("y", 0.5, 9), ("z", 1, 15)]}
    ref = st.kruskal(*g.values())
    g_nan = dict(g, y=np.append(g["y"], np.nan))
    r = stats.kruskal_wallis(g_nan)
    assert r.statistic == pytest.approx(ref.statistic)
    assert r.pvalue == pytest.approx(ref.pvalue)
    assert r.n_obs == 36


def test_friedman_hand_worked():
    # 3 records, ranks always (1, 2, 3) -> rank sums 3, 6, 9:
    # chi2 = 12 / (n k (k+1)) * sum R^2 - 3 n (k+1) = 12/36 * 126 - 36 = 6 ; W = 6 / (3 * 2) = 1
    r = stats.friedman({"a": [1, 2, 3], "b": [2, 3, 4], "c": [5, 6, 7]})
    assert r.statistic == pytest.approx(6.0)
    assert r.pvalue == pytest.approx(np.exp(-3.0))
    assert r.effect_size == pytest.approx(1.0)


def test_friedman_matches_scipy_and_drops_incomplete_records():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(20, 4)) + [0, 0.3, 0.6, 0.1]
    ref = st.friedmanchisquare(*x.T)
    xn = np.vstack([x, [np.nan, 1, 2, 3]])
    r = stats.friedman({f"m{i}": xn[:, i] for i in range(4)})
    assert r.statistic == pytest.approx(ref.statistic)
    assert r.pvalue == pytest.approx(ref.pvalue)
    assert r.n_obs == 20
    assert r.effect_size == pytest.approx(ref.statistic / (20 * 3))


def test_friedman_all_tied_is_not_significant():
    r = stats.friedman({"a": [1.0, 2.0], "b": [1.0, 2.0], "c": [1.0, 2.0]})
    assert (r.statistic, r.pvalue, r.effect_size) == (0.0, 1.0, 0.0)


def test_dunn_hand_worked():
    # mean ranks 2, 5, 8 ; no ties: var unit N(N+1)/12 = 7.5 ; se = sqrt(7.5 * 2/3) = sqrt(5)
    # z(a, b) = -3 / sqrt(5) = -1.3416, p = 0.17971, Bonferroni * 3 = 0.53913
    # z(a, c) = -6 / sqrt(5) = -2.6833, p = 0.0072903, Bonferroni * 3 = 0.021871
    res = {(p.a, p.b): p for p in stats.dunn({"a": A, "b": B, "c": C})}
    ab, ac = res["a", "b"], res["a", "c"]
    assert ab.statistic == pytest.approx(-3 / np.sqrt(5))
    assert ab.pvalue == pytest.approx(0.179712, rel=1e-5)
    assert ab.pvalue_adjusted == pytest.approx(3 * 0.179712, rel=1e-5)
    assert ac.pvalue == pytest.approx(0.0072903, rel=1e-4)
    assert ac.significant() and not ab.significant()
    # Cliff's delta: every a below every b -> U_a = 0 -> delta = -1
    assert ab.effect_size == -1.0


def test_dunn_tie_correction_hand_worked():
    # values a=[1,1], b=[1,2]: joint ranks 2,2,2,4 ; mean ranks 2, 3 ; N = 4 ; one tie of t=3
    # var unit = 4*5/12 - (27-3)/(12*3) = 5/3 - 2/3 = 1 ; se = sqrt(1 * (1/2 + 1/2)) = 1 ; z = -1
    (p,) = stats.dunn({"a": [1, 1], "b": [1, 2]})
    assert p.statistic == pytest.approx(-1.0)
    assert p.pvalue == pytest.approx(2 * st.norm.sf(1.0))


def test_pairwise_wilcoxon_hand_worked():
    # d = a - b = [1, -2, 3, 4, 5]: ranks of |d| 1..5, T+ = 13, T- = 2, r = 11/15
    # exact two-sided p: subsets of {1..5} with rank sum <= 2 are {}, {1}, {2} -> 2 * 3/32 = 0.1875
    a = np.array([2.0, -1.0, 4.0, 5.0, 6.0])
    b = np.ones(5)
    (p,) = stats.pairwise_wilcoxon({"a": a, "b": b})
    assert p.statistic == 13
    assert p.effect_size == pytest.approx(11 / 15)
    assert p.pvalue == pytest.approx(0.1875)
    assert p.pvalue == pytest.approx(st.wilcoxon(a, b).pvalue)


def test_pairwise_wilcoxon_matches_scipy_bonferroni():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(25, 3)) + [0, 0.8, 0.2]
    res = stats.pairwise_wilcoxon({"p": x[:, 0], "q": x[:, 1], "r": x[:, 2]})
    for pr, (i, j) in zip(res, [(0, 1), (0, 2), (1, 2)], strict=False):
        ref = st.wilcoxon(x[:, i], x[:, j])
        assert pr.pvalue == pytest.approx(ref.pvalue)
        assert pr.pvalue_adjusted == pytest.approx(min(1.0, 3 * ref.pvalue))
        t_plus, t_minus = pr.statistic, 25 * 26 / 2 - pr.statistic
        assert min(t_plus, t_minus) == pytest.approx(ref.statistic)


def test_pairwise_wilcoxon_all_equal_is_not_significant():
    (p,) = stats.pairwise_wilcoxon({"a": [1.0, 2.0], "b": [1.0, 2.0]})
    assert (p.pvalue, p.effect_size) == (1.0, 0.0)


def test_compare_paired_and_independent():
    g = {"a": A, "b": B, "c": C}
    paired = stats.compare(g)
    assert paired.omnibus.test == "friedman" and len(paired.pairwise) == 3
    assert paired.pair("c", "a").test == "wilcoxon"
    indep = stats.compare(g, paired=False)
    assert indep.omnibus.test == "kruskal-wallis" and indep.pairwise[0].test == "dunn"
    two = stats.compare({"a": A, "b": B})
    assert two.omnibus.test == "wilcoxon" and two.omnibus.pvalue == two.pairwise[0].pvalue
    with pytest.raises(KeyError, match="no pairwise comparison"):
        paired.pair("a", "zzz")


def test_bad_input_messages():
    with pytest.raises(ValueError, match="at least 2 groups"):
        stats.kruskal_wallis({"a": A})
    with pytest.raises(ValueError, match="group 'b' has no finite values"):
        stats.kruskal_wallis({"a": A, "b": [np.nan]})
    with pytest.raises(ValueError, match="one value per record.*b=2"):
        stats.friedman({"a": A, "b": [1, 2], "c": C})
    with pytest.raises(ValueError, match="friedman needs at least 3 groups"):
        stats.friedman({"a": A, "b": B})
    with pytest.raises(ValueError, match="at least 2 complete records"):
        stats.pairwise_wilcoxon({"a": [1, np.nan], "b": [1, 2]})
    with pytest.raises(TypeError, match="groups must be a mapping"):
        stats.dunn([A, B])
