"""EDR methods: one function per way of turning an ECG segment into a respiratory series.

Every method takes a :class:`Segment` (one lead, one analysis window, its
detected :class:`edr.beats.Beats`) and returns a :class:`MethodOutput`: a
series sampled either at the beat times (``kind="beats"``) or on the uniform
output grid of the window (``kind="grid"``). :func:`edr.pipeline.extract_edr`
puts every series on the uniform grid, stitches windows and applies the sign
convention; the registry :data:`METHODS` maps author-year / alias keys to
:class:`MethodSpec` entries.

Methods
-------
``kpca``
    Kernel PCA of the QRS-window matrix with ``n_c = 1`` (Widjaja et al. 2012;
    Varon et al. 2015, Sec. VI-C), RBF kernel, ``sigma2`` a number or a
    :mod:`kpca.selection` criterion. Two orientations (option
    ``orientation``):

    * ``"beats"`` (default) — each beat's QRS window is a data point
      (``N = n_beats``, ``d = 2 * 60 ms * fs + 1``); the EDR is the first
      kernel principal component score of each beat (``Kc @ alpha / sqrt(lambda)``).
    * ``"positions"`` — each sample position of the window is a data point whose
      features are its values over the beats (the 2015 paper's "31 time series
      with d up to 349"). The ``d`` series (each centred over the beats) are
      denoised with ``n_c = 1`` through the fixed-point pre-image
      (:meth:`kpca.KernelPCA.denoise`) and the beat series is the first right
      singular vector of the denoised (row-centred) series.

    ``"beats"`` is the default by measurement on the 30 BIDMC records, lead II
    (``scripts/evaluate_bidmc_quick.py``): with the best grid σ² per record
    (oracle yardstick) median MSC 0.47 (beats) against 0.44 (positions), and
    the positions orientation costs a pre-image iteration per window.
    The QRS windows are raw minus the slow drift of the beat baseline (option
    ``baseline``, see :data:`MATRIX_BASELINE`).
    When most beats of the lead are clipped (its R peaks sit at the rail),
    the sample positions that are clipped in more than 5 % of the beats are
    left out of the matrix: they carry no modulation.
``kpca_positions``
    ``kpca`` with ``orientation="positions"``.
``pca``
    Linear PCA of the same matrix (beats as data points): first principal
    component score.
``r_amplitude``, ``qrs_area``
    The classic morphological series (:mod:`edr.modulation`).
``rsa``
    Respiratory sinus arrhythmia: instantaneous heart rate ``60 / RR`` (bpm)
    at each beat whose RR interval joins two valid beats.
``kpca_rsa``
    Morphology + RSA: the ``kpca`` and ``rsa`` series of the window, each on
    the grid, band-passed and standardised; the RSA series is sign-aligned to
    the kPCA series (sign of their correlation) and the two are averaged with
    weights equal to their spectral concentration (fraction of the 0.05–1 Hz
    power within ±0.05 Hz of the peak) raised to :data:`FUSION_POWER`. An ECG
    whose morphology barely modulates but whose heart rate does (healthy
    subjects at rest) leans on the RSA series, and vice versa.
``neurokit_<variant>``
    NeuroKit2 peers: ``nk.ecg_rsp(nk.ecg_rate(peaks), method=<variant>)`` for
    ``vangent2019``, ``soni2019``, ``charlton2016`` and ``sarkar2015``, on the
    peaks of :func:`edr.beats.detect` (all of them, as NeuroKit2 would).

Sign convention (applied by the pipeline, see :data:`SIGN_REFERENCE`)
---------------------------------------------------------------------
A morphological EDR has no physiological sign, so a deterministic one is
imposed: morphological methods (``kpca``, ``kpca_positions``, ``pca``,
``qrs_area``, ``kpca_rsa``) are flipped to correlate positively with the
lead's R-amplitude series (baseline-corrected, upright polarity); ``r_amplitude``
is its own reference; heart-rate based methods (``rsa``, ``neurokit_*``) keep
the sign of the heart rate, which rises with inspiration.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from edr.beats import Beats
from edr.evaluate.metrics import bandpass, to_uniform_grid
from edr.modulation import qrs_area as _qrs_area
from edr.modulation import qrs_matrix, r_amplitude, rail_free_columns

__all__ = [
    "METHODS",
    "MethodOutput",
    "MethodSpec",
    "Segment",
    "get_method",
    "spectral_concentration",
    "NEUROKIT_VARIANTS",
    "ORIENTATIONS",
    "SOLVERS",
    "DEFAULT_N_SUPPORT",
]

NEUROKIT_VARIANTS = ("vangent2019", "soni2019", "charlton2016", "sarkar2015")
ORIENTATIONS = ("beats", "positions")
SOLVERS = ("dense", "fs2")
"""Kernel PCA solvers of ``kpca`` (option ``solver``): dense :class:`kpca.KernelPCA` of the
window's beats, or one :class:`kpca.largescale.FixedSizeKernelPCA` (FS2 + Nyström)."""
DEFAULT_N_SUPPORT = 200
"""FS2 support vectors ``M`` when ``n_support=None`` (capped below the number of valid beats)."""
FS2_TRAIN_ONS = ("all", "support")
FS2_TRAIN_ON = "all"
"""Where the FS2 model takes its principal axis from (option ``train_on``, see
:class:`kpca.largescale.FixedSizeKernelPCA`): ``"all"`` — PCA of the centred Nyström features of
every beat (approximates dense kernel PCA of all beats); ``"support"`` — kernel PCA of the ``M``
support vectors alone (the training set of Varon et al. 2015, Sec. VI-A). The support vectors
maximise the Rényi entropy, so they over-represent rare beat shapes. ``"all"`` by measurement
(``scripts/output/measure_largescale_edr.md``, M = 200): on the 30 BIDMC records median MSC / |r|
0.484 / 0.461 ("all") vs 0.439 / 0.400 ("support"), dense kPCA 0.473 / 0.502; on a simulated
24-hour record "support" scored higher (MSC 0.893 vs 0.874; same peak memory since the row-blocked
FS2), but real data decide."""
MIN_BEATS_METHOD = 20
"""Fewest valid beats a window needs for a beat-based method."""
BASELINES = ("detrend", "none", "pr")
MATRIX_BASELINE = "detrend"
"""Default baseline handling of the QRS matrix for ``kpca`` and ``pca`` (option ``baseline``).

``"none"``: raw windows, which keep each beat's baseline shift — itself a
respiratory modulation (baseline wander) in the ICU records; ``"pr"``: the
PR-segment median of each beat removed (:func:`edr.modulation.qrs_matrix`);
``"detrend"`` (default): raw windows minus the *drift* of the beat baseline —
the PR-segment levels low-passed at :data:`DRIFT_CUTOFF_HZ` (zero-phase
Butterworth on a 4 Hz grid), the lower edge of the respiratory band — so the
respiratory baseline modulation stays and slow electrode/movement drift goes.
Measured on the 30 BIDMC records, lead II, kpca + MDD
(``scripts/output/edr_pipeline_study.md``): median MSC / |r| / rate error
0.473 / 0.502 / 0.47 breaths/min detrended, 0.491 / 0.493 / 0.51 raw; the PR
baseline lost badly (median MSC 0.29 against 0.41 raw on the first 17
records). On a simulated record with slow non-respiratory wander the raw
matrix follows the wander while "detrend" and "pr" keep |r| > 0.9
(``tests/edr/test_methods.py``), hence the default.
"""
DRIFT_CUTOFF_HZ = 0.05
"""Cut-off (Hz) below which the beat baseline counts as drift (``baseline="detrend"``)."""
CLIPPED_BEATS_FRACTION = 0.5
CLIPPED_COLUMN_FRACTION = 0.05


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
    """

    ecg: np.ndarray
    fs: float
    t0: float
    beats: Beats
    grid: np.ndarray
    fs_out: float = 4.0
    lead: str = ""
    _matrices: dict = field(default_factory=dict, repr=False)

    @property
    def valid(self) -> np.ndarray:
        return np.asarray(self.beats.valid, dtype=bool)

    @property
    def beat_times(self) -> np.ndarray:
        """Record times (s) of every detected beat."""
        return self.t0 + self.beats.times

    def matrix(self, baseline: str = MATRIX_BASELINE) -> np.ndarray:
        """QRS-window matrix (R ± 60 ms; ``baseline`` "none" or "pr", see :data:`MATRIX_BASELINE`), cached."""
        if baseline not in BASELINES:
            raise ValueError(f"baseline must be one of {list(BASELINES)}, got {baseline!r}")
        if baseline not in self._matrices:
            if baseline == "detrend":
                raw, pr = self.matrix("none"), self.matrix("pr")
                level = raw[:, 0] - pr[:, 0]  # each beat's PR-segment level
                self._matrices[baseline] = raw - _drift(self.beats.times, level, self.valid)[:, None]
            else:
                self._matrices[baseline] = qrs_matrix(self.ecg, self.fs, self.beats,
                                                      baseline=None if baseline == "none" else baseline)
        return self._matrices[baseline]

    def valid_matrix(self, baseline: str = MATRIX_BASELINE) -> np.ndarray:
        """Rows of the valid beats, without the columns clipped in most beats."""
        X = self.matrix(baseline)[self.valid]
        cols = _unclipped_columns(self.ecg, self.beats, X.shape[1])
        return X[:, cols]

    def require_beats(self, n: int = MIN_BEATS_METHOD) -> None:
        from edr.errors import SignalError

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
    """

    times: np.ndarray
    values: np.ndarray
    kind: str = "beats"
    sigma2: float | None = None
    selection: object = None
    quality: dict = field(default_factory=dict)


