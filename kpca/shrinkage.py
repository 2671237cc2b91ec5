"""Orthogonal shrinkage for Gaussian-basis regression (Hagiwara, ICONIP 2007).

Implements K. Hagiwara, "Orthogonal shrinkage methods for nonparametric
regression under Gaussian noise" (LNCS 4984, pp. 537-546, 2008). The machine
``f_w(x) = sum_j w_j g_j(x)`` (Eq. (2)) has one Gaussian basis function
``g_j(x) = exp(-||x - x_j||^2 / (2 tau2))`` per training input. With the
design ``G[i, j] = g_j(x_i)`` and ``F_lam = G^T G + lam I``:

* ridge estimate ``w_lam = F_lam^{-1} G^T y`` (Eq. (6));
* eigendecomposition ``Q^T (G^T G) Q = Gamma = diag(gamma_k)`` and
  ``Gamma_lam = Gamma + lam I`` (Eq. (8));
* orthogonal components ``v_lam = Gamma_lam^{-1/2} Q^T G^T y`` (Eq. (11)),
  each with noise variance ``sigma_k^2 = sigma^2 gamma_k / (gamma_k + lam)``;
* hard thresholding ``T(v_k) = v_k if v_k^2 > theta_k else 0`` (Eq. (16)) and
  the shrinkage estimate ``w = Q Gamma_lam^{-1/2} T(v_lam)`` (Eq. (12));
* threshold ``C_{n,0} = 2 log n - log log n`` (``C_{n,delta}`` before
  Eq. (17) with ``delta = 0``), noise variance from Eq. (21)
  ``sigma^2 = y^T (I - H)^2 y / trace[(I - H)^2]``, ``H = G F_lam^{-1} G^T``.

The three rules of Section 3:

* ``"cht"`` component-wise: ``theta_k = sigma_k^2 C_{n,0}``;
* ``"htu"`` universal level: ``theta_k = sigma^2 C_{n,0}``;
* ``"bht"`` backward: with ``gamma`` ascending, find the first ``j`` whose
  component exceeds its CHT level and keep every component from ``j`` on
  (all larger eigenvalues). The extracted text garbles the comparison
  ("v_{lam,j} > sigma^2 C_{n,0}"); we read it as the CHT test
  ``v_j^2 > sigma_j^2 C_{n,0}`` (``sigma_j^2 ~= sigma^2`` wherever
  ``gamma_j >> lam``, so the two readings differ only on negligible
  components).

Components whose eigenvalue ``gamma_k`` is below ``eig_tol`` (the paper's
"predetermined small value, say, 1e-16") are dropped. ``G`` is symmetric here
(one basis function centred on each training input), so ``Q`` and ``gamma``
come from ``G = Q diag(mu) Q^T`` with ``gamma = mu^2``: the same
eigendecomposition of ``G^T G``, without squaring the condition number.

:class:`LeaveOneOutRidgeRegression` is the paper's baseline: the raw
estimate (6) with ``lam`` chosen by closed-form leave-one-out CV on the grid
``{m 10^j : m = 1, 2, 5; j = -4..3}`` of Section 4.2.
"""

from __future__ import annotations

import numpy as np

from kpca._validation import check_array, check_positive
from kpca.kernels import rbf_kernel

__all__ = [
    "LeaveOneOutRidgeRegression",
    "OrthogonalShrinkageRegression",
    "THRESHOLDS",
    "LOOCV_GRID",
    "universal_threshold",
]

#: Thresholding rules of Section 3: key -> description.
THRESHOLDS = {
    "cht": "component-wise hard thresholding, theta_k = sigma_k^2 C_{n,0}",
    "htu": "hard thresholding with the universal level, theta_k = sigma^2 C_{n,0}",
    "bht": "backward hard thresholding from the smallest eigenvalue (CHT level)",
}

#: Regularisation grid of the LOOCV baseline (Section 4.2).
LOOCV_GRID = np.array(sorted(m * 10.0 ** j for m in (1, 2, 5) for j in range(-4, 4)))


