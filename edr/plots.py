"""Figures of ``edr`` (Matplotlib, imported lazily inside the functions).

:func:`plot_record` is the per-record figure, made to be read without the code:

1. **overview** of the whole record: the respiratory rate over time (32 s
   windows, every 16 s) of the EDR and of the reference, with the stretches
   where the rate is withheld (quality below the threshold), masked (every
   lead flat or missing) or skipped shaded, and the minute shown below marked;
2. the **quality** of each rate window against the threshold below which the
   rate is withheld;
3. a **representative minute** of the ECG (:func:`representative_minute`)
   with every detected beat marked by its fate: used, dropped as ectopic,
   dropped as artefact or clipped;
4. the **EDR against the reference** over the same minute, both band-passed as
   in the evaluation protocol and z-scored over the record (the EDR sign is
   aligned with the reference for display only — an ECG-derived signal has no
   physiological sign), with the EDR's value at each used beat;
5. the **scores** with one line on what each means, and how σ² was chosen
   (the selection curve, or σ² per window).

Every mark is in a legend. Only :class:`matplotlib.figure.Figure` is used (no
pyplot state), so the functions are safe with any backend, including Agg on a
headless machine.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from edr.errors import EDRError

__all__ = ["BEAT_FATES", "beat_fates", "plot_record", "representative_minute", "save_figure"]

_USED = "#1a9850"
_ECTOPIC = "#fc8d59"
_ARTEFACT = "#d73027"
_EDR = "#2166ac"
_REF = "#4d4d4d"
_WITHHELD = "0.85"
_SHOWN = "#fee08b"

#: Fate of a detected beat -> (legend text, marker, colour).
BEAT_FATES = {
    "used": ("beat used by the EDR", "o", _USED),
    "ectopic": ("beat dropped: ectopic (premature)", "^", _ECTOPIC),
    "artefact": ("beat dropped: artefact or clipped", "x", _ARTEFACT),
}
#: Length (s) of the zoomed stretch.
MINUTE_S = 60.0


def save_figure(fig, path, *, dpi=110) -> Path:
    """Save ``fig`` atomically (temporary file next to ``path``, then rename).

    The image format follows the suffix of ``path`` (png, pdf, svg, ...).
    """
    from edr.io.writers import atomic_path

    path = Path(path)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=path.suffix.lstrip(".").lower() or "png", dpi=dpi)
    return path


def representative_minute(result, duration_s: float, minute_s: float = MINUTE_S):
    """``(t0, t1)`` of the stretch shown zoomed: the ``minute_s`` whose rate windows' mean
    quality is nearest the record's median quality, among the stretches the EDR covers (at
    least 95 % finite); ties go to the one nearest the middle of the record. Candidates start
    every 16 s (the rate windows' step)."""
    minute_s = min(float(minute_s), float(duration_s))
    starts = np.append(np.arange(0.0, duration_s - minute_s, 16.0), duration_s - minute_s)
    t, wave = np.asarray(result.time, float), np.asarray(result.waveform, float)
    rt, q = np.asarray(result.rate_time, float), np.asarray(result.rate_quality, float)
    target = float(np.median(q)) if q.size == rt.size and q.size else 0.0
    best, best_key = starts[len(starts) // 2], None
    for s in starts:
        inside = (t >= s) & (t < s + minute_s)
        covered = np.isfinite(wave[inside]).mean() if inside.any() else 0.0
        rq = q[(rt - 16.0 >= s) & (rt + 16.0 <= s + minute_s)] if q.size == rt.size else q[:0]
        miss = abs(float(rq.mean()) - target) if rq.size else 1.0
        key = (covered < 0.95, round(miss, 6), abs(s + minute_s / 2 - duration_s / 2))
        if best_key is None or key < best_key:
            best, best_key = s, key
    return float(best), float(best + minute_s)


def _window_lead(recording, name):
    """The lead ``name`` as the pipeline analyses it (mains line removed)."""
    from edr.signal import remove_mains

    x = (recording.leads or {}).get(name)
    x = recording.ecg if x is None else x
    return remove_mains(np.asarray(x, dtype=float), recording.fs)


def beat_fates(recording, result, t0: float, t1: float) -> dict:
    """Times (s) of every beat detected in ``[t0, t1]``, by fate, and the lead they are on.

    The analysis windows overlapping the stretch are run again through
    :func:`edr.beats.detect` exactly as the pipeline runs them (same lead —
    the window's chosen lead —, same samples, default options: the same beats
    and flags); each beat is taken from the window whose core holds it, as in
    the stitched result. Returns ``{"used": ..., "ectopic": ..., "artefact":
    ..., "lead": name or None}`` (None when no analysed window overlaps).
    """
    from edr.beats import detect

    out = {k: [] for k in BEAT_FATES}
    windows = [w for w in result.windows if w.start_s < t1 and w.end_s > t0
               and not str(w.quality.get("status", "ok")).startswith("skipped")]
    lead = windows[0].lead if windows else None
    for i, w in enumerate(windows):
        prev_end = windows[i - 1].end_s if i > 0 and windows[i - 1].end_s > w.start_s else None
        nxt = windows[i + 1].start_s if i + 1 < len(windows) and windows[i + 1].start_s < w.end_s \
            else None
        core = (w.start_s if prev_end is None else 0.5 * (w.start_s + prev_end),
                w.end_s if nxt is None else 0.5 * (w.end_s + nxt))
        x = _window_lead(recording, w.lead)
        fs = recording.fs
        i0, i1 = int(np.floor(w.start_s * fs)), min(int(np.ceil(w.end_s * fs)), x.size)
        try:
            beats = detect(x[i0:i1], fs)
        except (EDRError, ValueError):
            continue
        times = beats.times + i0 / fs
        keep = (times >= max(core[0], t0)) & (times < min(core[1], t1))
        valid = np.asarray(beats.valid, dtype=bool)
        ectopic = np.asarray(beats.ectopic, dtype=bool)
        out["used"].append(times[keep & valid])
        out["ectopic"].append(times[keep & ~valid & ectopic])
        out["artefact"].append(times[keep & ~valid & ~ectopic])
    fates = {k: np.sort(np.concatenate(v)) if v else np.empty(0) for k, v in out.items()}
    return {**fates, "lead": lead}


def _lead_text(recording, result) -> str:
    fused = sorted({n for w in result.windows for n in w.quality.get("fused_leads", [])})
    if result.lead == "fuse":
        return ("leads fused (the usable ECG leads, "
                + (", ".join(fused) if fused else "all") + ", combined by quality)")
    if result.lead == "auto":
        return "lead auto (the best ECG lead of each window)"
    if result.lead == "multilead":
        return "multilead (one kernel PCA of every lead's QRS complexes)"
    return f"lead {result.lead}"


def _shade_unused(ax, result, *, label=True):
    """Masked stretches and skipped windows, hatched."""
    spans = [(a, b, "masked: every ECG lead flat or missing") for a, b in result.masked]
    spans += [(w.start_s, w.end_s, "window skipped: " + str(w.quality["status"])[9:60])
              for w in result.windows if str(w.quality.get("status", "")).startswith("skipped")]
    seen = set()
    for a, b, text in spans:
        kind = text.split(":")[0]
        ax.axvspan(a, b, facecolor="none", edgecolor="0.55", hatch="///", lw=0, zorder=0,
                   label=text if label and kind not in seen else None)
        seen.add(kind)


def _panel_overview(ax, recording, result, ref, minute):
    """Rate over the whole record: EDR, reference, withheld / masked stretches, the minute."""
    from edr.evaluate.metrics import window_rates
    from edr.rates import QUALITY_THRESHOLD

    t_rate = np.asarray(result.rate_time, dtype=float)
    rate = np.asarray(result.rate_bpm, dtype=float)
    in_masked = np.zeros(t_rate.size, bool)
    for a, b in result.masked:
        in_masked |= (t_rate >= a) & (t_rate <= b)
    withheld = ~np.isfinite(rate) & ~in_masked
    for i, t in enumerate(t_rate[withheld]):
        ax.axvspan(t - 8.0, t + 8.0, color=_WITHHELD, lw=0, zorder=0,
                   label=f"rate withheld: quality < {QUALITY_THRESHOLD:g}" if i == 0 else None)
    _shade_unused(ax, result)
    ax.axvspan(*minute, color=_SHOWN, alpha=0.6, lw=0, zorder=0, label="minute shown below")
    ax.plot(t_rate, rate, "o-", color=_EDR, ms=3.5, lw=1.2, label="EDR rate (32 s windows)")
    title = (f"Respiratory rate over the whole record: given for {int(np.isfinite(rate).sum())} "
             f"of {rate.size} windows")
    if ref is not None:
        _, _, ref_rate = window_rates(result, recording, ref)
        source = ("breath annotations" if recording.breath_times is not None
                  and np.size(recording.breath_times) else
                  f"{recording.resp_channel or 'reference'} waveform")
        if ref_rate.size == t_rate.size:
            ax.plot(t_rate, ref_rate, "s-", color=_REF, ms=3, lw=1.0, alpha=0.8,
                    label=f"reference rate ({source})")
            err = np.abs(rate - ref_rate)
            if np.isfinite(err).any():
                title += f"; median |EDR - reference| {np.nanmedian(err):.1f} breaths/min"
    ax.set_ylabel("breaths/min")
    ax.set_title(title, fontsize=10, loc="left")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)


def _panel_quality(ax, result):
    """Quality of each rate window against the threshold."""
    from edr.rates import QUALITY_THRESHOLD

    t_rate = np.asarray(result.rate_time, dtype=float)
    q = np.asarray(result.rate_quality, dtype=float)
    if q.size == t_rate.size and q.size:
        ok = q >= QUALITY_THRESHOLD
        for keep, colour, label in ((ok, _USED, "rate given"), (~ok, "0.6", "rate withheld")):
            if keep.any():
                ax.bar(t_rate[keep], q[keep], width=14.0, color=colour, label=label)
    ax.axhline(QUALITY_THRESHOLD, color=_ARTEFACT, ls="--", lw=1.0,
               label=f"threshold {QUALITY_THRESHOLD:g}")
    _shade_unused(ax, result, label=False)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("quality")
    ax.set_xlabel("time (s)")
    ax.set_title("Quality of each rate window: the weighted share of the ECG's breathing evidence "
                 "(EDR components, R amplitude, QRS area) that agrees with the EDR's rate",
                 fontsize=10, loc="left")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)


