"""Squared distances, the RBF kernel and kernel centering.

Kernel-width convention
-----------------------
Throughout ``kpca`` the RBF kernel is parametrised by ``sigma2`` exactly as in
Varon, Alzate & Suykens (2015), Eq. (12)::

    k(x, y) = exp(-||x - y||^2 / (2 * sigma2))

Mappings to other libraries:

* LS-SVMlab's ``RBF_kernel`` uses ``exp(-||x - y||^2 / sig2)``, so
  ``sig2_lssvmlab = 2 * sigma2``.
* scikit-learn's ``rbf_kernel`` / ``KernelPCA(kernel="rbf", gamma=...)`` uses
  ``exp(-gamma ||x - y||^2)``, so ``gamma = 1 / (2 * sigma2)``.

Every compiled (Numba) function here has a plain NumPy twin in the tests
(``tests/kpca/kernel_references.py``); the tests check the two against each other.
"""

from __future__ import annotations

import types

import numba
import numpy as np
from numpy.typing import ArrayLike

from kpca._validation import check_sigma2

__all__ = [
    "squared_distances",
    "rbf_from_squared_distances",
    "rbf_kernel",
    "rbf_project",
    "center_kernel",
    "center_test_kernel",
    "sigma2_to_gamma",
    "gamma_to_sigma2",
    "check_sigma2",
]



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

    def for_size(self, entries: int):
        """The version for a problem of ``entries`` output entries."""
        return self.parallel if entries >= SERIAL_MAX_ENTRIES else self.serial


def sigma2_to_gamma(sigma2: float) -> float:
    """scikit-learn's ``gamma`` for a kernel width ``sigma2`` (``gamma = 1/(2 sigma2)``).

    See Also
    --------
    gamma_to_sigma2 : the inverse.
    rbf_kernel : the kernel of width ``sigma2``.

    Examples
    --------
    >>> from kpca.kernels import sigma2_to_gamma
    >>> sigma2_to_gamma(0.5)
    1.0
    """
    return 1.0 / (2.0 * float(sigma2))


def gamma_to_sigma2(gamma: float) -> float:
    """Kernel width ``sigma2`` for scikit-learn's ``gamma`` (``sigma2 = 1/(2 gamma)``).

    See Also
    --------
    sigma2_to_gamma : the inverse.

    Examples
    --------
    >>> from kpca.kernels import gamma_to_sigma2
    >>> gamma_to_sigma2(0.25)
    2.0
    """
    return 1.0 / (2.0 * float(gamma))


# --------------------------------------------------------------------------- #
# Squared Euclidean distances
# --------------------------------------------------------------------------- #
@_SerialOrParallel
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


@_SerialOrParallel
def _sqdist_cross_exact(X, Y, out):  # pragma: no cover - compiled
    n, d = X.shape
    m = Y.shape[0]
    for i in numba.prange(n):
        for j in range(m):
            s = 0.0
            for k in range(d):
                t = X[i, k] - Y[j, k]
                s += t * t
            out[i, j] = s


# Above this feature count the BLAS Gram-matrix route is faster than direct
# differences; below it the direct loop is both faster and exact.
_GRAM_MIN_FEATURES = 16


def _as_2d_float(X, name):
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (n_samples, n_features); got ndim={X.ndim}")
    return np.ascontiguousarray(X)


def squared_distances(X: ArrayLike, Y: ArrayLike | None = None) -> np.ndarray:
    """Pairwise squared Euclidean distances ``||x_i - y_j||^2``.

    Parameters
    ----------
    X : array_like, shape (n, d)
    Y : array_like, shape (m, d), optional
        Defaults to ``X``; then the result is exactly symmetric with a zero
        diagonal.

    Returns
    -------
    ndarray, shape (n, m)
        Non-negative squared distances.

    Notes
    -----
    For ``d < 16`` the distances are summed directly (exact); for larger ``d``
    the Gram-matrix identity ``|x|^2 + |y|^2 - 2 x.y`` is used with a BLAS
    product and clipped at zero. Compiled with Numba.

    See Also
    --------
    rbf_kernel : the kernel of these distances.
    rbf_from_squared_distances : the kernel of given distances.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.kernels import squared_distances
    >>> squared_distances(np.array([[0.0, 0.0], [3.0, 4.0]]))
    array([[ 0., 25.],
           [25.,  0.]])
    """
    X = _as_2d_float(X, "X")
    same = Y is None
    Y = X if same else _as_2d_float(Y, "Y")
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"X and Y must have the same number of features; got {X.shape[1]} and {Y.shape[1]}"
        )
    n, d = X.shape
    out = np.empty((n, Y.shape[0]))
    if d < _GRAM_MIN_FEATURES:
        if same:
            _sqdist_self_exact.for_size(out.size)(X, out)
        else:
            _sqdist_cross_exact.for_size(out.size)(X, Y, out)
        return out
    np.matmul(X, Y.T, out=out)
    out *= -2.0
    _sqdist_cross.for_size(out.size)(X, Y, out)
    if same:
        # Symmetrise and zero the diagonal exactly.
        out = 0.5 * (out + out.T)
        np.fill_diagonal(out, 0.0)
    return out


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


