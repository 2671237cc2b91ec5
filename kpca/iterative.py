"""Iterative kernel PCA: the Kernel Hebbian Algorithm and its accelerated gains.

Implements Schraudolph, Günter & Vishwanathan (2006), "Fast iterative kernel
PCA" (NIPS 19):

* KHA — Kim et al.'s kernel Hebbian algorithm with a constant gain,
  Eqs. (8)-(10): ``A <- A + eta0 * Gamma``,
  ``Gamma = y e_p^T - lt(y y^T) A``, ``y = A k'_p``;
* KHA/t — scheduled gain decay ``eta_t = eta0 * l / (t + l)``;
* KHA/et — per-component gains reciprocal to the current eigenvalue
  estimates and to t, Eqs. (11)-(14);
* KHA-SMD — KHA/et with Stochastic Meta-Descent log-gain adaptation in the
  RKHS, Eqs. (15)-(21) and Algorithm 1.

``k'_p`` is column ``p`` of the centred kernel matrix ``K'`` (Eq. (5)), ``l``
the number of training points and ``r`` the number of components. Progress is
measured by the excess relative reconstruction error of Eq. (22),
``E(A)/E_min - 1`` with ``E(A) = ||K' - (A K')^T (A K')||_F``, recorded after
every pass through the data (:attr:`KernelHebbianPCA.excess_error_`).

The linear Hebbian rules (Sanger's GHA and Jankovic's MMHO) live in
:mod:`kpca.hebbian`.
"""

from __future__ import annotations

import numba
import numpy as np

from kpca._signs import column_signs
from kpca._validation import (
    check_choice,
    check_count,
    check_n_components,
    check_nonnegative,
    check_positive,
    check_random_state,
    check_sigma2,
)
from kpca.base import KPCATransformer
from kpca.kernels import center_kernel, center_test_kernel, rbf_kernel

__all__ = ["KernelHebbianPCA", "GAINS", "excess_reconstruction_error"]

#: Gain schedules: key -> description. ``"kha"`` constant, ``"kha/t"`` 1/t
#: decay, ``"kha/et"`` eigenvalue-and-time gains, ``"kha-smd"`` SMD-adapted.
GAINS = {
    "kha": "constant gain eta0 (Kim et al. 2005; Eq. (10))",
    "kha/t": "scheduled decay eta0 * l / (t + l)",
    "kha/et": "reciprocal eigenvalue and time gains, Eq. (12)",
    "kha-smd": "KHA/et gains adapted by Stochastic Meta-Descent, Eqs. (15)-(21)",
}


@numba.njit(cache=True)
def _lt_outer_times(y, z, M, out):  # pragma: no cover - compiled
    """out = lt(y z^T) @ M in O(r l): row i is y_i * sum_{j<=i} z_j M_j.

    ``lt()`` keeps the lower triangle including the diagonal (Eq. (2)).
    """
    r, l = M.shape
    run = np.zeros(l)
    for i in range(r):
        for c in range(l):
            run[c] += z[i] * M[i, c]
            out[i, c] = y[i] * run[c]


@numba.njit(cache=True)
def _kha_pass(A, Kc, order, gains):  # pragma: no cover - compiled
    """One pass of KHA with per-component gains (Eqs. (8)-(11)), in place."""
    r, l = A.shape
    y = np.empty(r)
    corr = np.empty((r, l))
    for p in order:
        for i in range(r):
            s = 0.0
            for c in range(l):
                s += A[i, c] * Kc[p, c]
            y[i] = s
        _lt_outer_times(y, y, A, corr)
        for i in range(r):
            g = gains[i]
            for c in range(l):
                A[i, c] -= g * corr[i, c]
            A[i, p] += g * y[i]


