"""SciPy's forward-backward filters with each filter's initial conditions solved once.

:func:`scipy.signal.sosfiltfilt` and :func:`scipy.signal.filtfilt` (``method="pad"``, odd
extension) solve for the filter's step-response steady state (``sosfilt_zi``, ``lfilter_zi``: a
linear system per section) at every call, a cost that dominates on the few seconds of ECG a
stream cleans at each update (``docs/studies/stream_projection.md``). :func:`sosfiltfilt` and
:func:`filtfilt` take the same steps in the same order, with the steady state cached per set of
coefficients, so their output is bit-identical to SciPy's (``tests/edr/test_zero_phase.py``).
Both filter along the last axis. The two passes of second-order sections run in one compiled loop
(SciPy's recurrence, operation for operation), those of a recursive ``(b, a)`` in another (SciPy's
``lfilter`` loop), and a moving average's in one NumPy convolution per pass (SciPy's ``lfilter``
for a one-coefficient denominator): SciPy's wrappers cost more than the filtering on a few seconds
of ECG, and importing :mod:`scipy.signal` costs 1-2 s (``docs/studies/import_diet.md``; it is
imported only for SciPy's own errors, no padding, and complex or integer series).
"""

from __future__ import annotations

import functools

import numba
import numpy as np

from edr.dsp.filters import lfilter_zi, sosfilt_zi

__all__ = ["filtfilt", "sosfiltfilt"]


@functools.lru_cache(maxsize=64)
def _sos_zi(key: bytes, n_sections: int) -> np.ndarray:
    zi = sosfilt_zi(np.frombuffer(key).reshape(n_sections, 6))
    zi.flags.writeable = False
    return zi


@functools.lru_cache(maxsize=64)
def _ba_zi(b_key: bytes, a_key: bytes) -> np.ndarray:
    zi = lfilter_zi(np.frombuffer(b_key), np.frombuffer(a_key))
    zi.flags.writeable = False
    return zi


@numba.njit(cache=True, nogil=True)
def _sos_forward_backward(sos, zi, x, z):  # pragma: no cover - compiled
    """Each row of ``x`` (C-contiguous, filtered in place) through the sections ``sos`` forwards,
    then backwards, each pass started from ``zi`` times its first sample: SciPy's ``sosfilt``
    (transposed direct form II, the same operations in the same order) twice. ``z`` (``(n_sections,
    2)``) holds the state: allocated by the caller, so nothing here compiles NumPy's allocation."""
    n_sections = sos.shape[0]
    rows, n = x.shape
    for r in range(rows):
        for backwards in (False, True):
            first = x[r, n - 1] if backwards else x[r, 0]
            for s in range(n_sections):
                z[s, 0] = zi[s, 0] * first
                z[s, 1] = zi[s, 1] * first
            for k in range(n):
                i = n - 1 - k if backwards else k
                cur = x[r, i]
                for s in range(n_sections):
                    new = sos[s, 0] * cur + z[s, 0]
                    z[s, 0] = sos[s, 1] * cur - sos[s, 4] * new + z[s, 1]
                    z[s, 1] = sos[s, 2] * cur - sos[s, 5] * new
                    cur = new
                x[r, i] = cur


@numba.njit(cache=True, nogil=True)
def _ba_forward_backward(b, a, zi, x, z):  # pragma: no cover - compiled
    """Each row of ``x`` (C-contiguous, filtered in place) through ``(b, a)`` (normalised by
    ``a[0]``, of one length ``>= 2``) forwards, then backwards, each pass started from ``zi``
    times its first sample: SciPy's ``lfilter`` (its C loop: transposed direct form II, the same
    operations in the same order) twice. ``z`` (``m - 1`` values) holds the state."""
    m = b.size
    rows, n = x.shape
    for r in range(rows):
        for backwards in (False, True):
            first = x[r, n - 1] if backwards else x[r, 0]
            for s in range(m - 1):
                z[s] = zi[s] * first
            for k in range(n):
                i = n - 1 - k if backwards else k
                xn = x[r, i]
                yn = z[0] + b[0] * xn
                for s in range(m - 2):
                    z[s] = z[s + 1] + xn * b[s + 1] - yn * a[s + 1]
                z[m - 2] = xn * b[m - 1] - yn * a[m - 1]
                x[r, i] = yn


