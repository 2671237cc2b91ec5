import kernel_references as twins
import numpy as np
import pytest

from kpca import _kernel_loops as loops
from kpca import kernels as kk


@pytest.mark.parametrize("d", [1, 2, 15, 16, 50])
def test_squared_distances_match_numpy_twin(d):
    rng = np.random.default_rng(d)
    X = rng.normal(size=(37, d))
    Y = rng.normal(size=(11, d))
    np.testing.assert_allclose(
        kk.squared_distances(X), twins.squared_distances_numpy(X), rtol=1e-10, atol=1e-10
    )
    np.testing.assert_allclose(
        kk.squared_distances(X, Y), twins.squared_distances_numpy(X, Y), rtol=1e-10, atol=1e-10
    )


def test_self_distances_symmetric_zero_diagonal():
    X = np.random.default_rng(0).normal(size=(20, 40))
    D = kk.squared_distances(X)
    assert np.array_equal(D, D.T)
    assert np.all(np.diag(D) == 0.0)
    assert np.all(D >= 0.0)


def test_rbf_matches_twin_and_sklearn_gamma_mapping():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 5))
    Y = rng.normal(size=(7, 5))
    K = kk.rbf_kernel(X, Y, sigma2=0.7)
    np.testing.assert_allclose(K, twins.rbf_kernel_numpy(X, Y, sigma2=0.7), rtol=1e-12)
    gamma = kk.sigma2_to_gamma(0.7)
    np.testing.assert_allclose(K, np.exp(-gamma * twins.squared_distances_numpy(X, Y)), rtol=1e-12)
    assert kk.gamma_to_sigma2(gamma) == pytest.approx(0.7)


def test_center_kernel_matches_explicit_centering_matrix():
    X = np.random.default_rng(2).normal(size=(25, 3))
    K = kk.rbf_kernel(X, sigma2=1.3)
    Kc = kk.center_kernel(K)
    np.testing.assert_allclose(Kc, twins.center_kernel_numpy(K), atol=1e-13)
    np.testing.assert_allclose(Kc.sum(axis=0), 0.0, atol=1e-12)


def test_center_test_kernel_eq7_matches_twin_and_training_rows():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(25, 3))
    T = rng.normal(size=(6, 3))
    K = kk.rbf_kernel(X, sigma2=1.3)
    Kt = kk.rbf_kernel(T, X, sigma2=1.3)
    out = kk.center_test_kernel(Kt, K.mean(axis=0), K.mean())
    np.testing.assert_allclose(out, twins.center_test_kernel_numpy(Kt, K), atol=1e-13)
    # Training points centred as test points give the rows of the centred kernel.
    np.testing.assert_allclose(
        kk.center_test_kernel(K, K.mean(axis=0), K.mean()), kk.center_kernel(K), atol=1e-13
    )


@pytest.mark.parametrize("bad", [0.0, -1.0, np.nan, np.inf, True, "0.5", None])
def test_rbf_rejects_bad_sigma2(bad):
    # one check of a kernel width's value, one message, whichever function is asked
    message = r"sigma2 must be a finite positive number; got sigma2="
    for call in (lambda: kk.rbf_kernel(np.zeros((3, 2)), sigma2=bad),
                 lambda: kk.rbf_project(np.zeros((3, 2)), np.zeros((2, 2)), np.zeros((2, 1)),
                                        sigma2=bad),
                 lambda: kk.rbf_from_squared_distances(np.zeros((3, 3)), bad),
                 lambda: kk.check_sigma2(bad)):
        with pytest.raises(ValueError, match=message):
            call()


def test_check_sigma2_names_the_parameter_and_returns_a_float():
    assert kk.check_sigma2(np.float32(0.5)) == 0.5 and type(kk.check_sigma2(2)) is float
    with pytest.raises(ValueError, match=r"support_sigma2 must be a finite positive number; "
                                         r"got support_sigma2=0"):
        kk.check_sigma2(0, "support_sigma2")


def test_distances_reject_mismatched_features():
    with pytest.raises(ValueError, match="same number of features"):
        kk.squared_distances(np.zeros((3, 2)), np.zeros((3, 4)))
    with pytest.raises(ValueError, match="2-D"):
        kk.squared_distances(np.zeros(3))


