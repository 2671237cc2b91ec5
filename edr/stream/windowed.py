"""The re-analysing stream path: :class:`WindowedPath`, every method key and lead mode.

At each update the stream's span (every channel, mains notched) is analysed as the offline
pipeline analyses one window (:meth:`edr.stream.engine.StreamingEDR.analysis`: the method on every
lead, the lead fusion, the evidence panel and its weights), with the beats tracked incrementally.
The window's grid series is standardised over its grid points near a used beat and sign-aligned
with the EDR already written, as :class:`edr.stitch.Stitcher` does; the points not yet emitted
take the new window's values, which see the most ECG after them (a raised-cosine cross-fade from
the previous window's over the :data:`FADE_S` after the emission point keeps the series
continuous); the trailing :data:`BANDPASS_S` seconds are band-passed as offline
(:func:`edr.stitch.masked_bandpass`) and the grid points up to the delay are emitted. Each rate
window is judged by the panel of the update at its end (:func:`edr.rates.judged_rates`), its rate
searched below what the update's beats carry, as offline
(:meth:`edr.rates.RateSpan.on_stretch`). The default method streams by projection instead
(:mod:`edr.stream.projected`): a window's values near its end carry its band-pass's edge
transient, which the emission delay cannot outwait (``docs/design.md#8-streaming``).
"""

from __future__ import annotations

import numpy as np

from edr.errors import SignalError
from edr.rates import MAX_DROPPED_SHARE, RateSpan, judged_rates, window_starts
from edr.signal import RATE_WINDOW_S
from edr.stitch import masked_bandpass, standardised_window, window_sign

__all__ = ["BANDPASS_S", "FADE_S", "WindowedPath"]

BANDPASS_S = 240.0
"""Trailing stitched EDR (s) band-passed at each update."""
FADE_S = 1.5
"""Raised-cosine ramp (s) after the emission point over which a new window's values take over
from the previous window's; beyond it the newest window's values stand."""


