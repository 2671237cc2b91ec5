"""The streaming engine: :class:`StreamingEDR`, ECG in, EDR and rates out, in real time.

The engine keeps the last ``span_s`` seconds of every channel (a ring buffer), each channel's
beats (:class:`edr.stream.beats.BeatTracker`: detected on the newest samples only), its mains
line and, for a kernel method, each lead's σ². Every :data:`DEFAULT_HOP_S` seconds of stream
(stream time = samples pushed / ``fs``) it runs an update of one of two paths:

* the default method (``kpca_fusion``, one lead or every lead fused) streams by projection
  (:mod:`edr.stream.projected`): a model fitted on the span as offline, refitted every
  :data:`edr.stream.projected.REFIT_S`, projects the new beats; its sum is high-passed by a
  filter whose reach after a point fits in the emission delay, so no window edge reaches the
  emitted EDR;
* every other method key and lead mode re-analyses the span at each update and stitches the
  windows (:mod:`edr.stream.windowed`).

Both emit the grid points up to ``delay_s`` before the stream's end (NaN farther than
:data:`edr.stitch.MAX_GAP_S` from a used beat, as offline) and report each 32 s rate window
(every 16 s, :func:`edr.rates.rate_series`'s windows) at the first update at or after its end,
judged as offline (:func:`edr.rates.judged_rates`) and withheld below
:data:`edr.rates.QUALITY_THRESHOLD` or when more than :data:`edr.rates.MAX_DROPPED_SHARE` of the
beats were dropped. A live input's faults reach the engine as NaN samples (and flat runs), masked
as offline (:func:`edr.beats.signal_mask`); a rate window more than :data:`MAX_UNUSABLE_SHARE` of
whose ECG is masked in every analysed lead gets no rate and quality 0, its share given in
:attr:`StreamUpdate.unusable`: the stream reports the limit and goes on.

Kernel widths and mains lines: each lead's σ² is selected by the criterion, and its mains line
found (:func:`edr.mains.mains_frequency`), at the first update, when the span first fills and
every :data:`RESELECT_S` seconds after (the projected path also selects at a refit of the filling
span once it has grown :data:`edr.stream.projected.FILL_SELECT_GROWTH` times since the last
selection: a σ² chosen on a few beats is chosen again as they grow); the analyses in between use
each lead's stored σ² (a lead without one selects its own) and notch its stored line. Latency,
in stream time: an EDR sample for time ``t`` is emitted by the first update at or after
``t + delay_s``, so within ``delay_s + hop_s``; a rate window's rate at its end when ``hop_s``
divides :data:`edr.signal.RATE_STEP_S` (else within ``hop_s``). Memory is bounded by
``span_s``. Design and measurements: ``docs/design.md#8-streaming``.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field, replace

import numpy as np

from edr.beats import signal_mask
from edr.errors import SignalError
from edr.mains import mains_frequency, notch_mains
from edr.methods import DEFAULT_SIGMA2
from edr.names import check_fs
from edr.options import DEFAULT_METHOD, DEFAULT_MULTI_LEAD, EDROptions
from edr.signal import RATE_WINDOW_S
from edr.stream.beats import BeatTracker
from edr.stream.projected import ProjectedPath
from edr.stream.projection import supports
from edr.stream.ring import Ring
from edr.stream.windowed import WindowedPath
from edr.window_analysis import analyse_window
from edr.windows import Window
from kpca._blas import blas_limited_to_one_thread

__all__ = ["DEFAULT_DELAY_S", "DEFAULT_HOP_S", "DEFAULT_SPAN_S", "MAX_UNUSABLE_SHARE",
           "RESELECT_S", "SELECTION_DRAWS", "WARMUP_S", "StreamUpdate", "StreamingEDR"]

DEFAULT_SPAN_S = 240.0
"""Analysis window (s): the ring buffer of ECG each update analyses."""
DEFAULT_HOP_S = 2.0
"""Stream time (s) between updates; divides :data:`edr.signal.RATE_STEP_S` so that every rate
window ends on an update. With :data:`DEFAULT_DELAY_S` every EDR sample is out within 10 s."""
DEFAULT_DELAY_S = 8.0
"""EDR is emitted up to this many seconds before the stream's end: the projected path's high-pass
reaches this far (less a beat interval and the phase shift) into the ECG after a point;
the re-analysing path's window is least reliable near its end."""
WARMUP_S = RATE_WINDOW_S
"""Stream time (s) before the first update: one rate window."""
RESELECT_S = 240.0
"""Stream time (s) between two σ² selections (and mains-line searches) once the span has
filled: one per :data:`DEFAULT_SPAN_S`, each on beats none of the previous selection saw
(chosen by leave-one-subject-out: ``docs/studies/stream_projection.md``)."""
MAX_UNUSABLE_SHARE = 0.5
"""A rate window more than this share of whose ECG is unusable (NaN or flat in every analysed
lead) gets no rate and quality 0."""
SELECTION_DRAWS = 20
"""Most Monte-Carlo noise replicates a stream's σ² selection draws with the sequential stop
(``mdd-fast``, the default criterion; its ``n_draws`` cap, offline
:data:`kpca.selection.mdd.N_DRAWS` = 100), unless the caller sets ``n_draws``. A selection on
the span's 40-odd beats at the first update stops only at the cap (its noise levels never
settle); on a filled span the draws settle after the first batch of 5. Measurements and the
accuracy guard: ``docs/studies/stream_design.md``, third round."""

