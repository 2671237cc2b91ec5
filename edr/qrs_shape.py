"""Beat series of the QRS complex's shape, read from its window matrix.

Breathing moves the heart's electrical axis and the thoracic impedance, which changes the QRS
complex of one lead in more ways than its R amplitude: the steepness of its upstroke and
downstroke changes with it (Lázaro et al. 2014). The series here are read from the rows of the
QRS-window matrix (:func:`edr.modulation.qrs_matrix`: R at the centre column, the lead's
polarity turned so that R points up), so that they share its sampling and its sub-sample R
positions.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SHAPE_SERIES", "qrs_slopes"]

SHAPE_SERIES = ("up_slope", "down_slope")
"""The names of :func:`qrs_slopes`' series, in its order."""


def qrs_slopes(matrix, rate_hz: float) -> dict:
    """The steepest upstroke and downstroke of each beat's QRS window.

    Parameters
    ----------
    matrix : array_like, shape (n_beats, 2 h + 1)
        QRS windows centred on R (column ``h``), R pointing up (e.g.
        ``Segment.matrix("none")``), at least 3 columns.
    rate_hz : float
        The matrix's sampling rate (Hz): the slopes are per second.

    Returns
    -------
    dict of str to ndarray, shape (n_beats,)
        ``"up_slope"``: the largest difference between neighbouring samples from the window's
        start to R, times ``rate_hz``; ``"down_slope"``: minus the smallest difference from R
        to the window's end, times ``rate_hz`` (both positive on a normal QRS). A row with a
        non-finite sample in a half gives NaN for that half.

    Raises
    ------
    ValueError
        ``matrix`` not two-dimensional, with an even number of columns or fewer than 3;
        ``rate_hz`` not positive.

    See Also
    --------
    edr.modulation.qrs_matrix : the matrix.
    edr.modulation.r_amplitude : the R amplitude against the PR segment.

    References
    ----------
    .. [1] J. Lázaro, A. Alcaine, D. Romero, E. Gil, P. Laguna, E. Pueyo and R. Bailón,
       "Electrocardiogram derived respiratory rate from QRS slopes and R-wave angle," Ann.
       Biomed. Eng. 42(10), 2072-2083, 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.qrs_shape import qrs_slopes
    >>> beat = np.array([0.0, 0.2, 1.0, -0.3, 0.0])  # Q, R at the centre, S
    >>> out = qrs_slopes(beat[None, :], rate_hz=100.0)
    >>> [round(float(out[k][0]), 3) for k in ("up_slope", "down_slope")]
    [80.0, 130.0]
    """
    X = np.asarray(matrix, dtype=float)
    if X.ndim != 2 or X.shape[1] < 3 or X.shape[1] % 2 == 0:
        raise ValueError(f"matrix must be two-dimensional with an odd number (>= 3) of columns, "
                         f"got shape {X.shape}")
    if not (np.isfinite(rate_hz) and rate_hz > 0):
        raise ValueError(f"rate_hz must be positive, got {rate_hz!r}")
    c = X.shape[1] // 2
    d = np.diff(X, axis=1) * float(rate_hz)
    return {"up_slope": d[:, :c].max(axis=1), "down_slope": -d[:, c:].min(axis=1)}
