"""Respiratory rates counted from breaths: the reference's and the EDR's, by one rule.

A rate window's rate is, by definition, how many breaths a minute the person takes in it.
:func:`breath_rate_series` counts it from breath times — 60 over the median interval between
the breaths inside the window — and is the rule of both sides of the comparison: the
reference rate of a window from its annotated breaths (:func:`edr.scoring.window_rates`), and
the rate the extraction gives (:func:`counted_rates`, :func:`with_counted_rates`) from the
breaths it finds in its own EDR (:func:`edr.breaths.detect_breaths`).

The extraction's spectral-peak rate (:mod:`edr.rates`: the peak of the window's periodogram)
stays what decides *whether* a window has a rate (the panel's agreement on it, the quality),
and stays the rate wherever the breaths counted agree with it or are too few. Where the
breathing changes within a window (a paced protocol, a sigh, a few deep breaths among fast
shallow ones) the periodogram's largest peak follows the breaths with the most power, the
count follows the breaths: the count then chooses the peak, within the limit of what the beats
carry (:func:`edr.signal.carried_bpm`). Measurements: ``docs/studies/counted_rates.md``.
"""

from __future__ import annotations

import numpy as np

from edr.io.arrays import as_series
from edr.rate_spectra import spectral_peak_rates
from edr.rates import AGREEMENT_BPM
from edr.signal import GRID_FS, RATE_TILT, RATE_WINDOW_S, carried_bpm

__all__ = ["MIN_BREATHS", "breath_rate_series", "counted_rates", "with_counted_rates"]

MIN_BREATHS = 3
"""Fewest breaths inside a window (two intervals) for a counted rate: the rule of the
reference's window rates (Charlton et al. 2016), so the two sides count alike."""


def breath_rate_series(breath_times, window_starts_s, *, window_s: float = RATE_WINDOW_S,
                       min_breaths: int = MIN_BREATHS):
    """Rate per window counted from breath times.

    For each window ``[s, s + window_s)`` the rate is ``60 / median(diff(b))``
    with ``b`` the breath times inside it; windows with fewer than
    ``min_breaths`` breaths get NaN. The median makes one missed or doubled
    breath cost little.

    Parameters
    ----------
    breath_times : array_like
        Breath times in s (annotated, or found in an EDR).
    window_starts_s : array_like
        Window start times in s.
    window_s : float, default :data:`~edr.signal.RATE_WINDOW_S`
        Window length in s.
    min_breaths : int, default :data:`MIN_BREATHS`
        Fewest breaths for a rate.

    Returns
    -------
    ndarray
        Breaths/min per window, NaN where too few breaths lie inside it.

    See Also
    --------
    counted_rates : the extraction's rates by this rule.
    edr.scoring.window_rates : the reference's rates by this rule.

    References
    ----------
    .. [1] P. H. Charlton, T. Bonnici, L. Tarassenko, D. A. Clifton, R. Beale and P. J. Watkinson,
       "An assessment of algorithms to estimate respiratory rate from the electrocardiogram and
       photoplethysmogram," Physiol. Meas. 37(4), 610-626, 2016. The rate of a window from
       its breaths.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.breath_rates import breath_rate_series
    >>> breath_rate_series(np.arange(0.0, 120.0, 4.0), [0.0, 16.0])  # a breath every 4 s
    array([15., 15.])
    """
    b = np.sort(as_series(breath_times, "breath_times"))
    b = b[np.isfinite(b)]
    starts = as_series(window_starts_s, "window_starts_s")
    out = np.full(starts.size, np.nan)
    lo = np.searchsorted(b, starts, side="left")
    n = np.searchsorted(b, starts + window_s, side="left") - lo - 1  # intervals inside
    intervals = np.diff(b)
    for m in np.unique(n[n >= max(min_breaths, 2) - 1]):  # the windows with m intervals at once
        at = np.flatnonzero(n == m)
        rows = np.lib.stride_tricks.sliding_window_view(intervals, m)[lo[at]]
        out[at] = 60.0 / np.median(rows, axis=1)
    return out


