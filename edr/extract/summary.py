"""What the ``extract`` command reports about one record: the lines it prints and the JSON
summary it writes (``--json``; also the resumption record of :mod:`edr.extract.many_records`)."""

from __future__ import annotations

import math

from edr.names import canonical_criterion, criterion_label

__all__ = ["breath_line", "clipped_lines", "json_summary", "summary_lines"]



def _fmt(x, spec=".2f") -> str:
    return "n/a" if x is None or (isinstance(x, float) and not math.isfinite(x)) else format(x,
                                                                                             spec)


def _sigma2_text(result) -> str:
    """How σ² was set: chosen by which criterion, fixed, or not used; per window too."""
    import numpy as np

    criterion = result.params.get("sigma2", None) if isinstance(result.params, dict) else None
    if result.sigma2 is None:
        text = "not used by this method"
    elif isinstance(criterion, str):
        # the canonical key, as in the JSON summary and the figure; the alias typed in brackets
        key = str(getattr(result.selection, "criterion", None)
                  or canonical_criterion(criterion) or criterion)
        text = f"{result.sigma2:.4g} (chosen by {criterion_label(key)})"
    else:
        text = f"{result.sigma2:.4g} (fixed)"
    if len(result.windows) > 1:
        sig = [w.sigma2 for w in result.windows if w.sigma2 is not None]
        if sig:
            text += f"; {len(result.windows)} windows, median {float(np.median(sig)):.4g}"
        else:
            text += f"; {len(result.windows)} windows"
    return text


def summary_lines(rec, result, scores, scores_error, outputs, seconds, demo,
                  gaps=None) -> list[str]:
    """The lines ``extract`` prints for one record: record, lead, method and σ², beats, rate,
    status, what was masked, carried across (``gaps``: :func:`edr.gaps.carried_gaps`, found when
    None) or skipped, the breaths (:func:`breath_line`), the scores against the reference,
    outputs, time."""
    import numpy as np

    from edr.signal import RATE_WINDOW_S

    rate = np.asarray(result.rate_bpm, dtype=float)
    rate = rate[np.isfinite(rate)]
    source = rec.path or "simulated (edr.simulate)"
    lines = [
        f"record     {rec.name}  [{source}]  {rec.duration_s:.1f} s at {rec.fs:g} Hz",
        f"lead       {result.lead}  (channels: {', '.join(rec.channels)})",
        f"method     {result.method}, sigma2 = {_sigma2_text(result)}"
        + (f", one FS2 model (M = {result.params['n_support']})" if result.params.get("solver")
           == "fs2" else ""),
        f"beats      {result.n_beats} used, {result.n_beats_dropped} dropped"
        + (f"; R peaks given ({rec.r_peaks_source})" if getattr(rec, "r_peaks_source", None)
           else ""),
        f"resp rate  median {_fmt(float(np.median(rate)) if rate.size else None, '.1f')} "
        f"breaths/min, given for {rate.size}/{np.size(result.rate_bpm)} windows of "
        f"{RATE_WINDOW_S:g} s "
        f"(quality >= {result.summary()['quality_threshold']:g})",
        f"status     {result.status}",
    ]
    lines += _unused_lines(rec, result, gaps) + clipped_lines(result.clipped_samples,
                                                        result.clipped_beats)
    lines.append(breath_line(result.breaths.summary()))
    if rec.breath_source and not demo:
        lines.append(f"annotated  {rec.breath_source} (the reference rates)")
    label = "vs truth " if demo else f"vs {rec.resp_channel}" if rec.resp_channel else "reference"
    if scores is not None and rec.resp is None:  # breath times alone: a rate error
        lines.append(f"vs breaths rate error {_fmt(scores.rate_error_bpm, '.2f')} breaths/min "
                     "(MSC and |r| need a respiration channel: --ref-channel)")
    elif scores is not None:
        lines.append(f"{label:<10} MSC {scores.msc:.2f}, |r| {scores.corr:.2f}, "
                     f"rate error {_fmt(scores.rate_error_bpm, '.2f')} breaths/min")
        from edr.similarity import scores_meaning

        lines.append(" " * 11 + f"({scores_meaning(scores.msc, scores.corr)})")
    elif scores_error is not None:
        lines.append(f"{label:<10} not scored: {scores_error}")
    elif rec.resp is None:
        lines.append(f"{label:<10} none found among the channels; name it with --ref-channel "
                     "to score the EDR against it")
    lines.append(f"outputs    {', '.join(str(p) for p in outputs.values())}")
    lines.append(f"time       {seconds:.2f} s")
    return lines


def breath_line(digest: dict) -> str:
    """The ``breaths`` line of the printed summary from :meth:`edr.breaths.Breaths.summary`:
    counts, the median interval and its variability (of the trusted intervals), the pauses.

    Examples
    --------
    >>> from edr.extract.summary import breath_line
    >>> breath_line({"n_breaths": 30, "n_kept": 28, "n_pauses": 1, "pause_s_total": 21.5,
    ...              "interval_median_s": 4.02, "interval_sd_s": 0.31,
    ...              "interval_rmssd_s": 0.4, "polarity_confident": True}).split("; ")
    ... # doctest: +NORMALIZE_WHITESPACE
    ['breaths    30 found, 28 kept (2 low quality)',
     'interval median 4.02 s, SD 0.31 s, RMSSD 0.40 s', '1 pause (21.5 s)']
    """
    n, kept = digest["n_breaths"], digest["n_kept"]
    pauses = digest["n_pauses"]
    line = (f"breaths    {n} found, {kept} kept ({n - kept} low quality); interval median "
            f"{_fmt(digest['interval_median_s'])} s, SD {_fmt(digest['interval_sd_s'])} s, "
            f"RMSSD {_fmt(digest['interval_rmssd_s'])} s; {pauses} pause"
            + ("" if pauses == 1 else "s")
            + (f" ({digest['pause_s_total']:.1f} s)" if pauses else ""))
    if not digest["polarity_confident"]:
        line += "; which extrema end inspiration is uncertain (times may be half a breath off)"
    return line


