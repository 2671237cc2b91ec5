import numpy as np
import pytest

from kpca.base import NotFittedError
from kpca.kernels import rbf_kernel
from kpca.shrinkage import (
    LOOCV_GRID,
    THRESHOLDS,
    LeaveOneOutRidgeRegression,
    OrthogonalShrinkageRegression,
    universal_threshold,
)


def _sinc_data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, n)
    return x, 5 * np.sinc(8 * x / np.pi) + rng.standard_normal(n)


def _reference(x, y, tau2, lam):
    """Slow, literal Eqs. (6), (8), (11), (21): eigendecomposition of G^T G."""
    G = rbf_kernel(x[:, None], sigma2=tau2)
    gamma, Q = np.linalg.eigh(G.T @ G)
    v = (Q.T @ G.T @ y) / np.sqrt(gamma + lam)
    w_ridge = np.linalg.solve(G.T @ G + lam * np.eye(len(x)), G.T @ y)
    H = G @ np.linalg.solve(G.T @ G + lam * np.eye(len(x)), G.T)
    IH = np.eye(len(x)) - H
    sigma2 = y @ IH @ IH @ y / np.trace(IH @ IH)
    return gamma, Q, v, w_ridge, sigma2


def test_universal_threshold():
    n = 200
    assert universal_threshold(n) == pytest.approx(2 * np.log(n) - np.log(np.log(n)))
    assert universal_threshold(n, delta=1.0) == pytest.approx(2 * np.log(n))
    with pytest.raises(ValueError, match="n must be an int >= 3; got n=2"):
        universal_threshold(2)


def test_components_and_noise_estimate_match_literal_equations():
    x, y = _sinc_data(60)
    m = OrthogonalShrinkageRegression("cht", tau2=0.05, lam=1e-2).fit(x, y)
    gamma, Q, v, _, sigma2 = _reference(x, y, 0.05, 1e-2)
    big = gamma > 1e-6 * gamma.max()  # eigenvectors of tiny eigenvalues are ill-determined
    np.testing.assert_allclose(m.eigenvalues_[big], gamma[big], rtol=1e-7)
    # Components agree up to the sign of each eigenvector.
    np.testing.assert_allclose(np.abs(m.components_[big]), np.abs(v[big]), rtol=1e-6, atol=1e-8)
    assert m.sigma2_ == pytest.approx(sigma2, rel=1e-8)


def test_keeping_every_component_gives_the_ridge_estimate():
    x, y = _sinc_data(50)
    lam = 1e-2
    # A narrow basis keeps G well conditioned, so no component is numerically zero.
    m = OrthogonalShrinkageRegression("htu", tau2=1e-3, lam=lam, sigma2=1e-20, eig_tol=0).fit(x, y)
    assert m.kept_.all()
    _, _, _, w_ridge, _ = _reference(x, y, 1e-3, lam)
    np.testing.assert_allclose(m.coef_, w_ridge, rtol=1e-6, atol=1e-6)  # Eq. (6) == Eq. (12)


def test_threshold_rules():
    x, y = _sinc_data(150)
    c = universal_threshold(150)
    cht = OrthogonalShrinkageRegression("cht").fit(x, y)
    sig2_k = cht.sigma2_ * cht.eigenvalues_ / (cht.eigenvalues_ + 1e-4)
    valid = cht.eigenvalues_ >= 1e-16
    np.testing.assert_array_equal(cht.kept_, valid & (cht.components_**2 > sig2_k * c))
    htu = OrthogonalShrinkageRegression("htu").fit(x, y)
    np.testing.assert_array_equal(htu.kept_, valid & (htu.components_**2 > htu.sigma2_ * c))
    bht = OrthogonalShrinkageRegression("bht").fit(x, y)
    first = np.flatnonzero(cht.kept_)[0]
    expected = np.zeros(150, bool)
    expected[first:] = True
    np.testing.assert_array_equal(bht.kept_, expected & valid)
    # BHT keeps a superset of CHT's components (everything above the first hit).
    assert np.all(bht.kept_[cht.kept_])
    # The sinc is smooth: only a handful of large-eigenvalue components survive.
    assert 3 <= cht.kept_.sum() <= 40
    assert cht.sigma2_ == pytest.approx(1.0, rel=0.35)


