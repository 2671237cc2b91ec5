"""The kernel methods: ``kpca``, ``kpca_positions`` and their linear baseline ``pca``.

Each analyses the QRS-window matrix of a segment's valid beats (:meth:`Segment.beat_matrix`,
:meth:`Segment.valid_matrix`) and returns the beat-sampled scores of its first principal
component; the kernel PCA itself is :mod:`kpca`'s, built by :class:`KernelOptions`.
"""

from __future__ import annotations

import numpy as np

from edr.methods.kernel_options import DEFAULT_SIGMA2, KernelOptions, selection_quality
from edr.methods.segment import MATRIX_BASELINE, MethodOutput, Segment

__all__ = ["POSITIONS", "kpca_edr", "kpca_positions_edr", "pca_edr"]

POSITIONS = {"orientation": "positions"}
"""The fixed option of ``kpca_positions``."""

def kpca_edr(seg: Segment, *, sigma2=DEFAULT_SIGMA2, random_state=None, orientation="beats",
             baseline=MATRIX_BASELINE, solver="dense", n_support=None, train_on=None,
             robust=True, **selection_options) -> MethodOutput:
    """Kernel PCA EDR, ``n_c = 1`` (see the module docstring).

    Parameters
    ----------
    seg : Segment
    sigma2 : float or str, default :data:`DEFAULT_SIGMA2`
        Kernel width or a :mod:`kpca.selection` criterion key.
    random_state : None, int or Generator
        Passed to the estimator (its selection criterion, ARPACK start, FS2's
        k-means start and validation draw).
    orientation : {"beats", "positions"}, default "beats"
    baseline : {"detrend", "none", "pr"}, default :data:`MATRIX_BASELINE`
    solver : {"dense", "fs2"}, default "dense"
        ``"dense"``: :class:`kpca.core.KernelPCACore` (:class:`kpca.KernelPCA` without
        scikit-learn) of all valid beats of the segment;
        ``"fs2"``: :class:`kpca.largescale.FixedSizeKernelPCA` (``orientation="beats"`` only).
    n_support : int, optional
        FS2 support vectors ``M`` (``solver="fs2"`` only); None:
        ``min(DEFAULT_N_SUPPORT, N - 1)`` for ``N`` valid beats.
    train_on : {"all", "support"}, optional
        ``solver="fs2"`` only; None: :data:`FS2_TRAIN_ON`.
    robust : bool, default True
        Analyse :meth:`Segment.beat_matrix` with slow morphology changes removed
        and outlier beats left out (:func:`edr.modulation.robust_beat_matrix`).
    **selection_options
        Passed to :func:`kpca.selection.select` through the estimator.

    Returns
    -------
    MethodOutput
        Beat-sampled scores, ``sigma2`` and ``selection`` from the estimator;
        quality: ``solver``, ``n_features``, ``eigenvalue``, ``criterion`` and
        ``margin`` (MDD), and for FS2 ``n_support``, ``train_on``,
        ``n_validation``, ``fs2_swaps``, ``renyi_entropy``.

    Raises
    ------
    ValueError, TypeError
        Invalid options (:class:`KernelOptions`).
    SignalError
        Fewer than :data:`edr.signal.MIN_BEATS` valid beats.

    See Also
    --------
    kpca_fusion_edr : the default method, which fuses these scores with other series.
    pca_edr : the linear baseline.
    kpca.core.KernelPCACore : the model, which resolves a σ² criterion.

    References
    ----------
    .. [1] D. Widjaja, C. Varon, A. C. Dorado, J. A. K. Suykens and S. Van Huffel, "Application of
       kernel principal component analysis for single-lead ECG-derived respiration," IEEE Trans.
       Biomed. Eng. 59(4), 1169-1176, 2012. Kernel PCA of the QRS windows for single-lead EDR, the
       first component as the respiration, σ² by maximal Shannon entropy.
    .. [2] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. The
       centred kernel eigenproblem, Eqs. (4)-(6), the RBF kernel, Eq. (12), MDD model selection,
       Sec. IV, Eqs. (11)-(15), and the EDR application, Sec. VI-C.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats import detect
    >>> from edr.methods import Segment
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> seg = Segment(rec.ecg, rec.fs, 0.0, detect(rec.ecg, rec.fs), np.arange(240) / 4.0)
    >>> from edr.methods import kpca_edr
    >>> out = kpca_edr(seg, sigma2="mdd-fast", random_state=0)
    >>> out.kind, out.times.shape == out.values.shape, out.sigma2 > 0
    ('beats', True, True)
    """
    opts = KernelOptions(sigma2, random_state, orientation, baseline, solver, n_support, train_on,
                         selection_options, robust)
    seg.require_beats()
    X, t, n_out = seg.beat_matrix(opts.baseline, opts.robust)
    q = {"solver": opts.solver, "n_outliers": n_out}
    if opts.solver == "fs2":
        z, model = _fs2_scores(X, opts, q)
    elif opts.orientation == "beats":
        model = opts.kernel_pca()
        z = model.fit_transform(X)[:, 0]
    else:
        z, model = _positions_scores(X, opts)
    selection = getattr(model, "selection_", None)
    q.update({"n_features": int(X.shape[1]), "eigenvalue": float(model.eigenvalues_[0])})
    q.update(selection_quality(selection))
    return MethodOutput(t, z, "beats", float(model.sigma2_), selection, q)


