"""The per-record figure drawn with Matplotlib (imported lazily inside the functions).

:func:`plot_record` draws the content :func:`edr.record_figure.record_figure`
computes (rate overview, quality, a representative minute of ECG with every
beat marked by its fate and of EDR against the reference, the scores with
their meaning, the σ² choice) as one static image; every mark is in a legend.
:mod:`edr.plots_html` draws the same content as an interactive page. Only
:class:`matplotlib.figure.Figure` is used (no pyplot state), so the functions
are safe with any backend, including Agg on a headless machine.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from edr.figure_content import BEAT_FATES, BREATH_MARKS, COLOURS, MINUTE_S

__all__ = ["DPI", "HALF_PANELS", "LAYOUT", "PNG_COMPRESS_LEVEL", "draw_record_figure",
           "figure_bytes", "plot_record", "save_figure"]

LAYOUT = {"top": dict(left=0.06, right=0.70, top=0.955, bottom=0.265, hspace=0.42,
                      height_ratios=[1.0, 0.5, 1.0, 1.0]),
          "bottom": dict(left=0.06, right=0.97, top=0.205, bottom=0.045, wspace=0.12,
                         width_ratios=[1.1, 1.0])}
"""Where the panels sit (fractions of the 14 x 13 in figure): the four time panels above, with
the right 30 % kept for their legends; the scores and the σ² panel below, across the width.
Fixed rather than computed by Matplotlib's constrained layout, which measured every label of
the figure once more before drawing it (``docs/studies/first_run.md``)."""
HALF_PANELS = (1, 4, 5)
"""Positions in ``fig.axes`` of the record figure's quality, scores and σ² panels: about half
of its drawing, which :mod:`edr.figure_worker` gives to a second process (the axes are, in
order: rate, quality, ECG, EDR, scores, σ²)."""
DPI = 110
"""Dots per inch of the saved figures (the record figure: 1540 x 1430 pixels)."""
LEGEND_WRAP = 52
"""Characters per line of a legend label (fontsize 8 in the 4 in right margin)."""
TEXT_WRAP = 80
"""Characters per line of the scores panel (fontsize 8.5)."""

PNG_COMPRESS_LEVEL = 1
"""zlib level of the PNG figures: the record figure's PNG is ~7 % larger than at Matplotlib's
default (6) and written 0.2-0.3 s sooner, a twentieth of the demo's run
(``docs/studies/first_run.md``)."""


def _savefig(fig, target, fmt: str, dpi: float) -> None:
    """``fig.savefig`` as every figure of the project is saved (a PNG at
    :data:`PNG_COMPRESS_LEVEL`)."""
    extra = {"pil_kwargs": {"compress_level": PNG_COMPRESS_LEVEL}} if fmt == "png" else {}
    fig.savefig(target, format=fmt, dpi=dpi, **extra)


def save_figure(fig, path, *, dpi=DPI) -> Path:
    """Save ``fig`` atomically (temporary file next to ``path``, then rename).

    The image format follows the suffix of ``path`` (png, pdf, svg, ...). A PNG is written with
    zlib's fastest level (:data:`PNG_COMPRESS_LEVEL`).
    """
    from edr.io.writers import atomic_path

    path = Path(path)
    with atomic_path(path) as tmp:
        _savefig(fig, tmp, path.suffix.lstrip(".").lower() or "png", dpi)
    return path


def figure_bytes(fig, fmt: str = "png", *, dpi=DPI) -> bytes:
    """The file :func:`save_figure` would write for format ``fmt`` (png, pdf, svg, ...), in
    memory.

    See Also
    --------
    save_figure : the same, written to a file.
    edr.figure_worker.FigureWorker : draws the record figure to these bytes in another process.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from edr.plots import figure_bytes
    >>> figure_bytes(Figure(figsize=(1, 1)))[:4]
    b'\\x89PNG'
    """
    import io

    buffer = io.BytesIO()
    _savefig(fig, buffer, fmt.lower(), dpi)
    return buffer.getvalue()


def _shade_unused(ax, spans, *, label=True):
    """Masked stretches and skipped windows, hatched."""
    for kind in ("masked", "skipped"):
        text, stretches = spans.get(kind, ("", []))
        for i, (a, b) in enumerate(stretches):
            ax.axvspan(a, b, facecolor="none", edgecolor="0.55", hatch="///", lw=0, zorder=0,
                       label=text if label and i == 0 else None)


def _shade_pauses(ax, fig_data, *, label=True):
    """The pauses (:attr:`edr.record_figure.RecordFigure.pauses`), shaded."""
    text, stretches = fig_data.pauses
    for i, (a, b) in enumerate(stretches):
        ax.axvspan(a, b, color=COLOURS["pause"], alpha=0.7, lw=0, zorder=0, gid="pauses",
                   label=text if label and i == 0 else None)


def _legend(ax):
    """The panel's legend in the figure's right margin, long labels wrapped to fit it."""
    handles, labels = ax.get_legend_handles_labels()
    labels = [textwrap.fill(label, LEGEND_WRAP, subsequent_indent="  ") for label in labels]
    ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8,
              frameon=False)


def _panel_overview(ax, fig_data):
    """Rate over the whole record: EDR, reference, withheld / masked stretches, the minute."""
    text, stretches = fig_data.spans.get("withheld", ("", []))
    for i, (a, b) in enumerate(stretches):
        ax.axvspan(a, b, color=COLOURS["withheld"], lw=0, zorder=0,
                   label=text if i == 0 else None)
    _shade_unused(ax, fig_data.spans)
    _shade_pauses(ax, fig_data)
    ax.axvspan(*fig_data.minute, color=COLOURS["shown"], alpha=0.6, lw=0, zorder=0,
               label="minute shown below")
    rate = fig_data.rate
    ax.plot(rate.x, rate.y, "o-", color=COLOURS["edr"], ms=3.5, lw=1.2, label=rate.label)
    if fig_data.ref_rate is not None:
        ref = fig_data.ref_rate
        ax.plot(ref.x, ref.y, "s-", color=COLOURS["reference"], ms=3, lw=1.0, alpha=0.8,
                label=ref.label)
    ax.set_ylabel("breaths/min")
    ax.set_title(fig_data.overview_title, fontsize=10, loc="left")
    _legend(ax)


def _panel_quality(ax, fig_data):
    """Quality of each rate window against the threshold."""
    t, q = fig_data.quality_time, fig_data.quality
    ok = q >= fig_data.threshold
    for keep, colour, label in ((ok, COLOURS["used"], "rate given"),
                                (~ok, COLOURS["withheld_bar"], "rate withheld")):
        if keep.any():
            ax.bar(t[keep], q[keep], width=14.0, color=colour, label=label)
    ax.axhline(fig_data.threshold, color=COLOURS["artefact"], ls="--", lw=1.0,
               label=f"threshold {fig_data.threshold:g}")
    _shade_unused(ax, fig_data.spans, label=False)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("quality")
    ax.set_xlabel("time (s)")
    ax.set_title(fig_data.quality_title, fontsize=10, loc="left")
    _legend(ax)


def _panel_ecg(ax, fig_data):
    """The minute's ECG with every detected beat marked by its fate."""
    ecg = fig_data.ecg
    ax.plot(ecg.x, ecg.y, color="black", lw=0.6, label=ecg.label)
    for key, (_, marker, colour) in BEAT_FATES.items():
        beats = fig_data.beats[key]
        ax.plot(beats.x, beats.y, ls="none", marker=marker, ms=7,
                mfc="none" if marker == "o" else colour, mec=colour, mew=1.5, gid=f"beats-{key}",
                label=beats.label)
    _shade_unused(ax, fig_data.spans, label=False)
    ax.set_xlim(*fig_data.minute)
    ax.set_ylabel("mV")
    ax.set_title(fig_data.ecg_title, fontsize=10, loc="left")
    _legend(ax)


