"""The Pearson system: the type of a (skewness, kurtosis) pair and the shape of each type.

This module reproduces the classification of MATLAB's ``pearsrnd`` exactly
(Johnson, Kotz & Balakrishnan 1994, §4.1):

* ``beta1 = skew**2``, ``beta2 = kurtosis`` (non-excess: the normal has 3);
  the moments exist only when ``beta2 > beta1 + 1`` (:func:`in_pearson_region`).
* The density solves ``d log p / dx = -(c1 + x) / (c0 + c1 x + c2 x^2)``
  (standardised ``x``) with ``c0 = (4 beta2 - 3 beta1) / D``,
  ``c1 = skew (beta2 + 3) / D``, ``c2 = (2 beta2 - 3 beta1 - 6) / D``,
  ``D = 10 beta2 - 12 beta1 - 18``.
* Type 0 (normal) when ``skew = 0`` and ``beta2 = 3``; II (symmetric beta) when
  ``skew = 0, beta2 < 3``; VII (Student t) when ``skew = 0, beta2 > 3``;
  III (gamma) when ``2 beta2 - 3 beta1 - 6 = 0``; otherwise with
  ``kappa = c1^2 / (4 c0 c2)``: I (beta) if ``kappa < 0``, IV if
  ``0 <= kappa < 1 - eps``, V (inverse gamma) if ``|kappa - 1| <= eps``,
  VI (beta prime / F) if ``kappa > 1 + eps`` (``eps`` = machine epsilon, as in
  ``pearsrnd``).

The samplers (:mod:`kpca.pearson.draws`, :mod:`kpca.pearson.sorted_draws`) build on the
shapes computed here: the beta exponents of types I, II and VI and the type IV parameters of
Heinrich (2004).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kpca._validation import check_finite

__all__ = ["TYPE_NAMES", "PearsonParameters", "in_pearson_region", "pearson_parameters",
           "pearson_type"]

_EPS = np.finfo(float).eps
TYPE_NAMES = {
    0: "normal",
    1: "I (four-parameter beta)",
    2: "II (symmetric beta)",
    3: "III (three-parameter gamma)",
    4: "IV",
    5: "V (inverse gamma)",
    6: "VI (beta prime / F)",
    7: "VII (Student t)",
}


@dataclass(frozen=True)
class PearsonParameters:
    """Classification of a (skewness, kurtosis) pair in the Pearson system.

    Attributes
    ----------
    type : int
        Pearson type 0 (normal) ... 7, numbered as MATLAB's ``pearsrnd``.
    skew, kurtosis : float
        The standardised third moment and the (non-excess) fourth moment.
    c0, c1, c2 : float
        Coefficients of the standardised Pearson differential equation
        (``inf`` on the line ``D = 0`` where only the roots stay finite).
    roots : tuple of float
        Real roots ``a1 <= a2`` of ``c0 + c1 x + c2 x^2`` (types I, II, VI),
        the single root (type III) or ``()``.

    See Also
    --------
    pearson_parameters : builds it from a skewness and a kurtosis.

    References
    ----------
    .. [1] N. L. Johnson, S. Kotz and N. Balakrishnan, *Continuous Univariate
       Distributions*, vol. 1, 2nd ed., Wiley, 1994, §4.1 (the Pearson system).

    Examples
    --------
    >>> from kpca.pearson import pearson_parameters
    >>> p = pearson_parameters(0.0, 3.0)
    >>> p.type, p.name
    (0, 'normal')
    """

    type: int
    skew: float
    kurtosis: float
    c0: float
    c1: float
    c2: float
    roots: tuple

    @property
    def name(self) -> str:
        """Human-readable type name, e.g. ``"IV"``."""
        return TYPE_NAMES[self.type]


def in_pearson_region(skew: float, kurtosis: float) -> bool:
    """Whether a distribution can have this skewness and kurtosis: ``kurtosis > skew**2 + 1``.

    The one test of the Pearson region in ``kpca`` (a NaN moment is outside it).

    Parameters
    ----------
    skew : float
        Skewness.
    kurtosis : float
        Kurtosis, non-excess (3 for the normal distribution).

    Returns
    -------
    bool

    See Also
    --------
    pearson_parameters : raises ``ValueError`` outside the region.

    References
    ----------
    .. [1] N. L. Johnson, S. Kotz and N. Balakrishnan, *Continuous Univariate
       Distributions*, vol. 1, 2nd ed., Wiley, 1994, §4.1.

    Examples
    --------
    >>> from kpca.pearson import in_pearson_region
    >>> in_pearson_region(0.0, 3.0), in_pearson_region(1.0, 2.0)
    (True, False)
    """
    return bool(kurtosis > skew**2 + 1.0)


def _check_moments(skew, kurtosis):
    skew = check_finite(skew, "skew")
    kurtosis = check_finite(kurtosis, "kurtosis")
    if not in_pearson_region(skew, kurtosis):
        raise ValueError(
            "kurtosis must exceed skew**2 + 1 (outside the Pearson region no distribution "
            f"has these moments); got skew={skew!r}, kurtosis={kurtosis!r}"
        )
    return skew, kurtosis


def pearson_parameters(skew: float, kurtosis: float) -> PearsonParameters:
    """Classify ``(skew, kurtosis)`` exactly as MATLAB's ``pearsrnd`` does.

    Parameters
    ----------
    skew : float
        Skewness ``E[(X - mu)^3] / sigma^3``.
    kurtosis : float
        Kurtosis ``E[(X - mu)^4] / sigma^4`` (3 for the normal distribution).

    Returns
    -------
    PearsonParameters

    Raises
    ------
    ValueError
        If a moment is not a finite number, or if ``kurtosis <= skew**2 + 1`` (no
        distribution has such moments).

    See Also
    --------
    pearson_type : the type alone.
    pearsrnd : draws from the classified distribution.

    References
    ----------
    .. [1] N. L. Johnson, S. Kotz and N. Balakrishnan, *Continuous Univariate
       Distributions*, vol. 1, 2nd ed., Wiley, 1994, §4.1 (the criterion ``kappa`` and the
       types).
    .. [2] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model
       selection in kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11),
       2015, §IV and footnote 3: the Pearson system of MATLAB's ``pearsrnd``.

    Examples
    --------
    >>> from kpca.pearson import pearson_parameters
    >>> p = pearson_parameters(0.5, 4.5)
    >>> p.type, p.name
    (4, 'IV')
    >>> [round(float(a), 4) for a in pearson_parameters(0.0, 2.2).roots]  # support (a1, a2)
    [-2.3452, 2.3452]
    """
    skew, kurtosis = _check_moments(skew, kurtosis)
    b1 = skew * skew
    b2 = kurtosis
    c0 = 4.0 * b2 - 3.0 * b1
    c1 = skew * (b2 + 3.0)
    c2 = 2.0 * b2 - 3.0 * b1 - 6.0
    ptype, roots = _type_and_roots(b2, c0, c1, c2)
    denom = 10.0 * b2 - 12.0 * b1 - 18.0
    if abs(denom) > np.sqrt(np.finfo(float).tiny):
        c0, c1, c2 = c0 / denom, c1 / denom, c2 / denom
    else:  # beta2 = 1.8 + 1.2 beta1: coefficients diverge, roots stay finite (a type I beta)
        ptype = 1
        c0 = c1 = c2 = np.inf
    return PearsonParameters(ptype, skew, kurtosis, c0, c1, c2, roots)


def _type_and_roots(b2, c0, c1, c2):
    """``(type, roots)`` from ``beta2`` and the unscaled coefficients ``D c0, D c1, D c2``
    (the roots of ``c0 + c1 x + c2 x^2`` do not depend on the scale ``D``)."""
    roots: tuple = ()
    if c1 == 0.0:
        if b2 == 3.0:
            return 0, roots
        r = np.sqrt(abs(c0 / c2))
        return (2 if b2 < 3.0 else 7), (-r, r)
    if c2 == 0.0:
        return 3, (-c0 / c1,)
    kappa = c1 * c1 / (4.0 * c0 * c2)
    if kappa < 0.0:
        ptype = 1
    elif kappa < 1.0 - _EPS:
        return 4, roots
    elif kappa <= 1.0 + _EPS:
        ptype = 5
    else:
        ptype = 6
    # numerically stable quadratic roots
    disc = np.sqrt(max(c1 * c1 - 4.0 * c0 * c2, 0.0))
    tmp = -(c1 + np.copysign(disc, c1)) / 2.0
    a1, a2 = tmp / c2, c0 / tmp
    return ptype, (min(a1, a2), max(a1, a2))


def pearson_type(skew: float, kurtosis: float) -> int:
    """Pearson type (0-7, numbered as ``pearsrnd``) of a skewness/kurtosis pair.

    Parameters
    ----------
    skew : float
        Skewness.
    kurtosis : float
        Kurtosis, non-excess (3 for the normal distribution).

    Returns
    -------
    int

    Raises
    ------
    ValueError
        As :func:`pearson_parameters`.

    See Also
    --------
    pearson_parameters : the type with the coefficients and roots.

    References
    ----------
    .. [1] N. L. Johnson, S. Kotz and N. Balakrishnan, *Continuous Univariate
       Distributions*, vol. 1, 2nd ed., Wiley, 1994, §4.1.

    Examples
    --------
    >>> from kpca.pearson import pearson_type
    >>> pearson_type(0.0, 3.0), pearson_type(0.0, 4.5), pearson_type(1.0, 4.5)
    (0, 7, 3)
    """
    return pearson_parameters(skew, kurtosis).type


def beta_exponents(p: PearsonParameters):
    """Exponents ``m1, m2`` of ``|x - a1|^m1 |x - a2|^m2`` (types I, II, VI)."""
    a1, a2 = p.roots
    if np.isinf(p.c2):  # D = 0: c1 / c2 keeps a finite limit, skew (b2+3)/(2b2-3b1-6)
        ratio = p.skew * (p.kurtosis + 3.0) / (2.0 * p.kurtosis - 3.0 * p.skew**2 - 6.0)
        return ratio / (a2 - a1), -ratio / (a2 - a1)
    m1 = (p.c1 + a1) / (p.c2 * (a2 - a1))
    m2 = -(p.c1 + a2) / (p.c2 * (a2 - a1))
    return m1, m2


def type4_shape(p: PearsonParameters):
    """Type IV parameters ``(m, nu, a, lam)`` of the standardised density
    ``(1 + ((x - lam)/a)^2)^(-m) exp(-nu arctan((x - lam)/a))`` (Heinrich 2004)."""
    m = 1.0 / (2.0 * p.c2)
    nu = 2.0 * p.c1 * (1.0 - m) / np.sqrt(4.0 * p.c0 * p.c2 - p.c1**2)
    b = 2.0 * (m - 1.0)
    a = np.sqrt(b * b * (b - 1.0) / (b * b + nu * nu))  # unit variance
    lam = a * nu / b  # zero mean
    return m, nu, a, lam
