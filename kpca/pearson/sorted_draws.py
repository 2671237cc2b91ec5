"""Sorted samples of a Pearson distribution in ``O(n)``: order statistics through its quantile.

MDD needs sorted noise distances (its noise matrix is filled with sorted draws,
Varon et al. 2015, Appendix).  :func:`pearsrnd_sorted` returns a sample already
sorted: the order statistics of ``n`` uniforms are the normalised partial sums
of ``n + 1`` standard exponentials (Devroye 1986, §V.3.1), and a monotone
quantile function maps them to sorted Pearson draws.  The quantile function is
tabulated once per distribution (:class:`SortedPearsonSampler`) with the exact
``ppf``/``isf`` (:mod:`kpca.pearson.laws`, from :mod:`scipy.special`) and
interpolated by cubic Hermite polynomials with the exact slopes ``1 / pdf``
(error below 1e-6 standard deviations, 1e-5 relative in the extreme tails;
tested); points beyond the table use ``ppf`` itself.
This replaces ``n`` rejection draws and an ``O(n log n)`` sort by ``O(n)``
work (types 0-III and V-VII; type IV has no SciPy quantile function and is
drawn by :func:`~kpca.pearson.pearsrnd` and sorted).
"""

from __future__ import annotations

import functools

import numba
import numpy as np

from kpca._validation import check_random_state
from kpca.pearson.draws import location_scale, pearsrnd, too_little_mass, truncation_bounds
from kpca.pearson.laws import standard_law
from kpca.pearson.system import PearsonParameters, beta_exponents, pearson_parameters

__all__ = ["SortedPearsonSampler", "pearsrnd_sorted"]


def _pearson_law(p: PearsonParameters):
    """``(law, loc, scale)`` with standardised draws ``loc + scale * Y``, ``Y ~ law`` (a
    :class:`~kpca.pearson.laws.Law`, SciPy's distribution of that name): the same
    transformations as :func:`kpca.pearson.draws.standard_draws`; ``None`` for type IV."""
    t = p.type
    if t == 0:
        return standard_law("norm"), 0.0, 1.0
    if t in (1, 2):
        a1, a2 = p.roots
        m1, m2 = beta_exponents(p)
        return standard_law("beta", m1 + 1.0, m2 + 1.0), a1, a2 - a1
    if t == 3:
        m = (p.c0 / p.c1 - p.c1) / p.c1
        return standard_law("gamma", m + 1.0), p.roots[0], p.c1
    if t == 5:
        C1 = p.c1 / (2.0 * p.c2)
        return standard_law("invgamma", 1.0 / p.c2 - 1.0), -C1, -(p.c1 - C1) / p.c2
    if t == 6:
        a1, a2 = p.roots
        m1, m2 = beta_exponents(p)
        if a2 < 0.0:
            return standard_law("betaprime", m2 + 1.0, -(m1 + m2 + 1.0)), a2, a2 - a1
        return standard_law("betaprime", m1 + 1.0, -(m1 + m2 + 1.0)), a1, -(a2 - a1)
    if t == 7:
        return standard_law("t", 1.0 / p.c2 - 1.0), 0.0, np.sqrt(p.c0 / (1.0 - p.c2))
    return None


#: Quantile table on each half of ``(0, 1/2]`` (the upper half is tabulated in ``v = 1 - u``):
#: steps of ``2**-10`` in the bulk and a geometric grid (40 knots per decade) from ~1e-13 up to
#: where its steps reach the bulk step (``docs/studies/fast_selection.md``, twelfth round)
_BULK_STEP = 2.0**-10
_TAIL_START = 1e-13
_TAIL_PER_DECADE = 40
#: Every ``_NEWTON_STRIDE``-th knot of the bulk (and every tail knot) takes the exact quantile
#: (``ppf``/``isf``: SciPy's inverse incomplete beta function); the bulk knots between take one
#: Newton step on the exact ``cdf`` from the cubic Hermite interpolant of those: its error
#: ``O(h^4)`` becomes ``O(h^8)``, far below the interpolation's between the knots (tested). Costs:
#: ``docs/studies/fast_selection.md``, seventh round
_NEWTON_STRIDE = 4


def _half_table():
    """The knots of one half table (a fresh copy of :func:`_half_table_knots`: the tables keep
    them as their interval ends, writeable as the compiled draws expect)."""
    return _half_table_knots().copy()


@functools.lru_cache(maxsize=1)
def _exact_knots():
    """Which knots of the half table take the exact quantile: the tail knots, every
    :data:`_NEWTON_STRIDE`-th bulk knot from the first, and the last (1/2)."""
    t = _half_table_knots()
    bulk = t >= _join() * (1.0 - 1e-12)  # the bulk's knots start at the join
    exact = ~bulk
    exact[int(np.argmax(bulk))::_NEWTON_STRIDE] = True
    exact[-1] = True
    return exact


