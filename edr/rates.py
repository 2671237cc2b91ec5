"""Respiratory rates: series → rate windows → judged rates.

The one home of the rate computations the pipeline, the stream and the evaluation share:

* the rate windows — :data:`edr.signal.RATE_WINDOW_S` long every :data:`edr.signal.RATE_STEP_S`
  (:func:`window_starts`) — and their spectral-peak rates (:func:`spectral_peak_rates`,
  :func:`rate_series`);
* the quality of a rate (:func:`rate_quality`, :func:`panel_agreement`), in the spirit of the
  "smart fusion" of Karlen et al. (2013): the weighted share of a panel of series that may
  carry the breathing whose own spectral-peak rate lies within :data:`AGREEMENT_BPM` of the
  EDR's. Where the ECG carries no consistent breathing the series disagree, the quality is
  low, and below :data:`QUALITY_THRESHOLD` no rate is reported;
* the judged rates of a stitched EDR (:func:`judged_rates`): every rate window gets its
  spectral-peak rate and the quality given by the evidence panel of the analysis window that
  holds it (:attr:`edr.window_analysis.WindowAnalysis.panel`; the panel's rates of all the rate
  windows one analysis window judges are computed at once); below the threshold the rate is
  withheld (NaN);
* no rate the beats cannot carry: every series of the panel, and the EDR made of them, is
  sampled once per beat, so with the beat times the rate search of a window stops at the
  fastest rate they carry (:func:`edr.signal.carried_bpm`, half the local beat rate less a
  margin), and a rate within another margin of that limit (:func:`near_carried`), where a
  beat-to-beat alternation of the heart rate can still reach, is judged by the morphology
  series alone (the panel without :data:`edr.fusion.HEART_SERIES`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from edr.fusion import HEART_SERIES
from edr.rate_spans import RateSpan
from edr.rate_spectra import rated_starts, spectral_peak_rates, window_starts
from edr.signal import (
    GRID_FS,
    NYQUIST_MARGIN_BPM,
    RATE_TILT,
    RATE_WINDOW_S,
    as_series,
    carried_bpm,
    positive_rate,
)
from edr.windows import Window

__all__ = ["AGREEMENT_BPM", "MAX_DROPPED_SHARE", "QUALITY_THRESHOLD", "JudgedRates", "RateSpan",
           "judged_rates", "near_carried", "panel_agreement", "rate_quality", "rate_series",
           "settled_span", "spectral_peak_rates", "window_starts"]

AGREEMENT_BPM = 2.0
"""A panel series agrees with the EDR in a rate window when their rates differ by at most this."""
QUALITY_THRESHOLD = 0.65
"""Rate windows whose quality is below this get no rate (NaN): the EDR abstains. The largest
threshold that keeps a rate in 90 % of the reference rate windows of each database, chosen by
nested leave-one-subject-out (``docs/tuned_constants.md``)."""

MAX_DROPPED_SHARE = 1 / 3
"""An analysis window in which more than this share of the detected beats were dropped
(ectopic, artefact, clipped) gives no rate: its morphology is not to be trusted
(``docs/design.md#3-generalisation-to-unseen-patients``)."""
_TOO_SHORT = f"too short for a rate: less than one {RATE_WINDOW_S:g} s rate window"


def rate_series(x, *, fs: float = GRID_FS, t0: float = 0.0, tilt: float = RATE_TILT):
    """Respiratory rate per :data:`~edr.signal.RATE_WINDOW_S` window
    (:data:`~edr.signal.RATE_STEP_S` step) from the spectral peak.

    Parameters
    ----------
    x : array_like, shape (n,)
        Uniformly sampled respiratory series.
    fs : float, default :data:`~edr.signal.GRID_FS`
        Its rate in Hz.
    t0 : float, default 0.0
        Time (s) of ``x[0]``.
    tilt : float, default :data:`~edr.signal.RATE_TILT`
        Exponent of the frequency weighting that picks the peak.

    Returns
    -------
    t : ndarray
        Window centres in s.
    bpm : ndarray
        Peak of the Hann-windowed periodogram zero-padded to :data:`~edr.signal.RATE_NFFT`
        points within :data:`~edr.signal.RATE_BAND_BPM`, chosen among its local maxima by
        ``f**tilt`` times their power (NaN for a window with a non-finite sample or no power),
        :func:`spectral_peak_rates`.

    See Also
    --------
    spectral_peak_rates, window_starts, rate_quality

    References
    ----------
    .. [1] P. H. Charlton, T. Bonnici, L. Tarassenko, D. A. Clifton, R. Beale and P. J. Watkinson,
       "An assessment of algorithms to estimate respiratory rate from the electrocardiogram and
       photoplethysmogram," Physiol. Meas. 37(4), 610-626, 2016. Rates of 32 s windows of the
       respiratory signal, scored per window.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(480) / 4.0  # two minutes on the 4 Hz grid
    >>> x = np.sin(2 * np.pi * 0.25 * t)  # 15 breaths/min
    >>> from edr.rates import rate_series
    >>> centres, bpm = rate_series(x, fs=4.0)
    >>> centres
    array([16., 32., 48., 64., 80., 96.])
    >>> bpm
    array([15., 15., 15., 15., 15., 15.])
    """
    fs = positive_rate(fs)
    x = as_series(x, "x")
    starts = window_starts(x.size, fs)
    return _window_centres(starts, fs, t0), spectral_peak_rates(x, starts, fs, tilt=tilt)


def rate_quality(edr, panel: Mapping[str, np.ndarray], weights: Mapping[str, float], *,
                 fs: float = GRID_FS, t0: float = 0.0, beat_times=None):
    """Rate of ``edr`` and its quality per 32 s window (16 s step), from the panel's agreement.

    Parameters
    ----------
    edr : ndarray, shape (n,)
        The EDR on a uniform grid (NaN where masked).
    panel : mapping of str to ndarray, each shape (n,)
        Series on the same grid that may carry the breathing.
    weights : mapping of str to float
        Weight of each panel series (e.g. :func:`edr.fusion.panel_weights`).
    fs, t0 : float
        Grid rate (Hz) and time (s) of ``edr[0]``.
    beat_times : array_like, optional
        Times (s) of the beats the EDR and the panel are sampled at: each window's rates are
        searched up to :func:`edr.signal.carried_bpm`, and a rate :func:`near_carried` is
        judged by the panel without :data:`edr.fusion.HEART_SERIES`. Default: no limit.

    Returns
    -------
    t : ndarray
        Window centres (s), as :func:`rate_series`.
    rate_bpm : ndarray
        The EDR's spectral-peak rate (NaN for a window with a masked sample, or no peak below
        the limit).
    quality : ndarray
        Weighted share (0-1) of the panel whose rate is within :data:`AGREEMENT_BPM`
        of ``rate_bpm``; 0 where the EDR has no rate.

    See Also
    --------
    panel_agreement : the quality from the panel's rates.
    judged_rates : the same for a stitched EDR.
    edr.fusion.panel_weights : the weights.

    References
    ----------
    .. [1] W. Karlen, S. Raman, J. M. Ansermino and G. A. Dumont, "Multiparameter respiratory rate
       estimation from the photoplethysmogram," IEEE Trans. Biomed. Eng. 60(7), 1946-1953, 2013. The
       "smart fusion": a rate is kept where the estimates of several respiratory modulations agree.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(480) / 4.0  # two minutes on the 4 Hz grid
    >>> x = np.sin(2 * np.pi * 0.25 * t)  # 15 breaths/min
    >>> from edr.rates import rate_quality
    >>> noise = np.random.default_rng(0).standard_normal(t.size)
    >>> _, bpm, quality = rate_quality(x, {"a": x, "b": noise}, {"a": 0.5, "b": 0.5}, fs=4.0)
    >>> bpm[0], quality[0]  # half the panel (by weight) agrees
    (np.float64(15.0), np.float64(0.5))
    """
    edr = as_series(edr, "edr")
    fs = positive_rate(fs)
    starts = window_starts(edr.size, fs)
    t = t0 + (starts + RATE_WINDOW_S * fs / 2) / fs
    limit = None if beat_times is None else carried_bpm(beat_times, t0 + starts / fs)
    rates = _panel_rates(panel, starts, fs, RATE_TILT, limit)
    rate, quality = _judged(edr, starts, rates, weights, fs, RATE_TILT, limit)
    return t, rate, quality


def near_carried(rate, limit) -> np.ndarray:
    """Where ``rate`` lies within :data:`edr.signal.NYQUIST_MARGIN_BPM` of the ``limit`` of
    :func:`edr.signal.carried_bpm`: close enough to half the beat rate that a beat-to-beat
    alternation of a heart rate that varies within the window could still put a peak there
    (False where either is NaN).

    See Also
    --------
    edr.signal.carried_bpm : the limit.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.rates import near_carried
    >>> near_carried([20.0, 34.0, np.nan], [36.0, 36.0, 36.0])
    array([False,  True, False])
    """
    with np.errstate(invalid="ignore"):
        return np.asarray(rate, dtype=float) > np.asarray(limit, dtype=float) - NYQUIST_MARGIN_BPM


def _panel_rates(panel, starts, fs, tilt, limit) -> dict:
    """The rates of every series of ``panel`` at its windows ``starts``, up to ``limit``."""
    return {name: spectral_peak_rates(np.asarray(v, dtype=float), starts, fs, tilt=tilt,
                                      max_bpm=limit) for name, v in panel.items()}


def _judged(edr, starts, rates, weights, fs, tilt, limit):
    """``(rate, quality)`` of the rate windows of ``edr`` at ``starts`` judged by the panel's
    ``rates`` at the same windows, the rates searched up to ``limit`` (None: no limit); a rate
    :func:`near_carried` counts the agreement of the panel's morphology series only (the share
    of the whole panel's weight that agrees without the heart's series)."""
    rate = spectral_peak_rates(edr, starts, fs, tilt=tilt, max_bpm=limit)
    quality = panel_agreement(rate, rates, weights)
    if limit is not None:
        near = near_carried(rate, limit)
        if near.any():
            morphology = {k: r for k, r in rates.items()
                          if k.rsplit("/", 1)[-1] not in HEART_SERIES}
            quality[near] = panel_agreement(rate, morphology, weights)[near]
    return rate, quality


def _window_centres(starts: np.ndarray, fs: float, t0: float) -> np.ndarray:
    """Times (s) of the centres of the rate windows starting at the grid indices ``starts``."""
    return t0 + (starts + int(round(RATE_WINDOW_S * fs)) / 2) / fs


def _judging_spans(starts: np.ndarray, time: np.ndarray, spans, win: int) -> np.ndarray:
    """Per rate window (first grid index ``starts``, increasing; centre ``time``): the index of
    the span that judges it, -1 for none: of the spans that contain the window whole
    (``first <= start`` and ``start + win - 1 <= last``), the first whose core holds its centre,
    else the first. Each span visits only the windows between its own limits."""
    first_in = np.full(starts.size, -1)
    in_core = np.full(starts.size, -1)
    for j, sp in enumerate(spans):
        run = slice(np.searchsorted(starts, sp.first, "left"),
                    np.searchsorted(starts, sp.last - win + 1, "right"))
        f, c, t = first_in[run], in_core[run], time[run]  # views: written in place
        f[f < 0] = j
        c[(c < 0) & (sp.core[0] <= t) & (t < sp.core[1])] = j
    return np.where(in_core >= 0, in_core, first_in)


def settled_span(span: RateSpan, n: int, fs_out: float, t0: float = 0.0, *,
                 tilt: float = RATE_TILT) -> RateSpan:
    """``span`` holding, instead of its panel, the panel's rates (tilt ``tilt``) at every rate
    window of the ``n``-point grid (``fs_out`` Hz, time ``t0`` at index 0) that it contains
    whole: what :func:`judged_rates` computes from the panel, a few numbers per rate window.

    See Also
    --------
    judged_rates : the rates it judges (the same values from a settled span).

    Examples
    --------
    >>> import numpy as np
    >>> from edr.rates import RateSpan, settled_span
    >>> x = np.sin(2 * np.pi * 0.25 * np.arange(480) / 4.0)
    >>> span = settled_span(RateSpan(0, 479, (0.0, 120.0), {"a": x}, {"a": 1.0}), 480, 4.0)
    >>> span.panel, span.rated, span.rates["a"]
    ({}, array([  0,  64, 128, 192, 256, 320]), array([15., 15., 15., 15., 15., 15.]))
    """
    rated = rated_starts(n, fs_out, span.first, span.last)
    limit = None if span.beat_times is None else carried_bpm(span.beat_times, t0 + rated / fs_out)
    rates = _panel_rates(span.panel, rated - span.first, fs_out, tilt, limit)
    return replace(span, panel={}, rated=rated, rates=rates, tilt=float(tilt))


def panel_agreement(rate, panel_rates: Mapping[str, np.ndarray],
                    weights: Mapping[str, float]) -> np.ndarray:
    """Quality of :func:`rate_quality` from the rates: the weighted share (0-1) of the panel
    whose rate (``panel_rates[name]``, same windows as ``rate``) is within
    :data:`AGREEMENT_BPM` of ``rate``; 0 where ``rate`` is NaN or the weights sum to 0.

    See Also
    --------
    rate_quality

    References
    ----------
    .. [1] W. Karlen, S. Raman, J. M. Ansermino and G. A. Dumont, "Multiparameter respiratory rate
       estimation from the photoplethysmogram," IEEE Trans. Biomed. Eng. 60(7), 1946-1953, 2013. The
       agreement of several rate estimates as their quality.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.rates import panel_agreement
    >>> panel = {"a": np.array([15.5, 20.0]), "b": np.array([14.0, np.nan])}
    >>> panel_agreement([15.0, 15.0], panel, {"a": 1.0, "b": 1.0})
    array([1., 0.])
    """
    rate = np.asarray(rate, dtype=float)
    total = float(sum(weights.values()))
    quality = np.zeros(rate.size)
    if total <= 0 or rate.size == 0:
        return quality
    for name, r in panel_rates.items():
        agree = np.abs(r - rate) <= AGREEMENT_BPM  # NaN compares False
        quality += weights.get(name, 0.0) * agree
    quality /= total
    quality[~np.isfinite(rate)] = 0.0
    return quality


@dataclass(frozen=True)
class JudgedRates:
    """Rates per 32 s window: centres ``time`` (s), ``rate_bpm`` (NaN where withheld or
    masked), the unjudged spectral-peak ``raw_bpm`` and the ``quality`` (0-1).

    See Also
    --------
    judged_rates : what returns it.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.rates import JudgedRates
    >>> r = JudgedRates(np.array([16.0, 32.0]), np.array([15.0, np.nan]), np.array([15.0, 9.0]),
    ...                 np.array([0.9, 0.2]))
    >>> r.rate_bpm.tolist(), r.raw_bpm.tolist()
    ([15.0, nan], [15.0, 9.0])
    """

    time: np.ndarray
    rate_bpm: np.ndarray
    raw_bpm: np.ndarray
    quality: np.ndarray

    def window_quality(self, window: Window) -> float:
        """Median quality of the rate windows centred in ``window``'s core (0 when none is)."""
        q = self.quality[self._in_core(window)]
        return float(np.median(q)) if q.size else 0.0

    def withheld(self, windows) -> JudgedRates:
        """The same rates with those of the rate windows centred in ``windows``' cores withheld."""
        rate = self.rate_bpm.copy()
        for window in windows:
            rate[self._in_core(window)] = np.nan
        return JudgedRates(self.time, rate, self.raw_bpm, self.quality)

    def judge_windows(self, analyses) -> tuple[JudgedRates, str]:
        """The rates with those of untrusted windows withheld, and the record's status.

        Each analysed window's ``info.quality`` (``analyses``: ``(window, info)`` pairs, ``info``
        an :class:`edr.result.WindowInfo`) gets its ``quality_index`` (:meth:`window_quality`)
        and ``dropped_share``, and a "low quality" status when more than
        :data:`MAX_DROPPED_SHARE` of its beats were dropped (its rates withheld) or its quality
        index is below :data:`QUALITY_THRESHOLD`. The status is "ok" when a window still is.

        Examples
        --------
        >>> import numpy as np
        >>> from types import SimpleNamespace
        >>> from edr.rates import JudgedRates
        >>> from edr.windows import Window
        >>> r = JudgedRates(np.array([16.0, 32.0]), np.array([15.0, 15.0]),
        ...                 np.array([15.0, 15.0]), np.array([0.9, 0.8]))
        >>> info = SimpleNamespace(n_beats=40, n_dropped=30, quality={"status": "ok"})
        >>> rates, status = r.judge_windows([(Window(0.0, 48.0), info)])
        >>> rates.rate_bpm, status[:20], info.quality["status"][:25]
        (array([nan, nan]), 'no usable breathing:', 'low quality: 43% of the b')
        """
        untrusted = []
        for window, info in analyses:
            qi = self.window_quality(window)
            share = info.n_dropped / max(info.n_beats + info.n_dropped, 1)
            info.quality.update(quality_index=qi, dropped_share=share)
            if share > MAX_DROPPED_SHARE:
                untrusted.append(window)
                info.quality["status"] = (
                    f"low quality: {share:.0%} of the beats were dropped as ectopic, artefact or "
                    f"clipped (> {MAX_DROPPED_SHARE:.0%})")
            elif not self.time.size:
                info.quality["status"] = _TOO_SHORT
            elif qi < QUALITY_THRESHOLD:
                info.quality["status"] = (f"low quality: the ECG shows no consistent breathing "
                                          f"(quality {qi:.2f} < {QUALITY_THRESHOLD:g})")
        rates = self.withheld(untrusted) if untrusted else self
        if any(info.quality["status"] == "ok" for _, info in analyses):
            return rates, "ok"
        if not self.time.size:
            return rates, (f"{_TOO_SHORT}; give at least {RATE_WINDOW_S:g} s of ECG (a minute or "
                           "more)")
        given = int(np.isfinite(rates.rate_bpm).sum())
        return rates, (
            "no usable breathing: no analysis window is trustworthy (median quality below "
            f"{QUALITY_THRESHOLD:g}, or more than {MAX_DROPPED_SHARE:.0%} of its beats dropped); "
            f"rates given only for the {given} of {rates.rate_bpm.size} rate windows that reach "
            "the quality threshold")

    def _in_core(self, window: Window) -> np.ndarray:
        a, b = window.core
        return (self.time >= a) & (self.time < b)


def judged_rates(waveform, grid, spans, fs_out: float,
                 threshold: float = QUALITY_THRESHOLD, *, tilt: float = RATE_TILT) -> JudgedRates:
    """Rate and quality of every rate window of the stitched ``waveform``.

    Parameters
    ----------
    waveform : ndarray
        Stitched, band-passed EDR on ``grid`` (NaN where masked).
    grid : ndarray
        Record times (s) of the output grid.
    spans : list of RateSpan
        The analysed windows (:meth:`RateSpan.of`); a rate window is judged by the panel of an
        analysis window that contains it whole, preferably the one whose core
        holds its centre (its rates searched below the limit of the span's beats, as
        :func:`rate_quality` with ``beat_times``). A rate window no analysis window contains gets
        quality 0 and the unlimited spectral-peak rate.
    fs_out : float
        Grid rate (Hz).
    threshold : float, default :data:`QUALITY_THRESHOLD`
        Quality below which the rate is withheld.
    tilt : float, default :data:`edr.signal.RATE_TILT`
        Exponent of the rate periodograms' frequency weighting (:func:`spectral_peak_rates`).

    Returns
    -------
    JudgedRates

    See Also
    --------
    rate_quality : the same judgement for one series and its panel.
    RateSpan : an analysed window's evidence.

    References
    ----------
    .. [1] W. Karlen, S. Raman, J. M. Ansermino and G. A. Dumont, "Multiparameter respiratory rate
       estimation from the photoplethysmogram," IEEE Trans. Biomed. Eng. 60(7), 1946-1953, 2013.
       Rates kept where several estimates agree.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(480) / 4.0  # two minutes on the 4 Hz grid
    >>> x = np.sin(2 * np.pi * 0.25 * t)  # 15 breaths/min
    >>> from edr.rates import RateSpan, judged_rates
    >>> noise = np.random.default_rng(0).standard_normal(t.size)
    >>> span = RateSpan(0, t.size - 1, (0.0, 120.0), {"a": x, "b": noise}, {"a": 0.8, "b": 0.2})
    >>> rates = judged_rates(x, t, [span], 4.0)
    >>> rates.rate_bpm, rates.quality[0]
    (array([15., 15., 15., 15., 15., 15.]), np.float64(0.8))
    """
    waveform = np.asarray(waveform, dtype=float)
    t0 = float(grid[0]) if np.size(grid) else 0.0
    fs_out = positive_rate(fs_out)
    starts = window_starts(waveform.size, fs_out)
    time = _window_centres(starts, fs_out, t0)
    raw, quality = np.full(starts.size, np.nan), np.zeros(starts.size)
    judge = _judging_spans(starts, time, spans, int(round(RATE_WINDOW_S * fs_out)))
    order = np.argsort(judge, kind="stable")  # each span's rate windows, in time order
    bounds = np.searchsorted(judge[order], np.arange(len(spans) + 1))
    for j, sp in enumerate(spans):
        idx = order[bounds[j]:bounds[j + 1]]
        if idx.size:  # the panel's rates of all these windows at once (= rate_quality per window)
            limit = (None if sp.beat_times is None
                     else carried_bpm(sp.beat_times, t0 + starts[idx] / fs_out))
            if sp.rates is None:
                pr = _panel_rates(sp.panel, starts[idx] - sp.first, fs_out, tilt, limit)
            else:  # settled (:func:`settled_span`): every window it contains whole is rated
                if sp.tilt != tilt:
                    raise ValueError(f"span settled with tilt {sp.tilt}, judged with {tilt}")
                pr = {k: r[np.searchsorted(sp.rated, starts[idx])] for k, r in sp.rates.items()}
            raw[idx], quality[idx] = _judged(waveform, starts[idx], pr, sp.weights, fs_out, tilt,
                                             limit)
    alone = np.flatnonzero(judge < 0)  # no span judges them: the unlimited spectral peak
    raw[alone] = spectral_peak_rates(waveform, starts[alone], fs_out, tilt=tilt)
    rate = np.where(quality >= threshold, raw, np.nan)
    return JudgedRates(time, rate, raw, quality)
