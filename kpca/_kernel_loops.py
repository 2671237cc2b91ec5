"""The compiled (Numba) loops behind :mod:`kpca.kernels`: squared distances, the RBF kernel,
a vectorisable exp and kernel centring.

Each loop is compiled on its first call and cached on disk (``cache=True``); the loops with a
``numba.prange`` outer loop are compiled as a serial and a parallel twin
(:class:`_SerialOrParallel`), the parallel one only for problems of at least
:data:`SERIAL_MAX_ENTRIES` output entries; the element-wise ones (the Gram route's distances,
the centring) run in NumPy below that size, the same operations in the same order
(:meth:`_SerialOrParallel.parallel_only`: nothing to compile on a first run of the small
problems). The checked Python API is :mod:`kpca.kernels`; every loop has a plain NumPy twin in
the tests (``tests/kpca/kernel_references.py``).
"""

from __future__ import annotations

import types

import numba
import numpy as np

#: Below this many output entries the compiled kernels run their serial version. Numba's thread
#: pool and OpenBLAS's then contend for the same cores around every BLAS call: on 2 cores,
#: KernelPCA fit+transform at N = 500 took 52 ms with parallel kernels and 15 ms serial
#: (scikit-learn 32 ms); from N ~ 1000 on, parallel kernels win.
SERIAL_MAX_ENTRIES = 1_000_000


class _SerialOrParallel:
    """One loop (``numba.prange`` for its outer loop) compiled twice, each version on its first
    call and cached on disk: serial and GIL-free for problems below :data:`SERIAL_MAX_ENTRIES`
    output entries, parallel above. The two give the same numbers (each output entry is
    computed by the same code). A parallel loop costs several times a serial one to compile,
    and small problems never need it (``docs/studies/first_run.md``)."""

    def __init__(self, func):
        twin = types.FunctionType(func.__code__, func.__globals__, func.__name__ + "_parallel",
                                  func.__defaults__, func.__closure__)
        twin.__qualname__ = func.__qualname__ + "_parallel"  # its own on-disk cache files
        self.serial = numba.njit(cache=True, nogil=True)(func)
        self.parallel = numba.njit(parallel=True, cache=True)(twin)

    @classmethod
    def parallel_only(cls, numpy_twin):
        """Decorator: the loop compiled as its parallel twin only; below
        :data:`SERIAL_MAX_ENTRIES` entries ``numpy_twin`` (the same numbers, in NumPy) runs
        instead of a compiled serial loop, which the first run would have to compile for
        problems where NumPy is about as fast (``docs/studies/first_run.md``)."""
        def wrap(func):
            loop = cls(func)
            loop.serial = numpy_twin
            return loop
        return wrap

    def for_size(self, entries: int):
        """The version for a problem of ``entries`` output entries."""
        return self.parallel if entries >= SERIAL_MAX_ENTRIES else self.serial


# --------------------------------------------------------------------------- #
# Squared Euclidean distances
# --------------------------------------------------------------------------- #
def _row_norms(X):
    """``sum_k X[:, k]^2``, summed over the features in order (as the compiled loops sum)."""
    xx = X[:, 0] * X[:, 0]
    for k in range(1, X.shape[1]):
        xx += X[:, k] * X[:, k]
    return xx


def _sqdist_cross_numpy(X, Y, out):
    """:func:`_sqdist_cross` in NumPy: the same operations in the same order."""
    out += _row_norms(X)[:, None]
    out += _row_norms(Y)
    np.maximum(out, 0.0, out=out)


@_SerialOrParallel.parallel_only(_sqdist_cross_numpy)
def _sqdist_cross(X, Y, out):  # pragma: no cover - compiled
    n, d = X.shape
    m = Y.shape[0]
    xx = np.empty(n)
    yy = np.empty(m)
    for i in range(n):
        s = 0.0
        for k in range(d):
            s += X[i, k] * X[i, k]
        xx[i] = s
    for j in range(m):
        s = 0.0
        for k in range(d):
            s += Y[j, k] * Y[j, k]
        yy[j] = s
    # out already holds -2 X Y^T (from BLAS); add the norms and clip at zero.
    for i in numba.prange(n):
        for j in range(m):
            v = out[i, j] + xx[i] + yy[j]
            out[i, j] = v if v > 0.0 else 0.0


