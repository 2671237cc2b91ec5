"""Filter designs and steady states as :mod:`scipy.signal` makes them, without importing it.

:func:`butter` is ``scipy.signal.butter(..., output="sos")`` (analog prototype, frequency
transform, bilinear transform, SciPy's pole-zero pairing into sections), :func:`iirnotch` and
:func:`firwin_kaiser` SciPy's formulas, :func:`sosfilt_zi` and :func:`lfilter_zi` the steady
states its forward-backward filters start from. Tested against SciPy
(``tests/edr/test_dsp_filters.py``).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["butter", "firwin_kaiser", "iirnotch", "lfilter_zi", "sosfilt_zi"]

_BTYPES = ("lowpass", "highpass", "bandpass")


def _analog_butter(order: int, warped, btype: str):
    """Zeros, poles and gain of the analog Butterworth ``btype`` at the ``warped`` edge(s)
    (rad/s): SciPy's ``buttap`` then ``lp2lp_zpk``, ``lp2hp_zpk`` or ``lp2bp_zpk``."""
    m = np.arange(-order + 1, order, 2, dtype=float)
    p = -np.exp(1j * np.pi * m / (2 * order))
    if btype == "lowpass":
        wo = float(warped[0])
        return np.empty(0), wo * p, wo ** order
    if btype == "highpass":
        wo = float(warped[0])
        return np.zeros(order), wo / p, float(np.real(1.0 / np.prod(-p)))
    wo, bw = math.sqrt(warped[0] * warped[1]), float(warped[1] - warped[0])
    p_lp = (p * bw / 2).astype(complex)
    root = np.sqrt(p_lp ** 2 - wo ** 2)
    return np.zeros(order), np.concatenate((p_lp + root, p_lp - root)), bw ** order


def _bilinear(z, p, k, fs: float):
    """SciPy's ``bilinear_zpk``: the digital zeros, poles and gain at sampling rate ``fs``."""
    fs2 = 2.0 * fs
    z_z = np.concatenate(((fs2 + z) / (fs2 - z), -np.ones(len(p) - len(z))))
    return z_z, (fs2 + p) / (fs2 - p), k * np.real(np.prod(fs2 - z) / np.prod(fs2 - p))


def butter(order: int, band, btype: str, fs: float) -> np.ndarray:
    """``scipy.signal.butter(order, band, btype=btype, fs=fs, output="sos")``.

    Parameters
    ----------
    order : int
        Filter order, ``>= 1`` (a band-pass has ``2 order`` poles).
    band : float or (float, float)
        Edge frequency in Hz (low- and high-pass) or the two edges (band-pass),
        ``0 < band < fs / 2``.
    btype : {"lowpass", "highpass", "bandpass"}
        Filter type.
    fs : float
        Sampling rate in Hz.

    Returns
    -------
    ndarray, shape (n_sections, 6)
        Second-order sections ``[b0, b1, b2, 1, a1, a2]``, the gain in the first, the sections
        whose poles lie nearest the unit circle last.

    Raises
    ------
    ValueError
        Unknown ``btype``, a non-positive order or edges outside ``(0, fs / 2)``.

    See Also
    --------
    edr.signal.butter_sos : cached, the design the pipeline uses.

    References
    ----------
    .. [1] A. V. Oppenheim and R. W. Schafer, *Discrete-Time Signal Processing*, 3rd ed.,
       Prentice Hall, 2010, Sec. 7.2 (Butterworth prototype, eq. 7.23; bilinear transform,
       eq. 7.26 with the pre-warping of eq. 7.29).

    Examples
    --------
    >>> from edr.dsp.filters import butter
    >>> butter(4, (0.05, 1.0), "bandpass", 4.0).shape
    (4, 6)
    """
    if btype not in _BTYPES:
        raise ValueError(f"btype must be one of {_BTYPES}, got {btype!r}")
    if int(order) != order or order < 1:
        raise ValueError(f"order must be a positive integer, got {order}")
    edges = np.atleast_1d(np.asarray(band, dtype=float)) * 2.0 / fs
    if edges.size != (2 if btype == "bandpass" else 1) or not np.all((edges > 0) & (edges < 1)):
        raise ValueError(f"band must be {'two edges' if btype == 'bandpass' else 'one edge'} "
                         f"in (0, fs/2), got {band} at fs={fs}")
    z, p, k = _bilinear(*_analog_butter(int(order), 4.0 * np.tan(np.pi * edges / 2.0), btype),
                        fs=2.0)
    return _zpk2sos(z, p, k)


def _cplxreal(z: np.ndarray):
    """SciPy's ``_cplxreal``: one of each conjugate pair (positive imaginary part, sorted by
    real part) and the real values, sorted."""
    if z.size == 0:
        return z, z
    tol = 100 * np.finfo(float).eps
    z = z[np.lexsort((abs(z.imag), z.real))]
    real = abs(z.imag) <= tol * abs(z)
    zr = z[real].real
    if real.all():
        return np.array([]), zr
    z = z[~real]
    zp, zn = z[z.imag > 0], z[z.imag < 0]
    same_real = np.diff(zp.real) <= tol * abs(zp[:-1])
    diffs = np.diff(np.concatenate(([0], same_real, [0])))
    for start, stop in zip(np.flatnonzero(diffs > 0), np.flatnonzero(diffs < 0) + 1, strict=True):
        for chunk in (zp[start:stop], zn[start:stop]):
            chunk[...] = chunk[np.lexsort([abs(chunk.imag)])]
    return (zp + zn.conj()) / 2, zr


