"""Which extrema of an EDR are ends of inspiration: read from the ECG alone.

The EDR's sign follows the R amplitude, and whether the R amplitude rises or falls with
inspiration depends on the lead and the patient, so neither the maxima nor the minima of the
EDR end inspiration in every record. Two pieces of evidence, neither of which needs a reference:

* **respiratory sinus arrhythmia** (:func:`coherent_rsa_bpm`): in spontaneous breathing the
  heart rate rises with inspiration, so the EDR extrema that coincide with the fastest heart
  rate end inspiration. Where the arrhythmia is weak (elderly, critically ill or ventilated
  patients, in whom positive-pressure breathing can even reverse it) its sign is no guide;
* **the breathing waveform's shape** (:func:`shape_sign`): inspiration ends briskly, expiration
  slowly and often with an end-expiratory rest, so the waveform lingers near its expiratory
  extreme and is skewed towards the inspiratory one.

:func:`inspiration_sign` takes the arrhythmia's sign where its breathing-coherent part is at
least :data:`RSA_MIN_BPM`, the shape's otherwise. Measurements: ``docs/studies/
breath_detection.md``.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import skew

from edr.errors import SignalError
from edr.signal import bandpass, to_uniform_grid

__all__ = ["RR_RANGE", "RSA_MIN_BPM", "coherent_rsa_bpm", "heart_rate_on_grid",
           "inspiration_sign", "shape_sign"]

RSA_MIN_BPM = 2.0
"""Breathing-coherent heart-rate swing (bpm, standard deviation) from which the arrhythmia's
sign is trusted."""

RR_RANGE = (0.6, 1.6)
"""RR intervals between consecutive given beats outside this range of the median RR span a
dropped beat (or are ectopic) and are not heart rate samples."""


def shape_sign(x) -> int:
    """+1 when the EDR ``x`` is skewed towards its maxima (sample skewness of its finite values
    at least 0), -1 otherwise: the side of the brisk turn that ends inspiration.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.polarity import shape_sign
    >>> t = np.arange(0, 120, 0.25)
    >>> volume = np.sin(np.pi * (t % 4) / 4) ** 4  # brisk breaths, long expiratory rest
    >>> shape_sign(volume), shape_sign(-volume)
    (1, -1)
    """
    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    if x.size < 3:
        return 1
    return -1 if skew(x) < 0 else 1


def heart_rate_on_grid(beat_times, time, fs: float) -> np.ndarray:
    """Heart rate (bpm) on the grid ``time`` (rate ``fs``) from the times of the beats used:
    ``60 / RR`` at the middle of each RR interval within :data:`RR_RANGE` of the median one,
    through the cubic spline of :func:`edr.signal.to_uniform_grid`, band-passed as the EDR
    (:func:`edr.signal.bandpass`); NaN when fewer than 4 intervals qualify.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.polarity import heart_rate_on_grid
    >>> t = np.arange(0, 60, 0.25)
    >>> beats = np.cumsum(np.full(70, 0.8 / 0.98))  # 72 bpm, one beat dropped below
    >>> hr = heart_rate_on_grid(np.delete(beats, 30), t, 4.0)
    >>> bool(np.nanmax(np.abs(hr)) < 1e-6)
    True
    """
    bt = np.asarray(beat_times, dtype=float)
    time = np.asarray(time, dtype=float)
    rr = np.diff(bt)
    med = np.median(rr) if rr.size else np.nan
    ok = (rr >= RR_RANGE[0] * med) & (rr <= RR_RANGE[1] * med)
    if ok.sum() < 4 or time.size < 2:
        return np.full(time.size, np.nan)
    mid = (bt[1:] + bt[:-1])[ok] / 2
    try:
        _, hr = to_uniform_grid(mid, 60.0 / rr[ok], fs=fs, t_start=time[0], t_end=time[-1])
    except SignalError:
        return np.full(time.size, np.nan)
    return bandpass(hr[:time.size], fs=fs)


def coherent_rsa_bpm(result) -> float:
    """The heart-rate swing (bpm) that follows the EDR of ``result``: the correlation of the EDR
    with the heart rate (:func:`heart_rate_on_grid` of ``result.beat_times``) times the heart
    rate's standard deviation, over the finite EDR. Positive when the heart beats fastest at
    the EDR's maxima; 0 without a heart rate.

    Examples
    --------
    >>> from edr.pipeline import extract_edr
    >>> from edr.polarity import coherent_rsa_bpm
    >>> from edr.simulate import simulate_recording
    >>> res = extract_edr(simulate_recording(120.0, rsa_bpm=8.0, random_state=0))
    >>> bool(abs(coherent_rsa_bpm(res)) > 2)
    True
    """
    x = np.asarray(result.waveform, dtype=float)
    ok = np.isfinite(x)
    hr = heart_rate_on_grid(result.beat_times, result.time, float(result.fs))
    ok &= np.isfinite(hr)
    if ok.sum() < 3 or np.std(x[ok]) == 0 or np.std(hr[ok]) == 0:
        return 0.0
    return float(np.corrcoef(x[ok], hr[ok])[0, 1] * np.std(hr[ok]))


def inspiration_sign(result, *, rsa_min_bpm: float = RSA_MIN_BPM) -> int:
    """+1 when the maxima of the EDR of ``result`` end inspiration, -1 when its minima do.

    Parameters
    ----------
    result : EDRResult
        ``waveform``, ``time``, ``fs`` and ``beat_times``.
    rsa_min_bpm : float, default :data:`RSA_MIN_BPM`
        The sign of :func:`coherent_rsa_bpm` decides when its size reaches this; the
        waveform's shape (:func:`shape_sign`) otherwise. ``inf``: the shape alone.

    Returns
    -------
    int
        +1 or -1.

    References
    ----------
    Hirsch JA, Bishop B. Respiratory sinus arrhythmia in humans: how breathing pattern modulates
    heart rate. Am J Physiol 241(4):H620-H629, 1981 (heart rate rises with inspiration).

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from edr.polarity import inspiration_sign
    >>> t = np.arange(0, 120, 0.25)
    >>> volume = np.sin(np.pi * (t % 4) / 4) ** 4
    >>> res = SimpleNamespace(waveform=-volume, time=t, fs=4.0, beat_times=np.arange(0, 120.0))
    >>> inspiration_sign(res)  # no arrhythmia: the shape decides
    -1
    """
    rsa = coherent_rsa_bpm(result)
    if abs(rsa) >= rsa_min_bpm:
        return 1 if rsa > 0 else -1
    return shape_sign(result.waveform)
