"""Linear Hebbian PCA: Sanger's GHA and the modified modulated Hebb-Oja rule (MMHO).

:class:`GeneralizedHebbianPCA` implements the GHA weight update of Eq. (2) of
Schraudolph, Günter & Vishwanathan (2006), "Fast iterative kernel PCA"
(Sanger 1989)::

    W_{t+1} = W_t + eta_t [ y_t x_t^T - lt(y_t y_t^T) W_t ],   y_t = W_t x_t,

where the rows of ``W`` (``r x d``) converge to the ``r`` leading unit
eigenvectors of the covariance of the (centred) inputs, in order, and
``lt()`` keeps the lower triangle including the diagonal. It is the linear
special case of the kernel Hebbian algorithm in :mod:`kpca.iterative`.

:class:`ModulatedHebbOjaPCA` implements the MMHO rule of Jankovic et al.,
"Modified Modulated Hebb-Oja learning rule", Eq. (7), for neuron ``k = 1..r``::

    w_k(i+1) = w_k(i) + gamma(i) O_k(i) [(1 + alpha) ||x(i)||^2 - IP(i)]
                      - alpha gamma(i) O_k(i) A_k(i),

with the Oja term ``O_k = x y_k - w_k y_k^2``, the output power
``IP = ||y||^2 = A_r`` and the partial powers ``A_k = sum_{j<k} y_j^2 + y_k^2``.
Grouped, the update is ``gamma (S - IP) O_k + alpha gamma (S - A_k) O_k`` with
``S = ||x||^2``: Oja's rule per neuron modulated by one global signal
``S - IP`` (the parent MHO rule, ``alpha = 0``) plus the time-oriented
hierarchy ``alpha (S - A_k)`` that orders the neurons. Our copy of the paper
prints Eq. (7) with its glyphs scrambled; this is the one reading that uses
every surviving token (four ``+``: ``i+1``, ``w_k(i) +``, ``1 + alpha`` and the
partial sum) and the circuit of the paper's Fig. 4 (input energy ``S``,
partial powers ``A_k``, output power ``IP = A_N``); the derivation and the
rejected readings are in ``docs/studies/paper_reproductions.md``.

:func:`mmho_mean_update` is the averaged (mean-flow) MMHO update, exact for
inputs that are a linear mixture of independent zero-mean sources (Gaussian
inputs included). Because the update is quartic in ``x``, its fixed points
depend on the sources' fourth cumulants: for Gaussian inputs the unit
eigenvectors of the covariance are an exact fixed point, for other sources in
general they are not.
"""

from __future__ import annotations

import numpy as np

from kpca._signs import column_signs
from kpca._validation import (
    check_choice,
    check_count,
    check_n_components,
    check_nonnegative,
    check_positive,
    check_random_state,
)
from kpca.base import KPCATransformer
from kpca.hebbian_rules import _gha_pass, _mmho_loop, mmho_mean_update, mmho_pass

__all__ = ["GeneralizedHebbianPCA", "ModulatedHebbOjaPCA", "SCHEDULES", "mmho_pass",
           "mmho_mean_update"]

#: Gain schedules: key -> description (``t`` counts samples seen, ``l`` the
#: number of training samples).
SCHEDULES = {
    "constant": "eta_t = eta0",
    "1/t": "eta_t = eta0 * l / (t + l)  (the KHA/t decay of Schraudolph et al. 2006)",
}