def _panel_edr(ax, fig_data):
    """EDR against the reference over the minute, with the EDR's value at each used beat, the
    breaths (kept or low quality) and the pauses."""
    if fig_data.ref is not None:
        ax.plot(fig_data.ref.x, fig_data.ref.y, color=COLOURS["reference"], lw=1.2,
                label=fig_data.ref.label)
    edr, values = fig_data.edr, fig_data.beat_values
    ax.plot(edr.x, edr.y, color=COLOURS["edr"], lw=1.4, label=edr.label)
    ax.plot(values.x, values.y, ls="none", marker=".", ms=5, color=COLOURS["edr"], alpha=0.6,
            label=values.label)
    for kind, (_, marker, colour) in BREATH_MARKS.items():
        marks = fig_data.breaths[kind]
        ax.plot(marks.x, marks.y, ls="none", marker=marker, ms=8, gid=f"breaths-{kind}",
                mfc=colour if kind == "kept" else "none", mec=colour, mew=1.5, label=marks.label)
    _shade_unused(ax, fig_data.spans, label=False)
    _shade_pauses(ax, fig_data, label=any(a < fig_data.minute[1] and b > fig_data.minute[0]
                                          for a, b in fig_data.pauses[1]))
    ax.set_xlim(*fig_data.minute)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("z-score")
    ax.set_title(fig_data.edr_title, fontsize=10, loc="left")
    _legend(ax)


def _panel_text(ax, lines):
    ax.set_axis_off()
    wrapped = [textwrap.fill(line, TEXT_WRAP, subsequent_indent="    ") if line else line
               for line in lines]
    ax.text(0.0, 1.0, "\n".join(wrapped), transform=ax.transAxes, va="top", ha="left",
            fontsize=8.5)


