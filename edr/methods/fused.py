"""The fused methods: the default ``kpca_fusion`` and ``kpca_rsa``.

``kpca_fusion`` fuses the leading kernel principal components with the classic series (R
amplitude, QRS area, heart rate) by their local spectral concentration and agreement
(:func:`edr.fusion.fuse`); :class:`KernelFit` keeps what it learnt of a segment, so that
:func:`fusion_beat_series` gives the panel's series of beats it has not seen (a stream projects
its new beats this way). ``kpca_rsa`` fuses ``kpca`` and ``rsa`` by whole-window weights.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from edr.fusion import band_passed, carried_hz, fuse, panel_weights, standardised
from edr.methods.classic import rsa_edr
from edr.methods.grid import series_on_grid
from edr.methods.kernel_methods import kpca_edr
from edr.methods.kernel_options import KernelOptions, check_flag, selection_quality
from edr.methods.segment import MethodOutput, Segment, unclipped_columns
from edr.modulation import MATRIX_RATE_HZ, robust_beat_matrix
from edr.qrs_shape import qrs_slopes
from edr.series_alignment import aligned_sum
from edr.signal import BAND_HZ, MIN_BEATS

__all__ = ["FUSION_BASELINE", "FUSION_COMPONENTS", "FUSION_RSA", "ONE_LEAD_SHAPE", "KernelFit",
           "fusion_beat_series", "kpca_fusion_edr", "kpca_rsa_edr"]

FUSION_COMPONENTS = 3
"""Leading kernel principal components that enter ``kpca_fusion``'s panel."""
FUSION_BASELINE = "centred"
"""QRS matrix baseline of ``kpca_fusion``'s kernel components: each window minus its own mean.
An offset of a beat is one number yet moves every sample of its row, so it dominates the kernel
distances whatever its origin — a baseline that wanders in the breathing band without following
the breathing (healthy volunteers), or the error of a PR-segment level — and the leading
components follow it instead of the QRS shape and scale (``docs/studies/beyond_the_icu.md``)."""
FUSION_RSA = True
"""Whether the instantaneous heart rate enters ``kpca_fusion``'s panel: respiratory sinus
arrhythmia is the strongest breathing signal of healthy people at rest and an independent
witness of the morphology's breathing (``docs/studies/beyond_the_icu.md``)."""
ONE_LEAD_SHAPE = True
"""Whether ``kpca_fusion``'s panel also holds the QRS slopes
(:func:`edr.qrs_shape.qrs_slopes`: the steepest up- and downstroke) when a window analyses one
lead alone (:attr:`edr.methods.MethodSpec.one_lead`): one lead's panel has few
morphology series, several leads' pooled panels many (``docs/studies/unseen_conditions.md``)."""


@dataclass(frozen=True)
class KernelFit:
    """What ``kpca_fusion`` learnt of one lead's segment (:func:`fusion_beat_series` reads it).

    Attributes
    ----------
    model : kpca.core.KernelPCACore
        Fitted on the segment's robust beat matrix (:meth:`Segment.beat_matrix`).
    columns : ndarray of bool
        The QRS-matrix columns it reads (:meth:`Segment.valid_matrix`'s unclipped columns).
    baseline : str
        The matrix's baseline (:data:`BASELINES`).
    robust : bool
        Whether slow morphology changes were removed and outliers left out.
    rsa : bool
        Whether the heart rate is in the panel.
    scales : dict
        Per panel series: the standard deviation of its band-passed grid values over the
        segment (the divisor :func:`edr.fusion.standardised` applied).
    scores : ndarray, optional
        The component scores of the rows it was fitted on (``model.fit_transform``'s), which
        :func:`fusion_beat_series` gives for the same rows instead of projecting them again.
    shape : bool, default False
        Whether the QRS slopes are in the panel.

    See Also
    --------
    kpca_fusion_edr, fusion_beat_series

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats import detect
    >>> from edr.methods import Segment
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> seg = Segment(rec.ecg, rec.fs, 0.0, detect(rec.ecg, rec.fs), np.arange(240) / 4.0)
    >>> from edr.methods import kpca_fusion_edr
    >>> fit = kpca_fusion_edr(seg, random_state=0).model
    >>> fit.baseline, fit.rsa, sorted(fit.scales)[:2]
    ('centred', True, ['kpca_1', 'kpca_2'])
    """

    model: object
    columns: np.ndarray
    baseline: str
    robust: bool
    rsa: bool
    scales: dict
    scores: np.ndarray | None = None
    shape: bool = False

    def scores_of(self, X: np.ndarray) -> np.ndarray:
        """The component scores of the rows ``X``: :attr:`scores` when ``X`` is the fitted
        matrix itself (equal to its projection up to rounding), else ``model.transform(X)``."""
        fitted = getattr(self.model, "X_fit_", None)
        if self.scores is not None and fitted is not None and fitted.shape == X.shape \
                and np.array_equal(fitted, X):
            return self.scores.copy()
        return self.model.transform(X)


