"""ECG-derived respiration from a recording: :func:`extract_edr` → :class:`EDRResult`.

Data flow per analysis window (DESIGN.md): the window's ECG samples →
:func:`edr.beats.detect` (R peaks, sub-sample alignment, ectopic/artifact
flags) → an EDR method of :data:`edr.methods.METHODS` (for ``kpca``: the QRS
matrix → kernel PCA with ``n_c = 1`` and ``sigma2`` chosen per window) → the
beat-sampled series onto the uniform ``fs_out`` grid by a cubic spline
(:func:`edr.evaluate.metrics.to_uniform_grid`) → standardised.

Windows and stitching
---------------------
``window_s=None`` analyses records of up to :data:`WHOLE_RECORD_MAX_S` in one
piece and longer ones in windows of :data:`DEFAULT_WINDOW_S`. On the 30 BIDMC
records (8 min, lead II, Shannon σ²) whole-record analysis and 240 s windows
gave the same median MSC (0.47), 120 s windows 0.42 and 60 s windows 0.41:
longer windows give the kernel-width criterion more beats, so the default
window is long, and memory stays bounded by the window. Consecutive windows
overlap by ``overlap`` of their length; each window's grid series is
standardised, its sign aligned with what the previous windows already wrote
on the overlap (sign of the inner product), and the windows are cross-faded
with complementary raised-cosine ramps over the overlaps. The stitched series
is band-passed once (zero-phase Butterworth 0.05–1 Hz,
:func:`edr.evaluate.metrics.bandpass`).

One large-scale model (``solver="fs2"``)
----------------------------------------
Instead of windows, the kernel methods can fit ONE fixed-size kernel PCA
model (FS2 support vectors + Nyström, Varon et al. 2015, Sec. V-1, σ² by MDD
on the support vectors + a validation set, Fig. 8) to all valid beats of the
record, beats detected over the whole record, and project every beat onto it
(:func:`edr.methods._fs2_scores`). The model needs ``O(N d + 4096 M + M^2)`` memory for
``N`` beats of ``d`` samples and ``M`` support vectors (4096-row blocks, see
:mod:`kpca.largescale`), never ``O(N^2)``; the output
is stitch-free. The default stays ``solver="dense"`` (windowed dense kPCA) by
measurement (``scripts/measure_largescale_edr.py``, output in
``scripts/output/measure_largescale_edr.md``): on the 30 BIDMC records (lead II,
MDD) one FS2 model with ``M = 200`` gave median MSC 0.484 vs 0.473 and |r|
0.461 vs 0.502, but per record its MSC reached the dense one on only 12 of 30
records (median paired difference -0.004, Wilcoxon p = 0.11; ``M = 100``: 9/30,
p = 0.015) at 10x the CPU (8.2 vs 0.8 s per 8-minute record, measured before the row-blocked k-means start
made FS2 fits 3x faster). On a simulated
24-hour record it was better (MSC 0.874 vs 0.790, |r| 0.991 vs 0.979, same
rate error) and faster (48 vs 96 s CPU), but its peak memory is 0.99-1.09 GB
against 0.52 GB for any ``M`` (set by the whole-record beat detection, not the
model). Not clearly not worse on real data, so not the default.

Masking
-------
Grid points farther than :data:`MAX_GAP_S` from every beat used (NaN runs,
flat lines, stretches of dropped beats) and windows that could not be
analysed (fewer than 20 beats, recorded in ``EDRResult.windows`` with the
reason in ``quality["status"]``) are set to 0 before the band-pass, so the
waveform stays finite. A record where no window can be analysed raises
:class:`edr.errors.SignalError`.

Sign convention
---------------
Deterministic (see :mod:`edr.methods`): morphological EDRs are flipped to
correlate positively with the lead's R-amplitude series over the record; the
R amplitude, RSA and NeuroKit2 series keep their own sign.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from edr.beats import detect
from edr.errors import ChannelError, SignalError
from edr.evaluate.metrics import bandpass, rate_series
from edr.methods import METHODS, SOLVERS, MethodOutput, Segment, get_method, spectral_concentration
from edr.methods import _on_grid as _series_on_grid
from edr.modulation import r_amplitude

__all__ = ["EDRResult", "WindowInfo", "extract_edr", "plan_windows",
           "DEFAULT_WINDOW_S", "DEFAULT_OVERLAP", "WHOLE_RECORD_MAX_S", "MAX_GAP_S"]

DEFAULT_WINDOW_S = 300.0
"""Window length (s) for records longer than :data:`WHOLE_RECORD_MAX_S` when ``window_s=None``."""
WHOLE_RECORD_MAX_S = 600.0
"""Records up to this duration (s) are analysed in one window by default."""
DEFAULT_OVERLAP = 0.25
"""Fraction of a window shared with the next. 75 s of a 300 s window hold 15-20 breaths, enough
for the sign alignment and the cross-fade; on a simulated 1-hour record 0.25 and 0.5 gave the same
MSC (0.819) and |r| (0.979) at 6.2 vs 9.9 s CPU (16 vs 23 windows)."""
MAX_GAP_S = 5.0
"""Grid points farther than this (s) from any used beat are masked (set to 0)."""
MIN_WINDOW_S = 20.0
FS_RANGE = (100.0, 10_000.0)
LEAD_MODES = ("auto", "fuse", "multilead")
"""Multi-lead values of ``lead`` (issue 7), see :func:`_analyse_window`."""


@dataclass
class WindowInfo:
    """What happened in one analysis window.

    Attributes
    ----------
    start_s, end_s : float
        Window limits (record time, s).
    n_beats, n_dropped : int
        Valid beats used and beats dropped (ectopic, artifact, clipped) in the window.
    sigma2 : float or None
        Kernel width used in the window (kernel methods).
    lead : str
        Lead analysed.
    quality : dict
        ``status`` ("ok" or the reason the window was skipped),
        ``spectral_concentration`` of the window's EDR, the selection
        ``criterion`` and ``margin`` (``lambda_1 - tau_1`` for MDD) when
        available, and method-specific figures.
    """

    start_s: float
    end_s: float
    n_beats: int
    n_dropped: int
    sigma2: float | None
    lead: str
    quality: dict = field(default_factory=dict)


@dataclass
class EDRResult:
    """An extracted respiratory signal with everything needed to judge it.

    Attributes
    ----------
    time, waveform : ndarray
        Uniform grid (s) at ``fs`` and the band-passed, standardised EDR.
    fs : float
        Grid rate (Hz).
    beat_times, beat_values : ndarray
        Per-beat EDR before interpolation (valid beats; for grid-based methods
        the waveform before the band-pass read at the beats), same sign and
        scale as the waveform.
    rate_time, rate_bpm : ndarray
        Respiratory rate, 32 s windows every 16 s (spectral peak in 4–60 /min).
    method, lead : str
    sigma2 : float or None
        Kernel width of the first analysed window.
    selection : SelectionResult or None
        Model selection of the first analysed window.
    windows : list of WindowInfo
    n_beats, n_beats_dropped : int
    params : dict
        Every option used.
    """

    time: np.ndarray
    waveform: np.ndarray
    fs: float
    beat_times: np.ndarray
    beat_values: np.ndarray
    rate_time: np.ndarray
    rate_bpm: np.ndarray
    method: str
    lead: str
    sigma2: float | None
    selection: object
    windows: list
    n_beats: int
    n_beats_dropped: int
    params: dict

    def summary(self) -> dict:
        """JSON-serialisable digest (no per-sample arrays except the selection curve)."""
        rate = np.asarray(self.rate_bpm, dtype=float)
        sel = None
        if self.selection is not None:
            sel = {"criterion": str(self.selection.criterion),
                   "sigma2": float(self.selection.sigma2),
                   "grid": [float(v) for v in np.asarray(self.selection.grid)],
                   "curve": [_json_float(v) for v in np.asarray(self.selection.curve)]}
        return {
            "method": self.method,
            "lead": self.lead,
            "sigma2": _json_float(self.sigma2),
            "fs": float(self.fs),
            "duration_s": float(self.time[-1] - self.time[0] + 1.0 / self.fs) if self.time.size else 0.0,
            "n_beats": int(self.n_beats),
            "n_beats_dropped": int(self.n_beats_dropped),
            "rate_bpm_median": _json_float(np.nanmedian(rate)) if np.isfinite(rate).any() else None,
            "n_windows": len(self.windows),
            "windows": [_json_safe(asdict(w)) for w in self.windows],
            "selection": sel,
            "params": _json_safe(self.params),
        }


def _json_float(v):
    if v is None:
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def _json_safe(obj):
    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return _json_float(obj)
    if obj is None or isinstance(obj, str):
        return obj
    return repr(obj)


# --------------------------------------------------------------------------- #
# windows
# --------------------------------------------------------------------------- #
def plan_windows(duration_s: float, window_s: float | None, overlap: float = DEFAULT_OVERLAP):
    """Window limits ``[(start, end), ...]`` covering ``[0, duration_s]``.

    ``window_s=None``: one window up to :data:`WHOLE_RECORD_MAX_S`, otherwise
    :data:`DEFAULT_WINDOW_S`. Windows start every ``window_s * (1 - overlap)``;
    the last one ends at ``duration_s`` (it may overlap its predecessor more).
    """
    if window_s is None:
        if duration_s <= WHOLE_RECORD_MAX_S:
            return [(0.0, float(duration_s))]
        window_s = DEFAULT_WINDOW_S
    if duration_s <= window_s:
        return [(0.0, float(duration_s))]
    step = window_s * (1.0 - overlap)
    starts = list(np.arange(0.0, duration_s - window_s + 1e-9, step))
    if starts[-1] + window_s < duration_s - 1e-9:
        starts.append(duration_s - window_s)
    return [(float(s), float(s + window_s)) for s in starts]


def _ramp_weights(t, a, b, prev_end, next_start):
    """Cross-fade weights on grid times ``t`` of window [a, b]: raised-cosine ramps over the overlaps."""
    w = np.ones(t.size)
    if prev_end is not None and prev_end > a:
        m = t < prev_end
        w[m] *= 0.5 - 0.5 * np.cos(np.pi * (t[m] - a) / (prev_end - a))
    if next_start is not None and next_start < b:
        m = t > next_start
        w[m] *= 0.5 + 0.5 * np.cos(np.pi * (t[m] - next_start) / (b - next_start))
    return w


def _check_solver(solver, n_support, method, spec, window_s, lead):
    """Reject a solver / n_support combination the method, window or lead mode cannot honour."""
    if solver not in SOLVERS:
        raise ValueError(f"unknown solver {solver!r}; valid solvers are {sorted(SOLVERS)}")
    if solver == "dense":
        if n_support is not None:
            raise ValueError(f"n_support applies to solver='fs2' only; got n_support={n_support!r} "
                             f"with solver='dense'")
        return
    if not spec.uses_sigma2 or method == "kpca_positions":
        kernel = sorted(k for k, v in METHODS.items() if v.uses_sigma2 and k != "kpca_positions")
        raise ValueError(f"solver='fs2' needs a kernel PCA method with beats as data points "
                         f"({kernel}); got method={method!r}")
    if window_s is not None:
        raise ValueError(f"solver='fs2' fits one model to the whole record; window_s must be None, "
                         f"got window_s={window_s!r}")
    if lead is not None and str(lead).strip().lower() == "multilead":
        raise ValueError("solver='fs2' is not available with lead='multilead'")
    if n_support is not None and (isinstance(n_support, (bool, np.bool_))
                                  or not isinstance(n_support, (int, np.integer)) or n_support < 2):
        raise ValueError(f"n_support must be None or an integer >= 2, got {n_support!r}")


def _check_args(recording, window_s, overlap, fs_out):
    fs = float(recording.fs)
    if not (FS_RANGE[0] <= fs <= FS_RANGE[1]):
        raise SignalError(f"recording.fs={fs:g} Hz is outside {FS_RANGE[0]:g}-{FS_RANGE[1]:g} Hz")
    if window_s is not None:
        try:
            ok = float(window_s) >= MIN_WINDOW_S
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError(f"window_s must be None or a number of seconds >= {MIN_WINDOW_S:g}, "
                             f"got {window_s!r}")
    if not (isinstance(overlap, (int, float)) and 0.0 <= overlap <= 0.9):
        raise ValueError(f"overlap must be a fraction in [0, 0.9], got {overlap!r}")
    if not (isinstance(fs_out, (int, float)) and 2.0 < fs_out <= 100.0):
        raise ValueError(f"fs_out must be a rate in Hz in (2, 100] (the band-pass reaches 1 Hz), "
                         f"got {fs_out!r}")


def _lead_arrays(recording, lead, method):
    """({name: samples}, mode): one named lead, or every ECG lead for "auto"/"fuse"/"multilead"."""
    key = None if lead is None else str(lead).strip().lower()
    if key in LEAD_MODES:
        if key == "multilead" and not method.startswith("kpca"):
            raise ValueError(f"lead='multilead' needs a kernel PCA method, got method={method!r}")
        leads = {str(n): np.asarray(v, dtype=float) for n, v in (recording.leads or {}).items()}
        if not leads:
            leads = {str(recording.ecg_channel): np.asarray(recording.ecg, dtype=float)}
        if str(recording.ecg_channel) in leads:  # the selected lead first (ties go to it)
            leads = {str(recording.ecg_channel): leads.pop(str(recording.ecg_channel)), **leads}
        return leads, key
    x, name = _pick_lead(recording, lead)
    return {name: x}, None


def _pick_lead(recording, lead):
    if lead is None:
        return np.asarray(recording.ecg, dtype=float), str(recording.ecg_channel)
    leads = dict(getattr(recording, "leads", {}) or {})
    key = str(lead).rstrip(",").strip()
    for name, x in leads.items():
        if name == key or name.lower() == key.lower():
            return np.asarray(x, dtype=float), name
    if key.lower() == str(recording.ecg_channel).lower():
        return np.asarray(recording.ecg, dtype=float), str(recording.ecg_channel)
    raise ChannelError(f"lead {lead!r} is not in recording {getattr(recording, 'name', '?')!r}; "
                       f"its ECG leads are {sorted(leads) or [recording.ecg_channel]}")


# --------------------------------------------------------------------------- #
# extraction
# --------------------------------------------------------------------------- #
def extract_edr(recording, method="kpca", *, sigma2="mdd", lead=None, window_s=None,
                overlap=DEFAULT_OVERLAP, fs_out=4.0, random_state=0, progress=False,
                solver="dense", n_support=None, **options) -> EDRResult:
    """Extract the respiratory signal from a recording's ECG.

    Parameters
    ----------
    recording : Recording
        From :func:`edr.io.read_record` (``ecg``, ``fs``, ``ecg_channel``, ``leads``).
    method : str, default "kpca"
        Key of :data:`edr.methods.METHODS`.
    sigma2 : float or str, default "mdd"
        Kernel width, or a :mod:`kpca.selection` criterion ("mdd", "shannon",
        "kpa", "rule-of-thumb", ...) evaluated per window. Ignored by methods
        without a kernel (recorded as None in ``params``).
    lead : None or str
        None: the recording's selected lead; a lead name of ``recording.leads``;
        or a multi-lead mode (issue 7, with :mod:`edr.leads`), per window:
        ``"auto"`` — the lead whose EDR scores best by
        :func:`edr.leads.assess_leads` (ECG alone); ``"fuse"`` — the
        quality-weighted, sign-aligned combination of the single-lead EDRs;
        ``"multilead"`` — kernel PCA of the concatenated QRS windows of the
        usable leads at jointly detected beats (kernel methods only). Per-lead
        scores go to ``WindowInfo.quality["lead_scores"]``.
    window_s : float, optional
        Analysis window (s, >= 20); None: whole record up to 600 s, else 300 s
        (``solver="dense"``). Must be None with ``solver="fs2"``.
    overlap : float, default :data:`DEFAULT_OVERLAP` (0.25)
        Fraction of a window shared with the next one.
    fs_out : float, default 4.0
        Rate (Hz) of the output grid.
    random_state : None, int or Generator, default 0
        Passed to the σ² criterion (MDD's noise realisations).
    progress : bool, default False
        Show a tqdm bar over the windows.
    solver : {"dense", "fs2"}, default "dense"
        Kernel methods (``kpca``, ``kpca_rsa``) only. ``"dense"``: dense kernel
        PCA per analysis window (see ``window_s``), windows stitched.
        ``"fs2"``: one fixed-size kernel PCA model (FS2 + Nyström, Varon et al.
        2015, Sec. V-1; σ² criterion on the support vectors + validation set,
        Fig. 8) over all valid beats of the whole record, every beat projected
        onto it; memory ``O(N d + 4096 M + M^2)``. The default is "dense" by measurement (see
        the module docstring).
    n_support : int, optional
        ``solver="fs2"`` only: support vectors ``M`` (2 <= M <= valid beats,
        minus one with a σ² criterion). None: ``min(200, N - 1)``
        (:data:`edr.methods.DEFAULT_N_SUPPORT`).
    **options
        Method options: for the kernel methods ``orientation`` ("beats" or
        "positions") and options of :func:`kpca.selection.select`; other
        methods take none.

    Returns
    -------
    EDRResult

    Raises
    ------
    ValueError
        Unknown method or solver (lists the valid keys), bad
        ``window_s``/``overlap``/``fs_out``/``sigma2``/``n_support``, ``solver="fs2"``
        with a method without kernel, a ``window_s`` or ``lead="multilead"``.
    ChannelError
        ``lead`` not in the recording.
    SignalError
        ``fs`` outside 100–10 000 Hz, fewer than 20 beats, no analysable window.
    TypeError
        Options the method does not take.
    """
    spec = get_method(method)
    _check_args(recording, window_s, overlap, fs_out)
    _check_solver(solver, n_support, method, spec, window_s, lead)
    leads, lead_mode = _lead_arrays(recording, lead, method)
    lead_name = lead_mode if lead_mode in LEAD_MODES else next(iter(leads))
    x = next(iter(leads.values()))
    fs = float(recording.fs)
    fs_out = float(fs_out)
    _check_options(method, spec, options)
    kwargs = dict(options)
    if spec.uses_sigma2:
        kwargs.update(sigma2=sigma2, random_state=random_state)
    if solver == "fs2":
        kwargs.update(solver=solver, n_support=n_support)

    duration = x.size / fs
    if solver == "fs2":
        plan = [(0.0, float(duration))]
    else:
        plan = plan_windows(duration, None if window_s is None else float(window_s), float(overlap))
    n_out = int(np.floor(duration * fs_out + 1e-9))
    grid = np.arange(n_out) / fs_out
    acc = np.zeros(n_out)
    wsum = np.zeros(n_out)
    covered = np.zeros(n_out, dtype=bool)
    beat_t, beat_v, ref_t, ref_v = [], [], [], []
    infos: list[WindowInfo] = []
    first = None
    n_used = n_dropped = 0
    iterator = enumerate(plan)
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(iterator, total=len(plan), desc=f"EDR {method}", unit="window")
    for i, (a, b) in iterator:
        prev_end = plan[i - 1][1] if i > 0 else None
        next_start = plan[i + 1][0] if i + 1 < len(plan) else None
        core_a = a if prev_end is None else 0.5 * (a + prev_end)
        core_b = b if next_start is None else 0.5 * (b + next_start)
        i0, i1 = int(np.floor(a * fs)), min(int(np.ceil(b * fs)), x.size)
        t0 = i0 / fs
        gm = (grid >= t0) & (grid <= (i1 - 1) / fs)
        try:
            if gm.sum() < 8:
                raise SignalError(f"window {a:.1f}-{b:.1f} s has too few grid points")
            seg, beats, out, y, lead_q = _analyse_window(
                leads, lead_mode, i0, i1, fs, grid[gm], fs_out, spec, kwargs)
        except SignalError as exc:
            if len(plan) == 1:
                raise
            infos.append(WindowInfo(a, b, 0, 0, None, lead_name,
                                    {"status": f"skipped: {str(exc).splitlines()[0]}"}))
            continue
        seg_x = seg.ecg
        valid = np.asarray(beats.valid, dtype=bool)
        bt = seg.beat_times
        used_t = bt[valid]
        # mask grid points far from every used beat
        tg = grid[gm]
        k = np.clip(np.searchsorted(used_t, tg), 1, max(used_t.size - 1, 1))
        dist = np.minimum(np.abs(tg - used_t[k - 1]), np.abs(tg - used_t[np.minimum(k, used_t.size - 1)]))
        ok = dist <= MAX_GAP_S
        mu, sd = y[ok].mean(), y[ok].std()
        sd = sd if sd > 0 else 1.0
        z = (y - mu) / sd
        # sign alignment with the windows already written on the overlap
        prev = covered[gm] & ok & (wsum[gm] > 0)
        sign = 1.0
        if prev.sum() >= 8:
            if np.dot(z[prev], acc[gm][prev] / wsum[gm][prev]) < 0:
                sign = -1.0
        elif spec.sign_reference is not None and first is not None:
            sign = _local_sign(seg, tg, z)
        z *= sign
        w = _ramp_weights(tg, t0, (i1 - 1) / fs, prev_end, next_start) * ok
        acc[gm] += w * z
        wsum[gm] += w
        covered[gm] |= ok
        # per-beat values of the window's core
        core = (bt >= core_a) & (bt < core_b)
        if out.kind == "beats":
            vt, vv = np.asarray(out.times), sign * (np.asarray(out.values) - mu) / sd
            m = (vt >= core_a) & (vt < core_b)
            beat_t.append(vt[m])
            beat_v.append(vv[m])
        else:
            m = core & valid
            beat_t.append(bt[m])
            beat_v.append(np.interp(bt[m], tg, z))
        if spec.sign_reference is not None:
            ra = r_amplitude(seg_x, fs, beats)[valid]
            ra = (ra - ra.mean()) / (ra.std() if ra.std() > 0 else 1.0)
            m = (used_t >= core_a) & (used_t < core_b)
            ref_t.append(used_t[m])
            ref_v.append(ra[m])
        nu, nd = int((core & valid).sum()), int((core & ~valid).sum())
        n_used += nu
        n_dropped += nd
        q = {"status": "ok", "spectral_concentration": spectral_concentration(z[ok], fs_out)}
        q.update(out.quality)
        q.update({"n_ectopic": int(beats.n_ectopic), "n_artifact": int(beats.n_artifact),
                  "n_masked_samples": int(beats.n_masked)})
        q.update(lead_q)
        infos.append(WindowInfo(a, b, int(valid.sum()), int((~valid).sum()), out.sigma2, seg.lead, q))
        if first is None:
            first = out
    if first is None:
        raise SignalError(f"no analysable window in lead {lead_name!r} of "
                          f"{getattr(recording, 'name', '?')!r}: "
                          + "; ".join(w.quality["status"] for w in infos))
    if lead_mode == "auto" and len({w.lead for w in infos if w.quality.get("status") == "ok"}) == 1:
        lead_name = next(w.lead for w in infos if w.quality.get("status") == "ok")
    raw = np.where(wsum > 0, acc / np.where(wsum > 0, wsum, 1.0), 0.0)
    beat_times = np.concatenate(beat_t) if beat_t else np.empty(0)
    beat_values = np.concatenate(beat_v) if beat_v else np.empty(0)
    flip = 1.0
    if spec.sign_reference is not None and ref_t:
        rt, rv = np.concatenate(ref_t), np.concatenate(ref_v)
        if rt.size > 2 and np.dot(np.interp(rt, grid, raw) - raw.mean(), rv) < 0:
            flip = -1.0
    waveform = flip * bandpass(raw, fs=fs_out)
    waveform[~covered] = 0.0
    beat_values = flip * beat_values
    order = np.argsort(beat_times, kind="stable")
    rate_t, rate_b = rate_series(waveform, fs=fs_out, t0=float(grid[0]) if grid.size else 0.0)
    params = {"method": method, "sigma2": sigma2 if spec.uses_sigma2 else None, "lead": lead_name,
              "lead_requested": lead, "window_s": window_s, "windows_planned": len(plan),
              "overlap": overlap, "fs_out": fs_out, "random_state": _json_safe(random_state)
              if not isinstance(random_state, np.random.Generator) else "Generator",
              "max_gap_s": MAX_GAP_S, "solver": solver if spec.uses_sigma2 else None,
              "n_support": first.quality.get("n_support"), "train_on": first.quality.get("train_on"),
              **options}
    return EDRResult(time=grid, waveform=waveform, fs=fs_out,
                     beat_times=beat_times[order], beat_values=beat_values[order],
                     rate_time=rate_t, rate_bpm=rate_b, method=method, lead=lead_name,
                     sigma2=first.sigma2, selection=first.selection, windows=infos,
                     n_beats=n_used, n_beats_dropped=n_dropped, params=params)


def _check_options(method, spec, options):
    import inspect

    params = inspect.signature(spec.func).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    known = {n for n, p in params.items() if p.kind is p.KEYWORD_ONLY}
    unknown = sorted(set(options) - known)
    if unknown:
        raise TypeError(f"method {method!r} takes no option {unknown}; its options are {sorted(known)}")


def _single(x, i0, i1, fs, grid, fs_out, name, spec, kwargs):
    seg_x = x[i0:i1]
    beats = detect(seg_x, fs)
    seg = Segment(seg_x, fs, i0 / fs, beats, grid, fs_out, name)
    out = spec.func(seg, **kwargs)
    return seg, beats, out, _series_on_grid(seg, out)


def _analyse_window(leads, mode, i0, i1, fs, grid, fs_out, spec, kwargs):
    """Segment, beats, method output and grid series of one window (one lead, or leads combined).

    ``mode`` None: the single lead in ``leads``. "auto": each lead's EDR, then
    the lead with the best :func:`edr.leads.assess_leads` score. "fuse": the
    quality-weighted, sign-aligned combination of the single-lead EDRs
    (:func:`edr.leads.fuse_edrs`). "multilead": kernel PCA of the concatenated
    QRS windows of the usable leads at jointly detected beats
    (:func:`edr.leads.multilead_kpca`). The returned segment and beats are
    those of the chosen (or best) lead; they carry the sign reference.
    """
    if mode is None:
        (name, x), = leads.items()
        seg, beats, out, y = _single(x, i0, i1, fs, grid, fs_out, name, spec, kwargs)
        return seg, beats, out, y, {}
    from edr import leads as lead_tools

    runs, errors = {}, {}
    for name, x in leads.items():
        try:
            runs[name] = _single(x, i0, i1, fs, grid, fs_out, name, spec, kwargs)
        except SignalError as exc:
            errors[name] = str(exc).splitlines()[0]
    if not runs:
        raise SignalError("no lead gives an EDR in the window: "
                          + "; ".join(f"{n}: {e}" for n, e in errors.items()))
    quality = lead_tools.assess_leads(
        {n: leads[n][i0:i1] for n in runs}, fs, beats={n: r[1] for n, r in runs.items()},
        edrs={n: r[3] for n, r in runs.items()}, fs_out=fs_out)
    for n, e in errors.items():
        quality[n] = lead_tools.LeadQuality(lead=n, usable=False, reason=e)
    best = lead_tools.choose_lead(quality)
    seg, beats, out, y = runs[best]
    info = {"lead_scores": {n: float(q.score) for n, q in quality.items()},
            "lead_reasons": {n: q.reason for n, q in quality.items() if not q.usable}}
    if mode == "auto":
        return seg, beats, out, y, info
    if mode == "fuse":
        usable = {n: runs[n][3] for n in runs if quality[n].usable}
        fused = lead_tools.fuse_edrs(usable, quality)
        q = dict(out.quality)
        q["fused_leads"] = sorted(usable)
        fused_out = MethodOutput(grid, fused, "grid", out.sigma2, out.selection, q)
        return seg, beats, fused_out, fused, info
    # multilead
    joint, offsets = lead_tools.joint_beats({n: r[1] for n, r in runs.items()},
                                            {n: q for n, q in quality.items() if n in runs})
    seg_leads = {n: leads[n][i0:i1] for n in offsets}
    kw = {k: v for k, v in kwargs.items() if k in ("sigma2", "random_state")}
    times, values, model = lead_tools.multilead_kpca(seg_leads, fs, joint, offsets, **kw)
    jseg = Segment(leads[best][i0:i1], fs, i0 / fs, joint, grid, fs_out, best)
    mout = MethodOutput(i0 / fs + times, values, "beats", float(model.sigma2_),
                        getattr(model, "selection_", None),
                        {"multilead_leads": sorted(offsets), "n_features": int(model.n_features_in_)})
    return jseg, joint, mout, _series_on_grid(jseg, mout), info


def _local_sign(seg: Segment, tg, z) -> float:
    """Sign making ``z`` correlate positively with the window's R amplitude (no overlap to align on)."""
    v = seg.valid
    ra = r_amplitude(seg.ecg, seg.fs, seg.beats)[v]
    zi = np.interp(seg.beat_times[v], tg, z)
    return -1.0 if np.dot(zi - zi.mean(), ra - ra.mean()) < 0 else 1.0
