"""Breath by breath: every end of inspiration of an EDR, its interval, quality and pauses.

From an :class:`edr.pipeline.EDRResult` (the standardised EDR on its uniform grid, NaN where
masked, and the judged rate windows), :func:`detect_breaths` finds

* the **breaths**: the extrema of the EDR that mark ends of inspiration (the convention of
  the MARSH annotations). Which extremum that is depends on how the lead's QRS changes with
  inspiration, so it is read from the ECG per record (:func:`edr.polarity.decide_polarity`:
  the respiratory sinus arrhythmia where it is coherent, strong and in phase, the shape where
  its test is significant; otherwise every breath is marked ``uncertain_polarity``). A breath
  is an extremum of that polarity whose prominence reaches :data:`PROMINENCE` (the EDR is
  standardised, so in standard deviations) and :data:`RELATIVE_PROMINENCE` of the typical
  breath's around it (:func:`breath_peaks`), and which is not closer than
  :data:`MIN_CYCLE_FRACTION` of the local breathing period (:func:`local_period`, the fastest
  spectral-peak rate of the rate windows covering it) to a more prominent one: the detector
  follows the local rate;
* each breath's **onset**, its start of inspiration: the lowest point of the EDR signed so
  that inspiration rises, since the previous breath and at most one local period back
  (:func:`edr.breath_extrema.breath_onsets`); what annotated starts of inspiration are scored
  against (:func:`edr.evaluate.breaths.score_kept`);
* each breath's **interval** to the previous one (NaN for the first breath of a stretch of
  finite EDR: across a masked stretch there is no interval);
* its **quality**: that of the rate window whose centre is nearest
  (:meth:`edr.pipeline.EDRResult.grid_columns`, the panel agreement of :mod:`edr.rates`);
  a breath where the rate is withheld is kept but flagged ``low_quality``, unless the rate
  was withheld only for a panel agreement between :data:`BREATH_MIN_QUALITY` and
  :data:`edr.rates.QUALITY_THRESHOLD` (the agreement of the rates is not the correctness of
  the breaths: measured);
* the **pauses** (:func:`edr.pauses.find_pauses`) between the full breaths, those of at least
  :data:`PAUSE_RELATIVE` of the typical depth; a shallower breath inside a pause is not
  reported (a pause is a stretch without a breath).

Measurements behind the constants: ``docs/studies/breath_detection.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from edr.breath_extrema import (
    MIN_CYCLE_FRACTION,
    PROMINENCE,
    RELATIVE_PROMINENCE,
    TYPICAL_PERCENTILE,
    TYPICAL_SPAN_S,
    breath_candidates,
    breath_onsets,
    breath_peaks,
    finite_runs,
    local_period,
)
from edr.io.annotations import BREATH_COLUMNS
from edr.pauses import PAUSE_S, find_pauses
from edr.polarity import RSA_MIN_BPM, Polarity, decide_polarity
from edr.rates import QUALITY_THRESHOLD
from edr.signal import RATE_WINDOW_S

__all__ = ["BREATH_MIN_QUALITY", "MIN_CYCLE_FRACTION", "PAUSE_RELATIVE", "POLARITIES", "PROMINENCE",
           "RELATIVE_PROMINENCE",
           "TYPICAL_PERCENTILE", "TYPICAL_SPAN_S", "Breaths", "breath_peaks",
           "detect_breaths", "finite_runs", "judged_around", "local_period"]

PAUSE_RELATIVE = 0.5
"""Pauses are the gaps between the full breaths, those whose prominence is at least this
fraction of the typical one: noise in a pause is not taken for breaths."""

BREATH_MIN_QUALITY = 0.3
"""A breath in a rate window whose rate was withheld only for low panel agreement (quality
below :data:`edr.rates.QUALITY_THRESHOLD`) is flagged ``low_quality`` only when the quality
is also below this."""

POLARITIES = ("auto", "peaks", "troughs")
"""How the end of inspiration is read: from the ECG (:func:`edr.polarity.inspiration_sign`), or
the EDR's maxima or minima."""


