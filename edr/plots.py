"""Figures of ``edr`` (Matplotlib, imported lazily inside the functions).

:func:`plot_record` is the per-record figure a person reads at a glance:

1. an ECG excerpt with the beats the method used and the beats it dropped;
2. the EDR against the reference respiration over the whole record, both
   band-passed as in the evaluation protocol and z-scored, with MSC and |r|
   in the title (the EDR sign is aligned with the reference for display only —
   a morphological EDR has no physiological sign);
3. the respiratory rate over time (32 s windows; grey where the EDR gives none) of the EDR and of
   the reference (breath annotations when the record has them);
4. how σ² was chosen: the selection curve with the chosen σ² marked, or σ²
   per window when the record was processed in windows.

Only :class:`matplotlib.figure.Figure` is used (no pyplot state), so the
functions are safe with any backend, including Agg on a headless machine.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from edr.errors import EDRError

__all__ = ["plot_record", "save_figure"]

_USED = "#1a9850"
_DROPPED = "#d73027"
_EDR = "#2166ac"
_REF = "#4d4d4d"


def save_figure(fig, path, *, dpi=110) -> Path:
    """Save ``fig`` atomically (temporary file next to ``path``, then rename).

    The image format follows the suffix of ``path`` (png, pdf, svg, ...).
    """
    from edr.io.writers import atomic_path

    path = Path(path)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=path.suffix.lstrip(".").lower() or "png", dpi=dpi)
    return path


def _excerpt_bounds(duration_s, excerpt_s, start_s):
    excerpt_s = min(float(excerpt_s), duration_s)
    if start_s is None:  # the middle of the record, away from start-up transients
        start_s = 0.5 * (duration_s - excerpt_s)
    start_s = float(np.clip(start_s, 0.0, max(duration_s - excerpt_s, 0.0)))
    return start_s, start_s + excerpt_s


def _dropped_beats(result, lead_signal, fs, t0, t1):
    """Times of the beats in [t0, t1] that the pipeline detected and dropped.

    :class:`~edr.pipeline.EDRResult` keeps only the beats used, so the
    analysis window holding the excerpt is run again through
    :func:`edr.beats.detect` exactly as the pipeline runs it (same samples,
    default options: the same beats and validity flags); its invalid beats
    are the dropped ones.
    """
    from edr.beats import detect

    centre = 0.5 * (t0 + t1)
    windows = [w for w in result.windows
               if w.start_s <= centre <= w.end_s and w.quality.get("status", "ok") == "ok"]
    if not windows:
        return np.empty(0)
    i0 = int(np.floor(windows[0].start_s * fs))
    i1 = min(int(np.ceil(windows[0].end_s * fs)), lead_signal.size)
    try:
        beats = detect(lead_signal[i0:i1], fs)
    except (EDRError, ValueError):
        return np.empty(0)
    times = beats.times[~np.asarray(beats.valid, dtype=bool)] + i0 / fs
    return times[(times >= t0) & (times <= t1)]


def _panel_ecg(ax, recording, result, t0, t1):
    lead = result.lead if result.lead in recording.leads else recording.ecg_channel
    x = recording.leads.get(lead, recording.ecg)
    fs = recording.fs
    i0, i1 = int(t0 * fs), min(int(np.ceil(t1 * fs)) + 1, x.size)
    t = np.arange(i0, i1) / fs
    ax.plot(t, x[i0:i1], color="black", lw=0.7)
    used = np.asarray(result.beat_times, dtype=float)
    used = used[(used >= t0) & (used <= t1)]
    dropped = _dropped_beats(result, x, fs, t0, t1)
    full_t = np.arange(i0, i1) / fs
    for times, color, marker, label in (
        (used, _USED, "o", f"beats used ({result.n_beats} in the record)"),
        (dropped, _DROPPED, "x", f"beats dropped ({result.n_beats_dropped} in the record)"),
    ):
        if times.size:
            ax.plot(times, np.interp(times, full_t, x[i0:i1]), ls="none", marker=marker, ms=6,
                    mfc="none" if marker == "o" else color, mec=color, mew=1.5, label=label)
        else:
            ax.plot([], [], ls="none", marker=marker, mec=color, mfc="none", label=label)
    ax.set_xlim(t0, t1)
    ax.set_ylabel(f"ECG {lead} (mV)")
    ax.set_xlabel("time (s)")
    ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=8, ncol=2, frameon=False,
              borderaxespad=0.1)
    ax.set_title(f"{recording.name}: ECG excerpt, {t1 - t0:.0f} s of {recording.duration_s:.0f} s",
                 fontsize=10,
                 loc="left")


def _zscore(x):
    x = np.asarray(x, dtype=float)
    s = np.nanstd(x)
    return (x - np.nanmean(x)) / (s if s > 0 else 1.0)


def _reference_on_result_grid(recording, result):
    """The reference respiration on the EDR's grid, band-passed by the protocol (or None)."""
    from edr.evaluate.metrics import reference_on_grid
    from edr.signal import bandpass

    if recording.resp is None or recording.resp_fs is None:
        return None
    return bandpass(reference_on_grid(recording.resp, recording.resp_fs, result.time), fs=result.fs)


