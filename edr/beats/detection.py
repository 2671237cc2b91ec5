"""The detected beats of one lead (:class:`Beats`) and :func:`detect`, which finds them.

:func:`detect` runs the steps of :mod:`edr.beats` in order: masking (:mod:`edr.beats.mask`),
cleaning and polarity (:mod:`edr.beats.twins`, :mod:`edr.beats.polarity`), detection in chunks
(:mod:`edr.beats.chunks`, :mod:`edr.beats.peaks`), sub-sample alignment
(:mod:`edr.beats.alignment`) and the quality flags (:mod:`edr.beats.flags`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from edr.beats.alignment import aligned_peaks
from edr.beats.chunks import clean_long, detect_long
from edr.beats.flags import clipped_beats, rr_ectopic, running_median
from edr.beats.mask import signal_mask, true_runs
from edr.beats.peaks import given_segment
from edr.beats.polarity import inverted
from edr.errors import SignalError
from edr.modulation import QRS_HALF_WIDTH_S
from edr.names import FS_RANGE, check_fs

__all__ = ["Beats", "DEFAULT_DETECTOR", "FS_RANGE", "MIN_BEATS", "detect"]

DEFAULT_DETECTOR = "neurokit"
"""Default NeuroKit2 R-peak detector: tied best on BIDMC (see :mod:`edr.beats`)."""
MIN_BEATS = 20
"""Fewest detected beats :func:`detect` accepts."""
MIN_BEATS_SPAN_S = 2.0 * MIN_BEATS
"""An ECG at least this long (s) with fewer than :data:`MIN_BEATS` beats has a heart rate below
30 /min: the message names the sampling rate to check, not a longer recording."""
SHORT_GAP_S = 0.05
"""Masked runs at most this long (s) are bridged, not cut out: half a QRS complex cannot hide a
beat, so a lead that lost single samples here and there (a lossy link) keeps its stretches
whole; a beat with such a gap within :data:`GAP_GUARD_S` of its R peak is flagged an artifact."""
GAP_GUARD_S = QRS_HALF_WIDTH_S
"""Half-width (s) around R within which a bridged gap makes a beat an artifact: the QRS window
its morphology is read from (:data:`edr.modulation.QRS_HALF_WIDTH_S`)."""


@dataclass
class Beats:
    """Detected heart beats of one lead.

    Attributes
    ----------
    peaks : ndarray of float
        R-peak positions in samples at ``fs`` (sub-sample when aligned).
    fs : float
        Sampling rate of the ECG (Hz).
    valid : ndarray of bool
        False for ectopic, artifact or clipped beats.
    polarity : int
        +1, or -1 when the lead was found inverted (the ECG was multiplied by -1).
    n_ectopic, n_artifact : int
        Number of beats flagged ectopic, and artifact (template mismatch,
        amplitude outlier or clipping; a beat can be both).
    template_corr : ndarray of float
        Pearson correlation of each aligned beat with the median template.
    clipped : ndarray of bool
        Beats with a clipped sample within R ± 60 ms.
    ectopic : ndarray of bool
        Beats flagged ectopic.
    n_masked : int
        ECG samples masked (NaN or flat runs).
    method : str
        NeuroKit2 detector used.
    template : ndarray or None
        The median beat the peaks were aligned to (upsampled R ± ``align_half_s``, R at the
        centre before the sub-sample refinement), as :func:`detect` takes it back.

    See Also
    --------
    detect : what returns it.

    Examples
    --------
    >>> from edr.beats import detect
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> beats = detect(rec.ecg, rec.fs)
    >>> beats.peaks.size, int(beats.valid.sum()), beats.polarity, beats.method
    (69, 69, 1, 'neurokit')
    """

    peaks: np.ndarray
    fs: float
    valid: np.ndarray
    polarity: int
    n_ectopic: int
    n_artifact: int
    template_corr: np.ndarray = field(default_factory=lambda: np.empty(0))
    clipped: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=bool))
    ectopic: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=bool))
    n_masked: int = 0
    method: str = DEFAULT_DETECTOR
    template: np.ndarray | None = field(default=None, repr=False)

    @property
    def times(self) -> np.ndarray:
        """R-peak times in s."""
        return self.peaks / self.fs

    def __len__(self) -> int:
        return int(self.peaks.size)


def _check_inputs(ecg, fs, upsample: int = 1, polarity: int | None = None):
    """``(ecg, fs)`` as a float array and a float, :func:`detect`'s arguments checked."""
    x = np.asarray(ecg, dtype=float)
    if x.ndim != 1:
        raise ValueError(f"ecg must be one-dimensional, got shape {x.shape}")
    fs = check_fs(fs)
    if int(upsample) < 1:
        raise ValueError(f"upsample must be an integer >= 1, got {upsample!r}")
    if polarity not in (None, 1, -1):
        raise ValueError(f"polarity must be 1, -1 or None, got {polarity!r}")
    return x, fs


