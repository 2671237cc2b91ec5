"""One small base for every ``kpca`` estimator: scikit-learn's estimator protocol.

Every estimator of ``kpca`` (:class:`kpca.KernelPCA`, the large-scale
:class:`~kpca.largescale.FixedSizeKernelPCA` and
:class:`~kpca.largescale.IncompleteCholeskyKernelPCA`, the iterative
:class:`~kpca.iterative.KernelHebbianPCA` and
:class:`~kpca.hebbian.GeneralizedHebbianPCA`, the shrinkage regressors of
:mod:`kpca.shrinkage`) derives from :class:`KPCAEstimator`, itself a
:class:`sklearn.base.BaseEstimator`. That gives them

* ``get_params`` / ``set_params`` (so :func:`sklearn.base.clone`,
  :class:`~sklearn.pipeline.Pipeline` and
  :class:`~sklearn.model_selection.GridSearchCV` work) and scikit-learn's
  ``repr``;
* ``fit(X, y=None)`` (``y`` is ignored by the transformers, required by the
  regressors);
* ``n_features_in_`` and, for a pandas ``DataFrame`` input,
  ``feature_names_in_``;
* for the transformers, ``get_feature_names_out`` (``"kernelpca0"``, ...)
  and ``set_output(transform="pandas")``;
* one fitted check: an unfitted estimator raises :class:`NotFittedError`,
  a subclass of :class:`sklearn.exceptions.NotFittedError`.

Input checks keep ``kpca``'s messages (they name the argument and the
offending value) worded so that scikit-learn's estimator checks recognise
them; see :func:`kpca._validation.check_array`. Why scikit-learn is a
runtime dependency: ``docs/design.md#kpca-scikit-learn-compatibility``.

Examples
--------
>>> import numpy as np
>>> from sklearn.base import clone
>>> from kpca import KernelPCA, NotFittedError
>>> model = KernelPCA(n_components=2, sigma2=0.5)
>>> clone(model).set_params(sigma2=2.0).get_params()["sigma2"]
2.0
>>> try:
...     model.transform(np.zeros((3, 2)))
... except NotFittedError as exc:
...     print(type(exc).__name__)
NotFittedError
"""

from __future__ import annotations

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    RegressorMixin,
    TransformerMixin,
)
from sklearn.exceptions import NotFittedError as _SklearnNotFittedError
from sklearn.utils.validation import validate_data

from kpca._validation import check_array, check_fitted, check_n_features_in

__all__ = ["KPCAEstimator", "KPCARegressor", "KPCATransformer", "NotFittedError"]


class NotFittedError(_SklearnNotFittedError, RuntimeError):
    """A method that needs a fitted model was called before ``fit``.

    A subclass of :class:`sklearn.exceptions.NotFittedError` (so also of
    ``ValueError`` and ``AttributeError``) and of ``RuntimeError``, which
    ``kpca`` raised in 0.1.0.

    See Also
    --------
    kpca.base.KPCAEstimator : the base whose fitted check raises it.
    sklearn.exceptions.NotFittedError : scikit-learn's exception, its parent.

    Examples
    --------
    >>> import sklearn.exceptions
    >>> from kpca import NotFittedError
    >>> issubclass(NotFittedError, sklearn.exceptions.NotFittedError)
    True
    """


