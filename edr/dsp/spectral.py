"""Welch's averaged periodograms as :mod:`scipy.signal` computes them (``welch``, ``csd``,
``coherence`` with a periodic Hann window, half overlap, each segment demeaned, one-sided
densities), without importing it; every segment of every row transformed at once
(``tests/edr/test_dsp_spectral.py`` compares them to SciPy)."""

from __future__ import annotations

import functools

import numpy as np
from scipy import fft as sp_fft

__all__ = ["coherence", "csd", "density_window", "hann", "welch"]


def hann(n: int) -> np.ndarray:
    """``scipy.signal.get_window("hann", n)``: the periodic Hann window (SciPy's cosine sum on
    ``n + 1`` points, the last dropped).

    See Also
    --------
    density_window

    Examples
    --------
    >>> from edr.dsp.spectral import hann
    >>> hann(4)
    array([0. , 0.5, 1. , 0.5])
    """
    if n <= 1:
        return np.ones(n)
    fac = np.linspace(-np.pi, np.pi, n + 1)
    return (0.5 * np.cos(0 * fac) + 0.5 * np.cos(1 * fac))[:-1]


@functools.lru_cache(maxsize=16)
def density_window(nperseg: int, fs: float) -> np.ndarray:
    """The periodic Hann window of ``nperseg`` scaled so that a segment's squared spectrum is a
    density at ``fs`` (``sum(win^2) / T``, as :func:`scipy.signal.welch` scales it), made once
    per length and rate (read-only).

    See Also
    --------
    hann, welch

    Examples
    --------
    >>> import numpy as np
    >>> from edr.dsp.spectral import density_window
    >>> bool(np.isclose(np.sum(density_window(64, 4.0) ** 2), 1 / 4.0))
    True
    """
    win = hann(nperseg)
    win = win * (1 / np.sqrt(sum(win * win) / (1 / fs)))
    win.flags.writeable = False
    return win