@dataclass(frozen=True)
class MethodSpec:
    """Registry entry: the function, whether it uses ``sigma2``, and its sign reference."""

    func: Callable
    uses_sigma2: bool
    sign_reference: str | None
    description: str
    defaults: dict = field(default_factory=dict)


def _drift(times, level, valid, fs_grid: float = 4.0) -> np.ndarray:
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
    return rail_free_columns(ecg, beats, width, max_fraction=CLIPPED_COLUMN_FRACTION)


def spectral_concentration(x, fs: float = 4.0, *, band=(0.05, 1.0), half_width_hz: float = 0.05) -> float:
    """Fraction of the in-band Welch power within ``±half_width_hz`` of the in-band peak.

    A respiratory series concentrates its power around the breathing rate; noise
    spreads it. Used as a per-window quality and as the fusion weight.
    """
    from scipy import signal

    x = np.asarray(x, dtype=float)
    if x.size < 16 or not np.all(np.isfinite(x)) or np.ptp(x) == 0:
        return 0.0
    f, p = signal.welch(x - x.mean(), fs=fs, nperseg=min(x.size, int(round(32 * fs))))
    b = (f >= band[0]) & (f <= band[1])
    if not b.any() or p[b].sum() <= 0:
        return 0.0
    fb, pb = f[b], p[b]
    k = int(np.argmax(pb))
    return float(pb[np.abs(fb - fb[k]) <= half_width_hz].sum() / pb.sum())