def _panel_edr(ax, recording, result, ref, t0, t1):
    from edr.evaluate.metrics import score

    t = np.asarray(result.time, dtype=float)
    edr = _zscore(result.waveform)
    title = f"EDR ({result.method}, lead {result.lead})"
    if ref is not None:
        ref = _zscore(ref)
        ok = np.isfinite(edr) & np.isfinite(ref)
        flipped = ok.sum() > 2 and np.dot(edr[ok], ref[ok]) < 0
        if flipped:
            edr = -edr
        ax.plot(t, ref, color=_REF, lw=1.0,
                label=f"reference {recording.resp_channel or 'resp'} (band-passed)")
        try:
            s = score(result, recording)
            title += f" vs reference:  MSC {s.msc:.2f}   |r| {s.corr:.2f}"
        except (EDRError, ValueError) as exc:
            title += f" (not scored: {exc})"
        ax.plot(t, edr, color=_EDR, lw=1.0,
                label="EDR" + (" (sign flipped for display)" if flipped else ""))
    else:
        ax.plot(t, edr, color=_EDR, lw=1.0, label="EDR")
        title += ", no reference respiration"
    ax.axvspan(t0, t1, color="#fee08b", alpha=0.5, lw=0, label="ECG excerpt above")
    if t.size:
        ax.set_xlim(t[0], t[-1])
    ax.set_ylabel("z-score")
    ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=8, ncol=3, frameon=False,
              borderaxespad=0.1)
    ax.set_title(title, fontsize=10, loc="left")


def _panel_rate(ax, recording, result, ref):
    """Respiratory rate (32 s windows, 16 s step) of the EDR and of the reference."""
    from edr.evaluate.metrics import breath_rate_series
    from edr.signal import SEGMENT_S, rate_series

    t_edr = np.asarray(result.rate_time, dtype=float)
    ax.plot(t_edr, result.rate_bpm, "o-", color=_EDR, ms=3, lw=1.2, label="EDR")
    title = "respiratory rate, 32 s windows"
    quality = np.asarray(getattr(result, "rate_quality", np.empty(0)), dtype=float)
    withheld = ~np.isfinite(np.asarray(result.rate_bpm, dtype=float))
    if quality.size == t_edr.size and withheld.any():
        for t in t_edr[withheld]:  # no rate given: the quality was too low or the ECG masked
            ax.axvspan(t - 8.0, t + 8.0, color="0.85", lw=0, zorder=0)
        ax.plot([], [], "s", color="0.85", label=f"no rate ({int(withheld.sum())} windows)")
        title += f", rate given for {int((~withheld).sum())}/{t_edr.size}"
    breaths = recording.breath_times
    if ref is not None and breaths is not None and np.size(breaths) > 0:
        ref_rate = breath_rate_series(breaths, t_edr - SEGMENT_S / 2)
        label = "reference (breath annotations)"
    elif ref is not None:
        ref_rate = rate_series(ref, fs=result.fs, t0=float(result.time[0]))[1]
        label = f"reference ({recording.resp_channel or 'resp'} waveform)"
    else:
        ref_rate = None
    if ref_rate is not None and ref_rate.size == t_edr.size:
        ax.plot(t_edr, ref_rate, "s-", color=_REF, ms=3, lw=1.2, label=label)
        err = np.abs(np.asarray(result.rate_bpm, dtype=float) - ref_rate)
        if np.isfinite(err).any():
            title += f": median absolute error {np.nanmedian(err):.1f} breaths/min"
    ax.set_ylabel("breaths/min")
    ax.set_xlabel("time (s)")
    ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=8, ncol=2, frameon=False,
              borderaxespad=0.1)
    ax.set_title(title, fontsize=10, loc="left")