def _segment_spectra(x: np.ndarray, fs: float, nperseg: int) -> np.ndarray:
    """The windowed spectra of the demeaned half-overlapping segments of each row of ``x``,
    shaped ``x.shape[:-1] + (n_segments, nperseg // 2 + 1)``."""
    win = density_window(nperseg, float(fs))
    hop = nperseg - nperseg // 2
    n = (x.shape[-1] - nperseg // 2) // hop
    if x.ndim == 1:  # a strided view of the segments, one copy demeaned and windowed in place
        segs = np.lib.stride_tricks.sliding_window_view(x, nperseg)[::hop][:n]
        spec = segs - segs.mean(axis=1, keepdims=True)
        spec *= win
        return sp_fft.rfft(spec, axis=-1)
    segs = x[..., (np.arange(n) * hop)[:, None] + np.arange(nperseg)[None, :]].reshape(-1, nperseg)
    spec = sp_fft.rfft((segs - segs.mean(axis=1, keepdims=True)) * win, axis=-1)
    return spec.reshape(*x.shape[:-1], n, -1)


def _one_sided_mean(p: np.ndarray, nperseg: int) -> np.ndarray:
    """The segments' periodograms ``p`` (segments on the second-to-last axis) made one-sided
    (doubled but at 0 Hz and Nyquist) and averaged."""
    p[..., 1:-1 if nperseg % 2 == 0 else None] *= 2
    return np.ascontiguousarray(np.swapaxes(p, -1, -2)).mean(axis=-1)


def welch(x, fs: float, nperseg: int):
    """``scipy.signal.welch(row, fs=fs, nperseg=nperseg)`` of each row of ``x``.

    Parameters
    ----------
    x : array_like
        Series along the last axis, finite.
    fs : float
        Sampling rate in Hz.
    nperseg : int
        Segment length (the series' length when it is shorter, as SciPy does).

    Returns
    -------
    f : ndarray
        Frequencies, ``nperseg // 2 + 1`` of them.
    pxx : ndarray
        Power spectral densities, shaped like ``x`` with its last axis the frequencies.

    See Also
    --------
    csd, coherence, edr.spectra.welch_in_blocks

    References
    ----------
    .. [1] P. D. Welch, "The use of fast Fourier transform for the estimation of power spectra,"
       IEEE Trans. Audio Electroacoust. 15(2), 70-73, 1967 (eq. 3, the averaged periodogram).

    Examples
    --------
    >>> import numpy as np
    >>> from edr.dsp.spectral import welch
    >>> t = np.arange(480) / 4.0
    >>> f, p = welch(np.sin(2 * np.pi * 0.25 * t), 4.0, 64)
    >>> float(f[np.argmax(p)])
    0.25
    """
    x = np.asarray(x, dtype=float)
    nperseg = min(int(nperseg), x.shape[-1])
    spec = _segment_spectra(x, fs, nperseg)
    return (sp_fft.rfftfreq(nperseg, d=1.0 / fs),
            _one_sided_mean(spec.real ** 2 + spec.imag ** 2, nperseg))


def csd(x, y, fs: float, nperseg: int):
    """``scipy.signal.csd(x, y, fs=fs, nperseg=nperseg)``: Welch's cross-spectral density of two
    series of one length (``conj(X) Y``).

    Parameters
    ----------
    x, y : array_like, 1-D
        Finite series of one length.
    fs : float
        Sampling rate in Hz.
    nperseg : int
        Segment length (at most the length).

    Returns
    -------
    f : ndarray
        Frequencies.
    pxy : ndarray of complex
        Cross-spectral density.

    See Also
    --------
    welch, coherence

    Examples
    --------
    >>> import numpy as np
    >>> from edr.dsp.spectral import csd, welch
    >>> x = np.random.default_rng(0).standard_normal(256)
    >>> bool(np.allclose(csd(x, x, 4.0, 64)[1].real, welch(x, 4.0, 64)[1]))
    True
    """
    xy = np.stack([np.asarray(x, dtype=float), np.asarray(y, dtype=float)])
    nperseg = min(int(nperseg), xy.shape[-1])
    spec = _segment_spectra(xy, fs, nperseg)
    return (sp_fft.rfftfreq(nperseg, d=1.0 / fs),
            _one_sided_mean(np.conjugate(spec[0]) * spec[1], nperseg))


def coherence(x, y, fs: float, nperseg: int):
    """``scipy.signal.coherence(x, y, fs=fs, nperseg=nperseg)``: the magnitude-squared coherence
    ``|Pxy|^2 / (Pxx Pyy)`` from Welch's estimates.

    Parameters
    ----------
    x, y : array_like, 1-D
        Finite series of one length.
    fs : float
        Sampling rate in Hz.
    nperseg : int
        Segment length (at most the length).

    Returns
    -------
    f : ndarray
        Frequencies.
    cxy : ndarray
        Coherence in ``[0, 1]`` (NaN where a series has no power).

    See Also
    --------
    edr.similarity.msc

    References
    ----------
    .. [1] G. C. Carter, "Coherence and time delay estimation," Proc. IEEE 75(2), 236-255, 1987
       (eq. 2, the magnitude-squared coherence).

    Examples
    --------
    >>> import numpy as np
    >>> from edr.dsp.spectral import coherence
    >>> x = np.random.default_rng(0).standard_normal(256)
    >>> bool(np.allclose(coherence(x, 2 * x, 4.0, 64)[1], 1.0))
    True
    """
    xy = np.stack([np.asarray(x, dtype=float), np.asarray(y, dtype=float)])
    nperseg = min(int(nperseg), xy.shape[-1])
    spec = _segment_spectra(xy, fs, nperseg)
    pxx = _one_sided_mean(spec.real ** 2 + spec.imag ** 2, nperseg)
    pxy = _one_sided_mean(np.conjugate(spec[0]) * spec[1], nperseg)
    return sp_fft.rfftfreq(nperseg, d=1.0 / fs), np.abs(pxy) ** 2 / pxx[0] / pxx[1]