# --------------------------------------------------------------------------- #
# kernel width
# --------------------------------------------------------------------------- #
def _resolve_sigma2(X, sigma2, random_state, selection_options):
    """(sigma2 value, SelectionResult or None) for data X."""
    if isinstance(sigma2, str):
        from kpca.selection import select

        sel = select(X, sigma2, n_components=1, random_state=random_state, **selection_options)
        return float(sel.sigma2), sel
    if selection_options:
        raise TypeError(f"options {sorted(selection_options)} apply to a sigma2 criterion only; "
                        f"sigma2={sigma2!r} is fixed")
    try:
        s2 = float(sigma2)
    except (TypeError, ValueError):
        raise ValueError(f"sigma2 must be a positive number or a criterion name, got {sigma2!r}") from None
    if not np.isfinite(s2) or s2 <= 0:
        raise ValueError(f"sigma2 must be a positive number or a criterion name, got {sigma2!r}")
    return s2, None


def _selection_quality(sel) -> dict:
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
def kpca_edr(seg: Segment, *, sigma2="mdd", random_state=None, orientation="beats",
             baseline=MATRIX_BASELINE, solver="dense", n_support=None, train_on=None,
             **selection_options) -> MethodOutput:
    """Kernel PCA EDR, ``n_c = 1`` (see the module docstring for the two orientations).

    Parameters
    ----------
    seg : Segment
    sigma2 : float or str, default "mdd"
        Kernel width or a :mod:`kpca.selection` criterion key.
    random_state : None, int or Generator
        Passed to the selection criterion (and to FS2's k-means start and
        validation draw).
    orientation : {"beats", "positions"}, default "beats"
    baseline : {"none", "pr"}, default :data:`MATRIX_BASELINE`
        Baseline handling of the QRS windows.
    solver : {"dense", "fs2"}, default "dense"
        ``"dense"``: :class:`kpca.KernelPCA` of all beats of the segment
        (``N x N`` kernel). ``"fs2"``: fixed-size kernel PCA (Varon et al.
        2015, Sec. V-1, see :func:`_fs2_scores`); ``orientation="beats"`` only.
    n_support : int, optional
        FS2 support vectors ``M`` (``solver="fs2"`` only); None:
        ``min(DEFAULT_N_SUPPORT, N - 1)`` for ``N`` valid beats.
    train_on : {"all", "support"}, optional
        ``solver="fs2"`` only: the principal axis from the Nyström features of
        all beats, or from the support vectors alone; None:
        :data:`FS2_TRAIN_ON`.
    **selection_options
        Passed to :func:`kpca.selection.select` (e.g. the number of noise
        realisations of MDD).
    """
    from kpca import KernelPCA

    if orientation not in ORIENTATIONS:
        raise ValueError(f"orientation must be one of {list(ORIENTATIONS)}, got {orientation!r}")
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {list(SOLVERS)}, got {solver!r}")
    for name, value in (("n_support", n_support), ("train_on", train_on)):
        if solver == "dense" and value is not None:
            raise ValueError(f"{name} applies to solver='fs2' only; got {name}={value!r} "
                             f"with solver='dense'")
    train_on = FS2_TRAIN_ON if train_on is None else train_on
    if train_on not in FS2_TRAIN_ONS:
        raise ValueError(f"train_on must be one of {list(FS2_TRAIN_ONS)}, got {train_on!r}")
    if solver == "fs2" and orientation != "beats":
        raise ValueError(f"solver='fs2' needs orientation='beats' (beats as data points); "
                         f"got orientation={orientation!r}")
    seg.require_beats()
    X = seg.valid_matrix(baseline)
    t = seg.beat_times[seg.valid]
    q = {"solver": solver}
    if solver == "fs2":
        z, model, s2, sel, fs2_quality = _fs2_scores(X, sigma2, n_support, train_on,
                                                     random_state, selection_options)
        q.update(fs2_quality)
    elif orientation == "beats":
        s2, sel = _resolve_sigma2(X, sigma2, random_state, selection_options)
        model = KernelPCA(n_components=1, sigma2=s2, random_state=random_state)
        z = model.fit_transform(X)[:, 0]
    else:
        Y = (X - X.mean(axis=0)).T  # each sample position's series, centred over the beats
        s2, sel = _resolve_sigma2(Y, sigma2, random_state, selection_options)
        model = KernelPCA(n_components=1, sigma2=s2, random_state=random_state)
        Z = model.fit(Y).denoise(Y)
        Z = Z - Z.mean(axis=1, keepdims=True)
        _, _, vt = np.linalg.svd(Z, full_matrices=False)
        z = vt[0]
    q.update({"n_features": int(X.shape[1]), "eigenvalue": float(model.eigenvalues_[0])})
    q.update(_selection_quality(sel))
    return MethodOutput(t, z, "beats", s2, sel, q)