@numba.njit(cache=True, nogil=True, fastmath={"contract", "nnan", "ninf", "nsz"})
def _exp_scaled(x, scale, out):  # pragma: no cover - compiled
    """``out = exp(scale * x)`` for ``scale * x <= 0`` (positive products are treated as 0;
    below -708 the result is 0), to 1 ulp, in loops the compiler vectorises (no
    re-association, so the rounding trick holds).  ``out`` must not overlap ``x``.

    Cody-Waite reduction ``y = k ln 2 + r``, ``|r| <= ln 2 / 2``, a degree-13 Taylor polynomial
    for ``exp(r)`` (truncation error ``(ln 2 / 2)^14 / 14! < 1e-17``), and ``2^k`` added to the
    exponent bits.
    """
    n = x.size
    t = np.empty(n)
    for i in range(n):
        y = scale * x[i]
        under = y < -708.0
        y = min(max(y, -708.0), 0.0)
        ti = y * _LOG2E + _ROUND
        k = ti - _ROUND
        r = (y - k * _LN2_HI) - k * _LN2_LO
        p = 1.0 + r * (1.0 + r * (1 / 2 + r * (1 / 6 + r * (1 / 24 + r * (1 / 120 + r * (
            1 / 720 + r * (1 / 5040 + r * (1 / 40320 + r * (1 / 362880 + r * (1 / 3628800 + r * (
                1 / 39916800 + r * (1 / 479001600 + r * (1 / 6227020800)))))))))))))
        out[i] = 0.0 if under else p
        t[i] = _ROUND if under else ti  # k = 0 keeps the +0.0 bits
    bits = out.view(np.int64)
    tbits = t.view(np.int64)
    for i in range(n):
        bits[i] += (tbits[i] - _ROUND_BITS) << 52


# --------------------------------------------------------------------------- #
# RBF kernel
# --------------------------------------------------------------------------- #
@_SerialOrParallel
def _exp_scaled_inplace(D2, scale):  # pragma: no cover - compiled
    n, m = D2.shape
    for i in numba.prange(n):
        for j in range(m):
            D2[i, j] = np.exp(-D2[i, j] * scale)


def rbf_from_squared_distances(D2: ArrayLike, sigma2: float, *,
                               copy: bool = True) -> np.ndarray:
    """RBF kernel ``exp(-D2 / (2 sigma2))`` from precomputed squared distances.

    Parameters
    ----------
    D2 : ndarray, shape (n, m)
        Squared distances.
    sigma2 : float
        Kernel width (Varon et al. 2015, Eq. (12)).
    copy : bool
        If False and ``D2`` is a C-contiguous float64 array, overwrite it.

    Returns
    -------
    ndarray, shape (n, m)

    See Also
    --------
    squared_distances : the distances.
    rbf_kernel : distances and kernel in one pass.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Eq.
       (12): the RBF kernel of a distance matrix (there the noise distances ``r_hat``).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.kernels import rbf_from_squared_distances
    >>> rbf_from_squared_distances(np.array([[0.0, 2.0]]), 1.0)  # exp(-2 / 2)
    array([[1.        , 0.36787944]])
    """
    s = check_sigma2(sigma2)
    D2 = np.asarray(D2, dtype=np.float64)
    K = np.array(D2, order="C", copy=True) if copy or not D2.flags.c_contiguous else D2
    _exp_scaled_inplace.for_size(K.size)(K, 1.0 / (2.0 * s))
    return K


# Fused Gram-matrix kernels (d >= 16): distance, clipping and exp in one pass over the output
# (the separate passes dominated the build time; benchmarks/bench_kpca.py). For the symmetric
# case only the upper triangle is evaluated and then mirrored, which halves the exp calls and
# makes the result exactly symmetric with a unit diagonal. Rows are processed in pairs
# (i, n-1-i) so that both threads get the same amount of triangle.
_MIRROR_TILE = 64