def kpca_rsa_edr(seg: Segment, **kpca_options) -> MethodOutput:
    """Quality-weighted fusion of the ``kpca`` and ``rsa`` series (see the module docstring).

    Quality adds ``weight_kpca`` and ``weight_rsa`` (summing to 1) to the ``kpca`` figures.

    See Also
    --------
    kpca_edr, rsa_edr, edr.fusion.panel_weights

    References
    ----------
    .. [1] D. Widjaja, C. Varon, A. C. Dorado, J. A. K. Suykens and S. Van Huffel, "Application of
       kernel principal component analysis for single-lead ECG-derived respiration," IEEE Trans.
       Biomed. Eng. 59(4), 1169-1176, 2012. The kPCA series.
    .. [2] P. H. Charlton, T. Bonnici, L. Tarassenko, D. A. Clifton, R. Beale and P. J. Watkinson,
       "An assessment of algorithms to estimate respiratory rate from the electrocardiogram and
       photoplethysmogram," Physiol. Meas. 37(4), 610-626, 2016. Fusion of respiratory
       features by their quality.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats import detect
    >>> from edr.methods import Segment
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> seg = Segment(rec.ecg, rec.fs, 0.0, detect(rec.ecg, rec.fs), np.arange(240) / 4.0)
    >>> from edr.methods import kpca_rsa_edr
    >>> out = kpca_rsa_edr(seg, random_state=0)
    >>> out.kind, out.values.shape == seg.grid.shape
    ('grid', True)
    """
    k = kpca_edr(seg, **kpca_options)
    r = rsa_edr(seg)
    panel = {"kpca": standardised(series_on_grid(seg, k), seg.fs_out),
             "rsa": standardised(series_on_grid(seg, r), seg.fs_out)}
    weights = panel_weights(panel, seg.fs_out, band=BAND_HZ, local_s=None, consensus=False)
    fused, _, _ = aligned_sum(panel, weights, "kpca")
    q = dict(k.quality)
    q.update({"weight_kpca": weights["kpca"], "weight_rsa": weights["rsa"]})
    return MethodOutput(seg.grid, fused, "grid", k.sigma2, k.selection, q)


