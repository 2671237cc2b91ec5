"""Real-time EDR: :class:`StreamingEDR` and the ``python -m edr.stream`` command.

A stream of ECG samples is pushed in blocks of any size; every :data:`DEFAULT_HOP_S`
seconds of stream the analyser

1. detects R peaks with :func:`edr.beats.detect` on the last :data:`DETECT_CHUNK_S`
   seconds (overlapping chunks) and keeps the beats that lie at least
   :data:`GUARD_S` before the chunk's end and after the beats already kept
   (de-duplicated: no two beats closer than :data:`MIN_RR_S`);
2. builds an :class:`edr.methods.Segment` over the last ``span_s`` seconds (the
   ring buffer) with those beats and gets the method's series over it: for ``kpca``
   (tracker ``"project"``) a dense kernel PCA of the span's QRS matrix every
   :data:`REFIT_S` seconds with the new beats projected onto it in between; for other
   methods (tracker ``"refit"``) ``edr.methods.get_method(method).func`` on the span at
   every update. Kernel methods run at the stored σ², re-selected by the criterion only
   at start, when the span first fills, every :data:`RESELECT_S` seconds or when the
   quality drops below :data:`QUALITY_DROP` × its value at the last selection;
3. puts the series on the 4 Hz grid (:func:`edr.methods.series_on_grid`),
   band-passes it over the span (:func:`edr.signal.bandpass`), standardises it,
   aligns its sign with the EDR already emitted on the overlap (first time: with the
   R amplitude, like the offline pipeline) and emits the grid samples up to
   ``delay_s`` before the stream's end;
4. reports the rate of the trailing :data:`edr.signal.SEGMENT_S` s of emitted EDR
   (:func:`edr.signal.rate_series`) and its quality (spectral concentration × the
   fraction of those grid points near a used beat).

Memory is bounded by ``span_s`` (ECG ring buffer, beats, emitted history); nothing
grows with the stream's length. Latency: the EDR sample and the rate for stream time
``t`` are emitted by the update at stream time ``<= t + delay_s + hop_s`` (9 s with the
defaults). Design and measurements: ``docs/design.md#8-streaming``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time as _time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from edr.beats import MIN_BEATS, Beats, detect
from edr.errors import EDRError, SignalError
from edr.extract import parse_rate_hz, parse_sigma2
from edr.methods import Segment, check_sigma2, get_method, series_on_grid
from edr.signal import (
    BAND_HZ,
    FILTER_ORDER,
    FS_RANGE,
    GRID_FS,
    SEGMENT_S,
    bandpass,
    rate_series,
    spectral_concentration,
)

__all__ = ["StreamingEDR", "StreamUpdate", "DEFAULT_SPAN_S", "DEFAULT_HOP_S", "DEFAULT_DELAY_S",
           "DETECT_CHUNK_S", "GUARD_S", "RESELECT_S", "REFIT_S", "QUALITY_DROP", "TRACKERS", "main"]

DEFAULT_SPAN_S = 240.0
"""Analysis span (s): the ring buffer of ECG the method sees at each update."""
DEFAULT_HOP_S = 6.0
"""Stream time (s) between updates."""
DEFAULT_DELAY_S = 3.0
"""EDR is emitted up to this many seconds before the stream's end (spline, band-pass edge)."""
WARMUP_S = 30.0
"""Stream time (s) before the first update."""
DETECT_CHUNK_S = 24.0
"""Length (s) of the ECG chunk R peaks are detected on at each update."""
GUARD_S = 1.5
"""Beats closer than this (s) to a chunk's end wait for the next chunk."""
MIN_RR_S = 0.25
"""Two beats closer than this (s) are one beat seen in two chunks."""
RESELECT_S = 300.0
"""Longest stream time (s) between two σ² selections."""
QUALITY_DROP = 0.6
"""σ² is re-selected when the span's spectral concentration falls below this fraction of its
value at the last selection (at most every :data:`RESELECT_COOLDOWN_S`)."""
RESELECT_COOLDOWN_S = 60.0
MAX_GAP_S = 5.0
"""Grid points farther than this (s) from every used beat are emitted as 0."""
TRACKERS = ("project", "refit", "kha", "kha_smd")
"""How the component follows the stream (``docs/design.md#8-streaming``). ``"project"``
(``method="kpca"``): a dense kernel PCA of the span's beats at the stored σ² every
:data:`REFIT_S` seconds, the new beats of the updates in between projected onto it
(out-of-sample scores); ``"kha"`` (``method="kpca"``): the same refits, the component updated
beat by beat by the kernel Hebbian algorithm in between; ``"kha_smd"``: the same with the gain
adapted by Stochastic Meta-Descent (KHA-SMD, :class:`_KHASMDTracker`); ``"refit"`` (any method):
the method run on the whole span at every update."""
REFIT_S = 30.0
"""Stream time (s) between dense refits (trackers ``"project"``, ``"kha"``, ``"kha_smd"``)."""
TAIL_S = 40.0
"""ECG (s) whose QRS matrix gives the rows of the new beats between refits."""