@_SerialOrParallel
def _mirror_upper(K):  # pragma: no cover - compiled
    n = K.shape[0]
    nb = (n + _MIRROR_TILE - 1) // _MIRROR_TILE
    for bi in numba.prange(nb):
        i0 = bi * _MIRROR_TILE
        i1 = min(i0 + _MIRROR_TILE, n)
        for bj in range(bi + 1):
            j0 = bj * _MIRROR_TILE
            for i in range(i0, i1):
                for j in range(j0, min(j0 + _MIRROR_TILE, i)):
                    K[i, j] = K[j, i]


@_SerialOrParallel
def _rbf_self_gram(G, sq, scale):  # pragma: no cover - compiled
    # G holds X X^T on entry; the upper triangle becomes the kernel.
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
                G[i, j] = np.exp(-(v if v > 0.0 else 0.0) * scale)


@_SerialOrParallel
def _rbf_cross_gram(G, xx, yy, scale):  # pragma: no cover - compiled
    # G holds X Y^T on entry.
    n, m = G.shape
    for i in numba.prange(n):
        for j in range(m):
            v = xx[i] + yy[j] - 2.0 * G[i, j]
            G[i, j] = np.exp(-(v if v > 0.0 else 0.0) * scale)


# Direct-difference kernels (d < 16): each row's squared distances are summed over the
# features in the same order as in ``_sqdist_cross_exact`` but vectorised along the row (``YT``
# is ``Y`` transposed), then exponentiated by ``_exp_scaled``. Rows go to the threads in chunks
# of ``_ROW_CHUNK`` so that the row buffers are allocated once per chunk.
_ROW_CHUNK = 16


@numba.njit(cache=True, nogil=True)
def _sqdist_row(x, YT, d2):  # pragma: no cover - compiled
    d2[:] = 0.0
    for k in range(YT.shape[0]):
        xk = x[k]
        for j in range(YT.shape[1]):
            t = xk - YT[k, j]
            d2[j] += t * t


@_SerialOrParallel
def _rbf_rows_exact(X, YT, scale, K):  # pragma: no cover - compiled
    n = X.shape[0]
    for c in numba.prange((n + _ROW_CHUNK - 1) // _ROW_CHUNK):
        d2 = np.empty(YT.shape[1])
        for i in range(c * _ROW_CHUNK, min((c + 1) * _ROW_CHUNK, n)):
            _sqdist_row(X[i], YT, d2)
            _exp_scaled(d2, -scale, K[i])


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
        for i in range(c * _ROW_CHUNK, min((c + 1) * _ROW_CHUNK, n)):
            _sqdist_row(X[i], YT, d2)
            _exp_scaled(d2, -scale, row)
            _row_times_columns(row, CT, out[i])


def rbf_kernel(X: ArrayLike, Y: ArrayLike | None = None, *, sigma2: float) -> np.ndarray:
    """RBF kernel matrix ``k(x, y) = exp(-||x - y||^2 / (2 sigma2))``.

    Parameters
    ----------
    X : array_like, shape (n, d)
    Y : array_like, shape (m, d), optional
        Defaults to ``X``; then the result is exactly symmetric with a unit
        diagonal.
    sigma2 : float
        Kernel width, Eq. (12) of Varon et al. (2015). ``gamma = 1/(2 sigma2)``
        in scikit-learn terms; LS-SVMlab's ``sig2`` is ``2 sigma2``.

    Returns
    -------
    ndarray, shape (n, m)

    Notes
    -----
    Distances are formed as in :func:`squared_distances` (direct sums for
    ``d < 16``, BLAS Gram matrix otherwise) and exponentiated in the same
    compiled pass. For ``d < 16`` the exponential is a vectorised one accurate
    to 1 ulp (``_exp_scaled``) and every row is computed in full (the distances
    are exactly symmetric); for ``d >= 16`` with ``Y=None`` only the upper
    triangle is computed and mirrored.

    See Also
    --------
    squared_distances : the distances.
    rbf_project : the kernel times coefficients, never stored.
    center_kernel : the centred kernel.
    sigma2_to_gamma : scikit-learn's ``gamma``.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Eq.
       (12): ``exp(-r^2 / (2 sigma^2))``, the width ``sigma2`` of the whole package.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.kernels import rbf_kernel
    >>> K = rbf_kernel(np.array([[0.0], [1.0]]), sigma2=0.5)
    >>> bool(np.allclose(K, [[1.0, np.exp(-1.0)], [np.exp(-1.0), 1.0]]))
    True
    """
    scale = 1.0 / (2.0 * check_sigma2(sigma2))
    X = _as_2d_float(X, "X")
    same = Y is None
    Y = X if same else _as_2d_float(Y, "Y")
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"X and Y must have the same number of features; got {X.shape[1]} and {Y.shape[1]}"
        )
    return _rbf(X, None if same else Y, scale)