class KPCAEstimator(BaseEstimator):
    """Base of every ``kpca`` estimator (parameter protocol, input and fitted checks).

    Subclasses store their keyword arguments unchanged in ``__init__``,
    validate them in ``fit`` and set :attr:`_fitted_attribute` (the attribute
    whose presence means "fitted").

    See Also
    --------
    KPCATransformer : the base of the transformers.
    KPCARegressor : the base of the regressors.
    sklearn.base.BaseEstimator : the parameter protocol it inherits.

    Examples
    --------
    >>> from kpca import KernelPCA
    >>> from kpca.base import KPCAEstimator
    >>> isinstance(KernelPCA(), KPCAEstimator)
    True
    """

    #: attribute set at the end of a successful ``fit``
    _fitted_attribute = "n_features_in_"

    def __sklearn_is_fitted__(self):
        return hasattr(self, self._fitted_attribute)

    def _check_fitted(self, method="this method"):
        """Raise :class:`NotFittedError` unless ``fit`` has completed."""
        check_fitted(self, method)

    def _validate_X(self, X, *, reset, name="X", min_samples=1, as_column=False):
        """Check ``X`` (:func:`kpca._validation.check_array`) and record or compare features.

        ``reset=True`` (in ``fit``) sets ``n_features_in_`` and, for a
        ``DataFrame``, ``feature_names_in_``; ``reset=False`` checks them.
        ``as_column``: a 1-D ``X`` is one feature (shrinkage regressors).
        """
        if as_column and not hasattr(X, "tocsr") and not hasattr(X, "columns"):
            try:
                column = np.asarray(X)
            except (TypeError, ValueError):
                column = None  # check_array reports it
            if column is not None and column.ndim == 1:
                if not reset and self.n_features_in_ != 1:
                    raise ValueError(
                        f"{name} is 1-D but {type(self).__name__} was fitted on "
                        f"{self.n_features_in_} features. Reshape your data using "
                        f"{name}.reshape(1, -1) if it contains a single sample"
                    )
                X = column[:, None]
        arr = check_array(X, name, min_samples=min_samples)
        if not reset:
            check_n_features_in(self, arr, name)
        if reset or not isinstance(X, np.ndarray) or hasattr(self, "feature_names_in_"):
            # scikit-learn's bookkeeping of feature names; an array given to an estimator fitted
            # without names has none to record or compare (and its width was checked above)
            validate_data(self, X, reset=reset, skip_check_array=True)
        return arr

    def _expected_failed_checks(self):
        """scikit-learn estimator checks this estimator cannot pass: ``{check: reason}``.

        Passed to ``check_estimator(..., expected_failed_checks=...)`` /
        ``parametrize_with_checks`` by ``tests/kpca/test_sklearn_compat.py``.
        """
        return {}


class KPCATransformer(ClassNamePrefixFeaturesOutMixin, TransformerMixin, KPCAEstimator):
    """Base of the ``kpca`` transformers: ``transform``, ``fit_transform``, ``set_output``.

    Output feature names are the lower-cased class name and the component
    index (``"kernelpca0"``, ``"kernelpca1"``, ...).

    See Also
    --------
    KPCAEstimator : the parameter, input and fitted checks.
    kpca.KernelPCA : a transformer built on it.
    kpca.largescale.FixedSizeKernelPCA : another.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca import KernelPCA
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> KernelPCA(n_components=2).fit(X).get_feature_names_out().tolist()
    ['kernelpca0', 'kernelpca1']
    """

    @property
    def _n_features_out(self):
        return self.n_components_


class ReconstructionScoreMixin:
    """``score``: negative mean squared error of the de-noised (pre-image) data."""

    def score(self, X, y=None):
        """Negative mean squared reconstruction error of ``X`` through the model.

        ``-mean((denoise(X) - X) ** 2)``: ``X`` is projected onto the
        ``n_components_`` leading kernel principal axes and mapped back by
        the fixed-point pre-image (Mika et al. 1999). Greater is better, as
        :class:`~sklearn.model_selection.GridSearchCV` expects. To score
        de-noising against clean references instead, use
        ``scoring=kpca.denoising.denoising_scorer`` with ``y`` the clean data.

        Parameters
        ----------
        X : array_like, shape (m, d)
        y : ignored

        Returns
        -------
        float
        """
        self._check_fitted("score")
        X = self._validate_X(X, reset=False)
        return -float(np.mean((self.denoise(X) - X) ** 2))


class KPCARegressor(RegressorMixin, KPCAEstimator):
    """Base of the ``kpca`` regressors: ``fit(X, y)``, ``predict``, ``score`` (R²).

    See Also
    --------
    KPCAEstimator : the parameter, input and fitted checks.
    kpca.shrinkage.OrthogonalShrinkageRegression : a regressor built on it.

    Examples
    --------
    >>> from kpca.base import KPCARegressor
    >>> from kpca.shrinkage import OrthogonalShrinkageRegression
    >>> isinstance(OrthogonalShrinkageRegression(), KPCARegressor)
    True
    """
