"""Statistical comparison of EDR methods over records.

Two families of tests are offered, because two designs are possible:

* **Independent groups** (what Varon et al. 2015, Section VI, used): the
  Kruskal–Wallis H test across methods (:func:`kruskal_wallis`), then pairwise
  comparisons with the Bonferroni correction. MATLAB's ``multcompare`` applied
  to ``kruskalwallis`` statistics compares *mean ranks of the joint ranking*
  with a normal approximation, which is Dunn's (1964) test; :func:`dunn` does
  exactly that, so our p-values are comparable with the paper's.
* **Paired design** (what the data really are: every method is scored on the
  same records): the Friedman test (:func:`friedman`), then pairwise Wilcoxon
  signed-rank tests with the Bonferroni correction (:func:`pairwise_wilcoxon`).
  The report uses these as the primary tests (``docs/design.md``, section 5).

Effect sizes: epsilon-squared for Kruskal–Wallis, Kendall's W for Friedman,
the rank-biserial correlation for pairs (Cliff's delta for independent groups,
the matched-pairs rank-biserial correlation for paired ones).

Every function takes ``groups``: a mapping ``name -> 1-D array`` (one value per
record). ``NaN`` values are dropped per group for the independent tests and
record-wise (complete cases only) for the paired tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations

import numpy as np
from scipy import stats as _st

from edr.evaluate.stat_results import Comparison, OmnibusResult, PairwiseResult

__all__ = [
    "OmnibusResult",
    "PairwiseResult",
    "Comparison",
    "bonferroni",
    "kruskal_wallis",
    "friedman",
    "dunn",
    "pairwise_wilcoxon",
    "compare",
]


def bonferroni(pvalues) -> np.ndarray:
    """Bonferroni adjustment: ``min(1, m * p)`` for ``m`` p-values.

    See Also
    --------
    dunn, pairwise_wilcoxon

    Examples
    --------
    >>> from edr.evaluate.stats import bonferroni
    >>> bonferroni([0.01, 0.04, 0.5])
    array([0.03, 0.12, 1.  ])
    """
    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 1:
        raise ValueError(f"pvalues must be 1-D, got shape {p.shape}")
    if np.any((p < 0) | (p > 1)):
        raise ValueError(f"pvalues must lie in [0, 1], got {p}")
    return np.minimum(1.0, p * p.size)


def _independent(groups: Mapping) -> dict[str, np.ndarray]:
    if not isinstance(groups, Mapping):
        raise TypeError(f"groups must be a mapping name -> values, got {type(groups).__name__}")
    if len(groups) < 2:
        raise ValueError(f"groups must hold at least 2 groups, got {len(groups)}")
    out = {}
    for name, values in groups.items():
        v = np.asarray(values, dtype=float).ravel()
        v = v[np.isfinite(v)]
        if v.size == 0:
            raise ValueError(f"group {name!r} has no finite values")
        out[str(name)] = v
    return out


def _paired(groups: Mapping) -> tuple[list[str], np.ndarray]:
    if not isinstance(groups, Mapping):
        raise TypeError(f"groups must be a mapping name -> values, got {type(groups).__name__}")
    if len(groups) < 2:
        raise ValueError(f"groups must hold at least 2 groups, got {len(groups)}")
    names = [str(k) for k in groups]
    cols = [np.asarray(v, dtype=float).ravel() for v in groups.values()]
    sizes = {c.size for c in cols}
    if len(sizes) != 1:
        raise ValueError(
            "paired groups must have one value per record each, got lengths "
            + ", ".join(f"{n}={c.size}" for n, c in zip(names, cols, strict=False))
        )
    data = np.column_stack(cols)
    data = data[np.all(np.isfinite(data), axis=1)]
    if data.shape[0] < 2:
        raise ValueError(f"paired groups need at least 2 complete records, got {data.shape[0]}")
    return names, data


def kruskal_wallis(groups: Mapping) -> OmnibusResult:
    """Kruskal–Wallis H test across independent groups (:func:`scipy.stats.kruskal`).

    Effect size: epsilon-squared ``E_R^2 = H / ((n^2 - 1) / (n + 1)) = H / (n - 1)``
    (Tomczak & Tomczak 2014), with ``n`` the total number of observations.

    Parameters
    ----------
    groups : Mapping[str, array_like]
        One array of scores per method; NaN dropped.

    Returns
    -------
    OmnibusResult

    See Also
    --------
    dunn : the pairwise comparisons after it.
    friedman : the paired design.
    scipy.stats.kruskal

    References
    ----------
    .. [1] W. H. Kruskal and W. A. Wallis, "Use of ranks in one-criterion variance analysis," J. Am.
       Stat. Assoc. 47(260), 583-621, 1952.
    .. [2] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. The
       Kruskal-Wallis test across σ² criteria, Sec. VI-C.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> groups = {"kpca": rng.normal(0.8, 0.05, 20), "pca": rng.normal(0.6, 0.05, 20),
    ...           "rsa": rng.normal(0.61, 0.05, 20)}  # one MSC per record and method
    >>> from edr.evaluate.stats import kruskal_wallis
    >>> r = kruskal_wallis(groups)
    >>> r.test, r.df, r.n_obs, bool(r.pvalue < 1e-6)
    ('kruskal-wallis', 2, 60, True)
    """
    g = _independent(groups)
    h, p = _st.kruskal(*g.values())
    n = sum(v.size for v in g.values())
    return OmnibusResult("kruskal-wallis", float(h), float(p), len(g) - 1,
                         float(h / (n - 1)), "epsilon-squared", len(g), n)


def friedman(groups: Mapping) -> OmnibusResult:
    """Friedman test for ``k >= 3`` paired groups (:func:`scipy.stats.friedmanchisquare`).

    Effect size: Kendall's coefficient of concordance ``W = chi2 / (n (k - 1))``
    with ``n`` complete records and ``k`` groups. When every record ties all
    groups (the tie-corrected statistic is 0/0) the result is ``chi2 = 0``,
    ``p = 1``, ``W = 0``.

    Parameters
    ----------
    groups : Mapping[str, array_like]
        Equal-length arrays, element ``i`` of every array from record ``i``.
        Records with a NaN in any group are dropped.

    See Also
    --------
    pairwise_wilcoxon : the pairwise comparisons after it.
    scipy.stats.friedmanchisquare

    References
    ----------
    .. [1] M. Friedman, "The use of ranks to avoid the assumption of normality implicit in the
       analysis of variance," J. Am. Stat. Assoc. 32(200), 675-701, 1937.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> groups = {"kpca": rng.normal(0.8, 0.05, 20), "pca": rng.normal(0.6, 0.05, 20),
    ...           "rsa": rng.normal(0.61, 0.05, 20)}  # one MSC per record and method
    >>> from edr.evaluate.stats import friedman
    >>> r = friedman(groups)
    >>> r.test, round(r.effect_size, 2), bool(r.pvalue < 1e-5)
    ('friedman', 0.77, True)
    """
    names, data = _paired(groups)
    if len(names) < 3:
        raise ValueError(
            f"friedman needs at least 3 groups, got {len(names)} ({names}); "
            "use pairwise_wilcoxon for two"
        )
    n, k = data.shape
    if np.all(data == data[:, :1]):  # every record ties all groups: no evidence of any difference
        return OmnibusResult("friedman", 0.0, 1.0, k - 1, 0.0, "Kendall's W", k, n)
    chi2, p = _st.friedmanchisquare(*data.T)
    return OmnibusResult("friedman", float(chi2), float(p), k - 1,
                         float(chi2 / (n * (k - 1))), "Kendall's W", k, n)


def dunn(groups: Mapping) -> tuple[PairwiseResult, ...]:
    """Dunn's (1964) pairwise test on Kruskal–Wallis ranks, Bonferroni-adjusted.

    All observations are ranked jointly (mid-ranks for ties); for groups ``i``
    and ``j`` with mean ranks ``R_i``, ``R_j``

        z = (R_i - R_j) / sqrt((N (N + 1) / 12 - T / (12 (N - 1))) (1/n_i + 1/n_j)),

    ``T = sum(t^3 - t)`` over tie groups, two-sided normal p-value. This is
    the comparison MATLAB's ``multcompare`` makes after ``kruskalwallis``
    (used by Varon et al. 2015, Fig. 18). Effect size: Cliff's delta
    (rank-biserial correlation of the Mann–Whitney U of the two groups),
    ``2 U_a / (n_a n_b) - 1``.

    See Also
    --------
    kruskal_wallis, bonferroni

    References
    ----------
    .. [1] O. J. Dunn, "Multiple comparisons using rank sums," Technometrics 6(3), 241-252, 1964.
    .. [2] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015.
       Multiple comparisons with the Bonferroni correction after Kruskal-Wallis, Sec. VI-C.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> groups = {"kpca": rng.normal(0.8, 0.05, 20), "pca": rng.normal(0.6, 0.05, 20),
    ...           "rsa": rng.normal(0.61, 0.05, 20)}  # one MSC per record and method
    >>> from edr.evaluate.stats import dunn
    >>> [(r.a, r.b, bool(r.pvalue_adjusted < 0.05)) for r in dunn(groups)]
    [('kpca', 'pca', True), ('kpca', 'rsa', True), ('pca', 'rsa', False)]
    """
    g = _independent(groups)
    names = list(g)
    allv = np.concatenate(list(g.values()))
    ranks = _st.rankdata(allv)
    n_tot = allv.size
    _, counts = np.unique(allv, return_counts=True)
    tie = float(np.sum(counts.astype(float) ** 3 - counts))
    var_unit = n_tot * (n_tot + 1) / 12.0 - tie / (12.0 * (n_tot - 1))
    bounds = np.cumsum([0] + [v.size for v in g.values()])
    mean_rank = {nm: ranks[bounds[i]:bounds[i + 1]].mean() for i, nm in enumerate(names)}
    pairs = list(combinations(names, 2))
    z = np.empty(len(pairs))
    delta = np.empty(len(pairs))
    for i, (a, b) in enumerate(pairs):
        na, nb = g[a].size, g[b].size
        se = np.sqrt(var_unit * (1.0 / na + 1.0 / nb))
        z[i] = (mean_rank[a] - mean_rank[b]) / se if se > 0 else 0.0
        u_a = _st.mannwhitneyu(g[a], g[b], alternative="two-sided").statistic
        delta[i] = 2.0 * u_a / (na * nb) - 1.0
    p = 2.0 * _st.norm.sf(np.abs(z))
    padj = bonferroni(p)
    return tuple(
        PairwiseResult(a, b, "dunn", float(z[i]), float(p[i]), float(padj[i]), float(delta[i]),
                       "Cliff's delta", g[a].size + g[b].size)
        for i, (a, b) in enumerate(pairs)
    )


def pairwise_wilcoxon(groups: Mapping) -> tuple[PairwiseResult, ...]:
    """Pairwise Wilcoxon signed-rank tests (:func:`scipy.stats.wilcoxon`), Bonferroni-adjusted.

    For each pair the differences ``d = a - b`` of the complete records are
    used; zero differences are dropped (Wilcoxon's convention, SciPy's
    ``zero_method="wilcox"``). Effect size: the matched-pairs rank-biserial
    correlation ``r = (T+ - T-) / (T+ + T-)`` (Kerby 2014), with ``T+``/``T-``
    the rank sums of the positive/negative differences; ``r = 0`` when every
    difference is zero (then ``p = 1``).

    See Also
    --------
    friedman, bonferroni, scipy.stats.wilcoxon

    References
    ----------
    .. [1] F. Wilcoxon, "Individual comparisons by ranking methods," Biometrics Bulletin 1(6),
       80-83, 1945.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> groups = {"kpca": rng.normal(0.8, 0.05, 20), "pca": rng.normal(0.6, 0.05, 20),
    ...           "rsa": rng.normal(0.61, 0.05, 20)}  # one MSC per record and method
    >>> from edr.evaluate.stats import pairwise_wilcoxon
    >>> [(r.a, r.b, bool(r.pvalue_adjusted < 0.05)) for r in pairwise_wilcoxon(groups)]
    [('kpca', 'pca', True), ('kpca', 'rsa', True), ('pca', 'rsa', False)]
    """
    names, data = _paired(groups)
    pairs = list(combinations(range(len(names)), 2))
    stat = np.empty(len(pairs))
    p = np.empty(len(pairs))
    r = np.empty(len(pairs))
    for i, (ia, ib) in enumerate(pairs):
        d = data[:, ia] - data[:, ib]
        d = d[d != 0]
        if d.size == 0:
            stat[i], p[i], r[i] = 0.0, 1.0, 0.0
            continue
        rk = _st.rankdata(np.abs(d))
        t_plus, t_minus = rk[d > 0].sum(), rk[d < 0].sum()
        stat[i] = t_plus
        r[i] = (t_plus - t_minus) / (t_plus + t_minus)
        p[i] = _st.wilcoxon(d, zero_method="wilcox", alternative="two-sided").pvalue
    padj = bonferroni(p)
    return tuple(
        PairwiseResult(names[ia], names[ib], "wilcoxon", float(stat[i]), float(p[i]),
                       float(padj[i]), float(r[i]), "rank-biserial r", data.shape[0])
        for i, (ia, ib) in enumerate(pairs)
    )


def compare(groups: Mapping, *, paired: bool = True) -> Comparison:
    """Omnibus test plus Bonferroni-corrected post-hoc pairs.

    Parameters
    ----------
    groups : Mapping[str, array_like]
        One array per method (one value per record, same record order when ``paired``).
    paired : bool, default True
        True: Friedman + pairwise Wilcoxon signed-rank (with 2 groups the
        omnibus is the single Wilcoxon test, reported as a Friedman-free
        comparison: ``omnibus`` then repeats it with ``test="wilcoxon"``).
        False: Kruskal–Wallis + Dunn, as Varon et al. 2015.

    See Also
    --------
    friedman, pairwise_wilcoxon, kruskal_wallis, dunn

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> groups = {"kpca": rng.normal(0.8, 0.05, 20), "pca": rng.normal(0.6, 0.05, 20),
    ...           "rsa": rng.normal(0.61, 0.05, 20)}  # one MSC per record and method
    >>> from edr.evaluate.stats import compare
    >>> compare(groups, paired=False).omnibus.test
    'kruskal-wallis'
    """
    if not paired:
        return Comparison(kruskal_wallis(groups), dunn(groups))
    pw = pairwise_wilcoxon(groups)
    if len(groups) >= 3:
        return Comparison(friedman(groups), pw)
    only = pw[0]
    return Comparison(
        OmnibusResult("wilcoxon", only.statistic, only.pvalue, 1, abs(only.effect_size),
                      "|rank-biserial r|", 2, only.n),
        pw,
    )
