"""The option types and checks every ``edr`` command line shares (argparse ``type=``).

Numbers, rates, windows, kernel widths and annotation extensions, each worded
``must be ..., got '<text>'`` (:func:`finite_number` ... :func:`annotation_extension`); the
reference options of ``extract`` and ``evaluate`` (:func:`add_reference_options`,
:data:`REFERENCE_FLAGS`); the method and criterion checks (:func:`check_method`,
:func:`check_sigma2_option`), which raise :class:`edr.cli_core.OptionError`. The parser and the
error protocol are :mod:`edr.cli_core`'s.

This module imports the standard library and :mod:`edr.names` only: ``--help`` and a bad
option never import NumPy.

See Also
--------
edr.names : the names and limits the option checks use.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence

from edr.cli_core import OptionError
from edr.names import (
    METHOD_NAMES,
    canonical_criterion,
    check_window_s,
    criterion_choices,
)

__all__ = [
    "REFERENCE_FLAGS",
    "add_reference_options",
    "annotation_extension",
    "is_annotation_extension",
    "reference_options",
    "check_choice",
    "check_method",
    "check_sigma2_option",
    "finite_number",
    "integer",
    "n_support",
    "positive_integer",
    "positive_number",
    "rate_hz",
    "sigma2_value",
    "window_seconds",
]


def _typed(text: str, convert: Callable, valid: Callable, what: str):
    try:
        value = convert(text)
    except (TypeError, ValueError):
        value = None
    if value is None or not valid(value):
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
    return value


def finite_number(text: str) -> float:
    """Option type of a signed duration: a finite number."""
    return _typed(text, float, math.isfinite, "a number")


def positive_number(text: str) -> float:
    """Option type of a duration or factor: a finite number > 0."""
    return _typed(text, float, lambda v: math.isfinite(v) and v > 0, "a number > 0")


def rate_hz(text: str) -> float:
    """Option type of a sampling rate: a finite number of Hz > 0."""
    return _typed(text, float, lambda v: math.isfinite(v) and v > 0, "a sampling rate in Hz > 0")


def integer(text: str) -> int:
    """Option type of a seed: an integer."""
    return _typed(text, int, lambda v: True, "an integer")


def positive_integer(text: str) -> int:
    """Option type of a count such as ``--jobs``: an integer >= 1."""
    return _typed(text, int, lambda v: v >= 1, "an integer >= 1")


def n_support(text: str) -> int:
    """Option type of ``--n-support``: an integer >= 2 (the beat count, its upper bound, is
    checked by the pipeline)."""
    return _typed(text, int, lambda v: v >= 2, "an integer >= 2")


def window_seconds(text: str) -> float:
    """Option type of an analysis window: :func:`edr.names.check_window_s`'s check."""
    try:
        return check_window_s(text, name="")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def sigma2_value(text: str) -> str | float:
    """Option type of ``--sigma2``: a number > 0, else the text (a criterion name, checked by
    :func:`check_sigma2_option` after parsing)."""
    try:
        value = float(text)
    except ValueError:
        return text
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a criterion name or a number > 0, got {text!r}")
    return value


def is_annotation_extension(ext: str) -> bool:
    """Whether ``ext`` can name a WFDB annotation file (``rec.<ext>``, read by
    ``wfdb.rdann(rec, ext)``): letters and digits, not a record's own ``hea`` or ``dat``."""
    return bool(ext) and ext.isalnum() and ext.isascii() and ext.lower() not in ("hea", "dat")


def annotation_extension(text: str) -> str:
    """Option type of ``--annotator``: :func:`is_annotation_extension`."""
    if not is_annotation_extension(text):
        raise argparse.ArgumentTypeError(f"must be an annotation file's extension of letters and "
                                         f"digits other than hea and dat (e.g. resp), got {text!r}")
    return text


# --- the reference of a record ------------------------------------------------------------------

REFERENCE_FLAGS = {"resp_channel": "--ref-channel", "breath_extension": "--annotator",
                   "annotator": "--breath-label"}
"""Parameter of :func:`edr.io.read_record` -> the flag of :func:`add_reference_options`."""


def add_reference_options(p: argparse.ArgumentParser) -> None:
    """``--ref-channel``, ``--annotator`` and ``--breath-label``: the reference a record is
    scored against (:func:`reference_options` gives their :func:`edr.io.read_record` keywords)."""
    p.add_argument("--ref-channel", metavar="NAME",
                   help="reference respiration channel the EDR is scored against (MSC, |r|, "
                        "rate error); default: the first respiration name found: RESP, RSP, "
                        "RESPIRATION, IP, thorax belts (THOR, CHEST, RIP THORAX), their sum, "
                        "abdomen belts (ABDO, ABD), flow (AIRFLOW, FLOW, NASAL), CO2 (CO2, ETCO2, "
                        "CAPNO); any case")
    p.add_argument("--annotator", type=annotation_extension, metavar="EXT",
                   help="WFDB records: the extension of the breath annotation file, its WFDB "
                        "annotator name (resp reads rec.resp; it must exist); default: "
                        "rec.breath when it exists")
    p.add_argument("--breath-label", metavar="LABEL",
                   help="the label (aux_note, else symbol) of the annotations that are the "
                        "breaths, any case (e.g. exp, insp, ann2); default: annotators ann1, "
                        "ann2, ... first, then ends of inspiration (exp, ...), then starts (insp, "
                        "...); a file of one label is taken whole. Breath-by-breath scores "
                        "compare like with like: ends of inspiration (annotators, exp) with the "
                        "EDR's breaths, starts (insp alone) with the EDR's onsets (onset_s)")


def reference_options(args) -> dict:
    """The :func:`edr.io.read_record` keywords of the options :func:`add_reference_options`
    defined that were given (none given: an empty dict)."""
    values = {"resp_channel": args.ref_channel, "breath_extension": args.annotator,
              "annotator": args.breath_label}
    return {k: v for k, v in values.items() if v is not None}


# --- choices --------------------------------------------------------------------------------------

def check_choice(flag: str, what: str, value: str, valid: Sequence[str],
                 plural: str | None = None) -> str:
    """``value`` when it is in ``valid``, else :class:`OptionError` naming the flag and the
    valid values (``"--method: unknown method 'x'; valid methods are a, b"``; ``plural``
    defaults to ``what + "s"``)."""
    if value not in valid:
        raise OptionError(f"{flag}: unknown {what} {value!r}; valid {plural or what + 's'} are "
                          f"{', '.join(valid)}")
    return value


def check_method(value: str, flag: str = "--method") -> str:
    """``value`` when it names a method of :data:`edr.names.METHOD_NAMES`, else
    :class:`OptionError`."""
    return check_choice(flag, "method", value, METHOD_NAMES)


def check_sigma2_option(value: str | float, flag: str = "--sigma2") -> str | float:
    """``value`` when it is a number or a σ² criterion name or alias
    (:data:`edr.names.CRITERION_NAMES`), else :class:`OptionError` listing the criteria."""
    if isinstance(value, str) and canonical_criterion(value) is None:
        raise OptionError(f"{flag}: {value!r} is neither a number > 0 nor a criterion; valid "
                          f"criteria are {', '.join(criterion_choices())}")
    return value
