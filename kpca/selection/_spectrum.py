"""Leading eigenvalues of centred RBF kernels over a grid of widths.

Both MDD and kPA need, for many "null" distance matrices and every grid value
of ``sigma2``, the largest eigenvalues of the centred kernel
``H exp(-D2 / (2 sigma2)) H``.  The work is organised so that each matrix is
touched as little as possible:

* the squared distances are stored *packed*: the strict lower triangle in
  column-major order (exactly the order in which Varon et al. 2015, Appendix,
  fill the noise distance matrix with sorted draws), ``n (n - 1) / 2`` values;
* kernels for successive widths are computed in increasing ``1 / (2 sigma2)``;
  a width that is half of an earlier one re-uses it by squaring
  (``exp(-2 g d) = exp(-g d)^2``), so on the default grid (ratio ``2^(1/3)``)
  only three exponentials per entry are evaluated instead of one per width;
* with a fixed number of components ``k`` only the top ``k`` eigenvalues are
  computed, by Lanczos with full re-orthogonalisation on the packed matrix,
  centring applied implicitly (``H K H v = H K v`` for centred ``v``), started
  from the Ritz vector(s) of the previous width (warm start), stopping when
  every residual ``|beta_j s_j|`` is below ``rtol * |theta_1|`` (each returned
  Ritz value is then within that distance of an eigenvalue);
* ``k = n`` (full spectrum) falls back to LAPACK (``numpy.linalg.eigvalsh``);
* the exponentials use :func:`_exp_scaled`, a vectorisable exp accurate
  to 1 ulp (faster than NumPy's on CPUs without AVX-512, where NumPy's
  float64 ``exp`` is scalar; ``docs/design.md#4-kpca-core-decisions``).

The compiled functions release the GIL, so independent matrices run in threads.
"""

from __future__ import annotations

import numba
import numpy as np

from kpca._kernel_loops import _exp_scaled

#: Lanczos tolerance: every returned eigenvalue is within ``rtol * lambda_1`` of the exact one
#: (by the residual, or residual^2 / gap, bound).  The Monte-Carlo/permutation spread of the
#: 95th-percentile noise levels is orders of magnitude larger.
DEFAULT_RTOL = 1e-6

__all__ = ["pack_lower", "unpack_full", "unpack_lower", "square_parents", "SpectrumPlan",
           "centered_rbf_spectra"]


def pack_lower(D):
    """Strict lower triangle of a square matrix in column-major order (1-D)."""
    D = np.asarray(D)
    n = D.shape[0]
    cols, rows = np.triu_indices(n, k=1)  # (col, row) with row > col, column-major order
    return np.ascontiguousarray(D[rows, cols])


def unpack_lower(packed, n, diag=0.0):
    """Symmetric ``(n, n)`` matrix from :func:`pack_lower` output, diagonal ``diag``."""
    cols, rows = np.triu_indices(n, k=1)
    M = np.full((n, n), float(diag))
    M[rows, cols] = packed
    M[cols, rows] = packed
    return M


def square_parents(gammas, rtol=1e-9):
    """For each ``gamma`` (sorted ascending) the index of ``gamma / 2`` in the list, or -1."""
    gammas = np.asarray(gammas, dtype=np.float64)
    parent = np.full(gammas.size, -1, dtype=np.int64)
    for k in range(gammas.size):
        half = gammas[k] / 2.0
        for j in range(k):
            if abs(gammas[j] - half) <= rtol * half:
                parent[k] = j
                break
    return parent


@numba.njit(cache=True, nogil=True)
def unpack_full(d2p, n, out, diag=0.0):  # pragma: no cover - compiled
    """Symmetric ``out`` from the packed strict lower triangle (column-major), which is the
    strict upper triangle row by row: contiguous row copies, then a blocked mirror."""
    p = 0
    for j in range(n):
        out[j, j] = diag
        for i in range(j + 1, n):  # no slice copy: cheaper to compile (docs/studies/first_run.md)
            out[j, i] = d2p[p]
            p += 1
    B = 32
    for ib in range(0, n, B):
        for jb in range(ib, n, B):
            for i in range(ib, min(ib + B, n)):
                for j in range(max(jb, i + 1), min(jb + B, n)):
                    out[j, i] = out[i, j]