@dataclass(frozen=True)
class Breaths:
    """Breaths of one record: arrays of equal length, in time order.

    Attributes
    ----------
    time : ndarray of float
        End of inspiration (s, the EDR's time origin): the extremum that marks the breath.
    interval : ndarray of float
        Time (s) since the previous breath; NaN for the first breath of a stretch of finite EDR.
    quality : ndarray of float
        Quality (0-1) of the rate window whose centre is nearest.
    low_quality : ndarray of bool
        The rate is withheld there (for a quality below ``min_quality`` of
        :func:`detect_breaths`, dropped beats, ...): the breath is kept but not to be trusted.
    after_gap : ndarray of bool
        The previous breath lies across a masked stretch (no interval), or there is none.
    after_pause : ndarray of bool
        The interval before this breath is a pause (:attr:`pauses`).
    pauses : ndarray, shape (k, 2)
        Start and end (s) of every pause: good ECG, no breath (:func:`edr.pauses.find_pauses`).
    withheld : ndarray, shape (m, 2)
        Stretches (s) where no trustworthy breath can be reported: the EDR is masked or its
        breaths would be ``low_quality``. Pauses are not withheld stretches, though a pause may
        overlap one.
    sign : int
        +1 when ends of inspiration are the EDR's maxima, -1 its minima
        (:func:`edr.polarity.decide_polarity`).
    uncertain_polarity : ndarray of bool, optional
        No significant evidence decided which extrema end inspiration: the breath is kept
        (its interval does not depend on it) but its time may be half a breath off. All False
        when not given.
    polarity : edr.polarity.Polarity or None
        The decision and its evidence (None when the polarity was fixed by the caller).
    onset : ndarray of float, optional
        Start of inspiration (s) of each breath (:func:`edr.breath_extrema.breath_onsets`):
        what a reference of starts of inspiration is scored against
        (:func:`edr.evaluate.breaths.score_kept`); NaN where none was found. All NaN when not
        given.

    See Also
    --------
    detect_breaths : what returns it.
    edr.evaluate.breaths.score_kept : scores it against annotated breaths.

    Examples
    --------
    >>> from edr.breaths import detect_breaths
    >>> from edr.pipeline import extract_edr
    >>> from edr.simulate import simulate_recording
    >>> res = extract_edr(simulate_recording(duration_s=60.0, fs=250.0, random_state=0))
    >>> breaths = detect_breaths(res)
    >>> breaths.time[:3].round(2), list(breaths.columns())[:3]
    (array([ 4.11,  8.11, 12.07]), ['time_s', 'onset_s', 'interval_s'])
    """

    time: np.ndarray
    interval: np.ndarray
    quality: np.ndarray
    low_quality: np.ndarray
    after_gap: np.ndarray
    after_pause: np.ndarray
    pauses: np.ndarray
    withheld: np.ndarray
    sign: int
    uncertain_polarity: np.ndarray | None = None
    polarity: Polarity | None = None
    onset: np.ndarray | None = None

    def __post_init__(self):
        flag = np.zeros(np.size(self.time), dtype=bool) if self.uncertain_polarity is None \
            else np.asarray(self.uncertain_polarity, dtype=bool)
        object.__setattr__(self, "uncertain_polarity", flag)
        onset = np.full(np.size(self.time), np.nan) if self.onset is None \
            else np.asarray(self.onset, dtype=float)
        object.__setattr__(self, "onset", onset)

    def __len__(self) -> int:
        return int(self.time.size)

    COLUMNS = BREATH_COLUMNS
    """Columns of :meth:`to_frame` (and of the breath CSV: :mod:`edr.io.annotations`)."""

    def columns(self) -> dict:
        """The breaths as :attr:`COLUMNS` → NumPy array."""
        return dict(zip(self.COLUMNS, (self.time, self.onset, self.interval, self.quality,
                                       self.low_quality, self.after_gap, self.after_pause,
                                       self.uncertain_polarity), strict=True))

    def summary(self) -> dict:
        """JSON-ready digest: counts (breaths, low-quality ones, the others: kept, pauses and
        their total length in s), the polarity (its sign, whether a significant evidence
        decided it and which: :class:`edr.polarity.Polarity`), and the median, standard
        deviation, coefficient of variation and root mean square of successive differences
        (RMSSD) of the intervals that are trusted (both breaths kept, not across a gap, not a
        pause); None where there are fewer than 2. The intervals do not depend on the polarity.

        Examples
        --------
        >>> import numpy as np
        >>> from edr.breaths import Breaths
        >>> t = np.array([0.0, 4.0, 8.5, 12.5, 30.0, 34.0])
        >>> iv = np.r_[np.nan, np.diff(t)]
        >>> b = Breaths(t, iv, np.full(6, 0.9), np.zeros(6, bool), np.r_[True, np.zeros(5, bool)],
        ...             np.array([0, 0, 0, 0, 1, 0], bool), np.array([[12.5, 30.0]]),
        ...             np.empty((0, 2)), -1)
        >>> s = b.summary()
        >>> s["n_breaths"], s["n_pauses"], s["interval_median_s"], round(s["interval_rmssd_s"], 3)
        (6, 1, 4.0, 0.5)
        """
        low = np.asarray(self.low_quality, dtype=bool)
        trusted = np.isfinite(self.interval) & ~self.after_pause & ~low
        trusted[1:] &= ~low[:-1]
        iv = self.interval[trusted]
        successive = np.diff(self.interval)[trusted[1:] & trusted[:-1]]
        enough = iv.size >= 2
        return {
            "n_breaths": len(self), "n_low_quality": int(low.sum()),
            "n_kept": int(len(self) - low.sum()),
            "n_pauses": int(self.pauses.shape[0]),
            "pause_s_total": float(np.sum(self.pauses[:, 1] - self.pauses[:, 0])),
            "inspiration_sign": int(self.sign),
            "polarity_confident": bool(not self.uncertain_polarity.any()),
            "polarity_source": None if self.polarity is None else self.polarity.source,
            "interval_median_s": float(np.median(iv)) if enough else None,
            "interval_sd_s": float(np.std(iv, ddof=1)) if enough else None,
            "interval_cv": float(np.std(iv, ddof=1) / np.mean(iv)) if enough else None,
            "interval_rmssd_s": float(np.sqrt(np.mean(successive ** 2)))
            if successive.size else None,
        }

    def to_frame(self):
        """The breaths as a :class:`pandas.DataFrame` with :attr:`COLUMNS`.

        Examples
        --------
        >>> import numpy as np
        >>> from edr.breaths import Breaths
        >>> b = Breaths(np.array([1.0, 5.0]), np.array([np.nan, 4.0]), np.array([0.9, 0.8]),
        ...             np.zeros(2, bool), np.array([True, False]), np.zeros(2, bool),
        ...             np.empty((0, 2)), np.empty((0, 2)), 1)
        >>> b.to_frame()["interval_s"].tolist()
        [nan, 4.0]
        """
        import pandas as pd

        return pd.DataFrame(self.columns())