@pytest.mark.parametrize("n, d", [(1, 3), (2, 3), (7, 2), (33, 15), (34, 16), (131, 40)])
def test_rbf_paths_match_twin_symmetric_unit_diagonal(n, d):
    # Exact (d < 16) and Gram (d >= 16) paths, odd and even n.
    rng = np.random.default_rng(n + d)
    X = rng.normal(size=(n, d))
    Y = rng.normal(size=(n + 3, d))
    K = kk.rbf_kernel(X, sigma2=0.9 * d)
    assert np.array_equal(K, K.T) and np.all(np.diag(K) == 1.0)
    np.testing.assert_allclose(K, twins.rbf_kernel_numpy(X, sigma2=0.9 * d), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(
        kk.rbf_kernel(X, Y, sigma2=0.9 * d),
        twins.rbf_kernel_numpy(X, Y, sigma2=0.9 * d),
        rtol=1e-12,
        atol=1e-15,
    )


@pytest.mark.parametrize("d", [5, 16, 31])
@pytest.mark.parametrize("block", [None, 7])
def test_every_rbf_path_is_within_one_ulp_of_numpy_exp(monkeypatch, d, block):
    # The kernel is the vectorised exp of squared_distances (d < 16: row by row; d >= 16
    # between two sets, and the kernel of given distances: in blocks through a buffer); the
    # fused self kernel of d >= 16 is checked against the twin above
    if block is not None:
        monkeypatch.setattr(kk, "_EXP_BLOCK", block)  # many blocks, the last one short
    rng = np.random.default_rng(4)
    X = rng.normal(size=(70, d))
    Y = rng.normal(size=(45, d)) * 3.0
    for A, B in ((X, None), (X, Y)):
        D2 = kk.squared_distances(A, B)
        ref = np.exp(-(1.0 / (1.4 * d)) * D2)
        fused = B is None and d >= kk._GRAM_MIN_FEATURES
        for got in ([] if fused else [kk.rbf_kernel(A, B, sigma2=0.7 * d)]) + [
                kk.rbf_from_squared_distances(D2, 0.7 * d)]:
            assert np.all(np.abs(got - ref) <= np.spacing(ref))
        same = kk.rbf_from_squared_distances(D2, 0.7 * d, copy=False)
        assert same is D2 and np.all(np.abs(same - ref) <= np.spacing(ref))  # in place


@pytest.mark.parametrize(
    "n, m, d", [(1, 1, 1), (37, 50, 3), (50, 17, 15), (40, 33, 16), (9, 70, 40)]
)
def test_rbf_project_matches_twin(n, m, d):
    rng = np.random.default_rng(n * m + d)
    X, Y = rng.normal(size=(n, d)), rng.normal(size=(m, d))
    C = rng.normal(size=(m, 4))
    got = kk.rbf_project(X, Y, C, sigma2=0.5 * d)
    ref = twins.rbf_project_numpy(X, Y, C, sigma2=0.5 * d)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-13 * m)


def test_rbf_project_gram_route_in_several_blocks(monkeypatch):
    monkeypatch.setattr(kk, "_PROJECT_BLOCK_ENTRIES", 100)
    rng = np.random.default_rng(8)
    X, Y = rng.normal(size=(23, 20)), rng.normal(size=(30, 20))
    C = rng.normal(size=(30, 2))
    np.testing.assert_allclose(
        kk.rbf_project(X, Y, C, sigma2=10.0), twins.rbf_project_numpy(X, Y, C, sigma2=10.0),
        rtol=0, atol=1e-13,
    )


def test_rbf_project_rejects_mismatched_shapes():
    X, Y = np.ones((3, 2)), np.ones((4, 2))
    with pytest.raises(ValueError, match="shapes do not match"):
        kk.rbf_project(X, Y, np.ones((5, 1)), sigma2=1.0)
    with pytest.raises(ValueError, match="shapes do not match"):
        kk.rbf_project(X, np.ones((4, 3)), np.ones((4, 1)), sigma2=1.0)


@pytest.mark.parametrize("d", [3, 20])
def test_parallel_versions_give_the_serial_numbers(monkeypatch, d):
    # small problems run the serial compiled loops, large ones the parallel twins of the same
    # loops: every output entry is the same computation, so the results are bit-identical
    rng = np.random.default_rng(d)
    X, Y = rng.normal(size=(41, d)), rng.normal(size=(29, d))
    C = rng.normal(size=(29, 3))

    def every_kernel():
        K = kk.rbf_kernel(X, sigma2=0.8 * d)
        return [kk.squared_distances(X), kk.squared_distances(X, Y), K,
                kk.rbf_kernel(X, Y, sigma2=0.8 * d), kk.rbf_project(X, Y, C, sigma2=0.8 * d),
                kk.rbf_from_squared_distances(kk.squared_distances(X, Y), 0.8 * d),
                kk.center_kernel(K), kk.center_test_kernel(K[:5], K.mean(axis=0), K.mean())]

    serial = every_kernel()
    monkeypatch.setattr(loops, "SERIAL_MAX_ENTRIES", 0)
    assert loops._center_inplace.for_size(1) is loops._center_inplace.parallel
    for got, expect in zip(every_kernel(), serial, strict=True):
        assert np.array_equal(got, expect)
