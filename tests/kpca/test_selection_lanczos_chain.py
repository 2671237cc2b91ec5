"""The compiled Lanczos chain of the selection (kpca.selection._lanczos_chain) against dense
eigensolvers and written-out definitions."""

import functools

import numpy as np
import pytest

from kpca.kernels import squared_distances
from kpca.selection._lanczos_chain import (
    _lanczos_steps,
    _start_into,
    chain_spectra,
    lanczos_workspace,
    top_converged,
    tridiagonal_ql,
)
from kpca.selection._spectrum import unpack_full


def _tridiagonal(alpha, beta, steps):
    return (np.diag(alpha[:steps]) + np.diag(beta[: steps - 1], 1)
            + np.diag(beta[: steps - 1], -1))


@pytest.mark.parametrize("steps", [1, 2, 3, 7, 20, 60])
def test_tridiagonal_ql_matches_dense_eigh(steps):
    rng = np.random.default_rng(steps)
    for trial in range(20):
        alpha, beta = rng.normal(size=steps), rng.normal(size=steps)
        if trial % 4 == 1:  # split blocks: zero off-diagonals
            beta[rng.integers(0, steps, 2)] = 0.0
        if trial % 4 == 2:  # (near-)repeated eigenvalues
            alpha[:] = 1.0
            beta *= 1e-9
        if trial % 4 == 3:  # a Lanczos-like scale: large, then small values
            alpha = np.sort(10.0 ** rng.uniform(-6, 2, steps))[::-1].copy()
        d, e, Z = np.empty(steps), np.empty(steps), np.full((steps, steps), np.nan)
        assert tridiagonal_ql(alpha, beta, steps, d, e, Z)
        T = _tridiagonal(alpha, beta, steps)
        scale = max(np.abs(T).max(), 1e-300)
        np.testing.assert_allclose(d, np.linalg.eigvalsh(T), rtol=0, atol=1e-13 * scale)
        assert np.all(np.diff(d) >= 0)
        np.testing.assert_allclose(T @ Z, Z * d, rtol=0, atol=1e-12 * scale)
        np.testing.assert_allclose(Z.T @ Z, np.eye(steps), atol=1e-12)


def _top_converged_reference(evals, evecs, b, k, rtol, scale):
    """The convergence test written out: every other Ritz value is compared (no sorting used)."""
    steps = evals.size
    for t in range(k):
        u = steps - 1 - t
        r = abs(b * evecs[steps - 1, u])
        others = [abs(evals[v] - evals[u]) for v in range(steps) if v != u]
        gap = min(others) if others else None
        err = min(r, r * r / gap) if gap is not None and gap > r else r
        if err > rtol * scale:
            return False
    return True


@pytest.mark.parametrize("steps", [1, 2, 3, 5, 9])
def test_top_converged_matches_the_written_out_bound(steps):
    rng = np.random.default_rng(steps)
    decided = set()
    for trial in range(300):
        T = rng.normal(size=(steps, steps))
        evals, evecs = np.linalg.eigh(T + T.T)
        if trial % 3 == 0 and steps > 1:  # near-ties: gaps below the residual
            evals[-1] = evals[-2] + 1e-9
        k = int(rng.integers(1, steps + 1))
        b = 10.0 ** rng.uniform(-9, 0)
        rtol = 10.0 ** rng.uniform(-8, -2)
        got = top_converged(evals, evecs, steps, b, k, rtol, 1.0)
        assert got == _top_converged_reference(evals, evecs, b, k, rtol, 1.0)
        decided.add(got)
    assert decided == {True, False}  # both outcomes exercised