@dataclass(frozen=True)
class StreamUpdate:
    """What one update adds.

    Attributes
    ----------
    time_s : float
        Stream time (s) of the update: samples pushed so far / ``fs``.
    edr_time, edr : ndarray
        The new EDR samples: grid times (s, multiples of ``1 / fs_out``) and values.
    rate_time_s : float
        End (s) of the trailing :data:`edr.signal.SEGMENT_S` s window the rate is
        measured on (the last EDR sample emitted so far).
    rate_bpm : float
        Spectral-peak rate (breaths/min); NaN before 32 s of EDR or without power.
    quality : float
        In [0, 1]: spectral concentration of that window × its fraction of grid
        points near a used beat.
    sigma2 : float or None
        Kernel width in use (kernel methods).
    reselected : bool
        Whether σ² was selected at this update.
    """

    time_s: float
    edr_time: np.ndarray
    edr: np.ndarray
    rate_time_s: float
    rate_bpm: float
    quality: float
    sigma2: float | None
    reselected: bool


class _Ring:
    """The last ``capacity`` samples of an unbounded stream (circular buffer)."""

    def __init__(self, capacity: int):
        self.buf = np.zeros(capacity)
        self.cap = capacity
        self.n_total = 0

    def append(self, x: np.ndarray) -> None:
        x = x[-self.cap:]
        i = self.n_total % self.cap
        k = min(x.size, self.cap - i)
        self.buf[i:i + k] = x[:k]
        self.buf[:x.size - k] = x[k:]
        self.n_total += x.size

    def last(self, n: int) -> np.ndarray:
        n = min(n, self.cap, self.n_total)
        i = self.n_total % self.cap
        if n <= i:
            return self.buf[i - n:i].copy()
        return np.concatenate([self.buf[self.cap - (n - i):], self.buf[:i]])


class _KHATracker:
    """First kernel principal component of a growing set of beats, updated beat by beat.

    The kernel Hebbian algorithm (Kim et al. 2005; Schraudolph et al. 2006, Eqs. (8)-(10),
    ``r = 1``): ``a <- a + eta (y e_p - y^2 a)``, ``y = a . k'_p``, with the centred kernel
    column ``k'_p`` of a beat against the beats held. For ``r = 1`` the KHA/et gain of
    Eq. (12) reduces to ``eta0 l / (t + l)``, which vanishes on an endless stream, so the gain is
    held at ``eta0 / lambda`` (the ``t = 0`` value, scaled by the eigenvalue estimate of Eq. (13)
    as in KHA/et) to keep tracking. Each new beat is visited, then ``sweeps`` held beats drawn at
    random. Started from the dense solution at every refit.
    """

    def __init__(self, X, a, sigma2: float, *, eta0: float = 0.05, sweeps: int = 4,
                 random_state=0):
        self.sigma2 = float(sigma2)
        self.eta0, self.sweeps = eta0, sweeps
        self.rng = np.random.default_rng(random_state)
        self.X, self.a = X.copy(), a.copy()
        self.K = self._kernel(X, X)

    def _kernel(self, Y, X):
        d = (Y * Y).sum(1)[:, None] + (X * X).sum(1)[None, :] - 2 * Y @ X.T
        return np.exp(-np.maximum(d, 0) / (2 * self.sigma2))

    def _centred(self):
        K = self.K
        cm = K.mean(0)
        return K - cm[None, :] - cm[:, None] + cm.mean()

    def add(self, rows: np.ndarray) -> None:
        for x in rows:
            k = self._kernel(x[None, :], self.X)[0]
            self.K = np.block([[self.K, k[:, None]], [k[None, :], np.ones((1, 1))]])
            self.X = np.vstack([self.X, x])
            self.a = np.append(self.a, 0.0)
            Kc = self._centred()
            n_held = self.a.size
            lam = max(float(self.a @ Kc @ Kc @ self.a) / n_held, 1e-12)  # Eq. (13), r = 1
            eta = self.eta0 / lam
            for p in [n_held - 1, *self.rng.integers(0, n_held, self.sweeps)]:
                y = float(self.a @ Kc[:, p])
                self.a *= 1.0 - eta * y * y
                self.a[p] += eta * y

    def scores(self) -> np.ndarray:
        return self._centred() @ self.a