@numba.njit(cache=True, nogil=True)
def _reorthogonalise(w, V, j):  # pragma: no cover - compiled
    """``w`` minus its projections on the rows ``V[0..j]`` (classical Gram-Schmidt, twice)."""
    n = w.size
    for _rep in range(2):
        for i in range(j + 1):
            c = np.dot(w, V[i])
            for q in range(n):
                w[q] -= c * V[i, q]


@numba.njit(cache=True, nogil=True)
def _tridiagonal_eigh(alpha, beta, steps):  # pragma: no cover - compiled
    """Eigenvalues (ascending) and eigenvectors of the Lanczos tridiagonal of ``steps`` steps."""
    T = np.zeros((steps, steps))
    for i in range(steps):
        T[i, i] = alpha[i]
        if i + 1 < steps:
            T[i, i + 1] = beta[i]
            T[i + 1, i] = beta[i]
    return np.linalg.eigh(T)


@numba.njit(cache=True, nogil=True)
def _top_converged(evals, evecs, b, k, rtol, scale):  # pragma: no cover - compiled
    """Whether the ``k`` largest Ritz values are within ``rtol * scale`` of eigenvalues."""
    steps = evals.size
    for t in range(k):
        r = abs(b * evecs[steps - 1, steps - 1 - t])
        # eigenvalue error <= r and, away from other Ritz values, <= r^2 / gap
        err = r
        if steps > 1:
            gap = np.inf
            for u in range(steps):
                if u != steps - 1 - t:
                    gap = min(gap, abs(evals[u] - evals[steps - 1 - t]))
            if gap > r:
                err = min(r, r * r / gap)
        if err > rtol * scale:
            return False
    return True


@numba.njit(cache=True, nogil=True)
def _ritz_sum_into(evecs, V, k, ritz_out):  # pragma: no cover - compiled
    """``ritz_out`` = the sum of the ``k`` leading Ritz vectors (basis rows ``V``)."""
    steps = evecs.shape[0]
    ritz_out[:] = 0.0
    for t in range(k):
        for s in range(steps):
            e = evecs[s, steps - 1 - t]
            for q in range(ritz_out.size):
                ritz_out[q] += e * V[s, q]


@numba.njit(cache=True, nogil=True)
def _restart_direction(w, V, j):  # pragma: no cover - compiled
    """A new centred direction orthogonal to ``V[0..j]`` in ``w``; returns its norm."""
    for q in range(w.size):
        w[q] = np.sin(1.0 + (j + 2) * 0.7548776662 * (q + 1))
    w -= w.mean()
    _reorthogonalise(w, V, j)
    return np.sqrt(np.dot(w, w))


