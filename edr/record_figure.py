"""What the per-record figure shows, independent of how it is drawn.

:func:`record_figure` computes every series, span, label and title of the
record figure once; :func:`edr.plots.plot_record` draws it with Matplotlib
(PNG, PDF, SVG, ...) and :func:`edr.plots_html.write_record_html` as an
interactive HTML page. The figure has five parts:

1. **overview** of the whole record: the respiratory rate over time (32 s
   windows, every 16 s) of the EDR and of the reference, with the stretches
   where the rate is withheld (quality below the threshold), masked (every
   lead flat or missing) or skipped shaded, and the minute shown zoomed;
2. the **quality** of each rate window against the threshold below which the
   rate is withheld;
3. a **representative minute** of the ECG (:func:`representative_minute`)
   with every detected beat marked by its fate: used, dropped as ectopic,
   dropped as artefact or clipped;
4. the **EDR against the reference** over the same minute, both band-passed as
   in the evaluation protocol and z-scored over the record (the EDR sign is
   aligned with the reference for display only — an ECG-derived signal has no
   physiological sign), with the EDR's value at each used beat, every breath
   (:attr:`edr.pipeline.EDRResult.breaths`) marked kept or low quality
   (:data:`BREATH_MARKS`) and the pauses shaded (also on the overview);
5. the **scores** with one line on what each means, and how σ² was chosen
   (the selection curve, or σ² per window).

Long series are reduced to a point budget by :func:`envelope` (the minimum and
maximum of each bucket), so a 24-hour record gives a figure of the same size
as a 10-minute one.
"""

from __future__ import annotations

import textwrap

import numpy as np

from edr.beats import detect
from edr.errors import EDRError
from edr.figure_content import (
    BEAT_FATES,
    BREATH_MARKS,
    COLOURS,
    MAX_POINTS,
    MINUTE_S,
    RecordFigure,
    Series,
    Sigma2Panel,
)
from edr.io.arrays import as_recording
from edr.mains import remove_mains
from edr.pauses import PAUSE_S
from edr.rates import QUALITY_THRESHOLD
from edr.scoring import band_passed_reference, score, window_rates
from edr.signal import RATE_WINDOW_S
from edr.similarity import scores_meaning

__all__ = ["BEAT_FATES", "BREATH_MARKS", "COLOURS", "MAX_POINTS", "MINUTE_S", "RecordFigure",
           "Series", "Sigma2Panel", "beat_fates", "envelope", "record_figure",
           "representative_minute"]

#: Half-width (s) of the stretch a rate window stands for (its step is 16 s).
_RATE_HALF_STEP_S = 8.0


