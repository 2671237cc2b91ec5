"""ECG-derived respiration from a recording: :func:`extract_edr` → :class:`EDRResult`.

Per analysis window (:mod:`edr.windows`): the window's ECG → :func:`edr.beats.detect`
→ an EDR method of :data:`edr.methods.METHODS` → the series on the uniform
``fs_out`` grid. The windows are stitched, band-passed and given their sign by
:class:`edr.stitch.Stitcher`; the respiratory rate and its quality come from
:func:`edr.rates.judged_rates` (no rate where the quality is below
:data:`edr.rates.QUALITY_THRESHOLD`). Options are validated once by
:class:`edr.options.EDROptions`. Design and measurements:
``docs/design.md#2-edr-pipeline-decisions``.
"""

from __future__ import annotations

import numbers
import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from itertools import islice

import numpy as np

from edr.breath_rates import with_counted_rates
from edr.errors import SignalError
from edr.io.arrays import as_recording
from edr.methods import DEFAULT_SIGMA2
from edr.options import (
    DEFAULT_METHOD,
    DEFAULT_MULTI_LEAD,
    DEFAULT_OVERLAP,
    DEFAULT_WINDOW_S,
    LEAD_MODES,
    MIN_WINDOW_S,
    WHOLE_RECORD_MAX_S,
    EDROptions,
)
from edr.rates import RateSpan, judged_rates, settled_span
from edr.result import EDRResult, WindowInfo
from edr.signal import GRID_FS, MIN_BEATS, RATE_WINDOW_S
from edr.stitch import MAX_GAP_S, Stitcher, WindowPart
from edr.window_analysis import MIN_GRID_POINTS, WindowAnalysis, analyse_window
from edr.windows import (
    Window,
    check_rate,
    output_grid,
    plan_record,
    plan_windows,
    record_leads,
)
from kpca._blas import blas_limited_to_one_thread

__all__ = ["EDRResult", "WindowInfo", "extract_edr", "plan_windows", "EDROptions",
           "DEFAULT_WINDOW_S", "DEFAULT_OVERLAP", "WHOLE_RECORD_MAX_S", "MAX_GAP_S",
           "MIN_WINDOW_S", "LEAD_MODES"]

#: threads analysing the windows of a long record (:func:`_analyses`)
WINDOW_THREADS = min(os.cpu_count() or 1, 4)
#: windows submitted to those threads beyond the one being stitched, also the most analyses in
#: memory at a time besides it: one more than the threads, so that a thread that finishes a
#: window before an earlier one starts the next at once instead of waiting for the earlier one
WINDOWS_AHEAD = WINDOW_THREADS + 1


