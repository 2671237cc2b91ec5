"""Scoring detected breaths against annotated breaths.

The protocol (``docs/studies/breath_detection.md``):

* **tolerance** — an annotated breath ``r_i`` accepts a detected breath within
  ``min(MAX_TOLERANCE_S, TOLERANCE_FRACTION * d_i)`` of it, ``d_i`` the shorter of its two
  intervals to the neighbouring annotated breaths (:func:`tolerances`): ±1 s, or a quarter of
  the local breath interval when breathing is faster than 15 /min;
* **one-to-one matching** — every annotated breath matches at most one detected breath and
  vice versa (:func:`match_breaths`). With a fraction below one half the acceptance windows of
  neighbouring annotations cannot overlap, so the matching that pairs each annotated breath
  with the nearest detected breath in its window is a maximum one;
* **sensitivity** (matched / annotated), **positive predictivity** (matched / detected),
  **F1** (their harmonic mean);
* **breath-interval error** — for two consecutive annotated breaths matched to two consecutive
  detected breaths, ``|detected interval - annotated interval|`` (s); the median over a record
  (:func:`interval_errors`).

:func:`score_kept` scores the breaths a detector keeps (:class:`edr.breaths.Breaths` not
``low_quality``, of a record whose polarity is decided) against the annotated breaths outside
its withheld stretches, and states the share kept. It compares like with like: annotated ends
of inspiration with the detected breaths' times (their ends of inspiration), annotated starts
of inspiration (``insp`` alone, :func:`edr.io.reference.breath_event`) with the detected
breaths' onsets (:attr:`edr.breaths.Breaths.onset`); the evaluation states which in its
``breath_event`` column (:data:`EVENT_COLUMN`), so that scores of the two are not pooled.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from edr.io.reference import END_OF_INSPIRATION, START_OF_INSPIRATION, check_breath_event
from edr.signal import as_series

__all__ = ["EVENT_COLUMN", "MAX_TOLERANCE_S", "SCORE_COLUMNS", "TOLERANCE_FRACTION",
           "BreathScores", "detected_at", "in_stretches", "interval_errors", "match_breaths",
           "score_breaths", "score_kept", "tolerances"]

MAX_TOLERANCE_S = 1.0
"""Largest distance (s) at which a detected breath matches an annotated one."""

TOLERANCE_FRACTION = 0.25
"""... or this fraction of the local annotated breath interval, whichever is smaller."""

SCORE_COLUMNS = ("breath_n_annotated", "breath_n_reference", "breath_n_detected",
                 "breath_n_matched", "breath_sensitivity", "breath_ppv", "breath_f1",
                 "breath_share_kept", "breath_interval_error_s")
"""Columns of :meth:`BreathScores.row` (the breath columns of an evaluation's
``results.csv``, :mod:`edr.evaluate.batch`)."""

EVENT_COLUMN = "breath_event"
"""The column of an evaluation's ``results.csv`` that names the point of the breath scored
(:data:`edr.io.reference.BREATH_EVENTS`; empty without breath annotations)."""


def _times(x, name: str) -> np.ndarray:
    x = np.asarray(x, dtype=float).ravel()
    if x.size == 0:
        return x
    x = as_series(x, name)
    if not np.isfinite(x).all():
        raise ValueError(f"{name} must be finite breath times (s)")
    if np.any(np.diff(x) < 0):
        raise ValueError(f"{name} must be in increasing time order")
    return x


def tolerances(reference, *, max_tolerance_s: float = MAX_TOLERANCE_S,
               fraction: float = TOLERANCE_FRACTION) -> np.ndarray:
    """Acceptance half-width (s) of every annotated breath: ``min(max_tolerance_s,
    fraction * d_i)``, ``d_i`` the shorter of its intervals to the neighbouring annotations
    (the one there is at the ends; ``max_tolerance_s`` for a lone breath).

    Raises
    ------
    ValueError
        ``fraction`` outside (0, 0.5) (neighbouring windows could overlap), a non-positive
        ``max_tolerance_s``, or times that are not finite and increasing.

    See Also
    --------
    match_breaths : the matching these windows accept.

    Examples
    --------
    >>> from edr.evaluate.breaths import tolerances
    >>> tolerances([0.0, 4.0, 6.0, 20.0]).tolist()
    [1.0, 0.5, 0.5, 1.0]
    """
    if not 0 < fraction < 0.5:
        raise ValueError(f"fraction must be in (0, 0.5), got {fraction!r}")
    if not (np.isfinite(max_tolerance_s) and max_tolerance_s > 0):
        raise ValueError(f"max_tolerance_s must be a positive number, got {max_tolerance_s!r}")
    r = _times(reference, "reference")
    d = np.diff(r)
    near = np.full(r.size, np.inf)
    near[1:] = d
    near[:-1] = np.minimum(near[:-1], d)
    return np.minimum(max_tolerance_s, fraction * near)


def match_breaths(detected, reference, *, max_tolerance_s: float = MAX_TOLERANCE_S,
                  fraction: float = TOLERANCE_FRACTION):
    """One-to-one matching of detected to annotated breaths.

    Parameters
    ----------
    detected, reference : array_like
        Breath times (s), increasing.
    max_tolerance_s, fraction : float
        The acceptance window of :func:`tolerances`.

    Returns
    -------
    ref_idx, det_idx : ndarray of int
        Indices of the matched pairs, in time order: ``reference[ref_idx[k]]`` matches
        ``detected[det_idx[k]]``. Each annotated breath is paired with the nearest detected
        breath inside its window (windows do not overlap, so no detected breath is claimed
        twice and the number of pairs is the largest possible).

    See Also
    --------
    tolerances, score_breaths

    Examples
    --------
    >>> from edr.evaluate.breaths import match_breaths
    >>> [v.tolist() for v in match_breaths([0.4, 3.1, 3.3, 9.0], [0.0, 3.0, 6.0])]
    [[0, 1], [0, 1]]
    """
    det = _times(detected, "detected")
    ref = _times(reference, "reference")
    tol = tolerances(ref, max_tolerance_s=max_tolerance_s, fraction=fraction)
    if det.size == 0 or ref.size == 0:
        return np.empty(0, dtype=int), np.empty(0, dtype=int)
    k = np.clip(np.searchsorted(det, ref), 1, det.size - 1) if det.size > 1 else \
        np.zeros(ref.size, dtype=int)
    left = np.maximum(k - 1, 0)
    nearest = np.where(np.abs(det[left] - ref) <= np.abs(det[k] - ref), left, k)
    ri = np.flatnonzero(np.abs(det[nearest] - ref) <= tol)
    _, first = np.unique(nearest[ri], return_index=True)  # annotations at one time: one pair
    ri = ri[np.sort(first)]
    return ri, nearest[ri]


def interval_errors(detected, reference, ref_idx, det_idx) -> np.ndarray:
    """``|detected interval - annotated interval|`` (s) for every two consecutive annotated
    breaths matched (:func:`match_breaths`) to two consecutive detected breaths.

    See Also
    --------
    match_breaths : the pairs.

    Examples
    --------
    >>> from edr.evaluate.breaths import interval_errors, match_breaths
    >>> det, ref = [0.2, 4.0, 8.4], [0.0, 4.0, 8.0]
    >>> interval_errors(det, ref, *match_breaths(det, ref)).round(2).tolist()
    [0.2, 0.4]
    """
    det = np.asarray(detected, dtype=float)
    ref = np.asarray(reference, dtype=float)
    ri, di = np.asarray(ref_idx, dtype=int), np.asarray(det_idx, dtype=int)
    both = (np.diff(ri) == 1) & (np.diff(di) == 1)
    return np.abs((det[di[1:]] - det[di[:-1]]) - (ref[ri[1:]] - ref[ri[:-1]]))[both]


@dataclass(frozen=True)
class BreathScores:
    """Breath detection scores of one record (or a pool of records: :meth:`pooled`).

    Attributes
    ----------
    n_reference, n_detected, n_matched : int
        Annotated breaths scored, detected breaths scored, pairs matched.
    interval_errors : ndarray
        Every breath-interval error (s) (:func:`interval_errors`).
    n_annotated : int or None
        Every annotated breath, scored or not (None: ``n_reference``).

    See Also
    --------
    score_breaths, score_kept

    Examples
    --------
    >>> from edr.evaluate.breaths import score_breaths
    >>> s = score_breaths([0.1, 4.2, 7.9, 13.0], [0.0, 4.0, 8.0, 12.0])
    >>> s.n_matched, s.sensitivity, s.positive_predictivity, s.f1
    (4, 1.0, 1.0, 1.0)
    >>> s.interval_errors
    array([0.1, 0.3, 1.1])
    """

    n_reference: int
    n_detected: int
    n_matched: int
    interval_errors: np.ndarray
    n_annotated: int | None = None

    @property
    def share_kept(self) -> float:
        """Share of the annotated breaths that were scored (outside the withheld stretches)."""
        total = self.n_reference if self.n_annotated is None else self.n_annotated
        return self.n_reference / total if total else float("nan")

    @property
    def sensitivity(self) -> float:
        return self.n_matched / self.n_reference if self.n_reference else float("nan")

    @property
    def positive_predictivity(self) -> float:
        return self.n_matched / self.n_detected if self.n_detected else float("nan")

    @property
    def f1(self) -> float:
        """``2 matched / (annotated + detected)`` (NaN when both are 0)."""
        total = self.n_reference + self.n_detected
        return 2 * self.n_matched / total if total else float("nan")

    @property
    def interval_error_s(self) -> float:
        """Median breath-interval error (s); NaN without any."""
        e = self.interval_errors
        return float(np.median(e)) if e.size else float("nan")

    def row(self) -> dict:
        """The scores as :data:`SCORE_COLUMNS`: the counts (annotated, scored, detected,
        matched), sensitivity, positive predictivity, F1, share kept and the median interval
        error (s).

        Examples
        --------
        >>> from edr.evaluate.breaths import score_breaths
        >>> row = score_breaths([0.2, 4.1, 6.0, 8.3], [0.0, 4.0, 8.0]).row()
        >>> row["breath_n_matched"], round(row["breath_f1"], 3), row["breath_share_kept"]
        (3, 0.857, 1.0)
        """
        return dict(zip(SCORE_COLUMNS, (
            self.n_reference if self.n_annotated is None else self.n_annotated,
            self.n_reference, self.n_detected, self.n_matched, self.sensitivity,
            self.positive_predictivity, self.f1, self.share_kept, self.interval_error_s),
            strict=True))

    @classmethod
    def pooled(cls, scores) -> BreathScores:
        """The scores of several records pooled: counts summed, interval errors concatenated."""
        scores = list(scores)
        errors = [s.interval_errors for s in scores]
        return cls(sum(s.n_reference for s in scores), sum(s.n_detected for s in scores),
                   sum(s.n_matched for s in scores),
                   np.concatenate(errors) if errors else np.empty(0),
                   sum(s.n_reference if s.n_annotated is None else s.n_annotated
                       for s in scores))


def score_breaths(detected, reference, *, max_tolerance_s: float = MAX_TOLERANCE_S,
                  fraction: float = TOLERANCE_FRACTION) -> BreathScores:
    """Sensitivity, positive predictivity, F1 and interval errors of ``detected`` against
    ``reference`` (breath times in s; module docstring for the protocol).

    Raises
    ------
    ValueError
        Times that are not finite and increasing, a bad tolerance (:func:`tolerances`).

    See Also
    --------
    score_kept : the breaths a detector keeps.
    edr.breaths.detect_breaths : the detector.

    Examples
    --------
    >>> from edr.evaluate.breaths import score_breaths
    >>> s = score_breaths([0.2, 4.1, 6.0, 8.3], [0.0, 4.0, 8.0])
    >>> s.n_matched, round(s.f1, 3), round(s.interval_error_s, 2)
    (3, 0.857, 0.1)
    """
    det = _times(detected, "detected")
    ref = _times(reference, "reference")
    ri, di = match_breaths(det, ref, max_tolerance_s=max_tolerance_s, fraction=fraction)
    return BreathScores(ref.size, det.size, ri.size, interval_errors(det, ref, ri, di))


def in_stretches(t, stretches) -> np.ndarray:
    """Whether each time of ``t`` lies in one of the ``(start, end)`` ``stretches`` (end
    excluded).

    See Also
    --------
    score_kept

    Examples
    --------
    >>> from edr.evaluate.breaths import in_stretches
    >>> in_stretches([1.0, 5.0, 10.0], [(0.0, 2.0), (9.0, 10.0)])
    array([ True, False, False])
    """
    t = np.asarray(t, dtype=float)
    s = np.asarray(stretches, dtype=float).reshape(-1, 2)
    return ((t[:, None] >= s[None, :, 0]) & (t[:, None] < s[None, :, 1])).any(axis=1)


def detected_at(breaths, event: str = END_OF_INSPIRATION) -> np.ndarray:
    """The times (s) of ``breaths`` at the point of the breath ``event``: their ``time`` (ends
    of inspiration) or their ``onset`` (starts of inspiration; NaN where none was found).

    Raises
    ------
    ValueError
        An ``event`` not in :data:`edr.io.reference.BREATH_EVENTS`.

    See Also
    --------
    score_kept : scores them against annotations of the same event.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.breaths import Breaths
    >>> from edr.evaluate.breaths import detected_at
    >>> b = Breaths(np.array([1.0, 5.0]), np.array([np.nan, 4.0]), np.ones(2), np.zeros(2, bool),
    ...             np.r_[True, False], np.zeros(2, bool), np.empty((0, 2)), np.empty((0, 2)),
    ...             1, onset=np.array([np.nan, 3.2]))
    >>> detected_at(b, "start_of_inspiration")
    array([nan, 3.2])
    """
    if check_breath_event(event) == START_OF_INSPIRATION:
        return np.asarray(breaths.onset, dtype=float)
    return np.asarray(breaths.time, dtype=float)


def score_kept(breaths, reference, *, event: str = END_OF_INSPIRATION,
               **tolerance) -> BreathScores:
    """:func:`score_breaths` of the breaths ``breaths`` keeps (not ``low_quality``) against the
    annotated breaths outside its ``withheld`` stretches, at the point of the breath the
    annotations mark (``event``); ``share_kept`` is the share of the annotated breaths scored. A
    record whose polarity is uncertain (any breath marked ``uncertain_polarity``: the polarity
    is one per record) keeps none of its breaths.

    Parameters
    ----------
    breaths : edr.breaths.Breaths
    reference : array_like
        Annotated breath times (s, the EDR's time origin), increasing.
    event : {"end_of_inspiration", "start_of_inspiration"}, default "end_of_inspiration"
        What the annotations mark (:attr:`edr.io.Recording.breath_event`): the breaths'
        ends of inspiration are scored against ends, their onsets against starts
        (:func:`detected_at`; a breath without an onset is not a detection of a start).
    **tolerance
        ``max_tolerance_s`` and ``fraction`` of :func:`tolerances`.

    Raises
    ------
    ValueError
        An unknown ``event``, reference times that are not finite and increasing.

    See Also
    --------
    score_breaths, edr.breaths.Breaths, edr.io.reference.breath_event

    Examples
    --------
    >>> import numpy as np
    >>> from edr.breaths import Breaths
    >>> from edr.evaluate.breaths import score_kept
    >>> t = np.array([1.0, 5.0, 9.0])
    >>> b = Breaths(t, np.r_[np.nan, 4.0, 4.0], np.ones(3), np.array([False, False, True]),
    ...             np.r_[True, False, False], np.zeros(3, bool), np.empty((0, 2)),
    ...             np.array([[8.0, 10.0]]), 1, onset=t - 1.8)
    >>> s = score_kept(b, [1.1, 5.2, 9.0])
    >>> s.n_reference, s.n_matched, round(s.share_kept, 3)
    (2, 2, 0.667)
    >>> score_kept(b, [1.1, 5.2, 9.0], event="start_of_inspiration").n_matched
    0
    >>> score_kept(b, [-0.7, 3.1], event="start_of_inspiration").n_matched
    2
    """
    det = detected_at(breaths, event)
    ref = _times(reference, "reference")
    if np.any(getattr(breaths, "uncertain_polarity", False)):
        return BreathScores(0, 0, 0, np.empty(0), ref.size)
    kept_ref = ref[~in_stretches(ref, breaths.withheld)]
    det = det[~np.asarray(breaths.low_quality, dtype=bool) & np.isfinite(det)]
    s = score_breaths(det, kept_ref, **tolerance)
    return BreathScores(s.n_reference, s.n_detected, s.n_matched, s.interval_errors, ref.size)