def _check_n_support(n_support, n_beats, by_criterion):
    """FS2 support-vector count ``M`` for ``n_beats`` valid beats (None: the default, capped).

    A σ² criterion needs a validation set outside the support vectors (Varon
    et al. 2015, Fig. 8), so then ``M <= n_beats - 1``.
    """
    top = n_beats - 1 if by_criterion else n_beats
    if n_support is None:
        return min(DEFAULT_N_SUPPORT, top)
    if isinstance(n_support, (bool, np.bool_)) or not isinstance(n_support, (int, np.integer)):
        raise ValueError(f"n_support must be an integer >= 2, got {n_support!r}")
    if not 2 <= n_support <= top:
        why = " (a sigma2 criterion needs at least one beat outside the support vectors)" \
            if by_criterion else ""
        raise ValueError(f"n_support must be in [2, {top}] for {n_beats} valid beats{why}; "
                         f"got n_support={n_support}")
    return int(n_support)


def _fs2_scores(X, sigma2, n_support, train_on, random_state, selection_options):
    """First kernel principal component score of every row of ``X`` from one FS2 model.

    :class:`kpca.largescale.FixedSizeKernelPCA` with ``n_components=1``: ``M``
    support vectors chosen by FS2 (k-means start, quadratic Rényi entropy
    ascent, Eqs. (9)-(10)), σ² (when a criterion) chosen on the support
    vectors with a validation set drawn from the other beats (MDD as in
    Fig. 8, Eqs. (12)-(15); other criteria on the support vectors alone), the
    principal axis (``train_on``: PCA of the centred Nyström features of all
    beats, or kernel PCA of the support vectors), and every beat projected by
    the Nyström out-of-sample extension (Eq. (7) centring); the model works in
    row blocks (:data:`kpca.largescale._blocks.ROW_BLOCK`), so memory is
    ``O(N d + block M + M^2)``, never ``O(N M)`` or ``O(N^2)``.

    Returns
    -------
    z : ndarray, shape (N,)
    model : FixedSizeKernelPCA
    sigma2 : float
    selection : SelectionResult or None
    quality : dict
        ``n_support``, ``n_validation``, ``fs2_swaps`` (accepted entropy
        swaps) and ``renyi_entropy`` (final ``H_R``).
    """
    from kpca.largescale import FixedSizeKernelPCA

    by_criterion = isinstance(sigma2, str)
    if by_criterion:
        from kpca.selection import ALIASES

        key = ALIASES.get(sigma2.strip().lower(), sigma2.strip().lower())
        criterion = "mdd" if key == "varon2015" else key
    else:
        criterion, _ = _resolve_sigma2(X, sigma2, random_state, selection_options)
    M = _check_n_support(n_support, X.shape[0], by_criterion)
    model = FixedSizeKernelPCA(1, criterion, n_support=M, train_on=train_on,
                               selection_options=selection_options or None,
                               random_state=random_state).fit(X)
    z = model.transform(X)[:, 0]
    q = {"n_support": M, "train_on": train_on,
         "n_validation": 0 if model.validation_ is None else int(model.validation_.size),
         "fs2_swaps": int(model.entropy_.size - 1), "renyi_entropy": float(model.entropy_[-1])}
    return z, model, model.sigma2_, model.selection_, q


