import functools

import numpy as np
import pytest
import scipy.linalg

from kpca.kernels import center_kernel, squared_distances
from kpca.selection._spectrum import (
    SpectrumPlan,
    _exp_scaled,
    centered_rbf_spectra,
    pack_lower,
    square_parents,
    unpack_full,
    unpack_lower,
)


def exp_nonpositive(x, out=None, *, scale=1.0):
    """``exp(scale * x)`` through the library's compiled ``_exp_scaled`` (``scale * x <= 0``),
    any shape; ``out`` may be ``x`` itself."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    if out is None:
        out = np.empty_like(x)
    src = x.copy() if np.shares_memory(x, out) else x
    _exp_scaled(src.reshape(-1), float(scale), out.reshape(-1))
    return out


def _reference(D2, grid, k):
    return np.array(
        [
            scipy.linalg.eigh(center_kernel(np.exp(-D2 / (2 * s))), eigvals_only=True)[::-1][:k]
            for s in grid
        ]
    )


def test_pack_unpack_round_trip_is_column_major():
    M = np.arange(16.0).reshape(4, 4)
    M = M + M.T
    np.fill_diagonal(M, 0)
    p = pack_lower(M)
    # column 0 rows 1..3, then column 1 rows 2..3, then column 2 row 3
    np.testing.assert_array_equal(p, [M[1, 0], M[2, 0], M[3, 0], M[2, 1], M[3, 1], M[3, 2]])
    np.testing.assert_array_equal(unpack_lower(p, 4), M)


def test_square_parents_finds_halves():
    g = np.array([1.0, 1.5, 2.0, 3.0, 4.0, 5.0])
    np.testing.assert_array_equal(square_parents(g), [-1, -1, 0, 1, 2, -1])


@pytest.mark.parametrize("k", [1, 3])
def test_lanczos_top_k_matches_eigh(k):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    D2 = squared_distances(X)
    grid = np.mean(D2) * 0.05 * 2.0 ** (np.arange(-6, 7) / 3)  # exercises the squaring chains
    got = centered_rbf_spectra(pack_lower(D2), 60, grid, k)
    ref = _reference(D2, grid, k)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-6 * ref.max())


def test_full_spectrum_and_grid_order():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(25, 2))
    D2 = squared_distances(X)
    grid = np.array([3.0, 0.2, 1.0])  # unsorted input order is preserved in the output
    got = centered_rbf_spectra(pack_lower(D2), 25, grid, 25)
    np.testing.assert_allclose(got, _reference(D2, grid, 25), atol=1e-10)


def test_warm_start_across_matrices_gives_the_same_values():
    rng = np.random.default_rng(2)
    grid = 2.0 ** (np.arange(-3, 4) / 3)
    plan = SpectrumPlan(grid, 2, 40)
    warm = plan.new_warm()
    for _ in range(3):
        D2 = squared_distances(rng.normal(size=(40, 4)))
        ref = _reference(D2, grid, 2)
        np.testing.assert_allclose(plan.spectra(D2, warm), ref, rtol=0, atol=1e-6 * ref.max())


@pytest.mark.parametrize("k", [1, 40])
def test_packed_input_is_bit_identical_to_full_input(k):
    rng = np.random.default_rng(3)
    D2 = squared_distances(rng.normal(size=(40, 3)))
    np.fill_diagonal(D2, 0.0)
    grid = np.mean(D2) * 2.0 ** (np.arange(-4, 5) / 3)
    plan = SpectrumPlan(grid, k, 40)
    np.testing.assert_array_equal(plan.spectra(pack_lower(D2)), plan.spectra(D2))


def test_exp_nonpositive_is_within_one_ulp_of_numpy():
    x = -np.concatenate([[0.0], np.geomspace(1e-14, 708.0, 100_001)])
    got = exp_nonpositive(x)
    ref = np.exp(x)
    assert np.max(np.abs(got - ref) / np.spacing(ref)) <= 1.0
    assert got[0] == 1.0
    # below -708 (exp < 3.3e-308, the subnormal range) the result is 0; shape is kept
    np.testing.assert_array_equal(
        exp_nonpositive(np.array([[-709.0, -1e300], [-np.inf, -0.0]])), [[0.0, 0.0], [0.0, 1.0]]
    )
    # in place, and with a scale (exp(-gamma * d2), the kernel's form)
    y = x.copy()
    np.testing.assert_array_equal(exp_nonpositive(y, out=y), got)
    d2 = -x[::-1] / 3.0
    np.testing.assert_array_equal(exp_nonpositive(d2, scale=-3.0), exp_nonpositive(-3.0 * d2))


def test_spectra_survive_an_invariant_krylov_subspace():
    # at a tiny width the centred kernel is H (all non-zero eigenvalues 1): the first Lanczos
    # step already spans an invariant subspace; asking for 3 values must restart, not divide by 0
    import scipy.linalg

    from kpca.kernels import squared_distances
    from kpca.selection._spectrum import centered_rbf_spectra, pack_lower

    X = np.random.default_rng(0).normal(size=(40, 4))
    D2 = squared_distances(X)
    grid = np.array([1e-4, 0.1, 1.0])
    got = centered_rbf_spectra(pack_lower(D2), 40, grid, 3)
    H = np.eye(40) - 1.0 / 40
    for g, row in zip(grid, got, strict=False):
        ref = scipy.linalg.eigvalsh(H @ np.exp(-D2 / (2 * g)) @ H)[::-1][:3]
        np.testing.assert_allclose(row, ref, rtol=1e-7)


@pytest.mark.parametrize("n", [1, 2, 5, 33, 70])
def test_unpack_full_is_unpack_lower(n):
    # the fast unpacking (upper-triangle mask, then the same through the transpose) against
    # the fancy-indexed one, bit for bit, over a buffer of NaN (every entry is written)
    packed = np.random.default_rng(n).random(n * (n - 1) // 2)
    out = np.full((n, n), np.nan)
    unpack_full(packed, n, out, 1.0)
    assert np.array_equal(out, unpack_lower(packed, n, diag=1.0))


@pytest.mark.parametrize("n", [1, 2, 7, 64, 361, 1000])
def test_row_sums_in_order_are_the_sequential_row_sums(n):
    # the cold start's row sums of a symmetric kernel, bit for bit as summed one entry after
    # the other along each row (a Python loop for the small sizes, the cumulative sum beyond)
    from kpca.selection._spectrum import _row_sums_in_order

    packed = np.random.default_rng(n).random(n * (n - 1) // 2) * 10.0 ** np.arange(-3, 4)[
        np.arange(n * (n - 1) // 2) % 7]
    K = np.empty((n, n))
    unpack_full(packed, n, K, 1.0)
    if n <= 64:
        ref = np.array([functools.reduce(lambda a, b: a + b, row.tolist(), 0.0) for row in K])
    else:
        ref = np.cumsum(K, axis=1)[:, -1]
    assert np.array_equal(_row_sums_in_order(K), ref)


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
    from kpca.selection._spectrum import _top_converged

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
        got = _top_converged(evals, evecs, b, k, rtol, 1.0)
        assert got == _top_converged_reference(evals, evecs, b, k, rtol, 1.0)
        decided.add(got)
    assert decided == {True, False}  # both outcomes exercised


@pytest.mark.parametrize("steps", [1, 2, 7])
def test_tridiagonal_eigh_matches_dense_eigh(steps):
    from kpca.selection._spectrum import _tridiagonal_eigh

    rng = np.random.default_rng(steps)
    alpha, beta = rng.normal(size=10), rng.normal(size=10)
    evals, evecs = _tridiagonal_eigh(alpha, beta, steps)
    T = np.diag(alpha[:steps]) + np.diag(beta[: steps - 1], 1) + np.diag(beta[: steps - 1], -1)
    np.testing.assert_allclose(evals, np.linalg.eigvalsh(T), atol=1e-12)
    np.testing.assert_allclose(T @ evecs, evecs * evals, atol=1e-12)


def test_lanczos_steps_build_the_lanczos_relation():
    # the compiled steps against the definition: V orthonormal and centred, and
    # V (H K H) V^T is the tridiagonal of alpha, beta (H the centring matrix)
    from kpca.selection._spectrum import _lanczos_steps, _start_vector

    rng = np.random.default_rng(4)
    n, s = 30, 8
    D2 = squared_distances(rng.normal(size=(n, 3)))
    K = np.exp(-D2 / np.median(D2))
    V = np.empty((s + 1, n))
    alpha, beta = np.zeros(s), np.zeros(s)
    V[0] = _start_vector(rng.normal(size=n))
    done = 0
    while done < s:  # in two calls, as the convergence checks split them
        done = _lanczos_steps(K, V, alpha, beta, done, min(done + 5, s))
        if done < s:
            V[done] /= beta[done - 1]
    Q = V[:s]
    H = np.eye(n) - 1.0 / n
    np.testing.assert_allclose(Q @ Q.T, np.eye(s), atol=1e-12)
    np.testing.assert_allclose(Q.sum(axis=1), 0.0, atol=1e-12)
    T = np.diag(alpha) + np.diag(beta[:-1], 1) + np.diag(beta[:-1], -1)
    np.testing.assert_allclose(Q @ H @ K @ H @ Q.T, T, atol=1e-10)
    # the last direction, unnormalised, is the residual: (H K H) Q^T = Q^T T + w e_s^T
    R = H @ K @ H @ Q.T - Q.T @ T
    np.testing.assert_allclose(R[:, -1], V[s], atol=1e-10)
    np.testing.assert_allclose(np.linalg.norm(V[s]), beta[-1], rtol=1e-12)