class _KHASMDTracker(_KHATracker):
    """:class:`_KHATracker` with the gain adapted by Stochastic Meta-Descent (KHA-SMD).

    Schraudolph et al. 2006, Eqs. (15)-(21) and Algorithm 1 with ``r = 1`` (so
    ``lt(y y^T) = y^2``), in the order of the paper, at each visit of beat ``p``::

        y = a . k'_p,  z = b . k'_p                              (7)
        g = y k'_p - y^2 (a K')                                  (17)  (Gamma K')
        rho <- rho + mu g . b                                    (16)
        b <- zeta b + e^rho eta [(y + zeta z) e_p - y^2 (a + zeta b) - 2 y z a]   (21)
        a <- a + e^rho eta (y e_p - y^2 a)                       (15)
        a K' <- a K' + e^rho eta g                               (18)

    with the base gain ``eta`` of :class:`_KHATracker` (``eta0 / lambda``, the KHA/et gain held
    constant) and, as in the paper, the same ``eta0``, ``zeta = 0.99`` and a hand-set ``mu``.
    The paper assumes a fixed training set; on the stream the set grows by one beat at a time
    between refits, so: the new beat enters ``a`` and ``b`` with coefficient 0 (no history, as
    ``B_1 = 0``); ``a K'`` is recomputed exactly when the set (hence ``K'`` and its centring)
    changes, and updated by Eq. (18) between the visits of one beat; the log-gain ``rho``
    (``rho_0 = 1``, Algorithm 1 step 1(b)) is carried over the whole stream, refits included
    - it is what SMD learns about the stream - while ``b``, the derivative of ``a`` w.r.t. the
    log-gain, is reset to 0 at each refit, where ``a`` is re-initialised from the dense solution
    (Algorithm 1 step 1(c)). ``rho`` is clipped to ``[-RHO_MAX, RHO_MAX]`` so that the gain
    multiplier stays within ``e^(+-RHO_MAX)`` of KHA/et's on a stream that never ends.
    """

    RHO_MAX = 3.0

    def __init__(self, X, a, sigma2: float, *, eta0: float = 0.05, sweeps: int = 4,
                 mu: float = 1.0, zeta: float = 0.99, rho: float = 1.0, random_state=0):
        super().__init__(X, a, sigma2, eta0=eta0, sweeps=sweeps, random_state=random_state)
        self.mu, self.zeta, self.rho = float(mu), float(zeta), float(rho)
        self.b = np.zeros_like(self.a)

    def add(self, rows: np.ndarray) -> None:
        mu, zeta = self.mu, self.zeta
        for x in rows:
            k = self._kernel(x[None, :], self.X)[0]
            self.K = np.block([[self.K, k[:, None]], [k[None, :], np.ones((1, 1))]])
            self.X = np.vstack([self.X, x])
            self.a = np.append(self.a, 0.0)
            self.b = np.append(self.b, 0.0)
            Kc = self._centred()
            aK = Kc @ self.a  # K' symmetric: a K' as a vector
            n_held = self.a.size
            lam = max(float(aK @ aK) / n_held, 1e-12)  # as _KHATracker (Eq. (13), r = 1)
            eta = self.eta0 / lam
            for p in [n_held - 1, *self.rng.integers(0, n_held, self.sweeps)]:
                kp = Kc[:, p]
                y = float(self.a @ kp)
                z = float(self.b @ kp)
                g = y * kp - y * y * aK  # (17)
                self.rho = min(max(self.rho + mu * float(g @ self.b), -self.RHO_MAX),
                               self.RHO_MAX)  # (16)
                gain = math.exp(self.rho) * eta
                nb = zeta * self.b - gain * (y * y * (self.a + zeta * self.b)
                                             + 2.0 * y * z * self.a)  # (21)
                nb[p] += gain * (y + zeta * z)
                self.b = nb
                self.a *= 1.0 - gain * y * y  # (15)
                self.a[p] += gain * y
                aK += gain * g  # (18)

    def restart(self, X, a) -> None:
        """A refit: ``a`` from the dense solution, ``b = 0``; ``rho`` is kept."""
        self.X, self.a = X.copy(), a.copy()
        self.K = self._kernel(X, X)
        self.b = np.zeros_like(self.a)


