import numpy as np
import pytest
import scipy.linalg

from kpca.base import NotFittedError
from kpca.iterative import GAINS, KernelHebbianPCA, excess_reconstruction_error
from kpca.kernels import center_kernel, rbf_kernel


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, np.pi, n)
    return np.c_[np.cos(t), np.sin(t)] + 0.1 * rng.normal(size=(n, 2))


def _dense(X, sigma2, r):
    Kc = center_kernel(rbf_kernel(X, sigma2=sigma2))
    w, V = scipy.linalg.eigh(Kc)
    return Kc, w[::-1][:r], V[:, ::-1][:, :r]


@pytest.mark.parametrize(
    "gain,kw", [("kha/et", {"eta0": 0.2}), ("kha-smd", {"eta0": 0.05, "mu": 1e-2})]
)
def test_converges_to_dense_eigenpairs(gain, kw):
    X = _data()
    Kc, w, V = _dense(X, 0.5, 3)
    m = KernelHebbianPCA(3, sigma2=0.5, gain=gain, n_passes=150, random_state=1, **kw).fit(X)
    np.testing.assert_allclose(m.eigenvalues_, w, rtol=1e-3)
    # Eigenvectors agree up to sign: |cos| -> 1.
    cos = np.abs(np.sum(m.alphas_ * V, axis=0))
    assert np.all(cos > 0.999), cos
    # Scores equal dense kPCA scores Kc V / sqrt(w) up to sign.
    dense_scores = Kc @ V / np.sqrt(w)
    scores = m.transform(X)
    for i in range(3):
        s = np.sign(scores[:, i] @ dense_scores[:, i])
        np.testing.assert_allclose(
            s * scores[:, i], dense_scores[:, i], atol=2e-2 * np.abs(dense_scores[:, i]).max()
        )
    assert m.excess_error_[-1] < 1e-3


def test_excess_error_is_zero_at_the_optimum():
    X = _data()
    Kc, w, V = _dense(X, 0.5, 2)
    A = (V / np.sqrt(w)).T
    e_min = np.sqrt(np.sum(np.linalg.eigvalsh(Kc)[::-1][2:] ** 2))
    assert abs(excess_reconstruction_error(A, Kc, e_min)) < 1e-8
    assert excess_reconstruction_error(0.5 * A, Kc, e_min) > 0.1


def test_accelerated_gains_beat_scheduled_decay():
    # The ordering of Fig. 1 (Schraudolph et al. 2006): KHA-SMD <= KHA/et < KHA/t.
    X = _data(120, seed=3)
    err = {}
    for gain, kw in [("kha/t", {}), ("kha/et", {}), ("kha-smd", {"mu": 1e-2})]:
        m = KernelHebbianPCA(
            4, sigma2=0.3, gain=gain, eta0=0.05, n_passes=10, random_state=0, **kw
        ).fit(X)
        err[gain] = m.excess_error_[-1]
    assert err["kha/et"] < err["kha/t"]
    assert err["kha-smd"] < err["kha/et"]


def test_same_seed_same_result():
    X = _data()
    a = KernelHebbianPCA(2, sigma2=0.5, n_passes=3, random_state=7).fit(X).coef_
    b = KernelHebbianPCA(2, sigma2=0.5, n_passes=3, random_state=7).fit(X).coef_
    np.testing.assert_array_equal(a, b)


def test_divergent_gain_raises():
    with pytest.raises(FloatingPointError, match="eta0"):
        KernelHebbianPCA(2, sigma2=0.5, gain="kha", eta0=1e4, n_passes=5, random_state=0).fit(
            _data()
        )


@pytest.mark.parametrize(
    "kw,match",
    [
        ({"gain": "sgd"}, "gain must be one of"),
        ({"n_components": 0}, "n_components"),
        ({"n_components": 61}, "n_components"),
        ({"eta0": -1.0}, "eta0"),
        ({"sigma2": 0.0}, "sigma2"),
        ({"zeta": 1.5}, "zeta"),
        ({"n_passes": 0}, "n_passes"),
    ],
)
def test_bad_parameters(kw, match):
    params = {"n_components": 2, "sigma2": 0.5}
    params.update(kw)
    with pytest.raises(ValueError, match=match):
        KernelHebbianPCA(**params).fit(_data())


def test_transform_before_fit_and_feature_mismatch():
    with pytest.raises(NotFittedError, match="not fitted"):
        KernelHebbianPCA().transform(_data())
    m = KernelHebbianPCA(1, sigma2=0.5, n_passes=1, random_state=0).fit(_data())
    with pytest.raises(ValueError, match="features"):
        m.transform(np.zeros((3, 5)))


def test_gain_registry_lists_the_four_schedules():
    assert set(GAINS) == {"kha", "kha/t", "kha/et", "kha-smd"}


@pytest.mark.parametrize("n_passes", [0, True, 2.0])
def test_n_passes_must_be_an_integer_count(n_passes):
    X = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match=r"n_passes must be an int >= 1"):
        KernelHebbianPCA(1, sigma2=1.0, n_passes=n_passes).fit(X)
