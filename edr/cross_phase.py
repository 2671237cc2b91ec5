"""A series rotated onto another frequency by frequency, by the phase of their cross-spectrum.

The heart rate follows the breath through the vagal reflex: a response whose phase against the
breathing changes with the breathing rate, while the morphology series (R amplitude, QRS area,
kernel components) follow the chest at once. Within one analysis window of a healthy volunteer
breathing at a rate that changes every minute, no single shift and sign aligns the two; a shift
that suits one rate leaves the other minutes' breaths partly cancelled when the two are summed.
:func:`phase_onto` takes out the phase the two series themselves show at every frequency (the
phase of their Welch cross-spectrum, an all-pass filter): estimated from the ECG-derived series
alone, with no delay assumed.
:func:`edr.fusion.fuse` adds the heart rate this way (:data:`edr.fusion.HEART_PHASE`;
:func:`rotated_weights` says which series and when). A stream applies the same rotation to
later stretches as a finite impulse response (:func:`phase_filter`, :func:`filtered`).
"""

from __future__ import annotations

import numpy as np

from edr.dsp.spectral import coherence, csd

__all__ = ["filtered", "phase_filter", "phase_onto", "rotated_weights"]


def phase_onto(y, ref, fs: float, segment_s: float) -> np.ndarray:
    """``y`` passed through the all-pass filter whose phase at every frequency is minus the
    phase of ``y`` against ``ref``: the Welch cross-spectrum of the two (Hann segments of
    ``segment_s`` seconds, half-overlapping), its unit phasor interpolated onto the frequencies
    of the whole series.

    Parameters
    ----------
    y, ref : array_like
        Series of one grid (equal length), band-passed.
    fs : float
        Their rate (Hz).
    segment_s : float
        Length (s) of the cross-spectrum's segments (the whole series when it is shorter).

    Returns
    -------
    ndarray
        ``y`` rotated; its power spectrum is ``y``'s.

    Raises
    ------
    ValueError
        When ``y`` and ``ref`` differ in length.

    See Also
    --------
    edr.fusion.fuse : adds the heart rate rotated onto the morphology series.
    edr.fusion.aligned_sum : the alignment by one shift and a sign.

    References
    ----------
    .. [1] P. D. Welch, "The use of fast Fourier transform for the estimation of power spectra: a
       method based on time averaging over short, modified periodograms," IEEE Trans. Audio
       Electroacoust. 15(2), 70-73, 1967. The averaged cross-spectrum whose phase is taken out.
    .. [2] J. A. Hirsch and B. Bishop, "Respiratory sinus arrhythmia in humans: how breathing
       pattern modulates heart rate," Am. J. Physiol. 241(4), H620-H629, 1981. The phase of the
       heart rate against the breath changes with the breathing rate.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.cross_phase import phase_onto
    >>> t = np.arange(1200) / 4.0  # five minutes on the 4 Hz grid
    >>> breath = np.sin(2 * np.pi * 0.15 * t) + np.sin(2 * np.pi * 0.35 * t)
    >>> lagged = np.sin(2 * np.pi * 0.15 * t - 0.3) - np.cos(2 * np.pi * 0.35 * t)
    >>> round(float(np.corrcoef(lagged, breath)[0, 1]), 2)
    0.48
    >>> round(float(np.corrcoef(phase_onto(lagged, breath, 4.0, 64.0), breath)[0, 1]), 2)
    1.0
    """
    y = np.asarray(y, dtype=float)
    f, unit = _unit_phasor(y, ref, fs, segment_s)
    fk = np.fft.rfftfreq(y.size, 1.0 / fs)
    rot = np.interp(fk, f, unit.real) + 1j * np.interp(fk, f, unit.imag)
    rot /= np.maximum(np.abs(rot), np.finfo(float).tiny)
    return np.fft.irfft(np.fft.rfft(y) * rot, y.size)


def _unit_phasor(y, ref, fs: float, segment_s: float):
    """(frequencies, unit phasor of ``y``'s Welch cross-spectrum against ``ref``) over segments of
    ``segment_s`` seconds (the whole series when it is shorter)."""
    y = np.asarray(y, dtype=float)
    ref = np.asarray(ref, dtype=float)
    if y.shape != ref.shape:
        raise ValueError(f"y has {y.size} points, ref {ref.size}")
    nper = max(min(int(round(segment_s * fs)), y.size), 1)
    f, s_xy = csd(y, ref, fs, nper)
    return f, s_xy / np.maximum(np.abs(s_xy), np.finfo(float).tiny)