class StreamingEDR:
    """Incremental EDR from a stream of ECG samples (see the module docstring).

    Parameters
    ----------
    fs : float
        ECG sampling rate (Hz), within :data:`edr.signal.FS_RANGE`.
    method : str, default "kpca"
        Key of :data:`edr.methods.METHODS`.
    sigma2 : float or str, default "mdd"
        Kernel width or :mod:`kpca.selection` criterion (kernel methods).
    span_s, hop_s, delay_s : float
        Analysis span, update period and emission delay (s); see the module docstring.
    fs_out : float, default :data:`edr.signal.GRID_FS`
    random_state : int, default 0
        Passed to the σ² criterion (deterministic output).
    reselect_s : float, default :data:`RESELECT_S`
    tracker : {"project", "refit", "kha", "kha_smd"}, optional
        See :data:`TRACKERS`; default "project" for ``kpca``, else "refit".
    lead : str, default "ECG"
        Lead name carried by the segments.
    **method_options
        Further options of the method (e.g. ``baseline``).

    Raises
    ------
    SignalError
        ``fs`` outside the supported range.
    ValueError
        Unknown method or tracker, bad ``sigma2``, spans.
    """

    def __init__(self, fs: float, *, method: str = "kpca", sigma2="mdd",
                 span_s: float = DEFAULT_SPAN_S, hop_s: float = DEFAULT_HOP_S,
                 delay_s: float = DEFAULT_DELAY_S, fs_out: float = GRID_FS, random_state: int = 0,
                 reselect_s: float = RESELECT_S, tracker: str | None = None,
                 refit_s: float = REFIT_S, lead: str = "ECG",
                 **method_options):
        fs, self.spec, tracker = self._checked_options(fs, method, sigma2, span_s, hop_s,
                                                       delay_s, tracker, method_options)
        if tracker != "refit":
            # the robust matrix's running-median high-pass does not survive out-of-sample
            # projection (docs/design.md#8-streaming): off unless asked for
            method_options.setdefault("robust", False)
        self.fs, self.method, self.sigma2_request = fs, method, sigma2
        self.span_s, self.hop_s, self.delay_s = float(span_s), float(hop_s), float(delay_s)
        self.fs_out, self.random_state = float(fs_out), random_state
        self.reselect_s, self.tracker, self.lead = float(reselect_s), tracker, lead
        self.refit_s = float(refit_s)
        self.method_options = dict(method_options)
        self._span_n = int(round(self.span_s * fs))
        self._hop_n = max(int(round(self.hop_s * fs)), 1)
        self._chunk_n = int(round(DETECT_CHUNK_S * fs))
        self._guard_n = int(round(GUARD_S * fs))
        self._ring = _Ring(self._span_n)
        self._next_at = int(round(WARMUP_S * fs))
        # beats kept (absolute sample positions) and their flags
        self._peaks = np.empty(0)
        self._flags = np.empty((0, 3), dtype=bool)  # valid, ectopic, clipped
        self._tcorr = np.empty(0)
        self._pol = np.empty(0)
        self._final_n = 0  # beats before this sample are final
        # emitted EDR history (the last span of it) for sign alignment and the rate
        self._next_k = 0
        hist = int(math.ceil(self.span_s * self.fs_out)) + 8
        self._hist_v = _Ring(hist)
        self._hist_near = _Ring(hist)
        # sigma2 state
        self.sigma2_ = None if not self.spec.uses_sigma2 else (
            float(sigma2) if not isinstance(sigma2, str) else None)
        self._by_criterion = self.spec.uses_sigma2 and isinstance(sigma2, str)
        self._last_select = -np.inf
        self._select_quality = 0.0
        self._span_full_selected = False
        self._force_select = False
        self._kha = None
        self._model = None
        self._last_refit = -np.inf
        self._bt = np.empty(0)
        self._bv = np.empty(0)
        self.n_refits = 0
        self._sos = None
        self._closed = False
        self.n_selections = 0
        self.n_updates = 0
        self.n_covered = 0  # EDR samples emitted near a used beat

    @staticmethod
    def _checked_options(fs, method, sigma2, span_s, hop_s, delay_s, tracker,
                         method_options):
        """Validate the constructor's options in order; return ``(fs, spec, tracker)``: ``fs``
        as a float, the method's spec and the tracker (default: "project" for kpca, else
        "refit"). Raises as documented on the class."""
        try:
            fs = float(fs)
        except (TypeError, ValueError):
            fs = float("nan")
        if not (FS_RANGE[0] <= fs <= FS_RANGE[1]):
            raise SignalError(f"fs={fs:g} Hz is outside the supported {FS_RANGE[0]:g}-"
                              f"{FS_RANGE[1]:g} Hz")
        spec = get_method(method)
        if tracker is None:
            tracker = "project" if method == "kpca" else "refit"
        if tracker not in TRACKERS:
            raise ValueError(f"tracker must be one of {list(TRACKERS)}, got {tracker!r}")
        if tracker != "refit" and (method != "kpca" or method_options.get("orientation", "beats")
                                   != "beats" or method_options.get("solver", "dense") != "dense"):
            raise ValueError(f"tracker={tracker!r} needs method='kpca' with beats as data points "
                             f"and the dense solver, got method={method!r}")
        if spec.uses_sigma2:
            check_sigma2(sigma2)
        if not (isinstance(span_s, (int, float)) and span_s >= 2 * WARMUP_S):
            raise ValueError(f"span_s must be >= {2 * WARMUP_S:g} s, got {span_s!r}")
        if not (isinstance(hop_s, (int, float)) and 0 < hop_s <= 30):
            raise ValueError(f"hop_s must be in (0, 30] s, got {hop_s!r}")
        if not (isinstance(delay_s, (int, float)) and 0 <= delay_s <= 30):
            raise ValueError(f"delay_s must be in [0, 30] s, got {delay_s!r}")
        return fs, spec, tracker

    # ------------------------------------------------------------------ #
    @property
    def n_samples(self) -> int:
        """Samples pushed so far."""
        return self._ring.n_total

    def push(self, samples) -> list[StreamUpdate]:
        """Add ECG samples (any number, NaN allowed); return the updates they complete."""
        if self._closed:
            raise RuntimeError("push() after flush(): the stream is closed")
        x = np.asarray(samples, dtype=float).reshape(-1)
        updates = []
        i = 0
        while i < x.size:
            k = min(x.size - i, self._next_at - self._ring.n_total)
            self._ring.append(x[i:i + k])
            i += k
            if self._ring.n_total == self._next_at:
                u = self._update(final=False)
                if u is not None:
                    updates.append(u)
                self._next_at += self._hop_n
        return updates

    def flush(self) -> list[StreamUpdate]:
        """Analyse what is left and emit the EDR up to the stream's end; closes the stream."""
        if self._closed:
            return []
        self._closed = True
        if self._ring.n_total == 0:
            return []
        u = self._update(final=True)
        return [] if u is None else [u]

    # ------------------------------------------------------------------ #
    def _update(self, final: bool) -> StreamUpdate | None:
        end = self._ring.n_total
        self._detect(end, final)
        t_end = end / self.fs
        limit = t_end if final else t_end - self.delay_s
        k_hi = int(math.floor((min(limit, (end - 1) / self.fs)) * self.fs_out + 1e-9))
        if k_hi < self._next_k:
            return None
        z, near, reselected = self._analyse(end)
        n_span = min(end, self._span_n)
        k0 = int(math.ceil((end - n_span) / self.fs * self.fs_out - 1e-9))
        ks = np.arange(self._next_k, k_hi + 1)
        if z is None:
            vals, nr = np.zeros(ks.size), np.zeros(ks.size, dtype=bool)
        else:
            j = np.clip(ks - k0, 0, z.size - 1)
            nr = near[j] & (ks >= k0)
            vals = np.where(nr, z[j], 0.0)
        self._hist_v.append(vals)
        self._hist_near.append(nr.astype(float))
        self.n_covered += int(nr.sum())
        self._next_k = k_hi + 1
        rate, quality = self._rate()
        self.n_updates += 1
        return StreamUpdate(time_s=t_end, edr_time=ks / self.fs_out, edr=vals,
                            rate_time_s=k_hi / self.fs_out, rate_bpm=rate, quality=quality,
                            sigma2=self.sigma2_, reselected=reselected)

    def _detect(self, end: int, final: bool) -> None:
        """Detect R peaks on the last chunk; keep the new final ones (module docstring, step 1)."""
        n = min(end, max(self._chunk_n, end - self._final_n + 2 * self._guard_n), self._span_n)
        beats = None
        for m in (n, min(end, self._span_n)):
            try:
                beats = detect(self._ring.last(m), self.fs)
                n = m
                break
            except SignalError:
                continue
        upto = end if final else end - self._guard_n
        if beats is not None:
            p = beats.peaks + (end - n)
            keep = (p >= self._final_n - self._guard_n) & (p < upto)
            last = self._peaks[-1] if self._peaks.size else -np.inf
            new = []
            for i in np.flatnonzero(keep):
                if p[i] - last >= MIN_RR_S * self.fs:
                    new.append(i)
                    last = p[i]
            new = np.asarray(new, dtype=int)
            if new.size:
                self._peaks = np.concatenate([self._peaks, p[new]])
                fl = np.column_stack([beats.valid[new], beats.ectopic[new], beats.clipped[new]])
                self._flags = np.vstack([self._flags, fl])
                self._tcorr = np.concatenate([self._tcorr, beats.template_corr[new]])
                self._pol = np.concatenate([self._pol, np.full(new.size, beats.polarity)])
        self._final_n = max(self._final_n, upto)
        # keep the beats of the span only (bounded memory)
        h = int(round(0.1 * self.fs))
        keep = self._peaks >= end - self._span_n + h
        self._peaks, self._flags = self._peaks[keep], self._flags[keep]
        self._tcorr, self._pol = self._tcorr[keep], self._pol[keep]

    def _segment(self, end: int, n: int | None = None) -> Segment:
        n = min(end, self._span_n if n is None else n)
        s0 = end - n
        h = int(round(0.1 * self.fs))
        m = (self._peaks <= end - 1 - h) & (self._peaks >= s0 + h)
        valid, ect, clip = self._flags[m].T
        pol = 1 if self._pol[m].sum() >= 0 else -1
        beats = Beats(peaks=self._peaks[m] - s0, fs=self.fs, valid=valid.copy(), polarity=pol,
                      n_ectopic=int(ect.sum()), n_artifact=int((~valid & ~ect).sum()),
                      template_corr=self._tcorr[m].copy(), clipped=clip.copy(), ectopic=ect.copy())
        k0 = int(math.ceil(s0 / self.fs * self.fs_out - 1e-9))
        k1 = int(math.floor((end - 1) / self.fs * self.fs_out + 1e-9))
        grid = np.arange(k0, k1 + 1) / self.fs_out
        return Segment(self._ring.last(n), self.fs, s0 / self.fs, beats, grid, self.fs_out,
                       self.lead)

    def _need_selection(self, t_end: float) -> bool:
        if not self._by_criterion:
            return False
        if self.sigma2_ is None or self._force_select:
            return True
        if not self._span_full_selected and self._ring.n_total >= self._span_n:
            return True
        return t_end - self._last_select >= self.reselect_s

    def _analyse(self, end: int):
        """The span's standardised, sign-aligned grid series and its near-beat mask."""
        seg = self._segment(end)
        if int(seg.valid.sum()) < MIN_BEATS or seg.grid.size < 16:
            return None, None, False
        t_end = end / self.fs
        select = self._need_selection(t_end)
        kwargs = dict(self.method_options)
        self._refitted = self.tracker == "refit"
        if self.spec.uses_sigma2:
            kwargs.update(sigma2=self.sigma2_request if select else self.sigma2_,
                          random_state=self.random_state)
        try:
            if self.tracker == "refit":
                out = self.spec.func(seg, **kwargs)
            else:
                out = self._tracked(seg, end, select, kwargs)
        except SignalError:
            return None, None, False
        if select:
            self.sigma2_ = out.sigma2
            self._last_select = t_end
            self._span_full_selected = self._ring.n_total >= self._span_n
            self._force_select = False
            self.n_selections += 1
        y = series_on_grid(seg, out)
        used = seg.beat_times[seg.valid] if out.kind == "grid" else np.asarray(out.times)
        tg = seg.grid
        k = np.clip(np.searchsorted(used, tg), 1, max(used.size - 1, 1))
        dist = np.minimum(np.abs(tg - used[k - 1]), np.abs(tg - used[np.minimum(k, used.size - 1)]))
        near = dist <= MAX_GAP_S
        yb = self._bandpass(y) if y.size >= 28 else y - y.mean()
        sd = yb[near].std()
        z = (yb - yb[near].mean()) / (sd if sd > 0 else 1.0)
        z *= self._sign(z, near, seg)
        if self._by_criterion and (select or self._refitted):
            # the quality check runs at each model fit (each update for tracker "refit")
            conc = spectral_concentration(z[near], self.fs_out)
            if select:
                self._select_quality = conc
            elif (conc < QUALITY_DROP * self._select_quality
                  and t_end - self._last_select >= RESELECT_COOLDOWN_S):
                self._force_select = True  # re-select at the next update
        return z, near, select

    def _bandpass(self, y):
        """:func:`edr.signal.bandpass` with the filter designed once (same output, bit for bit)."""
        if self._sos is None:
            from scipy import signal

            self._sos = signal.butter(FILTER_ORDER, list(BAND_HZ), btype="bandpass",
                                      fs=self.fs_out, output="sos")
        if not np.all(np.isfinite(y)):
            return bandpass(y, fs=self.fs_out)  # raises the protocol's error
        from scipy import signal

        padlen = min(3 * (2 * len(self._sos) + 1), y.size - 1)
        return signal.sosfiltfilt(self._sos, y - np.mean(y), padlen=padlen)

    def _matrix(self, seg: Segment, opts):
        """The rows kpca analyses and their beat times (the method's own matrix)."""
        if hasattr(seg, "beat_matrix"):
            X, t, _ = seg.beat_matrix(opts.baseline, getattr(opts, "robust", True))
            return X, t
        seg.require_beats()
        return seg.valid_matrix(opts.baseline), seg.beat_times[seg.valid]

    def _tracked(self, seg: Segment, end: int, select: bool, kwargs: dict):
        """``kpca`` scores of the span's beats from the tracked model (project / kha / kha_smd)."""
        from edr.methods import KernelOptions, MethodOutput

        opts = KernelOptions.from_kwargs(**kwargs)
        t_end = end / self.fs
        refit = select or self._model is None or t_end - self._last_refit >= self.refit_s
        if not refit:
            n = min(end, int(round(TAIL_S * self.fs)))
            try:
                Xt, tt = self._matrix(self._segment(end, n), opts)
            except SignalError:
                Xt = None
            if Xt is None or Xt.shape[1] != self._model.n_features_in_:
                refit = True
        if refit:
            X, t = self._matrix(seg, opts)
            model = opts.kernel_pca().fit(X)
            self._model, self._bt = model, t
            self._bv = model.transform(X)[:, 0]
            self._last_refit = t_end
            self._refitted = True
            self.n_refits += 1
            a = np.asarray(model.alphas_)[:, 0] / math.sqrt(float(model.eigenvalues_[0]))
            if self.tracker == "kha":
                self._kha = _KHATracker(X, a, model.sigma2_, random_state=self.random_state)
            elif self.tracker == "kha_smd":
                if self._kha is None or self._kha.sigma2 != float(model.sigma2_):
                    # SMD's log-gain starts at rho_0 with each kernel width
                    self._kha = _KHASMDTracker(X, a, model.sigma2_,
                                               random_state=self.random_state)
                else:
                    self._kha.restart(X, a)
        else:
            new = tt > (self._bt[-1] if self._bt.size else -np.inf) + 1e-6
            if new.any():
                if self.tracker in ("kha", "kha_smd"):
                    self._kha.add(Xt[new])
                    self._bt = np.concatenate([self._bt, tt[new]])
                    self._bv = self._kha.scores()
                else:
                    self._bt = np.concatenate([self._bt, tt[new]])
                    self._bv = np.concatenate([self._bv, self._model.transform(Xt[new])[:, 0]])
        keep = self._bt >= seg.t0
        if self.tracker == "project":
            self._bt, self._bv = self._bt[keep], self._bv[keep]
            keep = np.ones(self._bt.size, dtype=bool)
        if keep.sum() < MIN_BEATS:
            raise SignalError("too few beats")
        return MethodOutput(self._bt[keep], self._bv[keep], "beats", float(self._model.sigma2_),
                            getattr(self._model, "selection_", None) if refit else None)

    def _sign(self, z, near, seg) -> float:
        """±1: agreement with the emitted EDR on the overlap, else with the R amplitude."""
        n_hist = min(self._next_k, self._hist_v.cap)
        if n_hist:
            hv = self._hist_v.last(n_hist)
            hn = self._hist_near.last(n_hist) > 0
            ks = np.arange(self._next_k - n_hist, self._next_k)
            k0 = int(round(seg.grid[0] * self.fs_out))
            j = ks - k0
            ok = (j >= 0) & (j < z.size)
            ok[ok] &= near[j[ok]]
            ok &= hn
            if ok.sum() >= 8:
                return -1.0 if np.dot(z[j[ok]], hv[ok]) < 0 else 1.0
        if self.spec.sign_reference is None:
            return 1.0
        ra = get_method(self.spec.sign_reference).func(seg)
        zi = np.interp(ra.times, seg.grid, z)
        return -1.0 if np.dot(zi - zi.mean(), ra.values - ra.values.mean()) < 0 else 1.0

    def _rate(self):
        win = int(round(SEGMENT_S * self.fs_out))
        if self._next_k < win:
            return float("nan"), 0.0
        v = self._hist_v.last(win)
        nr = self._hist_near.last(win)
        _, bpm = rate_series(v, fs=self.fs_out)
        q = spectral_concentration(v, self.fs_out) * float(nr.mean())
        return float(bpm[0]), float(q)


