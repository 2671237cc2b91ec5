"""What the low-rank kernel PCA estimators share: transforms, pre-images, selection on a split.

A fitted low-rank model (:class:`~kpca.largescale.FixedSizeKernelPCA`,
:class:`~kpca.largescale.IncompleteCholeskyKernelPCA`) works in the explicit
feature space of :mod:`kpca.largescale.nystrom`: basis points ``basis_``, the
map ``T`` with features ``f(x) = T^T k_B(x)``, their training mean and the
principal axes ``W``.  :class:`LowRankKernelPCA` gives both estimators the
out-of-sample scores, the fixed-point pre-images (Mika et al. 1999, Eq. (10))
and the model selection of Fig. 8 of Varon et al. (2015): the criterion runs on
the training set (support vectors or pivots) with a validation set drawn from
the remaining points.
"""

from __future__ import annotations

import numpy as np

from kpca._validation import (
    RESERVED_SELECTION_OPTIONS,
    check_array,
    check_count,
    check_n_components,
    check_random_state,
    check_selection_options,
)
from kpca.base import KPCATransformer, ReconstructionScoreMixin
from kpca.kernels import rbf_kernel
from kpca.largescale._blocks import row_slices

__all__ = ["LowRankKernelPCA", "N_VALIDATION"]

#: Default size of the validation set of the model selection (Varon et al. 2015, Sec. VI-A:
#: ``N_v = 1000`` on the square and two-rings toys), capped at the points left.
N_VALIDATION = 1000


def check_n_validation(n_validation, n_available):
    """Validate the size of the validation set: an int in ``[1, n_available]``."""
    n_validation = check_count(n_validation, "n_validation", 1)
    if n_validation > n_available:
        raise ValueError(
            f"n_validation must be in [1, {n_available}] (points left after the training "
            f"set); got n_validation={n_validation}"
        )
    return int(n_validation)


#: ``selection_options`` keys the large-scale estimators set themselves
_RESERVED_OPTIONS = RESERVED_SELECTION_OPTIONS + ("grid", "data_spectra")


def _run_criterion(X_train, X_val, criterion, n_components, grid, random_state, options,
                   data_spectra=None):
    """Model selection on the training set (+ validation set for MDD), Fig. 8.

    ``criterion`` is a canonical key of :data:`kpca.selection.CRITERIA`. MDD
    (``"varon2015"``, and ``"varon2015-fast"``: the split procedure has no shortcuts) runs on
    the given split
    (:func:`~kpca.selection.mdd_on_split`, with ``data_spectra`` as its data
    spectrum when given); any other criterion of :func:`kpca.selection.select`
    runs on the training set alone.
    """
    n_components = None if n_components == "auto" else n_components
    if criterion in ("varon2015", "varon2015-fast"):
        from kpca.selection import mdd_on_split

        return mdd_on_split(X_train, X_val, grid=grid, n_components=n_components,
                            random_state=random_state, data_spectra=data_spectra,
                            **(options or {}))
    from kpca.selection import select

    return select(X_train, criterion, n_components=n_components, grid=grid,
                  random_state=random_state, **(options or {}))