@numba.njit(cache=True)
def _kha_smd_pass(A, B, AK, rho, Kc, order, eta, mu, zeta):  # pragma: no cover - compiled
    """One pass of KHA-SMD (Algorithm 1, steps 2(c)-(j)), in place."""
    r, l = A.shape
    y = np.empty(r)
    z = np.empty(r)
    GK = np.empty((r, l))
    tmp = np.empty((r, l))
    tmp2 = np.empty((r, l))
    tmp3 = np.empty((r, l))
    gain = np.empty(r)
    AzB = np.empty((r, l))
    for p in order:
        # (d) y_t = A_t k'_p (Eq. (7)); z = B_t k'_p.
        for i in range(r):
            s = 0.0
            u = 0.0
            for c in range(l):
                s += A[i, c] * Kc[p, c]
                u += B[i, c] * Kc[p, c]
            y[i] = s
            z[i] = u
        # (f) Gamma_t K' = y k'_p^T - lt(y y^T) (A_t K')   (Eq. (17)).
        _lt_outer_times(y, y, AK, GK)
        for i in range(r):
            for c in range(l):
                GK[i, c] = y[i] * Kc[p, c] - GK[i, c]
        # (g) rho_t = rho_{t-1} + mu diag(Gamma_t K' B_t^T)   (Eq. (16)).
        for i in range(r):
            s = 0.0
            for c in range(l):
                s += GK[i, c] * B[i, c]
            rho[i] += mu * s
            gain[i] = np.exp(rho[i]) * eta[i]
        # (h) B_{t+1} (Eq. (21)); uses A_t and B_t.
        for i in range(r):
            for c in range(l):
                AzB[i, c] = A[i, c] + zeta * B[i, c]
        _lt_outer_times(y, y, AzB, tmp)  # lt(y y^T)(A_t + zeta B_t)
        _lt_outer_times(z, y, A, tmp2)  # lt(z y^T) A_t
        _lt_outer_times(y, z, A, tmp3)  # lt(y z^T) A_t
        for i in range(r):
            for c in range(l):
                v = -tmp[i, c] - tmp2[i, c] - tmp3[i, c]
                if c == p:
                    v += y[i] + zeta * z[i]
                B[i, c] = zeta * B[i, c] + gain[i] * v
        # (i) A_{t+1} = A_t + e^rho eta Gamma_t (Eq. (15)); Gamma from Eq. (9).
        _lt_outer_times(y, y, A, tmp)
        for i in range(r):
            for c in range(l):
                A[i, c] -= gain[i] * tmp[i, c]
            A[i, p] += gain[i] * y[i]
        # (j) A_{t+1} K' = A_t K' + e^rho eta Gamma_t K'   (Eq. (18)).
        for i in range(r):
            for c in range(l):
                AK[i, c] += gain[i] * GK[i, c]


def _minimal_error(Kc, r):
    """``E_min = sqrt(sum_{i>r} lambda_i^2)``, the reconstruction error of the exact leading
    ``r`` components (the denominator of Eq. (22))."""
    w = np.linalg.eigvalsh(Kc)[::-1]
    e_min = float(np.sqrt(np.sum(w[r:] ** 2)))
    if e_min <= 0:
        raise ValueError(
            f"n_components={r} already reconstructs the kernel exactly; excess error undefined"
        )
    return e_min


def _eigenvalue_estimates(A, AK):
    """Eq. (13): ``lambda_i = ||[A K']_i|| / ||A_i||``."""
    return np.linalg.norm(AK, axis=1) / np.linalg.norm(A, axis=1)


def excess_reconstruction_error(A: np.ndarray, Kc: np.ndarray, e_min: float) -> float:
    """Excess relative reconstruction error of Eq. (22): ``E(A)/E_min - 1``.

    Parameters
    ----------
    A : ndarray, shape (r, l)
        Expansion coefficients (rows are components).
    Kc : ndarray, shape (l, l)
        Centred kernel matrix.
    e_min : float
        ``min_A E(A) = sqrt(sum_{i>r} lambda_i^2)`` from an eigendecomposition.

    Returns
    -------
    float

    See Also
    --------
    KernelHebbianPCA : records it after each pass in ``excess_error_``.

    References
    ----------
    .. [1] N. N. Schraudolph, S. Günter and S. V. N. Vishwanathan, "Fast iterative kernel PCA,"
       Advances in Neural Information Processing Systems 19, MIT Press, 2007. Eq. (22): ``E(A) =
       ||K' - (A K')^T (A K')||_F`` and the excess error ``E(A) / E_min - 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca import center_kernel, rbf_kernel
    >>> from kpca.iterative import excess_reconstruction_error
    >>> Kc = center_kernel(rbf_kernel(np.random.default_rng(0).normal(size=(20, 2)), sigma2=1.0))
    >>> lam, U = np.linalg.eigh(Kc)
    >>> A = (U[:, -2:] / np.sqrt(lam[-2:])).T  # the exact leading 2 components
    >>> e_min = np.sqrt(np.sum(lam[:-2] ** 2))
    >>> abs(excess_reconstruction_error(A, Kc, e_min)) < 1e-8
    True
    """
    AK = A @ Kc
    return float(np.linalg.norm(Kc - AK.T @ AK) / e_min - 1.0)


