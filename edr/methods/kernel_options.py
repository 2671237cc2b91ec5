"""Options of the kernel PCA methods, checked once, and the :mod:`kpca` estimators they build.

:class:`KernelOptions` validates every option of ``kpca``, ``kpca_positions``, ``kpca_rsa`` and
``kpca_fusion`` (σ², orientation, solver, FS2 support size and training set, selection options)
and builds the unfitted :class:`kpca.core.KernelPCACore` (:class:`kpca.KernelPCA` without
scikit-learn) or :class:`kpca.largescale.FixedSizeKernelPCA`;
:func:`check_sigma2` and :func:`check_solver` are the one home of those two checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from edr.methods.segment import MATRIX_BASELINE
from edr.names import DEFAULT_N_SUPPORT, DEFAULT_SIGMA2
from edr.names import SOLVER_NAMES as SOLVERS
from kpca.kernels import check_sigma2 as check_kernel_width

__all__ = ["DEFAULT_N_SUPPORT", "DEFAULT_SIGMA2", "FS2_TRAIN_ON", "FS2_TRAIN_ONS", "KernelOptions",
           "ORIENTATIONS", "SOLVERS", "check_flag", "check_sigma2", "check_solver",
           "selection_quality"]

ORIENTATIONS = ("beats", "positions")
FS2_TRAIN_ONS = ("all", "support")
FS2_TRAIN_ON = "all"
"""Where the FS2 model takes its principal axis from (option ``train_on``, see
:class:`kpca.largescale.FixedSizeKernelPCA`): ``"all"`` — PCA of the centred Nyström features of
every beat; ``"support"`` — kernel PCA of the ``M`` support vectors alone
(``docs/design.md#edr-fs2-principal-axis``)."""


def check_sigma2(sigma2):
    """``sigma2`` as a positive float, or a criterion name as given.

    A number is checked by :func:`kpca.kernels.check_sigma2`, the one check of a kernel width's
    value; a name must be known to :func:`kpca.selection.resolve_criterion` (the estimators
    resolve it again when they fit).

    Raises
    ------
    ValueError
        A value that is neither a finite number ``> 0`` nor a string (the message of
        :func:`kpca.kernels.check_sigma2`), or an unknown criterion name (the message lists the
        valid keys).

    See Also
    --------
    kpca.kernels.check_sigma2 : the check of a number.
    kpca.selection.resolve_criterion : the check of a name.

    Examples
    --------
    >>> from edr.methods import check_sigma2
    >>> check_sigma2(2), check_sigma2("shannon")
    (2.0, 'shannon')
    """
    if isinstance(sigma2, str):
        from kpca.selection import resolve_criterion

        resolve_criterion(sigma2)
        return sigma2
    return check_kernel_width(sigma2)


def check_flag(value, name: str) -> None:
    """``ValueError`` unless ``value`` is a bool (Python's or NumPy's)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")


def check_solver(solver) -> str:
    """``solver`` if it is one of :data:`SOLVERS`, else ``ValueError`` listing them.

    See Also
    --------
    KernelOptions

    Examples
    --------
    >>> from edr.methods import check_solver
    >>> check_solver("fs2")
    'fs2'
    """
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

    See Also
    --------
    edr.methods.kpca_edr : the method these options drive.
    kpca.core.KernelPCACore, kpca.largescale.FixedSizeKernelPCA : the models they build.

    Examples
    --------
    >>> from edr.methods import KernelOptions
    >>> k = KernelOptions(sigma2=2)
    >>> k.sigma2, k.solver, k.orientation
    (2.0, 'dense', 'beats')
    >>> KernelOptions(orientation="rows")
    Traceback (most recent call last):
    ...
    ValueError: orientation must be one of ['beats', 'positions'], got 'rows'
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
        check_flag(self.robust, "robust")
        object.__setattr__(self, "sigma2", sigma2)
        object.__setattr__(self, "train_on", train_on)
        object.__setattr__(self, "selection_options", dict(self.selection_options))

    @property
    def by_criterion(self) -> bool:
        """Whether ``sigma2`` is a criterion name (chosen by the estimator)."""
        return isinstance(self.sigma2, str)

    def kernel_pca(self, n_components: int = 1):
        """Unfitted ``kpca.core.KernelPCACore(n_components, ...)`` (the computation of
        :class:`kpca.KernelPCA` without scikit-learn); it resolves ``sigma2`` itself."""
        from kpca.core import KernelPCACore

        return KernelPCACore(n_components=n_components, sigma2=self.sigma2,
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


def selection_quality(sel) -> dict:
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

