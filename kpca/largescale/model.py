"""Large-scale kernel PCA estimators: FS2 + Nyström and ICF (Varon et al. 2015, Sec. V).

Both estimators follow :class:`kpca.KernelPCA`'s conventions (``fit``,
``transform``, ``fit_transform``, ``inverse_transform``, ``denoise``;
``eigenvalues_`` of the centred kernel, descending; scores are projections
onto unit-norm feature-space axes; deterministic signs) and work in the
explicit low-rank feature space of :mod:`kpca.largescale.nystrom`.

Model selection as in Fig. 8 of the paper: the criterion of
:func:`kpca.selection.select` runs on the training set (support vectors or
pivots) with a validation set drawn from the remaining points.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from kpca._validation import check_choice, check_n_components, check_positive, check_sigma2
from kpca.kernels import rbf_kernel
from kpca.largescale.fs2 import check_n_support, fs2_support_vectors
from kpca.largescale.icf import incomplete_cholesky, reduced_eigenproblem
from kpca.largescale.lowrank import N_VALIDATION, LowRankKernelPCA, check_n_validation
from kpca.largescale.nystrom import nystrom_map, pca_of_feature_rows
from kpca.preimage import PREIMAGE_MAX_ITER, PREIMAGE_TOL
from kpca.selection.mdd import MIN_TRAINING_POINTS

__all__ = ["FixedSizeKernelPCA", "IncompleteCholeskyKernelPCA", "TRAINING_SETS"]

#: ``train_on`` values of :class:`FixedSizeKernelPCA`
TRAINING_SETS = ("support", "all")


class FixedSizeKernelPCA(LowRankKernelPCA):
    """Fixed-size kernel PCA with FS2 support vectors (Varon et al. 2015, Sec. V-1).

    ``fit`` selects ``n_support`` support vectors by FS2 (k-means start, Rényi
    entropy ascent; :func:`~kpca.largescale.fs2.fs2_support_vectors`), builds
    the Nyström map of their kernel and solves kernel PCA on the training set:

    * ``train_on="support"`` (default; Sec. VI-A: "the training set was
      selected by maximizing the quadratic Renyi entropy"): kernel PCA of the
      ``M`` support vectors, identical to dense kernel PCA on them; every other
      point is projected by the out-of-sample (Nyström) extension with the
      support-set centring of Eq. (7);
    * ``train_on="all"``: the Nyström features of all ``N`` points are centred
      over the ``N`` rows and their PCA approximates dense kernel PCA of all
      points (the primal fixed-size approach of Suykens et al. 2002).

    Memory is ``O(N d + ROW_BLOCK M + M^2)`` (plus ``alphas_``, ``N x
    n_components``): FS2, the PCA of the features of all points
    (:func:`~kpca.largescale.nystrom.pca_of_feature_rows`) and ``transform``
    work on :data:`~kpca.largescale._blocks.ROW_BLOCK` rows at a time.

    Parameters
    ----------
    n_components : int or "auto"
        ``"auto"``: chosen by the selection criterion on the support vectors +
        validation set (Fig. 8).
    sigma2 : float or str
        Kernel width, or a criterion key or alias of :mod:`kpca.selection`
        (``"mdd"``, ``"varon2015"``, ``"shannon"``, ...; case-insensitive, see
        :func:`kpca.selection.resolve_criterion`). MDD runs on the support
        vectors + validation set, any other criterion on the support vectors.
    n_support : int
        Number of support vectors ``M`` (the paper uses 50 on its toys).
    train_on : {"support", "all"}
    support_sigma2 : float, optional
        Kernel width of the Rényi entropy during FS2. Default: ``sigma2`` when
        it is a number, else the rule of thumb of Eq. (20).
    max_iter : int, optional
        Cap on FS2 swaps (default ``10 * n_support``).
    n_validation : int, optional
        Size of the validation set for selection (default
        ``min(1000, N - n_support)``), drawn at random from the non-support points.
    grid : array_like, optional
        ``sigma2`` grid passed to the criterion.
    selection_options : dict, optional
        Extra keyword arguments of the criterion (MDD:
        :func:`kpca.selection.mdd_on_split`, e.g. ``{"n_draws": 50}``; others:
        :func:`kpca.selection.select`). ``criterion``, ``n_components``,
        ``random_state``, ``grid`` and ``data_spectra`` are set by the
        estimator; a non-empty dict when no criterion runs is an error.
    preimage_tol, preimage_max_iter : float, int
        Fixed-point pre-image settings.
    random_state : None, int or numpy.random.Generator
        Seeds k-means, the validation split and the criterion.

    Attributes
    ----------
    support_ : ndarray of int, shape (M,)
    basis_ : ndarray, shape (M, d)
        The support vectors.
    entropy_ : ndarray
        Rényi entropy after the k-means start and each accepted FS2 swap.
    eigenvalues_ : ndarray, shape (n_c,)
    alphas_ : ndarray, shape (n_train, n_c)
        Unit-norm eigenvectors of the centred training kernel.
    sigma2_, n_components_ : float, int
    selection_ : SelectionResult or None
    validation_ : ndarray of int or None
        Rows of ``X`` used as validation set by the criterion.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names of a ``DataFrame`` ``X`` (only then).

    See Also
    --------
    IncompleteCholeskyKernelPCA : the other low-rank estimator.
    kpca.KernelPCA : dense kernel PCA of all points.
    fs2_support_vectors : the support vectors.
    mdd_on_split : the selection of Fig. 8.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Sec.
       V-1 (FS2: k-means start, Rényi entropy ascent, Eqs. (9)-(10)), Fig. 8 (selection on the
       support vectors with a validation set), Eq. (7) (the out-of-sample scores), Eq. (20) (the
       rule of thumb).
    .. [2] J. A. K. Suykens, T. Van Gestel, J. De Brabanter, B. De Moor and J. Vandewalle, *Least
       Squares Support Vector Machines*, World Scientific, 2002. The fixed-size kernel methods in
       the primal (no equation numbers: not in the project's collection).
    .. [3] S. Mika, B. Schölkopf, A. Smola, K.-R. Müller, M. Scholz and G. Rätsch, "Kernel PCA and
       de-noising in feature spaces," Advances in Neural Information Processing Systems 11, MIT
       Press, 1999, 536-542. Eq. (10): the fixed-point pre-images.

    Examples
    --------
    >>> from kpca.datasets import semicircles
    >>> from kpca.largescale import FixedSizeKernelPCA
    >>> X, X_clean = semicircles(400, noise=0.1, random_state=0)
    >>> model = FixedSizeKernelPCA(8, 0.1, n_support=50, random_state=0).fit(X)
    >>> model.basis_.shape, model.transform(X).shape
    ((50, 2), (400, 8))
    >>> model.denoise(X[:5]).shape
    (5, 2)
    """

    def __init__(
        self,
        n_components=1,
        sigma2=1.0,
        *,
        n_support=50,
        train_on="support",
        support_sigma2=None,
        max_iter=None,
        n_validation=None,
        grid=None,
        selection_options=None,
        preimage_tol=PREIMAGE_TOL,
        preimage_max_iter=PREIMAGE_MAX_ITER,
        random_state=None,
    ):
        super().__init__(n_components, sigma2, n_validation=n_validation,
                         selection_options=selection_options, preimage_tol=preimage_tol,
                         preimage_max_iter=preimage_max_iter, random_state=random_state)
        self.n_support = n_support
        self.train_on = train_on
        self.support_sigma2 = support_sigma2
        self.max_iter = max_iter
        self.grid = grid

    _NO_SELECTION = "sigma2 a criterion name or n_components='auto'"

    def _expected_failed_checks(self):
        return {
            "check_transformer_n_iter": (
                "max_iter caps the FS2 swap attempts, whose number FS2Result does not report "
                "(entropy_ holds the accepted swaps only), so there is no n_iter_"
            ),
        }

    def fit(self, X, y=None):
        """Select the support vectors, the model (if asked) and the principal axes.

        Parameters
        ----------
        X : array_like, shape (N, d)

        Returns
        -------
        self
        """
        X = self._validate_X(X, reset=True, min_samples=2)
        N = X.shape[0]
        M = check_n_support(self.n_support, N)
        check_choice(self.train_on, "train_on", TRAINING_SETS)
        criterion = self._criterion()
        by_criterion = isinstance(self.sigma2, str)
        rng = self._check_selection(M, by_criterion or self.n_components == "auto")
        fs2 = fs2_support_vectors(X, M, self._support_sigma2(X), max_iter=self.max_iter,
                                  random_state=rng)
        self.support_ = fs2.support
        self.basis_ = X[fs2.support].copy()
        self.entropy_ = fs2.entropy

        self.selection_, self.validation_ = None, None
        sigma2, n_components = self.sigma2, self.n_components
        if by_criterion or n_components == "auto":
            n_val = min(N_VALIDATION, N - M) if self.n_validation is None else self.n_validation
            grid = self.grid if by_criterion else [float(sigma2)]
            n_components = self._select_on_split(X, fs2.support, n_val, criterion, n_components,
                                                 grid, rng)
            sigma2 = self.selection_.sigma2
        self.sigma2_ = float(sigma2)
        self._fit_axes(X, n_components)
        return self

    def _criterion(self):
        """The canonical key of the criterion that chooses ``sigma2`` (a string ``sigma2``) or
        only ``n_components`` (MDD, a numeric ``sigma2`` being checked here)."""
        if isinstance(self.sigma2, str):
            from kpca.selection import resolve_criterion

            return resolve_criterion(self.sigma2)
        check_sigma2(self.sigma2)
        return "varon2015"

    def _support_sigma2(self, X):
        """Kernel width of the Rényi entropy during FS2 (``support_sigma2``, else the numeric
        ``sigma2``, else the rule of thumb of Eq. (20))."""
        if self.support_sigma2 is not None:
            return check_sigma2(self.support_sigma2, "support_sigma2")
        if isinstance(self.sigma2, str):
            from kpca.selection import rule_of_thumb_sigma2

            return rule_of_thumb_sigma2(X)
        return float(self.sigma2)

    def _fit_axes(self, X, n_components):
        """The Nyström map of the support vectors at ``sigma2_`` and the principal axes of the
        features of the training rows (the support vectors, or all of ``X``)."""
        self._T = nystrom_map(rbf_kernel(self.basis_, sigma2=self.sigma2_))
        rows = self.basis_ if self.train_on == "support" else X
        self.n_components_ = check_n_components(
            int(n_components), min(rows.shape[0], self._T.shape[1])
        )
        self._f_mean, self._W, self.eigenvalues_, self.alphas_ = pca_of_feature_rows(
            lambda block: self._features(rows[block]), rows.shape[0], self.n_components_
        )


class IncompleteCholeskyKernelPCA(LowRankKernelPCA):
    """Kernel PCA from a pivoted incomplete Cholesky factor (Varon et al. 2015, Sec. V-2).

    ``fit`` factorises the RBF kernel of the ``N`` training points as
    ``Omega ~= G G^T`` (greedy pivoting, stop when ``tr(Omega - G G^T) < eta``;
    :func:`~kpca.largescale.icf.incomplete_cholesky`), then solves the reduced
    eigenproblem of Eqs. (16)-(19) (:func:`~kpca.largescale.icf.reduced_eigenproblem`)
    for ``alpha ~= U rho``. Out-of-sample points are mapped with the same
    factor, ``g(x) = L^{-1} k_P(x)`` (``L`` = pivot block of ``G``), so a
    transform costs ``O(Q)`` kernel evaluations instead of ``O(N)``.

    **ICF + MDD** (``n_components="auto"``, Fig. 8; ``sigma2`` is given, Remark
    2, because the pivots change with it):

    * training set ``D_t`` = the ``Q`` pivots; the validation set is drawn
      from the ``N - Q`` other points (Sec. V-2);
    * distance moments from pivot-to-(pivots ∪ validation) distances (Sec.
      IV) and noise distance matrices ``R_hat`` of size ``Q x Q`` (Eqs.
      (12)-(13), Remark 2);
    * data spectrum = the ``Q`` eigenvalues ``lambda_l`` of the reduced
      problem, Eq. (19), i.e. of the centred ICF approximation
      ``M_c G G^T M_c`` of the ``N x N`` kernel (Eq. (18) is Eq. (4)
      rewritten).

    These ``lambda_l`` grow with ``N``, the noise eigenvalues with ``Q``:
    Eq. (14) favours the data by about ``N / Q``, so the selected ``n_c``
    depends on ``N / Q`` (this reading reproduces the paper's ``n_c``; the
    alternatives and measurements are in
    ``docs/design.md#4-kpca-core-decisions``).

    Parameters
    ----------
    n_components : int or "auto"
        ``"auto"``: chosen by ``criterion`` with ``sigma2`` fixed, on the
        pivots + a validation set of non-pivots (see above; other criteria of
        :func:`kpca.selection.select` run on the pivots alone).
    sigma2 : float or "rule-of-thumb"
        Kernel width; ``"rule-of-thumb"`` uses Eq. (20) as in Sec. VI-A.
    eta : float
        Trace threshold (> 0); the paper uses ``1e-2``.
    max_rank : int, optional
        Cap on the number of pivots.
    criterion : str
        Selection criterion (key or alias) for ``n_components="auto"``
        (default ``"mdd"``).
    n_validation : int, optional
        Validation-set size, capped at the ``N - Q`` non-pivots (default 1000).
    selection_options : dict, optional
        As for :class:`FixedSizeKernelPCA` (used with ``n_components="auto"`` only).
    preimage_tol, preimage_max_iter : float, int
    random_state : None, int or numpy.random.Generator
        Seeds the validation split and the criterion.

    Attributes
    ----------
    pivots_ : ndarray of int, shape (Q,)
    basis_ : ndarray, shape (Q, d)
        The pivot points.
    residual_trace_ : ndarray
        ``tr(Omega - G G^T)`` after each pivot.
    eigenvalues_ : ndarray, shape (n_c,)
        Eigenvalues of Eq. (19) (= those of the centred low-rank kernel).
    alphas_ : ndarray, shape (N, n_c)
        ``U rho`` (unit norm).
    sigma2_, n_components_, selection_, validation_
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names of a ``DataFrame`` ``X`` (only then).

    See Also
    --------
    FixedSizeKernelPCA : the other low-rank estimator.
    kpca.KernelPCA : dense kernel PCA.
    incomplete_cholesky : the factor.
    reduced_eigenproblem : Eqs. (16)-(19).

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Sec.
       V-2 (ICF), Eqs. (16)-(19) and Remark 2, Fig. 8 (ICF + MDD), Eq. (20) (the rule of thumb of
       Sec. VI-A).
    .. [2] S. Mika, B. Schölkopf, A. Smola, K.-R. Müller, M. Scholz and G. Rätsch, "Kernel PCA and
       de-noising in feature spaces," Advances in Neural Information Processing Systems 11, MIT
       Press, 1999, 536-542. Eq. (10): the fixed-point pre-images.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.datasets import semicircles
    >>> from kpca.largescale import IncompleteCholeskyKernelPCA
    >>> X, X_clean = semicircles(400, noise=0.1, random_state=0)
    >>> model = IncompleteCholeskyKernelPCA(8, 0.1, eta=1e-2).fit(X)
    >>> model.pivots_.size < 400
    True
    >>> X_hat = model.denoise(X)
    >>> bool(np.mean((X_hat - X_clean) ** 2) < np.mean((X - X_clean) ** 2))
    True
    """

    def __init__(
        self,
        n_components=1,
        sigma2=1.0,
        *,
        eta=1e-2,
        max_rank=None,
        criterion="mdd",
        n_validation=None,
        selection_options=None,
        preimage_tol=PREIMAGE_TOL,
        preimage_max_iter=PREIMAGE_MAX_ITER,
        random_state=None,
    ):
        super().__init__(n_components, sigma2, n_validation=n_validation,
                         selection_options=selection_options, preimage_tol=preimage_tol,
                         preimage_max_iter=preimage_max_iter, random_state=random_state)
        self.eta = eta
        self.max_rank = max_rank
        self.criterion = criterion

    _NO_SELECTION = "n_components='auto'"

    def fit(self, X, y=None):
        """Factorise the kernel, select ``n_components`` (if asked), solve Eq. (19).

        Parameters
        ----------
        X : array_like, shape (N, d)

        Returns
        -------
        self
        """
        X = self._validate_X(X, reset=True, min_samples=2)
        N = X.shape[0]
        sigma2 = self._icf_sigma2(X)
        check_positive(self.eta, "eta")
        auto = self.n_components == "auto"
        if auto:
            from kpca.selection import resolve_criterion

            criterion = resolve_criterion(self.criterion)
        rng = self._check_selection(N, auto)
        icf = incomplete_cholesky(X, sigma2, self.eta, max_rank=self.max_rank)
        G, piv = icf.G, icf.pivots
        Q = piv.size
        self.pivots_ = piv
        self.basis_ = X[piv].copy()
        self.residual_trace_ = icf.residual_trace
        self.sigma2_ = sigma2

        self.selection_, self.validation_ = None, None
        n_components = self.n_components
        self._check_pivot_count(Q, auto)
        # All Q eigenpairs when selecting: the criterion needs the whole spectrum of Eq. (19).
        red = reduced_eigenproblem(G, Q if auto else int(n_components))
        if auto:
            # Q is only known now: the size is capped at the non-pivot count.
            n_val = (min(N_VALIDATION, N - Q) if self.n_validation is None
                     else min(check_n_validation(self.n_validation, N), N - Q))
            n_components = self._select_on_split(X, piv, n_val, criterion, None, [sigma2], rng,
                                                 data_spectra=red.eigenvalues)
        k = self.n_components_ = int(n_components)
        self.eigenvalues_, self.alphas_ = red.eigenvalues[:k], red.alphas[:, :k]
        self._fit_axes(G, piv)
        return self

    def _icf_sigma2(self, X):
        """The kernel width: a checked number, or the rule of thumb of Eq. (20) for
        ``"rule-of-thumb"`` (no criterion: the factor depends on ``sigma2``, Sec. V-2)."""
        if not isinstance(self.sigma2, str):
            return check_sigma2(self.sigma2)
        from kpca.selection import ALIASES, rule_of_thumb_sigma2

        name = self.sigma2.strip().lower()
        if ALIASES.get(name, name) != "rule-of-thumb":
            raise ValueError(
                "sigma2 must be a positive number or 'rule-of-thumb' for ICF (the factor "
                f"depends on sigma2, Sec. V-2); got sigma2={self.sigma2!r}"
            )
        return float(rule_of_thumb_sigma2(X))

    def _check_pivot_count(self, Q, auto):
        """Enough pivots ``Q`` for the selection (``auto``) or for ``n_components``."""
        if auto and Q < MIN_TRAINING_POINTS:
            raise ValueError(
                f"n_components='auto' needs at least {MIN_TRAINING_POINTS} pivots for the "
                f"selection; got Q={Q} (lower eta={self.eta} or raise max_rank)"
            )
        if not auto and int(self.n_components) > Q:
            raise ValueError(
                f"n_components must be <= the number of pivots Q={Q} (raise it by lowering "
                f"eta={self.eta}); got n_components={self.n_components}"
            )

    def _fit_axes(self, G, piv):
        """The map ``g(x) = L^{-1} k_P(x)`` (``L = G[piv]`` lower triangular: ``T = L^{-T}``),
        the training mean of ``g`` and the axes in ``g``-space of the eigenvectors of Eq. (19),
        ``v_l = G_c^T alpha_l / sqrt(lambda_l)``."""
        L = G[piv]
        self._T = scipy.linalg.solve_triangular(L, np.eye(piv.size), lower=True).T
        self._f_mean = G.mean(axis=0)
        lam = np.where(self.eigenvalues_ > 0, self.eigenvalues_, np.inf)
        self._W = ((G - self._f_mean).T @ self.alphas_) / np.sqrt(lam)
