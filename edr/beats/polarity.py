"""The polarity of a lead: NeuroKit2's inversion rule (``nk.ecg_invert``) in O(n) memory.

The rule: the lead cleaned again, minus its mean, is inverted when the median over all 2 s
windows of each window's largest-magnitude sample is negative.
"""

from __future__ import annotations

import numpy as np

from edr.beats.chunks import chunk_ranges
from edr.beats.twins import clean_ecg
from edr.dsp.running import sliding_max, sliding_min

__all__ = ["inversion_values", "inverted", "inverted_by"]

def _orig_max_squared(y: np.ndarray, w: int) -> np.ndarray:
    """For every window ``y[i:i + w]``, its sample of largest magnitude (sign kept).

    The quantity of NeuroKit2's ``ecg_invert`` (``_roll_orig_max_squared``),
    computed with running maxima/minima in O(n) memory instead of an n × w
    array (300 MB for a 5-minute window at 250 Hz). Exact ties between +a and -a
    resolve to +a (NeuroKit2 takes the first).
    """
    w = min(w, y.size)
    hi = sliding_max(y, w)
    lo = sliding_min(y, w)
    return np.where(hi >= -lo, hi, lo)


def _window_values(clean: np.ndarray, fs: float) -> np.ndarray:
    """The statistic of NeuroKit2's inversion rule (``nk.ecg_invert``) for every 2 s window of a
    cleaned stretch: the stretch cleaned again, minus its mean, and each window's
    largest-magnitude sample (float32: its sign is what counts); ``v[j]`` for the window starting
    at sample ``j``."""
    y = clean_ecg(clean, fs, "neurokit")
    y -= np.mean(y)
    return _orig_max_squared(y, int(2.0 * fs)).astype(np.float32, copy=False)


def inversion_values(ecg, fs: float) -> np.ndarray:
    """The window values by which :func:`edr.beats.detect` judges the polarity of a finite
    stretch of a lead (NeuroKit2's inversion rule on the cleaned lead), ``v[j]`` for the 2 s
    window starting at sample ``j``; the lead is inverted when their median is negative
    (:func:`inverted_by`). Values kept from several stretches judge a longer one, as a stream
    does.

    See Also
    --------
    inverted_by

    References
    ----------
    .. [1] D. Makowski, T. Pham, Z. J. Lau, J. C. Brammer, F. Lespinasse, H. Pham, C. Schölzel and
       S. H. A. Chen, "NeuroKit2: A Python toolbox for neurophysiological signal processing,"
       Behav. Res. Methods 53(4), 1689-1696, 2021. The rule of ``ecg_invert``.

    Examples
    --------
    >>> from edr.beats import detect
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> from edr.beats.polarity import inversion_values, inverted_by
    >>> v = inversion_values(rec.ecg, rec.fs)
    >>> inverted_by(v), inverted_by(inversion_values(-rec.ecg, rec.fs))
    (False, True)
    """
    return _window_values(clean_ecg(np.asarray(ecg, dtype=float), float(fs), "neurokit"), float(fs))


def inverted_by(values: np.ndarray) -> bool:
    """NeuroKit2's inversion verdict on window values of :func:`inversion_values`: the median
    is negative.

    See Also
    --------
    inversion_values

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats.polarity import inverted_by
    >>> inverted_by(np.array([-1.0, -2.0, 0.5]))
    True
    """
    return bool(np.median(values) < 0)


def inverted(clean: np.ndarray, fs: float) -> bool:
    """NeuroKit2's inversion rule (``nk.ecg_invert``) on a cleaned lead.

    ``nk.ecg_invert`` cleans its input again (``nk.ecg_clean``), removes the mean
    and calls the lead inverted when the median over all 2 s windows of the
    window's largest-magnitude sample is negative. Same rule here, evaluated in
    O(n) memory (:func:`_window_values`). Leads longer than :data:`CHUNK_S`
    are cleaned chunk by chunk, each chunk minus its own mean (the cleaned lead
    is high-passed, its mean is ~0), and the window values of every chunk's
    core join one median.
    """
    w = int(2.0 * fs)
    parts = chunk_ranges(clean.size, fs)
    vals = []
    for lo, hi, c0, c1 in parts:
        v = _window_values(clean[lo:hi], fs)  # v[j]: the window starting at lo + j
        vals.append(v[c0 - lo:max(min(c1, clean.size - w + 1) - lo, 1)])
    return inverted_by(vals[0] if len(vals) == 1 else np.concatenate(vals))