def _rbf(X: np.ndarray, Y: np.ndarray | None, scale: float) -> np.ndarray:
    """:func:`rbf_kernel` of checked C-contiguous float arrays, ``scale = 1 / (2 sigma2)``."""
    gram = X.shape[1] >= _GRAM_MIN_FEATURES
    entries = X.shape[0] * (X.shape[0] if Y is None else Y.shape[0])
    if Y is None:
        if gram:
            K = X @ X.T
            _rbf_self_gram.for_size(entries)(K, np.einsum("ij,ij->i", X, X), scale)
            _mirror_upper.for_size(entries)(K)
        else:
            K = np.empty((X.shape[0], X.shape[0]))
            _rbf_rows_exact.for_size(entries)(X, np.ascontiguousarray(X.T), scale, K)
        return K
    if gram:
        K = X @ Y.T
        _rbf_cross_gram.for_size(entries)(K, np.einsum("ij,ij->i", X, X),
                                          np.einsum("ij,ij->i", Y, Y), scale)
    else:
        K = np.empty((X.shape[0], Y.shape[0]))
        _rbf_rows_exact.for_size(entries)(X, np.ascontiguousarray(Y.T), scale, K)
    return K


#: Rows of one block of ``rbf_project`` on the Gram-matrix route: about this many entries.
_PROJECT_BLOCK_ENTRIES = 1 << 20