def _panel_ecg(ax, recording, result, minute):
    """The minute's ECG with every detected beat marked by its fate."""
    t0, t1 = minute
    fates = beat_fates(recording, result, t0, t1)
    lead = fates["lead"] or recording.ecg_channel
    x = _window_lead(recording, lead)
    fs = recording.fs
    i0, i1 = int(t0 * fs), min(int(np.ceil(t1 * fs)) + 1, x.size)
    t = np.arange(i0, i1) / fs
    ax.plot(t, x[i0:i1], color="black", lw=0.6, label=f"ECG lead {lead}")
    counts = {"used": result.n_beats}
    for key, (text, marker, colour) in BEAT_FATES.items():
        times = fates[key]
        y = np.interp(times, t, x[i0:i1]) if times.size else times
        total = f"; {counts[key]} in the record" if key in counts else ""
        ax.plot(times, y, ls="none", marker=marker, ms=7, mfc="none" if marker == "o" else colour,
                mec=colour, mew=1.5, gid=f"beats-{key}",
                label=f"{text} ({times.size} here{total})")
    _shade_unused(ax, result, label=False)
    ax.set_xlim(t0, t1)
    ax.set_ylabel("mV")
    note = ("" if fates["lead"] is None or result.lead == lead else
            f" (the lead whose beats the EDR used in this window; {_lead_text(recording, result)})")
    dropped = result.n_beats_dropped
    ax.set_title(f"ECG lead {lead}, {t1 - t0:.0f} s from {t0:.0f} s{note}; {dropped} beats dropped "
                 "in the record", fontsize=10, loc="left")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)


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


