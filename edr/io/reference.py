"""Breath annotations as a reference: which annotations are breaths, and whether to trust them.

A breath annotation file may hold several annotators (BIDMC: ``ann1`` and ``ann2`` in
``aux_note``), several phases of each breath (a respiratory-rate benchmark labels the start of
inspiration ``insp`` and the start of expiration ``exp``), or one plain symbol per breath. An
annotation's *label* is its ``aux_note``, or its symbol when the note is empty.
:func:`choose_breath_label` keeps one label by a fixed order, :data:`BREATH_LABEL_ORDER`:

1. annotators ``ann1``, ``ann2``, ... in the order of their numbers (the first annotator of
   a database is its reference);
2. ends of inspiration (:data:`END_OF_INSPIRATION_LABELS`: ``exp``, ``expiration``, ...):
   the point MARSH annotates and :func:`edr.simulate.simulate_recording` gives as breath times;
3. starts of inspiration (:data:`INSPIRATION_ONSET_LABELS`: ``insp``, ``inspiration``, ...).

A rate is the number of breath intervals per minute, so either phase gives the same rate; one
phase is kept so that breath times mean the same point of the breath in every database, and
the end of inspiration is the one the project's records and simulator share. A file with one
label (or none) is taken whole. Labels that are none of these cannot be told apart (annotators
or phases?): such a file is not used.

Which point of the breath the kept times mark, :func:`breath_event`, goes with them
(:attr:`edr.io.Recording.breath_event`) so that a breath-by-breath score compares like with
like (:func:`edr.evaluate.breaths.score_kept`): :data:`START_OF_INSPIRATION` when every kept
annotation is a start of inspiration, else :data:`END_OF_INSPIRATION`. An annotator's breaths
are ends of inspiration: BIDMC's and MARSH's annotators mark the maxima of the impedance
respiration, which rises with inspiration. When a file holds both phases the end is kept: it
is the extremum the EDR's breath detector itself marks (:func:`edr.breaths.detect_breaths`),
while the EDR's start of inspiration is derived from it (the lowest point before it).

:func:`implausible_reason` refuses breath times no breathing has: unordered or non-finite
times, times outside the record, more than :data:`MAX_ODD_INTERVAL_SHARE` of the intervals
shorter than :data:`MIN_BREATH_INTERVAL_S` or longer than :data:`MAX_BREATH_INTERVAL_S`, or
fewer than :data:`MIN_BREATHS_PER_MIN` breaths per minute over the record (the margins on
real annotations: ``docs/design.md#6-inputs-and-outputs``).

A reference that fails is never an error: the reader warns (:class:`~edr.errors.ReferenceWarning`)
and the recording has no breath times, so the ECG-derived respiration goes on without it.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence

import numpy as np

from edr.errors import ReferenceWarning

__all__ = ["AUTO", "BREATH_EVENTS", "BREATH_LABEL_ORDER", "END_OF_INSPIRATION",
           "END_OF_INSPIRATION_LABELS", "INSPIRATION_ONSET_LABELS", "MAX_BREATH_INTERVAL_S",
           "MAX_ODD_INTERVAL_SHARE", "MIN_BREATHS_PER_MIN", "MIN_BREATH_INTERVAL_S",
           "START_OF_INSPIRATION", "annotation_labels", "breath_event", "breath_mask",
           "check_breath_event", "choose_breath_label", "implausible_reason", "is_breath_label",
           "listed_labels", "warn_unused"]

#: ``annotator=AUTO`` chooses the label by :data:`BREATH_LABEL_ORDER`.
AUTO = "auto"

#: Labels of the end of inspiration (start of expiration), compared case-insensitively. No
#: single letters: WFDB's standard one-letter symbols are beat labels (``e``: atrial escape).
END_OF_INSPIRATION_LABELS: tuple[str, ...] = (
    "exp", "ex", "expiration", "startexp", "start_exp", "start exp", "endinsp", "end_insp",
    "end insp", "end of inspiration",
)
#: Labels of the start of inspiration, compared case-insensitively.
INSPIRATION_ONSET_LABELS: tuple[str, ...] = (
    "insp", "ins", "in", "inspiration", "startinsp", "start_insp", "start insp",
    "start of inspiration",
)
#: The point of the breath that breath times mark: the end of inspiration (the EDR's breaths,
#: an annotator's, ``exp``), ...
END_OF_INSPIRATION = "end_of_inspiration"
#: ... or the start of inspiration (``insp``; the EDR's :attr:`edr.breaths.Breaths.onset`).
START_OF_INSPIRATION = "start_of_inspiration"
#: Every value of :attr:`edr.io.Recording.breath_event` and of the evaluation's
#: ``breath_event`` column.
BREATH_EVENTS = (END_OF_INSPIRATION, START_OF_INSPIRATION)
#: The order in which :func:`choose_breath_label` takes a label among several.
BREATH_LABEL_ORDER = ("annotators ann1, ann2, ... (by number)", "ends of inspiration",
                      "starts of inspiration")

#: Consecutive breaths closer than this (s) are odd: 60 /min, the top of the EDR's rate band.
MIN_BREATH_INTERVAL_S = 1.0
#: Consecutive breaths farther apart than this (s) are odd.
MAX_BREATH_INTERVAL_S = 60.0
#: Breath times with more than this share of odd intervals are not plausible.
MAX_ODD_INTERVAL_SHARE = 0.1
#: Breath times with fewer breaths per minute over the record are not plausible.
MIN_BREATHS_PER_MIN = 3.0

_KINDS = ("annotator", "end of inspiration", "start of inspiration")  # by _annotator_rank
_ANNOTATOR = re.compile(r"^ann(?:otator)?[ _-]?(\d+)$", re.IGNORECASE)


def annotation_labels(aux_note: Sequence | None, symbol: Sequence | None, n: int) -> np.ndarray:
    """The label of each of ``n`` annotations: its ``aux_note`` stripped, or its symbol when the
    note is empty (missing entries and wfdb's NaN symbols count as empty).

    Examples
    --------
    >>> from edr.io.reference import annotation_labels
    >>> annotation_labels(["ann1", "", None], ['"', "I", '"'], 3).tolist()
    ['ann1', 'I', '"']
    """
    def text(values, i):
        v = values[i] if values is not None and i < len(values) else None
        return v.strip() if isinstance(v, str) else ""

    return np.array([text(aux_note, i) or text(symbol, i) for i in range(n)], dtype=object)


_LISTED = 8  # labels named in a message
_LABEL_CHARS = 12  # characters of a label named in a message


def listed_labels(labels) -> str:
    """The distinct ``labels``, sorted, for a one-line message: at most 8, each cut to 12
    characters and quoted when it is not plain printable text.

    Examples
    --------
    >>> from edr.io.reference import listed_labels
    >>> listed_labels(["ann2", "ann1", "ann1"])
    'ann1, ann2'
    >>> listed_labels(["a,b", "c"])
    "'a,b', c"
    """
    found = sorted(set(labels))
    shown = []
    for lab in found[:_LISTED]:
        cut = lab[:_LABEL_CHARS] + ("..." if len(lab) > _LABEL_CHARS else "")
        plain = cut.isprintable() and cut.isascii() and "," not in cut and cut.strip() == cut
        shown.append(cut if plain and cut else repr(cut))
    more = len(found) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "") if found else "none"


def _annotator_rank(label: str) -> tuple | None:
    key = label.strip().lower()
    m = _ANNOTATOR.match(key)
    if m:
        return (0, int(m.group(1)))
    if key in END_OF_INSPIRATION_LABELS:
        return (1, END_OF_INSPIRATION_LABELS.index(key))
    if key in INSPIRATION_ONSET_LABELS:
        return (2, INSPIRATION_ONSET_LABELS.index(key))
    return None


def is_breath_label(label: str) -> bool:
    """Whether ``label`` is one of :data:`BREATH_LABEL_ORDER`'s: an annotator (``ann1``) or a
    breath phase (``exp``, ``insp``, ...), compared case-insensitively.

    Examples
    --------
    >>> from edr.io.reference import is_breath_label
    >>> [is_breath_label(x) for x in ("INSP", "exp", "ann2", "Sleep stage W")]
    [True, True, True, False]
    """
    return _annotator_rank(label) is not None


def choose_breath_label(labels: Sequence[str]) -> tuple[str | None, str]:
    """The label whose annotations are the breaths, and why, in a few words.

    Parameters
    ----------
    labels : sequence of str
        The label of every annotation (:func:`annotation_labels`).

    Returns
    -------
    label : str or None
        The only label; else the first known one by :data:`BREATH_LABEL_ORDER`; None when the
        file has no annotation or several labels none of which is known.
    why : str
        ``"annotator 'ann1' of ann1, ann2"``, ``"end of inspiration 'exp' of exp, insp"``,
        ``"label '\\"'"`` (the only one), ``"start of inspiration 'insp', the only label"``
        (a breath phase alone: its times are not ends of inspiration), or why there is none.

    See Also
    --------
    annotation_labels : the label of each annotation, the input.
    implausible_reason : the check the chosen label's times must then pass.
    edr.io.wfdb_reader.read_breath_annotations : reads a file and keeps this label.

    Examples
    --------
    >>> from edr.io.reference import choose_breath_label
    >>> choose_breath_label(["ann2", "ann1", "ann1"])
    ('ann1', "annotator 'ann1' of ann1, ann2")
    >>> choose_breath_label(["insp", "exp", "insp", "exp"])
    ('exp', "end of inspiration 'exp' of exp, insp")
    >>> choose_breath_label(["a", "b"])[0] is None
    True
    >>> choose_breath_label(["insp", "insp"])
    ('insp', "start of inspiration 'insp', the only label")
    """
    found = sorted(set(labels))
    if not found:
        return None, "no annotation"
    if len(found) == 1:
        rank = _annotator_rank(found[0])
        if rank is None or rank[0] == 0:
            return found[0], f"label {found[0]!r}"
        return found[0], f"{_KINDS[rank[0]]} {found[0]!r}, the only label"
    ranked = sorted((r, lab) for lab in found if (r := _annotator_rank(lab)) is not None)
    listed = listed_labels(found)
    if not ranked:
        return None, (f"labels {listed} are neither annotators (ann1, ann2, ...) nor breath "
                      "phases (exp, insp, ...); pass annotator=<label> to choose one")
    (kind, _), label = ranked[0]
    return label, f"{_KINDS[kind]} {label!r} of {listed}"


def implausible_reason(times, duration_s: float | None = None) -> str | None:
    """Why ``times`` (s) are no breaths, or None when they are plausible (see the module
    docstring for the checks and their constants).

    Parameters
    ----------
    times : array_like, shape (n,)
        Breath times in the order given.
    duration_s : float, optional
        Length of the record (s): times must lie in ``[0, duration_s]`` and the rate over the
        record reach :data:`MIN_BREATHS_PER_MIN`. Without it, over the span of the times.

    Returns
    -------
    str or None

    See Also
    --------
    choose_breath_label : which annotations are the breaths.
    edr.io.wfdb_reader.read_breath_annotations : warns and drops times that fail.
    edr.io.arrays.recording_from_arrays : applies the same check to given breath times.

    Examples
    --------
    >>> from edr.io.reference import implausible_reason
    >>> implausible_reason([2.0, 6.0, 10.0, 14.0, 18.0], duration_s=20.0) is None
    True
    >>> implausible_reason([2.0, 6.0, 4.0], duration_s=20.0)
    'times out of order (6 s before 4 s)'
    >>> implausible_reason([1.0, 1.2, 1.4, 1.6, 5.0], duration_s=20.0)
    '3 of 4 intervals (75%) are shorter than 1 s or longer than 60 s'
    """
    t = np.asarray(times, dtype=float).ravel()
    if t.size == 0:
        return "no breath"
    if not np.isfinite(t).all():
        return f"{int((~np.isfinite(t)).sum())} time(s) are not finite"
    d = np.diff(t)
    if (d < 0).any():
        k = int(np.flatnonzero(d < 0)[0])
        return f"times out of order ({t[k]:.3g} s before {t[k + 1]:.3g} s)"
    if duration_s is not None and (t[0] < 0 or t[-1] > duration_s):
        return (f"times outside the record ({t[0]:.3g} to {t[-1]:.3g} s in a record of "
                f"{duration_s:.3g} s)")
    odd = int(((d < MIN_BREATH_INTERVAL_S) | (d > MAX_BREATH_INTERVAL_S)).sum())
    if d.size and odd > MAX_ODD_INTERVAL_SHARE * d.size:
        return (f"{odd} of {d.size} intervals ({odd / d.size:.0%}) are shorter than "
                f"{MIN_BREATH_INTERVAL_S:g} s or longer than {MAX_BREATH_INTERVAL_S:g} s")
    span = float(duration_s) if duration_s is not None else float(t[-1] - t[0])
    if span > 0 and t.size / span * 60.0 < MIN_BREATHS_PER_MIN:
        return (f"{t.size} breath(s) in {span:.3g} s, fewer than {MIN_BREATHS_PER_MIN:g} per "
                "minute")
    return None


def breath_event(labels) -> str:
    """The point of the breath that the annotations labelled ``labels`` mark (the labels kept:
    :func:`breath_mask`): :data:`START_OF_INSPIRATION` when every one is a start of inspiration
    (:data:`INSPIRATION_ONSET_LABELS`, any case), else :data:`END_OF_INSPIRATION` (ends of
    inspiration, annotators, a plain symbol: the module docstring says why).

    See Also
    --------
    breath_mask : which annotations are kept.
    edr.evaluate.breaths.score_kept : scores the EDR's breaths at the same point.

    Examples
    --------
    >>> from edr.io.reference import breath_event
    >>> breath_event(["insp", "INSP"]), breath_event(["exp"]), breath_event(["ann1"])
    ('start_of_inspiration', 'end_of_inspiration', 'end_of_inspiration')
    """
    keys = [str(lab).strip().lower() for lab in labels]
    starts = bool(keys) and all(k in INSPIRATION_ONSET_LABELS for k in keys)
    return START_OF_INSPIRATION if starts else END_OF_INSPIRATION


def check_breath_event(event: str) -> str:
    """``event`` when it is one of :data:`BREATH_EVENTS`.

    Raises
    ------
    ValueError
        Any other value, naming the valid ones.

    Examples
    --------
    >>> from edr.io.reference import check_breath_event
    >>> check_breath_event("start_of_inspiration")
    'start_of_inspiration'
    """
    if event not in BREATH_EVENTS:
        raise ValueError(f"breath_event must be one of {', '.join(BREATH_EVENTS)}; got {event!r}")
    return event


def breath_mask(labels, annotator: str | None = AUTO) -> tuple[np.ndarray | None, str]:
    """Which of the annotations labelled ``labels`` are the breaths, and what was kept.

    Parameters
    ----------
    labels : array_like of str
        The label of every annotation (:func:`annotation_labels`).
    annotator : str or None, default "auto"
        ``"auto"``: the label :func:`choose_breath_label` chooses; a label: the annotations of
        that label (else of that label in any case); None: every annotation.

    Returns
    -------
    keep : ndarray of bool or None
        One flag per annotation; None when no annotation is a breath.
    why : str
        What was kept (``"end of inspiration 'exp' of exp, insp"``), or why nothing was.

    See Also
    --------
    choose_breath_label, edr.io.wfdb_reader.read_breath_annotations

    Examples
    --------
    >>> from edr.io.reference import breath_mask
    >>> keep, why = breath_mask(["insp", "exp", "insp", "exp"])
    >>> keep.tolist(), why
    ([False, True, False, True], "end of inspiration 'exp' of exp, insp")
    >>> breath_mask(["insp", "exp"], "EXP")[0].tolist()
    [False, True]
    >>> breath_mask(["insp", "exp"], "ann1")
    (None, "no annotation labelled 'ann1' (labels found: exp, insp)")
    """
    labels = np.asarray(labels, dtype=object)
    if annotator is None:
        return np.ones(labels.size, dtype=bool), "every annotation"
    if annotator == AUTO:
        label, why = choose_breath_label(labels.tolist())
        return (None, why) if label is None else (labels == label, why)
    found = listed_labels(labels.tolist())
    keep = labels == annotator
    if not keep.any():
        keep = np.array([lab.lower() == annotator.lower() for lab in labels], dtype=bool)
    if not keep.any():
        return None, f"no annotation labelled {annotator!r} (labels found: {found})"
    return keep, f"label {annotator!r} of {found}"


def warn_unused(where, reason: str, stacklevel: int = 2) -> None:
    """Warn that the breath annotations of ``where`` (a file, named in the message) are left
    out, and why: the one :class:`~edr.errors.ReferenceWarning` of every reader.

    Examples
    --------
    >>> import warnings
    >>> from edr.io.reference import warn_unused
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_unused("rec.breath", "no breath")
    >>> str(w[0].message)
    'breath annotations rec.breath not used: no breath; the EDR goes on without them'
    """
    warnings.warn(f"breath annotations {where} not used: {reason}; the EDR goes on without them",
                  ReferenceWarning, stacklevel=stacklevel + 1)
