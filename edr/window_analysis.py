"""The analysis of one window: beats, the EDR method and the series on the output grid.

:func:`analyse_window` runs beat detection and the EDR method on one :class:`edr.windows.Window`
(one lead, or every lead for the multi-lead modes) and returns a :class:`WindowAnalysis` whose
series is on the window's points of the record's output grid, with the evidence panel that
judges its rates (:func:`evidence_panel`). The window plan and the leads are
:mod:`edr.windows`'s; stitching the windows together is :mod:`edr.stitch`'s.
"""
from __future__ import annotations

import contextlib
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

import numpy as np

from edr.beats import Beats, detect
from edr.errors import SignalError
from edr.fusion import HEART_SERIES, carried_hz, fuse, panel_weights, standardised
from edr.methods import MethodOutput, Segment, series_on_grid
from edr.options import EDROptions
from edr.windows import Window
from kpca._blas import blas_limited_to_one_thread

__all__ = ["MIN_GRID_POINTS", "WindowAnalysis", "analyse_window"]

MIN_GRID_POINTS = 8
"""Fewest output grid points a window must cover to be analysed."""


@dataclass
class WindowAnalysis:
    """Result of :func:`analyse_window`.

    Attributes
    ----------
    segment : Segment
        The analysed (or chosen) lead over the window with its beats; it carries the sign reference.
    output : MethodOutput
        The method's series.
    series : ndarray
        ``output`` on the grid points ``grid[grid_mask]``.
    grid_mask : ndarray of bool
        The record grid points inside the window's samples.
    span : tuple of float
        Times (s) of the window's first and last ECG sample.
    lead_info : dict
        Multi-lead modes: ``lead_scores`` and ``lead_reasons``; else empty.
    panel : dict
        Band-passed, standardised series on the same grid points that judge the
        rate (:func:`edr.rates.rate_quality`): the fused series of a fusion
        method (of every usable lead with ``lead="fuse"``), else the output with
        the lead's R amplitude and QRS area (:func:`evidence_panel`).
    weights : dict
        The weight of each ``panel`` series (:func:`edr.fusion.panel_weights`; a
        fusion method's own fusion weights).
    lead_sigma2 : dict
        Kernel methods: the kernel width each lead that gave an EDR was analysed with.
    lead_models : dict
        ``kpca_fusion``: each lead's :class:`edr.methods.KernelFit` whose series are in the
        panel (the analysed lead alone without a multi-lead mode); else empty.
    """

    segment: Segment
    output: MethodOutput
    series: np.ndarray
    grid_mask: np.ndarray
    span: tuple
    lead_info: dict
    panel: dict
    weights: dict
    lead_sigma2: dict = field(default_factory=dict)
    lead_models: dict = field(default_factory=dict)


def analyse_window(window: Window, leads: dict, fs: float, grid: np.ndarray,
                   opts: EDROptions, *, sigma2: Mapping[str, float] | None = None,
                   beats: Mapping[str, Beats] | None = None,
                   features: Mapping[str, dict] | None = None,
                   lead_threads: bool = True) -> WindowAnalysis:
    """Beats, method output and grid series of one window.

    ``opts.lead_mode`` None: the single lead in ``leads``. ``"auto"``: each
    lead's EDR, then the lead with the best :func:`edr.leads.assess_leads`
    score. ``"fuse"``: the quality-weighted, sign-aligned combination of the
    single-lead EDRs (:func:`edr.leads.fuse_edrs`). ``"multilead"``: kernel
    PCA of the concatenated QRS windows of the joined leads at jointly
    detected beats (:func:`edr.multilead.multilead_kpca`). The segment returned is
    the chosen (or best) lead's. ``sigma2`` (kernel methods): a kernel width per lead name that
    replaces ``opts.sigma2`` for that lead (leads not in it use ``opts.sigma2``). ``beats``: the
    beats of a lead over the window's samples (peaks from the window's first sample), used
    instead of detecting them (leads not in it are detected); ``features``: per-beat features of
    those beats (:attr:`edr.methods.Segment.features`, e.g. a stream's kept ones), used instead of
    reading them from the ECG. ``lead_threads``: whether a kernel method runs the leads in threads
    of their own (:func:`_lead_runs`; the same result either way).

    Raises
    ------
    SignalError
        The window covers fewer than :data:`MIN_GRID_POINTS` grid points, or no
        lead gives an EDR in it.
    """
    n = next(iter(leads.values())).size
    i0, i1 = int(np.floor(window.start_s * fs)), min(int(np.ceil(window.end_s * fs)), n)
    span = (i0 / fs, (i1 - 1) / fs)
    gm = (grid >= span[0]) & (grid <= span[1])
    if gm.sum() < MIN_GRID_POINTS:
        raise SignalError(f"window {window.start_s:.1f}-{window.end_s:.1f} s has too few grid "
                          "points")
    tg = grid[gm]
    lead_opts = _lead_options(leads, opts, sigma2)
    given = {n: (b, (features or {}).get(n)) for n, b in (beats or {}).items()}
    if opts.lead_mode is None:
        (name, x), = leads.items()
        seg, out, y = _single(x, i0, i1, fs, tg, name, lead_opts[name], given.get(name))
        info, used = {}, {name: out.sigma2}
    else:
        seg, out, y, info, used = _several_leads(leads, i0, i1, fs, tg, opts, lead_opts, given,
                                                 lead_threads)
    panel = evidence_panel(seg, out, y)
    weights = dict(out.weights) if out.weights else panel_weights(panel, opts.fs_out)
    lead_sigma2 = {n: float(s) for n, s in used.items() if s is not None}
    models = out.model if isinstance(out.model, dict) else \
        ({seg.lead: out.model} if out.model is not None else {})
    return WindowAnalysis(seg, out, y, gm, span, info, panel, weights, lead_sigma2, models)