def _panel_edr(ax, recording, result, ref, minute):
    """EDR against the reference over the minute, with the EDR's value at each used beat."""
    t = np.asarray(result.time, dtype=float)
    mu, sd = np.nanmean(result.waveform), np.nanstd(result.waveform)
    sd = sd if sd > 0 else 1.0
    edr = (np.asarray(result.waveform, dtype=float) - mu) / sd
    flip = 1.0
    if ref is not None:
        ref = _zscore(ref)
        ok = np.isfinite(edr) & np.isfinite(ref)
        flip = -1.0 if ok.sum() > 2 and np.dot(edr[ok], ref[ok]) < 0 else 1.0
        ax.plot(t, ref, color=_REF, lw=1.2,
                label=f"reference {recording.resp_channel or 'respiration'}")
    label = "EDR" + (" (sign flipped to match the reference: an EDR has no physiological sign)"
                     if flip < 0 else "")
    ax.plot(t, flip * edr, color=_EDR, lw=1.4, label=label)
    bt = np.asarray(result.beat_times, dtype=float)
    inside = (bt >= minute[0]) & (bt <= minute[1])
    beat_std = np.nanstd(result.beat_values) or 1.0
    ax.plot(bt[inside], flip * np.asarray(result.beat_values, dtype=float)[inside] / beat_std,
            ls="none", marker=".", ms=5, color=_EDR, alpha=0.6, label="EDR value at each used beat")
    _shade_unused(ax, result, label=False)
    ax.set_xlim(*minute)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("z-score")
    what = "against the reference" if ref is not None else "(no reference respiration)"
    ax.set_title(f"EDR {what} over the same minute, band-passed to the breathing band and "
                 "z-scored over the record", fontsize=10, loc="left")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)