def kpca_positions_edr(seg: Segment, **kw) -> MethodOutput:
    """:func:`kpca_edr` with ``orientation="positions"``."""
    kw.setdefault("orientation", "positions")
    return kpca_edr(seg, **kw)


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
    v = r_amplitude(seg.ecg, seg.fs, seg.beats)[seg.valid]
    return MethodOutput(seg.beat_times[seg.valid], v, "beats")


def qrs_area_edr(seg: Segment) -> MethodOutput:
    """QRS area per valid beat (:func:`edr.modulation.qrs_area`)."""
    seg.require_beats()
    v = _qrs_area(seg.ecg, seg.fs, seg.beats)[seg.valid]
    return MethodOutput(seg.beat_times[seg.valid], v, "beats")


def rsa_edr(seg: Segment) -> MethodOutput:
    """Instantaneous heart rate ``60 / RR`` (bpm) at each beat closing an RR between two valid beats."""
    seg.require_beats()
    t = seg.beat_times
    ok = seg.valid[1:] & seg.valid[:-1]
    rr = np.diff(t)[ok]
    return MethodOutput(t[1:][ok], 60.0 / rr, "beats")


def _neurokit(variant):
    def method(seg: Segment) -> MethodOutput:
        import neurokit2 as nk

        peaks = np.rint(seg.beats.peaks).astype(int)
        if peaks.size < 4:
            from edr.errors import SignalError

            raise SignalError(f"only {peaks.size} beats in the window; neurokit_{variant} needs 4")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rate = nk.ecg_rate(peaks, sampling_rate=seg.fs, desired_length=seg.ecg.size)
            rsp = nk.ecg_rsp(rate, sampling_rate=seg.fs, method=variant)
        t = seg.t0 + np.arange(rsp.size) / seg.fs
        return MethodOutput(seg.grid, np.interp(seg.grid, t, rsp), "grid")

    method.__name__ = f"neurokit_{variant}"
    method.__doc__ = f"NeuroKit2 ``ecg_rsp(method={variant!r})`` on the heart rate of the detected beats."
    return method


def _on_grid(seg: Segment, out: MethodOutput) -> np.ndarray:
    if out.kind == "grid":
        return np.asarray(out.values, dtype=float)
    _, y = to_uniform_grid(out.times, out.values, fs=seg.fs_out, t_start=seg.grid[0],
                           t_end=seg.grid[0] + (seg.grid.size - 1) / seg.fs_out)
    return y