def _lead_options(leads: dict, opts: EDROptions, sigma2) -> dict:
    """Each lead's options: ``opts`` with the lead's kernel width of ``sigma2`` when given; a lone
    lead's with the method's one-lead options under the explicit ones (``spec.one_lead``)."""
    if len(leads) == 1 and opts.spec.one_lead:
        opts = replace(opts, method_options={**opts.spec.one_lead, **opts.method_options})
    if not sigma2 or not opts.spec.uses_sigma2:
        return dict.fromkeys(leads, opts)
    return {n: replace(opts, sigma2=float(sigma2[n])) if n in sigma2 else opts for n in leads}


def evidence_panel(seg: Segment, out: MethodOutput, series: np.ndarray) -> dict:
    """The series that judge a window's rate: ``out.panel`` when the method fused one, else the
    output itself (``"edr"``) with the lead's R amplitude and QRS area, each band-passed and
    standardised on the segment's grid."""
    if out.panel:
        return dict(out.panel)
    v = seg.valid
    tv = seg.beat_times[v]
    classic = {"r_amplitude": seg.r_amplitudes()[v],
               "qrs_area": seg.qrs_areas()[v]}
    panel = {"edr": standardised(series, seg.fs_out)}
    for name, values in classic.items():
        panel[name] = standardised(series_on_grid(seg, MethodOutput(tv, values)), seg.fs_out)
    return panel


def _segment(x, i0, i1, fs, grid, name, opts: EDROptions, given=None) -> Segment:
    """One lead over samples ``[i0, i1)`` with its beats: detected (at R peaks given, if any), or
    ``given`` as ``(beats, their features or None)``."""
    seg_x = x[i0:i1]
    beats, features = given or (detect(seg_x, fs, peaks=opts.peaks_between(i0, i1, fs)), None)
    return Segment(seg_x, fs, i0 / fs, beats, grid, opts.fs_out, name, dict(features or {}))


def _method_run(seg: Segment, opts: EDROptions):
    """(segment, method output, grid series) of a segment."""
    out = opts.spec.func(seg, **opts.method_kwargs)
    return seg, out, series_on_grid(seg, out)


def _single(x, i0, i1, fs, grid, name, opts: EDROptions, given=None):
    """(segment, method output, grid series) of one lead over samples ``[i0, i1)`` (``given``:
    as :func:`_segment`'s)."""
    return _method_run(_segment(x, i0, i1, fs, grid, name, opts, given), opts)


def _lead_runs(leads, i0, i1, fs, grid, opts: EDROptions, lead_opts: dict | None = None,
               given: Mapping[str, tuple] | None = None, threads: bool = True):
    """``(runs, errors)``: :func:`_single` of every lead that gives an EDR (with its options of
    ``lead_opts``, default ``opts``), in the order of ``leads``, and the first line of the
    :class:`SignalError` of every other lead.

    A kernel method runs each lead whole (beat detection, then the method) in a thread of its
    own (BLAS limited to one thread; the σ² selections share the thread pool of
    :mod:`kpca.selection`), so the leads' detections overlap each other and the GIL-free
    selections. Each lead's result is that of :func:`_single` run with BLAS on one thread,
    whatever the scheduling. ``given``: per lead, its ``(beats, features or None)`` (as
    :func:`analyse_window`'s ``beats`` and ``features``). ``threads=False`` runs the leads one
    after the other, BLAS on one thread as well (a stream's refit, whose beats are given:
    ``docs/design.md#8-streaming``).
    """
    errors = {}
    lead_opts = lead_opts or dict.fromkeys(leads, opts)
    given = given or {}
    if not opts.spec.uses_sigma2 or len(leads) == 1 or not threads:
        runs = {}
        with contextlib.nullcontext() if threads else blas_limited_to_one_thread():
            for name, x in leads.items():
                try:
                    runs[name] = _single(x, i0, i1, fs, grid, name, lead_opts[name],
                                         given.get(name))
                except SignalError as exc:
                    errors[name] = str(exc).splitlines()[0]
        return runs, errors
    with blas_limited_to_one_thread(), ThreadPoolExecutor(max_workers=len(leads)) as pool:
        pending = {name: pool.submit(_single, x, i0, i1, fs, grid, name, lead_opts[name],
                                     given.get(name))
                   for name, x in leads.items()}
        runs = {}
        for name, future in pending.items():
            try:
                runs[name] = future.result()
            except SignalError as exc:
                errors[name] = str(exc).splitlines()[0]
    return runs, errors