def _score_lines(recording, result, ref) -> list[str]:
    from edr.evaluate.metrics import score

    lines = [f"EDR method {result.method},", _lead_text(recording, result),
             f"beats: {result.n_beats} used, {result.n_beats_dropped} dropped; status: "
             f"{result.status[:70]}"]
    if result.masked:
        lines.append("masked (every lead flat or missing): "
                     + ", ".join(f"{a:.0f}-{b:.0f} s" for a, b in result.masked))
    if ref is None:
        return [*lines, "", "No reference respiration: no scores",
                "(name its channel with edr.extract --ref-channel)"]
    try:
        s = score(result, recording)
    except (EDRError, ValueError) as exc:
        return [*lines, "", f"not scored: {str(exc)[:80]}"]
    lines += ["", f"Scores against {recording.resp_channel or 'the reference'}:",
              f"MSC {s.msc:.2f}: coherence at the breathing frequency (1 = the same rhythm)",
              f"|r| {s.corr:.2f}: correlation of the waveforms (shape and timing)",
              f"rate error {s.rate_error_bpm:.2f} breaths/min: median |EDR - reference rate|,",
              "    over the 32 s windows with both rates"]
    if s.msc >= 0.5 and s.corr < 0.5:
        lines += ["High MSC, low |r|: the EDR keeps the breathing rhythm,",
                  "but its waveform is shifted or shaped differently from the reference."]
    elif s.msc >= 0.5:
        lines.append("MSC and |r| both high: the EDR follows the reference in rhythm and shape.")
    else:
        lines.append("Low MSC: the EDR's rhythm does not match the reference's over the record.")
    return lines


def _panel_text(ax, lines):
    ax.set_axis_off()
    ax.text(0.0, 1.0, "\n".join(lines), transform=ax.transAxes, va="top", ha="left",
            fontsize=8.5, wrap=True)


