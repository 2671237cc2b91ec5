"""How much an EDR resembles a reference respiration: correlation and magnitude-squared
coherence, as the evaluation protocol measures them (:mod:`edr.scoring` puts both series on one
grid and through one band-pass first; ``docs/design.md#5-evaluation-protocol-and-report``).
"""

from __future__ import annotations

import numpy as np

from edr.dsp import spectral
from edr.errors import SignalError
from edr.signal import BAND_HZ, GRID_FS, WELCH_SEGMENT_S, as_series, positive_rate

__all__ = ["GOOD_SCORE", "MSC_HALF_WIDTH_HZ", "correlation", "msc", "scores_meaning"]

MSC_HALF_WIDTH_HZ = 0.1
"""Half-width (Hz) of the band around ``f_ref`` over which the coherence is averaged."""

GOOD_SCORE = 0.5
"""MSC or ``|r|`` from which :func:`scores_meaning` calls a score high."""


def scores_meaning(msc_value: float, corr_value: float) -> str:
    """One sentence for a reader of both scores: what they say together.

    MSC and ``|r|`` measure different things: ``|r|`` is the correlation of the waveforms (led by
    the strongest breathing peak, and hurt by any delay or change of shape), MSC the coherence
    averaged over the reference rate ± :data:`MSC_HALF_WIDTH_HZ` (the weak bins count as much as
    the peak). The sentence says which of the readings applies.

    Parameters
    ----------
    msc_value, corr_value : float
        The scores (:func:`msc`, :func:`correlation`).

    Returns
    -------
    str
        One sentence, no final period.

    See Also
    --------
    msc, correlation

    Examples
    --------
    >>> from edr.similarity import scores_meaning
    >>> scores_meaning(0.77, 0.99)  # the demo: a good EDR, MSC below |r|
    'MSC and |r| both high; MSC sits below |r| because it averages the coherence over ...'
    >>> scores_meaning(0.78, 0.36)
    'high MSC, low |r|: the EDR keeps the breathing rhythm, but its waveform is shifted ...'
    >>> scores_meaning(0.3, 0.8)
    "low MSC: the EDR's rhythm does not match the reference's over the record"
    >>> scores_meaning(float("nan"), float("nan"))
    'no MSC or |r|: the reference (or the EDR) is flat, there is nothing to compare'
    """
    if not (np.isfinite(msc_value) and np.isfinite(corr_value)):
        return "no MSC or |r|: the reference (or the EDR) is flat, there is nothing to compare"
    if msc_value < GOOD_SCORE:
        return "low MSC: the EDR's rhythm does not match the reference's over the record"
    if corr_value < GOOD_SCORE:
        return ("high MSC, low |r|: the EDR keeps the breathing rhythm, but its waveform is "
                "shifted or shaped differently from the reference")
    if msc_value < corr_value:
        return (f"MSC and |r| both high; MSC sits below |r| because it averages the coherence "
                f"over the rate +-{MSC_HALF_WIDTH_HZ:g} Hz, weak bins as much as the peak")
    return "MSC and |r| both high: the EDR follows the reference in rhythm and shape"


def correlation(edr, ref) -> float:
    """``|Pearson r|`` at zero lag over the samples where both are finite; NaN when either is
    constant there (a flat reference: no correlation exists).

    See Also
    --------
    msc

    References
    ----------
    .. [1] D. Widjaja, C. Varon, A. C. Dorado, J. A. K. Suykens and S. Van Huffel, "Application of
       kernel principal component analysis for single-lead ECG-derived respiration," IEEE Trans.
       Biomed. Eng. 59(4), 1169-1176, 2012. MSC and correlation between the EDR and the respiration.
    .. [2] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. The
       same measures for the EDR application, Sec. VI-C.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(480) / 4.0
    >>> b = np.sin(2 * np.pi * 0.25 * t)
    >>> from edr.similarity import correlation
    >>> correlation(-b, b)  # the sign does not count
    1.0
    """
    edr = as_series(edr, "edr")
    ref = as_series(ref, "ref")
    if edr.shape != ref.shape:
        raise ValueError(f"edr and ref must have the same length, got {edr.size} and "
                             f"{ref.size}")
    ok = np.isfinite(edr) & np.isfinite(ref)
    if ok.sum() < 3:
        raise SignalError(f"only {int(ok.sum())} samples where edr and ref are both finite")
    a, b = edr[ok] - edr[ok].mean(), ref[ok] - ref[ok].mean()
    den = np.sqrt(np.dot(a, a) * np.dot(b, b))
    return float(abs(np.dot(a, b)) / den) if den > 0 else float("nan")