@_SerialOrParallel
def _sqdist_self_exact(X, out):  # pragma: no cover - compiled
    # Direct differences: exact to rounding, used for small d where the
    # Gram-matrix trick loses relative precision for nearby points.
    n, d = X.shape
    for i in numba.prange(n):
        out[i, i] = 0.0
        for j in range(i + 1, n):
            s = 0.0
            for k in range(d):
                t = X[i, k] - X[j, k]
                s += t * t
            out[i, j] = s
            out[j, i] = s


@numba.njit(cache=True, nogil=True)
def _sqdist_row(x, YT, d2):  # pragma: no cover - compiled
    """``d2[j] = sum_k (x[k] - YT[k, j])^2``, the features added in order for every ``j``."""
    d2[:] = 0.0
    for k in range(YT.shape[0]):
        xk = x[k]
        for j in range(YT.shape[1]):
            t = xk - YT[k, j]
            d2[j] += t * t


@_SerialOrParallel
def _sqdist_cross_exact(X, YT, out):  # pragma: no cover - compiled
    # Each entry summed over the features in order, as ``_sqdist_self_exact``, but vectorised
    # along the row (``YT`` is ``Y`` transposed): the same numbers. Scalar loops only (no call
    # of ``_sqdist_row``, whose slice assignment would be compiled into this loop as well).
    d, m = YT.shape
    for i in numba.prange(X.shape[0]):
        for j in range(m):
            out[i, j] = 0.0
        for k in range(d):
            xk = X[i, k]
            for j in range(m):
                t = xk - YT[k, j]
                out[i, j] += t * t


# --------------------------------------------------------------------------- #
# A vectorisable exp
# --------------------------------------------------------------------------- #
# NumPy's and LLVM's float64 exp are scalar on CPUs without AVX-512 (~9 ns per value);
# this one runs at ~1.5 ns in loops the compiler vectorises
# (docs/design.md#4-kpca-core-decisions).
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # ln 2 split so that k * _LN2_HI is exact for |k| < 2**21
_LN2_LO = 1.90821492927058770002e-10
_ROUND = 6755399441055744.0  # 1.5 * 2**52: x + _ROUND rounds x to an integer held in the low bits
_ROUND_BITS = int(np.array([_ROUND]).view(np.int64)[0])


def _exp_scaled(x, scale, out):
    """``out = exp(scale * x)`` for ``scale * x <= 0`` (positive products are treated as 0;
    below -708 the result is 0), to 1 ulp, in loops the compiler vectorises (no
    re-association, so the rounding trick holds).  ``x``, ``out``: 1-D C-contiguous float64;
    ``out`` must not overlap ``x``.

    Cody-Waite reduction ``y = k ln 2 + r``, ``|r| <= ln 2 / 2``, a degree-13 Taylor polynomial
    for ``exp(r)`` (truncation error ``(ln 2 / 2)^14 / 14! < 1e-17``), and ``2^k`` added to the
    exponent bits (:func:`_exp_scaled_into`; the integer views of the buffers are made here:
    compiled, ``ndarray.view`` took ~0.5 s of its ~1.1 s compile,
    ``docs/studies/first_run.md``).
    """
    t = np.empty(x.size)
    _exp_scaled_into(x, scale, out, out.view(np.int64), t, t.view(np.int64))


@numba.njit(cache=True, nogil=True, fastmath={"contract", "nnan", "ninf", "nsz"})
def _exp_scaled_into(x, scale, out, bits, t, tbits):  # pragma: no cover - compiled
    """:func:`_exp_scaled` with its buffers: ``bits`` is ``out`` and ``tbits`` is ``t`` (float64,
    ``x.size``) viewed as int64."""
    n = x.size
    for i in range(n):
        y = scale * x[i]
        under = y < -708.0
        y = -708.0 if -708.0 > y else y  # max(y, -708.0), min(y, 0.0): no builtin compiled
        y = 0.0 if 0.0 < y else y
        ti = y * _LOG2E + _ROUND
        k = ti - _ROUND
        r = (y - k * _LN2_HI) - k * _LN2_LO
        p = 1.0 + r * (1.0 + r * (1 / 2 + r * (1 / 6 + r * (1 / 24 + r * (1 / 120 + r * (
            1 / 720 + r * (1 / 5040 + r * (1 / 40320 + r * (1 / 362880 + r * (1 / 3628800 + r * (
                1 / 39916800 + r * (1 / 479001600 + r * (1 / 6227020800)))))))))))))
        out[i] = 0.0 if under else p
        t[i] = _ROUND if under else ti  # k = 0 keeps the +0.0 bits
    for i in range(n):
        bits[i] += (tbits[i] - _ROUND_BITS) << 52


