"""Random draws from the Pearson distribution with four given moments (MATLAB's ``pearsrnd``).

Sampling uses the standard variates of NumPy's ``Generator`` for types 0-III
and V-VII (transformations of beta, gamma, beta-prime and t variates).  Type IV
is not a transformation of a standard variate: we draw ``theta = arctan((x -
lambda)/a)``, whose density ``cos(theta)^(2m-2) exp(-nu theta)`` on
``(-pi/2, pi/2)`` is log-concave (Heinrich 2004, "A guide to the Pearson type
IV distribution", CDF/MEMO/STATISTICS/PUBLIC/6820), by Devroye's exponential
rejection method for log-concave densities with a known mode (Devroye 1986,
*Non-Uniform Random Variate Generation*, §VII.2.3); the normalising constant
is obtained by adaptive quadrature (:func:`scipy.integrate.quad`).  Samples are
exact (no discretisation).  A truncation interval is honoured by rejection.
"""

from __future__ import annotations

import numpy as np

from kpca._validation import check_finite, check_positive, check_random_state
from kpca.pearson.system import PearsonParameters, beta_exponents, pearson_parameters, type4_shape

__all__ = ["pearsrnd"]


def _type4_standard(p: PearsonParameters, size: int, rng: np.random.Generator):
    """Standardised type IV draws by Devroye's log-concave rejection (Devroye 1986, §VII.2.3).

    ``theta = arctan((x - lam)/a)`` has density ``g(theta) ∝ cos(theta)^b exp(-nu theta)``,
    ``b = 2m - 2 > 0``, which is log-concave with mode ``M = arctan(-nu / b)``.  With
    ``f = g / C`` normalised and ``y = (theta - M) f(M)``, ``h(y) = f(M + y/f(M)) / f(M)``
    is a log-concave density with mode 0 and ``h(0) = 1``, hence ``h(y) <= min(1, e^(1-|y|))``;
    we sample that hat (area 4) and accept with probability ``h / hat``.
    """
    m, nu, a, lam = type4_shape(p)
    b = 2.0 * (m - 1.0)
    mode = np.arctan(-nu / b)
    log_g_mode = b * np.log(np.cos(mode)) - nu * mode

    def g(t):  # rescaled by its mode value: at most 1, avoids overflow
        return np.exp(b * np.log(np.cos(t)) - nu * t - log_g_mode)

    from scipy import integrate  # type IV only: not imported for the other types

    norm, _ = integrate.quad(g, -np.pi / 2, np.pi / 2, points=[mode], limit=200,
                             epsabs=0.0, epsrel=1e-12)
    f_mode = 1.0 / norm  # f(M) for the normalised density f = g / norm
    out = np.empty(size)
    todo = np.arange(size)
    while todo.size:
        k = todo.size
        u = rng.uniform(0.0, 2.0, k)
        sign = np.where(rng.random(k) < 0.5, -1.0, 1.0)
        # hat: 1 on |y|<=1, e^(1-|y|) beyond
        y = np.where(u <= 1.0, u, 1.0 + rng.standard_exponential(k))
        log_hat = np.where(y <= 1.0, 0.0, 1.0 - y)
        theta = mode + sign * y / f_mode
        inside = np.abs(theta) < np.pi / 2
        log_h = np.full(k, -np.inf)
        ti = theta[inside]
        log_h[inside] = b * np.log(np.cos(ti)) - nu * ti - log_g_mode
        accept = inside & (np.log(rng.random(k)) <= log_h - log_hat)
        out[todo[accept]] = theta[accept]
        todo = todo[~accept]
    return a * np.tan(out) + lam


def standard_draws(p: PearsonParameters, size: int, rng: np.random.Generator):
    """Zero-mean, unit-variance draws of the Pearson distribution ``p``."""
    t = p.type
    if t == 0:
        return rng.standard_normal(size)
    if t in (1, 2):
        a1, a2 = p.roots
        m1, m2 = beta_exponents(p)
        return a1 + (a2 - a1) * rng.beta(m1 + 1.0, m2 + 1.0, size)
    if t == 3:
        # gamma: density ∝ (x - a1)^m exp(-x / c1) (mirrored for c1 < 0); mean 0 by construction
        m = (p.c0 / p.c1 - p.c1) / p.c1
        return p.c1 * rng.standard_gamma(m + 1.0, size) + p.roots[0]
    if t == 4:
        return _type4_standard(p, size, rng)
    if t == 5:
        # inverse gamma: x + C1 = -((c1 - C1)/c2) / G, G ~ Gamma(1/c2 - 1)
        C1 = p.c1 / (2.0 * p.c2)
        return -((p.c1 - C1) / p.c2) / rng.standard_gamma(1.0 / p.c2 - 1.0, size) - C1
    if t == 6:
        a1, a2 = p.roots
        m1, m2 = beta_exponents(p)
        # the support starts at the root nearer the mean (0) and extends away from the other
        # positive skew: x > a2, (x - a2)/(a2 - a1) ~ BetaPrime(m2 + 1, -(m1 + m2 + 1))
        if a2 < 0.0:
            return a2 + (a2 - a1) * _beta_prime(m2 + 1.0, -(m1 + m2 + 1.0), size, rng)
        return a1 - (a2 - a1) * _beta_prime(m1 + 1.0, -(m1 + m2 + 1.0), size, rng)
    # t == 7: Student t with nu = 1/c2 - 1 degrees of freedom, scaled to unit variance
    nu = 1.0 / p.c2 - 1.0
    return np.sqrt(p.c0 / (1.0 - p.c2)) * rng.standard_t(nu, size)


