"""Kernel PCA estimator with the RBF kernel, out-of-sample scores and pre-images.

:class:`KernelPCA` is a thin scikit-learn shell (:mod:`kpca.base`) around the computation,
:class:`kpca.core.KernelPCACore`.
"""

from __future__ import annotations

from kpca.base import KPCATransformer, ReconstructionScoreMixin
from kpca.core import KernelPCACore

__all__ = ["KernelPCA"]


class KernelPCA(ReconstructionScoreMixin, KPCATransformer, KernelPCACore):
    """Kernel principal component analysis with the RBF kernel.

    A scikit-learn estimator (:class:`kpca.base.KPCATransformer`):
    ``__init__`` only stores its arguments, :meth:`fit` validates them;
    ``get_params``/``set_params``, ``clone``, ``Pipeline``, ``GridSearchCV``
    (through :meth:`score`), ``set_output`` and ``get_feature_names_out``
    work, also with ``sigma2="mdd"``.

    Parameters
    ----------
    n_components : int or "auto", default=1
        Number of components ``n_c``. ``"auto"``: chosen by a model-selection
        criterion of :mod:`kpca.selection`. With a string ``sigma2`` that
        criterion chooses both; with a float ``sigma2`` the MDD criterion of
        Varon et al. (2015) chooses ``n_c`` at that fixed width
        (``select(X, "mdd", n_components=None, grid=[sigma2])``).
    sigma2 : float or str, default=1.0
        RBF kernel width, ``k(x, y) = exp(-||x - y||^2 / (2 sigma2))``
        (Varon et al. 2015, Eq. (12); scikit-learn's ``gamma = 1/(2 sigma2)``).
        A string names a criterion of :mod:`kpca.selection` ("mdd", "kpa",
        "shannon", "rule-of-thumb", ...); :meth:`fit` then calls
        ``kpca.selection.select(X, sigma2, n_components=..., random_state=...)``
        and stores the result in ``selection_``.
    eigen_solver : {"auto", "dense", "arpack", "lanczos"}, default="auto"
        "dense": LAPACK ``scipy.linalg.eigh`` restricted to the leading
        ``n_c`` eigenpairs. "arpack": ``scipy.sparse.linalg.eigsh`` (Lanczos)
        for the ``n_c`` largest eigenvalues with a start vector drawn from
        ``random_state``. "auto": "lanczos" when ``N >= 2000`` and its
        block fits (``4 (n_c + block) <= N``), else ARPACK when
        ``N >= 100`` and ``n_c <= N / 4``, dense otherwise (see
        ``docs/design.md#4-kpca-core-decisions``). "lanczos": block Lanczos
        (:func:`kpca._lanczos.lanczos_centered_top`) on the implicitly centred
        kernel (``Omega_c`` is never formed), start block drawn from
        ``random_state``; dense when ``n_c`` is too large for a block of
        ``max(2 n_c, n_c + 8)`` vectors (``4 (n_c + block) > N``) or when it
        does not converge.
    tol : float, default=0.0
        ARPACK convergence tolerance (0: machine precision); for "lanczos" the
        relative residual ``||Omega_c x - lambda x|| / lambda_1`` (0: 1e-10).
    max_iter : int, optional
        ARPACK iteration cap (default: ARPACK's own, ``10 N``); for "lanczos"
        the cap on block steps.
    preimage_tol : float, default=1e-9
        Relative step tolerance of the fixed-point pre-image iteration.
    preimage_max_iter : int, default=500
        Iteration cap of the pre-image iteration.
    random_state : None, int or numpy.random.Generator
        Seeds the ARPACK start vector and is passed to model selection.
    selection_options : dict, optional
        Keyword arguments passed to :func:`kpca.selection.select` when a
        criterion runs (e.g. ``{"n_draws": 50}`` for MDD,
        ``{"n_permutations": 49}`` for kPA, ``{"grid": [...]}`` with a
        string ``sigma2``). ``fit(X)`` with ``sigma2="mdd"`` and these options
        gives the same model as
        ``select(X, "mdd", n_components=n, random_state=rs, **options)``
        followed by ``KernelPCA(n, sigma2=result.sigma2, random_state=rs)``.
        ``n_components`` and ``random_state`` are the estimator's own and may
        not appear here; ``grid`` may not when ``sigma2`` is a number. A
        non-empty dict when no criterion runs (numeric ``sigma2`` and integer
        ``n_components``) is an error.

    Attributes
    ----------
    eigenvalues_ : ndarray, shape (n_c,)
        Leading eigenvalues of the centred training kernel ``Omega_c``
        (Varon et al. 2015, Eq. (4)), descending.
    alphas_ : ndarray, shape (N, n_c)
        Corresponding unit-norm eigenvectors; each column's largest-magnitude
        entry is positive.
    sigma2_ : float
        Kernel width used.
    n_components_ : int
        Number of components used.
    X_fit_ : ndarray, shape (N, d)
        Training data.
    n_features_in_ : int
        ``d``.
    feature_names_in_ : ndarray of str
        Column names of a ``DataFrame`` ``X`` (only then).
    selection_ : SelectionResult or None
        Result of the model-selection criterion, when one was used.

    See Also
    --------
    kpca.selection.select : the model-selection criteria behind a string ``sigma2``.
    kpca.largescale.FixedSizeKernelPCA : low-rank kernel PCA for many points (FS2 + Nyström).
    kpca.largescale.IncompleteCholeskyKernelPCA : low-rank kernel PCA from an incomplete Cholesky
        factor.
    kpca.iterative.KernelHebbianPCA : the leading components by an iterative rule.
    kpca.preimage.fixed_point_preimage : the pre-images of :meth:`inverse_transform`.
    kpca.denoise : fit and de-noise in one call.

    Notes
    -----
    Scores are projections onto the unit-norm feature-space axes,
    ``Z = Kc @ alphas_ / sqrt(eigenvalues_)`` (Jørgensen & Hansen 2012,
    Eq. (2)), scikit-learn's convention up to sign. Components whose
    eigenvalue is numerically zero, at most ``N eps max(1, lambda_1)`` (the
    rounding error of the centred kernel; at most ``N - 1`` components of a
    centred kernel carry variance), get zero scores in :meth:`transform` and
    :meth:`fit_transform` alike.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. The
       centred kernel eigenproblem, Eqs. (4)-(6), the out-of-sample scores, Eq. (7), the RBF kernel
       of Eq. (12).
    .. [2] K. W. Jørgensen and L. K. Hansen, "Model selection for Gaussian kernel PCA denoising,"
       IEEE Trans. Neural Netw. Learn. Syst. 23(1), 163-168, 2012. The unit-norm axes and scores,
       Eqs. (1)-(2), and the centring term of the pre-image, Eq. (5).
    .. [3] S. Mika, B. Schölkopf, A. Smola, K.-R. Müller, M. Scholz and G. Rätsch, "Kernel PCA and
       de-noising in feature spaces," Advances in Neural Information Processing Systems 11, MIT
       Press, 1999, 536-542. The fixed-point pre-image iteration, Eq. (10).

    Examples
    --------
    De-noise two noisy half circles (Mika et al. 1999):

    >>> import numpy as np
    >>> from kpca import KernelPCA
    >>> from kpca.datasets import semicircles
    >>> X, X_clean = semicircles(200, noise=0.1, random_state=0)
    >>> model = KernelPCA(n_components=16, sigma2=0.1, random_state=0).fit(X)
    >>> model.transform(X[:3]).shape
    (3, 16)
    >>> X_denoised = model.denoise(X)
    >>> bool(np.mean((X_denoised - X_clean) ** 2) < np.mean((X - X_clean) ** 2))
    True

    The width chosen by a criterion (MDD, Varon et al. 2015):

    >>> model = KernelPCA(n_components="auto", sigma2="mdd", random_state=0,
    ...                   selection_options={"n_draws": 10}).fit(X)
    >>> model.sigma2_ > 0 and model.n_components_ >= 1
    True
    """

    _fitted_attribute = "alphas_"

    # scikit-learn wraps for set_output only the transform and fit_transform a class defines
    # itself; and TransformerMixin.fit_transform (fit, then transform) would come first in the
    # MRO, where the core's reuses the eigenvectors
    transform = KernelPCACore.transform
    fit_transform = KernelPCACore.fit_transform
