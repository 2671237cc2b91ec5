"""scikit-learn compatibility of every kpca estimator.

``parametrize_with_checks`` runs scikit-learn's estimator checks; a check an
estimator cannot pass is declared by its ``_expected_failed_checks()`` (with
the reason) or by its ``__sklearn_tags__``. Then the workflows a user relies
on: ``clone``, ``Pipeline``, ``GridSearchCV`` (through ``score`` and
``kpca.denoising.denoising_scorer``), ``set_output``, feature names, and
``sigma2="mdd"`` inside all of them.
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.exceptions
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks
from sklearn.utils.validation import check_is_fitted

from kpca import KernelPCA, NotFittedError
from kpca.base import KPCAEstimator
from kpca.datasets import semicircles
from kpca.denoising import denoising_scorer
from kpca.hebbian import GeneralizedHebbianPCA, ModulatedHebbOjaPCA
from kpca.iterative import KernelHebbianPCA
from kpca.largescale import FixedSizeKernelPCA, IncompleteCholeskyKernelPCA
from kpca.shrinkage import LeaveOneOutRidgeRegression, OrthogonalShrinkageRegression

#: one instance per estimator; FixedSizeKernelPCA's default n_support=50 exceeds the
#: 15-40 samples of scikit-learn's check data, so it is checked with n_support=5.
ESTIMATORS = [
    KernelPCA(),
    FixedSizeKernelPCA(n_support=5),
    IncompleteCholeskyKernelPCA(),
    KernelHebbianPCA(),
    KernelHebbianPCA(gain="kha-smd", n_passes=5),
    GeneralizedHebbianPCA(),
    ModulatedHebbOjaPCA(),
    OrthogonalShrinkageRegression(),
    LeaveOneOutRidgeRegression(),
]


def _expected_failed_checks(estimator):
    return estimator._expected_failed_checks()


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failed_checks)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_one_base_and_one_fitted_error(estimator):
    assert isinstance(estimator, KPCAEstimator)
    with pytest.raises(sklearn.exceptions.NotFittedError):
        check_is_fitted(estimator)
    X = np.random.default_rng(0).normal(size=(12, 2))
    method = "predict" if hasattr(estimator, "predict") else "transform"
    with pytest.raises(NotFittedError, match=rf"This {type(estimator).__name__} instance is not "
                                             rf"fitted yet; call fit\(X\) before {method}\(\)"):
        getattr(estimator, method)(X)
    # the kpca error is the scikit-learn one, and the RuntimeError kpca 0.1.0 raised
    assert issubclass(NotFittedError, sklearn.exceptions.NotFittedError)
    assert issubclass(NotFittedError, RuntimeError)


def test_declared_expected_failures_have_reasons():
    for est in ESTIMATORS:
        for check, reason in est._expected_failed_checks().items():
            assert check.startswith("check_") and len(reason) > 20


@pytest.fixture(scope="module")
def toy():
    X, X_clean = semicircles(90, noise=0.1, random_state=0)
    return X, X_clean


def _fast_mdd(**kw):
    return KernelPCA(sigma2="mdd", random_state=0, selection_options={"n_draws": 5}, **kw)


def test_clone_keeps_parameters_and_drops_fit(toy):
    X, _ = toy
    model = _fast_mdd(n_components=2).fit(X)
    copy = clone(model)
    assert copy.get_params() == model.get_params()
    assert not hasattr(copy, "alphas_")
    np.testing.assert_array_equal(copy.fit(X).transform(X), model.transform(X))
    assert copy.sigma2_ == model.sigma2_


def test_set_params_and_repr():
    model = KernelPCA().set_params(sigma2="mdd", n_components=3)
    assert (model.sigma2, model.n_components) == ("mdd", 3)
    assert repr(model) == "KernelPCA(n_components=3, sigma2='mdd')"


def test_pipeline_with_mdd(toy):
    X, _ = toy
    pipe = make_pipeline(StandardScaler(), _fast_mdd(n_components=2)).fit(X)
    Z = pipe.transform(X)
    assert Z.shape == (90, 2)
    est = pipe[-1]
    np.testing.assert_allclose(Z, est.transform(StandardScaler().fit_transform(X)))
    assert pipe.get_feature_names_out().tolist() == ["kernelpca0", "kernelpca1"]
    assert np.isfinite(pipe.score(X))


def test_score_is_negative_reconstruction_error(toy):
    X, _ = toy
    model = KernelPCA(2, 0.5, random_state=0).fit(X)
    assert model.score(X) == pytest.approx(-np.mean((model.denoise(X) - X) ** 2))
    assert model.score(X) <= 0


def test_grid_search_over_sigma2_and_n_components_with_mdd(toy):
    X, _ = toy
    # selection_options apply only when a criterion runs (docs/design.md, section 4), so
    # the fixed widths get their own sub-grid without them
    grid = [
        {"sigma2": [0.05, 0.5], "n_components": [1, 3], "selection_options": [None]},
        {"sigma2": ["mdd"], "n_components": [1, 3]},
    ]
    search = GridSearchCV(_fast_mdd(), grid, cv=3, error_score="raise").fit(X)
    assert search.best_params_["sigma2"] in (0.05, 0.5, "mdd")
    assert search.best_params_["n_components"] in (1, 3)
    assert len(search.cv_results_["mean_test_score"]) == 6
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    assert search.best_estimator_.transform(X).shape[1] == search.best_params_["n_components"]


def test_grid_search_with_clean_references(toy):
    X, X_clean = toy
    search = GridSearchCV(
        KernelPCA(random_state=0), {"sigma2": [0.01, 0.5, 50.0], "n_components": [2, 6]},
        scoring=denoising_scorer, cv=3,
    ).fit(X, X_clean)
    scores = search.cv_results_["mean_test_score"]
    assert np.all(np.isfinite(scores)) and np.all(scores < 0)
    assert search.best_score_ == scores.max()
    # the clean references are the targets: the best candidate de-noises X_clean's folds
    best = search.best_estimator_
    assert np.mean((best.denoise(X) - X_clean) ** 2) < np.mean((X - X_clean) ** 2) * 1.5
    scores = cross_val_score(_fast_mdd(n_components=2), X, X_clean, scoring=denoising_scorer,
                             cv=3, error_score="raise")
    assert np.all(np.isfinite(scores))


def test_denoising_scorer_through_a_pipeline(toy):
    X, X_clean = toy
    pipe = Pipeline([("scale", StandardScaler()), ("kpca", KernelPCA(4, 1.0))]).fit(X)
    s = denoising_scorer(pipe, X, X_clean)
    assert s < 0 and np.isfinite(s)
    with pytest.raises(ValueError, match="needs an estimator with denoise"):
        denoising_scorer(KernelHebbianPCA(1).fit(X), X, X_clean)


@pytest.mark.parametrize(
    "estimator",
    [
        KernelPCA(2, "mdd", random_state=0, selection_options={"n_draws": 5}),
        FixedSizeKernelPCA(2, 0.5, n_support=20, random_state=0),
        IncompleteCholeskyKernelPCA(2, 0.5),
        KernelHebbianPCA(2, 0.5, n_passes=3, random_state=0),
        GeneralizedHebbianPCA(2, random_state=0),
        ModulatedHebbOjaPCA(2, random_state=0),
    ],
    ids=lambda e: type(e).__name__,
)
def test_set_output_pandas_and_feature_names(toy, estimator):
    pd = pytest.importorskip("pandas")
    X, _ = toy
    df = pd.DataFrame(X, columns=["a", "b"])
    est = clone(estimator).set_output(transform="pandas").fit(df)
    assert est.feature_names_in_.tolist() == ["a", "b"]
    assert est.n_features_in_ == 2
    out = est.transform(df)
    prefix = type(estimator).__name__.lower()
    assert out.columns.tolist() == [f"{prefix}0", f"{prefix}1"]
    np.testing.assert_allclose(out.to_numpy(), clone(estimator).fit(X).transform(X))
    with pytest.warns(UserWarning, match="feature names"):
        est.transform(X)


def test_fit_accepts_y_everywhere(toy):
    X, X_clean = toy
    for est in (KernelHebbianPCA(1, n_passes=2, random_state=0), GeneralizedHebbianPCA(1)):
        assert est.fit(X, X_clean[:, 0]) is est
        assert est.fit_transform(X, None).shape == (90, 1)


def test_regressors_require_y():
    with pytest.raises(ValueError, match="requires y to be passed"):
        OrthogonalShrinkageRegression().fit(np.zeros((5, 1)))  # no y on purpose