def counted_rates(edr, rate_bpm, rate_time, breath_times, beat_times, *,
                  fs: float = GRID_FS, t0: float = 0.0, tilt: float = RATE_TILT) -> np.ndarray:
    """The given window rates, chosen by the breaths counted in each window.

    In a window with a rate and at least :data:`MIN_BREATHS` breaths whose counted rate
    (:func:`breath_rate_series`) the beats carry (:func:`edr.signal.carried_bpm`) and which
    differs from the rate by more than :data:`edr.rates.AGREEMENT_BPM`, the rate becomes the
    spectral peak of ``edr`` that the count confirms: of the periodogram's local maxima within
    :data:`edr.rates.AGREEMENT_BPM` of the count (and below the beats' limit), the one
    :func:`edr.rate_spectra.spectral_peak_rates` would choose among them; where no local maximum
    lies that near, the counted rate itself. Elsewhere the rate stays as it is (a withheld rate
    stays withheld). Where the count agrees with the peak already chosen (regular breathing)
    the rate keeps the periodogram's precision; where the breathing changes within the window
    the breaths decide which of its peaks is the rate.

    Parameters
    ----------
    edr : array_like
        The EDR on its uniform grid (``fs`` Hz, time ``t0`` at its first sample).
    rate_bpm : array_like, shape (m,)
        The windows' spectral-peak rates, NaN where withheld.
    rate_time : array_like, shape (m,)
        The windows' centres (s); each window is :data:`~edr.signal.RATE_WINDOW_S` long, inside
        the grid.
    breath_times : array_like
        The breaths found in the EDR (s, same time origin).
    beat_times : array_like
        The beats the EDR is sampled at (s, increasing): the limit of the rates they carry.
    fs : float, default :data:`~edr.signal.GRID_FS`
    t0 : float, default 0.0
    tilt : float, default :data:`~edr.signal.RATE_TILT`
        The periodogram weighting of :func:`edr.rate_spectra.spectral_peak_rates` among the
        peaks.

    Returns
    -------
    ndarray, shape (m,)

    See Also
    --------
    with_counted_rates : the same on an extraction's result.

    References
    ----------
    .. [1] P. H. Charlton, D. A. Birrenkott, T. Bonnici, M. A. F. Pimentel, A. E. W. Johnson,
       J. Alastruey, L. Tarassenko, P. J. Watkinson, R. Beale and D. A. Clifton, "Breathing rate
       estimation from the electrocardiogram and photoplethysmogram: a review," IEEE Rev.
       Biomed. Eng. 11, 2-20, 2018. Rates from the frequency domain and from breaths counted
       in the time domain, and their fusion.

    Examples
    --------
    Deep breaths at 6 /min for 18 s, then shallow ones at 24 /min: the largest spectral peak
    is the slow one, the breaths are mostly the fast ones.

    >>> import numpy as np
    >>> from edr.breath_rates import counted_rates
    >>> from edr.rate_spectra import spectral_peak_rates
    >>> t = np.arange(128) / 4.0  # one 32 s window on the 4 Hz grid
    >>> x = np.where(t < 18, 3 * np.cos(2 * np.pi * 0.1 * t), np.cos(2 * np.pi * 0.4 * t))
    >>> breaths = np.r_[0.0, 10.0, np.arange(18.0, 32.0, 2.5)]
    >>> beats = np.arange(0.0, 32.0, 0.75)  # 80 beats/min: rates up to 36.25 carried
    >>> peak = spectral_peak_rates(x, [0], 4.0)
    >>> chosen = counted_rates(x, peak, [16.0], breaths, beats)
    >>> float(peak[0].round(1)), float(chosen[0].round(1))
    (5.6, 23.9)
    """
    rate = as_series(rate_bpm, "rate_bpm")
    starts = as_series(rate_time, "rate_time") - RATE_WINDOW_S / 2.0
    counted = breath_rate_series(breath_times, starts)
    carried = carried_bpm(as_series(beat_times, "beat_times"), starts)
    use = np.flatnonzero(np.isfinite(rate) & np.isfinite(counted) & (counted <= carried)
                         & (np.abs(counted - rate) > AGREEMENT_BPM))
    out = rate.copy()
    if use.size:
        first = np.round((starts[use] - t0) * fs).astype(int)
        peak = spectral_peak_rates(as_series(edr, "edr"), first, fs, tilt=tilt,
                                   min_bpm=counted[use] - AGREEMENT_BPM,
                                   max_bpm=np.minimum(counted[use] + AGREEMENT_BPM, carried[use]))
        out[use] = np.where(np.isfinite(peak), peak, counted[use])
    return out


def with_counted_rates(result):
    """``result`` with its given rates chosen by its breaths (:func:`counted_rates`).

    The breaths are the result's own (:attr:`edr.pipeline.EDRResult.breaths`, every one found:
    those flagged ``low_quality`` too, since the flag says whether the rate around a breath is
    given, not whether it is a breath); finding them asks only whether each window has a rate,
    never which, so they are the same before and after and stay the result's breaths.

    Parameters
    ----------
    result : EDRResult
        From the extraction, its rates the spectral peaks judged by the panel.

    Returns
    -------
    EDRResult
        The same object, its ``rate_bpm`` replaced.

    See Also
    --------
    counted_rates, edr.breaths.detect_breaths

    Examples
    --------
    >>> import numpy as np
    >>> from edr.breath_rates import with_counted_rates
    >>> from edr.pipeline import extract_edr
    >>> from edr.simulate import simulate_recording
    >>> res = extract_edr(simulate_recording(duration_s=120.0, fs=250.0, random_state=0))
    >>> bool(np.array_equal(with_counted_rates(res).rate_bpm, res.rate_bpm))  # chosen once
    True
    """
    t0 = float(result.time[0]) if np.size(result.time) else 0.0
    result.rate_bpm = counted_rates(result.waveform, result.rate_bpm, result.rate_time,
                                    result.breaths.time, result.beat_times, fs=float(result.fs),
                                    t0=t0)
    return result