def _join():
    """Where the tail's geometric knots reach the bulk step."""
    return _BULK_STEP / (10.0 ** (1.0 / _TAIL_PER_DECADE) - 1.0)


@functools.lru_cache(maxsize=1)
def _half_table_knots():
    join = _join()
    tail = np.geomspace(_TAIL_START, join,
                        int(np.ceil(np.log10(join / _TAIL_START) * _TAIL_PER_DECADE)) + 1)
    bulk = np.linspace(join, 0.5, int(np.ceil((0.5 - join) / _BULK_STEP)) + 1)
    return np.unique(np.concatenate([tail, bulk]))


class _TruncatedQuantile:
    """Exact quantile function of ``Y ~ law`` truncated to ``[y_lo, y_hi]``, in two halves:
    ``lower(u)`` for ``u <= 1/2`` (``ppf``) and ``upper(v)`` at ``u = 1 - v`` for ``v <= 1/2``
    (``isf``), so neither tail suffers cancellation."""

    def __init__(self, law, y_lo, y_hi):
        self.law = law
        p_lo, p_hi = float(law.cdf(y_lo)), float(law.cdf(y_hi))
        s_lo, s_hi = float(law.sf(y_lo)), float(law.sf(y_hi))
        self.p_lo, self.s_hi = p_lo, s_hi
        self.mass = p_hi - p_lo if p_hi <= 0.5 else s_lo - s_hi
        self.y_lo, self.y_hi = y_lo, y_hi

    def lower(self, u):
        return np.clip(self.law.ppf(self.p_lo + np.asarray(u) * self.mass), self.y_lo, self.y_hi)

    def upper(self, v):
        return np.clip(self.law.isf(self.s_hi + np.asarray(v) * self.mass), self.y_lo, self.y_hi)

    def table(self, upper):
        """Knots ``t``, values ``z`` and slopes ``dz/dt`` of ``lower`` (or of ``-upper``, so that
        both are increasing); ``1 / pdf`` slopes, secants where the density vanishes or diverges.
        The exact quantile at the knots of :func:`_exact_knots`, one Newton step from their
        Hermite interpolant at the others (:data:`_NEWTON_STRIDE`)."""
        t = _half_table()
        exact = _exact_knots()
        z = np.empty_like(t)
        z[exact] = -self.upper(t[exact]) if upper else self.lower(t[exact])
        guess = _hermite_values(t[~exact], t[exact], z[exact],
                                self._slopes(t[exact], z[exact], upper))
        z[~exact] = self._newton(t[~exact], guess, upper)
        return t, z, self._slopes(t, z, upper)

    def _slopes(self, t, z, upper):
        with np.errstate(divide="ignore", invalid="ignore"):
            m = self.mass / self.law.pdf(-z if upper else z)
        secant = np.diff(z) / np.diff(t)
        bad = ~np.isfinite(m)
        m[bad] = np.concatenate([secant[:1], secant])[bad]
        return m

    def _newton(self, t, z, upper):
        """One Newton step on ``cdf(y) = p_lo + t mass`` (``= 1 - s_hi - t mass`` for ``upper``,
        ``y = -z``: in the bulk, ``t >= 0.008``, the complement costs no accuracy worth having,
        and ``cdf`` is cheaper than ``sf``) from ``z``; the exact quantile where the step is not
        finite or leaves ``[y_lo, y_hi]``."""
        y = -z if upper else z
        target = (1.0 - self.s_hi) - t * self.mass if upper else self.p_lo + t * self.mass
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            y = y - (self.law.cdf(y) - target) / self.law.pdf(y)
        bad = ~(np.isfinite(y) & (y >= self.y_lo) & (y <= self.y_hi))
        if bad.any():
            y[bad] = self.upper(t[bad]) if upper else self.lower(t[bad])
        return -y if upper else y


def _hermite_values(t, kt, kz, km):
    """The cubic Hermite interpolant through ``(kt, kz)`` with slopes ``km`` at ``t`` (inside
    ``[kt[0], kt[-1]]``), vectorised."""
    kt_, inv_h, c = _hermite_coefficients(kt, kz, km)
    j = np.clip(np.searchsorted(kt_, t, side="right") - 1, 0, kt_.size - 2)
    a = (t - kt_[j]) * inv_h[j]
    return c[j, 0] + a * (c[j, 1] + a * (c[j, 2] + a * c[j, 3]))