def _nearest_index(fro: np.ndarray, to, which: str) -> int:
    """SciPy's ``_nearest_real_complex_idx``: the index of the value of ``fro`` nearest ``to``,
    among the real ones, the complex ones or ``"any"``."""
    order = np.argsort(np.abs(fro - to))
    if which == "any":
        return int(order[0])
    mask = np.isreal(fro[order])
    return int(order[np.flatnonzero(~mask if which == "complex" else mask)[0]])


def _section(z, p) -> np.ndarray:
    """One section ``[b, a]`` with the zeros ``z`` and poles ``p`` (unit gain), each polynomial
    right-aligned in its three coefficients."""
    sos = np.zeros(6)
    b, a = np.real_if_close(np.poly(z)), np.real_if_close(np.poly(p))
    sos[3 - len(b):3] = np.real(b)
    sos[6 - len(a):6] = np.real(a)
    return sos


def _pop(values: np.ndarray, i: int):
    return values[i], np.delete(values, i)


def _zpk2sos(z, p, k) -> np.ndarray:
    """SciPy's ``zpk2sos(z, p, k)`` with its digital ``"nearest"`` pairing: the pole nearest the
    unit circle goes last, with its nearest zeros."""
    p = np.concatenate((p, np.zeros(max(len(z) - len(p), 0))))
    z = np.concatenate((z, np.zeros(max(len(p) - len(z), 0))))
    n_sections = (len(p) + 1) // 2
    if len(p) % 2 == 1:
        p, z = np.concatenate((p, [0.0])), np.concatenate((z, [0.0]))
    z, p = np.concatenate(_cplxreal(z)), np.concatenate(_cplxreal(p))
    sos = np.zeros((n_sections, 6))
    for si in range(n_sections - 1, -1, -1):
        p1, p = _pop(p, int(np.argmin(np.abs(1 - np.abs(p)))))
        if np.isreal(p1) and np.isreal(p).sum() == 0:  # the last real pole
            z1, z = _pop(z, _nearest_index(z, p1, "real"))
            sos[si] = _section([z1, 0], [p1, 0])
        elif (len(p) + 1 == len(z) and not np.isreal(p1) and np.isreal(p).sum() == 1
              and np.isreal(z).sum() == 1):  # a complex pole must take a complex zero
            z1, z = _pop(z, _nearest_index(z, p1, "complex"))
            sos[si] = _section([z1, z1.conj()], [p1, p1.conj()])
        else:
            if np.isreal(p1):
                real = np.flatnonzero(np.isreal(p))
                p2, p = _pop(p, int(real[np.argmin(np.abs(1 - np.abs(p[real])))]))
            else:
                p2 = p1.conj()
            z1, z = _pop(z, _nearest_index(z, p1, "any"))
            if not np.isreal(z1):
                sos[si] = _section([z1, z1.conj()], [p1, p2])
            elif len(z):
                z2, z = _pop(z, _nearest_index(z, p1, "real"))
                sos[si] = _section([z1, z2], [p1, p2])
            else:
                sos[si] = _section([z1], [p1, p2])
    sos[0][:3] *= k
    return sos


def lfilter_zi(b, a) -> np.ndarray:
    """``scipy.signal.lfilter_zi(b, a)``: the state of the transposed direct form II filter
    ``(b, a)`` after a unit step has run forever (``zi = A zi + B``, solved).

    Parameters
    ----------
    b, a : array_like, 1-D
        Numerator and denominator coefficients (``a`` with a non-zero coefficient).

    Returns
    -------
    ndarray, shape (max(len(a), len(b)) - 1,)
        The steady state; the filter started from ``zi * x[0]`` has no step transient.

    Raises
    ------
    ValueError
        ``a`` all zeros.

    See Also
    --------
    sosfilt_zi : the same for second-order sections.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.dsp.filters import lfilter_zi
    >>> lfilter_zi(np.ones(3) / 3, [1.0])
    array([0.66666667, 0.33333333])
    """
    b = np.atleast_1d(np.asarray(b, dtype=float))
    a = np.atleast_1d(np.asarray(a, dtype=float))
    while a.size > 1 and a[0] == 0.0:
        a = a[1:]
    if a.size < 1 or a[0] == 0.0:
        raise ValueError("There must be at least one nonzero `a` coefficient.")
    if a[0] != 1.0:
        b, a = b / a[0], a / a[0]
    n = max(a.size, b.size)
    a, b = np.concatenate((a, np.zeros(n - a.size))), np.concatenate((b, np.zeros(n - b.size)))
    companion = np.zeros((n - 1, n - 1))
    if n > 1:
        companion[0] = -a[1:] / a[0]
        companion[np.arange(1, n - 1), np.arange(n - 2)] = 1.0
    return np.linalg.solve(np.eye(n - 1) - companion.T, b[1:] - a[1:] * b[0])