class _HebbianPCA(KPCATransformer):
    """Shared fit/transform of the linear Hebbian estimators (``_pass`` is the rule)."""

    _fitted_attribute = "components_"
    _rule = ""
    _init_scale = 1.0  # initial W ~ N(0, _init_scale^2 / d)

    def _pass(self, W, X, order, gains):
        raise NotImplementedError

    def _gain_unit(self, Xc):
        """Factor turning ``eta0`` into the rule's gain for the centred data ``Xc``."""
        return 1.0

    def _check_params(self, n_features):
        check_choice(self.schedule, "schedule", SCHEDULES)
        r = check_n_components(self.n_components, n_features)
        eta0 = check_positive(self.eta0, "eta0")
        check_count(self.n_passes, "n_passes", 1)
        return r, eta0

    def fit(self, X, y=None):
        """Learn the leading principal axes of ``X`` (n_samples, n_features).

        Parameters
        ----------
        X : array_like, shape (n_samples, n_features)
            At least 2 samples.
        y : ignored

        Returns
        -------
        self
        """
        X = self._validate_X(X, reset=True, min_samples=2)
        l, d = X.shape
        r, eta0 = self._check_params(d)
        rng = check_random_state(self.random_state)
        self.mean_ = X.mean(axis=0)
        Xc = np.ascontiguousarray(X - self.mean_)
        eta0 = eta0 * self._gain_unit(Xc)
        W = rng.normal(scale=self._init_scale / np.sqrt(d), size=(r, d))
        t = 0
        for _ in range(int(self.n_passes)):
            order = rng.permutation(l)
            if self.schedule == "constant":
                gains = np.full(l, eta0)
            else:
                gains = eta0 * l / (t + np.arange(l) + l)
            self._pass(W, Xc, order, gains)
            t += l
            if not np.all(np.isfinite(W)):
                raise FloatingPointError(
                    f"{self._rule} diverged with eta0={self.eta0} (schedule={self.schedule!r}); "
                    "lower eta0 or scale the data"
                )
        self.weights_ = W
        comps = W / np.linalg.norm(W, axis=1, keepdims=True)
        comps *= column_signs(comps.T)[:, None]
        self.explained_variance_ = np.var(Xc @ comps.T, axis=0, ddof=1)
        self.n_components_ = r
        self.components_ = comps
        return self

    def transform(self, X):
        """Scores ``(X - mean_) @ components_.T``."""
        self._check_fitted("transform")
        X = self._validate_X(X, reset=False)
        return (X - self.mean_) @ self.components_.T

    def fit_transform(self, X, y=None):
        """``fit(X).transform(X)``."""
        return self.fit(X, y).transform(X)


class GeneralizedHebbianPCA(_HebbianPCA):
    """Linear PCA by Sanger's generalized Hebbian algorithm (GHA).

    Parameters
    ----------
    n_components : int
        Number ``r`` of leading components, ``1 <= r <= n_features``.
    eta0 : float
        Base gain ``eta_0 > 0``. GHA is stable for roughly
        ``eta0 * lambda_max < 1`` (``lambda_max`` the largest covariance
        eigenvalue); scale the data or lower ``eta0`` if it diverges.
    schedule : {"constant", "1/t"}
        Gain schedule (see :data:`SCHEDULES`).
    n_passes : int
        Passes through the data, each in a fresh random order.
    random_state : None, int or numpy.random.Generator
        Seeds the initial ``W ~ N(0, 1/d)`` and the sample orders.

    Attributes
    ----------
    components_ : ndarray, shape (r, d)
        Unit-norm eigenvector estimates (rows), sign fixed so that the
        largest-magnitude entry is positive.
    weights_ : ndarray, shape (r, d)
        Raw GHA weights ``W`` (rows converge to unit eigenvectors).
    mean_ : ndarray, shape (d,)
        Training mean subtracted before learning.
    explained_variance_ : ndarray, shape (r,)
        Variance of the training scores along each component.
    n_components_ : int
        ``r``.
    n_features_in_ : int
        ``d``.

    See Also
    --------
    ModulatedHebbOjaPCA : the MMHO rule, local to each neuron.
    kpca.iterative.KernelHebbianPCA : its kernel generalisation (KHA).

    References
    ----------
    .. [1] N. N. Schraudolph, S. Günter and S. V. N. Vishwanathan, "Fast iterative kernel PCA,"
       Advances in Neural Information Processing Systems 19, MIT Press, 2007. Eq. (2): the GHA
       update, and the ``1/t`` gain decay of KHA/t.
    .. [2] T. D. Sanger, "Optimal unsupervised learning in a single-layer linear feedforward neural
       network," Neural Netw. 2(6), 459-473, 1989. The generalized Hebbian algorithm (no equation
       numbers: not in the project's collection).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.hebbian import GeneralizedHebbianPCA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 3)) * [3.0, 1.0, 0.3]
    >>> gha = GeneralizedHebbianPCA(2, eta0=0.005, n_passes=30, random_state=0).fit(X)
    >>> np.round(np.abs(gha.components_), 1)
    array([[1., 0., 0.],
           [0., 1., 0.]])
    """

    _rule = "GHA"

    def __init__(self, n_components=1, eta0=0.01, *, schedule="constant", n_passes=20,
                 random_state=None):
        self.n_components = n_components
        self.eta0 = eta0
        self.schedule = schedule
        self.n_passes = n_passes
        self.random_state = random_state

    def _pass(self, W, X, order, gains):
        _gha_pass(W, X, order, gains)