def _hermite_coefficients(kt, kz, km):
    """Per-interval power-basis coefficients of the cubic Hermite interpolant through
    ``(kt, kz)`` with slopes ``km``: on ``[kt[j], kt[j+1]]``, with ``a = (t - kt[j]) / h_j``,
    ``z = c0 + a (c1 + a (c2 + a c3))``.  Returns ``(kt, 1 / h, c)``, ``c`` of shape (m - 1, 4)."""
    h = np.diff(kt)
    y0, y1 = kz[:-1], kz[1:]
    m0, m1 = km[:-1] * h, km[1:] * h
    c = np.stack([y0, m0, -3.0 * y0 - 2.0 * m0 + 3.0 * y1 - m1,
                  2.0 * y0 + m0 - 2.0 * y1 + m1], axis=1)
    return kt, 1.0 / h, np.ascontiguousarray(c)


@numba.njit(cache=True, nogil=True, inline="always")
def _hermite(t, kt, inv_h, c, j):  # pragma: no cover - compiled
    """The interpolant of :func:`_hermite_coefficients` at ``t``, searching forward from
    interval ``j`` (merge walk: ``t`` non-decreasing between calls); returns ``(value, j)``."""
    last = kt.size - 2
    while j < last and kt[j + 1] < t:
        j += 1
    a = (t - kt[j]) * inv_h[j]
    return c[j, 0] + a * (c[j, 1] + a * (c[j, 2] + a * c[j, 3])), j


@numba.njit(cache=True, nogil=True)
def _order_statistics(e, lt, linv, lc, ut, uinv, uc, out):  # pragma: no cover - compiled
    """Quantiles of the order statistics ``U_(k) = (e_0 + ... + e_k) / (e_0 + ... + e_n)`` of
    ``n = e.size - 1`` uniforms: ``out[k] = lower(U_(k))`` while ``U_(k) <= 1/2`` (table
    ``lt, linv, lc``), else ``upper(1 - U_(k))`` (table ``ut, uinv, uc`` of ``-upper``), with
    ``1 - U_(k) = (e_{k+1} + ... + e_n) / total`` summed from the end (exact near 1).
    Returns ``(total, n_low, n_high)``: the first ``n_low`` and last ``n_high`` entries lie
    below the tables' first knot and are left for the exact quantile."""
    n = e.size - 1
    total = 0.0
    for i in range(n + 1):
        total += e[i]
    inv = 1.0 / total
    head = 0.0
    j = 0
    k = 0
    n_low = 0
    while k < n:
        head += e[k]
        t = head * inv
        if t > 0.5:
            break
        if t < lt[0]:
            n_low += 1
        out[k], j = _hermite(t, lt, linv, lc, j)
        k += 1
    split = k
    tail = e[n]
    j = 0
    n_high = 0
    for k in range(n - 1, split - 1, -1):
        t = tail * inv
        if t < ut[0]:
            n_high += 1
        z, j = _hermite(t, ut, uinv, uc, j)
        out[k] = -z
        tail += e[k]
    return total, n_low, n_high


def _finish(y, lo, hi, a, b):
    """``a + b * y`` sorted ascending, ``y`` first clipped to ``[lo, hi]`` and made
    non-decreasing (cubic Hermite rounding could break the order by an ulp).

    NumPy, not Numba: compiled, it saves ~0.6 ms per 45 000 draws but costs ~0.7 s of
    compilation on a cold cache (``docs/studies/import_diet_kpca.md``). In place in ``y``
    (overwritten; the same operations as ``a + b * v``, without four temporaries)."""
    np.maximum(y, lo, out=y)
    np.maximum.accumulate(y, out=y)
    np.minimum(y, hi, out=y)
    if b > 0:
        out = np.multiply(y, b, out=y)
    else:
        out = np.multiply(y[::-1], b)
    out += a
    return out