def sosfilt_zi(sos) -> np.ndarray:
    """``scipy.signal.sosfilt_zi(sos)``: each section's :func:`lfilter_zi` scaled by the DC gain
    of the sections before it.

    Parameters
    ----------
    sos : array_like, shape (n_sections, 6)
        Second-order sections.

    Returns
    -------
    ndarray, shape (n_sections, 2)
        The steady state of each section for a unit step.

    Raises
    ------
    ValueError
        ``sos`` not of shape ``(n_sections, 6)``.

    See Also
    --------
    lfilter_zi, edr.zero_phase.sosfiltfilt

    Examples
    --------
    >>> from edr.dsp.filters import butter, sosfilt_zi
    >>> sosfilt_zi(butter(2, 1.0, "lowpass", 10.0)).shape
    (1, 2)
    """
    sos = np.asarray(sos, dtype=float)
    if sos.ndim != 2 or sos.shape[1] != 6:
        raise ValueError("sos must be shape (n_sections, 6)")
    zi = np.empty((sos.shape[0], 2))
    scale = 1.0
    for s, (b, a) in enumerate(zip(sos[:, :3], sos[:, 3:], strict=True)):
        zi[s] = scale * lfilter_zi(b, a)
        scale *= np.sum(b) / np.sum(a)
    return zi


def iirnotch(w0: float, q: float, fs: float):
    """``scipy.signal.iirnotch(w0, q, fs)``: the second-order notch at ``w0`` Hz, -3 dB
    bandwidth ``w0 / q``.

    Parameters
    ----------
    w0 : float
        Notched frequency in Hz, ``0 < w0 < fs / 2``.
    q : float
        Quality factor.
    fs : float
        Sampling rate in Hz.

    Returns
    -------
    b, a : ndarray, shape (3,)
        Numerator and denominator.

    Raises
    ------
    ValueError
        ``w0`` outside ``(0, fs / 2)``.

    See Also
    --------
    edr.mains.notch_mains

    References
    ----------
    .. [1] S. J. Orfanidis, *Introduction to Signal Processing*, Prentice Hall, 1996,
       Sec. 11.3, eqs. 11.3.4-11.3.7.

    Examples
    --------
    >>> from edr.dsp.filters import iirnotch
    >>> b, a = iirnotch(50.0, 30.0, 250.0)
    >>> round(float(b.sum() / a.sum()), 12)  # unit gain at 0 Hz
    1.0
    """
    w0 = 2 * float(w0) / fs
    if not 0.0 <= w0 <= 1.0:
        raise ValueError("w0 should be such that 0 < w0 < 1")
    bw = w0 / float(q) * np.pi
    w0 = w0 * np.pi
    gain = 1.0 / (1.0 + math.tan(bw / 2.0))
    return (gain * np.array([1.0, -2.0 * math.cos(w0), 1.0]),
            np.array([1.0, -2.0 * gain * math.cos(w0), 2.0 * gain - 1.0]))


def firwin_kaiser(numtaps: int, cutoff: float, beta: float) -> np.ndarray:
    """``scipy.signal.firwin(numtaps, cutoff, window=("kaiser", beta))``: the windowed-sinc
    low-pass, ``cutoff`` relative to the Nyquist rate, scaled to unit gain at 0 Hz.

    Parameters
    ----------
    numtaps : int
        Filter length.
    cutoff : float
        Cut-off, a fraction of the Nyquist rate in ``(0, 1)``.
    beta : float
        Kaiser window shape.

    Returns
    -------
    ndarray, shape (numtaps,)
        The taps.

    Raises
    ------
    ValueError
        ``cutoff`` outside ``(0, 1)``.

    See Also
    --------
    edr.upsampling.polyphase_taps

    References
    ----------
    .. [1] A. V. Oppenheim and R. W. Schafer, *Discrete-Time Signal Processing*, 3rd ed.,
       Prentice Hall, 2010, Sec. 7.5-7.6 (window method, eq. 7.48; Kaiser window, eq. 7.72).

    Examples
    --------
    >>> from edr.dsp.filters import firwin_kaiser
    >>> h = firwin_kaiser(21, 0.5, 5.0)
    >>> h.size, round(float(h.sum()), 12)
    (21, 1.0)
    """
    from scipy import special  # cheap, and imported with scipy.linalg anyway

    if not 0.0 < cutoff < 1.0:
        raise ValueError("Invalid cutoff frequency: frequencies must be greater than 0 and "
                         "less than fs/2.")
    alpha = 0.5 * (numtaps - 1)
    m = np.arange(0, numtaps, dtype=float) - alpha
    h = 0 + cutoff * np.sinc(cutoff * m) - 0.0 * np.sinc(0.0 * m)
    n = np.arange(0, numtaps)
    h *= special.i0(beta * np.sqrt(1 - ((n - alpha) / alpha) ** 2.0)) / special.i0(float(beta))
    return h / np.sum(h)