def extract_edr(recording, method=DEFAULT_METHOD, *, fs=None, lead_names=None, units=None,
                resp=None, resp_fs=None, breath_times=None, sigma2=DEFAULT_SIGMA2, lead=None,
                window_s=None, overlap=DEFAULT_OVERLAP, fs_out=GRID_FS, random_state=0,
                progress=False, solver="dense", n_support=None, r_peaks=None,
                **options) -> EDRResult:
    """Extract the respiratory signal from an ECG.

    Parameters
    ----------
    recording : array_like, pandas.DataFrame, pandas.Series, Recording, str or Path
        The ECG: a 1-D array (one lead), a 2-D array (samples × leads) or a DataFrame with
        ``fs``; a :class:`~edr.io.recording.Recording`; or a path (:func:`edr.io.read_record`).
    fs, lead_names, units, resp, resp_fs, breath_times : optional
        Of an ECG array (``fs`` required, units default mV): see
        :func:`edr.io.arrays.recording_from_arrays`.
    method : str, default :data:`~edr.options.DEFAULT_METHOD` ("kpca_fusion")
        Key of :data:`edr.methods.METHODS`. ``"kpca"`` is the paper's method
        (first kernel principal component, ``n_c = 1``).
    sigma2 : float or str, default :data:`~edr.methods.DEFAULT_SIGMA2` ("mdd-fast")
        Kernel width, or a :mod:`kpca.selection` criterion ("mdd-fast", "mdd", "shannon",
        "kpa", "rule-of-thumb", ...) evaluated per window by the kernel PCA
        estimator. Ignored by methods without a kernel (recorded as None in ``params``).
    lead, window_s, overlap, fs_out, random_state, progress, solver, n_support
        The fields of :class:`~edr.options.EDROptions` of the same names (meanings,
        defaults and checks there): the lead or multi-lead mode, the analysis windows,
        the output grid rate, the seed of the σ² criterion, a tqdm bar, and the kernel
        PCA solver (dense per window, or one fixed-size model of the whole record).
    r_peaks : array_like or str or Path, optional
        R-peak times of one's own (s from the first sample) or a file of them: the beats in place
        of detected ones (:func:`edr.io.r_peaks.with_r_peaks`).
    **options
        Method options: for the kernel methods ``orientation``, ``baseline``,
        ``train_on`` and options of :func:`kpca.selection.select`; ``pca``
        takes ``baseline``; other methods take none.

    Returns
    -------
    EDRResult
        Grid points farther than :data:`MAX_GAP_S` from every used beat, and
        those of skipped windows, are NaN in the waveform; rate windows whose
        quality is below :data:`edr.rates.QUALITY_THRESHOLD` have no rate.

    Raises
    ------
    ValueError
        Invalid options (:class:`~edr.options.EDROptions`,
        :class:`edr.methods.KernelOptions`), ``n_support`` above the valid beats.
    ChannelError
        ``lead`` not in the recording.
    SignalError
        ``fs`` outside :data:`edr.signal.FS_RANGE`, a record shorter than
        :data:`edr.window_analysis.MIN_GRID_POINTS` grid points, fewer than
        :data:`edr.signal.MIN_BEATS` beats in a single window, no analysable window.
    TypeError
        Options the method does not take; array arguments with a Recording or a path; a number
        as ``method`` (a sampling rate given without ``fs=``).
    ArrayShapeError, ArrayTypeError, SamplingRateError, MissingSignalError, UnitError
        An ECG array that cannot be one (:func:`edr.io.arrays.recording_from_arrays`).

    See Also
    --------
    edr.io.read_record, edr.io.arrays.recording_from_arrays, edr.tables

    References
    ----------
    .. [1] D. Widjaja, C. Varon, A. C. Dorado, J. A. K. Suykens and S. Van Huffel, "Application of
       kernel principal component analysis for single-lead ECG-derived respiration," IEEE Trans.
       Biomed. Eng. 59(4), 1169-1176, 2012. Kernel PCA of the QRS windows for single-lead EDR (the
       ``kpca`` method).
    .. [2] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. The
       kernel PCA model, Eqs. (4)-(7) and (12), and the MDD selection of σ², Sec. IV, Eqs. (11)-(15)
       (``sigma2="mdd"``; ``"mdd-fast"`` is this package's faster variant), applied to EDR in Sec.
       VI-C.
    .. [3] P. H. Charlton, T. Bonnici, L. Tarassenko, D. A. Clifton, R. Beale and P. J. Watkinson,
       "An assessment of algorithms to estimate respiratory rate from the electrocardiogram and
       photoplethysmogram," Physiol. Meas. 37(4), 610-626, 2016. Rates from 32 s windows and the
       fusion of several respiratory features.

    Examples
    --------
    >>> from edr.pipeline import extract_edr
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=120.0, fs=250.0, random_state=0)
    >>> res = extract_edr(rec)
    >>> res.method, res.status, res.fs, res.time.size
    ('kpca_fusion', 'ok', 4.0, 480)
    >>> list(res.grid_columns())
    ['time_s', 'edr', 'rate_bpm', 'quality']
    >>> extract_edr(rec.ecg, fs=250.0).rate_frame().shape  # an array and its sampling rate
    (6, 6)
    """
    if isinstance(method, numbers.Real) and not isinstance(method, bool):
        raise TypeError(f"extract_edr(ecg, {method!r}): the second argument is the method's name; "
                        f"give the sampling rate by keyword, extract_edr(ecg, fs={method!r})")
    opts = EDROptions(method=method, sigma2=sigma2, lead=lead, window_s=window_s, overlap=overlap,
                      fs_out=fs_out, random_state=random_state, progress=progress, solver=solver,
                      n_support=n_support, method_options=options)
    recording = as_recording(recording, fs=fs, lead_names=lead_names, units=units, resp=resp,
                             resp_fs=resp_fs, breath_times=breath_times)
    if r_peaks is not None:
        from edr.io.r_peaks import with_r_peaks

        recording = with_r_peaks(recording, r_peaks)
    return run(recording, opts)