# --------------------------------------------------------------------------- #
# command line
# --------------------------------------------------------------------------- #
PROG = "python -m edr.stream"


class _OptionError(ValueError):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise _OptionError(message)


def _positive(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not (math.isfinite(v) and v > 0):
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}")
    return v


def _speed(text: str) -> float:
    if text.strip().lower() == "max":
        return math.inf
    return _positive(text)


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    p = _Parser(prog=prog, description="Real-time ECG-derived respiration: replay a record, read "
                "samples from standard input ('-') or a Lab Streaming Layer stream (--lsl).")
    p.add_argument("record", nargs="?", help="record file (any format edr.io.read_record reads), "
                   "or '-' for one sample (or CSV row) per line on standard input")
    p.add_argument("-o", "--output", required=True, help="CSV: time_s,edr,rate_bpm,quality")
    p.add_argument("--speed", type=_speed, default=math.inf,
                   help="replay speed: 1 = real time, max = as fast as possible (default)")
    p.add_argument("--fs", type=parse_rate_hz, help="sampling rate (Hz) of standard-input samples")
    p.add_argument("--column", type=int, default=0, help="CSV column of the ECG on standard input")
    p.add_argument("--channel", help="ECG channel of the record")
    p.add_argument("--lsl", metavar="NAME", help="read the LSL stream of this name (pylsl)")
    p.add_argument("--lsl-timeout", type=_positive, default=10.0,
                   help="seconds to wait for the LSL stream and for data (default 10)")
    p.add_argument("--method", default="kpca")
    p.add_argument("--sigma2", type=parse_sigma2, default="mdd")
    p.add_argument("--quiet", action="store_true", help="no live lines")
    return p


