"""An :class:`~edr.pipeline.EDRResult` as pandas tables.

* :func:`grid_frame` — the output grid: ``time_s``, ``edr``, ``rate_bpm``, ``quality`` (the
  columns of the command line's CSV, :meth:`EDRResult.grid_columns`);
* :func:`rate_frame` — one row per rate window: its centre and limits, rate, quality and why
  a rate is withheld (:func:`withheld_reasons`, codes in :data:`WITHHELD`);
* :func:`window_frame` — one row per analysis window: limits, status, σ², beats, quality
  figures and the leads used;
* :func:`lead_frame` — one row per analysis window and lead: whether the lead was used, its
  score, σ², weight in the fused EDR and why it was left out;
* :meth:`ResultTables.breath_frame` — one row per breath (:attr:`ResultTables.breaths`, found
  once per result by :func:`edr.breaths.detect_breaths`): ``time_s`` (end of inspiration),
  ``onset_s`` (start of inspiration), ``interval_s``, ``quality`` and the flags
  (:attr:`edr.breaths.Breaths.COLUMNS`).

pandas is imported by these functions only, so that the pipeline does not need it.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from edr.rates import QUALITY_THRESHOLD, window_starts
from edr.signal import GRID_FS, RATE_WINDOW_S

__all__ = ["WITHHELD", "ResultTables", "grid_frame", "lead_frame", "rate_frame", "window_frame",
           "withheld_reasons"]

#: Why a rate window has no rate (the ``withheld`` column of :func:`rate_frame`).
WITHHELD = {
    "masked": "every lead analysed is flat or missing in part of it (EDRResult.masked)",
    "skipped": "it overlaps an analysis window that was skipped (too few beats, ...)",
    "no beats": "the EDR is masked in part of it: farther than max_gap_s from every used beat",
    "not judged": "no analysed window holds it whole, so no evidence panel judged it",
    "dropped beats": ("its analysis window dropped too many beats as ectopic, artefact or "
                      "clipped (edr.rates.MAX_DROPPED_SHARE)"),
    "low quality": ("the ECG shows no consistent breathing: quality below "
                    "edr.rates.QUALITY_THRESHOLD"),
}

#: Leading columns of :func:`window_frame`; the other scalar quality figures follow, sorted.
WINDOW_COLUMNS = ("start_s", "end_s", "status", "lead", "leads_used", "sigma2", "n_beats",
                  "n_dropped", "dropped_share", "quality_index", "spectral_concentration")


def grid_frame(result):
    """The output grid as a DataFrame: ``time_s``, ``edr``, ``rate_bpm``, ``quality``.

    Each grid point carries the rate and quality of the nearest rate window
    (:meth:`edr.pipeline.EDRResult.grid_columns`, the command line's CSV).

    Examples
    --------
    >>> from edr.simulate import simulate_recording
    >>> from edr.pipeline import extract_edr
    >>> res = extract_edr(simulate_recording(duration_s=60.0, random_state=0))
    >>> from edr.tables import grid_frame
    >>> grid_frame(res).columns.tolist()
    ['time_s', 'edr', 'rate_bpm', 'quality']
    """
    import pandas as pd

    return pd.DataFrame(result.grid_columns())


def withheld_reasons(result, threshold: float = QUALITY_THRESHOLD) -> np.ndarray:
    """Why each rate window of ``result`` has no rate: a key of :data:`WITHHELD`, or None
    where it has one.

    The first that applies: the window overlaps a masked stretch (``"masked"``) or a skipped
    analysis window (``"skipped"``); the EDR is NaN in it (``"no beats"``); no analysed window
    holds it whole (``"not judged"``, :func:`edr.rates.judged_rates`); its quality reaches
    ``threshold``, so its rate was withheld for its analysis window's dropped beats
    (``"dropped beats"``); else its quality is below ``threshold`` (``"low quality"``).

    Parameters
    ----------
    result : EDRResult
    threshold : float, default :data:`edr.rates.QUALITY_THRESHOLD`
        The quality threshold the rates were judged with.

    Returns
    -------
    ndarray of object, shape (n_rate_windows,)

    See Also
    --------
    rate_frame : the rate windows with these reasons as the ``withheld`` column.
    WITHHELD : what each reason means.
    edr.rates.judged_rates : withholds the rates of windows no analysis window judged.

    Examples
    --------
    A flat ECG from 30 s to 45 s leaves the second rate window (16 s to 48 s) without beats:

    >>> from edr.simulate import simulate_recording
    >>> from edr.io.arrays import recording_from_arrays
    >>> from edr.pipeline import extract_edr
    >>> from edr.tables import withheld_reasons
    >>> ecg = simulate_recording(duration_s=60.0, random_state=0).ecg.copy()
    >>> ecg[30 * 250:45 * 250] = 0.0
    >>> res = extract_edr(recording_from_arrays(ecg, fs=250.0))
    >>> withheld_reasons(res).tolist()
    [None, 'no beats']
    """
    rate = np.asarray(result.rate_bpm, dtype=float)
    centre = np.asarray(result.rate_time, dtype=float)
    quality = np.asarray(result.rate_quality, dtype=float)
    if quality.size != rate.size:
        quality = np.zeros(rate.size)
    lo, hi = centre - RATE_WINDOW_S / 2, centre + RATE_WINDOW_S / 2
    skipped = [(w.start_s, w.end_s) for w in result.windows if _skipped(w)]
    analysed = [(w.start_s, w.end_s) for w in result.windows if not _skipped(w)]
    last = hi - 1.0 / float(result.fs)  # the rate window's last grid point
    gaps = _nan_in_rate_windows(np.asarray(result.waveform, dtype=float), float(result.fs),
                                rate.size)
    out = np.full(rate.size, None, dtype=object)
    for i in np.flatnonzero(~np.isfinite(rate)):
        if _overlaps(lo[i], hi[i], result.masked):
            out[i] = "masked"
        elif _overlaps(lo[i], hi[i], skipped):
            out[i] = "skipped"
        elif gaps[i]:
            out[i] = "no beats"
        elif not any(s <= lo[i] + 1e-9 and last[i] <= e + 1e-9 for s, e in analysed):
            out[i] = "not judged"
        elif quality[i] >= threshold:
            out[i] = "dropped beats"
        else:
            out[i] = "low quality"
    return out


def _skipped(window) -> bool:
    return str(window.quality.get("status", "")).startswith("skipped")


def _overlaps(a: float, b: float, stretches) -> bool:
    return any(s < b and e > a for s, e in stretches)


def _nan_in_rate_windows(waveform: np.ndarray, fs: float, n_windows: int) -> np.ndarray:
    """Whether the EDR has a NaN in each rate window (the windows of :func:`edr.rates.rate_series`
    on the grid)."""
    starts = window_starts(waveform.size, fs)
    win = int(round(RATE_WINDOW_S * fs))
    if starts.size != n_windows:  # not the grid the rates were computed on: nothing to tell
        return np.zeros(n_windows, dtype=bool)
    nan = np.concatenate([[0], np.cumsum(np.isnan(waveform))])
    return nan[starts + win] - nan[starts] > 0


def rate_frame(result, threshold: float = QUALITY_THRESHOLD):
    """One row per rate window: ``time_s`` (centre), ``start_s``, ``end_s``, ``rate_bpm`` (NaN
    where withheld), ``quality`` and ``withheld`` (:func:`withheld_reasons`; None where a rate
    is given).

    See Also
    --------
    withheld_reasons : the ``withheld`` column.
    grid_frame : the rates on the output grid.
    edr.rates.rate_series : the rate windows.

    Examples
    --------
    >>> from edr.simulate import simulate_recording
    >>> from edr.pipeline import extract_edr
    >>> res = extract_edr(simulate_recording(duration_s=60.0, random_state=0))
    >>> from edr.tables import rate_frame
    >>> rate_frame(res).columns.tolist()
    ['time_s', 'start_s', 'end_s', 'rate_bpm', 'quality', 'withheld']
    """
    import pandas as pd

    centre = np.asarray(result.rate_time, dtype=float)
    quality = np.asarray(result.rate_quality, dtype=float)
    return pd.DataFrame({
        "time_s": centre, "start_s": centre - RATE_WINDOW_S / 2,
        "end_s": centre + RATE_WINDOW_S / 2,
        "rate_bpm": np.asarray(result.rate_bpm, dtype=float),
        "quality": quality if quality.size == centre.size else np.full(centre.size, np.nan),
        "withheld": withheld_reasons(result, threshold)})


def window_frame(result):
    """One row per analysis window (index ``window``): :data:`WINDOW_COLUMNS`, then every other
    scalar figure of :attr:`edr.result.WindowInfo.quality` (``criterion``, ``margin``,
    ``best``, ...). ``leads_used`` lists the leads fused or analysed, comma-separated.

    See Also
    --------
    lead_frame : the same windows, one row per lead.
    rate_frame : the rate windows, which the analysis windows judge.

    Examples
    --------
    >>> from edr.simulate import simulate_recording
    >>> from edr.pipeline import extract_edr
    >>> res = extract_edr(simulate_recording(duration_s=60.0, random_state=0))
    >>> from edr.tables import window_frame
    >>> frame = window_frame(res)
    >>> frame.index.name, frame.loc[0, "status"], frame.loc[0, "leads_used"]
    ('window', 'ok', 'II')
    """
    import pandas as pd

    rows = []
    for w in result.windows:
        q = w.quality
        row = {"start_s": w.start_s, "end_s": w.end_s, "status": q.get("status"),
               "lead": w.lead, "leads_used": ",".join(_leads_used(w)), "sigma2": w.sigma2,
               "n_beats": w.n_beats, "n_dropped": w.n_dropped}
        row.update({k: q.get(k, np.nan) for k in WINDOW_COLUMNS if k not in row})
        row.update({k: v for k, v in sorted(q.items()) if k not in row
                    and (v is None or isinstance(v, (str, bool, int, float, np.generic)))})
        rows.append(row)
    frame = pd.DataFrame(rows, columns=_ordered_columns(rows))
    frame.index.name = "window"
    return frame


def _ordered_columns(rows: list[dict]) -> list[str]:
    rest = sorted({k for r in rows for k in r} - set(WINDOW_COLUMNS))
    return list(WINDOW_COLUMNS) + rest


def _leads_used(window) -> list[str]:
    """The leads whose EDR went into ``window``'s: fused, jointly analysed, or the one lead."""
    q = window.quality
    if _skipped(window):
        return []
    return list(q.get("fused_leads") or q.get("multilead_leads") or [window.lead])


def lead_frame(result):
    """One row per analysis window and lead assessed: ``window``, ``start_s``, ``end_s``,
    ``lead``, ``analysed`` (the window's lead: the best, or the only one), ``used`` (its EDR
    went into the window's), ``score`` (:func:`edr.leads.assess_leads`; NaN with one lead),
    ``sigma2``, ``weight`` (its share of the fused EDR: the sum of its series' fusion weights;
    1 for the only lead used; NaN where the method records no weights) and ``reason`` (why
    an unusable lead was left out, else None). Skipped windows have no rows.

    See Also
    --------
    window_frame : one row per analysis window.
    edr.leads.assess_leads : the scores and reasons.
    edr.fusion.fuse : the weights.

    Examples
    --------
    >>> from edr.simulate import simulate_recording
    >>> from edr.pipeline import extract_edr
    >>> res = extract_edr(simulate_recording(duration_s=60.0, random_state=0))
    >>> from edr.tables import lead_frame
    >>> lead_frame(res)[["window", "lead", "analysed", "used"]].values.tolist()
    [[0, 'II', True, True]]
    >>> round(float(lead_frame(res)["weight"].sum()), 6)
    1.0
    """
    import pandas as pd

    columns = ["window", "start_s", "end_s", "lead", "analysed", "used", "score", "sigma2",
               "weight", "reason"]
    rows = []
    for k, w in enumerate(result.windows):
        used = _leads_used(w)
        if not used:
            continue
        q = w.quality
        scores = q.get("lead_scores") or {w.lead: np.nan}
        sigma2 = q.get("lead_sigma2") or {w.lead: w.sigma2}
        weights = _lead_weights(q.get("weights"), used, w.lead)
        for lead in scores:
            rows.append({"window": k, "start_s": w.start_s, "end_s": w.end_s, "lead": lead,
                         "analysed": lead == w.lead, "used": lead in used,
                         "score": float(scores[lead]), "sigma2": sigma2.get(lead, np.nan),
                         "weight": weights.get(lead, 0.0 if lead not in used else np.nan),
                         "reason": (q.get("lead_reasons") or {}).get(lead)})
    return pd.DataFrame(rows, columns=columns)


def _lead_weights(weights, used: list[str], analysed: str) -> dict:
    """Each used lead's share of the fused EDR from the series weights (``"<lead>/<series>"``,
    or unprefixed series of the one analysed lead)."""
    if not weights:
        return {used[0]: 1.0} if len(used) == 1 else {}
    out = dict.fromkeys(used, 0.0)
    for name, value in weights.items():
        lead = name.rpartition("/")[0] or analysed
        out[lead] = out.get(lead, 0.0) + float(value)
    return out


class ResultTables:
    """The tables of :class:`edr.pipeline.EDRResult`, which inherits them (pandas is imported
    when one is asked for), and its breaths (found when first asked for, then kept)."""

    @cached_property
    def breaths(self):
        """The breaths of the EDR: :func:`edr.breaths.detect_breaths` with its defaults, run
        once, when first asked for; every output of the breaths (the breath CSV and WFDB
        annotations of ``edr extract``, the JSON summary, the record figure,
        :meth:`breath_frame`) reads this one object.

        Returns
        -------
        edr.breaths.Breaths

        See Also
        --------
        edr.breaths.detect_breaths : other options (a fixed polarity, ...).

        Examples
        --------
        >>> from edr.pipeline import extract_edr
        >>> from edr.simulate import simulate_recording
        >>> res = extract_edr(simulate_recording(duration_s=120.0, random_state=0))
        >>> res.breaths is res.breaths, 25 <= len(res.breaths) <= 35
        (True, True)
        """
        from edr.breaths import detect_breaths

        return detect_breaths(self)

    def breath_frame(self):
        """One row per breath (:attr:`breaths`): :attr:`edr.breaths.Breaths.COLUMNS`
        (``time_s`` the end of inspiration, ``onset_s`` the start of inspiration before it,
        ``interval_s``, ``quality``, ``low_quality``, ``after_gap``, ``after_pause``,
        ``uncertain_polarity``).

        Examples
        --------
        >>> from edr.pipeline import extract_edr
        >>> from edr.simulate import simulate_recording
        >>> res = extract_edr(simulate_recording(duration_s=120.0, random_state=0))
        >>> res.breath_frame().columns.tolist()[:4]
        ['time_s', 'onset_s', 'interval_s', 'quality']
        """
        return self.breaths.to_frame()

    def __repr__(self) -> str:
        """A digest of the result, one field a line (what the command line prints), not its
        arrays: ``print(result)`` or a notebook's echo shows what it holds.

        Examples
        --------
        >>> from edr.pipeline import extract_edr
        >>> from edr.simulate import simulate_recording
        >>> print(extract_edr(simulate_recording(duration_s=120.0, random_state=0)))
        ... # doctest: +ELLIPSIS
        EDRResult(method='kpca_fusion', lead='II', status='ok',
                  120.0 s, 139 beats used, 0 dropped, sigma2=...,
                  rate median 1... breaths/min in 6 of 6 rate windows (quality >= 0.65),
                  waveform: 480 samples at 4 Hz (.to_frame()); rate windows: .rate_frame();
                  analysis windows: .window_frame(); breaths: .breath_frame())
        """
        s = self.summary()
        rate = np.asarray(self.rate_bpm, dtype=float)
        given = int(np.isfinite(rate).sum())
        median = (f"rate median {s['rate_bpm_median']:.1f} breaths/min in {given} of "
                  f"{rate.size} rate windows" if given else f"no rate in {rate.size} rate windows")
        sigma2 = "None" if s["sigma2"] is None else f"{s['sigma2']:.4g}"
        pad = " " * len("EDRResult(")
        return (f"EDRResult(method={s['method']!r}, lead={s['lead']!r}, status={s['status']!r},\n"
                f"{pad}{s['duration_s']:.1f} s, {s['n_beats']} beats used, "
                f"{s['n_beats_dropped']} dropped, sigma2={sigma2},\n"
                f"{pad}{median} (quality >= {s['quality_threshold']:g}),\n"
                f"{pad}waveform: {np.size(self.waveform)} samples at {GRID_FS:g} Hz "
                f"(.to_frame()); rate windows: .rate_frame();\n"
                f"{pad}analysis windows: .window_frame(); breaths: .breath_frame())")

    def to_frame(self):
        """The output grid as a DataFrame (:func:`grid_frame`)."""
        return grid_frame(self)

    def rate_frame(self):
        """The rate windows and why a rate is withheld (:func:`rate_frame`)."""
        return rate_frame(self)

    def window_frame(self):
        """The analysis windows: status, σ², beats, leads used (:func:`window_frame`)."""
        return window_frame(self)

    def lead_frame(self):
        """Each window's leads: used, score, σ², weight (:func:`lead_frame`)."""
        return lead_frame(self)
