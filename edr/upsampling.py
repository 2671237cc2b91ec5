"""The fine samples of :func:`scipy.signal.resample_poly` (``resample_poly(seg, up, 1)``), only
those asked for.

Reading a beat at a sub-sample position (:func:`edr.modulation.sample_at`) needs two fine
samples around it, and aligning a beat to a template (:func:`edr.beats.detect`) the fine samples
of the template's width and lags around R, half of what resampling the beat's whole neighbourhood
computes. Each fine sample is summed here from the same polyphase filter, in the same order, as
:func:`scipy.signal.upfirdn` sums it inside ``resample_poly`` (Kaiser window, beta 5, zero
padding): the same values (``tests/edr/test_upsampling.py``).
"""

from __future__ import annotations

import functools

import numpy as np

from edr.dsp.filters import firwin_kaiser

__all__ = ["MARGIN", "neighbourhoods_upsampled", "polyphase_taps"]

MARGIN = 12
"""Original samples read beyond the fine samples asked for, either side: the polyphase filter's
half-length (10 samples at any factor) and two more, so that its zero padding never reaches them."""


@functools.lru_cache(maxsize=8)
def polyphase_taps(up: int) -> tuple[np.ndarray, int]:
    """The filter of ``resample_poly(x, up, 1)`` (``firwin`` with a Kaiser window, beta 5, times
    ``up``, one leading zero), split into its ``up`` phases, each reversed, as
    :func:`scipy.signal.upfirdn` applies it; and the leading output samples it drops. ``up >=
    2``."""
    half_len = 10 * up
    h = np.concatenate([[0.0], firwin_kaiser(2 * half_len + 1, 1.0 / up, 5.0) * up])
    h = np.concatenate([h, np.zeros(-h.size % up)])
    taps = np.ascontiguousarray(h.reshape(-1, up).T[:, ::-1].ravel())
    taps.flags.writeable = False
    return taps, half_len + 1


def _rows(x, centres, h, first, taps, up, skip, out):
    """``out[i, k]``: fine sample ``first + k`` of the ``2 h + 1`` samples around
    ``centres[i]`` (indices clipped to ``x``: its edge values beyond its ends) upsampled.

    Fine sample ``j`` is ``sum_p seg[j // up - P + 1 + p] * taps[(j % up) P + p]`` (``P`` taps
    per phase), summed in :func:`scipy.signal.upfirdn`'s order. The output columns of one
    phase read consecutive original samples, so each tap is one multiply-add of a slice of the
    segments for all rows at once (zero padded: a zero term leaves the sum as it was). The
    segments are held time-major (a sample of every row contiguous), so each multiply-add runs
    over one contiguous block into a buffer made once per phase: ~1.8x faster than row-major
    slices on the alignment's blocks, the same products added in the same order. Faster than the
    compiled loop it replaced, and nothing to compile (``docs/studies/first_run.md``).
    """
    per_phase = taps.size // up
    width = 2 * h + 1
    n_fine = out.shape[1]
    j0 = first + skip
    padded = np.zeros((per_phase - 1 + max(width, (j0 + n_fine - 1) // up + 1), centres.size))
    padded[per_phase - 1:per_phase - 1 + width] = x[
        np.clip(centres[None, :] + np.arange(-h, h + 1)[:, None], 0, x.size - 1)]
    for k0 in range(min(up, n_fine)):
        phase, xi0 = (j0 + k0) % up, (j0 + k0) // up
        m = len(range(k0, n_fine, up))
        acc = np.zeros((m, centres.size))
        product = np.empty_like(acc)
        for p, tap in enumerate(taps[phase * per_phase:(phase + 1) * per_phase]):
            acc += np.multiply(padded[xi0 + p:xi0 + p + m], tap, out=product)
        out[:, k0::up] = acc.T


def neighbourhoods_upsampled(x: np.ndarray, centres: np.ndarray, up: int,
                             half: int) -> np.ndarray:
    """``resample_poly(x[c - h : c + h + 1], up, 1)`` for each centre ``c`` of ``centres``, with
    ``h = half +`` :data:`MARGIN` (indices clipped to ``x``: its edge values beyond its ends), its
    fine samples within ``half * up`` of the centre only: shape ``(centres.size, 2 half up + 1)``,
    row centre the centre sample. ``up = 1`` gives the samples themselves."""
    x = np.ascontiguousarray(x, dtype=float)
    centres = np.ascontiguousarray(centres, dtype=np.int64)
    if up == 1:
        idx = np.clip(centres[:, None] + np.arange(-half, half + 1)[None, :], 0, x.size - 1)
        return x[idx]
    taps, skip = polyphase_taps(int(up))
    out = np.empty((centres.size, 2 * half * up + 1))
    _rows(x, centres, int(half) + MARGIN, MARGIN * up, taps, int(up), skip, out)
    return out