def envelope(x, y, max_points: int = MAX_POINTS):
    """``(x, y)`` reduced to at most ``max_points`` points by keeping the minimum and the
    maximum of each of ``m = max_points // 2`` buckets (bucket ``k`` holds the samples
    ``k n // m`` to ``(k + 1) n // m - 1`` of the ``n``), in time order.

    A series no longer than ``max_points`` is returned unchanged. NaN values are
    ignored within a bucket; a bucket that is all NaN keeps one NaN, so gaps stay
    gaps. The extremes of every bucket are kept, so the drawn line spans the range
    of the full series and shows every spike.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if y.size <= max_points:
        return x, y
    buckets = max(max_points // 2, 1)
    edges = np.arange(buckets + 1) * y.size // buckets
    keep = []
    for a, b in zip(edges[:-1], edges[1:], strict=True):
        part = y[a:b]
        if not np.isfinite(part).any():
            keep.append(a)
            continue
        lo, hi = a + int(np.nanargmin(part)), a + int(np.nanargmax(part))
        keep += sorted({lo, hi})
    idx = np.asarray(keep, dtype=int)
    return x[idx], y[idx]


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
    x = (recording.leads or {}).get(name)
    x = recording.ecg if x is None else x
    return remove_mains(np.asarray(x, dtype=float), recording.fs)


def beat_fates(recording, result, t0: float, t1: float) -> dict:
    """Times (s) of every beat detected in ``[t0, t1]``, by fate, and the lead they are on.

    The beats are those the pipeline detected in each analysis window overlapping the stretch
    (:attr:`edr.result.WindowInfo.beats`: the window's chosen lead, its samples, default
    options); a window that does not carry them is run again through :func:`edr.beats.detect`
    exactly as the pipeline runs it. Each beat is taken from the window whose core holds it, as
    in the stitched result. Returns ``{"used": ..., "ectopic": ..., "artefact": ..., "lead":
    name or None}`` (None when no analysed window overlaps).
    """
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
        beats = w.beats if w.beats is not None else _detected(recording, w)
        if beats is None:
            continue
        times = beats["times"]
        keep = (times >= max(core[0], t0)) & (times < min(core[1], t1))
        valid, ectopic = beats["valid"], beats["ectopic"]
        out["used"].append(times[keep & valid])
        out["ectopic"].append(times[keep & ~valid & ectopic])
        out["artefact"].append(times[keep & ~valid & ~ectopic])
    fates = {k: np.sort(np.concatenate(v)) if v else np.empty(0) for k, v in out.items()}
    return {**fates, "lead": lead}


def _detected(recording, w) -> dict | None:
    """The beats of window ``w`` detected again as the pipeline detects them (the form of
    :attr:`edr.result.WindowInfo.beats`), or None if detection fails."""
    x = _window_lead(recording, w.lead)
    fs = recording.fs
    i0, i1 = int(np.floor(w.start_s * fs)), min(int(np.ceil(w.end_s * fs)), x.size)
    try:
        beats = detect(x[i0:i1], fs)
    except (EDRError, ValueError):
        return None
    return {"times": beats.times + i0 / fs, "valid": np.asarray(beats.valid, dtype=bool),
            "ectopic": np.asarray(beats.ectopic, dtype=bool)}


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


def _merged(spans):
    """``(start, end)`` stretches sorted, overlapping or touching ones merged."""
    out: list[list[float]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1] + 1e-9:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def _spans(result) -> dict:
    """Withheld, masked and skipped stretches: kind -> (legend text, merged stretches)."""
    t_rate = np.asarray(result.rate_time, dtype=float)
    rate = np.asarray(result.rate_bpm, dtype=float)
    in_masked = np.zeros(t_rate.size, bool)
    for a, b in result.masked:
        in_masked |= (t_rate >= a) & (t_rate <= b)
    withheld = t_rate[~np.isfinite(rate) & ~in_masked]
    skipped = [w for w in result.windows if str(w.quality.get("status", "")).startswith("skipped")]
    spans = {
        "withheld": (f"rate withheld: quality < {QUALITY_THRESHOLD:g}",
                     _merged([(t - _RATE_HALF_STEP_S, t + _RATE_HALF_STEP_S) for t in withheld])),
        "masked": ("masked: every ECG lead flat or missing", _merged(result.masked)),
        "skipped": ("window skipped: " + str(skipped[0].quality["status"])[9:60] if skipped
                    else "", _merged([(w.start_s, w.end_s) for w in skipped])),
    }
    return {k: v for k, v in spans.items() if v[1]}


def _overview(recording, result, ref):
    """Title, EDR rate and reference rate (or None) over the whole record."""
    t_rate = np.asarray(result.rate_time, dtype=float)
    rate = np.asarray(result.rate_bpm, dtype=float)
    title = (f"Respiratory rate over the whole record: given for {int(np.isfinite(rate).sum())} "
             f"of {rate.size} windows")
    ref_rate = None
    if ref is not None:
        _, _, ref_bpm = window_rates(result, recording, ref)
        source = ("breath annotations" if recording.breath_times is not None
                  and np.size(recording.breath_times) else
                  f"{recording.resp_channel or 'reference'} waveform")
        if ref_bpm.size == t_rate.size:
            ref_rate = Series(*envelope(t_rate, ref_bpm), f"reference rate ({source})")
            err = np.abs(rate - ref_bpm)
            if np.isfinite(err).any():
                title += f"; median |EDR - reference| {np.nanmedian(err):.1f} breaths/min"
    return (title, Series(*envelope(t_rate, rate), f"EDR rate ({RATE_WINDOW_S:g} s windows)"),
            ref_rate)


def _ecg(recording, result, minute):
    """Title, the minute's ECG and its beats by fate."""
    t0, t1 = minute
    fates = beat_fates(recording, result, t0, t1)
    lead = fates["lead"] or recording.ecg_channel
    x = _window_lead(recording, lead)
    fs = recording.fs
    i0, i1 = int(t0 * fs), min(int(np.ceil(t1 * fs)) + 1, x.size)
    t, v = np.arange(i0, i1) / fs, x[i0:i1]
    counts = {"used": result.n_beats}
    beats = {}
    for key, (text, _, _) in BEAT_FATES.items():
        times = fates[key]
        total = f"; {counts[key]} in the record" if key in counts else ""
        beats[key] = Series(times, np.interp(times, t, v) if times.size else times,
                            f"{text} ({times.size} here{total})")
    note = ("" if fates["lead"] is None or result.lead == lead else
            f" (the lead whose beats the EDR used in this window; {_lead_text(recording, result)})")
    title = (f"ECG lead {lead}, {t1 - t0:.0f} s from {t0:.0f} s{note}; "
             f"{result.n_beats_dropped} beats dropped in the record")
    return title, Series(*envelope(t, v, 4 * MAX_POINTS), f"ECG lead {lead}"), beats