@dataclass(frozen=True)
class StreamUpdate:
    """What one update adds.

    Attributes
    ----------
    time_s : float
        Stream time (s) of the update: samples pushed so far / ``fs``.
    edr_time, edr : ndarray
        The new EDR samples: grid times (s, ``k / fs_out``) and values (NaN where masked).
    rate_time, rate_bpm, quality : ndarray
        The rate windows completed since the previous update: centres (s), rates
        (breaths/min; NaN where withheld or masked) and qualities (0-1).
    sigma2 : dict
        Kernel width in use per lead (kernel methods; empty otherwise).
    reselected : bool
        Whether the kernel widths were selected at this update.
    status : str
        "ok", or why the update's window gave no analysis (its EDR is then masked).
    unusable : ndarray
        Per rate window, the share (0-1) of its ECG masked (NaN or flat) in every analysed
        lead; above :data:`MAX_UNUSABLE_SHARE` its rate is withheld and its quality 0.
    """

    time_s: float
    edr_time: np.ndarray
    edr: np.ndarray
    rate_time: np.ndarray
    rate_bpm: np.ndarray
    quality: np.ndarray
    sigma2: dict = field(default_factory=dict)
    reselected: bool = False
    status: str = "ok"
    unusable: np.ndarray = field(default_factory=lambda: np.empty(0))