def kpca_fusion_edr(seg: Segment, *, n_components=FUSION_COMPONENTS, rsa=FUSION_RSA,
                    baseline=FUSION_BASELINE, shape=False, **kpca_options) -> MethodOutput:
    """Quality-weighted fusion of the leading kernel principal components and the classic series.

    The panel: the first ``n_components`` kernel principal component scores of
    :meth:`Segment.beat_matrix` (σ² chosen as for ``kpca``, by the estimator),
    the R amplitude and the QRS area (all valid beats) and, with ``rsa``, the
    instantaneous heart rate (:func:`rsa_edr`) and, with ``shape``, the QRS slopes
    (:func:`edr.qrs_shape.qrs_slopes`), each on the grid, band-passed and
    standardised; the output is their :func:`edr.fusion.fuse` (weights from the
    local spectral concentrations and the agreement between the series,
    :func:`edr.fusion.panel_weights`; aligned in time and sign with the heaviest
    series that is not the heart rate). When
    breathing dominates the beat-to-beat variance the first component dominates
    the fusion; when a morphology step, an ectopic cluster, drift or an aliased
    mains line does, the series that still breathe together take over.

    Parameters
    ----------
    seg : Segment
    n_components : int, default :data:`FUSION_COMPONENTS`
        Leading components in the panel (at most the beats minus one).
    rsa : bool, default :data:`FUSION_RSA`
        Whether the heart rate (respiratory sinus arrhythmia) enters the panel.
    baseline : str, default :data:`FUSION_BASELINE`
        Baseline handling of the QRS matrix whose components enter the panel (one of
        :data:`BASELINES`).
    shape : bool, default False
        Whether the QRS up- and downstroke enter the panel (the extraction sets it for a
        window of one lead alone: :data:`ONE_LEAD_SHAPE`).
    **kpca_options
        As :func:`kpca_edr` (``solver="dense"`` and ``orientation="beats"`` only).

    Returns
    -------
    MethodOutput
        ``kind="grid"``; quality: the ``kpca`` figures, ``weights`` (per panel
        series, summing to 1) and ``best`` (the series the others were aligned to);
        ``panel``: the fused series.

    See Also
    --------
    kpca_edr, edr.fusion.fuse, fusion_beat_series

    References
    ----------
    .. [1] D. Widjaja, C. Varon, A. C. Dorado, J. A. K. Suykens and S. Van Huffel, "Application of
       kernel principal component analysis for single-lead ECG-derived respiration," IEEE Trans.
       Biomed. Eng. 59(4), 1169-1176, 2012. The kPCA series.
    .. [2] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. The
       σ² selection (MDD, Sec. IV, Eqs. (11)-(15)).
    .. [3] P. H. Charlton, T. Bonnici, L. Tarassenko, D. A. Clifton, R. Beale and P. J. Watkinson,
       "An assessment of algorithms to estimate respiratory rate from the electrocardiogram and
       photoplethysmogram," Physiol. Meas. 37(4), 610-626, 2016. Fusion of respiratory features by
       their quality.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats import detect
    >>> from edr.methods import Segment
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> seg = Segment(rec.ecg, rec.fs, 0.0, detect(rec.ecg, rec.fs), np.arange(240) / 4.0)
    >>> from edr.methods import kpca_fusion_edr
    >>> out = kpca_fusion_edr(seg, random_state=0)
    >>> out.kind, out.values.shape == seg.grid.shape
    ('grid', True)
    >>> sorted(out.weights)
    ['kpca_1', 'kpca_2', 'kpca_3', 'qrs_area', 'r_amplitude', 'rsa']
    >>> round(sum(out.weights.values()), 6)
    1.0
    """
    opts = KernelOptions.from_kwargs(baseline=baseline, **kpca_options)
    if opts.solver != "dense" or opts.orientation != "beats":
        raise ValueError("kpca_fusion needs solver='dense' and orientation='beats'; got "
                         f"solver={opts.solver!r}, orientation={opts.orientation!r}")
    if isinstance(n_components, (bool, np.bool_)) or not isinstance(n_components,
                                                                    (int, np.integer)) \
            or n_components < 1:
        raise ValueError(f"n_components must be a positive integer, got {n_components!r}")
    check_flag(rsa, "rsa")
    check_flag(shape, "shape")
    seg.require_beats()
    X, t, n_out = seg.beat_matrix(opts.baseline, opts.robust)
    # the classic series first: they do not wait for the kernel PCA, whose σ² selection shares
    # its threads with the other leads' (the lead that finishes last has less left to do)
    classic = {k: band_passed(series_on_grid(seg, o), seg.fs_out)
               for k, o in _beat_series(seg, rsa, bool(shape)).items()}
    columns = unclipped_columns(seg.ecg, seg.beats, seg.matrix(opts.baseline).shape[1])
    model = opts.kernel_pca(min(int(n_components), X.shape[0] - 1))
    Z = model.fit_transform(X)
    passed = {f"kpca_{j + 1}": band_passed(series_on_grid(seg, MethodOutput(t, Z[:, j])),
                                           seg.fs_out) for j in range(Z.shape[1])}
    passed.update(classic)
    scales = {k: float(y.std()) for k, y in passed.items()}
    panel = {k: y / scales[k] if scales[k] > 0 else y for k, y in passed.items()}
    fused = fuse(panel, seg.fs_out, max_hz=carried_hz(seg.beat_times[seg.valid]))
    selection = getattr(model, "selection_", None)
    q = {"solver": "dense", "n_outliers": n_out, "n_features": int(X.shape[1]),
         "eigenvalue": float(model.eigenvalues_[0]), **selection_quality(selection),
         "weights": {k: float(w) for k, w in fused.weights.items()}, "best": fused.best}
    fit = KernelFit(model, columns, opts.baseline, opts.robust, bool(rsa), scales, Z, bool(shape))
    return MethodOutput(seg.grid, fused.series, "grid", float(model.sigma2_), selection, q, panel,
                        fused.weights, fit)