def detect(ecg, fs: float, *, method: str = DEFAULT_DETECTOR, align: bool = True,
           upsample: int = 10, align_half_s: float = 0.08, max_lag_s: float = 0.024,
           min_template_corr: float = 0.8, flat_s: float = 1.0,
           max_clipped_fraction: float = 0.5, polarity: int | None = None,
           min_beats: int = MIN_BEATS, template: np.ndarray | None = None,
           peaks=None) -> Beats:
    """Detect, align and quality-flag the R peaks of one ECG lead.

    Parameters
    ----------
    ecg : array_like, shape (n,)
        One lead in physical units; NaN allowed (masked).
    fs : float
        Sampling rate in Hz, 100 to 10 000.
    method : str, default :data:`DEFAULT_DETECTOR`
        NeuroKit2 R-peak detector (``nk.ecg_peaks(method=...)``: "neurokit",
        "pantompkins1985", "hamilton2002", "elgendi2010", "engzeemod2012",
        "kalidas2017", "rodrigues2021", ...).
    align : bool, default True
        Refine each peak to sub-sample precision by upsampling and
        cross-correlation with the median template. When False, peaks stay on
        the local maximum sample (the template correlation is still computed,
        at zero lag, for the artifact flag).
    upsample : int, default 10
        Upsampling factor of the alignment.
    align_half_s : float, default 0.08
        Half-width (s) of the template around R.
    max_lag_s : float, default 0.024
        Largest shift (s) searched by the cross-correlation.
    min_template_corr : float, default 0.8
        Beats correlating less with the template are flagged as artifacts.
    flat_s : float, default 1.0
        Shortest constant run (s) masked as flat line (see :func:`signal_mask`).
    max_clipped_fraction : float, default 0.5
        Clipped beats count as artifacts only while they are fewer than this
        fraction of all beats. When most beats clip (a lead that saturates at
        every R peak), the clipped beats are kept: their QRS shape below the rail
        still carries the respiratory modulation, and dropping them would leave
        nothing (``docs/studies/beat_detection.md``).
    polarity : {1, -1}, optional
        The lead's polarity when it is known (e.g. judged over a longer stretch, as a stream
        does: :func:`inversion_values`); None judges it on ``ecg`` by NeuroKit2's rule.
    min_beats : int, default :data:`MIN_BEATS`
        Fewest beats accepted (a stream searching its newest seconds asks for fewer).
    template : ndarray, optional
        The alignment template (``Beats.template`` of an earlier detection on the same lead at
        the same rate and settings) to align the beats to instead of their own median: a stream
        keeps the positions of its successive searches on one reference.
    peaks : array_like, optional
        R-peak marks of one's own (sample positions in ``ecg``, sub-sample allowed: an
        annotator's or another detector's) in place of step 3's detector: each is moved onto R
        (:func:`edr.beats.peaks.given_segment`, within
        :data:`edr.beats.peaks.GIVEN_RADIUS_S`); marks in masked samples or within 0.1 s of a
        masked stretch are dropped; the other steps run on them as on detected peaks
        (``method`` is then ``"given"``).

    Returns
    -------
    Beats

    Raises
    ------
    SignalError
        ``fs`` outside 100–10 000 Hz, or fewer than ``min_beats`` beats; ``peaks`` most of which
        are not near an R wave.
    ValueError
        ``ecg`` not one-dimensional, ``upsample < 1``, ``polarity`` not ±1 or None.

    See Also
    --------
    signal_mask : the masking step.
    edr.beats.polarity.inverted_by : the polarity rule.
    neurokit2.ecg_peaks : the detectors.

    References
    ----------
    .. [1] D. Makowski, T. Pham, Z. J. Lau, J. C. Brammer, F. Lespinasse, H. Pham, C. Schölzel and
       S. H. A. Chen, "NeuroKit2: A Python toolbox for neurophysiological signal processing," Behav.
       Res. Methods 53(4), 1689-1696, 2021. ``ecg_clean``, ``ecg_peaks`` and the inversion rule of
       ``ecg_invert``.

    Examples
    --------
    >>> from edr.beats import detect
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> beats = detect(rec.ecg, rec.fs)
    >>> beats.peaks.size, beats.n_ectopic, beats.n_masked
    (69, 0, 0)
    >>> detect(-rec.ecg, rec.fs).polarity  # an inverted lead is found and turned
    -1
    >>> given = detect(rec.ecg, rec.fs, peaks=beats.peaks + 3.0)  # marks 12 ms late: back on R
    >>> given.method, bool(abs(given.peaks - beats.peaks).max() < 0.01)
    ('given', True)
    """
    x, fs = _check_inputs(ecg, fs, upsample, polarity)
    method = str(method).lower() if peaks is None else "given"
    masked = signal_mask(x, fs, flat_s=flat_s)
    gaps = _short_gaps(masked, fs)
    segs = _usable_segments(masked & ~gaps, fs)
    xs, clean, polarity = _oriented_clean(x, fs, masked, segs, polarity)
    peaks = _detect_segments(xs, clean, fs, segs, method, min_beats, peaks)
    pos, tcorr, template = aligned_peaks(clean, fs, peaks, up=int(upsample), half_s=align_half_s,
                                  max_lag_s=max_lag_s, shift=align, template=template)
    ectopic = rr_ectopic(pos, peaks, fs, masked & ~gaps)
    clipped = clipped_beats(xs, ~masked, peaks, fs)
    amp = clean[peaks]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = amp / running_median(amp)
    artifact = (tcorr < min_template_corr) | ~((ratio >= 0.4) & (ratio <= 2.5))
    if gaps.any():
        artifact |= _near(gaps, peaks, int(round(GAP_GUARD_S * fs)))
    if clipped.mean() < max_clipped_fraction:
        artifact |= clipped
    valid = ~(ectopic | artifact)
    return Beats(peaks=pos, fs=fs, valid=valid, polarity=polarity,
                 n_ectopic=int(ectopic.sum()), n_artifact=int(artifact.sum()),
                 template_corr=tcorr, clipped=clipped, ectopic=ectopic,
                 n_masked=int(masked.sum()), method=method, template=template)


