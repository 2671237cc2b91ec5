"""Kernel centering: a training kernel ``M_c Omega M_c`` and a test kernel centred on the
training data (Varon et al. 2015, Eqs. (5)-(7)).

The compiled in-place loop is :mod:`kpca._kernel_loops`'s; the kernels themselves are
:mod:`kpca.kernels`'s, which re-exports both functions (their public home).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from kpca._kernel_loops import _center_inplace

__all__ = ["center_kernel", "center_test_kernel"]


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