def test_lanczos_steps_build_the_lanczos_relation():
    # the compiled steps against the definition: V orthonormal and centred, and
    # V (H K H) V^T is the tridiagonal of alpha, beta (H the centring matrix)
    rng = np.random.default_rng(4)
    n, s = 30, 8
    D2 = squared_distances(rng.normal(size=(n, 3)))
    K = np.exp(-D2 / np.median(D2))
    V = np.empty((s + 1, n))
    alpha, beta = np.zeros(s), np.zeros(s)
    v0 = rng.normal(size=n)
    _start_into(v0, V[0])
    np.testing.assert_allclose(V[0], (v0 - v0.mean()) / np.linalg.norm(v0 - v0.mean()),
                               atol=1e-15)
    done = 0
    while done < s:  # in several calls, as the driver makes them
        done = _lanczos_steps(K, V, alpha, beta, done, min(done + 5, s))
        if done < s:
            V[done] /= beta[done - 1]
    Q = V[:s]
    H = np.eye(n) - 1.0 / n
    np.testing.assert_allclose(Q @ Q.T, np.eye(s), atol=1e-12)
    np.testing.assert_allclose(Q.sum(axis=1), 0.0, atol=1e-12)
    T = _tridiagonal(alpha, beta, s)
    np.testing.assert_allclose(Q @ H @ K @ H @ Q.T, T, atol=1e-10)
    # the last direction, unnormalised, is the residual: (H K H) Q^T = Q^T T + w e_s^T
    R = H @ K @ H @ Q.T - Q.T @ T
    np.testing.assert_allclose(R[:, -1], V[s], atol=1e-10)
    np.testing.assert_allclose(np.linalg.norm(V[s]), beta[-1], rtol=1e-12)


def _chain(K, k, rtol=1e-10, warm=None):
    """``chain_spectra`` on the one matrix ``K`` (one width, no squaring); returns the values,
    the Ritz vector kept for the next start and the workspace."""
    n = K.shape[0]
    work = lanczos_workspace(n, max(4 * k + 40, 60))
    warm_vecs = np.zeros((1, n)) if warm is None else warm[None, :].copy()
    has_warm = np.array([warm is not None])
    out = np.zeros((1, k))
    chain_spectra(K[None].copy(), np.array([-1]), np.array([0]), k, rtol, warm_vecs, has_warm,
                  out, *work)
    return out[0], warm_vecs[0], work


@pytest.mark.parametrize("n", [5, 40, 200])
@pytest.mark.parametrize("k", [1, 3, 5])
def test_chain_gives_the_top_eigenvalues_and_their_ritz_vectors(n, k):
    rng = np.random.default_rng(n + k)
    D2 = squared_distances(rng.normal(size=(n, 3)))
    K = np.exp(-D2 / np.median(D2))
    H = np.eye(n) - 1.0 / n
    w, U = np.linalg.eigh(H @ K @ H)
    k = min(k, n - 2)
    vals, ritz, _ = _chain(K, k)
    np.testing.assert_allclose(vals, w[::-1][:k], rtol=0, atol=1e-9 * w[-1])
    # the warm start kept: the sum of the top-k eigenvectors (each up to its sign)
    top = U[:, ::-1][:, :k]
    coef = top.T @ ritz
    np.testing.assert_allclose(np.abs(coef), 1.0, atol=1e-4)  # vectors: ~ sqrt(rtol)
    np.testing.assert_allclose(top @ coef, ritz, atol=1e-4)
    # started from it, the same values
    np.testing.assert_allclose(_chain(K, k, warm=ritz)[0], vals, rtol=0, atol=1e-9 * w[-1])


@pytest.mark.parametrize("n", [1, 2, 7, 64, 361])
def test_cold_start_is_the_sequential_row_sums(n):
    # with no warm start the chain starts from the kernel's row sums, each added in column
    # order (one power step from the constant vector): the last start is left in the workspace
    packed = np.random.default_rng(n).random(n * (n - 1) // 2) * 10.0 ** np.arange(-3, 4)[
        np.arange(n * (n - 1) // 2) % 7]
    K = np.empty((n, n))
    unpack_full(packed, n, K, 1.0)
    if n < 3:
        return
    *_, work = _chain(K, 1)
    ref = np.array([functools.reduce(lambda a, b: a + b, row.tolist(), 0.0) for row in K])
    assert np.array_equal(work[7], ref)
