"""Scoring an EDR against a reference respiration: correlation, MSC, respiratory-rate error.

The protocol (``docs/design.md#5-evaluation-protocol-and-report``): both series
on the uniform :data:`edr.signal.GRID_FS` grid and through the
:func:`edr.signal.bandpass` (the reference: :func:`band_passed_reference`); then

* **correlation** — ``|Pearson r|`` at zero lag;
* **MSC** — mean magnitude-squared coherence (Welch, :data:`edr.signal.WELCH_SEGMENT_S`
  Hann segments, 50 % overlap) over ``f_ref ± MSC_HALF_WIDTH_HZ``, ``f_ref``
  the Welch peak of the reference in :data:`edr.signal.BAND_HZ`;
* **respiratory-rate error** — per-record median absolute difference between
  the EDR rate (the extraction's own, :func:`edr_rates`) and the reference rate, from
  the breath annotations when they exist (counted by
  :func:`edr.breath_rates.breath_rate_series`, the rule of the extraction's counted rates),
  otherwise from the reference waveform by the spectral-peak rule.

The evaluation (:mod:`edr.evaluate`) and the record figure (:mod:`edr.record_figure`) both score
with this module. The signal steps themselves (:func:`~edr.signal.to_uniform_grid`,
:func:`~edr.signal.bandpass`, :func:`~edr.signal.butter_sos` and the grid, band and window
constants) live in :mod:`edr.signal`; the rate windows and their rates in :mod:`edr.rates`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from edr import zero_phase
from edr.breath_rates import breath_rate_series
from edr.dsp.spline import cubic_spline
from edr.errors import RecordError, SignalError
from edr.rates import rate_series, window_starts
from edr.signal import (
    FILTER_ORDER,
    GRID_FS,
    as_series,
    bandpass,
    butter_sos,
    positive_rate,
)
from edr.similarity import MSC_HALF_WIDTH_HZ, correlation, msc

__all__ = [
    "MSC_HALF_WIDTH_HZ",
    "REFERENCE_LOWPASS",
    "Scores",
    "band_passed_reference",
    "correlation",
    "edr_rates",
    "msc",
    "rate_error",
    "reference_on_grid",
    "score",
    "score_reference",
    "window_rate_error",
    "window_rates",
]

REFERENCE_LOWPASS = 0.4
"""Cut-off of the reference's anti-alias low-pass, as a fraction of the grid rate."""


@dataclass(frozen=True)
class Scores:
    """Protocol figures for one record.

    Attributes
    ----------
    msc : float
        Mean magnitude-squared coherence over ``f_ref ± MSC_HALF_WIDTH_HZ``; NaN when the
        reference (or the EDR) is flat.
    corr : float
        ``|Pearson r|`` at zero lag; NaN when the reference (or the EDR) is flat.
    rate_error_bpm : float
        Median absolute respiratory-rate error (breaths/min); NaN when no
        window has both rates.
    f_ref : float
        Welch peak frequency of the reference (Hz); NaN when the reference is flat.

    See Also
    --------
    score

    Examples
    --------
    >>> from edr.pipeline import extract_edr
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> res = extract_edr(rec)
    >>> from edr.scoring import score
    >>> s = score(res, rec)
    >>> s.f_ref, bool(s.msc > 0.8 and s.corr > 0.9 and s.rate_error_bpm < 0.5)
    (0.25, True)
    """

    msc: float
    corr: float
    rate_error_bpm: float
    f_ref: float


