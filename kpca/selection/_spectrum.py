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

The Lanczos iteration is compiled whole, in scalar loops only, GIL-free
(:mod:`kpca.selection._lanczos_chain`: the steps, the QL eigensolve of the small tridiagonal at
each convergence check, the convergence test and the Ritz vectors).  Compiling the BLAS and
LAPACK wrappers inside the iteration cost ~8 s CPU on a first run
(``docs/studies/first_run.md``); a NumPy driver around the compiled steps cost about as much as
the steps (``docs/studies/fast_selection.md``, seventh round).  The full-spectrum path stays
compiled: LAPACK inside compiled code releases the GIL, so independent matrices run in threads.
"""

from __future__ import annotations

import numba
import numpy as np

from kpca._kernel_loops import _exp_scaled
from kpca.selection._lanczos_chain import chain_spectra, lanczos_workspace

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
    compiled pass that writes each packed value to its two places (:func:`_unpack_rows`; about
    half the time of NumPy's masked assignments, ``docs/studies/fast_selection.md``)."""
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
        the reusable ``(n_roots, n, n)`` kernel buffer (no 8 n^2-byte allocation per width chain);
        the fourth item is the Lanczos workspace
        (:func:`~kpca.selection._lanczos_chain.lanczos_workspace`).
        """
        return (np.zeros((self.gammas.size, self.n)), np.zeros(self.gammas.size, dtype=np.bool_),
                np.empty((self.root_index.size, self.n, self.n)),
                None if self.full else lanczos_workspace(self.n, self.max_steps))

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
            chain_spectra(roots, self.parent, self.slot, self.k_eff, self.rtol, warm[0],
                          warm[1], out, *warm[3])
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
