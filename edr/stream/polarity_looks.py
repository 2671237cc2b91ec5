"""A stream's polarity, tested at fixed looks: :class:`SequentialPolarity`.

Offline, which extrema of the EDR end inspiration is tested once per record
(:func:`edr.polarity.decide_polarity` at :data:`edr.polarity.POLARITY_ALPHA`). A stream that
repeated that test at every update until one came out significant would find one by chance:
a test repeated on accumulating data at level α rejects a true null far more often than α.
So the stream tests only at fixed looks, by the EDR emitted so far (:func:`look_edr_s`):
:data:`FIRST_LOOK_S`, then every :data:`LOOK_EVERY_S`, and at the stream's end; look ``k``
tests at level :func:`look_alpha` ``(k)``, so that the levels of all the looks sum to at most
α.

At a look, the shape's evidence is pooled over every window of the stream's EDR so far
(:func:`edr.polarity.window_skewness`, :func:`edr.polarity.shape_of_windows`); the
arrhythmia's is read on the EDR and beats the stream's detector sees
(:data:`edr.stream.breaths.CONTEXT_S`). Between looks, and until a look decides, the polarity
is kept as the last look left it: the shape's sign, uncertain (before the first look, the
sign of the first windows). Once a look decides, the decision is kept for the rest of the
stream (one polarity per record, as offline). Measurements: ``docs/studies/breath_detection.md``.
"""

from __future__ import annotations

import numpy as np

from edr.polarity import (
    POLARITY_ALPHA,
    RSA_MIN_BPM,
    Polarity,
    decide_polarity,
    shape_of_windows,
    window_skewness,
)
from edr.signal import RATE_WINDOW_S

__all__ = ["FIRST_LOOK_S", "LOOK_EVERY_S", "SequentialPolarity", "look_alpha", "look_edr_s"]

FIRST_LOOK_S = 128.0
"""EDR (s) emitted at the first look: four :data:`edr.signal.RATE_WINDOW_S` windows (the
shape's t test needs three)."""
LOOK_EVERY_S = 240.0
"""EDR (s) between the later looks: the span the stream's breath detector sees, so that the
arrhythmia is read on new EDR at each look."""