def _short_gaps(masked: np.ndarray, fs: float) -> np.ndarray:
    """The masked runs of at most :data:`SHORT_GAP_S` (boolean mask)."""
    gaps = np.zeros(masked.size, dtype=bool)
    starts, stops = true_runs(masked)
    for a, b in zip(starts, stops, strict=True):
        if b - a <= SHORT_GAP_S * fs:
            gaps[a:b] = True
    return gaps


def _near(gaps: np.ndarray, peaks: np.ndarray, half: int) -> np.ndarray:
    """Per peak, whether ``gaps`` holds a sample within ``half`` samples of it."""
    before = np.concatenate([[0], np.cumsum(gaps, dtype=np.int64)])
    lo = np.clip(peaks - half, 0, gaps.size)
    hi = np.clip(peaks + half + 1, 0, gaps.size)
    return before[hi] > before[lo]


def _usable_segments(masked: np.ndarray, fs: float) -> list[tuple[int, int]]:
    """Unmasked runs ``(start, stop)`` of at least 2 s; SignalError when there is none."""
    starts, stops = true_runs(~masked)
    min_seg = int(round(2.0 * fs))
    segs = [(a, b) for a, b in zip(starts, stops, strict=False) if b - a >= min_seg]
    if not segs:
        raise SignalError(
            f"ecg has no usable stretch of >= 2 s ({int(masked.sum())} of {masked.size} samples "
            f"masked as NaN or flat); fewer than {MIN_BEATS} beats"
        )
    return segs