def _beat_series(seg: Segment, rsa: bool, shape: bool = False,
                 since: float | None = None) -> dict:
    """The classic per-beat series of the ``kpca_fusion`` panel: R amplitude and QRS area of the
    valid beats, with ``shape`` the QRS slopes of those beats whose values are finite
    (:func:`edr.qrs_shape.qrs_slopes`) and, with ``rsa`` and enough beats, the heart rate
    (:func:`rsa_edr`); with ``since``, their samples from that record time on."""
    v = seg.valid
    tv = seg.beat_times[v]
    series = {"r_amplitude": MethodOutput(tv, seg.r_amplitudes()[v]),
              "qrs_area": MethodOutput(tv, seg.qrs_areas()[v])}
    if shape:
        for k, y in qrs_slopes(seg.matrix("none")[v], MATRIX_RATE_HZ).items():
            ok = np.isfinite(y)
            series[k] = MethodOutput(tv[ok], y[ok])
    if rsa:
        heart_rate = rsa_edr(seg)
        if heart_rate.values.size >= MIN_BEATS:
            series["rsa"] = heart_rate
    if since is not None:
        series = {k: MethodOutput(o.times[o.times >= since], o.values[o.times >= since])
                  for k, o in series.items()}
    return series


def fusion_beat_series(seg: Segment, fit: KernelFit, since: float | None = None) -> dict:
    """The per-beat series of the ``kpca_fusion`` panel of ``seg``'s beats, with the kernel
    components of a model fitted on other beats (``fit``, e.g. an earlier stretch of the lead).

    The valid beats' QRS matrix (``fit``'s baseline and columns) has its slow morphology
    changes removed and its outlier beats left out as in the fit
    (:func:`edr.modulation.robust_beat_matrix` over ``seg``, its running medians compiled
    whatever the number of beats: a stream's span); the other rows are projected
    (``fit.model.transform``). The fit's own segment gives its component scores (those of
    the fit itself: :meth:`KernelFit.scores_of`).
    With ``since`` (record time, s) only the beats from then on are projected and returned; the
    robust matrix still takes every beat of ``seg``.

    Returns
    -------
    dict of str to MethodOutput
        ``kpca_1`` ... (beat-sampled), ``r_amplitude``, ``qrs_area`` and ``rsa`` as
        :func:`kpca_fusion_edr` builds them.

    See Also
    --------
    kpca_fusion_edr : the fit this function reuses.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats import detect
    >>> from edr.methods import Segment
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> seg = Segment(rec.ecg, rec.fs, 0.0, detect(rec.ecg, rec.fs), np.arange(240) / 4.0)
    >>> from edr.methods import fusion_beat_series, kpca_fusion_edr
    >>> out = kpca_fusion_edr(seg, random_state=0)
    >>> sorted(fusion_beat_series(seg, out.model))
    ['kpca_1', 'kpca_2', 'kpca_3', 'qrs_area', 'r_amplitude', 'rsa']
    """
    v = seg.valid
    t = seg.beat_times[v]
    X = seg.matrix(fit.baseline)[v][:, fit.columns]
    keep = np.ones(t.size, dtype=bool)
    if fit.robust:
        X, keep = robust_beat_matrix(X, t, compiled=True)
    if since is not None:
        keep &= t >= since
    series = {}
    if keep.any():
        Z = fit.scores_of(X[keep])
        series = {f"kpca_{j + 1}": MethodOutput(t[keep], Z[:, j]) for j in range(Z.shape[1])}
    series.update(_beat_series(seg, fit.rsa, fit.shape, since))
    return series
