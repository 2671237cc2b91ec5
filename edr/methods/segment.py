"""The segment model of the methods: one lead over one analysis window and what a method returns.

:class:`Segment` holds the lead's samples, its beats and the output grid, and computes (and
caches) the per-beat quantities the methods read: the QRS-window matrix by baseline
(:data:`BASELINES`), the R amplitudes and the QRS areas. :class:`MethodOutput` is a method's
respiratory series, beat-sampled or on the grid.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from edr import zero_phase
from edr.beats import Beats
from edr.errors import SignalError
from edr.modulation import (
    MATRIX_RATE_HZ,
    qrs_matrix,
    r_amplitude,
    rail_free_columns,
    robust_beat_matrix,
)
from edr.modulation import qrs_area as _qrs_area
from edr.signal import BAND_HZ, GRID_FS, MIN_BEATS, butter_sos

__all__ = ["BASELINES", "CLIPPED_BEATS_FRACTION", "CLIPPED_COLUMN_FRACTION", "DRIFT_CUTOFF_HZ",
           "MATRIX_BASELINE", "MethodOutput", "Segment", "unclipped_columns"]

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

    See Also
    --------
    MethodOutput : what a method makes of it.
    edr.beats.detect : its beats.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats import detect
    >>> from edr.methods import Segment
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> seg = Segment(rec.ecg, rec.fs, 0.0, detect(rec.ecg, rec.fs), np.arange(240) / 4.0)
    >>> seg.lead, int(seg.valid.sum()), seg.beat_times.shape
    ('', 69, (69,))
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
        cols = unclipped_columns(self.ecg, self.beats, X.shape[1])
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

    See Also
    --------
    Segment, edr.methods.series_on_grid

    Examples
    --------
    >>> import numpy as np
    >>> from edr.methods import MethodOutput
    >>> out = MethodOutput(np.array([1.0, 2.0]), np.array([0.1, -0.1]), "beats")
    >>> out.kind, out.sigma2, out.panel
    ('beats', None, {})
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


def _drift(times, level, valid, fs_grid: float = GRID_FS) -> np.ndarray:
    """Slow part (< :data:`DRIFT_CUTOFF_HZ`) of the per-beat baseline ``level``, at every beat."""
    t, v = times[valid], level[valid]
    if t.size < 2:
        return np.full(times.size, float(np.mean(level)))
    grid = np.arange(t[0], t[-1] + 1e-9, 1.0 / fs_grid)
    y = np.interp(grid, t, v)
    sos = butter_sos(2, DRIFT_CUTOFF_HZ, "lowpass", fs_grid)
    if grid.size > 3 * (2 * sos.shape[0] + 1) * 4:
        y = zero_phase.sosfiltfilt(sos, y)
    else:
        y = np.full(grid.size, y.mean())
    return np.interp(times, grid, y)


def unclipped_columns(ecg, beats: Beats, width: int) -> np.ndarray:
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