def _check_args(args) -> None:
    sources = (args.record is not None) + (args.lsl is not None)
    if sources != 1:
        raise _OptionError("give exactly one source: a RECORD, '-' (standard input) or --lsl NAME")
    if args.record == "-" and args.fs is None:
        raise _OptionError("standard input needs --fs HZ (the sampling rate)")
    if args.record not in (None, "-") and args.fs is not None and not args.record.lower().endswith(
            (".csv", ".tsv", ".txt")):
        raise _OptionError("--fs applies to standard input or CSV records only")
    if args.column < 0:
        raise _OptionError(f"--column must be >= 0, got {args.column}")
    try:
        spec = get_method(args.method)
    except ValueError as exc:
        raise _OptionError(f"--method: {exc}") from None
    if spec.uses_sigma2:
        try:
            check_sigma2(args.sigma2)
        except ValueError as exc:
            raise _OptionError(f"--sigma2: {exc}") from None
    out = os.path.abspath(args.output)
    if os.path.isdir(out):
        raise _OptionError(f"-o/--output {args.output} is a folder")
    if not os.path.isdir(os.path.dirname(out)):
        raise _OptionError(f"-o/--output {args.output}: folder does not exist")
    if args.record not in (None, "-") and os.path.abspath(args.record) == out:
        raise _OptionError(f"-o/--output {args.output} is the input record")