def detect_breaths(result, *, polarity: str = "auto", prominence: float = PROMINENCE,
                   relative: float = RELATIVE_PROMINENCE, pause_s: float = PAUSE_S,
                   rsa_min_bpm: float = RSA_MIN_BPM,
                   min_quality: float = BREATH_MIN_QUALITY,
                   min_cycle_fraction: float = MIN_CYCLE_FRACTION,
                   rates_pending_from: float = np.inf) -> Breaths:
    """Every breath of an extracted EDR: its end of inspiration, onset, interval, quality and
    pauses.

    Parameters
    ----------
    result : EDRResult
        From :func:`edr.pipeline.extract_edr` (``time``, ``waveform``, ``fs``, ``beat_times``
        and the judged rate windows through ``grid_columns()``).
    polarity : {"auto", "peaks", "troughs"}, default "auto"
        Which extrema of the EDR are ends of inspiration: read from the ECG
        (:func:`edr.polarity.decide_polarity`; breaths of a record whose polarity no
        significant evidence decides are marked ``uncertain_polarity``), or fixed.
    prominence : float, default :data:`PROMINENCE`
        Smallest prominence of a breath (standard deviations of the EDR).
    relative : float, default :data:`RELATIVE_PROMINENCE`
        Smallest prominence of a breath relative to the typical one around it
        (:func:`breath_peaks`); pauses: :data:`PAUSE_RELATIVE` (``relative`` when larger).
    pause_s : float, default :data:`edr.pauses.PAUSE_S`
        A pause is an interval between breaths of good ECG that exceeds the typical interval
        around it by more than this (s) (:func:`edr.pauses.find_pauses`).
    rsa_min_bpm : float, default :data:`edr.polarity.RSA_MIN_BPM`
        With ``polarity="auto"``: the coherent heart-rate swing from which the arrhythmia's
        sign decides the polarity.
    min_quality : float, default :data:`BREATH_MIN_QUALITY`
        Where the rate is withheld only for a quality below
        :data:`edr.rates.QUALITY_THRESHOLD`, breaths of at least this quality are not flagged
        ``low_quality`` (:data:`edr.rates.QUALITY_THRESHOLD`: every breath where the rate is
        withheld is flagged).
    min_cycle_fraction : float, default :data:`MIN_CYCLE_FRACTION`
        Two extrema closer than this fraction of the local breathing period are one breath,
        the more prominent (:func:`breath_peaks`).
    rates_pending_from : float, default inf
        Centre (s, the result's time) of the first rate window whose verdict is not known yet:
        a stream's windows from it on are still to come. A breath that one of them would judge
        counts as judged for the pauses (:func:`judged_around`); inf: every window is known
        (offline).

    Returns
    -------
    Breaths

    Raises
    ------
    ValueError
        An unknown ``polarity``, a ``prominence`` that is not positive, a ``relative`` outside
        [0, 1), a ``min_quality`` outside [0, 1], a ``min_cycle_fraction`` outside [0, 1), or a
        ``result`` whose waveform and time differ in length.

    See Also
    --------
    edr.evaluate.breaths.score_breaths : scoring against annotated breaths.

    References
    ----------
    Schäfer A, Kratky KW. Estimation of breathing rate from respiratory sinus arrhythmia:
    comparison of various methods. Ann Biomed Eng 36(3):476-485, 2008 (breath counting from
    extrema with an amplitude threshold). Charlton PH et al. Breathing rate estimation from
    the electrocardiogram and photoplethysmogram: a review. IEEE Rev Biomed Eng 11:2-20, 2018
    (Table IV: time-domain breath detection).

    Examples
    --------
    >>> from edr.breaths import detect_breaths
    >>> from edr.pipeline import extract_edr
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=120.0, fs=250.0, random_state=0)
    >>> b = detect_breaths(extract_edr(rec))
    >>> 25 <= len(b) <= 35, list(b.to_frame().columns)[:3]
    (True, ['time_s', 'onset_s', 'interval_s'])
    """
    _check_breath_options(polarity, prominence, relative, min_quality, min_cycle_fraction)
    t = np.asarray(result.time, dtype=float)
    x = np.asarray(result.waveform, dtype=float)
    if t.size != x.size:
        raise ValueError(f"result.time ({t.size}) and result.waveform ({x.size}) differ in length")
    fs = float(result.fs)
    decided = decide_polarity(result, rsa_min_bpm=rsa_min_bpm) if polarity == "auto" else \
        Polarity(1 if polarity == "peaks" else -1, True, "given")
    t0 = float(t[0]) if t.size else 0.0
    period = local_period(x, fs, t0)
    pos, depth = breath_candidates(x, fs, decided.sign, period, prominence=prominence,
                                   min_cycle_fraction=min_cycle_fraction)
    keep = depth >= relative
    b = _breaths_at(result, pos[keep], depth[keep] >= max(relative, PAUSE_RELATIVE),
                    decided if polarity == "auto" else None, decided.sign, pause_s,
                    min_quality, rates_pending_from)
    ends = (b.time - t0) * fs
    k = np.clip(np.round(ends).astype(int), 0, max(x.size - 1, 0))
    onset = breath_onsets(x, decided.sign, ends, period[k] * fs)
    return replace(b, onset=t0 + onset / fs)