class WindowedPath:
    """The emission state of a re-analysing stream (module docstring).

    Parameters
    ----------
    engine : edr.stream.engine.StreamingEDR
        The stream whose ring buffer, beats, mains lines and kernel widths it reads.
    """

    def __init__(self, engine):
        self.engine = engine
        self._hist_n = int(round(BANDPASS_S * engine.fs_out))
        self._raw = np.zeros(self._hist_n)  # stitched, not band-passed, grid points < k_emit
        self._covered = np.zeros(self._hist_n, dtype=bool)
        self.k_emit = 0  # next grid index to emit
        self._prev = None  # previous window: (first grid index, standardised series, near-beat)
        self._rate_next = 0  # index of the next rate window to report

    def update(self, final: bool):
        """One update: ``(edr_time, edr, rate_time, rate_bpm, quality, reselected, status)``."""
        eng = self.engine
        n = eng.n_samples
        t_end = n / eng.fs
        n_win = min(n, eng.ring.cap)
        t0 = (n - n_win) / eng.fs
        idx = eng.grid_indices(n_win)
        k0, k_last = int(idx[0]), int(idx[-1])
        grid = idx / eng.fs_out - t0
        due = eng.schedule_due(t_end, n_win)
        select = eng.kernel and (due or not eng.sigma2)
        wa, status = self._analyse(n_win, grid, select, due)
        reselected = wa is not None and select
        if wa is not None:
            self._write(wa, k0, grid)
        k_target = eng.emission_end(final)
        wave, covered, kb = self._stitched(k_last + 1)
        bp = masked_bandpass(wave, covered, eng.fs_out)
        rt, rb, rq = self._rates(bp, kb, k_last, wa, k0)
        k_emit = self.k_emit
        k_target = max(k_target, k_emit)
        emitted = bp[k_emit - kb:k_target - kb]
        self._freeze(wave[k_emit - kb:k_target - kb], covered[k_emit - kb:k_target - kb])
        return np.arange(k_emit, k_target) / eng.fs_out, emitted, rt, rb, rq, reselected, status

    def _analyse(self, n_win: int, grid: np.ndarray, select: bool, due: bool):
        """``(WindowAnalysis or None, status)`` of the last ``n_win`` samples."""
        eng = self.engine
        span = eng.ring.last(n_win)
        leads, beats, errors = {}, {}, []
        for name in eng.analysed:
            row = eng.notched(name, span, span.shape[1], due)
            try:
                beats[name] = eng.beats[name].update(row, eng.n_samples)
            except SignalError as exc:
                errors.append(f"{name}: {str(exc).splitlines()[0]}")
                continue
            leads[name] = row
        if not leads:
            return None, "no analysis: " + "; ".join(errors)
        return eng.analysis(leads, beats, grid, select)

    def _write(self, wa, k0: int, grid: np.ndarray) -> None:
        """Standardise and sign-align the window's series (as :class:`edr.stitch.Stitcher`) and
        keep it as the values of the grid points not yet emitted."""
        gm = wa.grid_mask
        tg = grid[gm]
        kw = k0 + np.flatnonzero(gm)
        seg = wa.segment
        z, ok, _, _ = standardised_window(wa, tg)
        if not ok.any():
            return
        written, have = self._written(kw)
        z *= window_sign(z, written, have & ok, seg, tg,
                         self.engine.opts.spec.sign_reference is not None)
        self._prev = (int(kw[0]), z, ok) if self._prev is None else self._faded(kw, z, ok)

    def _written(self, kw):
        """Stitched values already held at the grid indices ``kw`` and whether there are any."""
        vals = np.zeros(kw.size)
        have = np.zeros(kw.size, dtype=bool)
        k_hist = self.k_emit - self._hist_n
        h = (kw >= k_hist) & (kw < self.k_emit)
        vals[h] = self._raw[kw[h] - k_hist]
        have[h] = self._covered[kw[h] - k_hist]
        if self._prev is not None:
            p0, pz, pok = self._prev
            j = kw - p0
            p = (kw >= self.k_emit) & (j >= 0) & (j < pz.size)
            vals[p] = pz[j[p]]
            have[p] = pok[j[p]]
        return vals, have

    def _faded(self, kw, z, ok):
        """The new window's values, cross-faded from the previous window's over the
        :data:`FADE_S` after the emission point (where both cover a grid point)."""
        p0, pz, pok = self._prev
        j = kw - p0
        shared = (kw >= self.k_emit) & (j < pz.size) & ok
        shared[shared] &= pok[j[shared]]
        if shared.any():
            ramp_n = max(int(round(FADE_S * self.engine.fs_out)), 1)
            r = np.clip((kw[shared] - self.k_emit + 1) / (ramp_n + 1), 0.0, 1.0)
            w = 0.5 - 0.5 * np.cos(np.pi * r)
            z = z.copy()
            z[shared] = (1 - w) * pz[j[shared]] + w * z[shared]
        return int(kw[0]), z, ok

    def _stitched(self, k_end: int):
        """(values, covered, first grid index) of the stitched EDR over the band-pass buffer:
        the emitted history then the held values of the points up to ``k_end``."""
        kb = self.k_emit - self._hist_n
        n = k_end - kb
        wave = np.zeros(n)
        covered = np.zeros(n, dtype=bool)
        wave[:self._hist_n] = self._raw
        covered[:self._hist_n] = self._covered
        if self._prev is not None:
            p0, pz, pok = self._prev
            k = np.arange(max(self.k_emit, p0), min(k_end, p0 + pz.size))
            wave[k - kb] = pz[k - p0]
            covered[k - kb] = pok[k - p0]
        start = max(0, -kb)  # grid indices before 0 do not exist
        return wave[start:], covered[start:], kb + start

    def _rates(self, bp, kb: int, k_last: int, wa, k0: int):
        """Centres, judged rates and qualities of the rate windows that end by ``k_last``."""
        fs_out = self.engine.fs_out
        starts = window_starts(k_last + 1, fs_out)[self._rate_next:]
        self._rate_next += starts.size
        if not starts.size:
            return np.empty(0), np.empty(0), np.empty(0)
        win, count, g0 = int(round(RATE_WINDOW_S * fs_out)), starts.size, int(starts[0])
        centres = (starts + win / 2) / fs_out
        if g0 < kb or wa is None:  # before the buffer (a long silence), or no analysis
            return centres, np.full(count, np.nan), np.zeros(count)
        wave = bp[g0 - kb:int(starts[-1]) - kb + win]
        idx = np.flatnonzero(wa.grid_mask)
        a = k0 + int(idx[0]) - g0  # the panel's first point in ``wave``'s indices
        seg = wa.segment
        span = RateSpan.on_stretch(a, idx.size, wa.panel, wa.weights, seg, fs_out)
        rates = judged_rates(wave, np.arange(wave.size) / fs_out, [span], fs_out)
        bpm = rates.rate_bpm[:count]
        if (~seg.valid).sum() > MAX_DROPPED_SHARE * seg.valid.size:
            bpm = np.full(count, np.nan)
        return centres, bpm, rates.quality[:count]

    def _freeze(self, raw, covered) -> None:
        """Move the emitted points into the history (the last :data:`BANDPASS_S` seconds)."""
        m = raw.size
        if m == 0:
            return
        if m >= self._hist_n:
            self._raw, self._covered = raw[-self._hist_n:].copy(), covered[-self._hist_n:].copy()
        else:
            self._raw = np.concatenate([self._raw[m:], raw])
            self._covered = np.concatenate([self._covered[m:], covered])
        self.k_emit += m
        if self._prev is not None and self._prev[0] + self._prev[1].size <= self.k_emit:
            self._prev = None