def _beta_prime(alpha, beta, size, rng):
    b = rng.beta(alpha, beta, size)
    return b / (1.0 - b)


def location_scale(mu, sigma):
    """``(mu, sigma)`` as floats: a finite mean and a finite positive standard deviation."""
    return check_finite(mu, "mu"), check_positive(sigma, "sigma")


def truncation_bounds(truncate):
    """``(low, high)`` of a truncation interval (``(-inf, inf)`` for ``None``), ``low < high``."""
    if truncate is None:
        return -np.inf, np.inf
    low, high = float(truncate[0]), float(truncate[1])
    if not low < high:
        raise ValueError(
            f"truncate must be an interval (low, high) with low < high; got truncate={truncate!r}")
    return low, high


def too_little_mass(truncate, p: PearsonParameters, mu, sigma):
    """The ``ValueError`` for a truncation interval that holds (almost) no probability."""
    return ValueError(
        f"truncate={truncate!r} holds too little probability mass of the Pearson type "
        f"{p.name} distribution (mu={mu}, sigma={sigma}, skew={p.skew}, "
        f"kurtosis={p.kurtosis})"
    )


def pearsrnd(mu: float, sigma: float, skew: float, kurtosis: float,
             size: int | tuple[int, ...] | None = None, *,
             random_state: int | np.random.Generator | None = None,
             truncate: float | None = None) -> float | np.ndarray:
    """Random draws from the Pearson distribution with the given four moments.

    Equivalent to MATLAB's ``pearsrnd(mu, sigma, skew, kurt, ...)`` (same type
    selection, :mod:`kpca.pearson.system`), with an optional truncation used by
    MDD (Varon et al. 2015, §IV: ``0 <= r_hat <= r_max``).

    Parameters
    ----------
    mu : float
        Mean.
    sigma : float
        Standard deviation (> 0).
    skew : float
        Skewness.
    kurtosis : float
        Kurtosis, non-excess (normal = 3); must exceed ``skew**2 + 1``.
    size : int or tuple of int, optional
        Output shape; ``None`` returns a float.
    random_state : None, int or numpy.random.Generator
        Seed or generator.
    truncate : (float, float), optional
        Keep only draws inside ``[low, high]``, redrawing the others
        (rejection), so the result follows the truncated distribution.

    Returns
    -------
    float or ndarray

    Raises
    ------
    ValueError
        Invalid moments (``kurtosis <= skew**2 + 1``), ``sigma <= 0``, an empty
        truncation interval, or one holding (almost) no probability mass.

    See Also
    --------
    pearsrnd_sorted : a sorted sample of the same distribution, in ``O(size)``.
    pearson_parameters : the type and coefficients of the distribution.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model
       selection in kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11),
       2015, §IV and footnote 3: noise distances drawn with ``pearsrnd``, truncated to
       ``[0, r_max]``.
    .. [2] N. L. Johnson, S. Kotz and N. Balakrishnan, *Continuous Univariate
       Distributions*, vol. 1, 2nd ed., Wiley, 1994, §4.1.
    .. [3] J. Heinrich, "A guide to the Pearson type IV distribution,"
       CDF/MEMO/STATISTICS/PUBLIC/6820, 2004.
    .. [4] L. Devroye, *Non-Uniform Random Variate Generation*, Springer, 1986, §VII.2.3
       (the rejection sampler of type IV).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.pearson import pearsrnd
    >>> x = pearsrnd(2.0, 0.5, 0.8, 4.0, 10_000, random_state=0, truncate=(0.0, 5.0))
    >>> x.shape, bool(x.min() >= 0.0)
    ((10000,), True)
    >>> round(float(np.mean(x)), 1), round(float(np.std(x)), 1)
    (2.0, 0.5)
    """
    mu, sigma = location_scale(mu, sigma)
    p = pearson_parameters(skew, kurtosis)
    rng = check_random_state(random_state)
    n = 1 if size is None else int(np.prod(size))
    if truncate is None:
        out = mu + sigma * standard_draws(p, n, rng)
    else:
        out = _truncated_draws(p, n, rng, mu, sigma, truncate)
    if size is None:
        return float(out[0])
    return out.reshape(size)


def _truncated_draws(p, n, rng, mu, sigma, truncate):
    """``n`` draws of ``mu + sigma Y`` (``Y`` standardised ``p``) inside ``truncate``, by
    rejection in batches of at least 64."""
    low, high = truncation_bounds(truncate)
    out = np.empty(n)
    todo = n
    tries = 0
    while todo:
        draw = mu + sigma * standard_draws(p, max(todo, 64), rng)
        keep = draw[(draw >= low) & (draw <= high)][:todo]
        out[n - todo : n - todo + keep.size] = keep
        todo -= keep.size
        tries += 1
        if tries > 1000:
            raise too_little_mass(truncate, p, mu, sigma)
    return out
