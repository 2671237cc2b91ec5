"""Which extrema of an EDR are ends of inspiration: read from the ECG alone.

The EDR's sign follows the R amplitude, and whether the R amplitude rises or falls with
inspiration depends on the lead and the patient, so neither the maxima nor the minima of the
EDR end inspiration in every record. The stitched EDR has one sign over a record (the windows
are sign-aligned on their overlaps, :mod:`edr.stitch`), so the polarity is one per record.
Two pieces of evidence, neither of which needs a reference, each with its own test:

* **respiratory sinus arrhythmia** (:func:`rsa_evidence`): in spontaneous breathing the heart
  rate rises with inspiration, so the EDR extrema that coincide with the fastest heart rate
  end inspiration. The heart rate's swing in phase with the EDR at the breathing frequency is
  read from their cross-spectrum (Hann-tapered :data:`edr.signal.WELCH_SEGMENT_S` segments, at each
  segment's EDR spectral peak); it counts only where their coherence is significant
  (:func:`coherence_threshold`), the swing reaches :data:`RSA_MIN_BPM` (a coherent but
  small swing is common in critically ill, ventilated patients, whose positive-pressure
  breathing can reverse the arrhythmia) and the heart rate is nearer in phase or in antiphase
  with the EDR than in quadrature (:attr:`RSAEvidence.in_phase`: a heart rate a quarter of a
  breath off the EDR follows its slope, not its level, and points to neither extremum);
* **the breathing waveform's shape** (:func:`shape_evidence`): expiration rests at the
  end-expiratory level, so the waveform lingers near its expiratory extreme and is skewed
  towards the inspiratory one. The skewness of every :data:`edr.signal.RATE_WINDOW_S` window of
  the EDR, and a one-sample t test of their mean.

:func:`decide_polarity` takes the arrhythmia's sign where it counts (the evidence with the
lower measured error rate), the shape's where its test is significant, and otherwise the
shape's sign without confidence: the breaths are reported, marked as of uncertain polarity.
Measurements: ``docs/studies/breath_detection.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from edr.dsp.moments import skew, ttest_1samp_pvalue
from edr.errors import SignalError
from edr.signal import RATE_BAND_BPM, RATE_WINDOW_S, WELCH_SEGMENT_S, bandpass, to_uniform_grid

__all__ = ["POLARITY_ALPHA", "RR_JUMP", "RR_RANGE", "RSA_MIN_BPM", "Polarity", "RSAEvidence",
           "ShapeEvidence", "coherence_threshold", "decide_polarity", "heart_rate_on_grid",
           "inspiration_sign", "rsa_evidence", "shape_evidence", "shape_of_windows",
           "window_skewness"]

RSA_MIN_BPM = 1.5
"""Smallest heart-rate swing (bpm RMS per standard deviation of the EDR, in phase with it at
the breathing frequency, coherence significant) whose sign decides the polarity."""

POLARITY_ALPHA = 0.05
"""Significance level of both tests: the coherence of heart rate and EDR, and the shape's t
test. Without a significant decisive evidence the polarity is reported as uncertain."""

RR_RANGE = (0.6, 1.6)
"""RR intervals between consecutive given beats outside this range of the median RR span a
dropped beat (or are ectopic) and are not heart rate samples."""

RR_JUMP = 0.2
"""An RR interval that differs from the one before it by more than this fraction of that one
is not a normal-to-normal interval (a premature beat's coupling interval, its compensatory
pause, the interval after it) and not a heart rate sample: ectopic beats the beat detector
kept would otherwise put their own rhythm into the heart rate, and which of their intervals
:data:`RR_RANGE` leaves would follow the breathing's phase."""


