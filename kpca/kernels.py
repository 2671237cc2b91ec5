"""Squared distances, the RBF kernel and kernel centering (:mod:`kpca.centering`).

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

The compiled (Numba) loops these functions call live in :mod:`kpca._kernel_loops` (cached on
disk; :data:`SERIAL_MAX_ENTRIES` chooses their serial or parallel version); each has a plain
NumPy twin in the tests (``tests/kpca/kernel_references.py``), and the tests check the two
against each other.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from kpca._kernel_loops import (
    SERIAL_MAX_ENTRIES,
    _exp_scaled_into,
    _rbf_project_exact,
    _rbf_rows_exact,
    _rbf_self_gram,
    _sqdist_cross,
    _sqdist_cross_exact,
    _sqdist_self_exact,
)
from kpca._validation import check_sigma2
from kpca.centering import center_kernel, center_test_kernel

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
    "SERIAL_MAX_ENTRIES",
]



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
    if X.shape[1] >= _GRAM_MIN_FEATURES:
        return _gram_squared_distances(X, None if same else Y)
    out = np.empty((X.shape[0], Y.shape[0]))
    if same:
        _sqdist_self_exact.for_size(out.size)(X, out)
    else:
        _sqdist_cross_exact.for_size(out.size)(X, np.ascontiguousarray(Y.T), out)
    return out


def _gram_squared_distances(X: np.ndarray, Y: np.ndarray | None) -> np.ndarray:
    """:func:`squared_distances` of checked C-contiguous float arrays by the Gram-matrix
    identity (a BLAS product, the norms added, clipped at zero); with ``Y=None`` exactly
    symmetric with a zero diagonal."""
    same = Y is None
    Y = X if same else Y
    out = np.empty((X.shape[0], Y.shape[0]))
    np.matmul(X, Y.T, out=out)
    out *= -2.0
    _sqdist_cross.for_size(out.size)(X, Y, out)
    if same:
        # Symmetrise and zero the diagonal exactly.
        out = 0.5 * (out + out.T)
        np.fill_diagonal(out, 0.0)
    return out


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
    return _exp_in_place(K, 1.0 / (2.0 * s))


#: Entries per pass of :func:`_exp_in_place` (the size of its two buffers).
_EXP_BLOCK = 1 << 15


def _exp_in_place(D2: np.ndarray, scale: float) -> np.ndarray:
    """``D2`` (C-contiguous float64) overwritten by ``exp(-scale * D2)``: the vectorised exp
    (``_exp_scaled_into``, 1 ulp) in blocks of :data:`_EXP_BLOCK` entries through a buffer (its
    output must not be its input, or the compiler keeps it scalar)."""
    flat = D2.reshape(-1)
    k = max(1, min(flat.size, _EXP_BLOCK))
    buf, t = np.empty(k), np.empty(k)
    bits, tbits = buf.view(np.int64), t.view(np.int64)
    for s in range(0, flat.size, k):
        x = flat[s : s + k]
        n = x.size
        _exp_scaled_into(x, -scale, buf[:n], bits[:n], t[:n], tbits[:n])
        x[:] = buf[:n]
    return D2


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
    ``d < 16``, BLAS Gram matrix otherwise; with ``Y=None`` exactly symmetric)
    and exponentiated: for ``d < 16`` by a vectorised exp accurate to 1 ulp
    (``_exp_scaled``) row by row in the same compiled pass; for ``d >= 16``
    with ``Y=None`` in the same compiled pass over the upper triangle,
    mirrored; otherwise by the vectorised exp over the distance matrix, in
    blocks, in place.

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
    if X.shape[1] >= _GRAM_MIN_FEATURES:
        if Y is None:
            K = X @ X.T
            _rbf_self_gram.for_size(K.size)(K, np.einsum("ij,ij->i", X, X), scale)
            return K
        return _exp_in_place(_gram_squared_distances(X, Y), scale)
    YT = np.ascontiguousarray((X if Y is None else Y).T)
    K = np.empty((X.shape[0], YT.shape[1]))
    _rbf_rows_exact.for_size(K.size)(X, YT, scale, K)
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