def run(recording, opts: EDROptions) -> EDRResult:
    """:func:`extract_edr` with its options already validated."""
    fs = check_rate(recording)
    if getattr(recording, "r_peaks", None) is not None:
        opts = replace(opts, r_peaks=recording.r_peaks)
    requested = opts.lead
    if opts.lead is None and len(getattr(recording, "leads", None) or {}) > 1:
        opts = replace(opts, lead=DEFAULT_MULTI_LEAD)
    leads = record_leads(recording, opts)
    lead_name = opts.lead_mode or next(iter(leads))
    duration = next(iter(leads.values())).size / fs
    grid = output_grid(duration, opts.fs_out)
    if grid.size < MIN_GRID_POINTS:
        raise SignalError(
            f"record {getattr(recording, 'name', '?')!r} holds {duration:.3g} s of ECG "
            f"({round(duration * fs)} samples at {fs:g} Hz), too short for an EDR, which needs "
            f"at least {MIN_BEATS} heart beats (a respiratory rate needs {RATE_WINDOW_S:g} s); "
            "give a "
            "longer recording (a minute or more)")
    plan, masked, dead, rails = plan_record(recording, leads, duration, opts)
    stitcher = Stitcher(grid, opts.fs_out, opts.spec.sign_reference is not None)
    infos: list[WindowInfo] = []
    analyses = []  # (window, info) of the analysed windows
    spans = []  # what judging the rates needs of them (settled): their analyses are not kept
    first = None
    n_used = n_dropped = 0
    clipped_beats = {}
    for window, wa, exc in _analyses(_progress(plan, opts), leads, fs, grid, opts):
        if exc is not None:
            if len(plan) == 1:
                raise exc
            infos.append(WindowInfo(window.start_s, window.end_s, 0, 0, None, lead_name,
                                    {"status": f"skipped: {str(exc).splitlines()[0]}"}))
            continue
        part = stitcher.add(window, wa)
        n_used, n_dropped = n_used + part.n_used, n_dropped + part.n_dropped
        clipped_beats[wa.segment.lead] = clipped_beats.get(wa.segment.lead, 0) + part.n_clipped
        infos.append(_window_info(window, wa, part))
        analyses.append((window, infos[-1]))
        spans.append(settled_span(RateSpan.of(window, wa), grid.size, opts.fs_out, grid[0]))
        if first is None:
            first = wa.output
    if first is None:
        raise SignalError(f"no analysable window in lead {lead_name!r} of "
                          f"{getattr(recording, 'name', '?')!r}: "
                          + "; ".join(w.quality["status"] for w in infos))
    ok_leads = {w.lead for w in infos if w.quality.get("status") == "ok"}
    if opts.lead_mode == "auto" and len(ok_leads) == 1:
        lead_name = ok_leads.pop()
    out = stitcher.finish()
    rates = judged_rates(out.waveform, grid, spans, opts.fs_out)
    rates, status = rates.judge_windows(analyses)
    params = {**_params(opts, lead_name, len(plan), first), "lead_requested": requested,
              "r_peaks": getattr(recording, "r_peaks_source", None)}
    return with_counted_rates(EDRResult(
        time=grid, waveform=out.waveform, fs=opts.fs_out, beat_times=out.beat_times,
        beat_values=out.beat_values, rate_time=rates.time, rate_bpm=rates.rate_bpm,
        method=opts.method, lead=lead_name, sigma2=first.sigma2, selection=first.selection,
        windows=infos, n_beats=n_used, n_beats_dropped=n_dropped, params=params,
        rate_quality=rates.quality, status=status, masked=masked, unusable_leads=dead,
        clipped_samples=rails, clipped_beats=clipped_beats))