def _check_breath_options(polarity, prominence, relative, min_quality,
                          min_cycle_fraction) -> None:
    """The ``ValueError`` of :func:`detect_breaths` for a bad option."""
    if polarity not in POLARITIES:
        raise ValueError(f"polarity must be one of {POLARITIES}, got {polarity!r}")
    if not (np.isfinite(prominence) and prominence > 0):
        raise ValueError(f"prominence must be a positive number, got {prominence!r}")
    if not (np.isfinite(relative) and 0 <= relative < 1):
        raise ValueError(f"relative must be in [0, 1), got {relative!r}")
    if not 0 <= min_quality <= 1:
        raise ValueError(f"min_quality must be in [0, 1], got {min_quality!r}")
    if not 0 <= min_cycle_fraction < 1:
        raise ValueError(f"min_cycle_fraction must be in [0, 1), got {min_cycle_fraction!r}")


def _runs_and_intervals(result, time: np.ndarray, pos: np.ndarray):
    """``(after_gap, interval)`` of breaths at ``time`` (grid positions ``pos``)."""
    x = np.asarray(result.waveform, dtype=float)
    k = np.clip(np.round(pos).astype(int), 0, max(x.size - 1, 0))
    run_of = np.searchsorted([b for _, b in finite_runs(x)], k, side="right")
    after_gap = np.ones(time.size, dtype=bool)
    after_gap[1:] = run_of[1:] != run_of[:-1]
    interval = np.full(time.size, np.nan)
    interval[1:] = np.diff(time)
    interval[after_gap] = np.nan
    return after_gap, interval