def reference_on_grid(resp, resp_fs: float, t_grid):
    """Put a uniformly sampled reference respiration onto the grid ``t_grid``.

    The reference (time ``k / resp_fs``) is low-passed at :data:`REFERENCE_LOWPASS` x the grid
    rate (zero-phase 4th-order Butterworth, only when ``resp_fs`` is higher
    than the grid rate), NaN samples are bridged by the spline, and a cubic
    spline is evaluated at ``t_grid``. The result is *not* band-passed.

    Parameters
    ----------
    resp : array_like, shape (n,)
        Reference respiration.
    resp_fs : float
        Its sampling rate in Hz.
    t_grid : array_like
        Uniform grid times in s (same time origin as the reference).

    See Also
    --------
    band_passed_reference

    Examples
    --------
    >>> from edr.pipeline import extract_edr
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> res = extract_edr(rec)
    >>> from edr.scoring import reference_on_grid
    >>> reference_on_grid(rec.resp, rec.resp_fs, res.time).shape
    (240,)
    """
    resp_fs = positive_rate(resp_fs, "resp_fs")
    resp = as_series(resp, "resp")
    t_grid = as_series(t_grid, "t_grid")
    if t_grid.size < 2:
        raise ValueError(f"t_grid needs at least 2 points, got {t_grid.size}")
    grid_fs = 1.0 / float(np.median(np.diff(t_grid)))
    t = np.arange(resp.size) / resp_fs
    ok = np.isfinite(resp)
    if ok.sum() < 4:
        raise SignalError(f"resp has {int(ok.sum())} finite samples; at least 4 are needed")
    if resp_fs > grid_fs:
        filled = np.interp(t, t[ok], resp[ok])
        sos = butter_sos(FILTER_ORDER, REFERENCE_LOWPASS * grid_fs, "lowpass", resp_fs)
        filled = zero_phase.sosfiltfilt(sos, filled - filled.mean()) + filled.mean()
        resp = np.where(ok, filled, np.nan)
    return cubic_spline(t[ok], resp[ok], np.clip(t_grid, t[ok][0], t[ok][-1]))


def band_passed_reference(result, recording) -> np.ndarray:
    """The recording's reference respiration on the result's grid, band-passed as the protocol
    scores it.

    Parameters
    ----------
    result : EDRResult-like
        Needs ``time`` (s, the uniform grid) and ``fs`` (its rate, Hz).
    recording : Recording-like
        Needs ``resp`` and ``resp_fs`` (same time origin as ``result.time``).

    Returns
    -------
    ndarray
        :func:`edr.signal.bandpass` of :func:`reference_on_grid` at ``result.time``.

    See Also
    --------
    score : scores the result against this reference.

    Examples
    --------
    >>> from edr.pipeline import extract_edr
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> res = extract_edr(rec)
    >>> from edr.scoring import band_passed_reference
    >>> band_passed_reference(res, rec).shape == res.waveform.shape
    True
    """
    t_grid = as_series(result.time, "result.time")
    fs = positive_rate(result.fs, "result.fs")
    return bandpass(reference_on_grid(recording.resp, recording.resp_fs, t_grid), fs=fs)


def edr_rates(result):
    """The rate windows' centres (s) and the EDR's rates (bpm) of a result.

    ``result.rate_bpm`` when the result carries one rate per protocol window
    (the pipeline's rates, NaN where it abstained), else the spectral-peak
    rates of ``result.waveform`` (:func:`edr.rates.rate_series`).

    See Also
    --------
    window_rates

    Examples
    --------
    >>> from edr.pipeline import extract_edr
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> res = extract_edr(rec)
    >>> from edr.scoring import edr_rates
    >>> centres, bpm = edr_rates(res)
    >>> centres
    array([16., 32.])
    """
    edr = as_series(result.waveform, "result.waveform")
    fs = positive_rate(result.fs, "result.fs")
    t0 = float(as_series(result.time, "result.time")[0]) if np.size(result.time) else 0.0
    centres, bpm = rate_series(edr, fs=fs, t0=t0)
    own = getattr(result, "rate_bpm", None)
    if own is not None and np.shape(own) == bpm.shape:
        bpm = np.asarray(own, dtype=float)
    return centres, bpm


def window_rates(result, recording, ref=None):
    """Centres (s), EDR rates and reference rates (bpm) of the protocol's 32 s rate windows.

    EDR rates from :func:`edr_rates` (the extraction's own, NaN where it abstained); reference
    rates from the recording's breath annotations (:func:`edr.breath_rates.breath_rate_series`)
    when it has any, else from its band-passed reference waveform on the result's grid (``ref``,
    computed when not given) by the EDR's spectral-peak rule. These are the windows of
    :func:`rate_error` and of the window-level agreement.

    See Also
    --------
    edr_rates, rate_error

    References
    ----------
    .. [1] P. H. Charlton, T. Bonnici, L. Tarassenko, D. A. Clifton, R. Beale and P. J. Watkinson,
       "An assessment of algorithms to estimate respiratory rate from the electrocardiogram and
       photoplethysmogram," Physiol. Meas. 37(4), 610-626, 2016. Rates compared window by window.

    Examples
    --------
    >>> from edr.pipeline import extract_edr
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> res = extract_edr(rec)
    >>> from edr.scoring import window_rates
    >>> centres, edr_bpm, ref_bpm = window_rates(res, rec)
    >>> import numpy as np
    >>> bool(np.all(np.abs(edr_bpm - ref_bpm) < 0.5))
    True
    """
    centres, edr_bpm = edr_rates(result)
    t_grid = as_series(result.time, "result.time")
    fs = positive_rate(result.fs, "result.fs")
    t0 = float(t_grid[0]) if t_grid.size else 0.0
    breaths = getattr(recording, "breath_times", None)
    if breaths is not None and np.size(breaths):
        ref_bpm = breath_rate_series(breaths, t0 + window_starts(t_grid.size, fs) / fs)
    else:
        if ref is None:
            ref = band_passed_reference(result, recording)
        _, ref_bpm = rate_series(ref, fs=fs, t0=t0)
    return centres, edr_bpm, ref_bpm