def _analyses(plan, leads: dict, fs: float, grid: np.ndarray, opts: EDROptions):
    """``(window, analysis, None)`` or ``(window, None, SignalError)`` of every window of
    ``plan``, in plan order (:func:`edr.window_analysis.analyse_window`).

    With several windows the analyses run in :data:`WINDOW_THREADS` threads (at most
    :data:`WINDOWS_AHEAD` windows submitted ahead of the one yielded, BLAS limited to one thread
    throughout), so the windows share the cores; each window's analysis depends only on the
    window, so the results do not depend on the scheduling. A ``numpy.random.Generator`` as
    ``random_state`` is consumed in window order, so windows are then analysed one after the
    other; so is a single window, BLAS on one thread as well (its small products are faster so,
    and a loaded machine's waiting BLAS threads spin).
    """
    def one(window):
        try:
            return window, analyse_window(window, leads, fs, grid, opts), None
        except SignalError as exc:
            return window, None, exc

    if len(plan) == 1 or isinstance(opts.random_state, np.random.Generator):
        with blas_limited_to_one_thread():
            yield from map(one, plan)
        return
    windows = iter(plan)
    with blas_limited_to_one_thread(), ThreadPoolExecutor(max_workers=WINDOW_THREADS) as pool:
        ahead = deque(pool.submit(one, w) for w in islice(windows, WINDOWS_AHEAD))
        while ahead:
            done = ahead.popleft().result()
            ahead.extend(pool.submit(one, w) for w in islice(windows, 1))
            yield done


def _progress(plan, opts: EDROptions):
    if not opts.progress:
        return plan
    from tqdm.auto import tqdm

    return tqdm(plan, total=len(plan), desc=f"EDR {opts.method}", unit="window")


def _window_info(window: Window, wa: WindowAnalysis, part: WindowPart) -> WindowInfo:
    beats = wa.segment.beats
    valid = wa.segment.valid
    q = {"status": "ok", "spectral_concentration": part.concentration, **wa.output.quality,
         "n_ectopic": int(beats.n_ectopic), "n_artifact": int(beats.n_artifact),
         "n_masked_samples": int(beats.n_masked), **wa.lead_info}
    ectopic = np.asarray(beats.ectopic, dtype=bool)
    kept = {"times": wa.segment.beat_times, "valid": valid, "ectopic": ectopic}
    return WindowInfo(window.start_s, window.end_s, int(valid.sum()), int((~valid).sum()),
                      wa.output.sigma2, wa.segment.lead, q, kept)


def _params(opts: EDROptions, lead_name: str, n_windows: int, first) -> dict:
    """Every option used, for ``EDRResult.params``."""
    kernel = opts.spec.uses_sigma2
    random_state = ("Generator" if isinstance(opts.random_state, np.random.Generator)
                    else opts.random_state)
    return {"method": opts.method, "sigma2": opts.sigma2 if kernel else None, "lead": lead_name,
            "lead_requested": opts.lead, "window_s": opts.window_s, "windows_planned": n_windows,
            "overlap": opts.overlap, "fs_out": opts.fs_out, "random_state": random_state,
            "max_gap_s": MAX_GAP_S, "solver": opts.solver if kernel else None,
            "n_support": first.quality.get("n_support"), "train_on": first.quality.get("train_on"),
            **opts.method_options}