def _oriented_clean(x: np.ndarray, fs: float, masked: np.ndarray,
                    segs: list[tuple[int, int]],
                    polarity: int | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """The lead with R upwards (masked samples bridged linearly), its cleaned copy and the
    polarity (+1, or -1 when inverted).

    The lead is cleaned once, masked samples bridged; polarity, detection of an
    unmasked lead, alignment and amplitudes all read it (the filter is linear and odd, so
    inverting the lead inverts it exactly). The polarity, unless given, is judged on the
    usable segments joined.
    """
    ok = ~masked
    filled = x.copy() if masked.any() else x
    if masked.any():
        idx = np.arange(x.size)
        filled[masked] = np.interp(idx[masked], idx[ok], x[ok])
    clean_x = clean_long(filled, fs, "neurokit")
    if polarity is None:
        whole = len(segs) == 1 and segs[0] == (0, x.size)
        joined = clean_x if whole else clean_long(np.concatenate([filled[a:b] for a, b in segs]),
                                                   fs, "neurokit")
        polarity = -1 if inverted(joined, fs) else 1
        del joined
    xs = filled if polarity == 1 else -filled
    clean = clean_x if polarity == 1 else np.negative(clean_x, out=clean_x)
    return xs, clean, polarity


def _detect_segments(xs: np.ndarray, clean: np.ndarray, fs: float,
                     segs: list[tuple[int, int]], method: str,
                     min_beats: int = MIN_BEATS, given=None) -> np.ndarray:
    """R-peak samples of every usable segment, 0.1 s clear of its ends: detected, or the marks
    ``given`` moved onto R (:func:`given_segment`).

    Raises SignalError when fewer than ``min_beats`` are found.
    """
    whole = len(segs) == 1 and segs[0] == (0, xs.size)
    edge = int(round(0.1 * fs))
    marks = None if given is None else np.sort(np.asarray(given, dtype=float).ravel())
    found = []
    for a, b in segs:
        if marks is None:
            p = detect_long(xs[a:b], fs, method, clean if whole else None) + a
        else:
            inside = marks[(marks >= a) & (marks <= b - 1)] - a
            p = given_segment(inside, clean[a:b], fs) + a
        found.append(p[(p >= a + edge) & (p < b - edge)])
    peaks = np.concatenate(found) if found else np.empty(0, dtype=int)
    if peaks.size < min_beats:
        duration = xs.size / fs
        fix = ("give a longer recording (a minute or more) or another ECG lead"
               if duration < MIN_BEATS_SPAN_S else
               f"a heart rate of {60 * peaks.size / duration:.0f} /min; check that {fs:g} Hz is "
               "the ECG's sampling rate (--fs, fs=), or give another ECG lead")
        if marks is not None:
            fix = (f"{marks.size} R peaks were given for this stretch; give R peaks over the "
                   "whole ECG (times in s from its first sample), or none to detect them")
        raise SignalError(
            f"only {peaks.size} heart beats found in {duration:.1f} s of ECG at {fs:g} Hz "
            f"(QRS detector {method}); an EDR needs at least {min_beats}: {fix}")
    return peaks