class StreamingEDR:
    """Incremental EDR from a stream of ECG samples, one or several channels (see the module
    docstring).

    Parameters
    ----------
    fs : float
        ECG sampling rate (Hz), within :data:`edr.signal.FS_RANGE`.
    leads : sequence of str, default ("ECG",)
        Channel names, in the order of the rows pushed. With several, ``lead=None`` fuses them
        all (:data:`edr.options.DEFAULT_MULTI_LEAD`), as offline.
    method : str, default :data:`edr.options.DEFAULT_METHOD`
        Key of :data:`edr.methods.METHODS`.
    sigma2 : float or str, default :data:`edr.methods.DEFAULT_SIGMA2`
        Kernel width, or the :mod:`kpca.selection` criterion run on the schedule above.
    lead : str, optional
        As :func:`edr.pipeline.extract_edr`'s ``lead``: a channel name or a mode of
        :data:`edr.options.LEAD_MODES`.
    span_s, hop_s, delay_s : float
        Analysis window, update period and emission delay (s).
    reselect_s : float, default :data:`RESELECT_S`
    fs_out : float, default :data:`edr.signal.GRID_FS`
    random_state : int, default 0
        Passed to the method (its σ² criterion): deterministic output.
    **method_options
        Further options of the method, as offline.

    Attributes
    ----------
    ring : the ring buffer of the last ``span_s`` of every channel
    beats : dict
        Channel name to its :class:`edr.stream.beats.BeatTracker`.
    sigma2 : dict
        Kernel width in use per lead (kernel methods with a criterion).
    kernel, span_filled : bool
        Whether σ² is selected by a criterion; whether the span has filled once.
    n_updates, n_selections : int

    Raises
    ------
    SignalError
        ``fs`` outside the supported range.
    ValueError
        Unknown method or lead, bad options, spans (``span_s < WARMUP_S``, ``hop_s <= 0``,
        ``delay_s`` outside ``[0, span_s / 2]``, or below 1 s for the projected default:
        :class:`edr.stream.projected.ProjectedPath`).

    See Also
    --------
    edr.pipeline.extract_edr : the same EDR offline, of a whole record.
    edr.stream.beats.BeatTracker : the beats of each channel, detected on the newest samples.
    edr.stream.session.run_stream : a source streamed through the engine into its outputs.
    edr.stream.breaths.StreamBreaths : the breaths of the updates, each reported once.

    Examples
    --------
    A simulated minute breathing at 15 /min, pushed in blocks of 2 s as they would arrive:

    >>> from edr.simulate import simulate_recording
    >>> from edr.stream.engine import StreamingEDR
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> engine = StreamingEDR(rec.fs)
    >>> updates = []
    >>> for i in range(0, rec.ecg.size, 500):
    ...     updates += engine.push(rec.ecg[i:i + 500])
    >>> updates += engine.flush()  # the end of the stream: the last 8 s of EDR
    >>> len(updates), updates[0].time_s, updates[-1].time_s  # every 2 s from 32 s on
    (16, 32.0, 60.0)
    >>> first = updates[0]
    >>> first.status, first.reselected, float(first.edr_time[-1])  # EDR to delay_s before 32 s
    ('ok', True, 24.0)
    >>> sum(u.edr.size for u in updates)  # the whole minute on the 4 Hz grid
    240
    >>> [(float(t), round(float(b), 1)) for u in updates for t, b in zip(u.rate_time, u.rate_bpm)]
    [(16.0, 15.4), (32.0, 15.8)]
    """

    def __init__(self, fs: float, *, leads=("ECG",), method: str = DEFAULT_METHOD,
                 sigma2=DEFAULT_SIGMA2, lead: str | None = None, span_s: float = DEFAULT_SPAN_S,
                 hop_s: float = DEFAULT_HOP_S, delay_s: float = DEFAULT_DELAY_S,
                 reselect_s: float = RESELECT_S, fs_out: float | None = None,
                 random_state: int = 0, **method_options):
        fs = check_fs(fs)
        self.leads = [str(n) for n in leads]
        if not self.leads or len(set(self.leads)) != len(self.leads):
            raise ValueError(f"leads must be distinct names, got {list(leads)!r}")
        if lead is None and len(self.leads) > 1:
            lead = DEFAULT_MULTI_LEAD
        extra = {} if fs_out is None else {"fs_out": fs_out}
        self.opts = EDROptions(method=method, sigma2=sigma2, lead=lead, random_state=random_state,
                               method_options=method_options, **extra)
        if self.opts.lead_mode is None:
            self._lead = self._lead_name(lead)
        for name, value, low in (("span_s", span_s, WARMUP_S), ("hop_s", hop_s, 0.0),
                                 ("reselect_s", reselect_s, 0.0)):
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > low):
                raise ValueError(f"{name} must be a number of seconds > {low:g}, got {value!r}")
        if not (isinstance(delay_s, (int, float)) and 0 <= delay_s <= span_s / 2):
            raise ValueError(f"delay_s must be in [0, span_s / 2], got {delay_s!r}")
        self.fs, self.fs_out = fs, self.opts.fs_out
        self.span_s, self.hop_s, self.delay_s = float(span_s), float(hop_s), float(delay_s)
        self.reselect_s = float(reselect_s)
        self.kernel = self.opts.spec.uses_sigma2 and not isinstance(sigma2, (int, float))
        self.ring = Ring(len(self.leads), int(round(self.span_s * fs)))
        self.beats = {name: BeatTracker(fs) for name in self.leads}
        self.sigma2: dict = {}
        self.span_filled = False
        self._j = int(math.ceil(WARMUP_S / self.hop_s - 1e-9))  # next update: time j * hop_s
        self._last_schedule = -math.inf
        self._mains: dict = {}
        self._path = ProjectedPath(self) if supports(self.opts) else WindowedPath(self)
        self._select_opts, self._fixed_opts = self._analysis_options()
        self.n_updates = self.n_selections = 0

    def _analysis_options(self) -> tuple[EDROptions, EDROptions]:
        """``(selecting, fixed)``: the options of an analysis that selects σ² (:attr:`opts`,
        ``n_draws`` capped at :data:`SELECTION_DRAWS` when the criterion stops sequentially and
        the caller did not set it) and of one at the stored widths (:attr:`opts` without the
        criterion's options, which a fixed σ² refuses; a lead still without a width selects its
        own with the criterion's defaults)."""
        if not self.kernel:
            return self.opts, self.opts
        from kpca.selection import CRITERIA, resolve_criterion

        options = dict(self.opts.method_options)
        own = self.opts.kernel_options.selection_options
        fixed = replace(self.opts, method_options={k: v for k, v in options.items()
                                                   if k not in own})
        params = inspect.signature(CRITERIA[resolve_criterion(self.opts.sigma2)]).parameters
        stop = options.get("stop", params["stop"].default if "stop" in params else None)
        if "n_draws" in params and "n_draws" not in options and stop == "sequential":
            options["n_draws"] = SELECTION_DRAWS
        return replace(self.opts, method_options=options), fixed

    def _lead_name(self, lead) -> str:
        if lead is None:
            return self.leads[0]
        for name in self.leads:
            if name.lower() == str(lead).strip().lower():
                return name
        raise ValueError(f"lead {lead!r} is not among the stream's channels {self.leads}")

    @property
    def n_samples(self) -> int:
        """Samples per channel pushed so far."""
        return self.ring.n_total

    @property
    def glitch_samples(self) -> dict:
        """Per channel, the samples judged so far (at each update) to lie beyond its glitch
        limits (:func:`edr.beats.mask.glitch_limits`): values no ECG reaches, read as missing."""
        return dict(zip(self.leads, self.ring.glitches.tolist(), strict=True))

    @property
    def clipped_samples(self) -> dict:
        """Per channel, the samples judged so far to be clipped at its rail
        (:class:`edr.stream.faults.RailRuns`)."""
        return dict(zip(self.leads, self.ring.clipped.tolist(), strict=True))

    def push(self, block) -> list[StreamUpdate]:
        """Append samples and run the updates they complete.

        Parameters
        ----------
        block : array_like, shape (n,) or (n, n_channels)
            New samples (one row per instant, one column per channel; NaN allowed).

        Returns
        -------
        list of StreamUpdate

        See Also
        --------
        flush : the last update, at the end of the stream.
        """
        x = np.asarray(block, dtype=float)
        if x.ndim == 1 and len(self.leads) == 1:
            x = x[:, None]
        if x.ndim != 2 or x.shape[1] != len(self.leads):
            raise ValueError(f"block must have shape (n, {len(self.leads)}), got {x.shape}")
        out = []
        start = 0
        while start < x.shape[0]:
            due = int(math.ceil(self._j * self.hop_s * self.fs - 1e-9))
            take = min(x.shape[0] - start, max(due - self.n_samples, 0))
            self.ring.append(x[start:start + take].T)
            start += take
            if self.n_samples >= due:
                out.append(self._update(final=False))
                self._j += 1
        return out

    def flush(self) -> list[StreamUpdate]:
        """End of the stream: one last update emitting every remaining grid point.

        See Also
        --------
        push : the updates while the stream runs.
        """
        if self._path.k_emit >= self.emission_end(True) or self.n_samples / self.fs < WARMUP_S:
            return []
        return [self._update(final=True)]

    # ------------------------------------------------------------------ one update
    def _update(self, final: bool) -> StreamUpdate:
        # An update's matrices have a few hundred rows: a second BLAS thread costs more than it
        # saves, and on a busy machine far more (``docs/studies/stream_design.md``, speed).
        self.ring.renew_limits(self.fs)
        with blas_limited_to_one_thread():
            edr_time, edr, rt, rb, rq, reselected, status = self._path.update(final)
        self.n_updates += 1
        unusable = self.unusable_share(rt)
        if np.any(unusable > MAX_UNUSABLE_SHARE):
            withheld = unusable > MAX_UNUSABLE_SHARE
            rb, rq = np.where(withheld, np.nan, rb), np.where(withheld, 0.0, rq)
        return StreamUpdate(self.n_samples / self.fs, edr_time, edr, rt, rb, rq,
                            dict(self.sigma2), reselected, status, unusable)

    def unusable_share(self, centres) -> np.ndarray:
        """Per rate window centred at ``centres`` (s), the share of its samples still in the ring
        buffer that are masked (:func:`edr.beats.signal_mask`) in every analysed lead (0 for a
        window no longer in the buffer)."""
        centres = np.asarray(centres, dtype=float)
        out = np.zeros(centres.size)
        if not centres.size:
            return out
        first = self.n_samples - min(self.n_samples, self.ring.cap)
        a = max(int(round((centres.min() - RATE_WINDOW_S / 2) * self.fs)) - int(self.fs), first)
        span = self.ring.last(self.n_samples - a)
        rows = [self.leads.index(name) for name in self.analysed]
        masked = np.logical_and.reduce([signal_mask(span[i], self.fs) for i in rows])
        for j, c in enumerate(centres):
            lo = max(int(round((c - RATE_WINDOW_S / 2) * self.fs)) - a, 0)
            hi = max(int(round((c + RATE_WINDOW_S / 2) * self.fs)) - a, lo)
            part = masked[lo:hi]
            out[j] = part.mean() if part.size else 0.0
        return out

    # ------------------------------------------------------------------ for the paths
    @property
    def analysed(self) -> list[str]:
        """The channels the method analyses: every one for a lead mode, else the chosen one."""
        return self.leads if self.opts.lead_mode is not None else [self._lead]

    def grid_indices(self, m: int) -> np.ndarray:
        """Indices ``k`` of the output grid points (record time ``k / fs_out``) within the last
        ``m`` samples pushed."""
        n = self.n_samples
        k0 = int(math.ceil((n - m) / self.fs * self.fs_out - 1e-9))
        return np.arange(k0, int(math.floor((n - 1) / self.fs * self.fs_out + 1e-9)) + 1)

    def emission_end(self, final: bool) -> int:
        """One past the last grid index an update emits: every grid point of the stream when
        ``final``, else those up to ``delay_s`` before its end."""
        t_end = self.n_samples / self.fs
        n_grid = int(math.floor(t_end * self.fs_out + 1e-9))
        if final:
            return n_grid
        return min(int(math.floor((t_end - self.delay_s) * self.fs_out + 1e-9)) + 1, n_grid)

    def notched(self, name: str, span: np.ndarray, n: int, search: bool) -> np.ndarray:
        """The last ``n`` samples of channel ``name`` of ``span`` (the ring buffer's content)
        with the channel's mains line notched; the line is searched again over the span when
        ``search`` or not yet known (:func:`edr.mains.mains_frequency`)."""
        row = span[self.leads.index(name)]
        if search or name not in self._mains:
            self._mains[name] = mains_frequency(row, self.fs)
        return notch_mains(row[row.size - min(n, row.size):], self.fs, self._mains[name])

    def analysis(self, leads: dict, beats: dict, grid: np.ndarray, select: bool,
                 features: dict | None = None):
        """``(WindowAnalysis or None, status)``: :func:`analyse_window` of the span
        ``leads`` (samples from the span's start, ``grid`` in the same time) with ``beats`` (and
        their ``features``, when kept), the kernel widths selected when ``select`` (at most
        :data:`SELECTION_DRAWS` replicates) else the stored ones (which it updates); the leads
        one after the other
        (``docs/design.md#8-streaming``)."""
        n = next(iter(leads.values())).size
        try:
            wa = analyse_window(Window(0.0, n / self.fs), leads, self.fs, grid,
                                self._select_opts if select else self._fixed_opts,
                                sigma2=None if select else self.sigma2, beats=beats,
                                features=features, lead_threads=False)
        except SignalError as exc:
            return None, f"no analysis: {str(exc).splitlines()[0]}"
        if self.kernel:
            if select:
                self.sigma2 = {}
                self.n_selections += 1
            self.sigma2.update(wa.lead_sigma2)
        return wa, "ok"

    def schedule_due(self, t_end: float, n_win: int) -> bool:
        """Whether the mains lines and kernel widths are chosen again at this update."""
        filled = n_win >= self.ring.cap and not self.span_filled
        if filled:
            self.span_filled = True
        due = filled or t_end - self._last_schedule >= self.reselect_s - 1e-9
        if due:
            self._last_schedule = t_end
        return due