class ModulatedHebbOjaPCA(_HebbianPCA):
    """Linear PCA by the modified modulated Hebb-Oja rule (MMHO, Jankovic et al., Eq. (7)).

    Each neuron needs only its own weights, its output, the input energy
    ``||x||^2`` and the partial output powers (see the module docstring).

    Parameters
    ----------
    n_components : int
        Number ``r`` of leading components, ``1 <= r <= n_features``.
    eta0 : float
        Base gain ``eta_0 > 0`` in units of ``1 / trace(C)^2`` (``C`` the
        training covariance): the update is cubic in the data scale, so the
        rule's gain is ``eta0 / trace(C)^2`` and the fit does not depend on
        the data's scale. Lower ``eta0`` if it diverges (heavy tails need
        smaller gains).
    alpha : float
        Weight ``alpha >= 0`` of the individual (hierarchical) part; ``0``
        leaves the collective MHO rule, whose neurons span the principal
        subspace without order.
    schedule : {"constant", "1/t"}
        Gain schedule (see :data:`SCHEDULES`).
    n_passes : int
        Passes through the data, each in a fresh random order.
    random_state : None, int or numpy.random.Generator
        Seeds the initial ``W ~ N(0, 0.25/d)`` and the sample orders. The
        start is small because the rule is only stable while the modulating
        form ``(1 + alpha) I - W^T W - alpha W_{1..k}^T W_{1..k}`` stays
        positive; a start with ``||W||_2 > 1`` can run away.

    Attributes
    ----------
    weights_ : ndarray, shape (r, d)
        Raw MMHO weights ``W`` (rows converge to unit vectors).
    components_, mean_, explained_variance_, n_components_, n_features_in_
        As in :class:`GeneralizedHebbianPCA`.

    Notes
    -----
    For Gaussian data the leading unit eigenvectors are an exact fixed point
    of the averaged update (:func:`mmho_mean_update`); for strongly
    non-Gaussian sources behind a non-orthogonal mixture the fixed point lies
    slightly off the eigenvectors.

    See Also
    --------
    GeneralizedHebbianPCA : Sanger's rule.
    mmho_pass : one pass of the rule.
    mmho_mean_update : its averaged update.

    References
    ----------
    .. [1] M. Jankovic et al., "Modified Modulated Hebb-Oja learning rule," Neural Information
       Processing (ICONIP 2007), LNCS 4984, Springer, 2008. Eq. (7): the MMHO rule; Fig. 4: its
       circuit (input energy, partial powers, output power).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.hebbian import ModulatedHebbOjaPCA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 3)) * [1.0, 0.6, 0.2]
    >>> mmho = ModulatedHebbOjaPCA(2, eta0=0.02, schedule="1/t", n_passes=10,
    ...                            random_state=0).fit(X)
    >>> np.round(np.abs(mmho.components_), 1)
    array([[1., 0., 0.],
           [0., 1., 0.]])
    """

    _rule = "MMHO"
    _init_scale = 0.5

    def __init__(self, n_components=1, eta0=0.01, *, alpha=0.5, schedule="constant",
                 n_passes=20, random_state=None):
        self.n_components = n_components
        self.eta0 = eta0
        self.alpha = alpha
        self.schedule = schedule
        self.n_passes = n_passes
        self.random_state = random_state

    def _check_params(self, n_features):
        check_nonnegative(self.alpha, "alpha")
        return super()._check_params(n_features)

    def _gain_unit(self, Xc):
        total = np.einsum("ij,ij->", Xc, Xc) / Xc.shape[0]
        return 1.0 / total**2 if total > 0 else 1.0

    def _pass(self, W, X, order, gains):
        _mmho_loop(W, X, order, gains, float(self.alpha))