def phase_filter(y, ref, fs: float, segment_s: float, reach_s: float,
                 fallback: tuple[float, int] | None = None) -> np.ndarray:
    """Taps of the rotation :func:`phase_onto` would apply to ``y``, as a finite impulse response
    for later stretches of the same series: the impulse response of the cross-spectrum's unit
    phasor (one period of its segments' length), weighted by the squared sinc that interpolating
    the phasor onto the frequencies of a longer series amounts to, and cut at ``reach_s``
    either side.

    A later stretch may breathe at a rate the span did not, where the span's phase is that of
    noise. With ``fallback`` = ``(sign, lag)``, the response at each frequency is the unit phasor
    weighted by the span's magnitude-squared coherence ``C`` of the two plus the one shift and
    sign weighted by ``1 - C``: ``C e^{-i phi} + (1 - C) sign e^{-i 2 pi f lag / fs}``, the
    rotation where the span showed it, the shift elsewhere.

    Parameters
    ----------
    y, ref : array_like
        Series of one grid (equal length), band-passed: the span the rotation is estimated on.
    fs : float
        Their rate (Hz).
    segment_s : float
        Length (s) of the cross-spectrum's segments (the whole series when it is shorter).
    reach_s : float
        Largest shift (s) of a tap, either side of the present.
    fallback : (float, int), optional
        Sign and delay (samples, as :func:`edr.fusion.shifted`) where the span's coherence is
        low.

    Returns
    -------
    ndarray
        ``2 R + 1`` taps, ``R`` the reach in samples (at most half a segment); tap ``R + m``
        weighs the point ``m`` samples before (:func:`filtered`).

    Raises
    ------
    ValueError
        When ``y`` and ``ref`` differ in length.

    See Also
    --------
    phase_onto : the rotation of the whole series at once.
    filtered : the taps applied to a stretch.

    References
    ----------
    .. [1] A. V. Oppenheim and R. W. Schafer, *Discrete-Time Signal Processing*, 3rd ed., Prentice
       Hall, 2010, Sec. 7.2 and 7.5: an FIR filter designed by sampling a frequency response,
       its impulse response windowed; linear interpolation between the samples is the squared
       sinc window in time.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.cross_phase import filtered, phase_filter
    >>> t = np.arange(1200) / 4.0
    >>> breath = np.sin(2 * np.pi * 0.25 * t)
    >>> lagged = np.sin(2 * np.pi * 0.25 * t - 1.0)  # a second behind
    >>> taps = phase_filter(lagged, breath, 4.0, 64.0, 8.0)
    >>> taps.size
    65
    >>> round(float(np.corrcoef(filtered(lagged, taps)[100:-100], breath[100:-100])[0, 1]), 2)
    1.0
    """
    f, unit = _unit_phasor(y, ref, fs, segment_s)
    nper = 2 * (f.size - 1) if f.size > 1 else 1
    if fallback is not None:
        c = np.nan_to_num(coherence(y, ref, fs, nper)[1])
        sign, lag = fallback
        unit = c * unit + (1.0 - c) * sign * np.exp(-2j * np.pi * f * lag / fs)
    h = np.fft.irfft(unit, nper)
    reach = min(max(int(round(reach_s * fs)), 0), nper // 2 - 1 if nper > 1 else 0)
    m = np.arange(-reach, reach + 1)
    return h[m % nper] * np.sinc(m / nper) ** 2


def filtered(y, taps) -> np.ndarray:
    """``y`` through the odd-length ``taps`` centred on the present (:func:`phase_filter`), its
    end values held beyond its ends; as long as ``y``."""
    y = np.asarray(y, dtype=float)
    reach = (len(taps) - 1) // 2
    padded = np.concatenate([np.full(reach, y[0]), y, np.full(reach, y[-1])])
    return np.convolve(padded, taps, mode="valid")


def rotated_weights(weights, anchor: str, n: int, fs: float, delayed, phase: bool) -> dict:
    """Name to weight of the series that :func:`edr.fusion.fuse` rotates onto the weighted sum of
    the others (``phase``): the ``delayed`` series with weight other than ``anchor``, when the
    others outweigh them (together more than half the weight) and the ``n`` points span at least
    :data:`edr.fusion.PHASE_MIN_LOCAL` times :data:`edr.fusion.LOCAL_S`; else none."""
    from edr.fusion import LOCAL_S, PHASE_MIN_LOCAL

    delayed_w = {k: w for k, w in weights.items()
                 if k != anchor and w > 0 and k.rsplit("/", 1)[-1] in delayed}
    enough = n >= PHASE_MIN_LOCAL * LOCAL_S * fs
    return delayed_w if phase and enough and sum(delayed_w.values()) < 0.5 else {}
