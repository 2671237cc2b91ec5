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
  computed, by Lanczos with full re-orthogonalisation on the unpacked matrix,
  centring applied implicitly (``H K H v = H K v`` for centred ``v``), started
  from the Ritz vector(s) of the previous width (warm start), stopping when
  every residual ``|beta_j s_j|`` is below ``rtol * |theta_1|`` (each returned
  Ritz value is then within that distance of an eigenvalue);
* ``k = n`` (full spectrum) falls back to LAPACK (``numpy.linalg.eigvalsh``);
* the exponentials use :func:`_exp_scaled`, a vectorisable exp accurate
  to 1 ulp (faster than NumPy's on CPUs without AVX-512, where NumPy's
  float64 ``exp`` is scalar; ``docs/design.md#4-kpca-core-decisions``).

The Lanczos steps are compiled as scalar loops only (:func:`_lanczos_steps`, GIL-free); the
convergence checks (LAPACK ``dstev`` on the small tridiagonal), the Ritz vectors and the
restart are NumPy: compiling the BLAS and LAPACK wrappers inside the iteration costs a
newcomer's first run far more than it saves, and an all-NumPy iteration is slow on the EDR's
matrices (tens to a few hundred rows); the measurements are in ``docs/studies/first_run.md``.
The full-spectrum path stays compiled: LAPACK inside compiled code releases the GIL, so
independent matrices run in threads.
"""

from __future__ import annotations

import math

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


def unpack_full(d2p, n, out, diag=0.0):
    """Symmetric ``out`` (``(n, n)``, C-contiguous float64, overwritten) from the packed strict
    lower triangle in column-major order, which is the strict upper triangle row by row; the
    diagonal is ``diag``.  Bit-identical to :func:`unpack_lower` (every entry is copied), in one
    compiled pass that writes each packed value to its two places (:func:`_unpack_rows`;
    measured in ``docs/studies/fast_selection.md``, seventh round)."""
    if int(n) != out.shape[0]:
        raise ValueError(f"out must be ({n}, {n}); got {out.shape}")
    _unpack_rows(np.ascontiguousarray(d2p, dtype=np.float64), out, float(diag))


@numba.njit(cache=True, nogil=True)
def _unpack_rows(d2p, out, diag):  # pragma: no cover - compiled
    """``out[i, j] = out[j, i] = d2p[idx]`` for ``i < j`` in row-major order of the upper
    triangle (``idx`` counting up), ``out[i, i] = diag``."""
    n = out.shape[0]
    idx = 0
    for i in range(n):
        out[i, i] = diag
        for j in range(i + 1, n):
            v = d2p[idx]
            out[i, j] = v
            out[j, i] = v
            idx += 1


def _reorthogonalise(w, Vj):
    """``w`` minus its projections on the orthonormal rows ``Vj`` (classical Gram-Schmidt,
    twice: "twice is enough")."""
    for _rep in range(2):
        w -= (Vj @ w) @ Vj


#: SciPy's LAPACK ``dstev``, imported by the first :func:`_tridiagonal_eigh`
_dstev = None


def _tridiagonal_eigh(alpha, beta, steps):
    """Eigenvalues (ascending) and eigenvectors of the Lanczos tridiagonal of ``steps`` steps
    (LAPACK ``dstev``: ~20 µs a call on these sizes, ``numpy.linalg.eigh`` ~60 µs)."""
    global _dstev
    if _dstev is None:  # imported on first use, not by every call
        from scipy.linalg.lapack import dstev as _dstev  # imported by kpca.model anyway
    dstev = _dstev
    if steps == 1:  # dstev's wrapper refuses an empty off-diagonal
        return alpha[:1].copy(), np.ones((1, 1))
    evals, evecs, info = dstev(alpha[:steps], beta[: steps - 1])
    if info != 0:
        raise np.linalg.LinAlgError(f"LAPACK dstev failed (info={info})")
    return evals, evecs


def _top_converged(evals, evecs, b, k, rtol, scale):
    """Whether the ``k`` largest Ritz values (``evals`` ascending) are within ``rtol * scale``
    of eigenvalues: each one's error is at most its residual ``r = |b s|`` (``s`` the last
    entry of its eigenvector of the tridiagonal) and, when its gap to the other Ritz values
    exceeds ``r``, at most ``r^2 / gap``."""
    ev = evals.tolist()  # a few scalars: Python floats are faster than NumPy calls here
    last = evecs[-1].tolist()
    steps = len(ev)
    for u in range(steps - 1, steps - 1 - k, -1):
        r = abs(b * last[u])
        err = r
        if steps > 1:  # sorted: the nearest other Ritz value is a neighbour
            gap = min(ev[u] - ev[u - 1] if u > 0 else math.inf,
                      ev[u + 1] - ev[u] if u + 1 < steps else math.inf)
            if gap > r:
                err = min(r, r * r / gap)
        if err > rtol * scale:
            return False
    return True


def _start_vector(v0):
    """The centred, normalised start vector (a fixed centred one if ``v0`` is constant)."""
    v = v0 - v0.sum() / v0.size
    nv = math.sqrt(v @ v)
    if nv == 0.0:
        v = np.sin(1.0 + np.arange(v.size))
        v -= v.mean()
        nv = math.sqrt(v @ v)
    return v / nv


def _restart_direction(w, Vj):
    """A new centred direction orthogonal to the rows ``Vj`` in ``w``; returns its norm."""
    j = Vj.shape[0] - 1
    w[:] = np.sin(1.0 + (j + 2) * 0.7548776662 * np.arange(1, w.size + 1))
    w -= w.mean()
    _reorthogonalise(w, Vj)
    return math.sqrt(w @ w)


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _lanczos_steps(K, V, alpha, beta, j0, j1):  # pragma: no cover - compiled
    """Lanczos steps ``j0 .. j1 - 1`` on ``H K H`` (rows ``V[0..j0]`` orthonormal and centred on
    entry); returns the number of steps done.  Step ``j`` writes ``alpha[j]``, ``beta[j]`` and
    the new direction ``w`` (centred, re-orthogonalised against ``V[0..j]`` twice) into
    ``V[j + 1]``, normalised except after the last step and after a step whose ``beta[j]`` is
    below ``1e-14`` or ``1e-14 |alpha[j]|`` (the caller checks convergence or restarts there).

    Only scalar loops: no BLAS or LAPACK wrapper, array expression or allocation, which are what
    made the compiled Lanczos slow to compile (``docs/studies/first_run.md``); ``reassoc`` lets
    the compiler vectorise the dot products."""
    n = K.shape[0]
    for j in range(j0, j1):
        w = V[j + 1]
        for i in range(n):
            acc = 0.0
            for q in range(n):
                acc += K[i, q] * V[j, q]
            w[i] = acc
        mean = 0.0
        for i in range(n):
            mean += w[i]
        mean /= n
        a = 0.0
        for i in range(n):
            w[i] -= mean
            a += w[i] * V[j, i]
        alpha[j] = a
        for _rep in range(2):  # full re-orthogonalisation, twice
            for r in range(j + 1):
                c = 0.0
                for i in range(n):
                    c += w[i] * V[r, i]
                for i in range(n):
                    w[i] -= c * V[r, i]
        b = 0.0
        for i in range(n):
            b += w[i] * w[i]
        b = math.sqrt(b)
        beta[j] = b
        size = abs(a)
        if j + 1 == j1 or b <= 1e-14 or b <= 1e-14 * (1e-300 if 1e-300 > size else size):
            return j + 1
        inv_b = 1.0 / b
        for i in range(n):
            w[i] *= inv_b
    return j1


def _next_check(done, k, check_every, m):
    """The step count at which the Ritz values are next checked, after ``done`` steps."""
    steps = max(done + 1, k)
    steps = k + -(-(steps - k) // check_every) * check_every
    return min(steps, m)


def _lanczos_top(K, k, v0, rtol, max_steps, ritz_out):
    """Top ``k`` eigenvalues of ``H K H`` (Lanczos, full re-orthogonalisation, ``H`` applied
    implicitly); writes the sum of the top-``k`` Ritz vectors into ``ritz_out`` (the next warm
    start).  The steps run compiled between two convergence checks (:func:`_lanczos_steps`);
    the checks (LAPACK on the small tridiagonal), the Ritz vectors and the rare restart are
    NumPy, which compiles nothing (``docs/studies/first_run.md``)."""
    n = K.shape[0]
    m = min(max_steps, n - 1)
    V = np.empty((m + 1, n))  # rows are written before they are read
    alpha = np.zeros(m)
    beta = np.zeros(m)
    V[0] = _start_vector(v0)
    check_every = 1 if k <= 2 else max(2, k // 3)  # the tridiagonal eigensolve is O(steps^3)
    done = 0
    while done < m:
        steps = _lanczos_steps(K, V, alpha, beta, done, _next_check(done, k, check_every, m))
        j = steps - 1
        b = beta[j]
        if steps >= k and ((steps - k) % check_every == 0 or b <= 1e-14 or steps == m):
            evals, evecs = _tridiagonal_eigh(alpha, beta, steps)
            scale = max(abs(evals[steps - 1]), 1e-300)
            if (_top_converged(evals, evecs, b, k, rtol, scale) or b <= 1e-14 * scale
                    or steps == m):
                np.dot(evecs[:, steps - k:].sum(axis=1), V[:steps], out=ritz_out)
                return evals[::-1][:k].copy()
        if b <= 1e-14 * max(abs(alpha[j]), 1e-300):
            # invariant subspace found before k values converged: restart with a new centred
            # direction orthogonal to the basis (beta[j] = 0 decouples the tridiagonal blocks)
            beta[j] = 0.0
            b = _restart_direction(V[steps], V[:steps])
            if b == 0.0:
                return np.zeros(k)
        V[steps] *= 1.0 / b
        done = steps
    return np.zeros(k)


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


@numba.njit(cache=True, nogil=True)
def _square_inplace(K):  # pragma: no cover - compiled
    flat = K.ravel()
    for i in range(flat.size):
        flat[i] = flat[i] * flat[i]


def _row_sums_in_order(K):
    """The row sums of the symmetric ``K``, each added in column order (as
    ``np.cumsum(K, axis=1)[:, -1]``): its column sums, which NumPy adds row after row when it
    reduces axis 0 of a C-contiguous array (no pairwise summation across rows), without the
    cumulative sum's intermediate matrix (``docs/studies/fast_selection.md``)."""
    return K.sum(axis=0)


def _chain_spectra(roots, parent, slot, k, rtol, max_steps, warm, has_warm, out):
    """Leading eigenvalues (Lanczos) along the grid; ``roots[slot[g]]`` holds exp(-gamma_g D2) for
    chain roots and is squared in place for the other widths.  ``warm[g]`` (if ``has_warm[g]``)
    starts Lanczos at width ``g``; on return it holds the new Ritz vector and ``has_warm`` is set.
    A loop over a few dozen widths: the work is in :func:`_lanczos_top`."""
    ritz = np.zeros(roots.shape[1])
    for g in range(parent.size):
        K = roots[slot[g]]
        if parent[g] >= 0:
            np.multiply(K, K, out=K)
        if has_warm[g]:
            v0 = warm[g]
        elif g > 0 and has_warm[g - 1]:
            v0 = warm[g - 1]
        else:  # deterministic cold start: one power step from the constant vector
            v0 = _row_sums_in_order(K)
        out[g, :k] = _lanczos_top(K, k, v0, rtol, max_steps, ritz)
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