def _positions_scores(X, opts: KernelOptions):
    """Beat series of the ``"positions"`` orientation and the fitted model."""
    Y = (X - X.mean(axis=0)).T  # each sample position's series, centred over the beats
    model = opts.kernel_pca()
    Z = model.fit(Y).denoise(Y)
    Z = Z - Z.mean(axis=1, keepdims=True)
    _, _, vt = np.linalg.svd(Z, full_matrices=False)
    return vt[0], model


def _fs2_scores(X, opts: KernelOptions, quality: dict):
    """First kernel principal component score of every row of ``X`` from one FS2 model.

    Fits :meth:`KernelOptions.fixed_size_kpca` with :meth:`KernelOptions.support_size`
    support vectors to all rows and projects them;
    adds ``n_support``, ``train_on``, ``n_validation``, ``fs2_swaps`` (accepted
    entropy swaps) and ``renyi_entropy`` (final ``H_R``) to ``quality``.
    """
    M = opts.support_size(X.shape[0])
    model = opts.fixed_size_kpca(M).fit(X)
    z = model.transform(X)[:, 0]
    quality.update({"n_support": M, "train_on": opts.train_on,
                    "n_validation": 0 if model.validation_ is None else int(model.validation_.size),
                    "fs2_swaps": int(model.entropy_.size - 1),
                    "renyi_entropy": float(model.entropy_[-1])})
    return z, model


def kpca_positions_edr(seg: Segment, **kw) -> MethodOutput:
    """:func:`kpca_edr` with ``orientation="positions"``.

    See Also
    --------
    kpca_edr : the same with each beat as a data point.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. The
       fixed-point pre-image with ``n_c = 1``, Sec. II.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats import detect
    >>> from edr.methods import Segment
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> seg = Segment(rec.ecg, rec.fs, 0.0, detect(rec.ecg, rec.fs), np.arange(240) / 4.0)
    >>> from edr.methods import kpca_positions_edr
    >>> out = kpca_positions_edr(seg, random_state=0)
    >>> out.kind, out.values.size == int(seg.valid.sum())
    ('beats', True)
    """
    return kpca_edr(seg, **{**POSITIONS, **kw})


def pca_edr(seg: Segment, *, baseline=MATRIX_BASELINE) -> MethodOutput:
    """First linear principal component score of the QRS matrix (beats as data points).

    See Also
    --------
    kpca_edr : the kernel version of the same matrix.

    References
    ----------
    .. [1] P. H. Charlton, D. A. Birrenkott, T. Bonnici, M. A. F. Pimentel, A. E. W. Johnson, J.
       Alastruey, L. Tarassenko, P. J. Watkinson, R. Beale and D. A. Clifton, "Breathing rate
       estimation from the electrocardiogram and photoplethysmogram: a review," IEEE Rev. Biomed.
       Eng. 11, 2-20, 2018. PCA of the beats' morphology as an EDR feature.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats import detect
    >>> from edr.methods import Segment
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> seg = Segment(rec.ecg, rec.fs, 0.0, detect(rec.ecg, rec.fs), np.arange(240) / 4.0)
    >>> from edr.methods import pca_edr
    >>> out = pca_edr(seg)
    >>> out.kind, out.sigma2 is None, out.values.size == int(seg.valid.sum())
    ('beats', True, True)
    """
    seg.require_beats()
    X = seg.valid_matrix(baseline)
    Xc = X - X.mean(axis=0)
    u, s, _ = np.linalg.svd(Xc, full_matrices=False)
    return MethodOutput(seg.beat_times[seg.valid], u[:, 0] * s[0], "beats",
                        quality={"explained_variance_ratio": float(s[0] ** 2 / np.sum(s ** 2))})