def _record_blocks(args):
    """(fs, iterator of sample blocks) of a record replayed at ``args.speed``."""
    from edr.io import check_record_path, read_record

    check_record_path(args.record)
    rec = read_record(args.record, args.channel, fs=args.fs)
    x, fs = rec.ecg, rec.fs
    block = max(int(round(fs * 0.25)), 1)

    def gen():
        t0 = _time.monotonic()
        for i in range(0, x.size, block):
            if math.isfinite(args.speed):
                wait = t0 + i / fs / args.speed - _time.monotonic()
                if wait > 0:
                    _time.sleep(wait)
            yield x[i:i + block]
    return fs, gen()


def _stdin_blocks(args, stream=None):
    stream = sys.stdin if stream is None else stream
    fs = args.fs
    block = max(int(round(fs * 0.25)), 1)

    def gen():
        buf = []
        for lineno, line in enumerate(stream, 1):
            s = line.strip()
            if not s:
                continue
            parts = [p.strip() for p in s.replace(";", ",").split(",")]
            if args.column >= len(parts):
                raise _OptionError(f"standard input line {lineno} has {len(parts)} column(s); "
                                   f"--column {args.column} is not there")
            try:
                v = float(parts[args.column])
            except ValueError:
                if lineno == 1:  # a header line
                    continue
                raise _OptionError(f"standard input line {lineno}: {parts[args.column]!r} is not "
                                   "a number") from None
            buf.append(v)
            if len(buf) >= block:
                yield np.asarray(buf)
                buf = []
        if buf:
            yield np.asarray(buf)
    return fs, gen()