class LowRankKernelPCA(ReconstructionScoreMixin, KPCATransformer):
    """Shared transform / pre-image machinery of the low-rank estimators.

    A fitted model holds the basis points ``basis_`` (``M x d``), the map
    ``T`` (``M x r``) with features ``f(x) = T^T k_B(x)``, the training mean
    ``f_mean`` and the principal axes ``W`` (``r x n_components``) in that
    feature space. ``transform`` works on
    :data:`~kpca.largescale._blocks.ROW_BLOCK` rows at a time.

    See Also
    --------
    FixedSizeKernelPCA : FS2 support vectors and the Nyström map.
    IncompleteCholeskyKernelPCA : the pivots of an incomplete Cholesky factor.
    kpca.preimage.fixed_point_preimage : the pre-images of :meth:`inverse_transform`.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Sec. V
       and Fig. 8: large-scale kernel PCA, the selection on the training set with a validation set
       from the remaining points; Eq. (7): the scores.
    .. [2] S. Mika, B. Schölkopf, A. Smola, K.-R. Müller, M. Scholz and G. Rätsch, "Kernel PCA and
       de-noising in feature spaces," Advances in Neural Information Processing Systems 11, MIT
       Press, 1999, 536-542. Eq. (10): the fixed-point pre-image.

    Examples
    --------
    >>> from kpca.largescale import FixedSizeKernelPCA, IncompleteCholeskyKernelPCA
    >>> from kpca.largescale.lowrank import LowRankKernelPCA
    >>> issubclass(FixedSizeKernelPCA, LowRankKernelPCA)
    True
    >>> issubclass(IncompleteCholeskyKernelPCA, LowRankKernelPCA)
    True
    """

    _fitted_attribute = "_W"

    def __init__(self, n_components, sigma2, *, n_validation, selection_options, preimage_tol,
                 preimage_max_iter, random_state):
        self.n_components = n_components
        self.sigma2 = sigma2
        self.n_validation = n_validation
        self.selection_options = selection_options
        self.preimage_tol = preimage_tol
        self.preimage_max_iter = preimage_max_iter
        self.random_state = random_state

    def _check_selection(self, n_limit, selects):
        """Validate ``n_components`` (an int: at most ``n_limit``) and ``selection_options``.

        ``selects``: whether this fit runs a criterion. Returns the random generator.
        """
        if self.n_components != "auto":
            check_n_components(self.n_components, n_limit)
        check_selection_options(
            self.selection_options, _RESERVED_OPTIONS,
            unused_reason=None if selects else self._NO_SELECTION,
        )
        return check_random_state(self.random_state)

    def _select_on_split(self, X, train, n_val, criterion, n_components, grid, rng,
                         data_spectra=None):
        """Draw ``n_val`` validation rows of ``X`` outside ``train`` and run the criterion.

        Sets ``validation_`` and ``selection_``; returns ``max(1, n_c)`` (no component above
        the noise, Eq. (14) giving 0: the leading one is kept).
        """
        rest = np.setdiff1d(np.arange(X.shape[0]), train)
        n_val = check_n_validation(n_val, rest.size)
        self.validation_ = np.sort(rng.choice(rest, size=n_val, replace=False))
        self.selection_ = _run_criterion(self.basis_, X[self.validation_], criterion, n_components,
                                  grid, rng, self.selection_options, data_spectra=data_spectra)
        return max(1, self.selection_.n_components)

    def _features(self, X):
        return rbf_kernel(X, self.basis_, sigma2=self.sigma2_) @ self._T

    def transform(self, X):
        """Scores of ``X`` on the unit-norm feature-space axes (out-of-sample extension).

        Parameters
        ----------
        X : array_like, shape (m, d)

        Returns
        -------
        ndarray, shape (m, n_c)
        """
        self._check_fitted("transform")
        X = self._validate_X(X, reset=False)
        Z = np.empty((X.shape[0], self._W.shape[1]))
        for rows in row_slices(X.shape[0]):
            Z[rows] = (self._features(X[rows]) - self._f_mean) @ self._W
        return Z

    def fit_transform(self, X, y=None):
        """``fit(X)`` then ``transform(X)``."""
        return self.fit(X, y).transform(X)

    def _expansion(self, Z):
        # Feature-space point f_mean + W z, written over the basis images.
        return (self._f_mean + Z @ self._W.T) @ self._T.T

    def inverse_transform(self, Z, *, z0=None):
        """Fixed-point pre-images of scores ``Z`` (Mika et al. 1999, Eq. (10)).

        Parameters
        ----------
        Z : array_like, shape (m, n_c)
        z0 : array_like, shape (m, d), optional
            Starting points (default: the basis point with the largest weight).

        Returns
        -------
        ndarray, shape (m, d)
        """
        from kpca.preimage import fixed_point_preimage

        self._check_fitted("inverse_transform")
        Z = check_array(Z, "Z", n_features=self._W.shape[1])
        res = fixed_point_preimage(
            self._expansion(Z),
            self.basis_,
            self.sigma2_,
            z0=z0,
            tol=self.preimage_tol,
            max_iter=self.preimage_max_iter,
        )
        return res.z

    def denoise(self, X):
        """Project ``X`` on the leading axes and return the pre-images (start: ``X``)."""
        self._check_fitted("denoise")
        X = self._validate_X(X, reset=False)
        return self.inverse_transform(self.transform(X), z0=X)


