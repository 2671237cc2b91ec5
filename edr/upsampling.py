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

import numba
import numpy as np

from edr.dsp.filters import firwin_kaiser

__all__ = ["COMPILED_MAX_ROWS", "MARGIN", "neighbourhoods_upsampled", "polyphase_taps"]

MARGIN = 12
"""Original samples read beyond the fine samples asked for, either side: the polyphase filter's
half-length (10 samples at any factor) and two more, so that its zero padding never reaches them."""

COMPILED_MAX_ROWS = 128
"""Blocks of at most this many centres are summed by the compiled loop (:func:`_rows_compiled`),
larger ones by NumPy (:func:`_rows`): a stream's searches (16-40 s: 10-70 beats) are faster
compiled (the fewer the beats, the more NumPy's per-call cost weighs), while the offline
detection's blocks (a record's beats, hundreds to 2000) are as fast in NumPy, so that an
offline command never compiles or loads the loop (the measurements:
``docs/studies/stream_design.md``)."""


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


def _padded_length(h: int, j0: int, n_fine: int, n_taps: int, up: int) -> int:
    """Samples of one zero-padded segment: ``n_taps // up - 1`` zeros before the ``2 h + 1``
    samples, and zeros after them up to the original sample that fine sample ``j0 + n_fine - 1``
    reads."""
    return n_taps // up - 1 + max(2 * h + 1, (j0 + n_fine - 1) // up + 1)


def _rows(x, centres, h, first, taps, up, skip, out):
    """``out[i, k]``: fine sample ``first + k`` of the ``2 h + 1`` samples around
    ``centres[i]`` (indices clipped to ``x``: its edge values beyond its ends) upsampled.

    Fine sample ``j`` is ``sum_p seg[j // up - P + 1 + p] * taps[(j % up) P + p]`` (``P`` taps
    per phase), summed in :func:`scipy.signal.upfirdn`'s order. The output columns of one
    phase read consecutive original samples, so each tap is one multiply-add of a slice of the
    segments for all rows at once (zero padded: a zero term leaves the sum as it was). The
    segments are held time-major (a sample of every row contiguous), so each multiply-add runs
    over one contiguous block into a buffer made once per phase, the same products added in the
    same order as row-major slices would (``docs/studies/fast_selection.md``). Nothing to
    compile (``docs/studies/first_run.md``); small blocks: :func:`_rows_compiled`.
    """
    per_phase = taps.size // up
    width = 2 * h + 1
    n_fine = out.shape[1]
    j0 = first + skip
    padded = np.zeros((_padded_length(h, first + skip, n_fine, taps.size, up), centres.size))
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


@numba.njit(cache=True, nogil=True)
def _rows_compiled(x, centres, h, first, taps, up, skip, padded, acc,
                   out):  # pragma: no cover - compiled
    """:func:`_rows` for a small block, one row at a time: the same products added in the same
    order, each phase's fine samples summed side by side (independent sums: the loop over them
    vectorises; no fast-math, so each sum keeps its order). ``padded`` (zeros, as long as
    :func:`_rows` pads one row) and ``acc`` (a phase's fine samples) come from the caller:
    nothing allocated here and no ``min``/``max`` builtins, each of which would compile an
    implementation of its own on a first run (``docs/studies/first_run.md``)."""
    last = x.size - 1
    per_phase = taps.size // up
    n_fine = out.shape[1]
    j0 = first + skip
    for i in range(centres.size):
        for c in range(2 * h + 1):
            src = centres[i] - h + c
            if src < 0:
                src = 0
            elif src > last:
                src = last
            padded[per_phase - 1 + c] = x[src]
        for k0 in range(up if up < n_fine else n_fine):
            phase, xi0 = (j0 + k0) % up, (j0 + k0) // up
            m = (n_fine - k0 + up - 1) // up
            for q in range(m):
                acc[q] = 0.0
            for p in range(per_phase):
                tap = taps[phase * per_phase + p]
                for q in range(m):
                    acc[q] = acc[q] + padded[xi0 + p + q] * tap
            for q in range(m):
                out[i, k0 + q * up] = acc[q]


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
    h = int(half) + MARGIN
    if centres.size <= COMPILED_MAX_ROWS:
        padded = np.zeros(_padded_length(h, MARGIN * up + skip, out.shape[1], taps.size, up))
        _rows_compiled(x, centres, h, MARGIN * up, taps, int(up), skip, padded,
                       np.empty(-(-out.shape[1] // up)), out)
    else:
        _rows(x, centres, h, MARGIN * up, taps, int(up), skip, out)
    return out