def _standardised(x, fs):
    y = bandpass(x, fs=fs) if x.size > 27 else x - x.mean()
    sd = y.std()
    return y / sd if sd > 0 else y


FUSION_POWER = 4
"""Exponent on the spectral concentrations used as ``kpca_rsa`` weights.

Measured (fusing the pipeline's kpca and rsa waveforms; exponents 1, 2, 4, 8, and
winner-takes-all): on the 30 BIDMC records median MSC / |r| 0.485 / 0.468 (1), 0.506 / 0.498
(2), 0.504 / 0.513 (4), 0.488 / 0.480 (8), 0.473 / 0.454 (winner); on simulated RSA-dominant
records (edr.simulate, rsa_bpm=8, 2 % amplitude and 1 deg axis modulation, 4 seeds) MSC 0.74,
0.79, 0.92, 0.99, 1.00 where NeuroKit2's ecg_rsp reaches 0.92-0.94. 4 keeps the blend where both
series carry the breathing and follows the RSA series where only it does.  Where both carry it with
different delays (RSA lags the breath) the blend is less coherent than the RSA series alone: on
simulated healthy subjects at rest with a respiratory baseline shift (24 records,
``scripts/measure_where_rsa_is_strong.py``) kpca_rsa has MSC 0.83 / |r| 0.92 against NeuroKit2's
0.90-0.91 / 0.75 and the ``rsa`` series' 0.99 / 0.75; aligning the RSA delay before blending
raised |r| there (0.99) but lowered it on BIDMC (0.517 -> 0.470), so it is not done.  On the BIDMC
records where NeuroKit2 is strongest, kpca_rsa's MSC is at least NeuroKit2's best on each of them
(same script).
"""


def kpca_rsa_edr(seg: Segment, **kpca_options) -> MethodOutput:
    """Quality-weighted fusion of the ``kpca`` and ``rsa`` series (see the module docstring)."""
    k = kpca_edr(seg, **kpca_options)
    r = rsa_edr(seg)
    a = _standardised(_on_grid(seg, k), seg.fs_out)
    b = _standardised(_on_grid(seg, r), seg.fs_out)
    if np.dot(a, b) < 0:
        b = -b
    qa = spectral_concentration(a, seg.fs_out)
    qb = spectral_concentration(b, seg.fs_out)
    wa, wb = (qa ** FUSION_POWER, qb ** FUSION_POWER) if qa + qb > 0 else (1.0, 1.0)
    fused = (wa * a + wb * b) / (wa + wb)
    q = dict(k.quality)
    q.update({"weight_kpca": float(wa / (wa + wb)), "weight_rsa": float(wb / (wa + wb))})
    return MethodOutput(seg.grid, fused, "grid", k.sigma2, k.selection, q)


_MORPH = "r_amplitude"
METHODS: dict[str, MethodSpec] = {
    "kpca": MethodSpec(kpca_edr, True, _MORPH, "kernel PCA of the QRS windows, n_c = 1"),
    "kpca_positions": MethodSpec(kpca_positions_edr, True, _MORPH,
                                 "kernel PCA with the sample positions as data points (pre-image denoising)"),
    "kpca_rsa": MethodSpec(kpca_rsa_edr, True, _MORPH, "quality-weighted fusion of kpca and rsa"),
    "pca": MethodSpec(pca_edr, False, _MORPH, "linear PCA of the QRS windows"),
    "r_amplitude": MethodSpec(r_amplitude_edr, False, None, "R-wave amplitude"),
    "qrs_area": MethodSpec(qrs_area_edr, False, _MORPH, "QRS area (R ± 50 ms)"),
    "rsa": MethodSpec(rsa_edr, False, None, "instantaneous heart rate (RSA)"),
}
for _v in NEUROKIT_VARIANTS:
    METHODS[f"neurokit_{_v}"] = MethodSpec(_neurokit(_v), False, None,
                                           f"NeuroKit2 ecg_rsp(method='{_v}')")

SIGN_REFERENCE = {k: v.sign_reference for k, v in METHODS.items()}
"""Series each method's output is made to correlate positively with (None: kept as is)."""


def get_method(name: str) -> MethodSpec:
    """Registry lookup; an unknown key raises ``ValueError`` listing the sorted valid keys."""
    try:
        return METHODS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown EDR method {name!r}; valid methods are {sorted(METHODS)}") from None
