"""Linear Hebbian PCA: Sanger's generalized Hebbian algorithm (GHA).

Implements the GHA weight update of Eq. (2) of Schraudolph, Günter &
Vishwanathan (2006), "Fast iterative kernel PCA" (Sanger 1989)::

    W_{t+1} = W_t + eta_t [ y_t x_t^T - lt(y_t y_t^T) W_t ],   y_t = W_t x_t,

where the rows of ``W`` (``r x d``) converge to the ``r`` leading unit
eigenvectors of the covariance of the (centred) inputs, in order, and
``lt()`` keeps the lower triangle including the diagonal. It is the linear
special case of the kernel Hebbian algorithm in :mod:`kpca.iterative`.

The modified modulated Hebb-Oja rule (MMHO) of Jankovic et al. is NOT
implemented here: its update, Eq. (7), is garbled in our copy of the paper
(``docs/design.md#4-kpca-core-decisions``).
"""

from __future__ import annotations

import numba
import numpy as np

from kpca._validation import check_n_components, check_positive, check_random_state
from kpca.base import KPCATransformer

__all__ = ["GeneralizedHebbianPCA", "SCHEDULES"]

#: Gain schedules: key -> description (``t`` counts samples seen, ``l`` the
#: number of training samples).
SCHEDULES = {
    "constant": "eta_t = eta0",
    "1/t": "eta_t = eta0 * l / (t + l)  (the KHA/t decay of Schraudolph et al. 2006)",
}


@numba.njit(cache=True)
def _gha_pass(W, X, order, gains):  # pragma: no cover - compiled
    """One pass of Eq. (2) over ``X[order]`` with per-sample gains, in place."""
    r, d = W.shape
    y = np.empty(r)
    run = np.empty(d)
    for n in range(order.shape[0]):
        p = order[n]
        g = gains[n]
        for i in range(r):
            s = 0.0
            for c in range(d):
                s += W[i, c] * X[p, c]
            y[i] = s
        # Row i of lt(y y^T) W is y_i * sum_{j<=i} y_j W_j; W_t is used on the
        # right-hand side, so accumulate the running sum before updating row i.
        for c in range(d):
            run[c] = 0.0
        for i in range(r):
            for c in range(d):
                run[c] += y[i] * W[i, c]
                W[i, c] += g * (y[i] * X[p, c] - y[i] * run[c])


def _gha_pass_numpy(W, X, order, gains):
    """NumPy twin of :func:`_gha_pass` (used by the tests)."""
    for p, g in zip(order, gains, strict=False):
        y = W @ X[p]
        W += g * (np.outer(y, X[p]) - np.tril(np.outer(y, y)) @ W)


class GeneralizedHebbianPCA(KPCATransformer):
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

    _fitted_attribute = "components_"

    def __init__(self, n_components=1, eta0=0.01, *, schedule="constant", n_passes=20,
                 random_state=None):
        self.n_components = n_components
        self.eta0 = eta0
        self.schedule = schedule
        self.n_passes = n_passes
        self.random_state = random_state

    def _check_params(self, n_features):
        if self.schedule not in SCHEDULES:
            raise ValueError(
                f"schedule must be one of {sorted(SCHEDULES)}; got schedule={self.schedule!r}"
            )
        r = check_n_components(self.n_components, n_features)
        eta0 = check_positive(self.eta0, "eta0")
        if (isinstance(self.n_passes, bool) or not isinstance(self.n_passes, (int, np.integer))
                or self.n_passes < 1):
            raise ValueError(f"n_passes must be a positive integer; got n_passes={self.n_passes!r}")
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
        W = rng.normal(scale=1.0 / np.sqrt(d), size=(r, d))
        t = 0
        for _ in range(int(self.n_passes)):
            order = rng.permutation(l)
            if self.schedule == "constant":
                gains = np.full(l, eta0)
            else:
                gains = eta0 * l / (t + np.arange(l) + l)
            _gha_pass(W, Xc, order, gains)
            t += l
            if not np.all(np.isfinite(W)):
                raise FloatingPointError(
                    f"GHA diverged with eta0={self.eta0} (schedule={self.schedule!r}); "
                    "lower eta0 or scale the data"
                )
        self.weights_ = W
        comps = W / np.linalg.norm(W, axis=1, keepdims=True)
        idx = np.argmax(np.abs(comps), axis=1)
        comps *= np.sign(comps[np.arange(r), idx])[:, None]
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