def _zscore(x):
    x = np.asarray(x, dtype=float)
    s = np.nanstd(x)
    return (x - np.nanmean(x)) / (s if s > 0 else 1.0)


def _edr(recording, result, ref, minute):
    """Title, EDR, reference (or None) and the EDR's value at each used beat, over the minute."""
    t = np.asarray(result.time, dtype=float)
    # the minute and one sample beyond each end, so the lines reach the panel's edges
    inside = slice(max(int(np.searchsorted(t, minute[0])) - 1, 0),
                   int(np.searchsorted(t, minute[1], side="right")) + 1)
    edr = _zscore(result.waveform)
    flip = 1.0
    ref_series = None
    if ref is not None:
        ref = _zscore(ref)
        ok = np.isfinite(edr) & np.isfinite(ref)
        flip = -1.0 if ok.sum() > 2 and np.dot(edr[ok], ref[ok]) < 0 else 1.0
        ref_series = Series(t[inside], ref[inside],
                            f"reference {recording.resp_channel or 'respiration'}")
    label = "EDR" + (" (sign flipped to match the reference: an EDR has no physiological sign)"
                     if flip < 0 else "")
    bt = np.asarray(result.beat_times, dtype=float)
    at = (bt >= minute[0]) & (bt <= minute[1])
    beat_std = np.nanstd(result.beat_values) or 1.0
    values = Series(bt[at], flip * np.asarray(result.beat_values, dtype=float)[at] / beat_std,
                    "EDR value at each used beat")
    what = "against the reference" if ref is not None else "(no reference respiration)"
    title = (f"EDR {what} over the same minute, band-passed to the breathing band and "
             "z-scored over the record")
    return title, Series(t[inside], flip * edr[inside], label), ref_series, values


