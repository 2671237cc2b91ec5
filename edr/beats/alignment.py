"""Sub-sample alignment of the R peaks on their median template (see :mod:`edr.beats`, step 4).

Every beat is upsampled over R ± a half-width and cross-correlated (Pearson) with the median
template over a range of lags; the best lag is refined by a parabola, and the peak is carried to
the template's own (parabola-refined) maximum.
"""

from __future__ import annotations

import numba
import numpy as np

from edr.medians import median
from edr.upsampling import neighbourhoods_upsampled

__all__ = ["TEMPLATE_MAX_BEATS", "aligned_peaks"]

TEMPLATE_MAX_BEATS = 5000
"""At most this many beats, evenly spread, form the median alignment template."""
_ALIGN_BLOCK = 2000


def _parabola_offset(y_m, y_0, y_p):
    """Vertex offset (in samples, within ±0.5) of the parabola through three points."""
    den = y_m - 2.0 * y_0 + y_p
    with np.errstate(divide="ignore", invalid="ignore"):
        off = np.where(den < 0, 0.5 * (y_m - y_p) / den, 0.0)
    return np.clip(off, -0.5, 0.5)


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _lagged_dots(f, t, out):  # pragma: no cover - compiled
    """``out[i, k] = f[i, k:k + t.size] @ t`` (each sum vectorised: as a BLAS product, in an
    order of its own)."""
    m = t.size
    for i in range(f.shape[0]):
        for k in range(out.shape[1]):
            acc = 0.0
            for j in range(m):
                acc += f[i, k + j] * t[j]
            out[i, k] = acc


def _pearson_lags(fine: np.ndarray, template: np.ndarray, max_lag: int, windows=None):
    """Pearson correlation of each row with the template at lags -max_lag..max_lag.

    Numerator: the centred template against every window (a compiled loop);
    window norms from running sums of the row-centred signal. Memory O(rows × L).
    ``windows``: :func:`_window_norms` of ``fine`` for this template size, when known (they do
    not depend on the template).
    """
    f, norm = windows if windows is not None else _window_norms(fine, template.size)
    t = template - template.mean()
    t /= np.linalg.norm(t) or 1.0
    num = np.empty((f.shape[0], 2 * max_lag + 1))
    _lagged_dots(f, t, num)
    return num / norm


def _window_norms(fine: np.ndarray, m: int):
    """``(f, norm)``: the rows of ``fine`` centred (C-contiguous) and the norm of each row's
    centred windows of ``m`` samples (``inf`` for a flat window: correlation 0), as
    :func:`_pearson_lags` divides by them."""
    f = fine - fine.mean(axis=1, keepdims=True)  # lowers cancellation in the running sums
    c1 = np.zeros((f.shape[0], f.shape[1] + 1))
    c2 = np.zeros_like(c1)
    np.cumsum(f, axis=1, out=c1[:, 1:])
    np.cumsum(f * f, axis=1, out=c2[:, 1:])
    s1 = c1[:, m:] - c1[:, :-m]
    s2 = c2[:, m:] - c2[:, :-m]
    norm = np.sqrt(np.maximum(s2 - s1 * s1 / m, 0.0))
    norm[norm <= 1e-12 * np.sqrt(np.maximum(s2, 1e-300))] = np.inf  # flat window: correlation 0
    return np.ascontiguousarray(f), norm


def aligned_peaks(x: np.ndarray, fs: float, peaks: np.ndarray, *, up: int, half_s: float,
                  max_lag_s: float, shift: bool, template: np.ndarray | None = None):
    """Sub-sample peak positions, template correlations and the template (see
    :mod:`edr.beats`).

    Beats are upsampled in blocks of ``_ALIGN_BLOCK`` (memory bounded for a
    whole-day lead); the median template is built from at most
    :data:`TEMPLATE_MAX_BEATS` evenly spread beats (all of them below that), unless
    ``template`` is given (one correlation pass against it instead of two against the
    beats' own median). The template: each beat's window at its lag, gathered as whole rows of
    the windows' view, and the median of each column (:func:`edr.medians.median`: NumPy's
    values).
    """
    half = max(int(round(half_s * fs)), 2)
    lag = max(int(round(max_lag_s * fs)), 1)
    tw = half * up  # template half-width (fine samples)
    max_lag = lag * up if shift else 0
    n = peaks.size
    sub = (np.arange(n) if n <= TEMPLATE_MAX_BEATS
           else np.unique(np.linspace(0, n - 1, TEMPLATE_MAX_BEATS).round().astype(int)))
    cache = {}

    def fine_of(idx_key, p):
        if idx_key in cache:
            return cache[idx_key]
        f = neighbourhoods_upsampled(x, p, up, half + lag + 1)  # beats as rows, R centred
        if n <= _ALIGN_BLOCK:  # small records: keep the upsampled beats between passes
            cache[idx_key] = f
        return f

    sub_key = 0 if sub.size == n and n <= _ALIGN_BLOCK else "sub"

    def template_of(lags_sub):
        f = fine_of(sub_key, peaks[sub])
        c = f.shape[1] // 2
        windows = np.lib.stride_tricks.sliding_window_view(f, 2 * tw + 1, axis=1)  # rows gathered
        return median(windows[np.arange(sub.size), c - tw + lags_sub], axis=0)  # sorted columns

    if template is not None and template.size != 2 * tw + 1:
        raise ValueError(f"template must have {2 * tw + 1} samples, got {template.size}")
    given = template is not None
    lags = np.zeros(n, dtype=int)
    corr = np.empty((n, 2 * max_lag + 1))
    norms = {}  # small records: each block's window norms, the same in both passes
    for _ in range(1 if given else 2):
        template = template if given else template_of(lags[sub])
        for lo in range(0, n, _ALIGN_BLOCK):
            f = fine_of(lo, peaks[lo:lo + _ALIGN_BLOCK])
            c = f.shape[1] // 2
            f = f[:, c - tw - max_lag: c + tw + max_lag + 1]
            windows = norms.get(lo) or _window_norms(f, 2 * tw + 1)
            if n <= _ALIGN_BLOCK:
                norms[lo] = windows
            corr[lo:lo + _ALIGN_BLOCK] = _pearson_lags(f, template, max_lag, windows)
        best = np.argmax(corr, axis=1)
        lags = best - max_lag
    rows = np.arange(n)
    k = np.clip(best, 1, corr.shape[1] - 2) if max_lag else best
    frac = (_parabola_offset(corr[rows, k - 1], corr[rows, k], corr[rows, k + 1])
            if max_lag else np.zeros(n))
    frac = np.where((best == 0) | (best == corr.shape[1] - 1), 0.0, frac)
    tcorr = corr[rows, best]
    if not shift:
        return peaks.astype(float), tcorr, template
    j = int(np.argmax(template))
    t0 = j - tw
    if 0 < j < template.size - 1:
        t0 += float(_parabola_offset(template[j - 1], template[j], template[j + 1]))
    refined = peaks + (lags + frac + t0) / up
    return refined, tcorr, template
