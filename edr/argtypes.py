"""Argument types shared by the command lines (``edr extract``, ``edr stream``); the names they
check live in :mod:`edr.names`."""

from __future__ import annotations

import argparse
import math

from edr.names import (  # noqa: F401 (the command lines import them from here)
    CRITERION_NAMES,
    DEFAULT_SIGMA2,
    METHOD_NAMES,
    canonical_criterion,
    sigma2_help,
)

__all__ = ["parse_positive", "parse_rate_hz", "parse_sigma2"]


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