def _breath_marks(result, edr: Series, minute) -> tuple[dict, tuple]:
    """The breaths of ``result`` in the minute by kind (:data:`BREATH_MARKS`), at the drawn EDR
    ``edr``, and the legend text and stretches of every pause of the record."""
    b = result.breaths
    time = np.asarray(b.time, dtype=float)
    low = np.asarray(b.low_quality, dtype=bool)
    inside = (time >= minute[0]) & (time <= minute[1])
    marks = {}
    for kind, (text, _, _) in BREATH_MARKS.items():
        at = time[inside & (low if kind == "low_quality" else ~low)]
        total = int(low.sum() if kind == "low_quality" else (~low).sum())
        marks[kind] = Series(at, np.interp(at, edr.x, edr.y) if at.size else at,
                             f"{text} ({at.size} here; {total} in the record)")
    pauses = [(float(a), float(e)) for a, e in b.pauses]
    return marks, (f"pause: no breath for > {PAUSE_S:g} s beyond a normal breath ({len(pauses)} "
                   "in the record)", pauses)


def _score_lines(recording, result, ref) -> list[str]:
    digest = result.breaths.summary()
    lines = [f"EDR method {result.method},", _lead_text(recording, result),
             f"beats: {result.n_beats} used, {result.n_beats_dropped} dropped; status: "
             f"{result.status[:70]}",
             f"breaths: {digest['n_breaths']} found, {digest['n_kept']} kept; "
             f"{digest['n_pauses']} pause{'' if digest['n_pauses'] == 1 else 's'} "
             f"({digest['pause_s_total']:.0f} s)"]
    if result.masked:
        lines.append("masked (every lead flat or missing): "
                     + ", ".join(f"{a:.0f}-{b:.0f} s" for a, b in result.masked))
    if ref is None:
        return [*lines, "", "No reference respiration: no scores",
                "(name its channel: --ref-channel; from Python: resp=)"]
    try:
        s = score(result, recording)
    except (EDRError, ValueError) as exc:
        return [*lines, "", f"not scored: {str(exc)[:80]}"]
    lines += ["", f"Scores against {recording.resp_channel or 'the reference'}:",
              f"MSC {s.msc:.2f}: coherence at the breathing frequency (1 = the same rhythm)",
              f"|r| {s.corr:.2f}: correlation of the waveforms (shape and timing)",
              f"rate error {s.rate_error_bpm:.2f} breaths/min: median |EDR - reference rate|,",
              f"    over the {RATE_WINDOW_S:g} s windows with both rates"]
    meaning = scores_meaning(s.msc, s.corr)
    return [*lines, *textwrap.wrap(meaning[0].upper() + meaning[1:] + ".", 62)]


def _sigma2(result) -> Sigma2Panel:
    windows = list(result.windows or [])
    sel = result.selection
    if len(windows) > 1 and any(w.sigma2 is not None for w in windows):
        mid = np.array([0.5 * (w.start_s + w.end_s) for w in windows])
        sig = np.array([np.nan if w.sigma2 is None else w.sigma2 for w in windows], dtype=float)
        crit = sel.criterion if sel is not None else "fixed"
        return Sigma2Panel("per-window",
                           f"σ² per window ({len(windows)} windows, criterion {crit})",
                           Series(mid, sig, "σ² of each window"), xlabel="window centre (s)",
                           ylabel="σ²")
    if sel is not None and np.size(sel.grid) > 0:
        grid, curve = np.asarray(sel.grid, float), np.asarray(sel.curve, float)
        k = int(np.argmin(np.abs(np.log(grid) - np.log(sel.sigma2))))
        return Sigma2Panel("curve", f"How the kernel width σ² was chosen ({sel.criterion})",
                           Series(grid, curve, f"{sel.criterion} criterion"),
                           Series(np.array([sel.sigma2]), curve[k:k + 1],
                                  f"chosen σ² = {sel.sigma2:.3g}"),
                           xlabel="σ² (kernel width)", ylabel="criterion")
    msg = (f"σ² fixed at {result.sigma2:.3g}: no selection curve" if result.sigma2 is not None
           else f"method {result.method!r} has no σ²")
    return Sigma2Panel("none", message=msg)