def rate_error(edr, ref=None, *, fs: float = GRID_FS, breath_times=None, t_grid=None,
               edr_bpm=None) -> float:
    """Median absolute respiratory-rate error (breaths/min).

    Parameters
    ----------
    edr : array_like, shape (n,)
        Band-passed EDR on the uniform grid.
    ref : array_like or None
        Band-passed reference on the same grid; used only when
        ``breath_times`` is None.
    fs : float, default :data:`~edr.signal.GRID_FS`
        Grid rate in Hz.
    breath_times : array_like, optional
        Manual breath annotations in s (same time origin as ``t_grid``).
    t_grid : array_like, optional
        Grid times in s (default ``arange(n) / fs``); needed to place the
        windows against ``breath_times``.
    edr_bpm : array_like, optional
        The EDR's rate per window when the extraction gave its own (NaN where
        it abstained); default: the spectral peak of ``edr`` per window.

    Returns
    -------
    float
        Median over windows with both rates finite of ``|rate_edr - rate_ref|``;
        NaN when no window qualifies.

    See Also
    --------
    window_rates, edr.breath_rates.breath_rate_series

    References
    ----------
    .. [1] P. H. Charlton, T. Bonnici, L. Tarassenko, D. A. Clifton, R. Beale and P. J. Watkinson,
       "An assessment of algorithms to estimate respiratory rate from the electrocardiogram and
       photoplethysmogram," Physiol. Meas. 37(4), 610-626, 2016. The rate error of 32 s windows.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(480) / 4.0
    >>> b = np.sin(2 * np.pi * 0.25 * t)
    >>> from edr.scoring import rate_error
    >>> rate_error(b, breath_times=np.arange(0.5, 120.0, 4.0), t_grid=t)
    0.0
    """
    fs = positive_rate(fs)
    edr = as_series(edr, "edr")
    t0 = 0.0 if t_grid is None else float(as_series(t_grid, "t_grid")[0])
    _, r_edr = rate_series(edr, fs=fs, t0=t0)
    if edr_bpm is not None:
        if np.shape(edr_bpm) != r_edr.shape:
            raise ValueError(f"edr_bpm must hold one rate per window ({r_edr.size}), got "
                             f"{np.size(edr_bpm)}")
        r_edr = np.asarray(edr_bpm, dtype=float)
    if breath_times is not None:
        starts = t0 + window_starts(edr.size, fs) / fs
        r_ref = breath_rate_series(breath_times, starts)
    elif ref is not None:
        ref = as_series(ref, "ref")
        if ref.shape != edr.shape:
            raise ValueError(f"edr and ref must have the same length, got {edr.size} and "
                             f"{ref.size}")
        _, r_ref = rate_series(ref, fs=fs, t0=t0)
    else:
        raise ValueError("rate_error needs ref or breath_times, got neither")
    err = np.abs(r_edr - r_ref)
    err = err[np.isfinite(err)]
    return float(np.median(err)) if err.size else float("nan")


