"""The results of the statistical comparisons of :mod:`edr.evaluate.stats`: an omnibus test
(:class:`OmnibusResult`), a pairwise post-hoc test (:class:`PairwiseResult`) and the two together
(:class:`Comparison`). The tests themselves are :mod:`edr.evaluate.stats`'s, which re-exports
these types.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Comparison", "OmnibusResult", "PairwiseResult"]


@dataclass(frozen=True)
class OmnibusResult:
    """Result of a test across all groups.

    Attributes
    ----------
    test : str
        ``"kruskal-wallis"`` or ``"friedman"``.
    statistic : float
        H (Kruskal–Wallis) or the Friedman chi-square.
    pvalue : float
    df : int
        Degrees of freedom of the chi-square reference, ``k - 1``.
    effect_size : float
        Epsilon-squared (Kruskal–Wallis) or Kendall's W (Friedman), both in [0, 1].
    effect_size_name : str
    n_groups : int
    n_obs : int
        Total observations (Kruskal–Wallis) or number of complete records (Friedman).

    See Also
    --------
    edr.evaluate.stats.kruskal_wallis, edr.evaluate.stats.friedman

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> groups = {"kpca": rng.normal(0.8, 0.05, 20), "pca": rng.normal(0.6, 0.05, 20),
    ...           "rsa": rng.normal(0.61, 0.05, 20)}  # one MSC per record and method
    >>> from edr.evaluate.stats import friedman
    >>> r = friedman(groups)
    >>> r.test, r.df, r.n_obs, r.effect_size_name
    ('friedman', 2, 20, "Kendall's W")
    """

    test: str
    statistic: float
    pvalue: float
    df: int
    effect_size: float
    effect_size_name: str
    n_groups: int
    n_obs: int


@dataclass(frozen=True)
class PairwiseResult:
    """One post-hoc comparison between groups ``a`` and ``b``.

    Attributes
    ----------
    a, b : str
        Group names, in the order of the input mapping.
    test : str
        ``"dunn"`` or ``"wilcoxon"``.
    statistic : float
        Dunn's z (positive when ``a`` has the larger mean rank) or the Wilcoxon
        signed-rank sum of positive differences ``a - b`` (T+).
    pvalue : float
        Unadjusted two-sided p-value.
    pvalue_adjusted : float
        Bonferroni-adjusted p-value, ``min(1, m * pvalue)`` with ``m`` the number
        of pairs.
    effect_size : float
        Rank-biserial correlation in [-1, 1], positive when ``a`` tends to be larger.
    effect_size_name : str
    n : int
        Records used (paired) or ``n_a + n_b`` (independent).

    See Also
    --------
    edr.evaluate.stats.dunn, edr.evaluate.stats.pairwise_wilcoxon

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> groups = {"kpca": rng.normal(0.8, 0.05, 20), "pca": rng.normal(0.6, 0.05, 20),
    ...           "rsa": rng.normal(0.61, 0.05, 20)}  # one MSC per record and method
    >>> from edr.evaluate.stats import pairwise_wilcoxon
    >>> r = pairwise_wilcoxon(groups)[0]
    >>> r.a, r.b, r.test, r.n, r.effect_size
    ('kpca', 'pca', 'wilcoxon', 20, 1.0)
    """

    a: str
    b: str
    test: str
    statistic: float
    pvalue: float
    pvalue_adjusted: float
    effect_size: float
    effect_size_name: str
    n: int

    def significant(self, alpha: float = 0.05) -> bool:
        """Whether the Bonferroni-adjusted p-value is below ``alpha``."""
        return bool(self.pvalue_adjusted < alpha)


@dataclass(frozen=True)
class Comparison:
    """An omnibus test and its post-hoc pairwise tests.

    See Also
    --------
    edr.evaluate.stats.compare

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> groups = {"kpca": rng.normal(0.8, 0.05, 20), "pca": rng.normal(0.6, 0.05, 20),
    ...           "rsa": rng.normal(0.61, 0.05, 20)}  # one MSC per record and method
    >>> from edr.evaluate.stats import compare
    >>> c = compare(groups)
    >>> c.omnibus.test, len(c.pairwise)
    ('friedman', 3)
    """

    omnibus: OmnibusResult
    pairwise: tuple[PairwiseResult, ...]

    def pair(self, a: str, b: str) -> PairwiseResult:
        """The comparison of ``a`` and ``b`` (either order; the sign is for the stored order)."""
        for p in self.pairwise:
            if {p.a, p.b} == {a, b}:
                return p
        raise KeyError(f"no pairwise comparison between {a!r} and {b!r}")
