"""EDR methods: one function per way of turning an ECG segment into a respiratory series.

Every method takes a :class:`Segment` (one lead, one analysis window, its
detected :class:`edr.beats.Beats`) and returns a :class:`MethodOutput`: a
series sampled either at the beat times (``kind="beats"``) or on the uniform
output grid of the window (``kind="grid"``); :func:`series_on_grid` puts
either kind on the grid. The registry :data:`METHODS` maps keys to
:class:`MethodSpec` entries; :func:`get_method` looks a key up.

Methods
-------
``kpca_fusion`` (the default)
    Quality-weighted fusion of a panel of series, each on the grid, band-passed and
    standardised: the first :data:`FUSION_COMPONENTS` kernel principal component scores of
    the robust QRS-window matrix (baseline :data:`FUSION_BASELINE`, σ² chosen as for
    ``kpca``), the R amplitude, the QRS area, (:data:`FUSION_RSA`) the instantaneous heart
    rate and, when a window analyses one lead alone (:data:`ONE_LEAD_SHAPE`), the QRS up- and
    downstroke; weights from their local spectral concentrations and their agreement, each series
    aligned in time and sign with the heaviest one that is not the heart rate
    (:func:`edr.fusion.fuse`; :func:`kpca_fusion_edr`).
``kpca``
    Kernel PCA (RBF kernel, ``n_c = 1``) of the QRS-window matrix of the valid
    beats (:meth:`Segment.valid_matrix`). ``sigma2`` is a number or a
    :mod:`kpca.selection` criterion; the :mod:`kpca` estimator resolves it and
    the output carries its ``sigma2_`` and ``selection_``. Options
    (:class:`KernelOptions`): ``orientation="beats"`` — each beat is a data
    point and the EDR is its first kernel principal component score;
    ``orientation="positions"`` — each sample position is a data point whose
    features are its values over the beats (centred over the beats), denoised
    with ``n_c = 1`` by the fixed-point pre-image, and the EDR is the first
    right singular vector of the denoised, row-centred series;
    ``solver="fs2"`` — one :class:`kpca.largescale.FixedSizeKernelPCA` with
    ``n_support`` support vectors, every beat projected onto it.
``kpca_positions``
    ``kpca`` with ``orientation="positions"``.
``pca``
    First linear principal component score of the same matrix (beats as data points).
``r_amplitude``, ``qrs_area``
    The classic morphological series (:mod:`edr.modulation`).
``rsa``
    Instantaneous heart rate ``60 / RR`` (bpm) at each beat whose RR interval
    joins two valid beats.
``kpca_rsa``
    The ``kpca`` and ``rsa`` series on the grid, each band-passed and
    standardised, the RSA series sign-aligned to the kPCA series, averaged
    with weights ``spectral_concentration ** edr.fusion.FUSION_POWER`` over the whole
    window (:func:`edr.fusion.panel_weights` without local stretches or agreement).
``neurokit_<variant>``
    ``nk.ecg_rsp(nk.ecg_rate(peaks), method=<variant>)`` on all peaks of
    :func:`edr.beats.detect`, for the variants in :data:`NEUROKIT_VARIANTS`.

Each spec names its sign reference (:attr:`MethodSpec.sign_reference`): the series the
pipeline makes the output correlate positively with (``"r_amplitude"`` for the
morphological methods, None for the heart-rate based ones and ``r_amplitude``
itself). Why the defaults are what they are: ``docs/design.md#2-edr-pipeline-decisions``.

The package's modules: :mod:`~edr.methods.segment` (:class:`Segment`, :class:`MethodOutput`),
:mod:`~edr.methods.kernel_options` (:class:`KernelOptions` and its checks),
:mod:`~edr.methods.kernel_methods` (``kpca``, ``kpca_positions``, ``pca``),
:mod:`~edr.methods.classic` (``r_amplitude``, ``qrs_area``, ``rsa``),
:mod:`~edr.methods.neurokit` (the NeuroKit2 peers), :mod:`~edr.methods.grid` (series onto the
grid) and :mod:`~edr.methods.fused` (``kpca_fusion``, ``kpca_rsa``); the registry is here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from edr.methods.classic import qrs_area_edr, r_amplitude_edr, rsa_edr
from edr.methods.fused import (
    FUSION_BASELINE,
    FUSION_COMPONENTS,
    FUSION_RSA,
    ONE_LEAD_SHAPE,
    KernelFit,
    fusion_beat_series,
    kpca_fusion_edr,
    kpca_rsa_edr,
)
from edr.methods.grid import beat_series_on_grid, series_on_grid
from edr.methods.kernel_methods import POSITIONS, kpca_edr, kpca_positions_edr, pca_edr
from edr.methods.kernel_options import (
    DEFAULT_N_SUPPORT,
    DEFAULT_SIGMA2,
    FS2_TRAIN_ON,
    FS2_TRAIN_ONS,
    ORIENTATIONS,
    SOLVERS,
    KernelOptions,
    check_sigma2,
    check_solver,
)
from edr.methods.neurokit import NEUROKIT_MIN_PEAKS, NEUROKIT_VARIANTS, neurokit_method
from edr.methods.segment import (
    BASELINES,
    CLIPPED_BEATS_FRACTION,
    CLIPPED_COLUMN_FRACTION,
    DRIFT_CUTOFF_HZ,
    MATRIX_BASELINE,
    MethodOutput,
    Segment,
)

__all__ = [
    "BASELINES",
    "CLIPPED_BEATS_FRACTION",
    "CLIPPED_COLUMN_FRACTION",
    "DEFAULT_N_SUPPORT",
    "DEFAULT_SIGMA2",
    "DRIFT_CUTOFF_HZ",
    "FS2_TRAIN_ON",
    "FS2_TRAIN_ONS",
    "FUSION_BASELINE",
    "FUSION_COMPONENTS",
    "FUSION_RSA",
    "MATRIX_BASELINE",
    "METHODS",
    "NEUROKIT_MIN_PEAKS",
    "NEUROKIT_VARIANTS",
    "ONE_LEAD_SHAPE",
    "ORIENTATIONS",
    "SOLVERS",
    "KernelFit",
    "KernelOptions",
    "MethodOutput",
    "MethodSpec",
    "Segment",
    "beat_series_on_grid",
    "check_sigma2",
    "check_solver",
    "fusion_beat_series",
    "get_method",
    "kpca_edr",
    "kpca_fusion_edr",
    "kpca_positions_edr",
    "kpca_rsa_edr",
    "pca_edr",
    "qrs_area_edr",
    "r_amplitude_edr",
    "rsa_edr",
    "series_on_grid",
]


@dataclass(frozen=True)
class MethodSpec:
    """Registry entry: the function, whether it uses ``sigma2``, its sign reference, its fixed
    option values, the kernel PCA solvers it takes and the options it takes when a window
    analyses one lead alone (``one_lead``; options given explicitly win).

    See Also
    --------
    get_method, METHODS

    Examples
    --------
    >>> from edr.methods import METHODS
    >>> spec = METHODS["kpca"]
    >>> spec.uses_sigma2, spec.sign_reference, spec.solvers
    (True, 'r_amplitude', ('dense', 'fs2'))
    """

    func: Callable
    uses_sigma2: bool
    sign_reference: str | None
    description: str
    defaults: dict = field(default_factory=dict)
    solvers: tuple = ("dense",)
    one_lead: dict = field(default_factory=dict)


_MORPH = "r_amplitude"
METHODS: dict[str, MethodSpec] = {
    "kpca_fusion": MethodSpec(kpca_fusion_edr, True, _MORPH,
                              "quality-weighted fusion of the leading kPCA components, R amplitude "
                              "and QRS area (default)", one_lead={"shape": ONE_LEAD_SHAPE}),
    "kpca": MethodSpec(kpca_edr, True, _MORPH, "kernel PCA of the QRS windows, n_c = 1",
                       solvers=SOLVERS),
    "kpca_positions": MethodSpec(kpca_positions_edr, True, _MORPH,
                                 "kernel PCA with the sample positions as data points (pre-image "
                                 "denoising)",
                                 dict(POSITIONS)),
    "kpca_rsa": MethodSpec(kpca_rsa_edr, True, _MORPH, "quality-weighted fusion of kpca and rsa",
                           solvers=SOLVERS),
    "pca": MethodSpec(pca_edr, False, _MORPH, "linear PCA of the QRS windows"),
    "r_amplitude": MethodSpec(r_amplitude_edr, False, None, "R-wave amplitude"),
    "qrs_area": MethodSpec(qrs_area_edr, False, _MORPH, "QRS area (R ± 50 ms)"),
    "rsa": MethodSpec(rsa_edr, False, None, "instantaneous heart rate (RSA)"),
}
"""Every EDR method by key (and the NeuroKit2 peers, ``neurokit_<variant>``); each key is also in
:data:`edr.names.METHOD_NAMES`, which the command lines check (``CONTRIBUTING.md``)."""
for _v in NEUROKIT_VARIANTS:
    METHODS[f"neurokit_{_v}"] = MethodSpec(neurokit_method(_v), False, None,
                                           f"NeuroKit2 ecg_rsp(method='{_v}')")


def get_method(name: str) -> MethodSpec:
    """Registry lookup; an unknown key raises ``ValueError`` listing the sorted valid keys.

    See Also
    --------
    METHODS : the registry.
    edr.names.METHOD_NAMES : its keys, without importing the methods.

    Examples
    --------
    >>> from edr.methods import get_method
    >>> get_method("rsa").func.__name__
    'rsa_edr'
    >>> get_method("nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown EDR method 'nope'; valid methods are ['kpca', ...]
    """
    try:
        return METHODS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown EDR method {name!r}; valid methods are "
                         f"{sorted(METHODS)}") from None