def score(result, recording) -> Scores:
    """Score an EDR result against a recording's reference, by the protocol.

    Parameters
    ----------
    result : EDRResult-like
        Needs ``time`` (s), ``waveform`` (already band-passed, on a uniform
        grid; NaN where masked) and ``fs`` (grid rate, Hz); its ``rate_bpm``,
        when present (:func:`edr_rates`), gives the EDR rates, so windows where
        the extraction abstained do not count in the rate error. Masked samples
        count as 0 (no signal) for the MSC and the correlation.
    recording : Recording-like
        Needs ``resp`` and ``resp_fs`` (reference respiration, same time
        origin as ``result.time``) and ``breath_times`` (s, or None). When
        breath annotations exist they give the reference rate; otherwise the
        reference waveform does.

    Returns
    -------
    Scores

    See Also
    --------
    Scores : what it returns.
    edr.evaluate.agreement.agreement : the agreement of rates over many records.

    References
    ----------
    .. [1] D. Widjaja, C. Varon, A. C. Dorado, J. A. K. Suykens and S. Van Huffel, "Application of
       kernel principal component analysis for single-lead ECG-derived respiration," IEEE Trans.
       Biomed. Eng. 59(4), 1169-1176, 2012. MSC and correlation.
    .. [2] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. MSC and
       correlation for the EDR, Sec. VI-C.
    .. [3] P. H. Charlton, T. Bonnici, L. Tarassenko, D. A. Clifton, R. Beale and P. J. Watkinson,
       "An assessment of algorithms to estimate respiratory rate from the electrocardiogram and
       photoplethysmogram," Physiol. Meas. 37(4), 610-626, 2016. The rate error.

    Examples
    --------
    >>> from edr.pipeline import extract_edr
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> res = extract_edr(rec)
    >>> from edr.scoring import score
    >>> score(res, rec).f_ref
    0.25
    """
    if getattr(recording, "resp", None) is None or getattr(recording, "resp_fs", None) is None:
        name = getattr(recording, "name", "?")
        raise RecordError(f"recording {name!r} has no reference respiration (resp is None); cannot "
                          "score")
    ref = band_passed_reference(result, recording)
    edr = as_series(result.waveform, "result.waveform")
    fs = positive_rate(result.fs, "result.fs")
    ok = np.isfinite(edr)
    if not ok.any():
        raise SignalError("result.waveform has no finite sample")
    filled = np.where(ok, edr, 0.0)
    m, f_ref = msc(filled, ref, fs=fs)
    r = correlation(filled, ref)
    return Scores(msc=m, corr=r, rate_error_bpm=window_rate_error(result, recording, ref),
                  f_ref=f_ref)


def score_reference(result, recording) -> Scores | None:
    """The scores the recording's reference allows: :func:`score` against a respiration
    waveform; against breath times alone (one's own, ``--breath-times``), the rate error only
    (MSC, ``corr`` and ``f_ref`` NaN); None without either.

    The one rule of ``edr extract`` and ``edr evaluate`` for what a reference is scored on.

    Raises
    ------
    SignalError, ValueError
        As :func:`score`.

    See Also
    --------
    score, window_rate_error

    Examples
    --------
    >>> from dataclasses import replace
    >>> from edr.pipeline import extract_edr
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> res = extract_edr(rec)
    >>> from edr.scoring import score_reference
    >>> s = score_reference(res, replace(rec, resp=None, resp_fs=None))
    >>> bool(s.rate_error_bpm < 0.5), s.msc
    (True, nan)
    >>> score_reference(res, replace(rec, resp=None, resp_fs=None, breath_times=None)) is None
    True
    """
    if getattr(recording, "resp", None) is not None:
        return score(result, recording)
    if getattr(recording, "breath_times", None) is None:
        return None
    nan = float("nan")
    return Scores(msc=nan, corr=nan, rate_error_bpm=window_rate_error(result, recording),
                  f_ref=nan)


def window_rate_error(result, recording, ref=None) -> float:
    """Median absolute rate error (breaths/min) of the rate windows of :func:`window_rates`:
    against the recording's breath times when it has them (no respiration waveform needed),
    else against its reference waveform.

    Returns
    -------
    float
        NaN when no window has both rates.

    See Also
    --------
    score : the rate error beside the MSC and the correlation.

    Examples
    --------
    >>> from dataclasses import replace
    >>> import numpy as np
    >>> from edr.pipeline import extract_edr
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> res = extract_edr(rec)
    >>> from edr.scoring import window_rate_error
    >>> bool(window_rate_error(res, replace(rec, resp=None, resp_fs=None)) < 0.5)
    True
    """
    _, edr_bpm, ref_bpm = window_rates(result, recording, ref)
    err = np.abs(edr_bpm - ref_bpm)
    err = err[np.isfinite(err)]
    return float(np.median(err)) if err.size else float("nan")