def _panel_sigma2(ax, panel):
    if panel.kind == "none":
        ax.text(0.5, 0.5, panel.message, ha="center", va="center", transform=ax.transAxes,
                fontsize=10)
        ax.set_axis_off()
        return
    curve = panel.curve
    if panel.kind == "per-window":
        ax.semilogy(curve.x, curve.y, "o-", color=COLOURS["edr"], ms=4, label=curve.label)
    else:
        ax.semilogx(curve.x, curve.y, color=COLOURS["edr"], lw=1.2, label=curve.label)
        ax.plot(panel.chosen.x, panel.chosen.y, "o", color=COLOURS["artefact"], ms=7,
                label=panel.chosen.label)
    ax.set_xlabel(panel.xlabel)
    ax.set_ylabel(panel.ylabel)
    ax.set_title(panel.title, fontsize=10, loc="left")
    ax.legend(loc="best", fontsize=8)


def plot_record(recording, result, *, fs=None, path=None, reference=True, minute_s=MINUTE_S,
                minute_start_s=None):
    """The per-record figure: rate overview with quality, a zoomed minute (ECG beats by fate, EDR
    vs reference), scores with their meaning, σ² selection.

    Parameters
    ----------
    recording, result, fs, reference, minute_s, minute_start_s
        As in :func:`edr.record_figure.record_figure`: ``recording`` is what the EDR was
        extracted from (a Recording, a path, or an ECG array with its rate ``fs``).
    path : str or Path, optional
        Where to save the figure (format from the suffix), atomically.

    Returns
    -------
    matplotlib.figure.Figure
        Axes in order: rate overview, quality, ECG, EDR, scores, σ².

    See Also
    --------
    edr.record_figure.record_figure : what the figure shows, computed once for every renderer.
    edr.plots_html.write_record_html : the same figure as an interactive HTML page.
    edr.pipeline.extract_edr : the result it draws.

    Examples
    --------
    ``path="sim.png"`` would also save it (rendering it takes a second or two, left out here):

    >>> from edr.pipeline import extract_edr
    >>> from edr.plots import plot_record
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> fig = plot_record(rec, extract_edr(rec), minute_s=20.0)
    >>> [ax.get_ylabel() for ax in fig.axes]  # rate, quality, ECG, EDR, scores, σ²
    ['breaths/min', 'quality', 'mV', 'z-score', '', 'criterion']
    >>> [float(t) for t in fig.axes[2].get_xlim()]  # the ECG of the zoomed stretch (s)
    [16.0, 36.0]
    >>> fig = plot_record(rec.ecg, extract_edr(rec.ecg, fs=250.0), fs=250.0)  # an array
    >>> len(fig.axes), fig.axes[2].get_ylabel()
    (6, 'mV')
    """
    from edr.record_figure import record_figure

    data = record_figure(recording, result, fs=fs, reference=reference, minute_s=minute_s,
                         minute_start_s=minute_start_s)
    return draw_record_figure(data, path=path)


def draw_record_figure(data, *, path=None):
    """Draw the record figure from its content.

    Parameters
    ----------
    data : edr.record_figure.RecordFigure
        What the figure shows (:func:`edr.record_figure.record_figure`).
    path : str or Path, optional
        Where to save the figure (format from the suffix), atomically.

    Returns
    -------
    matplotlib.figure.Figure
        As :func:`plot_record`'s.

    See Also
    --------
    plot_record : the content computed and drawn.
    edr.figure_worker.FigureWorker : draws it in another process.

    Examples
    --------
    >>> from edr.pipeline import extract_edr
    >>> from edr.plots import draw_record_figure
    >>> from edr.record_figure import record_figure
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> fig = draw_record_figure(record_figure(rec, extract_edr(rec), minute_s=20.0))
    >>> len(fig.axes)
    6
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(14, 13))
    top = fig.add_gridspec(4, 1, **LAYOUT["top"])
    bottom = fig.add_gridspec(1, 2, **LAYOUT["bottom"])
    ax_rate = fig.add_subplot(top[0])
    ax_q = fig.add_subplot(top[1], sharex=ax_rate)
    ax_ecg = fig.add_subplot(top[2])
    ax_edr = fig.add_subplot(top[3], sharex=ax_ecg)
    ax_txt = fig.add_subplot(bottom[0])
    ax_sig = fig.add_subplot(bottom[1])
    fig.suptitle(data.title, fontsize=12, x=0.01, y=0.995, ha="left", va="top")
    _panel_overview(ax_rate, data)
    ax_rate.set_xlim(0.0, data.duration_s)
    _panel_quality(ax_q, data)
    _panel_ecg(ax_ecg, data)
    _panel_edr(ax_edr, data)
    _panel_text(ax_txt, data.score_lines)
    _panel_sigma2(ax_sig, data.sigma2)
    for ax in (ax_rate, ax_q, ax_ecg, ax_edr, ax_sig):
        ax.grid(alpha=0.3)
    if path is not None:
        save_figure(fig, path)
    return fig
