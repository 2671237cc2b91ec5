"""Options of :func:`edr.pipeline.extract_edr` as one typed, validated record: :class:`EDROptions`.

Every check of an extraction option that does not need the recording lives
here or, for the kernel PCA options, in :class:`edr.methods.KernelOptions`
(which :class:`EDROptions` runs at construction, so a bad option fails before
any window is analysed). Checks that need the recording (its sampling rate,
its lead names) are made by :mod:`edr.windows`.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from edr.methods import DEFAULT_SIGMA2, METHODS, KernelOptions, MethodSpec, check_solver, get_method
from edr.names import DEFAULT_METHOD, MAX_WINDOW_S, MIN_WINDOW_S, check_window_s
from edr.signal import BAND_HZ, GRID_FS

__all__ = [
    "DEFAULT_METHOD",
    "DEFAULT_MULTI_LEAD",
    "DEFAULT_OVERLAP",
    "DEFAULT_WINDOW_S",
    "EDROptions",
    "FS_OUT_MAX",
    "LEAD_MODES",
    "MAX_OVERLAP",
    "MAX_WINDOW_S",
    "MIN_WINDOW_S",
    "WHOLE_RECORD_MAX_S",
]

DEFAULT_WINDOW_S = 300.0
"""Window length (s) for records longer than :data:`WHOLE_RECORD_MAX_S` when ``window_s=None``
(``docs/design.md#edr-analysis-windows``)."""
WHOLE_RECORD_MAX_S = 600.0
"""Records up to this duration (s) are analysed in one window by default."""
DEFAULT_OVERLAP = 0.25
"""Fraction of a window shared with the next (``docs/design.md#edr-analysis-windows``)."""
MAX_OVERLAP = 0.9
"""Largest window overlap fraction accepted."""
FS_OUT_MAX = 100.0
"""Highest output grid rate (Hz) accepted; the lowest is above ``2 * BAND_HZ[1]``."""
LEAD_MODES = ("auto", "fuse", "multilead")
"""Values of ``lead`` that use every ECG lead (see :func:`edr.window_analysis.analyse_window`)."""
DEFAULT_MULTI_LEAD = "fuse"
"""What ``lead=None`` means for a recording with several ECG leads
(``docs/design.md#3-generalisation-to-unseen-patients``); with one lead it is that lead."""


@dataclass(frozen=True)
class EDROptions:
    """Every option of one extraction, validated at construction.

    Attributes
    ----------
    method : str
        Key of :data:`edr.methods.METHODS`.
    sigma2 : float or str
        Kernel width or criterion (kernel methods; kept as given, see
        :class:`edr.methods.KernelOptions` for the checked value).
    lead : str or None
        None: every ECG lead fused (:data:`DEFAULT_MULTI_LEAD`) when the recording has
        several, else its only lead; a lead name of ``recording.leads``; or a multi-lead
        mode of :data:`LEAD_MODES`, per window: ``"auto"`` — the lead whose EDR scores best
        by :func:`edr.leads.assess_leads` (ECG alone); ``"fuse"`` — the quality-weighted,
        sign-aligned combination of the single-lead EDRs; ``"multilead"`` — kernel PCA of
        the concatenated QRS windows of the usable leads at jointly detected beats (kernel
        methods only). Per-lead scores go to ``WindowInfo.quality["lead_scores"]``.
    window_s : float or None
        Analysis window (s, :data:`MIN_WINDOW_S` to :data:`MAX_WINDOW_S`), stored as float;
        None: the whole record up to :data:`WHOLE_RECORD_MAX_S`, else
        :data:`DEFAULT_WINDOW_S` (``solver="dense"``). Must be None with ``solver="fs2"``.
    overlap : float, default :data:`DEFAULT_OVERLAP`
        Fraction of a window shared with the next one, in ``[0, MAX_OVERLAP]``.
    fs_out : float, default :data:`edr.signal.GRID_FS`
        Output grid rate (Hz) in ``(2 * BAND_HZ[1], FS_OUT_MAX]``, stored as float.
    random_state : None, int or Generator, default 0
        Passed to the kernel PCA estimator (its σ² criterion).
    progress : bool, default False
        Show a tqdm bar over the windows.
    solver : {"dense", "fs2"}, default "dense"
        Kernel methods with beats as data points only. ``"dense"``: dense kernel PCA per
        analysis window, windows stitched. ``"fs2"``: one fixed-size kernel PCA model
        (:class:`kpca.largescale.FixedSizeKernelPCA`, σ² criterion on the support vectors
        + a validation set) over all valid beats of the whole record, every beat projected
        onto it; memory ``O(N d + 4096 M + M^2)`` for ``N`` beats of ``d`` samples.
    n_support : int or None
        ``solver="fs2"`` only: support vectors ``M`` (2 <= M <= valid beats, minus one with
        a σ² criterion). None: ``min(DEFAULT_N_SUPPORT, N - 1)``
        (:data:`edr.methods.DEFAULT_N_SUPPORT`).
    method_options : Mapping
        Further keyword options of the method.
    r_peaks : ndarray or None
        R-peak times of one's own (s from the first sample; the recording's ``r_peaks``), the
        beats of every window in place of detected ones (:meth:`peaks_between`); None detects.

    Raises
    ------
    ValueError
        Unknown method or solver (listing the valid keys), bad ``window_s``,
        ``overlap``, ``fs_out``, ``sigma2`` or ``n_support``, ``solver="fs2"``
        with a method without beats as data points, a ``window_s`` or
        ``lead="multilead"``, ``lead="multilead"`` with a method without kernel.
    TypeError
        Options the method does not take; selection options with a fixed ``sigma2``.

    See Also
    --------
    edr.pipeline.extract_edr : takes these options by name.
    edr.methods.KernelOptions : the kernel methods' options.

    Examples
    --------
    >>> from edr.options import EDROptions
    >>> o = EDROptions()
    >>> o.method, o.sigma2, o.window_s, o.overlap, o.fs_out
    ('kpca_fusion', 'mdd-fast', None, 0.25, 4.0)
    >>> EDROptions(overlap=0.95)
    Traceback (most recent call last):
    ...
    ValueError: overlap must be a fraction in [0, 0.9], got 0.95
    """

    method: str = DEFAULT_METHOD
    sigma2: float | str = DEFAULT_SIGMA2
    lead: str | None = None
    window_s: float | None = None
    overlap: float = DEFAULT_OVERLAP
    fs_out: float = GRID_FS
    random_state: object = 0
    progress: bool = False
    solver: str = "dense"
    n_support: int | None = None
    method_options: Mapping = field(default_factory=dict)
    r_peaks: np.ndarray | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        spec = get_method(self.method)
        object.__setattr__(self, "window_s", _checked_window(self.window_s))
        if not (isinstance(self.overlap, (int, float)) and 0.0 <= self.overlap <= MAX_OVERLAP):
            raise ValueError(f"overlap must be a fraction in [0, {MAX_OVERLAP:g}], got "
                             f"{self.overlap!r}")
        if not (isinstance(self.fs_out, (int, float))
                and 2 * BAND_HZ[1] < self.fs_out <= FS_OUT_MAX):
            raise ValueError(f"fs_out must be a rate in Hz in ({2 * BAND_HZ[1]:g}, {FS_OUT_MAX:g}] "
                             f"(the band-pass reaches {BAND_HZ[1]:g} Hz), got {self.fs_out!r}")
        object.__setattr__(self, "fs_out", float(self.fs_out))
        object.__setattr__(self, "method_options", dict(self.method_options))
        self._check_solver_scope(spec)
        self._check_method_options(spec)
        _ = self.kernel_options  # validates the kernel options (solver/n_support for the others)

    def _check_solver_scope(self, spec: MethodSpec) -> None:
        check_solver(self.solver)
        if self.lead_mode == "multilead" and not spec.uses_sigma2:
            raise ValueError("lead='multilead' needs a kernel PCA method, got "
                             f"method={self.method!r}")
        if self.solver == "dense":
            return
        if self.solver not in spec.solvers:
            kernel = sorted(k for k, v in METHODS.items() if self.solver in v.solvers)
            raise ValueError(f"solver={self.solver!r} needs a kernel PCA method with beats as data "
                             f"points ({kernel}); got method={self.method!r}")
        if self.window_s is not None:
            raise ValueError(f"solver='fs2' fits one model to the whole record; window_s must be "
                             f"None, got window_s={self.window_s!r}")
        if self.lead_mode == "multilead":
            raise ValueError("solver='fs2' is not available with lead='multilead'")

    def _check_method_options(self, spec: MethodSpec) -> None:
        params = inspect.signature(spec.func).parameters
        if any(p.kind is p.VAR_KEYWORD for p in params.values()):
            return
        known = {n for n, p in params.items() if p.kind is p.KEYWORD_ONLY}
        unknown = sorted(set(self.method_options) - known)
        if unknown:
            raise TypeError(f"method {self.method!r} takes no option {unknown}; "
                            f"its options are {sorted(known)}")

    @property
    def spec(self) -> MethodSpec:
        """The method's registry entry."""
        return get_method(self.method)

    @property
    def lead_mode(self) -> str | None:
        """The multi-lead mode of ``lead`` (one of :data:`LEAD_MODES`), or None."""
        key = None if self.lead is None else str(self.lead).strip().lower()
        return key if key in LEAD_MODES else None

    def peaks_between(self, i0: int, i1: int, fs: float) -> np.ndarray | None:
        """The R peaks given in samples ``[i0, i1)`` at ``fs``, as positions from ``i0`` (the
        ``peaks`` of :func:`edr.beats.detect`), or None when none are given (detect them)."""
        if self.r_peaks is None:
            return None
        at = np.asarray(self.r_peaks, dtype=float) * fs
        return at[(at >= i0) & (at < i1)] - i0

    @property
    def method_kwargs(self) -> dict:
        """Keyword arguments of the method function: its options, plus ``sigma2`` and
        ``random_state`` for kernel methods, plus ``solver`` and ``n_support`` for FS2."""
        kwargs = dict(self.method_options)
        if self.spec.uses_sigma2:
            kwargs.update(sigma2=self.sigma2, random_state=self.random_state)
        if self.solver == "fs2":
            kwargs.update(solver=self.solver, n_support=self.n_support)
        return kwargs

    @property
    def kernel_options(self) -> KernelOptions:
        """The validated :class:`~edr.methods.KernelOptions` of a kernel method (for other
        methods: only ``solver`` and ``n_support``, which must then be unused)."""
        spec = self.spec
        if spec.uses_sigma2:
            own = {n for n, p in inspect.signature(spec.func).parameters.items()
                   if p.kind is p.KEYWORD_ONLY} - set(
                       inspect.signature(KernelOptions.from_kwargs).parameters)
            kwargs = {k: v for k, v in {**spec.defaults,
                                        **self.method_kwargs}.items() if k not in own}
            return KernelOptions.from_kwargs(**{**kwargs, "solver": self.solver,
                                                "n_support": self.n_support})
        return KernelOptions(solver=self.solver, n_support=self.n_support)


def _checked_window(window_s) -> float | None:
    return None if window_s is None else check_window_s(window_s)