def record_figure(recording, result, *, fs=None, reference=True, minute_s=MINUTE_S,
                  minute_start_s=None) -> RecordFigure:
    """The content of the per-record figure (see the module docstring).

    Parameters
    ----------
    recording : Recording, array_like, pandas.DataFrame, str or Path
        The record the EDR was extracted from, as given to :func:`edr.pipeline.extract_edr`
        (:func:`edr.io.arrays.as_recording`): a Recording, a path, or an ECG array with ``fs``.
    result : EDRResult
        Output of :func:`edr.pipeline.extract_edr` on ``recording``.
    fs : float, optional
        Sampling rate (Hz) of an ECG array (required for one; a path's must agree).
    reference : bool, default True
        Include the reference respiration and the scores when the record has one.
    minute_s : float, default :data:`MINUTE_S`
        Length (s) of the zoomed stretch.
    minute_start_s : float, optional
        Its start (s); default: :func:`representative_minute`.

    Returns
    -------
    RecordFigure

    See Also
    --------
    edr.plots.plot_record : draws it with Matplotlib.
    edr.plots_html.write_record_html : draws it as an interactive HTML page.
    representative_minute : the minute zoomed by default.
    edr.scoring.score : the scores against the reference.

    Examples
    --------
    >>> from edr.pipeline import extract_edr
    >>> from edr.record_figure import record_figure
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> data = record_figure(rec, extract_edr(rec), minute_s=20.0)
    >>> data.title
    'simulated: 60 s of ECG at 250 Hz, EDR by kpca_fusion'
    >>> data.minute, data.rate.x.tolist()  # the zoomed stretch (s); the rate windows' centres
    ((16.0, 36.0), [16.0, 32.0])
    >>> data.beats["used"].label, data.breaths["kept"].x.size
    ('beat used by the EDR (24 here; 69 in the record)', 5)
    >>> data.score_lines[2:4]
    ['beats: 69 used, 0 dropped; status: ok', 'breaths: 15 found, 15 kept; 0 pauses (0 s)']
    >>> data.sigma2.chosen.label
    'chosen σ² = 0.0285'
    """
    recording = as_recording(recording, fs=fs)
    duration = recording.duration_s
    if minute_start_s is None:
        minute = representative_minute(result, duration, minute_s)
    else:
        a = float(np.clip(minute_start_s, 0.0, max(duration - minute_s, 0.0)))
        minute = (a, min(a + minute_s, duration))
    has_reference = recording.resp is not None and recording.resp_fs is not None
    ref = band_passed_reference(result, recording) if reference and has_reference else None
    overview_title, rate, ref_rate = _overview(recording, result, ref)
    ecg_title, ecg, beats = _ecg(recording, result, minute)
    edr_title, edr, ref_series, values = _edr(recording, result, ref, minute)
    breaths, pauses = _breath_marks(result, edr, minute)
    q_time, q = np.asarray(result.rate_time, float), np.asarray(result.rate_quality, float)
    q_time, q = envelope(q_time, q) if q.size == q_time.size else (q_time[:0], q[:0])
    return RecordFigure(
        title=(f"{recording.name}: {duration:.0f} s of ECG at {recording.fs:g} Hz, "
               f"EDR by {result.method}"),
        duration_s=float(duration), minute=minute,
        overview_title=overview_title, rate=rate, ref_rate=ref_rate, spans=_spans(result),
        quality_title=("Quality of each rate window: the weighted share of the ECG's breathing "
                       "evidence (kernel components, R amplitude, QRS area, heart rate) that "
                       "agrees with the EDR's rate"),
        quality_time=q_time, quality=q, threshold=float(QUALITY_THRESHOLD),
        ecg_title=ecg_title, ecg=ecg, beats=beats,
        edr_title=edr_title, edr=edr, ref=ref_series, beat_values=values,
        score_lines=_score_lines(recording, result, ref), sigma2=_sigma2(result),
        breaths=breaths, pauses=pauses)