def _panel_sigma2(ax, result):
    windows = list(result.windows or [])
    sel = result.selection
    if len(windows) > 1 and any(w.sigma2 is not None for w in windows):
        mid = np.array([0.5 * (w.start_s + w.end_s) for w in windows])
        sig = np.array([np.nan if w.sigma2 is None else w.sigma2 for w in windows], dtype=float)
        ax.semilogy(mid, sig, "o-", color=_EDR, ms=4)
        ax.set_xlabel("window centre (s)")
        ax.set_ylabel("σ²")
        crit = sel.criterion if sel is not None else "fixed"
        ax.set_title(f"σ² per window ({len(windows)} windows, criterion {crit})",
                     fontsize=10, loc="left")
    elif sel is not None and np.size(sel.grid) > 0:
        grid, curve = np.asarray(sel.grid, float), np.asarray(sel.curve, float)
        ax.semilogx(grid, curve, color=_EDR, lw=1.2)
        ax.axvline(sel.sigma2, color=_DROPPED, ls="--", lw=1.2)
        k = int(np.argmin(np.abs(np.log(grid) - np.log(sel.sigma2))))
        ax.plot([sel.sigma2], [curve[k]], "o", color=_DROPPED, ms=7,
                label=f"chosen σ² = {sel.sigma2:.3g}")
        ax.set_xlabel("σ² (kernel width)")
        ax.set_ylabel(f"{sel.criterion} criterion")
        ax.legend(loc="best", fontsize=8)
        ax.set_title(f"σ² selection curve ({sel.criterion})", fontsize=10, loc="left")
    else:
        msg = (f"σ² fixed at {result.sigma2:.3g}: no selection curve" if result.sigma2 is not None
               else f"method {result.method!r} has no σ²")
        ax.text(0.5, 0.5, msg, ha="center", va="center", transform=ax.transAxes, fontsize=10)
        ax.set_axis_off()


def plot_record(recording, result, *, path=None, reference=True, excerpt_s=20.0,
                excerpt_start_s=None):
    """The per-record figure: ECG with beats, EDR vs reference, rate, σ² selection.

    Parameters
    ----------
    recording : Recording
        The record the EDR was extracted from.
    result : EDRResult
        Output of :func:`edr.pipeline.extract_edr` on ``recording``.
    path : str or Path, optional
        Where to save the figure (format from the suffix), atomically.
    reference : bool, default True
        Draw the reference respiration and the scores when the record has one.
    excerpt_s : float, default 20
        Length (s) of the ECG excerpt in the top panel.
    excerpt_start_s : float, optional
        Start (s) of the excerpt; default: centred in the record.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure

    t0, t1 = _excerpt_bounds(recording.duration_s, excerpt_s, excerpt_start_s)
    ref = _reference_on_result_grid(recording, result) if reference else None
    fig = Figure(figsize=(12, 10.5), layout="constrained")
    axes = fig.subplots(4, 1, gridspec_kw={"height_ratios": [1.0, 1.1, 0.7, 0.8]})
    _panel_ecg(axes[0], recording, result, t0, t1)
    _panel_edr(axes[1], recording, result, ref, t0, t1)
    _panel_rate(axes[2], recording, result, ref)
    axes[2].sharex(axes[1])
    _panel_sigma2(axes[3], result)
    for ax in axes:
        ax.grid(alpha=0.3)
    if path is not None:
        save_figure(fig, path)
    return fig
