"""The standard laws behind the Pearson types: ``cdf``, ``sf``, ``ppf``, ``isf`` and ``pdf`` from
:mod:`scipy.special`.

:class:`~kpca.pearson.SortedPearsonSampler` maps sorted uniforms through the quantile function of
a standardised law (normal, beta, gamma, inverse gamma, beta prime, Student's t). Those five
functions are written here with the special functions that :mod:`scipy.stats` itself calls
(``ndtr``/``ndtri``, the regularised incomplete beta and gamma functions and their inverses,
``stdtr``/``stdtrit``, ``gammaln``/``betaln``), because importing :mod:`scipy.stats` costs about
1 s and :mod:`scipy.special` under a tenth of it (``docs/studies/import_diet_kpca.md``). Each tail
is computed without cancellation: ``sf`` and ``isf`` use the complementary functions, not
``1 - cdf``. ``tests/kpca/test_pearson.py`` checks all five against :mod:`scipy.stats`.
"""

from __future__ import annotations

import numpy as np
from scipy import special

__all__ = ["Law", "standard_law"]

_LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)


class Law:
    """A standard law given by its five functions, ``cdf``, ``sf`` and ``pdf`` of ``y`` and
    ``ppf`` and ``isf`` of a probability, NumPy expressions (arrays in, arrays out).

    ``cdf``, ``sf`` and ``pdf`` accept any ``y``, also outside the support ``[low, high]`` (as
    :mod:`scipy.stats` does: ``cdf`` 0 below, 1 above, ``pdf`` 0 outside); the functions given
    are called on ``y`` clipped to the support.

    Parameters
    ----------
    name : str
        The name of the :mod:`scipy.stats` distribution it equals (``"norm"``, ``"beta"``, ...).
    shapes : tuple of float
        Its shape parameters, in :mod:`scipy.stats`'s order.
    support : tuple of float
        ``(low, high)``, possibly infinite.
    cdf, sf, ppf, isf, pdf : callable

    See Also
    --------
    standard_law : the law of each Pearson type.

    References
    ----------
    .. [1] N. L. Johnson, S. Kotz and N. Balakrishnan, *Continuous Univariate Distributions*, vol.
       1, 2nd ed., Wiley, 1994. §4.1: the Pearson system and the standard laws of its types.

    Examples
    --------
    >>> from kpca.pearson.laws import standard_law
    >>> law = standard_law("gamma", 2.0)
    >>> round(float(law.ppf(law.cdf(1.5))), 12), float(law.cdf(-1.0)), float(law.pdf(-1.0))
    (1.5, 0.0, 0.0)
    """

    def __init__(self, name, shapes, support, cdf, sf, ppf, isf, pdf):
        self.name, self.shapes, self.support = name, tuple(shapes), support
        self._cdf, self._sf, self._pdf = cdf, sf, pdf
        self.ppf, self.isf = ppf, isf

    def _clipped(self, y):
        return np.clip(np.asarray(y, dtype=np.float64), *self.support) + 0.0  # -0.0 -> 0.0

    def cdf(self, y):
        """``P(Y <= y)``."""
        return self._cdf(self._clipped(y))

    def sf(self, y):
        """``P(Y > y)``, without cancellation in the upper tail."""
        return self._sf(self._clipped(y))

    def pdf(self, y):
        """The density at ``y``, 0 outside the support and at infinity."""
        y = np.asarray(y, dtype=np.float64)
        low, high = self.support
        inside = (y >= low) & (y <= high) & np.isfinite(y)
        # a point inside the support stands in for the others (no warnings from their logarithms)
        inner = 0.5 * (max(low, -1.0) + min(high, 1.0))
        with np.errstate(divide="ignore", over="ignore"):
            return np.where(inside, self._pdf(np.where(inside, y, inner)), 0.0)

    def __repr__(self):
        return f"Law({self.name!r}, {self.shapes})"


_REAL_LINE = (-np.inf, np.inf)
_HALF_LINE = (0.0, np.inf)


def _norm():
    return (_REAL_LINE, special.ndtr, lambda y: special.ndtr(-y), special.ndtri,
            lambda q: -special.ndtri(q), lambda y: np.exp(-0.5 * np.square(y) - _LOG_SQRT_2PI))


def _beta(a, b):
    log_b = special.betaln(a, b)
    return ((0.0, 1.0), lambda y: special.betainc(a, b, y), lambda y: special.betaincc(a, b, y),
            lambda p: special.betaincinv(a, b, p), lambda q: special.betainccinv(a, b, q),
            lambda y: np.exp(special.xlogy(a - 1.0, y) + special.xlog1py(b - 1.0, -y) - log_b))


