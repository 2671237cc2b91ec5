"""Toy data sets of the kernel-PCA de-noising papers.

Every generator returns ``(noisy, clean)``: two arrays of shape
``(n_samples, n_features)`` where ``noisy = clean + noise`` with i.i.d. Gaussian
noise. The noise is given either as its standard deviation ``noise`` or as a
signal-to-noise ratio ``snr_db``::

    SNR_dB = 10 log10( sum_j var(clean[:, j]) / (n_features * noise^2) ),

i.e. the total variance of the clean pattern over the total noise variance.
(Varon et al. 2015 add noise at "SNR = 10" without stating the definition.)
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from kpca._validation import (
    check_count,
    check_finite,
    check_nonnegative,
    check_positive,
    check_random_state,
)

__all__ = ["semicircles", "square", "two_rings", "gaussian_clusters", "embed"]


def _add_noise(clean, noise, snr_db, rng):
    """Return ``clean + N(0, s^2)`` with ``s`` from ``noise`` or ``snr_db``."""
    if (noise is None) == (snr_db is None):
        raise ValueError(
            f"give exactly one of noise and snr_db; got noise={noise!r}, snr_db={snr_db!r}"
        )
    if snr_db is not None:
        check_finite(snr_db, "snr_db")
        power = clean.var(axis=0).sum()
        std = np.sqrt(power / (clean.shape[1] * 10.0 ** (snr_db / 10.0)))
    else:
        std = check_nonnegative(noise, "noise")
    return clean + std * rng.standard_normal(clean.shape)


def embed(points: ArrayLike, n_features: int) -> np.ndarray:
    """Embed 2-D (or p-D) points isometrically in ``n_features`` dimensions.

    Following Jørgensen & Hansen (2012, Sec. III-A: "the two dimensions were
    both rotated to occupy 25 dimensions generating a d = 50 dimensional data
    set"), original coordinate ``j`` is spread evenly over its own block of
    ``n_features / p`` output dimensions: ``E[:, j]`` has entries
    ``1/sqrt(n_features/p)`` on block ``j`` and zero elsewhere. ``E`` has
    orthonormal columns, so distances (and hence RBF kernels) are preserved.

    Parameters
    ----------
    points : ndarray, shape (n, p)
    n_features : int
        A multiple of ``p``.

    Returns
    -------
    ndarray, shape (n, n_features)

    See Also
    --------
    semicircles : embeds its arcs with ``n_features > 2``.

    References
    ----------
    .. [1] K. W. Jørgensen and L. K. Hansen, "Model selection for Gaussian kernel PCA denoising,"
       IEEE Trans. Neural Netw. Learn. Syst. 23(1), 163-168, 2012. Sec. III-A: the semicircles
       rotated to occupy 25 dimensions each, ``d = 50``.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.datasets import embed
    >>> P = np.array([[0.0, 0.0], [3.0, 4.0]])
    >>> E = embed(P, 50)
    >>> E.shape, round(float(np.linalg.norm(E[1] - E[0])), 12)  # distances kept
    ((2, 50), 5.0)
    """
    points = np.asarray(points, dtype=np.float64)
    p = points.shape[1]
    n_features = check_count(n_features, "n_features", p)
    if n_features % p:
        raise ValueError(
            f"n_features must be a multiple of the original dimension {p}; "
            f"got n_features={n_features}"
        )
    block = n_features // p
    E = np.kron(np.eye(p), np.full((1, block), 1.0 / np.sqrt(block)))  # (p, n_features)
    return points @ E


def semicircles(n_samples: int = 500, *, noise: float | None = None,
                snr_db: float | None = None, radius: float = 1.0, n_features: int = 2,
                random_state: int | np.random.Generator | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """Two equally populated, non-intersecting, interleaved semicircles.

    Upper arc: ``radius (cos t, sin t)``; lower arc:
    ``radius (1 - cos t, 1/2 - sin t)``, ``t ~ U[0, pi]`` (the 2-D toy of
    Varon et al. 2015, Sec. VI-A, and of Jørgensen & Hansen 2012, Sec. III-A,
    whose radius is not stated). With ``n_features > 2`` the clean arcs are
    embedded by :func:`embed` (d = 50 in Jørgensen & Hansen 2012) and noise is
    added in all dimensions.

    Parameters
    ----------
    n_samples : int
        Total number of points (the first ``ceil(n/2)`` on the upper arc).
    noise : float, optional
        Noise standard deviation per dimension. Default 0.1 when neither
        ``noise`` nor ``snr_db`` is given (0.5 is the kPA paper's value in 50-D
        with a larger radius).
    snr_db : float, optional
        Alternatively, the SNR in dB (see the module docstring).
    radius : float
    n_features : int
        Even number of output dimensions (2 or e.g. 50).
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    noisy, clean : ndarray, shape (n_samples, n_features)

    See Also
    --------
    square : the closed square.
    two_rings : two interlocked rings in 3-D.
    embed : the embedding in more dimensions.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Sec.
       VI-A: the two semicircles (``N = 500``, SNR 10).
    .. [2] K. W. Jørgensen and L. K. Hansen, "Model selection for Gaussian kernel PCA denoising,"
       IEEE Trans. Neural Netw. Learn. Syst. 23(1), 163-168, 2012. Sec. III-A: two equally
       populated, non-intersecting semicircles, in 2-D rotated to ``d = 50``.

    Examples
    --------
    >>> from kpca.datasets import semicircles
    >>> noisy, clean = semicircles(100, noise=0.1, random_state=0)
    >>> noisy.shape, clean.shape
    ((100, 2), (100, 2))
    """
    n = check_count(n_samples, "n_samples", 2)
    r = check_positive(radius, "radius")
    rng = check_random_state(random_state)
    n_up = (n + 1) // 2
    t = rng.uniform(0.0, np.pi, n)
    clean = np.empty((n, 2))
    clean[:n_up, 0] = np.cos(t[:n_up])
    clean[:n_up, 1] = np.sin(t[:n_up])
    clean[n_up:, 0] = 1.0 - np.cos(t[n_up:])
    clean[n_up:, 1] = 0.5 - np.sin(t[n_up:])
    clean *= r
    if n_features != 2:
        clean = embed(clean, n_features)
    if noise is None and snr_db is None:
        noise = 0.1
    return _add_noise(clean, noise, snr_db, rng), clean


def square(n_samples: int = 500, *, noise: float | None = None, snr_db: float | None = None,
           side: float = 2.0, random_state: int | np.random.Generator | None = None
           ) -> tuple[np.ndarray, np.ndarray]:
    """Points uniformly on the outline of a square centred at the origin (2-D).

    The closed "square" toy of Mika et al. (1999, Fig. 1) and Varon et al.
    (2015, Sec. VI-A, 2000 points).

    Parameters
    ----------
    n_samples : int
    noise : float, optional
        Noise standard deviation per dimension (default 0.1 if ``snr_db`` is
        not given either).
    snr_db : float, optional
    side : float
        Side length.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    noisy, clean : ndarray, shape (n_samples, 2)

    See Also
    --------
    semicircles : two open arcs.
    two_rings : two rings in 3-D.

    References
    ----------
    .. [1] S. Mika, B. Schölkopf, A. Smola, K.-R. Müller, M. Scholz and G. Rätsch, "Kernel PCA and
       de-noising in feature spaces," Advances in Neural Information Processing Systems 11, MIT
       Press, 1999, 536-542. Sec. 4, Fig. 1: de-noising a square in the plane.
    .. [2] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Sec.
       VI-A: the square of 2000 points.

    Examples
    --------
    >>> from kpca.datasets import square
    >>> noisy, clean = square(200, noise=0.05, random_state=0)
    >>> noisy.shape, float(abs(clean).max())  # the outline of [-1, 1]^2
    ((200, 2), 1.0)
    """
    n = check_count(n_samples, "n_samples", 1)
    a = check_positive(side, "side")
    rng = check_random_state(random_state)
    s = rng.uniform(0.0, 4.0, n)  # arc-length parameter in units of the side
    edge = np.minimum(s.astype(int), 3)
    u = s - edge  # position along the edge, [0, 1)
    corners = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    start, end = corners[edge], corners[(edge + 1) % 4]
    clean = (start + u[:, None] * (end - start)) * (a / 2.0)
    if noise is None and snr_db is None:
        noise = 0.1
    return _add_noise(clean, noise, snr_db, rng), clean


def two_rings(n_samples: int = 3000, *, noise: float | None = None,
              snr_db: float | None = None, radius: float = 1.0,
              random_state: int | np.random.Generator | None = None
              ) -> tuple[np.ndarray, np.ndarray]:
    """Two interlocked circles in 3-D (the "two rings" toy of Varon et al. 2015).

    Ring 1 lies in the xy-plane centred at the origin, ring 2 in the xz-plane
    centred at ``(radius, 0, 0)``; each passes through the other's disc, like
    two chain links. Angles are uniform on ``[0, 2 pi)``.

    Parameters
    ----------
    n_samples : int
        Total number of points (the first ``ceil(n/2)`` on ring 1).
    noise : float, optional
        Noise standard deviation per dimension (default 0.1 if ``snr_db`` is
        not given either).
    snr_db : float, optional
    radius : float
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    noisy, clean : ndarray, shape (n_samples, 3)

    See Also
    --------
    semicircles : two arcs in the plane.
    square : the closed square.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Sec.
       VI-A: two rings of 3000 points in a 3-D space.

    Examples
    --------
    >>> from kpca.datasets import two_rings
    >>> noisy, clean = two_rings(300, snr_db=10.0, random_state=0)
    >>> noisy.shape, clean.shape
    ((300, 3), (300, 3))
    """
    n = check_count(n_samples, "n_samples", 2)
    r = check_positive(radius, "radius")
    rng = check_random_state(random_state)
    n1 = (n + 1) // 2
    t = rng.uniform(0.0, 2.0 * np.pi, n)
    clean = np.zeros((n, 3))
    clean[:n1, 0] = np.cos(t[:n1])
    clean[:n1, 1] = np.sin(t[:n1])
    clean[n1:, 0] = 1.0 + np.cos(t[n1:])
    clean[n1:, 2] = np.sin(t[n1:])
    clean *= r
    if noise is None and snr_db is None:
        noise = 0.1
    return _add_noise(clean, noise, snr_db, rng), clean


def gaussian_clusters(n_per_cluster: int = 100, *, sigma: float = 0.1, n_clusters: int = 11,
                      n_features: int = 10, centers: ArrayLike | None = None,
                      random_state: int | np.random.Generator | None = None
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Isotropic Gaussian clusters: the R^10 toy of Mika et al. (1999), Table 1.

    Centres are drawn uniformly from ``[-1, 1]^n_features`` (unless given);
    each point is its cluster centre plus ``N(0, sigma^2 I)`` noise. The clean
    pattern of a point is its centre, against which de-noising is scored.

    Parameters
    ----------
    n_per_cluster : int
        Points per cluster (Mika et al.: 100 training, 33 test).
    sigma : float
        Standard deviation per component.
    n_clusters, n_features : int
        Ignored when ``centers`` is given.
    centers : ndarray, shape (n_clusters, n_features), optional
        Re-use the centres of a training set to draw a test set.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    noisy, clean : ndarray, shape (n_clusters * n_per_cluster, n_features)
        Rows grouped by cluster; ``clean`` holds each row's centre.

    See Also
    --------
    semicircles : a curved toy.

    References
    ----------
    .. [1] S. Mika, B. Schölkopf, A. Smola, K.-R. Müller, M. Scholz and G. Rätsch, "Kernel PCA and
       de-noising in feature spaces," Advances in Neural Information Processing Systems 11, MIT
       Press, 1999, 536-542. Sec. 4, Table 1: eleven Gaussians in ``R^10`` with centres uniform in
       ``[-1, 1]^10``, 100 training and 33 test points each.

    Examples
    --------
    >>> from kpca.datasets import gaussian_clusters
    >>> train, centres = gaussian_clusters(100, sigma=0.1, random_state=0)
    >>> test, test_centres = gaussian_clusters(33, sigma=0.1, centers=centres[::100],
    ...                                        random_state=1)
    >>> train.shape, test.shape
    ((1100, 10), (363, 10))
    """
    m = check_count(n_per_cluster, "n_per_cluster", 1)
    s = check_positive(sigma, "sigma")
    rng = check_random_state(random_state)
    if centers is None:
        k = check_count(n_clusters, "n_clusters", 1)
        d = check_count(n_features, "n_features", 1)
        centers = rng.uniform(-1.0, 1.0, (k, d))
    else:
        centers = np.asarray(centers, dtype=np.float64)
        if centers.ndim != 2 or not np.isfinite(centers).all():
            raise ValueError(
                f"centers must be a finite 2-D array (n_clusters, n_features); got shape "
                f"{centers.shape}"
            )
    clean = np.repeat(centers, m, axis=0)
    return _add_noise(clean, s, None, rng), clean