class SortedPearsonSampler:
    """Sorted samples of one (optionally truncated) Pearson distribution, the quantile
    tables built once (module docstring); :meth:`draw` is then ``O(size)`` and thread-safe.

    Parameters
    ----------
    mu, sigma, skew, kurtosis, truncate
        As :func:`pearsrnd`.

    Attributes
    ----------
    params : PearsonParameters

    Raises
    ------
    ValueError
        As :func:`~kpca.pearson.pearsrnd`, and for a truncation interval holding less than
        ``1e-12`` of the probability.

    See Also
    --------
    pearsrnd_sorted : one sorted sample.
    kpca.selection.mdd.noise_sampler : MDD's noise distances.

    References
    ----------
    .. [1] L. Devroye, *Non-Uniform Random Variate Generation*, Springer, 1986. §V.3.1: the order
       statistics of uniforms as normalised partial sums of exponentials.
    .. [2] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. §IV,
       footnote 3, and the Appendix: the sorted, truncated Pearson noise distances of MDD.
    .. [3] N. L. Johnson, S. Kotz and N. Balakrishnan, *Continuous Univariate Distributions*, vol.
       1, 2nd ed., Wiley, 1994. §4.1: the Pearson system.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.pearson import SortedPearsonSampler
    >>> sampler = SortedPearsonSampler(1.0, 0.3, 1.0, 4.7, truncate=(0.0, 3.0))
    >>> sampler.params.name
    'VI (beta prime / F)'
    >>> x = sampler.draw(1000, random_state=0)
    >>> bool(np.all(np.diff(x) >= 0) and x[0] >= 0.0 and x[-1] <= 3.0)
    True
    """

    def __init__(self, mu, sigma, skew, kurtosis, *, truncate=None):
        mu, sigma = location_scale(mu, sigma)
        self.params = p = pearson_parameters(skew, kurtosis)
        self.mu, self.sigma, self.truncate = mu, sigma, truncate
        lo, hi = truncation_bounds(truncate)
        law = _pearson_law(p)
        self._quantile = None
        if law is None:  # type IV: drawn by rejection and sorted
            return
        law, self._loc, self._scale = law
        # x = mu + sigma (loc + scale Y): the x-interval in Y units (a negative scale reverses it)
        ya, yb = (((lo - mu) / sigma - self._loc) / self._scale,
                  ((hi - mu) / sigma - self._loc) / self._scale)
        q = _TruncatedQuantile(law, min(ya, yb), max(ya, yb))
        if not q.mass > 1e-12:
            raise too_little_mass(truncate, p, mu, sigma)
        self._quantile = q
        self._tables = (_hermite_coefficients(*q.table(False)),
                        _hermite_coefficients(*q.table(True)))

    def draw(self, size, random_state=None):
        """``size`` draws, sorted ascending (the distribution of ``numpy.sort(pearsrnd(...))``).

        Parameters
        ----------
        size : int
        random_state : None, int or numpy.random.Generator

        Returns
        -------
        ndarray, shape (size,)
        """
        rng = check_random_state(random_state)
        n = int(size)
        if self._quantile is None:
            p = self.params
            return np.sort(pearsrnd(self.mu, self.sigma, p.skew, p.kurtosis, n, random_state=rng,
                                    truncate=self.truncate))
        q = self._quantile
        e = rng.standard_exponential(n + 1)
        y = np.empty(n)
        total, n_low, n_high = _order_statistics(e, *self._tables[0], *self._tables[1], y)
        if n_low:  # probability ~ size * 1e-13: the exact quantile
            y[:n_low] = q.lower(np.cumsum(e[:n_low]) / total)
        if n_high:
            y[n - n_high:] = q.upper(np.cumsum(e[n - n_high + 1:][::-1])[::-1] / total)
        # clip, keep the order (Hermite rounding), x = mu + sigma (loc + scale y) ascending
        return _finish(y, q.y_lo, q.y_hi, self.mu + self.sigma * self._loc,
                       self.sigma * self._scale)


def pearsrnd_sorted(mu: float, sigma: float, skew: float, kurtosis: float, size: int, *,
                    random_state: int | np.random.Generator | None = None,
                    truncate: float | None = None) -> np.ndarray:
    """A sorted (ascending) sample of ``size`` draws from the Pearson distribution.

    Same distribution as ``numpy.sort(pearsrnd(...))`` — the order statistics of
    ``size`` independent draws — produced in ``O(size)`` from sorted uniforms and
    the exact quantile function (module docstring); for type IV it *is*
    ``numpy.sort(pearsrnd(...))``.  The random stream differs from
    :func:`pearsrnd`'s.  For many samples of one distribution build a
    :class:`SortedPearsonSampler` once.

    Parameters
    ----------
    mu, sigma, skew, kurtosis, random_state, truncate
        As :func:`pearsrnd`.
    size : int
        Number of draws.

    Returns
    -------
    ndarray, shape (size,)
        Non-decreasing.

    See Also
    --------
    SortedPearsonSampler : the tables built once for many samples.
    pearsrnd : unsorted draws.

    References
    ----------
    .. [1] L. Devroye, *Non-Uniform Random Variate Generation*, Springer, 1986. §V.3.1: sorted
       uniforms from exponential spacings.
    .. [2] N. L. Johnson, S. Kotz and N. Balakrishnan, *Continuous Univariate Distributions*, vol.
       1, 2nd ed., Wiley, 1994. §4.1: the Pearson system.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.pearson import pearsrnd_sorted
    >>> x = pearsrnd_sorted(0.0, 1.0, 0.0, 3.0, 5, random_state=0)  # five sorted normals
    >>> x.shape, bool(np.all(np.diff(x) >= 0))
    ((5,), True)
    """
    return SortedPearsonSampler(mu, sigma, skew, kurtosis,
                                truncate=truncate).draw(size, random_state)