def _breaths_at(result, pos: np.ndarray, full: np.ndarray, decided, sign: int,
                pause_s: float, min_quality: float, pending_from: float) -> Breaths:
    """The :class:`Breaths` at the fractional grid positions ``pos`` of ``result``'s EDR, the
    pauses found between the ``full`` ones (a shallower breath inside a pause is dropped; the
    rate windows from the centre ``pending_from`` on not known yet), flagged by ``min_quality``
    (:data:`BREATH_MIN_QUALITY`)."""
    t = np.asarray(result.time, dtype=float)
    x = np.asarray(result.waveform, dtype=float)
    t0 = float(t[0]) if t.size else 0.0
    fs = float(result.fs)
    full_time = t0 + pos[full] / fs
    _, full_interval = _runs_and_intervals(result, full_time, pos[full])
    pauses, _ = find_pauses(full_time, full_interval,
                            judged_around(full_time, result, pending_from), pause_s=pause_s)
    time = t0 + pos / fs
    inside = ((time[:, None] > pauses[None, :, 0]) & (time[:, None] < pauses[None, :, 1])).any(1)
    pos, time = pos[~inside], time[~inside]
    after_gap, interval = _runs_and_intervals(result, time, pos)
    k = np.clip(np.round(pos).astype(int), 0, max(x.size - 1, 0))
    cols = result.grid_columns()
    quality = np.nan_to_num(np.asarray(cols["quality"], dtype=float), nan=0.0)
    untrusted = ~np.isfinite(np.asarray(cols["rate_bpm"], dtype=float)) & \
        ~((quality >= min_quality) & (quality < QUALITY_THRESHOLD))
    uncertain = decided is not None and not decided.confident
    return Breaths(time=time, interval=interval,
                   quality=quality[k], low_quality=untrusted[k], after_gap=after_gap,
                   after_pause=np.isin(time, pauses[:, 1]), pauses=pauses,
                   withheld=_stretches(t, ~np.isfinite(x) | untrusted, fs),
                   sign=int(sign), uncertain_polarity=np.full(time.size, uncertain),
                   polarity=decided)


def judged_around(time, result, pending_from: float = np.inf) -> np.ndarray:
    """Whether a rate window holding each of the times ``time`` (s) has a rate (not withheld):
    the ECG shows consistent breathing around it. A breath that ends a long pause is judged by
    the windows that reach past the pause, not only by the nearest one, which may be mostly
    pause.

    In a stream the windows that reach past a pause are reported after the breath that ends it
    (a window at its end): the windows centred at ``pending_from`` (s) and after, still to
    come, are given the benefit of the doubt, and a time one of them would hold counts as
    judged (windows every half a window: every time later than ``pending_from`` less half a
    window). The default, inf: every window is known.

    See Also
    --------
    detect_breaths : flags the breaths outside such windows ``low_quality``.

    Examples
    --------
    >>> from edr.breaths import detect_breaths
    >>> from edr.pipeline import extract_edr
    >>> from edr.simulate import simulate_recording
    >>> res = extract_edr(simulate_recording(duration_s=60.0, fs=250.0, random_state=0))
    >>> from edr.breaths import judged_around
    >>> judged_around([10.0, 30.0], res)
    array([ True,  True])
    >>> judged_around([10.0, 90.0], res), judged_around([10.0, 90.0], res, pending_from=80.0)
    (array([ True, False]), array([ True,  True]))
    """
    time = np.asarray(time, dtype=float)
    centres = np.asarray(result.rate_time, dtype=float)
    given = centres[np.isfinite(np.asarray(result.rate_bpm, dtype=float))]
    pending = time > float(pending_from) - RATE_WINDOW_S / 2
    if given.size == 0 or time.size == 0:
        return pending
    k = np.clip(np.searchsorted(given, time), 1, max(given.size - 1, 1))
    near = np.minimum(np.abs(time - given[k - 1]),
                      np.abs(time - given[np.minimum(k, given.size - 1)]))
    return (near < RATE_WINDOW_S / 2) | pending


def _stretches(t: np.ndarray, mask: np.ndarray, fs: float) -> np.ndarray:
    """``(start, end)`` times (s) of the runs of ``mask`` on the grid ``t`` (each grid point
    standing for ``1 / fs`` s)."""
    runs = finite_runs(np.where(mask, 0.0, np.nan))
    return np.array([[t[a], t[b - 1] + 1.0 / fs] for a, b in runs]).reshape(-1, 2)