def _gamma(a):
    log_g = special.gammaln(a)
    return (_HALF_LINE, lambda y: special.gammainc(a, y), lambda y: special.gammaincc(a, y),
            lambda p: special.gammaincinv(a, p), lambda q: special.gammainccinv(a, q),
            lambda y: np.exp(special.xlogy(a - 1.0, y) - y - log_g))


def _reciprocal(y):
    with np.errstate(divide="ignore"):
        return 1.0 / np.asarray(y, dtype=np.float64)


def _open_at_zero(y, density):
    """``density(y)`` for ``y > 0`` and 0 at ``y = 0`` (as :mod:`scipy.stats` for the inverse
    gamma and beta prime laws)."""
    positive = y > 0.0
    return np.where(positive, density(np.where(positive, y, 1.0)), 0.0)


def _invgamma(a):
    # Y = 1 / G, G ~ gamma(a): P(Y <= y) = P(G >= 1/y)
    log_g = special.gammaln(a)
    return (_HALF_LINE, lambda y: special.gammaincc(a, _reciprocal(y)),
            lambda y: special.gammainc(a, _reciprocal(y)),
            lambda p: _reciprocal(special.gammainccinv(a, p)),
            lambda q: _reciprocal(special.gammaincinv(a, q)),
            lambda y: _open_at_zero(y, lambda y: np.exp(-(a + 1.0) * np.log(y) - 1.0 / y - log_g)))


def _odds(x, w):
    """``x / (1 - x)`` from ``x`` and ``w = 1 - x`` computed apart, each where it is the
    smaller (exact)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x <= 0.5, x / (1.0 - x), (1.0 - w) / w)


def _betaprime(a, b):
    # Y = X / (1 - X), X ~ beta(a, b) and 1 - X ~ beta(b, a):
    # P(Y <= y) = I_{y/(1+y)}(a, b), P(Y > y) = I_{1/(1+y)}(b, a)
    log_b = special.betaln(a, b)

    def cdf(y):
        with np.errstate(invalid="ignore"):
            return special.betainc(a, b, np.where(np.isinf(y), 1.0, y / (1.0 + y)))

    return (_HALF_LINE, cdf,
            lambda y: special.betainc(b, a, _reciprocal(1.0 + y)),
            lambda p: _odds(special.betaincinv(a, b, p), special.betainccinv(b, a, p)),
            lambda q: _odds(special.betainccinv(a, b, q), special.betaincinv(b, a, q)),
            lambda y: _open_at_zero(y, lambda y: np.exp(special.xlogy(a - 1.0, y)
                                                         - (a + b) * np.log1p(y) - log_b)))


def _t(df):
    log_c = special.gammaln(0.5 * (df + 1.0)) - special.gammaln(0.5 * df) - 0.5 * np.log(
        df * np.pi)
    return (_REAL_LINE, lambda y: special.stdtr(df, y), lambda y: special.stdtr(df, -y),
            lambda p: special.stdtrit(df, p), lambda q: -special.stdtrit(df, q),
            lambda y: np.exp(log_c - 0.5 * (df + 1.0) * np.log1p(np.square(y) / df)))


_LAWS = {"norm": _norm, "beta": _beta, "gamma": _gamma, "invgamma": _invgamma,
         "betaprime": _betaprime, "t": _t}


def standard_law(name: str, *shapes: float) -> Law:
    """The law ``name`` of :mod:`scipy.stats` with shape parameters ``shapes``, standard location
    and scale, from :mod:`scipy.special`.

    Parameters
    ----------
    name : {"norm", "beta", "gamma", "invgamma", "betaprime", "t"}
    *shapes : float
        ``beta(a, b)``, ``gamma(a)``, ``invgamma(a)``, ``betaprime(a, b)``, ``t(df)``; none for
        ``norm``.

    Returns
    -------
    Law

    Raises
    ------
    KeyError
        An unknown ``name``.

    See Also
    --------
    kpca.pearson.SortedPearsonSampler : maps sorted uniforms through ``ppf`` / ``isf``.

    References
    ----------
    .. [1] N. L. Johnson, S. Kotz and N. Balakrishnan, *Continuous Univariate Distributions*, vols.
       1-2, 2nd ed., Wiley, 1994-1995. The normal (ch. 13), gamma and inverse gamma (ch. 17), t
       (ch. 28), beta and beta prime (ch. 25) laws and their distribution functions.

    Examples
    --------
    >>> from kpca.pearson.laws import standard_law
    >>> law = standard_law("norm")
    >>> float(law.cdf(0.0)), round(float(law.isf(0.025)), 6)
    (0.5, 1.959964)
    """
    return Law(name, shapes, *_LAWS[name](*(float(s) for s in shapes)))