def rbf_project(X: ArrayLike, Y: ArrayLike, C: ArrayLike, *, sigma2: float) -> np.ndarray:
    """``rbf_kernel(X, Y, sigma2=sigma2) @ C`` without storing the kernel matrix.

    Parameters
    ----------
    X : array_like, shape (n, d)
    Y : array_like, shape (m, d)
    C : array_like, shape (m, p)
        Coefficients, one column per output.
    sigma2 : float
        Kernel width, as in :func:`rbf_kernel`.

    Returns
    -------
    ndarray, shape (n, p)

    Notes
    -----
    For ``d < 16`` each kernel row is computed as in :func:`rbf_kernel`,
    multiplied by ``C`` while it is in cache and discarded (memory ``O(m)``
    per thread, one pass); the row sums are re-associated, so the result
    agrees with ``rbf_kernel(X, Y) @ C`` to rounding. For ``d >= 16`` the
    kernel is built by :func:`rbf_kernel` in blocks of rows (about 2^20
    entries each) and multiplied by BLAS.

    See Also
    --------
    rbf_kernel : the kernel itself.
    kpca.KernelPCA.transform : its out-of-sample scores use it.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Eq.
       (7): the score of a point, ``sum_i alpha_i k(x, x_i)`` up to the centring.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.kernels import rbf_kernel, rbf_project
    >>> rng = np.random.default_rng(0)
    >>> X, Y, C = rng.normal(size=(4, 2)), rng.normal(size=(6, 2)), rng.normal(size=(6, 3))
    >>> bool(np.allclose(rbf_project(X, Y, C, sigma2=1.0), rbf_kernel(X, Y, sigma2=1.0) @ C))
    True
    """
    scale = 1.0 / (2.0 * check_sigma2(sigma2))
    X = _as_2d_float(X, "X")
    Y = _as_2d_float(Y, "Y")
    C = _as_2d_float(C, "C")
    if X.shape[1] != Y.shape[1] or C.shape[0] != Y.shape[0]:
        raise ValueError(
            f"shapes do not match: X {X.shape}, Y {Y.shape}, C {C.shape} (need X (n, d), "
            "Y (m, d), C (m, p))"
        )
    out = np.empty((X.shape[0], C.shape[1]))
    if X.shape[1] < _GRAM_MIN_FEATURES:
        _rbf_project_exact.for_size(X.shape[0] * Y.shape[0])(
            X, np.ascontiguousarray(Y.T), scale, np.ascontiguousarray(C.T), out)
        return out
    block = max(1, _PROJECT_BLOCK_ENTRIES // max(1, Y.shape[0]))
    for s in range(0, X.shape[0], block):
        np.matmul(_rbf(X[s : s + block], Y, scale), C, out=out[s : s + block])
    return out


# --------------------------------------------------------------------------- #
# Centering
# --------------------------------------------------------------------------- #
@_SerialOrParallel
def _center_inplace(K, col_mean, row_mean, total):  # pragma: no cover - compiled
    n, m = K.shape
    for i in numba.prange(n):
        for j in range(m):
            K[i, j] = K[i, j] - row_mean[i] - col_mean[j] + total


def center_kernel(K: ArrayLike, *, copy: bool = True) -> np.ndarray:
    """Centre a training kernel matrix: ``Omega_c = M_c Omega M_c``.

    ``M_c = I - (1/N) 1 1^T`` (Varon et al. 2015, Eqs. (5)-(6)).

    Parameters
    ----------
    K : ndarray, shape (N, N)
    copy : bool
        If False, centre in place (``K`` must be C-contiguous float64).

    Returns
    -------
    ndarray, shape (N, N)

    See Also
    --------
    center_test_kernel : a test kernel centred against the training set.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Eqs.
       (5)-(6): the centred kernel matrix and the centring matrix ``M_c``.
    .. [2] N. N. Schraudolph, S. Günter and S. V. N. Vishwanathan, "Fast iterative kernel PCA,"
       Advances in Neural Information Processing Systems 19, MIT Press, 2007. Eq. (5): ``K' = K -
       MK - (MK)^T + MKM``, computed from one row of means.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.kernels import center_kernel
    >>> Kc = center_kernel(np.array([[2.0, 1.0], [1.0, 2.0]]))
    >>> bool(np.allclose(Kc.sum(axis=0), 0.0))
    True
    """
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square matrix; got shape {K.shape}")
    out = np.array(K, order="C", copy=True) if copy or not K.flags.c_contiguous else K
    col_mean = out.mean(axis=0)
    row_mean = out.mean(axis=1)
    _center_inplace.for_size(out.size)(out, col_mean, row_mean, col_mean.mean())
    return out


def center_test_kernel(K_test: ArrayLike, K_fit_col_mean: ArrayLike,
                       K_fit_total: float) -> np.ndarray:
    """Centre a test kernel against the training set (Varon et al. 2015, Eq. (7)).

    For a test point ``x`` with kernel row ``k_i = K(x_i, x)`` over the
    training points, Eq. (7) gives the centred entry::

        k_i - (1/N) sum_j K(x_j, x) - (1/N) sum_j K(x_j, x_i)
            + (1/N^2) sum_jk K(x_j, x_k)

    Parameters
    ----------
    K_test : ndarray, shape (m, N)
        ``K_test[t, i] = K(x_t, x_i)`` for ``m`` test and ``N`` training points.
    K_fit_col_mean : ndarray, shape (N,)
        Column means of the (uncentred) training kernel, ``(1/N) sum_j K(x_j, x_i)``.
    K_fit_total : float
        Grand mean of the training kernel, ``(1/N^2) sum_jk K(x_j, x_k)``.

    Returns
    -------
    ndarray, shape (m, N)

    See Also
    --------
    center_kernel : the training kernel centred.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Eq.
       (7): the centred kernel of the out-of-sample scores.
    .. [2] K. W. Jørgensen and L. K. Hansen, "Model selection for Gaussian kernel PCA denoising,"
       IEEE Trans. Neural Netw. Learn. Syst. 23(1), 163-168, 2012. Eq. (3): the centred test kernel
       row ``k~_x``.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.kernels import center_kernel, center_test_kernel, rbf_kernel
    >>> X = np.random.default_rng(0).normal(size=(5, 2))
    >>> K = rbf_kernel(X, sigma2=1.0)
    >>> Kc = center_test_kernel(K, K.mean(axis=0), K.mean())  # the training points as test points
    >>> bool(np.allclose(Kc, center_kernel(K)))
    True
    """
    K_test = np.asarray(K_test, dtype=np.float64)
    out = np.array(K_test, order="C", copy=True)
    row_mean = out.mean(axis=1)
    _center_inplace.for_size(out.size)(out, np.asarray(K_fit_col_mean, dtype=np.float64), row_mean,
                                       float(K_fit_total))
    return out