def _lsl_blocks(args):
    try:
        import pylsl
    except Exception as exc:  # ImportError, or liblsl that cannot load (RuntimeError)
        raise _OptionError(f"--lsl needs pylsl with a loadable liblsl (pip install "
                           f"'kpca-edr[stream]'): {exc}") from None
    found = pylsl.resolve_byprop("name", args.lsl, 1, args.lsl_timeout)
    if not found:
        raise _OptionError(f"no LSL stream named {args.lsl!r} found within {args.lsl_timeout:g} s")
    info = found[0]
    fs = float(info.nominal_srate())
    if not fs > 0:
        raise _OptionError(f"LSL stream {args.lsl!r} has an irregular rate; a nominal rate "
                           "is needed")
    if args.column >= info.channel_count():
        raise _OptionError(f"LSL stream {args.lsl!r} has {info.channel_count()} channel(s); "
                           f"--column {args.column} is not there")
    inlet = pylsl.StreamInlet(info, max_buflen=60)

    def gen():
        idle = _time.monotonic()
        while True:
            data, _ = inlet.pull_chunk(timeout=0.2, max_samples=4096)
            if data:
                idle = _time.monotonic()
                yield np.asarray(data, dtype=float)[:, args.column]
            elif _time.monotonic() - idle > args.lsl_timeout:
                return  # the outlet stopped sending: end of stream
    return fs, gen()


def _live_line(u: StreamUpdate) -> str:
    rate = "  --  " if not np.isfinite(u.rate_bpm) else f"{u.rate_bpm:6.1f}"
    return f"t={u.time_s:9.1f} s  rate={rate} bpm  quality={u.quality:.2f}"


def run(args, out=None) -> int:
    """Stream the source through :class:`StreamingEDR`, print live lines, write the CSV."""
    from edr.io.writers import atomic_path

    out = sys.stdout if out is None else out
    if args.lsl is not None:
        fs, blocks = _lsl_blocks(args)
    elif args.record == "-":
        fs, blocks = _stdin_blocks(args)
    else:
        fs, blocks = _record_blocks(args)
    kw = {"sigma2": args.sigma2} if get_method(args.method).uses_sigma2 else {}
    stream = StreamingEDR(fs, method=args.method, **kw)
    n_rows = 0
    with atomic_path(args.output) as tmp, open(tmp, "w") as f:
        f.write("time_s,edr,rate_bpm,quality\n")

        def emit(updates):
            nonlocal n_rows
            for u in updates:
                for t, v in zip(u.edr_time, u.edr, strict=True):
                    f.write(f"{t:.6f},{v:.9g},{u.rate_bpm:.6g},{u.quality:.4f}\n")
                n_rows += u.edr.size
                if not args.quiet:
                    print(_live_line(u), file=out, flush=True)

        try:
            for block in blocks:
                emit(stream.push(block))
        except KeyboardInterrupt:  # the end of a live stream: keep what was received
            pass
        emit(stream.flush())
        if stream.n_covered == 0:
            raise SignalError(f"the stream ({stream.n_samples / fs:.1f} s at fs={fs:g} Hz) gave no "
                              f"EDR: at least {WARMUP_S:g} s with {MIN_BEATS} valid beats are "
                              "needed")
    return n_rows


def main(argv: Sequence[str] | None = None, *, prog: str = PROG) -> int:
    """Entry point: 0 ok, 2 bad input (one line on stderr, no output file), 1 internal error."""
    argv = list(sys.argv[1:] if argv is None else argv)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        args = build_parser(prog).parse_args(argv)
        _check_args(args)
        run(args)
    except (EDRError, OSError, ValueError) as exc:
        msg = " ".join(str(exc).split()) or type(exc).__name__
        if isinstance(exc, FileNotFoundError) and exc.filename and str(exc.filename) not in msg:
            msg = f"{msg}: {exc.filename}"
        print(f"{prog}: error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if os.environ.get("EDR_DEBUG"):
            raise
        print(f"{prog}: internal error: {type(exc).__name__}: {' '.join(str(exc).split())} "
              "(set EDR_DEBUG=1 for the traceback)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
