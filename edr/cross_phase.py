"""A series rotated onto another frequency by frequency, by the phase of their cross-spectrum.

The heart rate follows the breath through the vagal reflex: a response whose phase against the
breathing changes with the breathing rate, while the morphology series (R amplitude, QRS area,
kernel components) follow the chest at once. Within one analysis window of a healthy volunteer
breathing at a rate that changes every minute, no single shift and sign aligns the two; a shift
that suits one rate leaves the other minutes' breaths partly cancelled when the two are summed.
:func:`phase_onto` takes out the phase the two series themselves show at every frequency (the
phase of their Welch cross-spectrum, an all-pass filter): estimated from the ECG-derived series
alone, with no delay assumed.
:func:`edr.fusion.fuse` adds the heart rate this way (:data:`edr.fusion.HEART_PHASE`).
"""

from __future__ import annotations

import numpy as np

from edr.dsp.spectral import csd

__all__ = ["phase_onto"]


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
    edr.series_alignment.aligned_sum : the alignment by one shift and a sign.

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
    ref = np.asarray(ref, dtype=float)
    if y.shape != ref.shape:
        raise ValueError(f"y has {y.size} points, ref {ref.size}")
    nper = max(min(int(round(segment_s * fs)), y.size), 1)
    f, s_xy = csd(y, ref, fs, nper)
    unit = s_xy / np.maximum(np.abs(s_xy), np.finfo(float).tiny)
    fk = np.fft.rfftfreq(y.size, 1.0 / fs)
    rot = np.interp(fk, f, unit.real) + 1j * np.interp(fk, f, unit.imag)
    rot /= np.maximum(np.abs(rot), np.finfo(float).tiny)
    return np.fft.irfft(np.fft.rfft(y) * rot, y.size)