def _fir_pass(b: np.ndarray, zi: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``scipy.signal.lfilter(b, [1.0], x, zi=zi * x[..., :1])[0]`` for a float ``x`` (rows along
    the last axis): SciPy's convolution path with its steps."""
    rows = x.reshape(-1, x.shape[-1])
    out = np.empty(rows.shape)
    for r, row in enumerate(rows):
        full = np.convolve(b, row)
        full[:zi.size] += zi * row[0]
        out[r] = full[:row.size]
    return out.reshape(x.shape)


def _odd_extended(x: np.ndarray, edge: int) -> np.ndarray:
    """``scipy.signal._arraytools.odd_ext(x, edge)`` along the last axis."""
    left_end, right_end = x[..., :1], x[..., -1:]
    left_ext = x[..., edge:0:-1]
    right_ext = x[..., -2:-(edge + 2):-1]
    return np.concatenate((2 * left_end - left_ext, x, 2 * right_end - right_ext), axis=-1)


def sosfiltfilt(sos: np.ndarray, x: np.ndarray, padlen: int | None = None) -> np.ndarray:
    """``scipy.signal.sosfiltfilt(sos, x, padlen=padlen)`` (odd padding) along the last axis of a
    float array, bit for bit; ``sosfilt_zi(sos)`` is solved once per ``sos``."""
    sos = np.array(sos, dtype=float)  # a float copy (the cached designs are read-only)
    x = np.asarray(x)
    n_sections = sos.shape[0]
    ntaps = 2 * n_sections + 1 - min(int((sos[:, 2] == 0).sum()), int((sos[:, 5] == 0).sum()))
    edge = 3 * ntaps if padlen is None else int(padlen)
    if x.ndim == 0 or x.shape[-1] <= edge or edge < 1 or not (sos[:, 3] == 1).all():
        from scipy import signal  # SciPy's own error, or no padding: off the default path

        return signal.sosfiltfilt(sos, x, padlen=padlen)
    ext = _odd_extended(np.asarray(x, dtype=float), edge)
    y = np.ascontiguousarray(ext.reshape(-1, ext.shape[-1]))
    _sos_forward_backward(sos, _sos_zi(sos.tobytes(), n_sections), y, np.empty((n_sections, 2)))
    return y.reshape(ext.shape)[..., edge:-edge]


def filtfilt(b, a, x: np.ndarray) -> np.ndarray:
    """``scipy.signal.filtfilt(b, a, x, method="pad")`` (default padding) along the last axis of
    a float array, bit for bit; ``lfilter_zi(b, a)`` is solved once per ``(b, a)``."""
    b = np.atleast_1d(np.asarray(b, dtype=float))
    a = np.atleast_1d(np.asarray(a, dtype=float))
    x = np.asarray(x)
    edge = 3 * max(len(a), len(b))
    if x.ndim == 0 or x.shape[-1] <= edge:
        from scipy import signal  # SciPy's own error: off the default path

        return signal.filtfilt(b, a, x, method="pad")
    ext = _odd_extended(x, edge)
    zi = _ba_zi(b.tobytes(), a.tobytes())
    if a.size == 1 and ext.dtype == float:
        taps = b / a[0]
        y = _fir_pass(taps, zi, ext)
        return _fir_pass(taps, zi, y[..., ::-1])[..., ::-1][..., edge:-edge]
    if a[0] == 0.0 or ext.dtype != float:
        from scipy import signal  # SciPy's own error, or a complex series: off the default path

        zi = zi.reshape([1] * (x.ndim - 1) + [zi.size])
        y, _ = signal.lfilter(b, a, ext, zi=zi * ext[..., :1])
        y, _ = signal.lfilter(b, a, y[..., ::-1], zi=zi * y[..., -1:])
        return y[..., ::-1][..., edge:-edge]
    m = max(a.size, b.size)
    b_n = np.concatenate((b, np.zeros(m - b.size))) / a[0]
    a_n = np.concatenate((a, np.zeros(m - a.size))) / a[0]
    y = np.ascontiguousarray(ext.reshape(-1, ext.shape[-1]))
    _ba_forward_backward(b_n, a_n, np.ascontiguousarray(zi, dtype=float), y,
                         np.empty(b_n.size - 1))
    return y.reshape(ext.shape)[..., edge:-edge]
