"""The names and limits the library and every command line share, and their checks.

One home for the option names a command line checks before it imports anything heavy (the
method and σ² criterion names, the solvers), the defaults it shows in its help, and the limits
the library enforces (the supported ECG sampling rates, the window bounds) with the one check
of each. This module uses the standard library only (and :mod:`edr.errors`), so
``python -m edr.extract --help`` and a bad option stay fast.

The registries these names stand for live with their code: :data:`edr.methods.METHODS` (the
methods and :data:`edr.methods.SOLVERS`) and :data:`kpca.selection.CRITERIA` with
:data:`kpca.selection.ALIASES` (``kpca`` never imports ``edr``); ``tests/edr/test_names.py``
checks that they agree.

See Also
--------
edr.cli_core : the command-line core that turns these checks into option errors.
edr.options.EDROptions : the extraction options, checked with :func:`check_window_s`.
"""

from __future__ import annotations

import math

from edr.errors import SamplingRateError

__all__ = [
    "CRITERION_NAMES",
    "DEFAULT_METHOD",
    "DEFAULT_N_SUPPORT",
    "DEFAULT_SIGMA2",
    "FS_MAX",
    "FS_MIN",
    "FS_RANGE",
    "MAX_WINDOW_S",
    "METHOD_NAMES",
    "MIN_WINDOW_S",
    "SOLVER_NAMES",
    "canonical_criterion",
    "check_fs",
    "check_window_s",
    "criterion_choices",
    "criterion_label",
    "sigma2_help",
]

DEFAULT_METHOD = "kpca_fusion"
"""The default EDR method (``docs/design.md#3-generalisation-to-unseen-patients``)."""
METHOD_NAMES = ("kpca", "kpca_fusion", "kpca_positions", "kpca_rsa", "neurokit_charlton2016",
                "neurokit_sarkar2015", "neurokit_soni2019", "neurokit_vangent2019", "pca",
                "qrs_area", "r_amplitude", "rsa")
"""Every key of the registry :data:`edr.methods.METHODS`, written here so that a command line
checks ``--method`` without importing the methods; a new method is added to both
(``tests/edr/test_names.py`` fails while they differ; ``CONTRIBUTING.md``)."""

DEFAULT_SIGMA2 = "mdd-fast"
"""The default kernel width criterion: MDD with the sequential stop and the coarse-to-fine grid
(``docs/studies/fast_selection.md``); ``"mdd"`` is the paper's exact selection."""
CRITERION_NAMES = {
    "varon2015": "mdd", "varon2015-fast": "mdd-fast", "widjaja2012": "shannon",
    "jorgensen2012": "kpa", "rule-of-thumb": "rot",
    "max-distance-to-mean": None, "mean-distance": None, "median-distance": None,
    "nn1-distance": None, "nn5-distance": None,
}
"""σ² criteria: canonical key of :data:`kpca.selection.CRITERIA` -> its alias in
:data:`kpca.selection.ALIASES` (None when it has none), in the order the help lists them; a new
criterion is added to all three (``tests/edr/test_names.py`` fails while they differ)."""

SOLVER_NAMES = ("dense", "fs2")
"""Kernel PCA solvers: dense :class:`kpca.KernelPCA` of a window's beats, or one
:class:`kpca.largescale.FixedSizeKernelPCA` (FS2 + Nyström) of the record's beats."""
DEFAULT_N_SUPPORT = 200
"""FS2 support vectors ``M`` when ``n_support=None`` (capped below the number of valid beats)."""

MIN_WINDOW_S = 20.0
"""Shortest analysis window (s) accepted."""
MAX_WINDOW_S = 1800.0
"""Longest analysis window (s) accepted: the dense kernel matrix of a window grows with the
square of its beats (``docs/design.md#edr-analysis-windows``); ``solver="fs2"`` fits one model
to a longer record."""

FS_MIN = 100.0
"""Lowest ECG sampling rate accepted (Hz): below it the QRS complex is a few samples."""
FS_MAX = 10_000.0
"""Highest ECG sampling rate accepted (Hz)."""
FS_RANGE = (FS_MIN, FS_MAX)
"""Supported ECG sampling rates (Hz), ``(FS_MIN, FS_MAX)``."""