def look_alpha(k: int, alpha: float = POLARITY_ALPHA) -> float:
    """Significance level of the ``k``-th look (``k`` from 1) of a test repeated on
    accumulating data at overall level ``alpha``: ``alpha / 2 ** k``.

    The levels of all the looks sum to ``alpha (1 - 2 ** -K)`` after ``K`` looks, less than
    ``alpha`` however many there are: by the Bonferroni inequality, the chance that any look
    rejects a true null is at most ``alpha`` (an alpha-spending rule that spends half of what
    is left at each look).

    Parameters
    ----------
    k : int
        The look, 1 for the first.
    alpha : float, default :data:`edr.polarity.POLARITY_ALPHA`
        The overall level.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        ``k`` below 1 or ``alpha`` outside (0, 1).

    See Also
    --------
    look_edr_s : when the ``k``-th look is.
    SequentialPolarity : tests at these levels.

    References
    ----------
    Armitage P, McPherson CK, Rowe BC. Repeated significance tests on accumulating data.
    J R Stat Soc A 132(2):235-244, 1969 (repeating a test at level α inflates its error).
    Lan KKG, DeMets DL. Discrete sequential boundaries for clinical trials. Biometrika
    70(3):659-663, 1983 (spending the level over the looks).

    Examples
    --------
    >>> from edr.stream.polarity_looks import look_alpha
    >>> [look_alpha(k) for k in (1, 2, 3)]
    [0.025, 0.0125, 0.00625]
    >>> bool(sum(look_alpha(k) for k in range(1, 60)) <= 0.05)
    True
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    if int(k) != k or k < 1:
        raise ValueError(f"the look k must be an integer from 1, got {k!r}")
    return float(alpha / 2.0 ** int(k))


def look_edr_s(k: int) -> float:
    """EDR (s) emitted at the ``k``-th scheduled look (``k`` from 1): :data:`FIRST_LOOK_S`,
    then every :data:`LOOK_EVERY_S`.

    Raises
    ------
    ValueError
        ``k`` below 1.

    See Also
    --------
    look_alpha : the level of the ``k``-th look.

    Examples
    --------
    >>> from edr.stream.polarity_looks import look_edr_s
    >>> [look_edr_s(k) for k in (1, 2, 3, 4)]
    [128.0, 240.0, 480.0, 720.0]
    """
    if int(k) != k or k < 1:
        raise ValueError(f"the look k must be an integer from 1, got {k!r}")
    return FIRST_LOOK_S if k == 1 else LOOK_EVERY_S * (int(k) - 1)


class SequentialPolarity:
    """Which extrema of a stream's EDR end inspiration, tested at fixed looks (module
    docstring).

    Parameters
    ----------
    fs : float
        The EDR grid rate (Hz).
    alpha : float, default :data:`edr.polarity.POLARITY_ALPHA`
        The overall level of the looks (:func:`look_alpha`).
    rsa_min_bpm : float, default :data:`edr.polarity.RSA_MIN_BPM`
        As :func:`edr.polarity.decide_polarity`.

    Attributes
    ----------
    polarity : edr.polarity.Polarity
        The decision so far (``confident`` once a look decided).
    edr_s : float
        EDR emitted so far (s, finite or not).
    looks : list of tuple
        ``(edr_s, k)`` of every look made, in order.

    Raises
    ------
    ValueError
        ``alpha`` outside (0, 1).

    See Also
    --------
    edr.stream.breaths.StreamBreaths : the stream's breaths, at the extrema it decides.
    edr.polarity.decide_polarity : the test made at each look.

    Examples
    --------
    A waveform that rests at its maxima and dips briskly to its minima, with a steady heart,
    2 s of EDR at a time:

    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from edr.stream.polarity_looks import SequentialPolarity
    >>> t = np.arange(0, 300, 0.25)
    >>> x = -np.sin(np.pi * (t % 4) / 4) ** 4
    >>> sp = SequentialPolarity(4.0)
    >>> for end in range(8, 301, 8):
    ...     sp.add_edr(x[(end - 8) * 4:end * 4])
    ...     p = sp.decide(SimpleNamespace(waveform=x[:end * 4], time=t[:end * 4], fs=4.0,
    ...                                   beat_times=np.arange(0.0, end)))
    >>> sp.looks[0], p.sign, p.confident, p.source
    ((128.0, 1), -1, True, 'shape')
    """

    def __init__(self, fs: float, alpha: float = POLARITY_ALPHA,
                 rsa_min_bpm: float = RSA_MIN_BPM):
        look_alpha(1, alpha)  # its ValueError
        self.fs = float(fs)
        self.alpha = float(alpha)
        self.rsa_min_bpm = float(rsa_min_bpm)
        self.edr_s = 0.0
        self.looks: list[tuple[float, int]] = []
        self._n = 0
        self._tail = np.empty(0)  # finite samples after the last whole window of the run
        self._skews: list[float] = []  # one per window: 2 700 a day
        self.polarity = Polarity(1, False, "none", None, shape_of_windows([]))

    def add_edr(self, values) -> None:
        """Take the EDR samples emitted since the last call (in order, NaN where none): the
        windows they complete join the pooled shape's evidence."""
        values = np.asarray(values, dtype=float).ravel()
        self._n += values.size
        self.edr_s = self._n / self.fs
        buf = np.concatenate([self._tail, values])
        self._skews.extend(window_skewness(buf, self.fs).tolist())
        bad = np.flatnonzero(~np.isfinite(buf))
        run = buf[bad[-1] + 1:] if bad.size else buf
        n = int(round(RATE_WINDOW_S * self.fs))
        self._tail = run[(run.size // n) * n:]

    def pooled_shape(self):
        """:func:`edr.polarity.shape_of_windows` of every window of the EDR so far."""
        return shape_of_windows(self._skews)

    def _scheduled(self) -> int:
        """The last scheduled look the EDR so far has reached (0: none)."""
        if self.edr_s < FIRST_LOOK_S:
            return 0
        return max(1, int(np.floor(self.edr_s / LOOK_EVERY_S)) + 1)

    def decide(self, result, final: bool = False) -> Polarity:
        """The polarity at this update, ``result`` (``waveform``, ``time``, ``fs``,
        ``beat_times``) the EDR and beats the detector sees: tested when a look is due (or at
        the stream's end, ``final``, with EDR since the last look), else kept.

        Returns
        -------
        edr.polarity.Polarity
            Confident once a look decided (kept from then on); else the last look's shape
            sign, uncertain (before the first look, the sign of the first windows that came:
            kept, so that the breaths reported do not change extrema).
        """
        if self.polarity.confident:
            return self.polarity
        last_k = self.looks[-1][1] if self.looks else 0
        last_s = self.looks[-1][0] if self.looks else 0.0
        k = self._scheduled()
        if k <= last_k:
            k = last_k + 1 if final and self.edr_s > last_s else 0
        if k == 0:
            if not self.looks and self.polarity.shape.n_windows == 0:  # the first time
                shape = self.pooled_shape()
                self.polarity = Polarity(shape.sign, False, "none", None, shape)
            return self.polarity
        self.looks.append((self.edr_s, k))
        self.polarity = decide_polarity(result, rsa_min_bpm=self.rsa_min_bpm,
                                        alpha=look_alpha(k, self.alpha),
                                        shape=self.pooled_shape())
        return self.polarity