class KernelHebbianPCA(KPCATransformer):
    """Iterative RBF kernel PCA by the kernel Hebbian algorithm.

    Parameters
    ----------
    n_components : int
        Number ``r`` of leading components.
    sigma2 : float
        RBF width, ``k(x, y) = exp(-||x - y||^2 / (2 sigma2))``.
    gain : {"kha", "kha/t", "kha/et", "kha-smd"}
        Gain schedule (see :data:`GAINS`).
    eta0 : float
        Base gain ``eta_0`` of Eqs. (10) and (12).
    mu : float
        SMD meta-gain ``mu`` of Eq. (16) (``gain="kha-smd"`` only).
    zeta : float
        SMD decay factor ``zeta`` of Eq. (19); the paper sets 0.99 a priori.
    rho0 : float
        Initial log-gain ``rho_0`` of Algorithm 1 step 1(b); the paper sets
        every entry to 1.
    n_passes : int
        Passes through the data; each pass visits a fresh random permutation
        (the indexing function ``p`` of Kim et al.).
    track_error : bool
        Record the excess relative reconstruction error (Eq. (22)) after each
        pass in ``excess_error_`` (costs one eigendecomposition at the start
        and an ``O(r l^2)`` product per pass).
    random_state : None, int or numpy.random.Generator
        Seeds the initial ``A_1 ~ N(0, (r l)^-1 I)`` and the permutations.

    Attributes
    ----------
    coef_ : ndarray, shape (r, l)
        Expansion coefficients ``A`` (rows converge to ``u_i / sqrt(lambda_i)``
        for unit eigenvectors ``u_i`` of ``K'``).
    eigenvalues_ : ndarray, shape (r,)
        Eq. (13) estimates at the end of training.
    alphas_ : ndarray, shape (l, r)
        Unit-norm eigenvector estimates (columns), sign fixed so that the
        largest-magnitude entry is positive.
    excess_error_ : list of float
        ``E(A)/E_min - 1`` after each pass (empty if ``track_error=False``).
    sigma2_ : float
        Kernel width used (``sigma2``).
    n_components_ : int
        ``r``.
    X_fit_ : ndarray, shape (l, d)
        Training data.
    n_features_in_ : int
        ``d``.

    See Also
    --------
    kpca.KernelPCA : the same components by an eigendecomposition.
    kpca.hebbian.GeneralizedHebbianPCA : the linear rule (GHA) KHA generalises.
    excess_reconstruction_error : Eq. (22).

    References
    ----------
    .. [1] N. N. Schraudolph, S. Günter and S. V. N. Vishwanathan, "Fast iterative kernel PCA,"
       Advances in Neural Information Processing Systems 19, MIT Press, 2007. KHA, Eqs. (7)-(10);
       KHA/t; KHA/et, Eqs. (11)-(13); KHA-SMD, Eqs. (15)-(21) and Algorithm 1; the centred kernel,
       Eq. (5); the excess error, Eq. (22).
    .. [2] K. I. Kim, M. O. Franz and B. Schölkopf, "Iterative kernel principal component analysis
       for image modeling," IEEE Trans. Pattern Anal. Mach. Intell. 27(9), 1351-1366, 2005. The
       kernel Hebbian algorithm (no equation numbers: not in the project's collection).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca import KernelPCA
    >>> from kpca.iterative import KernelHebbianPCA
    >>> X = np.random.default_rng(0).normal(size=(60, 3))
    >>> kha = KernelHebbianPCA(2, sigma2=4.0, gain="kha-smd", n_passes=50, random_state=0)
    >>> kha.fit_transform(X).shape
    (60, 2)
    >>> bool(kha.excess_error_[-1] < kha.excess_error_[0])  # Eq. (22) decreases
    True
    >>> exact = KernelPCA(2, sigma2=4.0).fit(X)
    >>> round(float(kha.eigenvalues_[0] / exact.eigenvalues_[0]), 2)
    1.0
    """

    _fitted_attribute = "coef_"

    def __init__(self, n_components=1, sigma2=1.0, *, gain="kha/et", eta0=0.05, mu=1e-3,
                 zeta=0.99, rho0=1.0, n_passes=20, track_error=True, random_state=None):
        self.n_components = n_components
        self.sigma2 = sigma2
        self.gain = gain
        self.eta0 = eta0
        self.mu = mu
        self.zeta = zeta
        self.rho0 = rho0
        self.n_passes = n_passes
        self.track_error = track_error
        self.random_state = random_state

    # ------------------------------------------------------------------ #
    def _check_params(self, n_samples):
        check_choice(self.gain, "gain", GAINS)
        check_n_components(self.n_components, n_samples)
        check_positive(self.eta0, "eta0")
        check_sigma2(self.sigma2)
        check_nonnegative(self.mu, "mu")
        if not 0.0 <= self.zeta <= 1.0:
            raise ValueError(f"zeta must lie in [0, 1]; got zeta={self.zeta!r}")
        check_count(self.n_passes, "n_passes", 1)

    def fit(self, X, y=None):
        """Learn the leading components of the centred RBF kernel of ``X``.

        Parameters
        ----------
        X : array_like, shape (l, d)
            At least 2 samples.
        y : ignored

        Returns
        -------
        self
        """
        X = self._validate_X(X, reset=True, min_samples=2)
        l = X.shape[0]
        self._check_params(l)
        r = int(self.n_components)
        rng = check_random_state(self.random_state)
        K = rbf_kernel(X, sigma2=self.sigma2)
        self._col_mean = K.mean(axis=0)
        self._total = float(self._col_mean.mean())
        Kc = center_kernel(K, copy=False)

        A = rng.normal(scale=1.0 / np.sqrt(r * l), size=(r, l))
        e_min = _minimal_error(Kc, r) if self.track_error else None
        self.excess_error_ = []
        self._train(A, Kc, rng, e_min)

        AK = A @ Kc
        self.eigenvalues_ = _eigenvalue_estimates(A, AK)
        alphas = (A / np.linalg.norm(A, axis=1, keepdims=True)).T
        self._signs = column_signs(alphas)
        self.alphas_ = alphas * self._signs
        self.X_fit_ = X
        self.sigma2_ = float(self.sigma2)
        self.n_components_ = r
        self.coef_ = A
        return self

    def _train(self, A, Kc, rng, e_min):
        """``n_passes`` passes of the gain schedule over the data, updating ``A`` in place
        (Algorithm 1 for ``"kha-smd"``) and recording Eq. (22) after each pass."""
        r, l = A.shape
        smd = self.gain == "kha-smd"
        B = AK = rho = None  # the SMD state
        if smd:
            B = np.zeros((r, l))
            AK = A @ Kc
            rho = np.full(r, float(self.rho0))
        t = 0
        for _ in range(int(self.n_passes)):
            order = rng.permutation(l)
            gains = self._gains(A, Kc, AK if smd else None, t)
            if smd:
                _kha_smd_pass(A, B, AK, rho, Kc, order, gains, float(self.mu), float(self.zeta))
            else:
                _kha_pass(A, Kc, order, gains)
            t += l
            if not np.all(np.isfinite(A)):
                raise FloatingPointError(
                    f"KHA diverged (gain={self.gain!r}, eta0={self.eta0}, mu={self.mu}); "
                    "lower the gains"
                )
            if self.track_error:
                self.excess_error_.append(excess_reconstruction_error(A, Kc, e_min))

    def _gains(self, A, Kc, AK, t):
        """Per-component gains at step ``t`` (``AK``: ``A K'`` when maintained, by KHA-SMD):
        constant (Eq. (10)), ``eta0 l / (t + l)``, or Eq. (12) with the estimates of Eq. (13)
        (steps (a)-(b) of Algorithm 1, once per pass)."""
        r, l = A.shape
        if self.gain == "kha":
            gains = np.full(r, float(self.eta0))
        elif self.gain == "kha/t":
            gains = np.full(r, self.eta0 * l / (t + l))
        else:
            lam = _eigenvalue_estimates(A, A @ Kc if AK is None else AK)
            gains = np.linalg.norm(lam) * l * self.eta0 / (lam * (t + l))
        if not np.all(np.isfinite(gains)):
            raise FloatingPointError(
                f"gain={self.gain!r} produced non-finite gains at t={t}; lower eta0={self.eta0}"
            )
        return gains

    def transform(self, X):
        """Scores ``y = W phi'(x) = A k'(x)`` (Eq. (7)) with Eq. (7) centring.

        ``coef_`` rows converge to ``u_i / sqrt(lambda_i)``, so these scores
        match :class:`kpca.KernelPCA` once converged; signs follow ``alphas_``.
        """
        self._check_fitted("transform")
        X = self._validate_X(X, reset=False)
        Kt = rbf_kernel(X, self.X_fit_, sigma2=self.sigma2_)
        Ktc = center_test_kernel(Kt, self._col_mean, self._total)
        return (Ktc @ self.coef_.T) * self._signs

    def fit_transform(self, X, y=None):
        """``fit(X).transform(X)``."""
        return self.fit(X, y).transform(X)