def heart_rate_on_grid(beat_times, time, fs: float) -> np.ndarray:
    """Heart rate (bpm) on the grid ``time`` (rate ``fs``) from the times of the beats used:
    ``60 / RR`` at the middle of each normal-to-normal RR interval (within :data:`RR_RANGE` of
    the median one and within :data:`RR_JUMP` of the one before it), through the cubic spline
    of :func:`edr.signal.to_uniform_grid`, band-passed as the EDR (:func:`edr.signal.bandpass`);
    NaN when fewer than 4 intervals qualify.

    References
    ----------
    Malik M, Farrell T, Cripps T, Camm AJ. Heart rate variability in relation to prognosis
    after myocardial infarction: selection of optimal processing techniques. Eur Heart J
    10(12):1060-1074, 1989 (intervals differing by more than 20 % from the previous one
    excluded as not normal-to-normal).

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
    steady = np.ones(rr.size, dtype=bool)
    steady[1:] = np.abs(rr[1:] - rr[:-1]) <= RR_JUMP * rr[:-1]
    ok = (rr >= RR_RANGE[0] * med) & (rr <= RR_RANGE[1] * med) & steady
    if ok.sum() < 4 or time.size < 2:
        return np.full(time.size, np.nan)
    mid = (bt[1:] + bt[:-1])[ok] / 2
    try:
        _, hr = to_uniform_grid(mid, 60.0 / rr[ok], fs=fs, t_start=time[0], t_end=time[-1])
    except SignalError:
        return np.full(time.size, np.nan)
    return bandpass(hr[:time.size], fs=fs)


def coherence_threshold(n_segments: int, alpha: float = POLARITY_ALPHA) -> float:
    """Magnitude-squared coherence that ``n_segments`` independent segments exceed with
    probability ``alpha`` when the two series are unrelated: ``1 - alpha ** (1 / (K - 1))``
    (1 for fewer than 2 segments: nothing is significant).

    References
    ----------
    Carter GC. Coherence and time delay estimation. Proc IEEE 75(2):236-255, 1987 (Eq. 33:
    the null distribution of the estimated coherence, ``P(C > c) = (1 - c) ** (K - 1)``).

    See Also
    --------
    RSAEvidence.coherent : compares the arrhythmia's coherence with this threshold.
    rsa_evidence : the coherence and its number of segments.
    POLARITY_ALPHA : the default level.

    Examples
    --------
    >>> from edr.polarity import coherence_threshold
    >>> round(coherence_threshold(15), 3), coherence_threshold(1)
    (0.193, 1.0)
    """
    if n_segments < 2:
        return 1.0
    return float(1.0 - alpha ** (1.0 / (n_segments - 1)))


def _segment_starts(ok: np.ndarray, n: int) -> np.ndarray:
    """Starts of the consecutive, non-overlapping ``n``-sample segments inside every run of
    ``ok``."""
    edges = np.diff(np.concatenate([[0], ok.astype(np.int8), [0]]))
    starts = [np.arange(a, b - n + 1, n) for a, b in zip(np.flatnonzero(edges == 1),
                                                         np.flatnonzero(edges == -1), strict=True)]
    return np.concatenate(starts).astype(int) if starts else np.empty(0, dtype=int)


@dataclass(frozen=True)
class RSAEvidence:
    """The heart rate's breathing-frequency relation to the EDR (:func:`rsa_evidence`).

    Attributes
    ----------
    swing_bpm : float
        Heart-rate swing (bpm RMS) in phase with one standard deviation of the EDR: positive
        when the heart beats fastest at the EDR's maxima; 0 without segments.
    coherence : float
        Magnitude-squared coherence of heart rate and EDR at the breathing frequency.
    n_segments : int
        Segments averaged (``K`` of :func:`coherence_threshold`).
    phase_deg : float
        Phase of the cross-spectrum (degrees; 0: heart fastest at the EDR's maxima); NaN
        without segments.
    """

    swing_bpm: float
    coherence: float
    n_segments: int
    phase_deg: float

    def coherent(self, alpha: float = POLARITY_ALPHA) -> bool:
        """Whether the coherence is significant at level ``alpha``."""
        return self.n_segments >= 2 and self.coherence > coherence_threshold(self.n_segments,
                                                                              alpha)

    @property
    def in_phase(self) -> bool:
        """Whether the heart rate's swing in phase (or in antiphase) with the EDR is at least
        its swing in quadrature: the phase within 45 degrees of 0 or 180 (False without
        segments). Only then does the heart rate follow the EDR's level rather than its slope,
        so that the sign of :attr:`swing_bpm` tells which extrema it is fastest at.

        Examples
        --------
        >>> from edr.polarity import RSAEvidence
        >>> [RSAEvidence(-2.0, 0.8, 20, p).in_phase for p in (-150.0, 106.0, 30.0)]
        [True, False, True]
        """
        rad = np.radians(self.phase_deg)
        return bool(abs(np.cos(rad)) >= abs(np.sin(rad)))


def rsa_evidence(result) -> RSAEvidence:
    """The heart-rate swing that follows the EDR of ``result`` at the breathing frequency.

    The EDR and the heart rate (:func:`heart_rate_on_grid` of ``result.beat_times``) are cut
    into consecutive :data:`edr.signal.WELCH_SEGMENT_S` segments where both are finite; each is
    Hann-tapered and Fourier-transformed (``X``, ``H``) and read at the EDR's spectral peak in
    :data:`edr.signal.RATE_BAND_BPM` (so the frequency follows the breathing). With the sums
    over the segments, ``swing_bpm = Re(sum X* H) / sum |X|^2`` (the regression of the heart
    rate's component on the EDR's, per standard deviation of the standardised EDR),
    ``coherence = |sum X* H|^2 / (sum |X|^2 sum |H|^2)``.

    Parameters
    ----------
    result : EDRResult
        ``waveform``, ``time``, ``fs`` and ``beat_times``.

    Returns
    -------
    RSAEvidence

    See Also
    --------
    coherence_threshold : the significance of the coherence.

    References
    ----------
    Hirsch JA, Bishop B. Respiratory sinus arrhythmia in humans: how breathing pattern modulates
    heart rate. Am J Physiol 241(4):H620-H629, 1981 (heart rate rises with inspiration).

    Examples
    --------
    >>> from edr.pipeline import extract_edr
    >>> from edr.polarity import rsa_evidence
    >>> from edr.simulate import simulate_recording
    >>> ev = rsa_evidence(extract_edr(simulate_recording(240.0, rsa_bpm=8.0, random_state=0)))
    >>> bool(abs(ev.swing_bpm) > 2 and ev.coherent())
    True
    """
    x = np.asarray(result.waveform, dtype=float)
    fs = float(result.fs)
    hr = heart_rate_on_grid(result.beat_times, result.time, fs)
    n = int(round(WELCH_SEGMENT_S * fs))
    starts = _segment_starts(np.isfinite(x) & np.isfinite(hr), n)
    if starts.size == 0:
        return RSAEvidence(0.0, 0.0, 0, float("nan"))
    rows = starts[:, None] + np.arange(n)[None, :]
    taper = np.hanning(n)
    spec_x = np.fft.rfft(taper * (x[rows] - x[rows].mean(axis=1, keepdims=True)), axis=1)
    spec_h = np.fft.rfft(taper * (hr[rows] - hr[rows].mean(axis=1, keepdims=True)), axis=1)
    freq_bpm = 60.0 * np.fft.rfftfreq(n, 1.0 / fs)
    band = np.flatnonzero((freq_bpm >= RATE_BAND_BPM[0]) & (freq_bpm <= RATE_BAND_BPM[1]))
    peak = band[np.argmax(np.abs(spec_x[:, band]), axis=1)]
    xk, hk = spec_x[np.arange(starts.size), peak], spec_h[np.arange(starts.size), peak]
    cross = np.sum(np.conj(xk) * hk)
    pxx, phh = np.sum(np.abs(xk) ** 2), np.sum(np.abs(hk) ** 2)
    if pxx == 0 or phh == 0:
        return RSAEvidence(0.0, 0.0, int(starts.size), float("nan"))
    return RSAEvidence(float(np.real(cross) / pxx), float(np.abs(cross) ** 2 / (pxx * phh)),
                       int(starts.size), float(np.degrees(np.angle(cross))))


@dataclass(frozen=True)
class ShapeEvidence:
    """The EDR's skewness over its windows (:func:`shape_evidence`).

    Attributes
    ----------
    skewness : float
        Mean sample skewness of the windows (positive: skewed towards the maxima); 0 without
        windows.
    p_value : float
        Two-sided p-value of the one-sample t test of that mean against 0 (1 with fewer than 3
        windows; 0 when every window has the same non-zero skewness, 1 the same zero one).
    n_windows : int
    """

    skewness: float
    p_value: float
    n_windows: int

    @property
    def sign(self) -> int:
        """+1 when the EDR is skewed towards its maxima (or not at all), -1 otherwise."""
        return -1 if self.skewness < 0 else 1


_NUMERICAL_ZERO = 1e-9  # skewness (and spread of skewness) indistinguishable from rounding


def window_skewness(x, fs: float) -> np.ndarray:
    """The sample skewness of the EDR ``x`` (sampled at ``fs``) in each consecutive,
    non-overlapping :data:`edr.signal.RATE_WINDOW_S` window of finite values (from the start
    of each run of them), the undefined ones (a constant window) left out.

    See Also
    --------
    shape_of_windows : their mean and its test.
    edr.dsp.moments.skew : the skewness of a window (SciPy's ``skew``).

    Examples
    --------
    >>> import numpy as np
    >>> from edr.polarity import window_skewness
    >>> t = np.arange(0, 100, 0.25)
    >>> window_skewness(np.sin(np.pi * (t % 4) / 4) ** 4, 4.0).round(2)  # 3 whole windows
    array([0.48, 0.48, 0.48])
    """
    x = np.asarray(x, dtype=float)
    n = int(round(RATE_WINDOW_S * fs))
    starts = _segment_starts(np.isfinite(x), n)
    if starts.size == 0:
        return np.empty(0)
    per_window = skew(x[starts[:, None] + np.arange(n)[None, :]], axis=1)
    return per_window[np.isfinite(per_window)]


def shape_of_windows(per_window) -> ShapeEvidence:
    """The shape's evidence from the skewness of windows of an EDR (:func:`window_skewness`,
    of one stretch or pooled over several): their mean and the two-sided p-value of its
    one-sample t test (their sampling spread).

    See Also
    --------
    shape_evidence : of one EDR.
    edr.dsp.moments.ttest_1samp_pvalue : the test (SciPy's ``ttest_1samp``).

    Examples
    --------
    >>> from edr.polarity import shape_of_windows
    >>> ev = shape_of_windows([-0.3, -0.5, -0.4, -0.6])
    >>> ev.sign, ev.n_windows, bool(ev.p_value < 0.01)
    (-1, 4, True)
    """
    per_window = np.asarray(per_window, dtype=float).ravel()
    if per_window.size < 3:
        return ShapeEvidence(float(np.mean(per_window)) if per_window.size else 0.0, 1.0,
                             int(per_window.size))
    mean = float(np.mean(per_window))
    if np.ptp(per_window) <= _NUMERICAL_ZERO:  # every window alike: no spread
        return ShapeEvidence(mean, 0.0 if abs(mean) > _NUMERICAL_ZERO else 1.0,
                             int(per_window.size))
    return ShapeEvidence(mean, ttest_1samp_pvalue(per_window, 0.0), int(per_window.size))


def shape_evidence(x, fs: float) -> ShapeEvidence:
    """The skewness of the EDR ``x`` (sampled at ``fs``) in consecutive, non-overlapping
    :data:`edr.signal.RATE_WINDOW_S` windows of finite values, their mean and the two-sided
    p-value of its one-sample t test (its sampling spread over the record's windows):
    :func:`shape_of_windows` of :func:`window_skewness`.

    See Also
    --------
    rsa_evidence : the other evidence, which decides first where it counts.
    decide_polarity : weighs both.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.polarity import shape_evidence
    >>> t = np.arange(0, 320, 0.25)
    >>> volume = np.sin(np.pi * (t % 4) / 4) ** 4  # brisk breaths, long expiratory rest
    >>> up, down = shape_evidence(volume, 4.0), shape_evidence(-volume, 4.0)
    >>> up.sign, down.sign, up.n_windows, bool(up.p_value < 1e-6)
    (1, -1, 10, True)
    """
    return shape_of_windows(window_skewness(x, fs))


@dataclass(frozen=True)
class Polarity:
    """Which extrema end inspiration, and how sure (:func:`decide_polarity`).

    Attributes
    ----------
    sign : int
        +1: the EDR's maxima end inspiration; -1: its minima.
    confident : bool
        A significant evidence decided; False: the shape's sign without significance.
    source : str
        ``"arrhythmia"``, ``"shape"`` or ``"none"`` (the shape's sign, not significant).
    rsa : RSAEvidence or None
    shape : ShapeEvidence or None

    See Also
    --------
    decide_polarity : makes it.
    edr.breaths.Breaths : keeps it as ``polarity``; its breaths are flagged
        ``uncertain_polarity`` when it is not confident.

    Examples
    --------
    A waveform that rests at its maxima and dips briskly to its minima, with a steady heart:

    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from edr.polarity import decide_polarity
    >>> t = np.arange(0, 320, 0.25)
    >>> volume = np.sin(np.pi * (t % 4) / 4) ** 4
    >>> res = SimpleNamespace(waveform=-volume, time=t, fs=4.0, beat_times=np.arange(0, 320.0))
    >>> p = decide_polarity(res)
    >>> p.sign, p.confident, p.source
    (-1, True, 'shape')
    >>> round(p.shape.skewness, 2), p.shape.n_windows, p.rsa.coherent()
    (-0.48, 10, False)
    """

    sign: int
    confident: bool
    source: str
    rsa: RSAEvidence | None = None
    shape: ShapeEvidence | None = None


def decide_polarity(result, *, rsa_min_bpm: float = RSA_MIN_BPM,
                    alpha: float = POLARITY_ALPHA,
                    shape: ShapeEvidence | None = None) -> Polarity:
    """Which extrema of the EDR of ``result`` end inspiration, from the ECG alone.

    Parameters
    ----------
    result : EDRResult
        ``waveform``, ``time``, ``fs`` and ``beat_times``.
    rsa_min_bpm : float, default :data:`RSA_MIN_BPM`
        The arrhythmia decides when its coherence is significant at ``alpha``, it is in phase
        or in antiphase with the EDR (:attr:`RSAEvidence.in_phase`) and its swing
        (:attr:`RSAEvidence.swing_bpm`) reaches this. ``inf``: the shape alone.
    alpha : float, default :data:`POLARITY_ALPHA`
        Significance level of the coherence and of the shape's t test.
    shape : ShapeEvidence, optional
        The shape's evidence to weigh (e.g. :func:`shape_of_windows` of windows pooled over
        more EDR than ``result`` holds); default: :func:`shape_evidence` of ``result``'s EDR.

    Returns
    -------
    Polarity
        The arrhythmia's sign where it decides; else the shape's, confident when its p-value
        is below ``alpha``.

    Raises
    ------
    ValueError
        ``alpha`` outside (0, 1) or a negative ``rsa_min_bpm``.

    See Also
    --------
    rsa_evidence, shape_evidence : the two pieces of evidence.
    edr.stream.polarity_looks.SequentialPolarity : a stream's decision, at fixed looks.

    References
    ----------
    Hirsch JA, Bishop B. Am J Physiol 241(4):H620-H629, 1981 (the arrhythmia's sign).
    Carter GC. Proc IEEE 75(2):236-255, 1987 (the coherence's significance).

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from edr.polarity import decide_polarity
    >>> t = np.arange(0, 320, 0.25)
    >>> volume = np.sin(np.pi * (t % 4) / 4) ** 4
    >>> res = SimpleNamespace(waveform=-volume, time=t, fs=4.0, beat_times=np.arange(0, 320.0))
    >>> p = decide_polarity(res)  # no arrhythmia: the shape decides
    >>> p.sign, p.confident, p.source
    (-1, True, 'shape')
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    if not rsa_min_bpm >= 0:
        raise ValueError(f"rsa_min_bpm must be a non-negative number, got {rsa_min_bpm!r}")
    if shape is None:
        shape = shape_evidence(result.waveform, float(result.fs))
    rsa = rsa_evidence(result)
    if rsa.coherent(alpha) and rsa.in_phase and abs(rsa.swing_bpm) >= rsa_min_bpm:
        return Polarity(1 if rsa.swing_bpm > 0 else -1, True, "arrhythmia", rsa, shape)
    if shape.p_value < alpha:
        return Polarity(shape.sign, True, "shape", rsa, shape)
    return Polarity(shape.sign, False, "none", rsa, shape)


def inspiration_sign(result, *, rsa_min_bpm: float = RSA_MIN_BPM) -> int:
    """+1 when the maxima of the EDR of ``result`` end inspiration, -1 when its minima do:
    the sign of :func:`decide_polarity`, confident or not.

    See Also
    --------
    decide_polarity : the sign with its confidence and evidence.
    edr.breaths.detect_breaths : with ``polarity="auto"``, the breaths at the extrema of this
        sign.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from edr.polarity import inspiration_sign
    >>> t = np.arange(0, 320, 0.25)
    >>> volume = np.sin(np.pi * (t % 4) / 4) ** 4
    >>> inspiration_sign(SimpleNamespace(waveform=volume, time=t, fs=4.0, beat_times=[]))
    1
    """
    return decide_polarity(result, rsa_min_bpm=rsa_min_bpm).sign