def canonical_criterion(name: str) -> str | None:
    """The canonical key of a σ² criterion name or alias, case-insensitive.

    Parameters
    ----------
    name : str
        A key of :data:`CRITERION_NAMES` or one of its aliases.

    Returns
    -------
    str or None
        The canonical key; None when ``name`` is neither.

    Examples
    --------
    >>> from edr.names import canonical_criterion
    >>> canonical_criterion("MDD"), canonical_criterion("varon2015"), canonical_criterion("x")
    ('varon2015', 'varon2015', None)
    """
    key = name.lower()
    if key in CRITERION_NAMES:
        return key
    return next((k for k, alias in CRITERION_NAMES.items() if alias == key), None)


def criterion_choices() -> list[str]:
    """Every σ² criterion key and alias, sorted (the valid choices an error message lists).

    Examples
    --------
    >>> from edr.names import criterion_choices
    >>> criterion_choices()[:3]
    ['jorgensen2012', 'kpa', 'max-distance-to-mean']
    """
    return sorted(set(CRITERION_NAMES) | {a for a in CRITERION_NAMES.values() if a})


def criterion_label(key: str) -> str:
    """A canonical criterion key with its alias, if it has one.

    Examples
    --------
    >>> from edr.names import criterion_label
    >>> criterion_label("varon2015-fast"), criterion_label("mean-distance")
    ('varon2015-fast = mdd-fast', 'mean-distance')
    """
    alias = CRITERION_NAMES.get(key)
    return key + (f" = {alias}" if alias else "")


def sigma2_help() -> str:
    """The criteria of a ``--sigma2`` help text, each key with its alias.

    Examples
    --------
    >>> from edr.names import sigma2_help
    >>> sigma2_help().split(", ")[:2]
    ['varon2015 = mdd', 'varon2015-fast = mdd-fast']
    """
    return ", ".join(criterion_label(k) for k in CRITERION_NAMES)


def check_fs(fs, where: str = "") -> float:
    """``fs`` as a float after checking it lies in :data:`FS_RANGE`.

    Parameters
    ----------
    fs : float
        An ECG sampling rate in Hz.
    where : str, optional
        What is sampled at ``fs`` (e.g. ``"ECG channel 'II' of rec.hea"``), named first in the
        message.

    Returns
    -------
    float

    Raises
    ------
    SamplingRateError
        ``fs`` is not a number from :data:`FS_MIN` to :data:`FS_MAX` (a
        :class:`~edr.errors.SignalError`); the message names it.

    See Also
    --------
    FS_RANGE : the supported rates.
    check_window_s : the check of the analysis window, the other limit shared here.
    edr.io.read_record : checks the ECG channel's rate with this function.

    Examples
    --------
    >>> from edr.names import check_fs
    >>> check_fs(125)
    125.0
    >>> check_fs(50.0, "ECG channel 'II' of rec.hea")
    Traceback (most recent call last):
    ...
    edr.errors.SamplingRateError: ECG channel 'II' of rec.hea: fs=50.0 Hz is outside the ...
    """
    try:
        value = float(fs)
        shown = repr(value)
    except (TypeError, ValueError):
        value, shown = math.nan, repr(fs)
    if not FS_MIN <= value <= FS_MAX:
        prefix = f"{where}: " if where else ""
        raise SamplingRateError(f"{prefix}fs={shown} Hz is outside the supported range "
                                f"{FS_MIN:g}-{FS_MAX:g} Hz")
    return value


def check_window_s(value, name: str = "window_s") -> float:
    """An analysis window length as a float after checking it lies in the window bounds.

    Parameters
    ----------
    value : float or str
        The window length in seconds (a command line passes the text typed).
    name : str, default "window_s"
        What the message calls the value; ``""`` for a message that starts with "must be"
        (an argparse type, whose error names the flag itself).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        ``value`` is not a number from :data:`MIN_WINDOW_S` to :data:`MAX_WINDOW_S`.

    See Also
    --------
    edr.options.EDROptions : checks its ``window_s`` with this function.
    edr.cli_options.window_seconds : the command lines' option type built on it.
    check_fs : the check of the sampling rate.

    Examples
    --------
    >>> from edr.names import check_window_s
    >>> check_window_s("300")
    300.0
    >>> check_window_s(5.0)
    Traceback (most recent call last):
    ...
    ValueError: window_s must be a number of seconds from 20 to 1800, got 5.0 (a longer window ...
    """
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = math.nan
    if not MIN_WINDOW_S <= seconds <= MAX_WINDOW_S:
        raise ValueError(f"{name + ' ' if name else ''}must be a number of seconds from "
                         f"{MIN_WINDOW_S:g} to {MAX_WINDOW_S:g}, got {value!r} (a longer window "
                         "makes the dense kernel matrix too large: for one model over the whole "
                         "record use solver=fs2 without window_s)")
    return seconds