@numba.njit(cache=True, nogil=True)
def _lanczos_top(K, k, v0, rtol, max_steps, ritz_out,
                 square_first=False):  # pragma: no cover - compiled
    """Top ``k`` eigenvalues of ``H K H``; writes the sum of the top-``k`` Ritz
    vectors into ``ritz_out`` (the next warm start).  ``square_first``: ``K`` holds the
    square root (elementwise) of the kernel; it is squared in place during the first
    matrix-vector product (one pass over the matrix instead of two)."""
    n = K.shape[0]
    m = min(max_steps, n - 1)
    V = np.empty((m + 1, n))  # rows are written before they are read
    alpha = np.zeros(m)
    beta = np.zeros(m)
    v = v0 - v0.mean()
    nv = np.sqrt(np.sum(v * v))
    if nv == 0.0:
        for i in range(n):
            v[i] = np.sin(1.0 + i)
        v -= v.mean()
        nv = np.sqrt(np.sum(v * v))
    for i in range(n):
        V[0, i] = v[i] / nv
    theta = np.zeros(k)
    check_every = 1 if k <= 2 else max(2, k // 3)  # the tridiagonal eigensolve is O(steps^3)
    for j in range(m):
        w = _square_matvec(K, V[0]) if j == 0 and square_first else np.dot(K, V[j])
        mean = w.mean()
        for q in range(n):
            w[q] -= mean
        alpha[j] = np.dot(w, V[j])
        _reorthogonalise(w, V, j)  # full re-orthogonalisation
        b = np.sqrt(np.dot(w, w))
        beta[j] = b
        steps = j + 1
        if steps >= k and ((steps - k) % check_every == 0 or b <= 1e-14 or steps == m):
            evals, evecs = _tridiagonal_eigh(alpha, beta, steps)
            scale = max(abs(evals[steps - 1]), 1e-300)
            if (_top_converged(evals, evecs, b, k, rtol, scale) or b <= 1e-14 * scale
                    or steps == m):
                for t in range(k):
                    theta[t] = evals[steps - 1 - t]
                _ritz_sum_into(evecs, V, k, ritz_out)
                return theta
        if b <= 1e-14 * max(abs(alpha[j]), 1e-300):
            # invariant subspace found before k values converged: restart with a new centred
            # direction orthogonal to the basis (beta[j] = 0 decouples the tridiagonal blocks)
            beta[j] = 0.0
            b = _restart_direction(w, V, j)
            if b == 0.0:
                return theta
        inv_b = 1.0 / b
        for q in range(n):
            V[j + 1, q] = w[q] * inv_b
    return theta


@numba.njit(cache=True, nogil=True)
def _center_into(K, C):  # pragma: no cover - compiled
    """``C = H K H`` (double centring, Eq. (13) of Varon et al. 2015) for symmetric ``K``."""
    n = K.shape[0]
    col = np.zeros(n)
    for i in range(n):
        for j in range(n):
            col[j] += K[i, j]
    col /= n
    tot = col.mean()
    for i in range(n):
        for j in range(n):
            C[i, j] = K[i, j] - col[i] - col[j] + tot


@numba.njit(cache=True, nogil=True)
def _chain_full(roots, parent, slot, out):  # pragma: no cover - compiled
    """Full spectra along the grid (LAPACK ``eigvalsh`` inside compiled code: GIL-free, so
    matrices run in parallel threads; NumPy's and SciPy's wrappers hold the GIL)."""
    n = roots.shape[1]
    C = np.empty((n, n))
    for g in range(parent.size):
        K = roots[slot[g]]
        if parent[g] >= 0:
            _square_inplace(K)
        _center_into(K, C)
        ev = np.linalg.eigvalsh(C)
        for t in range(out.shape[1]):
            out[g, t] = ev[n - 1 - t]


@numba.njit(cache=True, nogil=True, fastmath=True)
def _square_matvec(K, v):  # pragma: no cover - compiled
    """``K <- K * K`` (elementwise, in place) and return ``K @ v``, in one pass."""
    n = K.shape[0]
    w = np.empty(n)
    for i in range(n):
        acc = 0.0
        for j in range(n):
            x = K[i, j] * K[i, j]
            K[i, j] = x
            acc += x * v[j]
        w[i] = acc
    return w


@numba.njit(cache=True, nogil=True)
def _square_inplace(K):  # pragma: no cover - compiled
    flat = K.ravel()
    for i in range(flat.size):
        flat[i] = flat[i] * flat[i]


def _chain_spectra(roots, parent, slot, k, rtol, max_steps, warm, has_warm, out):
    """Leading eigenvalues (Lanczos) along the grid; ``roots[slot[g]]`` holds exp(-gamma_g D2) for
    chain roots and is squared in place for the other widths.  ``warm[g]`` (if ``has_warm[g]``)
    starts Lanczos at width ``g``; on return it holds the new Ritz vector and ``has_warm`` is set.
    A loop over a few dozen widths: the work is in :func:`_lanczos_top`."""
    ritz = np.zeros(roots.shape[1])
    for g in range(parent.size):
        K = roots[slot[g]]
        square = parent[g] >= 0
        if has_warm[g]:
            v0 = warm[g].copy()
        elif g > 0 and has_warm[g - 1]:
            v0 = warm[g - 1].copy()
        else:  # deterministic cold start: one power step from the constant vector
            if square:
                np.multiply(K, K, out=K)
                square = False
            v0 = np.cumsum(K, axis=1)[:, -1].copy()  # the row sums, added in order
        out[g, :k] = _lanczos_top(K, k, v0, rtol, max_steps, ritz, square)
        warm[g] = ritz
        has_warm[g] = True


class SpectrumPlan:
    """Grid bookkeeping shared by all matrices of one selection run.

    Parameters
    ----------
    sigma2_grid : ndarray
        Kernel widths, any order.
    k : int
        Number of leading eigenvalues (``>= n - 1`` means the full spectrum).
    n : int
        Matrix size.
    rtol : float
        Lanczos tolerance relative to the largest eigenvalue.
    max_steps : int, optional
        Lanczos step limit (default ``max(4 k + 40, 60)``).
    """

    def __init__(self, sigma2_grid, k, n, *, rtol=DEFAULT_RTOL, max_steps=None):
        sigma2_grid = np.asarray(sigma2_grid, dtype=np.float64)
        gammas = 1.0 / (2.0 * sigma2_grid)
        self.order = np.argsort(gammas, kind="stable")
        self.gammas = gammas[self.order]
        self.parent = square_parents(self.gammas)
        slot = np.full(self.gammas.size, -1, dtype=np.int64)
        roots = []
        for g in range(self.gammas.size):
            if self.parent[g] >= 0:
                slot[g] = slot[self.parent[g]]
            else:
                slot[g] = len(roots)
                roots.append(g)
        self.slot = slot
        self.root_index = np.array(roots, dtype=np.int64)
        self.n = int(n)
        self.full = k >= n - 1 or n <= 3
        self.k_eff = self.n if self.full else int(k)
        self.k_out = min(int(k), self.n)
        self.rtol = float(rtol)
        self.max_steps = int(max_steps) if max_steps is not None else max(4 * self.k_eff + 40, 60)

    def new_warm(self):
        """Fresh per-thread state ``(warm, has_warm, kernels)`` for a sequence of related matrices.

        ``warm``/``has_warm`` carry Ritz vectors from one matrix to the next; ``kernels`` is
        the reusable ``(n_roots, n, n)`` kernel buffer (no 8 n^2-byte allocation per width chain).
        """
        return (np.zeros((self.gammas.size, self.n)), np.zeros(self.gammas.size, dtype=np.bool_),
                np.empty((self.root_index.size, self.n, self.n)))

    def spectra(self, D2, warm=None):
        """Leading eigenvalues of ``H exp(-D2 / (2 sigma2)) H`` per width (input grid order).

        Parameters
        ----------
        D2 : ndarray, shape (n, n) or (n (n - 1) / 2,)
            Squared distances, full (zero diagonal) or packed (:func:`pack_lower`).  The
            packed form halves the exponentials: ``exp`` is evaluated on the ``n (n - 1) / 2``
            packed values and the kernel is unpacked with unit diagonal (bit-identical to the
            full form, as every entry is the same ``exp(-gamma * d2)``).
        warm : tuple, optional
            From :meth:`new_warm`: carries Ritz vectors from one matrix to the next
            (matrices of the same distribution have nearly equal eigenvectors).
        """
        if warm is None:
            warm = self.new_warm()
        roots = warm[2]
        D2 = np.ascontiguousarray(D2, dtype=np.float64)
        if D2.ndim == 1:
            tmp = np.empty_like(D2)
            for s, g in enumerate(self.root_index):
                _exp_scaled(D2, -self.gammas[g], tmp)
                unpack_full(tmp, self.n, roots[s], 1.0)
        else:
            for s, g in enumerate(self.root_index):
                _exp_scaled(D2.reshape(-1), -self.gammas[g], roots[s].reshape(-1))
        out = np.zeros((self.gammas.size, self.k_eff))
        if self.full:
            _chain_full(roots, self.parent, self.slot, out)
        else:
            _chain_spectra(roots, self.parent, self.slot, self.k_eff, self.rtol,
                           self.max_steps, warm[0], warm[1], out)
        res = np.empty_like(out)
        res[self.order] = out
        return res[:, : self.k_out]


def centered_rbf_spectra(d2_packed, n, sigma2_grid, k, *, rtol=DEFAULT_RTOL, max_steps=None):
    """Largest eigenvalues of ``H exp(-D2 / (2 sigma2)) H`` for every ``sigma2``.

    Parameters
    ----------
    d2_packed : ndarray, shape (n (n - 1) / 2,)
        Squared distances, strict lower triangle in column-major order
        (:func:`pack_lower`); the diagonal is zero.
    n : int
        Matrix size.
    sigma2_grid : ndarray, shape (n_grid,)
        Kernel widths (Varon et al. 2015, Eq. (12)).
    k : int
        Number of leading eigenvalues; ``k >= n - 1`` gives the full spectrum
        (LAPACK), otherwise Lanczos is used.
    rtol, max_steps
        See :class:`SpectrumPlan`.

    Returns
    -------
    ndarray, shape (n_grid, min(k, n))
        Eigenvalues in descending order, rows in the order of ``sigma2_grid``.
    """
    D2 = np.empty((int(n), int(n)))
    unpack_full(np.ascontiguousarray(d2_packed, dtype=np.float64), int(n), D2)
    return SpectrumPlan(sigma2_grid, k, n, rtol=rtol, max_steps=max_steps).spectra(D2)
