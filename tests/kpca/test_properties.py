"""Property tests (hypothesis) of kernel, centring, selection and estimator invariants."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from kernel_references import rbf_kernel_numpy

from kpca import KernelPCA
from kpca.kernels import center_kernel, center_test_kernel, rbf_kernel
from kpca.selection import rule_of_thumb_sigma2

SETTINGS = settings(max_examples=25, deadline=None)

finite = st.floats(-10.0, 10.0, allow_nan=False, allow_infinity=False, width=64)


@st.composite
def data(draw, min_rows=2, max_rows=12):
    n = draw(st.integers(min_rows, max_rows))
    d = draw(st.integers(1, 4))
    return draw(arrays(np.float64, (n, d), elements=finite))


widths = st.floats(1e-2, 1e2, allow_nan=False, allow_infinity=False)


@SETTINGS
@given(data(), widths)
def test_rbf_kernel_is_a_symmetric_similarity(X, sigma2):
    K = rbf_kernel(X, sigma2=sigma2)
    np.testing.assert_allclose(K, K.T, atol=1e-12)
    np.testing.assert_allclose(np.diag(K), 1.0, atol=1e-12)
    assert np.all((K >= 0) & (K <= 1 + 1e-12))
    np.testing.assert_allclose(K, rbf_kernel_numpy(X, sigma2=sigma2), atol=1e-9)


@SETTINGS
@given(data(), widths, finite, st.floats(0.1, 10.0))
def test_rbf_kernel_translation_and_scale_invariance(X, sigma2, shift, c):
    K = rbf_kernel(X, sigma2=sigma2)
    np.testing.assert_allclose(rbf_kernel(X + shift, sigma2=sigma2), K, atol=1e-8)
    np.testing.assert_allclose(rbf_kernel(c * X, sigma2=c * c * sigma2), K, atol=1e-8)


@SETTINGS
@given(data(), widths)
def test_centring_is_an_idempotent_projection(X, sigma2):
    K = rbf_kernel(X, sigma2=sigma2)
    Kc = center_kernel(K)
    np.testing.assert_allclose(Kc.sum(axis=0), 0.0, atol=1e-9)
    np.testing.assert_allclose(Kc.sum(axis=1), 0.0, atol=1e-9)
    np.testing.assert_allclose(center_kernel(Kc), Kc, atol=1e-9)
    # the training kernel centred as a "test" kernel equals the centred kernel (Eq. (7))
    col = K.mean(axis=0)
    np.testing.assert_allclose(center_test_kernel(K, col, float(col.mean())), Kc, atol=1e-9)
    assert np.linalg.eigvalsh(Kc).min() > -1e-8  # still positive semi-definite


@SETTINGS
@given(data(min_rows=3), finite, st.floats(0.1, 10.0))
def test_rule_of_thumb_is_translation_invariant_and_scales_quadratically(X, shift, c):
    if np.ptp(X, axis=0).max() < 1e-3:
        return  # (near-)constant data: the rule is undefined
    s2 = rule_of_thumb_sigma2(X)
    np.testing.assert_allclose(rule_of_thumb_sigma2(X + shift), s2, rtol=1e-6)
    np.testing.assert_allclose(rule_of_thumb_sigma2(c * X), c * c * s2, rtol=1e-9)


@SETTINGS
@given(data(min_rows=4), widths, st.integers(1, 3))
def test_kernel_pca_scores_invariants(X, sigma2, n_components):
    model = KernelPCA(n_components, sigma2, random_state=0)
    Z = model.fit_transform(X)
    np.testing.assert_allclose(Z, model.transform(X), atol=1e-7)
    np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-7)  # centred in feature space
    assert np.all(np.diff(model.eigenvalues_) <= 1e-12)  # descending
    # translating the data changes nothing (the RBF kernel depends on distances only)
    np.testing.assert_allclose(KernelPCA(n_components, sigma2).fit(X + 3.0).eigenvalues_,
                               model.eigenvalues_, atol=1e-8)