def _nperseg(fs: float, n: int) -> int:
    nperseg = int(round(WELCH_SEGMENT_S * fs))
    if n < nperseg:
        raise SignalError(
            f"series has {n} samples ({n / fs:.1f} s); the protocol needs at least one "
            f"{WELCH_SEGMENT_S:.0f} s segment ({nperseg} samples at fs={fs} Hz)"
        )
    return nperseg


def msc(edr, ref, *, fs: float = GRID_FS):
    """Mean magnitude-squared coherence over ``f_ref ± MSC_HALF_WIDTH_HZ``.

    Parameters
    ----------
    edr, ref : array_like, shape (n,)
        Band-passed series on the same uniform grid, at least one
        :data:`~edr.signal.WELCH_SEGMENT_S` segment long.
    fs : float, default :data:`~edr.signal.GRID_FS`
        Grid rate in Hz.

    Returns
    -------
    msc_value : float
        Mean of the coherence (:func:`edr.dsp.spectral.coherence`, SciPy's ``coherence``;
        Welch, Hann, :data:`~edr.signal.WELCH_SEGMENT_S` segments, 50 % overlap) over the bins with
        ``|f - f_ref| <= 0.1 Hz``; NaN when ``ref`` or ``edr`` has no power (flat).
    f_ref : float
        Frequency (Hz) of the Welch PSD peak of ``ref`` within :data:`~edr.signal.BAND_HZ`; NaN
        when ``ref`` has no power there.

    See Also
    --------
    correlation, edr.dsp.spectral.coherence

    References
    ----------
    .. [1] D. Widjaja, C. Varon, A. C. Dorado, J. A. K. Suykens and S. Van Huffel, "Application of
       kernel principal component analysis for single-lead ECG-derived respiration," IEEE Trans.
       Biomed. Eng. 59(4), 1169-1176, 2012. MSC and correlation between the EDR and the respiration.
    .. [2] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. The
       same measures for the EDR application, Sec. VI-C.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(480) / 4.0
    >>> b = np.sin(2 * np.pi * 0.25 * t)
    >>> from edr.similarity import msc
    >>> value, f_ref = msc(b + 0.3 * np.random.default_rng(0).standard_normal(t.size), b)
    >>> round(value, 2), f_ref
    (0.45, 0.25)
    """
    fs = positive_rate(fs)
    edr = as_series(edr, "edr")
    ref = as_series(ref, "ref")
    if edr.shape != ref.shape:
        raise ValueError(f"edr and ref must have the same length, got {edr.size} and "
                             f"{ref.size}")
    if not (np.all(np.isfinite(edr)) and np.all(np.isfinite(ref))):
        raise SignalError("edr and ref must be finite for the coherence")
    nperseg = _nperseg(fs, edr.size)
    f, p_ref = spectral.welch(ref, fs, nperseg)
    band = (f >= BAND_HZ[0]) & (f <= min(BAND_HZ[1], fs / 2))
    if not np.any(p_ref[band] > 0):  # a flat reference: no frequency, no coherence
        return float("nan"), float("nan")
    f_ref = float(f[band][np.argmax(p_ref[band])])
    with np.errstate(invalid="ignore", divide="ignore"):  # a flat EDR: no coherence (NaN)
        f, cxy = spectral.coherence(edr, ref, fs, nperseg)
    near = np.abs(f - f_ref) <= MSC_HALF_WIDTH_HZ + 1e-12
    return float(np.mean(cxy[near])), f_ref
