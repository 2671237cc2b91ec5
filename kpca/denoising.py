"""End-to-end kernel PCA de-noising and the image-patch helpers.

:func:`denoise` fits a kernel PCA model (dense, fixed-size FS2 or incomplete
Cholesky) and returns fixed-point pre-images (Mika et al. 1999) of the
projections; :func:`linear_pca_denoise` is the linear baseline.
:func:`extract_patches` / :func:`reassemble_patches` implement the
"multipatch" set-up of Kim, Franz & Schölkopf (2005) used by Schraudolph et
al. (2006, Sec. 5.2): overlapping square windows sampled on a grid, each
de-noised as a vector, overlaps averaged back into the image.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from kpca._validation import check_array, check_choice, check_count, check_n_components

__all__ = [
    "SOLVERS",
    "denoise",
    "linear_pca_denoise",
    "extract_patches",
    "reassemble_patches",
    "mse",
    "snr_db",
    "denoising_scorer",
]


def _dense(n_components, sigma2, random_state, **options):
    from kpca.model import KernelPCA

    return KernelPCA(n_components, sigma2, random_state=random_state, **options)


def _fixed_size(n_components, sigma2, random_state, **options):
    from kpca.largescale import FixedSizeKernelPCA

    return FixedSizeKernelPCA(n_components, sigma2, random_state=random_state, **options)


def _icf(n_components, sigma2, random_state, **options):
    from kpca.largescale import IncompleteCholeskyKernelPCA

    return IncompleteCholeskyKernelPCA(n_components, sigma2, random_state=random_state, **options)


#: Kernel PCA solvers of :func:`denoise` (key -> estimator factory).
SOLVERS = {
    "dense": _dense,
    "fixed-size": _fixed_size,
    "fs2": _fixed_size,
    "icf": _icf,
    "incomplete-cholesky": _icf,
}


def denoise(X: ArrayLike, n_components: int, sigma2: float | str, *, solver: str = "dense",
            fit_on: ArrayLike | None = None, random_state: int | np.random.Generator | None = None,
            **options) -> np.ndarray:
    """De-noise patterns by kernel PCA projection and fixed-point pre-images.

    Parameters
    ----------
    X : array_like, shape (m, d)
        Patterns to de-noise.
    n_components : int or "auto"
        Number of kernel principal components kept.
    sigma2 : float or str
        RBF kernel width, or a selection-criterion key (see the solver).
    solver : {"dense", "fixed-size" (alias "fs2"), "icf" (alias "incomplete-cholesky")}
        :class:`kpca.KernelPCA`, :class:`kpca.largescale.FixedSizeKernelPCA` or
        :class:`kpca.largescale.IncompleteCholeskyKernelPCA`.
    fit_on : array_like, shape (N, d), optional
        Training patterns (default ``X`` itself).
    random_state : None, int or numpy.random.Generator
    **options
        Further keyword arguments of the solver (e.g. ``n_support=500``,
        ``eta=1e-2``).

    Returns
    -------
    ndarray, shape (m, d)
        Pre-images, started from the noisy patterns.

    See Also
    --------
    kpca.KernelPCA.denoise : the same with a fitted model.
    linear_pca_denoise : the linear baseline.
    kpca.preimage.fixed_point_preimage : the pre-images.

    References
    ----------
    .. [1] S. Mika, B. Schölkopf, A. Smola, K.-R. Müller, M. Scholz and G. Rätsch, "Kernel PCA and
       de-noising in feature spaces," Advances in Neural Information Processing Systems 11, MIT
       Press, 1999, 536-542. Kernel PCA de-noising: projection onto the leading axes, Eq. (4), and
       the fixed-point pre-image, Eq. (10), started from the noisy pattern (Sec. 4).
    .. [2] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. Sec.
       V: the large-scale solvers (FS2, ICF).

    Examples
    --------
    >>> from kpca import denoise
    >>> from kpca.datasets import semicircles
    >>> from kpca.denoising import mse
    >>> X, X_clean = semicircles(200, noise=0.1, random_state=0)
    >>> X_hat = denoise(X, 16, 0.1, random_state=0)
    >>> bool(mse(X_clean, X_hat) < mse(X_clean, X))
    True
    """
    check_choice(solver, "solver", SOLVERS)
    X = check_array(X, "X")
    train = X if fit_on is None else check_array(fit_on, "fit_on", n_features=X.shape[1])
    model = SOLVERS[solver](n_components, sigma2, random_state, **options).fit(train)
    return model.denoise(X)


def linear_pca_denoise(X: ArrayLike, n_components: int, *,
                       fit_on: ArrayLike | None = None) -> np.ndarray:
    """Linear PCA baseline: project on the leading ``n_components`` axes and back.

    Parameters
    ----------
    X : array_like, shape (m, d)
    n_components : int
        ``1 <= n_components <= min(N, d)``.
    fit_on : array_like, shape (N, d), optional
        Training patterns (default ``X``).

    Returns
    -------
    ndarray, shape (m, d)

    See Also
    --------
    denoise : kernel PCA de-noising.

    References
    ----------
    .. [1] S. Mika, B. Schölkopf, A. Smola, K.-R. Müller, M. Scholz and G. Rätsch, "Kernel PCA and
       de-noising in feature spaces," Advances in Neural Information Processing Systems 11, MIT
       Press, 1999, 536-542. Sec. 4 and Table 1: kernel PCA de-noising compared with linear PCA.

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.denoising import linear_pca_denoise
    >>> X = np.array([[0.0, 0.1], [1.0, 0.9], [2.0, 2.1], [3.0, 2.9]])
    >>> np.round(linear_pca_denoise(X, 1), 2)
    array([[0.02, 0.08],
           [0.94, 0.96],
           [2.06, 2.04],
           [2.98, 2.92]])
    """
    X = check_array(X, "X")
    train = X if fit_on is None else check_array(fit_on, "fit_on", n_features=X.shape[1])
    k = check_n_components(n_components, min(train.shape))
    mean = train.mean(axis=0)
    _, _, Vt = np.linalg.svd(train - mean, full_matrices=False)
    V = Vt[:k].T
    return mean + ((X - mean) @ V) @ V.T


def _check_window(patch_size, step):
    return check_count(patch_size, "patch_size", 1), check_count(step, "step", 1)


def _grid(length, patch_size, step):
    # Window origins every `step` pixels, plus a last one flush with the edge
    # so that every pixel is covered.
    starts = list(range(0, length - patch_size + 1, step))
    if starts[-1] != length - patch_size:
        starts.append(length - patch_size)
    return np.asarray(starts)


def extract_patches(image: ArrayLike, patch_size: int, step: int) -> np.ndarray:
    """Overlapping ``patch_size x patch_size`` windows of a 2-D image on a grid.

    Parameters
    ----------
    image : array_like, shape (h, w)
    patch_size : int
        Window side (Schraudolph et al. 2006 use 11).
    step : int
        Grid spacing (they use 2). A last row/column of windows flush with the
        image border is added when the grid does not reach it.

    Returns
    -------
    ndarray, shape (n_patches, patch_size**2)
        Row-major flattened windows, in raster order of their origins.

    See Also
    --------
    reassemble_patches : the inverse: windows averaged back into an image.

    References
    ----------
    .. [1] N. N. Schraudolph, S. Günter and S. V. N. Vishwanathan, "Fast iterative kernel PCA,"
       Advances in Neural Information Processing Systems 19, MIT Press, 2007. Sec. 5.2: overlapping
       11 x 11 windows every 2 pixels.
    .. [2] K. I. Kim, M. O. Franz and B. Schölkopf, "Iterative kernel principal component analysis
       for image modeling," IEEE Trans. Pattern Anal. Mach. Intell. 27(9), 1351-1366, 2005. The
       multipatch set-up (no equation numbers: not in the project's collection).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.denoising import extract_patches
    >>> extract_patches(np.arange(16.0).reshape(4, 4), 2, 2)
    array([[ 0.,  1.,  4.,  5.],
           [ 2.,  3.,  6.,  7.],
           [ 8.,  9., 12., 13.],
           [10., 11., 14., 15.]])
    """
    img = np.asarray(image, dtype=np.float64)
    if img.ndim != 2:
        raise ValueError(f"image must be a 2-D (grey-level) array; got shape {img.shape}")
    p, s = _check_window(patch_size, step)
    if p > min(img.shape):
        raise ValueError(f"patch_size={p} exceeds the image shape {img.shape}")
    windows = np.lib.stride_tricks.sliding_window_view(img, (p, p))
    rows, cols = _grid(img.shape[0], p, s), _grid(img.shape[1], p, s)
    return windows[np.ix_(rows, cols)].reshape(-1, p * p).copy()


def reassemble_patches(patches: ArrayLike, image_shape: tuple[int, int], patch_size: int,
                       step: int) -> np.ndarray:
    """Average overlapping windows back into an image (inverse of :func:`extract_patches`).

    Parameters
    ----------
    patches : array_like, shape (n_patches, patch_size**2)
    image_shape : tuple of int
        ``(h, w)`` of the original image.
    patch_size, step : int
        As given to :func:`extract_patches`.

    Returns
    -------
    ndarray, shape (h, w)
        Each pixel is the mean of its values over all windows covering it.

    See Also
    --------
    extract_patches : the windows.

    References
    ----------
    .. [1] N. N. Schraudolph, S. Günter and S. V. N. Vishwanathan, "Fast iterative kernel PCA,"
       Advances in Neural Information Processing Systems 19, MIT Press, 2007. Sec. 5.2: multipatch
       image de-noising, overlapping reconstructions averaged.
    .. [2] K. I. Kim, M. O. Franz and B. Schölkopf, "Iterative kernel principal component analysis
       for image modeling," IEEE Trans. Pattern Anal. Mach. Intell. 27(9), 1351-1366, 2005. The
       multipatch set-up (no equation numbers: not in the project's collection).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.denoising import extract_patches, reassemble_patches
    >>> image = np.arange(36.0).reshape(6, 6)
    >>> patches = extract_patches(image, 3, 1)
    >>> patches.shape
    (16, 9)
    >>> bool(np.allclose(reassemble_patches(patches, image.shape, 3, 1), image))
    True
    """
    p, s = _check_window(patch_size, step)
    h, w = (int(v) for v in image_shape)
    rows, cols = _grid(h, p, s), _grid(w, p, s)
    patches = np.asarray(patches, dtype=np.float64)
    if patches.shape != (rows.size * cols.size, p * p):
        raise ValueError(
            f"patches must have shape ({rows.size * cols.size}, {p * p}) for image_shape="
            f"{(h, w)}, patch_size={p}, step={s}; got shape {patches.shape}"
        )
    total = np.zeros((h, w))
    count = np.zeros((h, w))
    blocks = patches.reshape(rows.size, cols.size, p, p)
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            total[r : r + p, c : c + p] += blocks[i, j]
            count[r : r + p, c : c + p] += 1.0
    return total / count


def mse(clean: ArrayLike, estimate: ArrayLike) -> float:
    """Mean squared error over all entries.

    Parameters
    ----------
    clean, estimate : array_like
        Arrays of one shape.

    Returns
    -------
    float

    See Also
    --------
    snr_db : the same error as a signal-to-noise ratio.
    denoising_scorer : its negative, as a scorer.

    Examples
    --------
    >>> from kpca.denoising import mse
    >>> mse([[0.0, 1.0]], [[1.0, 1.0]])
    0.5
    """
    clean, estimate = np.asarray(clean, dtype=np.float64), np.asarray(estimate, dtype=np.float64)
    return float(np.mean((clean - estimate) ** 2))


def snr_db(clean: ArrayLike, estimate: ArrayLike) -> float:
    """SNR in dB of ``estimate`` against ``clean``: ``10 log10(var(clean) / mse)``.

    The same definition as the noise level of :mod:`kpca.datasets` (total
    signal variance over total error power), so the SNR of the noisy input and
    of a de-noised output are directly comparable.

    Parameters
    ----------
    clean, estimate : array_like
        Arrays of one shape.

    Returns
    -------
    float

    See Also
    --------
    mse : the error power.

    References
    ----------
    .. [1] K. W. Jørgensen and L. K. Hansen, "Model selection for Gaussian kernel PCA denoising,"
       IEEE Trans. Neural Netw. Learn. Syst. 23(1), 163-168, 2012. Eq. (8): ``SNR(dB) = 10
       log10(<S^2> / sigma_res^2)``, here with the variance of the clean data in place of its mean
       square (the two agree for zero-mean data).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.denoising import snr_db
    >>> clean = np.array([[1.0], [-1.0]])
    >>> round(snr_db(clean, clean + 0.1), 6)  # variance 1, error power 0.01
    20.0
    """
    clean = np.asarray(clean, dtype=np.float64)
    return float(10.0 * np.log10(np.var(clean) / mse(clean, estimate)))


def denoising_scorer(estimator, X: ArrayLike, y: ArrayLike) -> float:
    """Scorer for model selection by de-noising: ``-mse(y, estimator.denoise(X))``.

    Pass it as ``scoring=denoising_scorer`` to
    :class:`~sklearn.model_selection.GridSearchCV` (or
    :func:`~sklearn.model_selection.cross_val_score`) with the noisy patterns
    as ``X`` and their clean versions as ``y``: each candidate ``sigma2`` /
    ``n_components`` is fitted on the noisy training folds and scored by how
    close its pre-images of the noisy test fold come to the clean test fold.
    Without clean references use the estimators' own ``score`` (negative
    reconstruction error of the noisy data itself).

    Parameters
    ----------
    estimator : fitted estimator with ``denoise``
        :class:`kpca.KernelPCA`, :class:`kpca.largescale.FixedSizeKernelPCA`,
        :class:`kpca.largescale.IncompleteCholeskyKernelPCA` (or a pipeline
        ending in one, through its last step).
    X : array_like, shape (m, d)
        Noisy patterns.
    y : array_like, shape (m, d)
        Their clean versions.

    Returns
    -------
    float
        Negative mean squared error (greater is better).

    See Also
    --------
    kpca.KernelPCA.score : the negative reconstruction error of the noisy data itself, without
        clean references.
    mse : the error it negates.

    References
    ----------
    .. [1] K. W. Jørgensen and L. K. Hansen, "Model selection for Gaussian kernel PCA denoising,"
       IEEE Trans. Neural Netw. Learn. Syst. 23(1), 163-168, 2012. Sec. III: de-noising scored
       against the clean patterns (there by the SNR of Eq. (8)).

    Examples
    --------
    >>> from sklearn.model_selection import GridSearchCV
    >>> from kpca import KernelPCA
    >>> from kpca.datasets import semicircles
    >>> from kpca.denoising import denoising_scorer
    >>> X, X_clean = semicircles(120, noise=0.1, random_state=0)
    >>> search = GridSearchCV(KernelPCA(random_state=0),
    ...                       {"sigma2": [0.05, 0.5], "n_components": [2, 4]},
    ...                       scoring=denoising_scorer, cv=3).fit(X, X_clean)
    >>> sorted(search.best_params_)
    ['n_components', 'sigma2']
    """
    model = estimator
    if not hasattr(model, "denoise") and hasattr(model, "steps"):
        model = model.steps[-1][1]
    if not hasattr(model, "denoise"):
        raise ValueError(
            f"denoising_scorer needs an estimator with denoise(); got {type(estimator).__name__}"
        )
    clean = check_array(y, "y")
    if hasattr(estimator, "steps") and model is not estimator:
        # pre-processing steps of a pipeline map X (and the clean data) first
        pre = estimator[:-1]
        X = pre.transform(X)
        clean = pre.transform(clean)
    return -mse(clean, model.denoise(X))
