"""Leading eigenvalues of the centred kernels along a grid of widths, compiled whole.

The Lanczos iteration behind :class:`~kpca.selection._spectrum.SpectrumPlan` (the MDD and kPA
criteria's noise and data spectra): full re-orthogonalisation, the centring ``H = I - 1 1^T / n``
applied implicitly (``H K H v = H K v`` for centred ``v``), each width started from the Ritz
vector of the previous one (warm start), the top ``k`` Ritz values checked at step ``k`` and
then every ``max(2, k // 3)`` steps (every step for ``k <= 2``) and accepted once each is within
``rtol * |theta_1|`` of an eigenvalue (by its residual ``|beta_j s_j|``, or residual² / gap when
the gap to the other Ritz values exceeds the residual; Parlett 1998, §11.5 and Theorem 11.7.1).

Everything is compiled (:func:`chain_spectra`, GIL-free), from the squaring along the grid to the
eigenproblem of the small tridiagonal (:func:`tridiagonal_ql`, the implicit QL iteration of
EISPACK's ``tql2``), and uses scalar loops only: no BLAS or LAPACK wrapper and no array
expression, which made the first compiled Lanczos slow to compile (``docs/studies/first_run.md``).
The driver was NumPy around compiled steps until the seventh round of
``docs/studies/fast_selection.md``: its per-step Python (LAPACK ``dstev`` through SciPy, the
convergence test, the Ritz vector) cost about as much as the steps themselves on the default's
361-point matrices.  The values are those of that driver to within the tolerance (another
tridiagonal solver rounds differently, and the warm starts carry it along the grid).

References
----------
.. [1] B. N. Parlett, *The Symmetric Eigenvalue Problem*, SIAM, 1998. Ch. 13 (Lanczos with full
   re-orthogonalisation), §11.5 and Theorem 11.7.1 (the residual and gap bounds of Ritz values).
.. [2] B. T. Smith et al., *Matrix Eigensystem Routines - EISPACK Guide*, 2nd ed., Springer, 1976:
   ``tql2``, the implicit QL iteration on a symmetric tridiagonal matrix.
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = ["RESTART_PHASE", "chain_spectra", "lanczos_workspace", "tridiagonal_ql"]

#: increment of the phases ``sin(1 + (j + 2) RESTART_PHASE i)`` of a restart direction
RESTART_PHASE = 0.7548776662
#: a ``beta`` at or below this (absolute, or relative to ``|alpha|`` or ``theta_1``) ends the
#: Krylov space: converged, or restarted with a new direction
TINY = 1e-14


def lanczos_workspace(n, max_steps):
    """Buffers of :func:`chain_spectra` for matrices of size ``n``: ``(V, alpha, beta, Z, d, e,
    ritz, v0)`` with ``m = min(max_steps, n - 1)`` steps at most."""
    m = max(min(int(max_steps), n - 1), 1)
    return (np.empty((m + 1, n)), np.zeros(m), np.zeros(m), np.empty((m, m)), np.empty(m),
            np.empty(m), np.empty(n), np.empty(n))


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _lanczos_steps(K, V, alpha, beta, j0, j1):  # pragma: no cover - compiled
    """Lanczos steps ``j0 .. j1 - 1`` on ``H K H`` (rows ``V[0..j0]`` orthonormal and centred on
    entry); returns the number of steps done.  Step ``j`` writes ``alpha[j]``, ``beta[j]`` and
    the new direction ``w`` (centred, re-orthogonalised against ``V[0..j]`` twice) into
    ``V[j + 1]``, normalised except after the last step and after a step whose ``beta[j]`` is
    below ``TINY`` or ``TINY |alpha[j]|`` (the caller checks convergence or restarts there).
    ``reassoc`` lets the compiler vectorise the dot products."""
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
        _reorthogonalise(w, V, j + 1)
        b = 0.0
        for i in range(n):
            b += w[i] * w[i]
        b = math.sqrt(b)
        beta[j] = b
        size = abs(a)
        if j + 1 == j1 or b <= TINY or b <= TINY * (1e-300 if 1e-300 > size else size):
            return j + 1
        inv_b = 1.0 / b
        for i in range(n):
            w[i] *= inv_b
    return j1


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _reorthogonalise(w, V, rows):  # pragma: no cover - compiled
    """``w`` minus its projections on the orthonormal rows ``V[:rows]``, twice (one row after
    the other: "twice is enough")."""
    n = w.size
    for _rep in range(2):
        for r in range(rows):
            c = 0.0
            for i in range(n):
                c += w[i] * V[r, i]
            for i in range(n):
                w[i] -= c * V[r, i]


@numba.njit(cache=True, nogil=True)
def tridiagonal_ql(alpha, beta, steps, d, e, Z):  # pragma: no cover - compiled
    """Eigenvalues ``d[:steps]`` (ascending) and eigenvectors (the columns of
    ``Z[:steps, :steps]``) of the symmetric tridiagonal with diagonal ``alpha[:steps]`` and
    off-diagonal ``beta[:steps - 1]``, by the implicit QL iteration with Wilkinson-like shifts
    (EISPACK ``tql2``, as in JAMA).  Returns ``False`` if an eigenvalue took more than 60
    iterations (then ``d`` and ``Z`` are not an eigendecomposition).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.selection._lanczos_chain import tridiagonal_ql
    >>> d, e, Z = np.empty(2), np.empty(2), np.empty((2, 2))
    >>> tridiagonal_ql(np.array([2.0, 2.0]), np.array([1.0, 0.0]), 2, d, e, Z)
    True
    >>> d.round(12).tolist()
    [1.0, 3.0]
    """
    n = steps
    for i in range(n):
        d[i] = alpha[i]
        e[i] = beta[i] if i + 1 < n else 0.0
        for j in range(n):
            Z[i, j] = 1.0 if i == j else 0.0
    f = 0.0
    tst1 = 0.0
    eps = 2.0**-52
    for lo in range(n):
        tst1 = max(tst1, abs(d[lo]) + abs(e[lo]))
        m = lo
        while m < n - 1 and abs(e[m]) > eps * tst1:
            m += 1
        it = 0
        while m > lo:
            it += 1
            if it > 60:
                return False
            f += _ql_sweep(d, e, Z, lo, m, n)
            if abs(e[lo]) <= eps * tst1:
                break
        d[lo] += f
        e[lo] = 0.0
    for i in range(n - 1):  # sort ascending, the eigenvectors with the values
        k = i
        for j in range(i + 1, n):
            if d[j] < d[k]:
                k = j
        if k != i:
            d[k], d[i] = d[i], d[k]
            for j in range(n):
                Z[j, i], Z[j, k] = Z[j, k], Z[j, i]
    return True


@numba.njit(cache=True, nogil=True)
def _ql_sweep(d, e, Z, lo, m, n):  # pragma: no cover - compiled
    """One implicit QL step on the block ``lo..m`` (``tql2``'s inner loop); returns the shift
    taken out of ``d[lo:]`` (the caller adds it back to the converged values)."""
    g = d[lo]
    p = (d[lo + 1] - g) / (2.0 * e[lo])
    r = math.hypot(p, 1.0)
    if p < 0:
        r = -r
    d[lo] = e[lo] / (p + r)
    d[lo + 1] = e[lo] * (p + r)
    dl1 = d[lo + 1]
    h = g - d[lo]
    for i in range(lo + 2, n):
        d[i] -= h
    p = d[m]
    c = c2 = c3 = 1.0
    el1 = e[lo + 1]
    s = s2 = 0.0
    for i in range(m - 1, lo - 1, -1):
        c3, c2, s2 = c2, c, s
        g = c * e[i]
        hh = c * p
        r = math.hypot(p, e[i])
        e[i + 1] = s * r
        s = e[i] / r
        c = p / r
        p = c * d[i] - s * g
        d[i + 1] = hh + s * (c * g + s * d[i])
        for k in range(n):
            zk = Z[k, i + 1]
            Z[k, i + 1] = s * Z[k, i] + c * zk
            Z[k, i] = c * Z[k, i] - s * zk
    p = -s * s2 * c3 * el1 * e[lo] / dl1
    e[lo] = s * p
    d[lo] = c * p
    return h


@numba.njit(cache=True, nogil=True)
def top_converged(d, Z, steps, b, k, rtol, scale):  # pragma: no cover - compiled
    """Whether the ``k`` largest Ritz values (``d[:steps]`` ascending, eigenvectors in the
    columns of ``Z``) are within ``rtol * scale`` of eigenvalues: each one's error is at most
    its residual ``r = |b s|`` (``s`` the last entry of its eigenvector of the tridiagonal)
    and, when its gap to the other Ritz values exceeds ``r``, at most ``r^2 / gap``."""
    for u in range(steps - 1, steps - 1 - k, -1):
        r = abs(b * Z[steps - 1, u])
        err = r
        if steps > 1:  # sorted: the nearest other Ritz value is a neighbour
            gap = math.inf
            if u > 0:
                gap = d[u] - d[u - 1]
            if u + 1 < steps:
                gap = min(gap, d[u + 1] - d[u])
            if gap > r:
                err = min(r, r * r / gap)
        if err > rtol * scale:
            return False
    return True


@numba.njit(cache=True, nogil=True)
def _start_into(v0, v):  # pragma: no cover - compiled
    """``v`` = ``v0`` centred and normalised (a fixed centred direction if ``v0`` is constant)."""
    n = v0.size
    mean = 0.0
    for i in range(n):
        mean += v0[i]
    mean /= n
    nv = 0.0
    for i in range(n):
        v[i] = v0[i] - mean
        nv += v[i] * v[i]
    if nv == 0.0:
        _sin_direction(v, 1.0, 1.0)
        nv = 0.0
        for i in range(n):
            nv += v[i] * v[i]
    inv = 1.0 / math.sqrt(nv)
    for i in range(n):
        v[i] *= inv


@numba.njit(cache=True, nogil=True)
def _sin_direction(w, offset, step):  # pragma: no cover - compiled
    """``w[i] = sin(offset + step * i)``, centred."""
    n = w.size
    mean = 0.0
    for i in range(n):
        w[i] = math.sin(offset + step * i)
        mean += w[i]
    mean /= n
    for i in range(n):
        w[i] -= mean


@numba.njit(cache=True, nogil=True)
def lanczos_top(K, k, v0, rtol, V, alpha, beta, Z, d, e, ritz, vals):  # pragma: no cover - compiled
    """Top ``k`` eigenvalues of ``H K H`` into ``vals`` (descending) from the start ``v0``;
    the sum of their Ritz vectors into ``ritz`` (the next warm start).  ``V`` to ``ritz``: the
    buffers of :func:`lanczos_workspace`.  The Ritz values are checked at step ``k`` and then
    every step for ``k <= 2``, every ``max(2, k // 3)`` steps beyond (checking too early risks
    accepting a value by its gap to the Ritz values found so far, before a nearby eigenvalue
    has appeared)."""
    m = alpha.size
    every = 1 if k <= 2 else max(2, k // 3)
    _start_into(v0, V[0])
    done = m - m  # an int64, not the literal 0: one compiled signature of the steps
    while done < m:
        steps = _lanczos_steps(K, V, alpha, beta, done, done + 1)
        j = steps - 1
        b = beta[j]
        if steps >= k and ((steps - k) % every == 0 or b <= TINY or steps == m):
            if not tridiagonal_ql(alpha, beta, steps, d, e, Z):
                d[steps - 1] = np.nan  # (never seen) NaN values, not a wrong answer
            scale = max(abs(d[steps - 1]), 1e-300)
            if top_converged(d, Z, steps, b, k, rtol, scale) or b <= TINY * scale or steps == m:
                for q in range(V.shape[1]):  # the sum of the top-k Ritz vectors
                    ritz[q] = 0.0
                for i in range(steps):
                    c = 0.0
                    for u in range(steps - k, steps):
                        c += Z[i, u]
                    for q in range(V.shape[1]):
                        ritz[q] += c * V[i, q]
                for t in range(k):
                    vals[t] = d[steps - 1 - t]
                return
        if b <= TINY * max(abs(alpha[j]), 1e-300):
            # invariant subspace found before k values converged: restart with a new centred
            # direction orthogonal to the basis (beta[j] = 0 decouples the tridiagonal blocks)
            beta[j] = 0.0
            w = V[steps]
            _sin_direction(w, 1.0 + (j + 2) * RESTART_PHASE, (j + 2) * RESTART_PHASE)
            _reorthogonalise(w, V, steps)
            b = 0.0
            for i in range(w.size):
                b += w[i] * w[i]
            b = math.sqrt(b)
            if b == 0.0:
                break
        inv_b = 1.0 / b
        for i in range(V.shape[1]):
            V[steps, i] *= inv_b
        done = steps
    for t in range(k):
        vals[t] = 0.0


@numba.njit(cache=True, nogil=True)
def chain_spectra(roots, parent, slot, k, rtol, warm, has_warm, out, V, alpha, beta, Z, d, e,
                  ritz, v0):  # pragma: no cover - compiled
    """Leading ``k`` eigenvalues along the grid into ``out[g, :k]``; ``roots[slot[g]]`` holds
    ``exp(-gamma_g D2)`` for chain roots and is squared in place for the other widths.
    ``warm[g]`` (if ``has_warm[g]``) starts Lanczos at width ``g``, else the previous width's
    Ritz vector, else the kernel's row sums (one power step from the constant vector); on
    return ``warm[g]`` holds the new Ritz vector and ``has_warm[g]`` is set."""
    n = roots.shape[1]
    for g in range(parent.size):
        K = roots[slot[g]]
        if parent[g] >= 0:
            for i in range(n):
                for q in range(n):
                    K[i, q] = K[i, q] * K[i, q]
        start = g if has_warm[g] else g - 1 if g > 0 and has_warm[g - 1] else -1
        for q in range(n):
            v0[q] = warm[start, q] if start >= 0 else 0.0
        if start < 0:  # row sums = column sums (symmetric), added row after row
            for i in range(n):
                for q in range(n):
                    v0[q] += K[i, q]
        lanczos_top(K, k, v0, rtol, V, alpha, beta, Z, d, e, ritz, out[g])
        for q in range(n):
            warm[g, q] = ritz[q]
        has_warm[g] = True