def _several_leads(leads, i0, i1, fs, grid, opts: EDROptions, lead_opts: dict, given=None,
                   lead_threads: bool = True):
    """(segment, output, series, lead info, each lead's kernel width) of a multi-lead mode."""
    from edr import leads as lead_tools

    runs, errors = _lead_runs(leads, i0, i1, fs, grid, opts, lead_opts, given, lead_threads)
    if not runs:
        raise SignalError("no lead gives an EDR in the window: "
                          + "; ".join(f"{n}: {e}" for n, e in errors.items()))
    quality = lead_tools.assess_leads(
        {n: leads[n][i0:i1] for n in runs}, fs, beats={n: r[0].beats for n, r in runs.items()},
        edrs={n: r[2] for n, r in runs.items()}, fs_out=opts.fs_out)
    for n, e in errors.items():
        quality[n] = lead_tools.LeadQuality(lead=n, usable=False, reason=e)
    best = lead_tools.choose_lead(quality)
    seg, out, y = runs[best]
    info = {"lead_scores": {n: float(q.score) for n, q in quality.items()},
            "lead_reasons": {n: q.reason for n, q in quality.items() if not q.usable}}
    used = {n: r[1].sigma2 for n, r in runs.items()}
    if opts.lead_mode == "fuse":
        usable = [n for n in runs if quality[n].usable] or [best]
        if all(runs[n][1].panel for n in usable):
            return (seg, *_pooled(runs, usable, best, grid, opts), info, used)
        fused = lead_tools.fuse_edrs({n: runs[n][2] for n in usable}, quality)
        q = {**out.quality, "fused_leads": sorted(usable)}
        return (seg, MethodOutput(grid, fused, "grid", out.sigma2, out.selection, q), fused, info,
                used)
    if opts.lead_mode == "multilead":
        seg, out, y = _joint_kpca(leads, runs, quality, best, i0, i1, fs, grid, opts)
    return seg, out, y, info, used


def _pooled(runs, usable, best, grid, opts: EDROptions):
    """(output, series) fusing the panels of every usable lead of a fusion method into one
    (:func:`edr.fusion.fuse`; panel names ``"<lead>/<series>"``). A series of the heart rather
    than of a lead (:data:`edr.fusion.HEART_SERIES`) enters once, from ``best`` (or the first
    usable lead): the leads' copies are one witness of the breathing, not several."""
    own = best if best in usable else usable[0]
    panel = {f"{n}/{k}": v for n in usable for k, v in runs[n][1].panel.items()
             if n == own or k not in HEART_SERIES}
    seg = runs[own][0]
    fused = fuse(panel, opts.fs_out, max_hz=carried_hz(seg.beat_times[seg.valid]))
    out = runs[best][1]
    q = {**out.quality, "fused_leads": sorted(usable),
         "lead_sigma2": {n: runs[n][1].sigma2 for n in usable},
         "weights": {k: float(w) for k, w in fused.weights.items()}, "best": fused.best}
    models = {n: runs[n][1].model for n in usable if runs[n][1].model is not None}
    return MethodOutput(grid, fused.series, "grid", out.sigma2, out.selection, q,
                        panel, fused.weights, models), fused.series


def _joint_kpca(leads, runs, quality, best, i0, i1, fs, grid, opts: EDROptions):
    """(segment, output, series) of ``lead="multilead"``: one kernel PCA of every usable
    lead's QRS windows side by side (:func:`edr.multilead.multilead_kpca`)."""
    from edr import multilead

    joint, offsets = multilead.joint_beats({n: r[0].beats for n, r in runs.items()},
                                            {n: q for n, q in quality.items() if n in runs})
    ko = opts.kernel_options
    times, values, model = multilead.multilead_kpca(
        {n: leads[n][i0:i1] for n in offsets}, fs, joint, offsets, sigma2=ko.sigma2,
        random_state=ko.random_state, selection_options=ko.selection_options)
    seg = Segment(leads[best][i0:i1], fs, i0 / fs, joint, grid, opts.fs_out, best)
    out = MethodOutput(i0 / fs + times, values, "beats", float(model.sigma2_),
                       getattr(model, "selection_", None),
                       {"multilead_leads": sorted(offsets),
                        "n_features": int(model.n_features_in_)})
    return seg, out, series_on_grid(seg, out)