def test_shrinkage_beats_the_unregularised_fit():
    x_test = np.linspace(-1, 1, 400)
    h = 5 * np.sinc(8 * x_test / np.pi)
    errs = {"bht": [], "raw": [], "loocv": []}
    for seed in range(5):
        x, y = _sinc_data(200, seed)
        errs["bht"].append(
            np.mean((OrthogonalShrinkageRegression("bht").fit(x, y).predict(x_test) - h) ** 2)
        )
        errs["loocv"].append(
            np.mean((LeaveOneOutRidgeRegression().fit(x, y).predict(x_test) - h) ** 2)
        )
        raw = LeaveOneOutRidgeRegression(lams=[1e-4]).fit(x, y)
        errs["raw"].append(np.mean((raw.predict(x_test) - h) ** 2))
    m = {k: np.mean(v) for k, v in errs.items()}
    # Paper, Table 1 (n = 200): BHT 0.035, LOOCV 0.040; the raw fit at lambda = 1e-4 overfits.
    assert m["bht"] < 0.08 and m["loocv"] < 0.08
    assert m["raw"] > 1.5 * m["bht"]


def test_loocv_closed_form_matches_brute_force():
    x, y = _sinc_data(30, seed=2)
    lams = [1e-3, 1e-1, 10.0]
    m = LeaveOneOutRidgeRegression(tau2=0.05, lams=lams).fit(x, y)
    G = rbf_kernel(x[:, None], sigma2=0.05)
    for lam, err in zip(lams, m.loo_errors_, strict=False):
        # Refit without sample i, basis fixed (the linear-smoother LOO of the paper's [3, 6]).
        res = []
        for i in range(30):
            keep = np.arange(30) != i
            Gk = G[keep]
            w = np.linalg.solve(Gk.T @ Gk + lam * np.eye(30), Gk.T @ y[keep])
            res.append(y[i] - G[i] @ w)
        assert err == pytest.approx(np.mean(np.square(res)), rel=1e-6)
    assert m.lam_ == lams[int(np.argmin(m.loo_errors_))]
    np.testing.assert_allclose(LOOCV_GRID[[0, -1]], [1e-4, 5e3])
    assert LOOCV_GRID.size == 24


def test_predict_multivariate_inputs():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, (80, 2))
    y = np.sin(3 * X[:, 0]) + X[:, 1] + 0.1 * rng.standard_normal(80)
    m = OrthogonalShrinkageRegression("bht", tau2=0.2).fit(X, y)
    assert m.predict(X).shape == (80,)
    assert np.mean((m.predict(X) - y) ** 2) < 0.05


@pytest.mark.parametrize(
    "kw,match",
    [
        ({"method": "soft"}, r"method must be one of \['bht', 'cht', 'htu'\]; got method='soft'"),
        ({"lam": 0.0}, "lam must be a finite positive number; got lam=0.0"),
        ({"tau2": -1.0}, "tau2 must be a finite positive number; got tau2=-1.0"),
        ({"sigma2": -2.0}, "sigma2 must be a finite positive number; got sigma2=-2.0"),
        ({"eig_tol": -1.0}, "eig_tol must be a finite number >= 0; got eig_tol=-1.0"),
    ],
)
def test_bad_parameters(kw, match):
    x, y = _sinc_data(20)
    with pytest.raises(ValueError, match=match):
        OrthogonalShrinkageRegression(**kw).fit(x, y)


def test_bad_data():
    x, y = _sinc_data(20)
    with pytest.raises(
        ValueError, match=r"y must be a 1-D array with 20 values .* got y.shape=\(19,\)"
    ):
        OrthogonalShrinkageRegression().fit(x, y[:-1])
    with pytest.raises(ValueError, match=r"y must contain only finite values; got y\[3\]=nan"):
        OrthogonalShrinkageRegression().fit(x, np.where(np.arange(20) == 3, np.nan, y))
    with pytest.raises(ValueError, match=r"X must contain only finite values; got X\[0, 0\]=inf"):
        OrthogonalShrinkageRegression().fit(np.r_[np.inf, x[1:]], y)
    with pytest.raises(ValueError, match=r"X must have at least 3 sample\(s\)"):
        OrthogonalShrinkageRegression().fit(x[:2], y[:2])
    with pytest.raises(ValueError, match="lams must be a non-empty sequence of finite positive"):
        LeaveOneOutRidgeRegression(lams=[1.0, -1.0]).fit(x, y)
    with pytest.raises(NotFittedError, match="not fitted"):
        OrthogonalShrinkageRegression().predict(x)
    m = OrthogonalShrinkageRegression().fit(x, y)
    with pytest.raises(
        ValueError, match="X has 2 features, but OrthogonalShrinkageRegression is expecting 1"
    ):
        m.predict(np.zeros((3, 2)))
    assert set(THRESHOLDS) == {"cht", "htu", "bht"}
