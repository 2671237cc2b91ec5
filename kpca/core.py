"""The kernel PCA computation, free of scikit-learn: :class:`KernelPCACore`.

:class:`kpca.KernelPCA` is this class with scikit-learn's estimator protocol on top
(:mod:`kpca.base`); code that only fits, projects and de-noises (``edr``'s kernel methods) uses
:class:`KernelPCACore` directly, so that importing and running it does not import scikit-learn
(1-2 s of imports; ``docs/studies/import_diet_kpca.md``).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from kpca._lanczos import lanczos_centered_top
from kpca._signs import column_signs
from kpca._validation import (
    check_array,
    check_choice,
    check_count,
    check_fitted,
    check_n_components,
    check_n_features_in,
    check_nonnegative,
    check_random_state,
    check_selection_options,
    check_sigma2,
)
from kpca.kernels import center_kernel, center_test_kernel, rbf_kernel, rbf_project
from kpca.preimage import (
    PREIMAGE_MAX_ITER,
    PREIMAGE_TOL,
    expansion_coefficients,
    fixed_point_preimage,
)

__all__ = ["KernelPCACore"]

_EIGEN_SOLVERS = ("auto", "dense", "arpack", "lanczos")

# "lanczos": relative residual tolerance when ``tol`` is 0 (eigenvalues then agree with
# LAPACK to ~1e-15 relative in benchmarks/RESULTS.md#block-lanczos-eigen_solverlanczos).
_LANCZOS_DEFAULT_TOL = 1e-10

# "auto" uses block Lanczos when N >= _AUTO_LANCZOS_MIN_SAMPLES and its block fits (see
# _lanczos_fits), else ARPACK when N >= _AUTO_ARPACK_MIN_SAMPLES and the number of components
# is at most N / _AUTO_ARPACK_MAX_FRACTION; dense otherwise (thresholds:
# docs/design.md#4-kpca-core-decisions).
_AUTO_LANCZOS_MIN_SAMPLES = 2000
# transform centres the test kernel explicitly when a kept eigenvalue is below this fraction of
# the largest (the row-projected centring then loses digits to cancellation)
_STABLE_EIGENVALUE_RATIO = 1e-6
_AUTO_ARPACK_MIN_SAMPLES = 100
_AUTO_ARPACK_MAX_FRACTION = 4


def _lanczos_fits(n_samples, n_components):
    """Whether a Lanczos block of ``max(2 n_c, n_c + 8)`` vectors leaves room in ``R^N``."""
    block = max(2 * n_components, n_components + 8)
    return 4 * (n_components + block) <= n_samples


def _resolved(eigenvalues, n_samples):
    """Mask of the eigenvalues that rise above the centred kernel's rounding error.

    The centred RBF kernel has entries of magnitude at most 1, so its rounding
    error ``E`` has ``||E||_2 <= N eps`` and a backward-stable eigensolver adds
    ``eps ||Omega_c||_2 <= N eps`` more (both ``O(N eps max(1, lambda_1))``).
    By Weyl's inequality an eigenvalue below ``N eps max(1, lambda_1)`` cannot be
    told from zero; its eigenvector is an arbitrary direction of the numerical
    null space and its scores would be rounding noise divided by
    ``sqrt(lambda_k)``.
    """
    lam = np.asarray(eigenvalues, dtype=np.float64)
    top = float(lam.max()) if lam.size else 0.0
    return lam > n_samples * np.finfo(np.float64).eps * max(1.0, top)


class KernelPCACore:
    """Kernel PCA with the RBF kernel: the computation of :class:`kpca.KernelPCA`.

    Same parameters, attributes and methods (``fit``, ``transform``, ``fit_transform``,
    ``inverse_transform``, ``denoise``) and the same numbers as :class:`kpca.KernelPCA`, which
    derives from it, without scikit-learn's protocol (no ``get_params``, ``set_output``,
    ``feature_names_in_`` or ``score``; input checks by :func:`kpca._validation.check_array`).
    Importing it imports neither scikit-learn nor ``scipy.sparse.linalg`` (ARPACK is imported
    when ``eigen_solver`` resolves to ``"arpack"``).

    Parameters
    ----------
    n_components, sigma2, eigen_solver, tol, max_iter, preimage_tol, preimage_max_iter,
    random_state, selection_options
        As :class:`kpca.KernelPCA`.

    Attributes
    ----------
    eigenvalues_, alphas_, sigma2_, n_components_, X_fit_, n_features_in_, selection_,
    eigen_solver_
        As :class:`kpca.KernelPCA`.

    Raises
    ------
    ValueError
        From :meth:`fit`: invalid parameters or data, as :class:`kpca.KernelPCA`.

    See Also
    --------
    kpca.KernelPCA : the scikit-learn estimator built on it.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. The
       centred kernel eigenproblem, Eqs. (4)-(6), the out-of-sample scores, Eq. (7), the RBF kernel
       of Eq. (12).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca import KernelPCA
    >>> from kpca.core import KernelPCACore
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> Z = KernelPCACore(n_components=2, sigma2=3.0).fit_transform(X)
    >>> bool(np.allclose(Z, KernelPCA(n_components=2, sigma2=3.0).fit_transform(X)))
    True
    """

    _fitted_attribute = "alphas_"

    def __init__(
        self,
        n_components=1,
        sigma2=1.0,
        *,
        eigen_solver="auto",
        tol=0.0,
        max_iter=None,
        preimage_tol=PREIMAGE_TOL,
        preimage_max_iter=PREIMAGE_MAX_ITER,
        random_state=None,
        selection_options=None,
    ):
        self.n_components = n_components
        self.sigma2 = sigma2
        self.eigen_solver = eigen_solver
        self.tol = tol
        self.max_iter = max_iter
        self.preimage_tol = preimage_tol
        self.preimage_max_iter = preimage_max_iter
        self.random_state = random_state
        self.selection_options = selection_options

    def _check_fitted(self, method="this method"):
        """Raise :class:`kpca.NotFittedError` unless ``fit`` has completed."""
        check_fitted(self, method)

    def _validate_X(self, X, *, reset, name="X"):
        """Check ``X``; ``reset=True`` (in ``fit``) records ``n_features_in_``, else compares."""
        arr = check_array(X, name)
        if reset:
            self.n_features_in_ = arr.shape[1]
        else:
            check_n_features_in(self, arr, name)
        return arr

    # ------------------------------------------------------------------ #
    # fitting
    # ------------------------------------------------------------------ #
    def _resolve_model(self, X):
        """Return (sigma2, n_components, selection) from the parameters."""
        n_samples = X.shape[0]
        auto = isinstance(self.n_components, str)
        if auto and self.n_components != "auto":
            raise ValueError(
                f"n_components must be a positive integer or 'auto'; "
                f"got n_components={self.n_components!r}"
            )
        n_c = None if auto else check_n_components(self.n_components, n_samples)
        runs = auto or isinstance(self.sigma2, str)
        options = check_selection_options(
            self.selection_options,
            unused_reason=None if runs else "sigma2 a criterion name or n_components='auto'",
        )
        if isinstance(self.sigma2, str):
            criterion, grid = self.sigma2, None
        else:
            sigma2 = check_sigma2(self.sigma2)
            if not auto:
                return sigma2, n_c, None
            criterion, grid = "mdd", np.array([sigma2])
            if "grid" in options:
                raise ValueError(
                    "selection_options may not set 'grid' when sigma2 is a number (the grid is "
                    f"[sigma2]); got selection_options={self.selection_options!r}"
                )

        from kpca.selection import select  # optional sibling module, imported lazily

        kwargs = {**options, "n_components": n_c, "random_state": self.random_state}
        if grid is not None:
            kwargs["grid"] = grid
        result = select(X, criterion, **kwargs)
        sigma2 = check_sigma2(result.sigma2, "selection_.sigma2")
        n_sel = n_c if n_c is not None else check_n_components(
            result.n_components, n_samples, "selection_.n_components"
        )
        return sigma2, n_sel, result

    def _check_scalar_params(self):
        check_choice(self.eigen_solver, "eigen_solver", _EIGEN_SOLVERS)
        check_nonnegative(self.tol, "tol")
        check_nonnegative(self.preimage_tol, "preimage_tol")
        check_count(self.max_iter, "max_iter", 1, optional=True)
        check_count(self.preimage_max_iter, "preimage_max_iter", 1)

    def _solver(self, n_samples, n_components):
        solver = self.eigen_solver
        if solver == "auto":
            if n_samples >= _AUTO_LANCZOS_MIN_SAMPLES and _lanczos_fits(n_samples, n_components):
                return "lanczos"
            use_arpack = (
                n_samples >= _AUTO_ARPACK_MIN_SAMPLES
                and n_components * _AUTO_ARPACK_MAX_FRACTION <= n_samples
            )
            solver = "arpack" if use_arpack else "dense"
        if solver == "arpack" and n_components >= n_samples:
            # ARPACK computes at most N - 1 eigenpairs.
            solver = "dense"
        if solver == "lanczos" and not _lanczos_fits(n_samples, n_components):
            solver = "dense"
        return solver

    def _eigh(self, Kc, n_components, solver, rng):
        N = Kc.shape[0]
        if solver == "lanczos":
            # Kc is the uncentred kernel here (centred implicitly).
            lam, vec, _, converged = lanczos_centered_top(
                Kc, n_components, rng, tol=float(self.tol) or _LANCZOS_DEFAULT_TOL,
                max_iter=self.max_iter,
            )
            if not converged:
                return self._eigh(center_kernel(Kc, copy=False), n_components, "dense", rng)
        elif solver == "dense":
            lam, vec = scipy.linalg.eigh(
                Kc, subset_by_index=[N - n_components, N - 1], overwrite_a=True,
                check_finite=False,
            )
        else:
            from scipy.sparse.linalg import eigsh  # ARPACK: imported when used

            v0 = rng.uniform(-1.0, 1.0, N)
            lam, vec = eigsh(
                Kc, k=n_components, which="LA", v0=v0, tol=float(self.tol), maxiter=self.max_iter
            )
        order = np.argsort(lam)[::-1]
        vec = vec[:, order]
        return lam[order], vec * column_signs(vec)

    def fit(self, X, y=None):
        """Fit kernel PCA on ``X``.

        Builds the RBF kernel, centres it (``Omega_c = M_c Omega M_c``, Varon
        et al. 2015, Eqs. (5)-(6); implicitly for "lanczos") and computes its
        leading eigenpairs.

        Parameters
        ----------
        X : array_like, shape (N, d)
            Finite training data.
        y : ignored

        Returns
        -------
        self
        """
        X = self._validate_X(X, reset=True)
        rng = check_random_state(self.random_state)
        self._check_scalar_params()  # cheap checks before any model selection
        sigma2, n_c, selection = self._resolve_model(X)
        solver = self._solver(X.shape[0], n_c)

        K = rbf_kernel(X, sigma2=sigma2)
        col_mean = K.mean(axis=0)
        Kc = K if solver == "lanczos" else center_kernel(K, copy=False)
        lam, alphas = self._eigh(Kc, n_c, solver, rng)

        self.X_fit_ = X
        self.sigma2_ = sigma2
        self.n_components_ = n_c
        self.selection_ = selection
        self.eigen_solver_ = solver
        self.eigenvalues_ = lam
        self.alphas_ = alphas
        self._K_fit_col_mean = col_mean
        self._K_fit_total = float(col_mean.mean())
        return self

    def _axis_scale(self, power):
        # lambda_k ** power, zero for components whose eigenvalue is numerically zero
        lam = self.eigenvalues_
        out = np.zeros_like(lam)
        keep = _resolved(lam, self.alphas_.shape[0])
        out[keep] = lam[keep] ** power
        return out

    # ------------------------------------------------------------------ #
    # projections
    # ------------------------------------------------------------------ #
    def transform(self, X):
        """Out-of-sample scores (Varon et al. 2015, Eq. (7) centring).

        Parameters
        ----------
        X : array_like, shape (m, d)

        Returns
        -------
        ndarray, shape (m, n_c)
            ``Kc_test @ alphas_ / sqrt(eigenvalues_)``, where ``Kc_test`` is the
            test kernel centred against the training set.

        Notes
        -----
        The test kernel is not stored: its rows are multiplied by the
        coefficients as they are computed (:func:`kpca.kernels.rbf_project`),
        and the centring is applied to the ``(m, n_c)`` product. When a kept
        eigenvalue that is not numerically zero is below ``1e-6`` times the
        largest, ``1/sqrt(lambda_k)``
        would amplify the cancellation in that product, so the test kernel is
        built and centred explicitly instead.
        """
        self._check_fitted("transform")
        X = self._validate_X(X, reset=False)
        scale = self._axis_scale(-0.5)
        A = self.alphas_ * scale
        lam = self.eigenvalues_[scale > 0]  # the resolved ones
        if lam.size and lam.min() < _STABLE_EIGENVALUE_RATIO * lam.max():
            K_test = rbf_kernel(X, self.X_fit_, sigma2=self.sigma2_)
            return center_test_kernel(K_test, self._K_fit_col_mean, self._K_fit_total) @ A
        N = A.shape[0]
        # Kc_test @ A = K_test @ A - r (1'A) - 1 (c'A) + t (1'A) with the test-kernel row means
        # r (a last column 1/N of the coefficients), the training column means c and grand mean
        # t: one pass over K_test, which is never stored.
        P = rbf_project(X, self.X_fit_, np.hstack([A, np.full((N, 1), 1.0 / N)]),
                        sigma2=self.sigma2_)
        col_sum = A.sum(axis=0)
        return (P[:, :-1] - P[:, -1:] * col_sum
                - (self._K_fit_col_mean @ A - self._K_fit_total * col_sum))

    def fit_transform(self, X, y=None):
        """Fit on ``X`` and return its scores; equal to ``fit(X).transform(X)``.

        Uses ``Kc @ alpha_k / sqrt(lambda_k) = sqrt(lambda_k) alpha_k`` instead of
        rebuilding the kernel.
        """
        self.fit(X)
        return self.alphas_ * self._axis_scale(0.5)

    def _preimage(self, Z, z0):
        gamma_tilde = expansion_coefficients(Z, self.alphas_, self.eigenvalues_)
        result = fixed_point_preimage(
            gamma_tilde,
            self.X_fit_,
            self.sigma2_,
            z0=z0,
            tol=self.preimage_tol,
            max_iter=self.preimage_max_iter,
        )
        self.preimage_result_ = result
        return result.z

    def inverse_transform(self, Z):
        """Approximate pre-images of scores ``Z`` (reconstruction).

        Fixed-point iteration of Mika et al. (1999), Eq. (10), with the
        centring term of Jørgensen & Hansen (2012), Eq. (5); see
        :func:`kpca.preimage.fixed_point_preimage`. Each iteration starts at the
        training point with the largest expansion weight ``gamma~_i``.
        Diagnostics of the last call are kept in ``preimage_result_``.

        Parameters
        ----------
        Z : array_like, shape (m, n_c)

        Returns
        -------
        ndarray, shape (m, d)
        """
        self._check_fitted("inverse_transform")
        Z = check_array(Z, "Z", n_features=self.n_components_)
        return self._preimage(Z, None)

    def denoise(self, X):
        """De-noise ``X``: project onto the leading axes, then take the pre-image.

        The noisy pattern itself is the starting point of the fixed-point
        iteration (Mika et al. 1999, Sec. 4).

        Parameters
        ----------
        X : array_like, shape (m, d)

        Returns
        -------
        ndarray, shape (m, d)
        """
        self._check_fitted("denoise")
        X = self._validate_X(X, reset=False)
        return self._preimage(self.transform(X), X)