def universal_threshold(n, delta=0.0):
    """``C_{n,delta} = 2 log n + (delta - 1) log log n`` (Hagiwara, before Eq. (17)).

    Parameters
    ----------
    n : int
        Number of components (training points), ``n >= 3`` so that
        ``log log n > 0``.
    delta : float
        ``delta = 0`` is the critical level used by CHT, HTU and BHT;
        ``delta = 1`` gives Donoho-Johnstone's ``2 log n``.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 3:
        raise ValueError(f"n must be an integer >= 3; got n={n!r}")
    return 2.0 * np.log(n) + (delta - 1.0) * np.log(np.log(n))


def _as_2d(x, name):
    x = np.asarray(x)
    if x.ndim == 1:
        x = x[:, None]
    return check_array(x, name=name)


def _check_targets(y, n):
    try:
        y = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"y must be a numeric array; got {type(y).__name__}: {exc}") from None
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(f"y must be a 1-D array with {n} values (one per x row); got y.shape={y.shape}")
    if not np.all(np.isfinite(y)):
        i = int(np.argmin(np.isfinite(y)))
        raise ValueError(f"y must contain only finite values; got y[{i}]={y[i]}")
    return y


class _GaussianBasis:
    """Shared fit/predict plumbing: ``G[i, j] = exp(-||x_i - x_j||^2 / (2 tau2))``."""

    def _design(self, x):
        self.tau2_ = check_positive(self.tau2, "tau2")
        X = _as_2d(x, "x")
        if X.shape[0] < 3:
            raise ValueError(f"x must have at least 3 samples; got x.shape={X.shape}")
        self.X_fit_ = X
        return X, rbf_kernel(X, sigma2=self.tau2_)

    def predict(self, x):
        """``f_w(x) = sum_j w_j g_j(x)`` (Eq. (2))."""
        if not hasattr(self, "coef_"):
            raise RuntimeError(f"This {type(self).__name__} is not fitted yet; call fit(x, y) first")
        X = _as_2d(x, "x")
        if X.shape[1] != self.X_fit_.shape[1]:
            raise ValueError(
                f"x has {X.shape[1]} features but {self.X_fit_.shape[1]} were seen in fit; "
                f"got x.shape={X.shape}"
            )
        return rbf_kernel(X, self.X_fit_, sigma2=self.tau2_) @ self.coef_


class OrthogonalShrinkageRegression(_GaussianBasis):
    """Gaussian-basis regression with hard-thresholded orthogonal components.

    Parameters
    ----------
    method : {"cht", "htu", "bht"}
        Thresholding rule (see :data:`THRESHOLDS`).
    tau2 : float
        Basis width ``tau^2`` (the paper's experiments use 0.05).
    lam : float
        Small fixed regulariser ``lambda > 0`` (the paper uses 1e-4).
    sigma2 : float or None
        Known noise variance; ``None`` estimates it with Eq. (21).
    eig_tol : float
        Components with ``gamma_k < eig_tol`` are dropped (paper: 1e-16).

    Attributes
    ----------
    coef_ : ndarray, shape (n,)
        Shrinkage weights ``w = Q Gamma_lam^{-1/2} T(v_lam)`` (Eq. (12)).
    components_ : ndarray, shape (n,)
        Orthogonal components ``v_lam`` (Eq. (11)), eigenvalues ascending.
    eigenvalues_ : ndarray, shape (n,)
        ``gamma_k`` of ``G^T G``, ascending.
    kept_ : ndarray of bool, shape (n,)
        Which components survived thresholding.
    thresholds_ : ndarray, shape (n,)
        ``theta_k`` of Eq. (16) (the CHT levels for ``"bht"``).
    sigma2_ : float
        Noise variance used (given or Eq. (21)).
    """

    def __init__(self, method="bht", *, tau2=0.05, lam=1e-4, sigma2=None, eig_tol=1e-16):
        self.method = method
        self.tau2 = tau2
        self.lam = lam
        self.sigma2 = sigma2
        self.eig_tol = eig_tol

    def fit(self, x, y):
        """Fit on inputs ``x`` (n,) or (n, d) and noisy targets ``y`` (n,)."""
        if self.method not in THRESHOLDS:
            raise ValueError(f"method must be one of {sorted(THRESHOLDS)}; got method={self.method!r}")
        lam = check_positive(self.lam, "lam")
        if not np.isfinite(self.eig_tol) or self.eig_tol < 0:
            raise ValueError(f"eig_tol must be a finite number >= 0; got eig_tol={self.eig_tol!r}")
        X, G = self._design(x)
        n = X.shape[0]
        y = _check_targets(y, n)
        mu, Q = np.linalg.eigh(G)
        order = np.argsort(mu * mu)  # ascending gamma, as assumed by BHT
        mu, Q = mu[order], Q[:, order]
        gamma = mu * mu
        Qty = Q.T @ y
        # Eq. (11): Q^T G^T y = diag(mu) Q^T y.
        v = mu * Qty / np.sqrt(gamma + lam)
        if self.sigma2 is None:
            # Eq. (21); I - H_lam has eigenvalues lam / (gamma + lam) along Q.
            r = lam / (gamma + lam)
            sigma2 = float(np.sum((r * Qty) ** 2) / np.sum(r * r))
        else:
            sigma2 = check_positive(self.sigma2, "sigma2")
        c = universal_threshold(n)
        sig2_k = sigma2 * gamma / (gamma + lam)
        valid = gamma >= self.eig_tol
        if self.method == "htu":
            theta = np.full(n, sigma2 * c)
        else:
            theta = sig2_k * c
        exceed = valid & (v * v > theta)
        if self.method == "bht":
            kept = np.zeros(n, dtype=bool)
            hits = np.flatnonzero(exceed)
            if hits.size:
                kept[hits[0]:] = True
            kept &= valid
        else:
            kept = exceed
        Tv = np.where(kept, v, 0.0)
        self.coef_ = Q @ (Tv / np.sqrt(gamma + lam))  # Eq. (12)
        self.components_ = v
        self.eigenvalues_ = gamma
        self.kept_ = kept
        self.thresholds_ = theta
        self.sigma2_ = sigma2
        return self


class LeaveOneOutRidgeRegression(_GaussianBasis):
    """Raw regularised estimate (Eq. (6)) with ``lam`` chosen by leave-one-out CV.

    The LOO residual of a linear smoother is ``(y_i - yhat_i) / (1 - H_ii)``
    (Craven & Wahba 1979), so every candidate costs one pass over the SVD of
    ``G``; no refitting on validation sets.

    Parameters
    ----------
    tau2 : float
        Basis width ``tau^2``.
    lams : array_like or None
        Candidate regularisation parameters; ``None`` uses :data:`LOOCV_GRID`.

    Attributes
    ----------
    lam_ : float
        Chosen ``lambda`` (smallest LOO mean squared error; first on ties).
    loo_errors_ : ndarray
        LOO mean squared error per candidate.
    coef_ : ndarray, shape (n,)
        ``w_lam = F_lam^{-1} G^T y`` at ``lam_``.
    """

    def __init__(self, *, tau2=0.05, lams=None):
        self.tau2 = tau2
        self.lams = lams

    def fit(self, x, y):
        """Fit on inputs ``x`` (n,) or (n, d) and noisy targets ``y`` (n,)."""
        lams = LOOCV_GRID if self.lams is None else np.atleast_1d(np.asarray(self.lams, float))
        if lams.size == 0 or not np.all(np.isfinite(lams)) or np.any(lams <= 0):
            raise ValueError(f"lams must be finite positive numbers; got lams={self.lams!r}")
        X, G = self._design(x)
        y = _check_targets(y, X.shape[0])
        mu, Q = np.linalg.eigh(G)  # G symmetric: G^T G = Q diag(mu^2) Q^T
        gamma = mu * mu
        Qty = Q.T @ y
        Q2 = Q * Q
        errs = np.empty(lams.size)
        for i, lam in enumerate(lams):
            shrink = gamma / (gamma + lam)  # eigenvalues of H_lam
            yhat = Q @ (shrink * Qty)
            h = Q2 @ shrink
            errs[i] = np.mean(((y - yhat) / (1.0 - h)) ** 2)
        best = int(np.argmin(errs))
        self.lam_ = float(lams[best])
        self.loo_errors_ = errs
        self.coef_ = Q @ (mu * Qty / (gamma + self.lam_))  # Eq. (6): Q Gamma_lam^-1 Q^T G^T y
        return self
