"""Argument types and option names shared by the command lines (``edr extract``, ``edr stream``).

Kept free of heavy imports so that ``--help`` and option checks are fast;
``tests/edr/test_bad_inputs.py`` checks the names against the registries
(:data:`edr.methods.METHODS`, :data:`kpca.selection.CRITERIA` and ``ALIASES``).
"""

from __future__ import annotations

import argparse
import math

__all__ = ["CRITERION_NAMES", "DEFAULT_SIGMA2", "METHOD_NAMES", "canonical_criterion",
           "parse_positive", "parse_rate_hz", "parse_sigma2", "sigma2_help"]

#: The default ``--sigma2`` of both command lines (the pipeline's, ``edr.methods.DEFAULT_SIGMA2``).
DEFAULT_SIGMA2 = "mdd-fast"
#: Valid ``--method`` values.
METHOD_NAMES = ("kpca", "kpca_fusion", "kpca_positions", "kpca_rsa", "neurokit_charlton2016",
                "neurokit_sarkar2015",
                "neurokit_soni2019", "neurokit_vangent2019", "pca", "qrs_area",
                "r_amplitude", "rsa")

#: ``--sigma2`` criteria: canonical key -> alias (None when it has none).
CRITERION_NAMES = {
    "varon2015": "mdd", "varon2015-fast": "mdd-fast", "widjaja2012": "shannon",
    "jorgensen2012": "kpa", "rule-of-thumb": "rot",
    "max-distance-to-mean": None, "mean-distance": None, "median-distance": None,
    "nn1-distance": None, "nn5-distance": None,
}


def canonical_criterion(name: str) -> str | None:
    """The canonical key of a ``--sigma2`` criterion name or alias; None when it is neither."""
    key = name.lower()
    if key in CRITERION_NAMES:
        return key
    return next((k for k, alias in CRITERION_NAMES.items() if alias == key), None)


def sigma2_help() -> str:
    """The criteria list of a ``--sigma2`` help text: ``"varon2015 = mdd, ..."``."""
    return ", ".join(k if a is None else f"{k} = {a}" for k, a in CRITERION_NAMES.items())


def parse_sigma2(text: str) -> str | float:
    """argparse type of ``--sigma2``: a criterion key, or a positive number."""
    try:
        value = float(text)
    except ValueError:
        return text
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a criterion name or a number > 0, got {text!r}")
    return value


def parse_rate_hz(text: str) -> float:
    """argparse type of ``--fs``: a sampling rate in Hz > 0."""
    return _positive(text, "a sampling rate in Hz > 0")


def parse_positive(text: str) -> float:
    """argparse type of a positive duration or factor: a finite number > 0."""
    return _positive(text, "a number > 0")


def _positive(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
    return value