def _panel_sigma2(ax, result):
    windows = list(result.windows or [])
    sel = result.selection
    if len(windows) > 1 and any(w.sigma2 is not None for w in windows):
        mid = np.array([0.5 * (w.start_s + w.end_s) for w in windows])
        sig = np.array([np.nan if w.sigma2 is None else w.sigma2 for w in windows], dtype=float)
        ax.semilogy(mid, sig, "o-", color=_EDR, ms=4, label="σ² of each window")
        ax.set_xlabel("window centre (s)")
        ax.set_ylabel("σ²")
        crit = sel.criterion if sel is not None else "fixed"
        ax.set_title(f"σ² per window ({len(windows)} windows, criterion {crit})",
                     fontsize=10, loc="left")
        ax.legend(loc="best", fontsize=8)
    elif sel is not None and np.size(sel.grid) > 0:
        grid, curve = np.asarray(sel.grid, float), np.asarray(sel.curve, float)
        ax.semilogx(grid, curve, color=_EDR, lw=1.2, label=f"{sel.criterion} criterion")
        k = int(np.argmin(np.abs(np.log(grid) - np.log(sel.sigma2))))
        ax.plot([sel.sigma2], [curve[k]], "o", color=_ARTEFACT, ms=7,
                label=f"chosen σ² = {sel.sigma2:.3g}")
        ax.set_xlabel("σ² (kernel width)")
        ax.set_ylabel("criterion")
        ax.legend(loc="best", fontsize=8)
        ax.set_title(f"How the kernel width σ² was chosen ({sel.criterion})", fontsize=10,
                     loc="left")
    else:
        msg = (f"σ² fixed at {result.sigma2:.3g}: no selection curve" if result.sigma2 is not None
               else f"method {result.method!r} has no σ²")
        ax.text(0.5, 0.5, msg, ha="center", va="center", transform=ax.transAxes, fontsize=10)
        ax.set_axis_off()


def plot_record(recording, result, *, path=None, reference=True, minute_s=MINUTE_S,
                minute_start_s=None):
    """The per-record figure: rate overview with quality, a zoomed minute (ECG beats by fate, EDR
    vs reference), scores with their meaning, σ² selection.

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
    minute_s : float, default :data:`MINUTE_S`
        Length (s) of the zoomed stretch.
    minute_start_s : float, optional
        Its start (s); default: :func:`representative_minute`.

    Returns
    -------
    matplotlib.figure.Figure
        Axes in order: rate overview, quality, ECG, EDR, scores, σ².
    """
    from matplotlib.figure import Figure

    duration = recording.duration_s
    if minute_start_s is None:
        minute = representative_minute(result, duration, minute_s)
    else:
        a = float(np.clip(minute_start_s, 0.0, max(duration - minute_s, 0.0)))
        minute = (a, min(a + minute_s, duration))
    ref = _reference_on_result_grid(recording, result) if reference else None
    fig = Figure(figsize=(14, 13), layout="constrained")
    gs = fig.add_gridspec(5, 2, height_ratios=[1.0, 0.5, 1.0, 1.0, 0.9], width_ratios=[1.1, 1.0])
    ax_rate = fig.add_subplot(gs[0, :])
    ax_q = fig.add_subplot(gs[1, :], sharex=ax_rate)
    ax_ecg = fig.add_subplot(gs[2, :])
    ax_edr = fig.add_subplot(gs[3, :], sharex=ax_ecg)
    ax_txt = fig.add_subplot(gs[4, 0])
    ax_sig = fig.add_subplot(gs[4, 1])
    fig.suptitle(f"{recording.name}: {duration:.0f} s of ECG at {recording.fs:g} Hz, "
                 f"EDR by {result.method}", fontsize=12, x=0.01, ha="left")
    _panel_overview(ax_rate, recording, result, ref, minute)
    ax_rate.set_xlim(0.0, duration)
    _panel_quality(ax_q, result)
    _panel_ecg(ax_ecg, recording, result, minute)
    _panel_edr(ax_edr, recording, result, ref, minute)
    _panel_text(ax_txt, _score_lines(recording, result, ref))
    _panel_sigma2(ax_sig, result)
    for ax in (ax_rate, ax_q, ax_ecg, ax_edr, ax_sig):
        ax.grid(alpha=0.3)
    if path is not None:
        save_figure(fig, path)
    return fig