# --------------------------------------------------------------------------- #
# RBF kernel
# --------------------------------------------------------------------------- #
# The fused Gram-matrix kernel of a set with itself (d >= 16): distance, clipping and exp in one
# pass over the output (the separate passes, with their temporary matrices, cost more). Only the
# upper triangle is evaluated, each value written to its two places, which halves the exp calls
# and makes the result exactly symmetric with a unit diagonal. Rows are processed in pairs
# (i, n-1-i) so that both threads get the same amount of triangle.
@_SerialOrParallel
def _rbf_self_gram(G, sq, scale):  # pragma: no cover - compiled
    # G holds X X^T on entry; only its upper triangle is read, its lower one only written.
    n = G.shape[0]
    for p in numba.prange((n + 1) // 2):
        q = np.int64(p)  # prange indices are unsigned; keep the arithmetic in int64
        for r in range(2):
            i = q if r == 0 else n - 1 - q
            if r == 1 and i == q:
                break
            G[i, i] = 1.0
            for j in range(i + 1, n):
                v = sq[i] + sq[j] - 2.0 * G[i, j]
                e = np.exp(-(v if v > 0.0 else 0.0) * scale)
                G[i, j] = e
                G[j, i] = e


# Direct-difference kernels (d < 16): each row's squared distances are summed over the
# features in order along the row (``_sqdist_row``, ``YT`` is ``Y`` transposed), then
# exponentiated by ``_exp_scaled_into``. Rows go to the threads in chunks of ``_ROW_CHUNK`` so
# that the row buffers are allocated once per chunk.
_ROW_CHUNK = 16


@_SerialOrParallel
def _rbf_rows_exact(X, YT, scale, K):  # pragma: no cover - compiled
    n = X.shape[0]
    for c in numba.prange((n + _ROW_CHUNK - 1) // _ROW_CHUNK):
        d2 = np.empty(YT.shape[1])
        t = np.empty(YT.shape[1])
        tbits = t.view(np.int64)
        for i in range(c * _ROW_CHUNK, min((c + 1) * _ROW_CHUNK, n)):
            _sqdist_row(X[i], YT, d2)
            _exp_scaled_into(d2, -scale, K[i], K[i].view(np.int64), t, tbits)


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract", "nsz"})
def _row_times_columns(row, CT, out):  # pragma: no cover - compiled
    # out[c] = row . CT[c]; re-association lets the compiler vectorise the sums.
    for c in range(CT.shape[0]):
        s = 0.0
        for j in range(row.size):
            s += row[j] * CT[c, j]
        out[c] = s


@_SerialOrParallel
def _rbf_project_exact(X, YT, scale, CT, out):  # pragma: no cover - compiled
    n = X.shape[0]
    for c in numba.prange((n + _ROW_CHUNK - 1) // _ROW_CHUNK):
        d2 = np.empty(YT.shape[1])
        row = np.empty(YT.shape[1])
        rowbits = row.view(np.int64)
        t = np.empty(YT.shape[1])
        tbits = t.view(np.int64)
        for i in range(c * _ROW_CHUNK, min((c + 1) * _ROW_CHUNK, n)):
            _sqdist_row(X[i], YT, d2)
            _exp_scaled_into(d2, -scale, row, rowbits, t, tbits)
            _row_times_columns(row, CT, out[i])


# --------------------------------------------------------------------------- #
# Centering
# --------------------------------------------------------------------------- #
def _center_inplace_numpy(K, col_mean, row_mean, total):
    """:func:`_center_inplace` in NumPy: the same operations in the same order."""
    K -= row_mean[:, None]
    K -= col_mean
    K += total


@_SerialOrParallel.parallel_only(_center_inplace_numpy)
def _center_inplace(K, col_mean, row_mean, total):  # pragma: no cover - compiled
    n, m = K.shape
    for i in numba.prange(n):
        for j in range(m):
            K[i, j] = K[i, j] - row_mean[i] - col_mean[j] + total
