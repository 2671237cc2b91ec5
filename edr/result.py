"""The result of an extraction: :class:`EDRResult` and its windows' :class:`WindowInfo`.

What :func:`edr.pipeline.extract_edr` returns (and the stream's breath outputs build): the EDR on
its uniform grid, the beats, the judged rates, every window's analysis in brief, the record's
summary (:meth:`EDRResult.summary`) and its CSV columns (:meth:`EDRResult.grid_columns`); the
pandas tables are :class:`edr.tables.ResultTables`'s, which it inherits. How it is made:
:mod:`edr.pipeline`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from edr.io.writers import to_jsonable
from edr.rates import QUALITY_THRESHOLD
from edr.tables import ResultTables

__all__ = ["EDRResult", "WindowInfo"]


@dataclass
class WindowInfo:
    """What happened in one analysis window.

    Attributes
    ----------
    start_s, end_s : float
        Window limits (record time, s).
    n_beats, n_dropped : int
        Valid beats used and beats dropped (ectopic, artifact, clipped) in the window.
    sigma2 : float or None
        Kernel width used in the window (kernel methods).
    lead : str
        Lead analysed.
    quality : dict
        ``status`` ("ok"; "low quality: ..." when the median quality of its rate windows,
        ``quality_index``, is below :data:`edr.rates.QUALITY_THRESHOLD` or more than
        :data:`edr.rates.MAX_DROPPED_SHARE` of its beats were dropped (``dropped_share``; its
        rates are then withheld); or the reason the window was skipped),
        ``spectral_concentration`` of the window's EDR, the selection ``criterion`` and
        ``margin`` (``lambda_1 - tau_1`` for MDD) when available, and method-specific figures.
    beats : dict or None
        Every beat detected on ``lead`` in the window: ``times`` (record time, s), ``valid`` and
        ``ectopic`` (bool; neither: artefact or clipped); None for a skipped window.

    See Also
    --------
    EDRResult : its ``windows``, one per analysis window.
    edr.tables.window_frame : the windows as a table.

    Examples
    --------
    >>> from edr.pipeline import extract_edr
    >>> from edr.simulate import simulate_recording
    >>> info = extract_edr(simulate_recording(duration_s=60.0, fs=250.0, random_state=0)).windows[0]
    >>> info.start_s, info.end_s, info.quality["status"]
    (0.0, 60.0, 'ok')
    """

    start_s: float
    end_s: float
    n_beats: int
    n_dropped: int
    sigma2: float | None
    lead: str
    quality: dict = field(default_factory=dict)
    beats: dict | None = field(default=None, repr=False, compare=False)


@dataclass(repr=False)  # a digest, not every array: ResultTables.__repr__
class EDRResult(ResultTables):
    """An extracted respiratory signal with everything needed to judge it.

    As pandas tables: :meth:`to_frame` (the grid), :meth:`rate_frame` (rate windows),
    :meth:`window_frame` (analysis windows), :meth:`lead_frame` (leads per window),
    :meth:`breath_frame` (one row per breath). Its breaths: :attr:`breaths` (found once, when
    first asked for, by :func:`edr.breaths.detect_breaths`).

    Attributes
    ----------
    time, waveform : ndarray
        Uniform grid (s) at ``fs`` and the band-passed, standardised EDR (NaN
        where masked: farther than :data:`MAX_GAP_S` from every used beat, or in
        a skipped window).
    fs : float
        Grid rate (Hz).
    beat_times, beat_values : ndarray
        Per-beat EDR before interpolation (valid beats; for grid-based methods
        the waveform before the band-pass read at the beats), same sign and
        scale as the waveform.
    rate_time, rate_bpm : ndarray
        Respiratory rate, 32 s windows every 16 s: the EDR's breaths counted, else its spectral
        peak (:mod:`edr.breath_rates`); NaN where masked or of quality below
        :data:`edr.rates.QUALITY_THRESHOLD` (the extraction abstains).
    method, lead : str
    sigma2 : float or None
        Kernel width of the first analysed window.
    selection : SelectionResult or None
        Model selection of the first analysed window.
    windows : list of WindowInfo
    n_beats, n_beats_dropped : int
    params : dict
        Every option used.
    rate_quality : ndarray
        Quality (0-1) of each rate window (:func:`edr.rates.judged_rates`).
    status : str
        "ok" when at least one window is; else why no usable breathing was found ("too short
        for a rate: ..." when the record holds no 32 s rate window).
    masked : list of (float, float)
        Stretches (s) in which every lead analysed is flat or missing for at least
        :data:`edr.windows.MASKED_STRETCH_S`: no window covers them, the waveform and the
        rates there are NaN.
    unusable_leads : dict
        ``{lead: why}`` of the leads analysed that are flat or missing over the whole record
        (:func:`edr.windows.dead_leads`): left out of every window.
    clipped_samples : dict
        ``{lead: n}`` of the leads analysed: samples held at the lead's rail
        (:func:`edr.beats.flags.clipped_samples`, the count of a stream's summary).
    clipped_beats : dict
        ``{lead: n}``: beats with a clipped QRS (:func:`edr.beats.flags.clipped_beats`, dropped
        while fewer than half the beats clip) among those timing the windows (the analysed lead's;
        in multi-lead modes the chosen lead's), counted as ``n_beats``.

    See Also
    --------
    edr.pipeline.extract_edr : what returns it.
    edr.tables : its pandas tables.
    edr.scoring.score : its scores against a reference respiration.
    edr.breaths.detect_breaths : its breaths.

    Examples
    --------
    >>> from edr.pipeline import extract_edr
    >>> from edr.simulate import simulate_recording
    >>> res = extract_edr(simulate_recording(duration_s=60.0, fs=250.0, random_state=0))
    >>> res.status, res.fs, res.waveform.shape == res.time.shape, len(res.windows)
    ('ok', 4.0, True, 1)
    >>> res.rate_time.shape == res.rate_bpm.shape == res.rate_quality.shape
    True
    """

    time: np.ndarray
    waveform: np.ndarray
    fs: float
    beat_times: np.ndarray
    beat_values: np.ndarray
    rate_time: np.ndarray
    rate_bpm: np.ndarray
    method: str
    lead: str
    sigma2: float | None
    selection: object
    windows: list
    n_beats: int
    n_beats_dropped: int
    params: dict
    rate_quality: np.ndarray = field(default_factory=lambda: np.empty(0))
    status: str = "ok"
    masked: list = field(default_factory=list)
    unusable_leads: dict = field(default_factory=dict)
    clipped_samples: dict = field(default_factory=dict)
    clipped_beats: dict = field(default_factory=dict)

    def grid_columns(self) -> dict:
        """``time_s``, ``edr``, ``rate_bpm`` and ``quality`` on the output grid: each grid point
        carries the rate and quality of the rate window whose centre is nearest."""
        t = np.asarray(self.time, dtype=float)
        rate = np.full(t.size, np.nan)
        quality = np.full(t.size, np.nan)
        rt = np.asarray(self.rate_time, dtype=float)
        if rt.size and t.size:
            k = np.clip(np.searchsorted(rt, t), 1, max(rt.size - 1, 1))
            k = np.where(np.abs(t - rt[k - 1]) <= np.abs(t - rt[np.minimum(k, rt.size - 1)]), k - 1,
                         np.minimum(k, rt.size - 1))
            rate = np.asarray(self.rate_bpm, dtype=float)[k]
            if np.size(self.rate_quality) == rt.size:
                quality = np.asarray(self.rate_quality, dtype=float)[k]
        return {"time_s": t, "edr": np.asarray(self.waveform, dtype=float), "rate_bpm": rate,
                "quality": quality}

    def summary(self) -> dict:
        """JSON-serialisable digest (no per-sample arrays except the selection curve)."""
        rate = np.asarray(self.rate_bpm, dtype=float)
        sel = None
        if self.selection is not None:
            sel = {"criterion": str(self.selection.criterion),
                   "sigma2": float(self.selection.sigma2),
                   "grid": [float(v) for v in np.asarray(self.selection.grid)],
                   "curve": to_jsonable(np.asarray(self.selection.curve, dtype=float))}
        return {
            "method": self.method,
            "lead": self.lead,
            "sigma2": to_jsonable(None if self.sigma2 is None else float(self.sigma2)),
            "fs": float(self.fs),
            "duration_s": float(self.time[-1] - self.time[0] + 1.0 / self.fs)
            if self.time.size else 0.0,
            "n_beats": int(self.n_beats),
            "n_beats_dropped": int(self.n_beats_dropped),
            "status": self.status,
            "rate_bpm_median": to_jsonable(float(np.nanmedian(rate)))
            if np.isfinite(rate).any() else None,
            "rate_coverage": float(np.isfinite(rate).mean()) if rate.size else 0.0,
            "quality_median": (float(np.median(self.rate_quality))
                               if np.size(self.rate_quality) else None),
            "quality_threshold": QUALITY_THRESHOLD,
            "masked_s": [[float(a), float(b)] for a, b in self.masked],
            "unusable_leads": dict(self.unusable_leads),
            "clipped_samples": dict(self.clipped_samples),
            "clipped_beats": dict(self.clipped_beats),
            "n_windows": len(self.windows),
            "windows": [to_jsonable(w) for w in self.windows],
            "selection": sel,
            "params": to_jsonable(self.params),
        }
