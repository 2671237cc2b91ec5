"""EDR methods: one function per way of turning an ECG segment into a respiratory series.

Every method takes a :class:`Segment` (one lead, one analysis window, its
detected :class:`edr.beats.Beats`) and returns a :class:`MethodOutput`: a
series sampled either at the beat times (``kind="beats"``) or on the uniform
output grid of the window (``kind="grid"``); :func:`series_on_grid` puts
either kind on the grid. The registry :data:`METHODS` maps keys to
:class:`MethodSpec` entries; :func:`get_method` looks a key up.

Methods
-------
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
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from edr.beats import Beats
from edr.errors import SignalError
from edr.fusion import aligned_sum, band_passed, fuse, panel_weights, standardised
from edr.modulation import (
    MATRIX_RATE_HZ,
    qrs_matrix,
    r_amplitude,
    rail_free_columns,
    robust_beat_matrix,
)
from edr.modulation import qrs_area as _qrs_area
from edr.names import DEFAULT_N_SUPPORT, DEFAULT_SIGMA2
from edr.names import SOLVER_NAMES as SOLVERS
from edr.quiet import ignored_warnings
from edr.signal import BAND_HZ, GRID_FS, MIN_BEATS, to_uniform_grid

__all__ = [
    "METHODS",
    "KernelFit",
    "KernelOptions",
    "MethodOutput",
    "MethodSpec",
    "Segment",
    "fusion_beat_series",
    "get_method",
    "check_sigma2",
    "check_solver",
    "series_on_grid",
    "beat_series_on_grid",
    "NEUROKIT_VARIANTS",
    "ORIENTATIONS",
    "SOLVERS",
    "DEFAULT_N_SUPPORT",
]

NEUROKIT_VARIANTS = ("vangent2019", "soni2019", "charlton2016", "sarkar2015")
ORIENTATIONS = ("beats", "positions")
FS2_TRAIN_ONS = ("all", "support")
FS2_TRAIN_ON = "all"
"""Where the FS2 model takes its principal axis from (option ``train_on``, see
:class:`kpca.largescale.FixedSizeKernelPCA`): ``"all"`` — PCA of the centred Nyström features of
every beat; ``"support"`` — kernel PCA of the ``M`` support vectors alone
(``docs/design.md#edr-fs2-principal-axis``)."""
BASELINES = ("detrend", "none", "pr", "centred")
MATRIX_BASELINE = "detrend"
"""Default baseline handling of the QRS matrix for ``kpca`` and ``pca`` (option ``baseline``).

``"none"``: raw windows; ``"pr"``: the PR-segment median of each beat removed
(:func:`edr.modulation.qrs_matrix`); ``"detrend"``: raw windows minus the drift of the beat
baseline — the PR-segment levels low-passed at :data:`DRIFT_CUTOFF_HZ` (zero-phase
Butterworth on the :data:`edr.signal.GRID_FS` grid) — so the respiratory baseline modulation
stays and slower drift goes (``docs/design.md#edr-qrs-matrix-baseline``); ``"centred"``: each
window minus its own mean, so that no offset of a beat, whatever its origin, enters the matrix
— only the QRS shape and scale.
"""
DRIFT_CUTOFF_HZ = BAND_HZ[0]
"""Cut-off (Hz) below which the beat baseline counts as drift: the lower edge of the respiratory
band."""
CLIPPED_BEATS_FRACTION = 0.5
"""Rail columns are dropped from the matrix when at least this fraction of the beats is clipped."""
CLIPPED_COLUMN_FRACTION = 0.05
"""A column is at the rail when it is clipped in more than this fraction of the valid beats."""
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
NEUROKIT_MIN_PEAKS = 4
"""Fewest R peaks the NeuroKit2 peers accept."""
_POSITIONS = {"orientation": "positions"}


@dataclass
class Segment:
    """One lead over one analysis window, with its beats.

    Attributes
    ----------
    ecg : ndarray, shape (n,)
        The lead's samples in the window (physical units, NaN allowed).
    fs : float
        Sampling rate (Hz).
    t0 : float
        Record time (s) of ``ecg[0]``.
    beats : Beats
        Beats detected on ``ecg`` (positions relative to ``ecg[0]``).
    grid : ndarray
        Record times (s) of the uniform output grid points inside the window.
    fs_out : float
        Rate of that grid (Hz).
    lead : str
        Lead name.
    features : dict
        Per-beat quantities of these beats by name, filled as they are asked for: the QRS
        matrices by baseline (:meth:`matrix`), ``"r_amplitude"`` and ``"qrs_area"``
        (:meth:`r_amplitudes`, :meth:`qrs_areas`). Given ones are used as they are (a stream
        keeps them for the beats it has settled: :class:`edr.stream.features.FeatureCache`).
    """

    ecg: np.ndarray
    fs: float
    t0: float
    beats: Beats
    grid: np.ndarray
    fs_out: float = GRID_FS
    lead: str = ""
    features: dict = field(default_factory=dict, repr=False)

    @property
    def valid(self) -> np.ndarray:
        return np.asarray(self.beats.valid, dtype=bool)

    @property
    def beat_times(self) -> np.ndarray:
        """Record times (s) of every detected beat."""
        return self.t0 + self.beats.times

    def matrix(self, baseline: str = MATRIX_BASELINE) -> np.ndarray:
        """QRS-window matrix (R ± 60 ms, read at :data:`edr.modulation.MATRIX_RATE_HZ` whatever
        the ECG's rate) with ``baseline`` of :data:`BASELINES` (see :data:`MATRIX_BASELINE`),
        cached."""
        if baseline not in BASELINES:
            raise ValueError(f"baseline must be one of {list(BASELINES)}, got {baseline!r}")
        if baseline not in self.features:
            if baseline == "centred":
                raw = self.matrix("none")
                self.features[baseline] = raw - raw.mean(axis=1, keepdims=True)
            elif baseline == "detrend":
                raw, pr = self.matrix("none"), self.matrix("pr")
                level = raw[:, 0] - pr[:, 0]  # each beat's PR-segment level
                self.features[baseline] = raw - _drift(self.beats.times, level,
                                                       self.valid)[:, None]
            else:
                kind = None if baseline == "none" else baseline
                self.features[baseline] = qrs_matrix(self.ecg, self.fs, self.beats, baseline=kind,
                                                     rate_hz=MATRIX_RATE_HZ)
        return self.features[baseline]

    def r_amplitudes(self) -> np.ndarray:
        """:func:`edr.modulation.r_amplitude` of every beat, cached."""
        if "r_amplitude" not in self.features:
            self.features["r_amplitude"] = r_amplitude(self.ecg, self.fs, self.beats)
        return self.features["r_amplitude"]

    def qrs_areas(self) -> np.ndarray:
        """:func:`edr.modulation.qrs_area` of every beat, cached."""
        if "qrs_area" not in self.features:
            self.features["qrs_area"] = _qrs_area(self.ecg, self.fs, self.beats)
        return self.features["qrs_area"]

    def valid_matrix(self, baseline: str = MATRIX_BASELINE) -> np.ndarray:
        """Rows of the valid beats, without the columns clipped in most beats."""
        X = self.matrix(baseline)[self.valid]
        cols = _unclipped_columns(self.ecg, self.beats, X.shape[1])
        return X[:, cols]

    def beat_matrix(self, baseline: str = MATRIX_BASELINE, robust: bool = True):
        """The matrix the kernel methods analyse: ``(X, times, n_outliers)``.

        :meth:`valid_matrix` and the valid beats' times; with ``robust`` the
        matrix of :func:`edr.modulation.robust_beat_matrix` (slow morphology
        changes removed column by column, outlier beats left out).

        Raises
        ------
        SignalError
            Fewer than :data:`edr.signal.MIN_BEATS` beats remain.
        """
        X = self.valid_matrix(baseline)
        t = self.beat_times[self.valid]
        n_out = 0
        if robust:
            X, keep = robust_beat_matrix(X, t)
            n_out = int((~keep).sum())
            X, t = X[keep], t[keep]
        if t.size < MIN_BEATS:
            raise SignalError(f"only {t.size} usable beats in the window starting at {self.t0:.1f} "
                              f"s (lead {self.lead!r}, {n_out} outliers left out); at least "
                              f"{MIN_BEATS} are needed")
        return X, t, n_out

    def require_beats(self, n: int = MIN_BEATS) -> None:
        """Raise :class:`SignalError` when the window has fewer than ``n`` valid beats."""
        nv = int(self.valid.sum())
        if nv < n:
            raise SignalError(f"only {nv} valid beats in the window starting at {self.t0:.1f} s "
                              f"(lead {self.lead!r}); at least {n} are needed")



@dataclass
class MethodOutput:
    """A respiratory series from one window.

    Attributes
    ----------
    times : ndarray
        Record times (s) of the samples.
    values : ndarray
        The series.
    kind : {"beats", "grid"}
        Beat-sampled (cubic spline onto the grid later) or already on ``Segment.grid``.
    sigma2 : float or None
        Kernel width used (kernel methods).
    selection : SelectionResult or None
        Model-selection result when ``sigma2`` was a criterion.
    quality : dict
        Method-specific figures (JSON-serialisable scalars).
    panel : dict
        Fusion methods: the band-passed, standardised series (name -> values on
        ``Segment.grid``) the output was fused from; they also judge its rate
        (:func:`edr.rates.rate_quality`). Empty for the other methods.
    weights : dict
        Fusion methods: the weight of each ``panel`` series in the fusion
        (:func:`edr.fusion.panel_weights`). Empty for the other methods.
    model : KernelFit, dict or None
        ``kpca_fusion``: what it learnt of the segment, enough to give the panel's per-beat
        series of beats it has not seen (:func:`fusion_beat_series`); a dict of lead name to
        :class:`KernelFit` for the fusion of several leads; None for the other methods.
    """

    times: np.ndarray
    values: np.ndarray
    kind: str = "beats"
    sigma2: float | None = None
    selection: object = None
    quality: dict = field(default_factory=dict)
    panel: dict = field(default_factory=dict)
    weights: dict = field(default_factory=dict)
    model: object = None


@dataclass(frozen=True)
class KernelFit:
    """What ``kpca_fusion`` learnt of one lead's segment (:func:`fusion_beat_series` reads it).

    Attributes
    ----------
    model : kpca.KernelPCA
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
    """

    model: object
    columns: np.ndarray
    baseline: str
    robust: bool
    rsa: bool
    scales: dict


@dataclass(frozen=True)
class MethodSpec:
    """Registry entry: the function, whether it uses ``sigma2``, its sign reference, its fixed
    option values and the kernel PCA solvers it takes."""

    func: Callable
    uses_sigma2: bool
    sign_reference: str | None
    description: str
    defaults: dict = field(default_factory=dict)
    solvers: tuple = ("dense",)



def _drift(times, level, valid, fs_grid: float = GRID_FS) -> np.ndarray:
    """Slow part (< :data:`DRIFT_CUTOFF_HZ`) of the per-beat baseline ``level``, at every beat."""
    from scipy import signal

    t, v = times[valid], level[valid]
    if t.size < 2:
        return np.full(times.size, float(np.mean(level)))
    grid = np.arange(t[0], t[-1] + 1e-9, 1.0 / fs_grid)
    y = np.interp(grid, t, v)
    sos = signal.butter(2, DRIFT_CUTOFF_HZ, btype="low", fs=fs_grid, output="sos")
    if grid.size > 3 * (2 * sos.shape[0] + 1) * 4:
        y = signal.sosfiltfilt(sos, y)
    else:
        y = np.full(grid.size, y.mean())
    return np.interp(times, grid, y)


def _unclipped_columns(ecg, beats: Beats, width: int) -> np.ndarray:
    """Columns of the QRS matrix to keep: all, unless most beats are clipped.

    When at least :data:`CLIPPED_BEATS_FRACTION` of the beats are clipped, the
    positions at the rail in more than :data:`CLIPPED_COLUMN_FRACTION` of the
    beats are dropped (:func:`edr.modulation.rail_free_columns`).
    """
    clipped = np.asarray(getattr(beats, "clipped", np.zeros(0, bool)), dtype=bool)
    if clipped.size == 0 or clipped.mean() < CLIPPED_BEATS_FRACTION:
        return np.ones(width, dtype=bool)
    return rail_free_columns(ecg, beats, width, max_fraction=CLIPPED_COLUMN_FRACTION,
                             step=beats.fs / MATRIX_RATE_HZ)




# --------------------------------------------------------------------------- #
# kernel options: the one home of their checks
# --------------------------------------------------------------------------- #
def check_sigma2(sigma2):
    """``sigma2`` as a positive float, or a criterion name as given.

    A name must be known to :func:`kpca.selection.resolve_criterion` (the
    estimators resolve it again when they fit; ``ValueError`` listing the valid keys).
    """
    if isinstance(sigma2, str):
        from kpca.selection import resolve_criterion

        resolve_criterion(sigma2)
        return sigma2
    try:
        s2 = float(sigma2)
    except (TypeError, ValueError):
        raise ValueError("sigma2 must be a positive number or a criterion name, got "
                         f"{sigma2!r}") from None
    if not np.isfinite(s2) or s2 <= 0:
        raise ValueError(f"sigma2 must be a positive number or a criterion name, got {sigma2!r}")
    return s2


def _check_flag(value, name: str) -> None:
    """``ValueError`` unless ``value`` is a bool (Python's or NumPy's)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")


def check_solver(solver) -> str:
    """``solver`` if it is one of :data:`SOLVERS`, else ``ValueError`` listing them."""
    if solver not in SOLVERS:
        raise ValueError(f"unknown solver {solver!r}; valid solvers are {sorted(SOLVERS)}")
    return solver


@dataclass(frozen=True)
class KernelOptions:
    """Validated options of the kernel PCA methods (``kpca``, ``kpca_positions``, ``kpca_rsa``).

    Construction checks every option once: ``sigma2`` (:func:`check_sigma2`;
    a number is stored as float), ``orientation`` in :data:`ORIENTATIONS`, ``solver``
    (:func:`check_solver`), ``n_support`` (None or an integer >= 2) and
    ``train_on`` (in :data:`FS2_TRAIN_ONS`; None stores :data:`FS2_TRAIN_ON`)
    only with ``solver="fs2"``, ``solver="fs2"`` only with
    ``orientation="beats"``, and ``selection_options`` only with a criterion.
    ``baseline`` is checked by :meth:`Segment.matrix`.

    Raises
    ------
    ValueError
        Any invalid value, naming it.
    TypeError
        ``selection_options`` with a fixed ``sigma2``.
    """

    sigma2: float | str = DEFAULT_SIGMA2
    random_state: object = None
    orientation: str = "beats"
    baseline: str = MATRIX_BASELINE
    solver: str = "dense"
    n_support: int | None = None
    train_on: str | None = None
    selection_options: Mapping = field(default_factory=dict)
    robust: bool = True

    @classmethod
    def from_kwargs(cls, sigma2=DEFAULT_SIGMA2, random_state=None, orientation="beats",
                    baseline=MATRIX_BASELINE, solver="dense", n_support=None, train_on=None,
                    robust=True, **selection_options) -> KernelOptions:
        """The options of :func:`kpca_edr`'s keyword arguments (unknown keys: selection options)."""
        return cls(sigma2, random_state, orientation, baseline, solver, n_support, train_on,
                   selection_options, robust)

    def __post_init__(self):
        if self.orientation not in ORIENTATIONS:
            raise ValueError(f"orientation must be one of {list(ORIENTATIONS)}, got "
                             f"{self.orientation!r}")
        check_solver(self.solver)
        for name in ("n_support", "train_on"):
            value = getattr(self, name)
            if self.solver == "dense" and value is not None:
                raise ValueError(f"{name} applies to solver='fs2' only; got {name}={value!r} "
                                 f"with solver='dense'")
        n = self.n_support
        if n is not None and (isinstance(n, (bool, np.bool_)) or not isinstance(n,
                                                                                (int, np.integer))
                              or n < 2):
            raise ValueError(f"n_support must be None or an integer >= 2, got {n!r}")
        train_on = FS2_TRAIN_ON if self.train_on is None else self.train_on
        if train_on not in FS2_TRAIN_ONS:
            raise ValueError(f"train_on must be one of {list(FS2_TRAIN_ONS)}, got {train_on!r}")
        if self.solver == "fs2" and self.orientation != "beats":
            raise ValueError(f"solver='fs2' needs a kernel PCA method with beats as data points "
                             f"(orientation='beats'); got orientation={self.orientation!r}")
        sigma2 = check_sigma2(self.sigma2)
        if self.selection_options and not isinstance(sigma2, str):
            raise TypeError(f"options {sorted(self.selection_options)} apply to a sigma2 criterion "
                            f"only; sigma2={self.sigma2!r} is fixed")
        _check_flag(self.robust, "robust")
        object.__setattr__(self, "sigma2", sigma2)
        object.__setattr__(self, "train_on", train_on)
        object.__setattr__(self, "selection_options", dict(self.selection_options))

    @property
    def by_criterion(self) -> bool:
        """Whether ``sigma2`` is a criterion name (chosen by the estimator)."""
        return isinstance(self.sigma2, str)

    def kernel_pca(self, n_components: int = 1):
        """Unfitted ``kpca.KernelPCA(n_components, ...)``; it resolves ``sigma2`` itself."""
        from kpca import KernelPCA

        return KernelPCA(n_components=n_components, sigma2=self.sigma2,
                         random_state=self.random_state,
                         selection_options=self.selection_options or None)

    def fixed_size_kpca(self, n_support: int):
        """Unfitted ``kpca.largescale.FixedSizeKernelPCA`` with ``n_c = 1`` and ``n_support``
        vectors."""
        from kpca.largescale import FixedSizeKernelPCA

        return FixedSizeKernelPCA(1, self.sigma2, n_support=n_support,
                                  train_on=self.train_on,
                                  selection_options=self.selection_options or None,
                                  random_state=self.random_state)

    def support_size(self, n_beats: int) -> int:
        """FS2 support-vector count ``M`` for ``n_beats`` valid beats (None: the default, capped).

        A σ² criterion needs a validation set outside the support vectors, so
        then ``M <= n_beats - 1``.
        """
        top = n_beats - 1 if self.by_criterion else n_beats
        if self.n_support is None:
            return min(DEFAULT_N_SUPPORT, top)
        if not 2 <= self.n_support <= top:
            why = " (a sigma2 criterion needs at least one beat outside the support vectors)" \
                if self.by_criterion else ""
            raise ValueError(f"n_support must be in [2, {top}] for {n_beats} valid beats{why}; "
                             f"got n_support={self.n_support}")
        return int(self.n_support)


def _selection_quality(sel) -> dict:
    """``criterion`` and, for MDD, ``margin = lambda_1 - tau_1`` at the chosen width."""
    if sel is None:
        return {}
    out = {"criterion": str(sel.criterion)}
    if sel.data_spectra is not None and sel.noise_spectra is not None:
        k = int(np.argmin(np.abs(np.log(np.asarray(sel.grid)) - np.log(sel.sigma2))))
        lam = np.asarray(sel.data_spectra)[k, 0]
        tau = np.asarray(sel.noise_spectra)[k, 0]
        out["margin"] = float(lam - tau)
    return out


# --------------------------------------------------------------------------- #
# methods
# --------------------------------------------------------------------------- #
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
        ``"dense"``: :class:`kpca.KernelPCA` of all valid beats of the segment;
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
    q.update(_selection_quality(selection))
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
    """:func:`kpca_edr` with ``orientation="positions"``."""
    return kpca_edr(seg, **{**_POSITIONS, **kw})


def pca_edr(seg: Segment, *, baseline=MATRIX_BASELINE) -> MethodOutput:
    """First linear principal component score of the QRS matrix (beats as data points)."""
    seg.require_beats()
    X = seg.valid_matrix(baseline)
    Xc = X - X.mean(axis=0)
    u, s, _ = np.linalg.svd(Xc, full_matrices=False)
    return MethodOutput(seg.beat_times[seg.valid], u[:, 0] * s[0], "beats",
                        quality={"explained_variance_ratio": float(s[0] ** 2 / np.sum(s ** 2))})


def r_amplitude_edr(seg: Segment) -> MethodOutput:
    """R-wave amplitude per valid beat (:func:`edr.modulation.r_amplitude`)."""
    seg.require_beats()
    v = seg.r_amplitudes()[seg.valid]
    return MethodOutput(seg.beat_times[seg.valid], v, "beats")


def qrs_area_edr(seg: Segment) -> MethodOutput:
    """QRS area per valid beat (:func:`edr.modulation.qrs_area`)."""
    seg.require_beats()
    v = seg.qrs_areas()[seg.valid]
    return MethodOutput(seg.beat_times[seg.valid], v, "beats")


def rsa_edr(seg: Segment) -> MethodOutput:
    """Instantaneous heart rate ``60 / RR`` (bpm) at each beat closing an RR between two valid
    beats."""
    seg.require_beats()
    t = seg.beat_times
    ok = seg.valid[1:] & seg.valid[:-1]
    rr = np.diff(t)[ok]
    return MethodOutput(t[1:][ok], 60.0 / rr, "beats")


def _neurokit(variant):
    def method(seg: Segment) -> MethodOutput:
        import neurokit2 as nk

        peaks = np.rint(seg.beats.peaks).astype(int)
        if peaks.size < NEUROKIT_MIN_PEAKS:
            raise SignalError(f"only {peaks.size} beats in the window; neurokit_{variant} "
                              f"needs {NEUROKIT_MIN_PEAKS}")
        with ignored_warnings():
            rate = nk.ecg_rate(peaks, sampling_rate=seg.fs, desired_length=seg.ecg.size)
            rsp = nk.ecg_rsp(rate, sampling_rate=seg.fs, method=variant)
        t = seg.t0 + np.arange(rsp.size) / seg.fs
        return MethodOutput(seg.grid, np.interp(seg.grid, t, rsp), "grid")

    method.__name__ = f"neurokit_{variant}"
    method.__doc__ = (f"NeuroKit2 ``ecg_rsp(method={variant!r})`` on the heart rate of the "
                      "detected beats.")
    return method


def series_on_grid(seg: Segment, out: MethodOutput) -> np.ndarray:
    """``out`` on the segment's grid: as is for ``kind="grid"``, else the cubic spline of
    :func:`edr.signal.to_uniform_grid` over ``seg.grid`` (held constant beyond the end beats)."""
    if out.kind == "grid":
        return np.asarray(out.values, dtype=float)
    _, y = to_uniform_grid(out.times, out.values, fs=seg.fs_out, t_start=seg.grid[0],
                           t_end=seg.grid[0] + (seg.grid.size - 1) / seg.fs_out)
    return y


def beat_series_on_grid(seg: Segment, series: Mapping[str, MethodOutput]) -> dict:
    """:func:`series_on_grid` of several beat-sampled series, one spline per set of series
    sampled at the same times; the series with fewer than 4 finite samples are left out."""
    groups: dict = {}
    for key, out in series.items():
        groups.setdefault(np.asarray(out.times, dtype=float).tobytes(), []).append(key)
    grid = {}
    for keys in groups.values():
        t = np.asarray(series[keys[0]].times, dtype=float)
        values = np.column_stack([series[k].values for k in keys])
        if np.isfinite(values).all(axis=1).sum() < 4:
            continue
        _, y = to_uniform_grid(t, values, fs=seg.fs_out, t_start=seg.grid[0],
                               t_end=seg.grid[0] + (seg.grid.size - 1) / seg.fs_out)
        grid.update({k: y[:, i] for i, k in enumerate(keys)})
    return grid


def kpca_rsa_edr(seg: Segment, **kpca_options) -> MethodOutput:
    """Quality-weighted fusion of the ``kpca`` and ``rsa`` series (see the module docstring).

    Quality adds ``weight_kpca`` and ``weight_rsa`` (summing to 1) to the ``kpca`` figures.
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
                    baseline=FUSION_BASELINE, **kpca_options) -> MethodOutput:
    """Quality-weighted fusion of the leading kernel principal components and the classic series.

    The panel: the first ``n_components`` kernel principal component scores of
    :meth:`Segment.beat_matrix` (σ² chosen as for ``kpca``, by the estimator),
    the R amplitude and the QRS area (all valid beats) and, with ``rsa``, the
    instantaneous heart rate (:func:`rsa_edr`), each on the grid, band-passed and
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
    **kpca_options
        As :func:`kpca_edr` (``solver="dense"`` and ``orientation="beats"`` only).

    Returns
    -------
    MethodOutput
        ``kind="grid"``; quality: the ``kpca`` figures, ``weights`` (per panel
        series, summing to 1) and ``best`` (the series the others were aligned to);
        ``panel``: the fused series.
    """
    opts = KernelOptions.from_kwargs(baseline=baseline, **kpca_options)
    if opts.solver != "dense" or opts.orientation != "beats":
        raise ValueError("kpca_fusion needs solver='dense' and orientation='beats'; got "
                         f"solver={opts.solver!r}, orientation={opts.orientation!r}")
    if isinstance(n_components, (bool, np.bool_)) or not isinstance(n_components,
                                                                    (int, np.integer)) \
            or n_components < 1:
        raise ValueError(f"n_components must be a positive integer, got {n_components!r}")
    _check_flag(rsa, "rsa")
    seg.require_beats()
    X, t, n_out = seg.beat_matrix(opts.baseline, opts.robust)
    model = opts.kernel_pca(min(int(n_components), X.shape[0] - 1))
    Z = model.fit_transform(X)
    series = {f"kpca_{j + 1}": MethodOutput(t, Z[:, j]) for j in range(Z.shape[1])}
    series.update(_beat_series(seg, rsa))
    passed = {k: band_passed(series_on_grid(seg, o), seg.fs_out) for k, o in series.items()}
    scales = {k: float(y.std()) for k, y in passed.items()}
    panel = {k: y / scales[k] if scales[k] > 0 else y for k, y in passed.items()}
    fused = fuse(panel, seg.fs_out)
    selection = getattr(model, "selection_", None)
    q = {"solver": "dense", "n_outliers": n_out, "n_features": int(X.shape[1]),
         "eigenvalue": float(model.eigenvalues_[0]), **_selection_quality(selection),
         "weights": {k: float(w) for k, w in fused.weights.items()}, "best": fused.best}
    columns = _unclipped_columns(seg.ecg, seg.beats, seg.matrix(opts.baseline).shape[1])
    fit = KernelFit(model, columns, opts.baseline, opts.robust, bool(rsa), scales)
    return MethodOutput(seg.grid, fused.series, "grid", float(model.sigma2_), selection, q, panel,
                        fused.weights, fit)


def _beat_series(seg: Segment, rsa: bool, since: float | None = None) -> dict:
    """The classic per-beat series of the ``kpca_fusion`` panel: R amplitude and QRS area of the
    valid beats and, with ``rsa`` and enough beats, the heart rate (:func:`rsa_edr`); with
    ``since``, their samples from that record time on."""
    v = seg.valid
    tv = seg.beat_times[v]
    series = {"r_amplitude": MethodOutput(tv, seg.r_amplitudes()[v]),
              "qrs_area": MethodOutput(tv, seg.qrs_areas()[v])}
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
    (:func:`edr.modulation.robust_beat_matrix` over ``seg``); the other rows are projected
    (``fit.model.transform``). Projecting the fit's own segment gives its component scores.
    With ``since`` (record time, s) only the beats from then on are projected and returned; the
    robust matrix still takes every beat of ``seg``.

    Returns
    -------
    dict of str to MethodOutput
        ``kpca_1`` ... (beat-sampled), ``r_amplitude``, ``qrs_area`` and ``rsa`` as
        :func:`kpca_fusion_edr` builds them.
    """
    v = seg.valid
    t = seg.beat_times[v]
    X = seg.matrix(fit.baseline)[v][:, fit.columns]
    keep = np.ones(t.size, dtype=bool)
    if fit.robust:
        X, keep = robust_beat_matrix(X, t)
    if since is not None:
        keep &= t >= since
    series = {}
    if keep.any():
        Z = fit.model.transform(X[keep])
        series = {f"kpca_{j + 1}": MethodOutput(t[keep], Z[:, j]) for j in range(Z.shape[1])}
    series.update(_beat_series(seg, fit.rsa, since))
    return series


_MORPH = "r_amplitude"
METHODS: dict[str, MethodSpec] = {
    "kpca_fusion": MethodSpec(kpca_fusion_edr, True, _MORPH,
                              "quality-weighted fusion of the leading kPCA components, R amplitude "
                              "and QRS area (default)"),
    "kpca": MethodSpec(kpca_edr, True, _MORPH, "kernel PCA of the QRS windows, n_c = 1",
                       solvers=SOLVERS),
    "kpca_positions": MethodSpec(kpca_positions_edr, True, _MORPH,
                                 "kernel PCA with the sample positions as data points (pre-image "
                                 "denoising)",
                                 dict(_POSITIONS)),
    "kpca_rsa": MethodSpec(kpca_rsa_edr, True, _MORPH, "quality-weighted fusion of kpca and rsa",
                           solvers=SOLVERS),
    "pca": MethodSpec(pca_edr, False, _MORPH, "linear PCA of the QRS windows"),
    "r_amplitude": MethodSpec(r_amplitude_edr, False, None, "R-wave amplitude"),
    "qrs_area": MethodSpec(qrs_area_edr, False, _MORPH, "QRS area (R ± 50 ms)"),
    "rsa": MethodSpec(rsa_edr, False, None, "instantaneous heart rate (RSA)"),
}
for _v in NEUROKIT_VARIANTS:
    METHODS[f"neurokit_{_v}"] = MethodSpec(_neurokit(_v), False, None,
                                           f"NeuroKit2 ecg_rsp(method='{_v}')")

def get_method(name: str) -> MethodSpec:
    """Registry lookup; an unknown key raises ``ValueError`` listing the sorted valid keys."""
    try:
        return METHODS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown EDR method {name!r}; valid methods are "
                         f"{sorted(METHODS)}") from None