def clipped_lines(samples: dict, beats: dict) -> list[str]:
    """The ``clipped`` line of the printed summary when a lead was held at its rail
    (:attr:`edr.pipeline.EDRResult.clipped_samples`, ``clipped_beats``); none otherwise.

    Examples
    --------
    >>> from edr.extract.summary import clipped_lines
    >>> clipped_lines({"II": 0, "V": 0}, {"II": 0})
    []
    >>> clipped_lines({"II": 1234, "V": 0}, {"II": 17})  # doctest: +NORMALIZE_WHITESPACE
    ['clipped    II 1234 samples held at the rail for 40 ms or more;
      17 beats of II with a clipped QRS (R ± 60 ms)']
    """
    from edr.beats.flags import CLIP_RUN_S
    from edr.modulation import QRS_HALF_WIDTH_S

    held = [f"{lead} {n} samples" for lead, n in samples.items() if n]
    hit = [f"{n} beats of {lead}" for lead, n in beats.items() if n]
    parts = []
    if held:
        parts.append(", ".join(held) + f" held at the rail for {CLIP_RUN_S * 1e3:g} ms or more")
    if hit:
        parts.append(", ".join(hit) + f" with a clipped QRS (R ± {QRS_HALF_WIDTH_S * 1e3:g} ms)")
    return ["clipped    " + "; ".join(parts)] if parts else []


def _unused_lines(rec, result, gaps=None) -> list[str]:
    """Summary lines naming the stretches without a usable lead, the shorter ones the EDR was
    carried across, and the windows skipped."""
    from edr.gaps import carried_gaps
    from edr.stitch import MAX_GAP_S

    lines = []
    if result.masked:
        total = sum(b - a for a, b in result.masked)
        lines.append(f"masked     {', '.join(f'{a:.1f}-{b:.1f} s' for a, b in result.masked)} "
                     f"({total / rec.duration_s:.0%} of the record): every ECG lead flat or "
                     "missing; no EDR and no rate there")
    gaps = carried_gaps(rec, result) if gaps is None else gaps
    if gaps:
        named = ", ".join(f"{a:.1f}-{b:.1f} s ({b - a:.1f} s)" for a, b in gaps[:5])
        more = f" and {len(gaps) - 5} more (all in the JSON's gaps)" if len(gaps) > 5 else ""
        lines.append(f"gaps       {len(gaps)} stretch(es) of flat or missing ECG, "
                     f"{sum(b - a for a, b in gaps):.1f} s in all, the EDR carried across them "
                     f"from the beats around (NaN farther than {MAX_GAP_S:g} s from a beat): "
                     f"{named}{more}")
    for w in result.windows:
        status = str(w.quality.get("status", ""))
        if status.startswith("skipped"):
            lines.append(f"skipped    window {w.start_s:.1f}-{w.end_s:.1f} s: "
                         f"{status.removeprefix('skipped: ')}")
    return lines


def json_summary(rec, result, scores, outputs, argv, *, reference_notes=()) -> dict:
    """The JSON summary of one record: the record, its references (the respiration channel, the
    breath annotations chosen and the point of the breath they mark, the references found but
    not used and why), the result's summary
    (:meth:`edr.pipeline.EDRResult.summary`), the breaths' (:meth:`edr.breaths.Breaths.summary`
    of :attr:`edr.pipeline.EDRResult.breaths`: counts, kept, the median interval, its SD, CV and
    RMSSD, the pauses), the short stretches of flat or missing ECG the EDR was carried across
    (``gaps``: :func:`edr.gaps.carried_gaps`), the scores, the outputs and the command line."""
    from edr.gaps import carried_gaps

    return {
        "record": rec.name,
        "path": rec.path,
        "fs": rec.fs,
        "duration_s": rec.duration_s,
        "ecg_channel": rec.ecg_channel,
        "channels": list(rec.channels),
        "reference": rec.resp_channel,
        "breath_reference": rec.breath_source,
        "breath_reference_event": getattr(rec, "breath_event", None),
        "references_not_used": list(reference_notes),
        "r_peaks": getattr(rec, "r_peaks_source", None),
        "result": result.summary(),
        "breaths": result.breaths.summary(),
        "gaps": [{"start_s": a, "end_s": b, "seconds": b - a}
                 for a, b in carried_gaps(rec, result)],
        "scores": None if scores is None else {
            "msc": scores.msc, "corr": scores.corr, "rate_error_bpm": scores.rate_error_bpm,
            "f_ref": scores.f_ref,
        },
        "outputs": {k: str(v) for k, v in outputs.items()},
        "argv": list(argv),
    }
