"""The per-record figure as an interactive HTML page (Plotly, an optional dependency).

:func:`write_record_html` draws the content
:func:`edr.record_figure.record_figure` computes — the same as the static
figure of :func:`edr.plots.plot_record` — as one self-contained HTML file that
opens in a browser without a network connection: every panel zooms and pans,
hovering shows the values, clicking a legend entry hides or shows its marks.
Install the dependency with ``pip install "kpca-edr[html]"``.
"""

from __future__ import annotations

import html
import importlib.util
from pathlib import Path

import numpy as np

from edr.errors import EDRError
from edr.record_figure import BEAT_FATES, BREATH_MARKS, COLOURS, MINUTE_S, record_figure

__all__ = ["HTML_INSTALL", "html_figure", "require_plotly", "write_record_html"]

#: The command that installs the optional dependency of this module.
HTML_INSTALL = 'pip install "kpca-edr[html]"'
_NO_PLOTLY = (f"the interactive HTML view needs Plotly, which is not installed; install it with: "
              f"{HTML_INSTALL} (or: pip install plotly), or write a static figure: --plot rec.png")
#: Plotly marker symbols for the Matplotlib markers of :data:`BEAT_FATES`.
_SYMBOLS = {"o": "circle-open", "^": "triangle-up", "x": "x-thin-open", "v": "triangle-down"}
#: Panel rows: overview, quality, ECG, EDR, scores + σ² (relative heights).
_ROW_HEIGHTS = (1.0, 0.5, 1.0, 1.0, 0.9)


def require_plotly() -> None:
    """Raise :class:`edr.errors.EDRError` naming the install command when Plotly is not
    installed (found without importing it, so the check is instant)."""
    if importlib.util.find_spec("plotly") is None:
        raise EDRError(_NO_PLOTLY)


def _plotly():
    """The ``plotly.graph_objects`` and ``plotly.subplots`` modules (see :func:`require_plotly`)."""
    try:
        import plotly.graph_objects as go
        from plotly.subplots import make_subplots
    except ImportError as exc:
        raise EDRError(_NO_PLOTLY) from exc
    return go, make_subplots


def _bands(stretches, low, high):
    """One closed polygon per ``(start, end)`` stretch, separated by gaps (``None``): a single
    filled trace for any number of stretches."""
    x, y = [], []
    for a, b in stretches:
        x += [a, a, b, b, a, None]
        y += [low, high, high, low, low, None]
    return x, y


def _finite_max(*arrays, default=1.0):
    values = np.concatenate([np.asarray(a, float).ravel() for a in arrays])
    values = values[np.isfinite(values)]
    return float(values.max()) if values.size else default


def _add_spans(fig, go, data, row, legend, top, *, withheld):
    """Withheld (grey), masked and skipped (hatched) stretches of ``data`` as filled traces."""
    kinds = (("withheld", COLOURS["withheld"], ""),) if withheld else ()
    kinds += (("masked", "rgba(140,140,140,0.35)", "/"), ("skipped", "rgba(140,140,140,0.35)", "/"))
    for kind, colour, pattern in kinds:
        if kind not in data.spans:
            continue
        text, stretches = data.spans[kind]
        x, y = _bands(stretches, 0.0, top)
        fig.add_trace(go.Scatter(
            x=x, y=y, fill="toself", mode="none", fillcolor=colour, name=text, legend=legend,
            showlegend=legend is not None, legendgroup=kind, hoverinfo="skip",
            fillpattern={"shape": pattern, "fgcolor": "rgb(140,140,140)"} if pattern else None),
            row=row, col=1)


def html_figure(data):
    """The Plotly figure of ``data`` (a :class:`edr.record_figure.RecordFigure`).

    Traces carry the legend texts of the static figure; each panel has its own
    legend (``legend``, ``legend2``, ``legend3``, ``legend4``, ``legend5``).
    Raises :class:`edr.errors.EDRError` naming the install command when Plotly
    is missing.
    """
    go, make_subplots = _plotly()
    fig = make_subplots(
        rows=5, cols=2, row_heights=list(_ROW_HEIGHTS), column_widths=[1.1, 1.0],
        vertical_spacing=0.055, horizontal_spacing=0.06,
        specs=[[{"colspan": 2}, None]] * 4 + [[{"type": "domain"}, {}]],
        subplot_titles=(data.overview_title, data.quality_title, data.ecg_title, data.edr_title,
                        "", data.sigma2.title))
    _add_overview(fig, go, data)
    _add_quality(fig, go, data)
    _add_ecg(fig, go, data)
    _add_edr(fig, go, data)
    _add_sigma2(fig, go, data.sigma2)
    _layout(fig, data)
    return fig


def _add_overview(fig, go, data):
    """Row 1: rate over the whole record, withheld / masked stretches, the minute shown."""
    top = 1.1 * _finite_max(data.rate.y, [] if data.ref_rate is None else data.ref_rate.y,
                            default=30.0)
    _add_spans(fig, go, data, 1, "legend", top, withheld=True)
    _add_pauses(fig, go, data, 1, "legend", 0.0, top)
    x, y = _bands([data.minute], 0.0, top)
    fig.add_trace(go.Scatter(x=x, y=y, fill="toself", mode="none", fillcolor=COLOURS["shown"],
                             opacity=0.6, name="minute shown below", legend="legend",
                             hoverinfo="skip"), row=1, col=1)
    fig.add_trace(go.Scatter(x=data.rate.x, y=data.rate.y, mode="lines+markers",
                             line={"color": COLOURS["edr"], "width": 1.5}, marker={"size": 5},
                             name=data.rate.label, legend="legend"), row=1, col=1)
    if data.ref_rate is not None:
        fig.add_trace(go.Scatter(x=data.ref_rate.x, y=data.ref_rate.y, mode="lines+markers",
                                 line={"color": COLOURS["reference"], "width": 1.2},
                                 marker={"size": 4, "symbol": "square"}, opacity=0.8,
                                 name=data.ref_rate.label, legend="legend"), row=1, col=1)


def _add_quality(fig, go, data):
    """Row 2: quality of each rate window against the threshold."""
    ok = data.quality >= data.threshold
    for keep, colour, label in ((ok, COLOURS["used"], "rate given"),
                                (~ok, COLOURS["withheld_bar"], "rate withheld")):
        if keep.any():
            fig.add_trace(go.Bar(x=data.quality_time[keep], y=data.quality[keep], width=14.0,
                                 marker_color=colour, name=label, legend="legend2"), row=2, col=1)
    fig.add_trace(go.Scatter(x=[0.0, data.duration_s], y=[data.threshold] * 2, mode="lines",
                             line={"color": COLOURS["artefact"], "dash": "dash", "width": 1.2},
                             name=f"threshold {data.threshold:g}", legend="legend2"), row=2, col=1)
    _add_spans(fig, go, data, 2, None, 1.05, withheld=False)


def _add_ecg(fig, go, data):
    """Row 3: the minute's ECG with every beat marked by its fate."""
    fig.add_trace(go.Scatter(x=data.ecg.x, y=data.ecg.y, mode="lines",
                             line={"color": "black", "width": 0.8}, name=data.ecg.label,
                             legend="legend3"), row=3, col=1)
    for key, (_, marker, colour) in BEAT_FATES.items():
        beats = data.beats[key]
        # Plotly leaves a trace without points out of the legend: give it one empty point
        x, y = (beats.x, beats.y) if beats.x.size else ([None], [None])
        fig.add_trace(go.Scatter(x=x, y=y, mode="markers", name=beats.label,
                                 meta=f"beats-{key}", legend="legend3",
                                 marker={"symbol": _SYMBOLS[marker], "size": 10, "color": colour,
                                         "line": {"width": 2, "color": colour}}), row=3, col=1)


def _add_edr(fig, go, data):
    """Row 4: EDR against the reference over the minute, the EDR's value at each used beat, the
    breaths and the pauses."""
    values = [data.edr.y] + ([] if data.ref is None else [data.ref.y])
    top = 1.1 * _finite_max(*[np.abs(v) for v in values], default=3.0)
    _add_pauses(fig, go, data, 4, "legend4", -top, top)
    if data.ref is not None:
        fig.add_trace(go.Scatter(x=data.ref.x, y=data.ref.y, mode="lines",
                                 line={"color": COLOURS["reference"], "width": 1.5},
                                 name=data.ref.label, legend="legend4"), row=4, col=1)
    fig.add_trace(go.Scatter(x=data.edr.x, y=data.edr.y, mode="lines",
                             line={"color": COLOURS["edr"], "width": 1.8}, name=data.edr.label,
                             legend="legend4"), row=4, col=1)
    fig.add_trace(go.Scatter(x=data.beat_values.x, y=data.beat_values.y, mode="markers",
                             marker={"color": COLOURS["edr"], "size": 5}, opacity=0.6,
                             name=data.beat_values.label, legend="legend4"), row=4, col=1)
    for kind, (_, marker, colour) in BREATH_MARKS.items():
        marks = data.breaths[kind]
        x, y = (marks.x, marks.y) if marks.x.size else ([None], [None])
        fig.add_trace(go.Scatter(x=x, y=y, mode="markers", name=marks.label,
                                 meta=f"breaths-{kind}", legend="legend4",
                                 marker={"symbol": _SYMBOLS[marker] + ("" if kind == "kept"
                                                                      else "-open"),
                                         "size": 10, "color": colour,
                                         "line": {"width": 2, "color": colour}}), row=4, col=1)


def _add_pauses(fig, go, data, row, legend, low, high):
    """The pauses of ``data`` as one filled trace on panel ``row`` (none without a pause)."""
    text, stretches = data.pauses
    if not stretches:
        return
    x, y = _bands(stretches, low, high)
    fig.add_trace(go.Scatter(x=x, y=y, fill="toself", mode="none", fillcolor=COLOURS["pause"],
                             opacity=0.7, name=text, legend=legend, meta="pauses",
                             hoverinfo="skip"), row=row, col=1)


def _add_sigma2(fig, go, panel):
    if panel.kind == "none":
        fig.add_annotation(text=panel.message, showarrow=False, xref="x5 domain",
                           yref="y5 domain", x=0.5, y=0.5)
        fig.update_xaxes(visible=False, row=5, col=2)
        fig.update_yaxes(visible=False, row=5, col=2)
        return
    per_window = panel.kind == "per-window"
    fig.add_trace(go.Scatter(x=panel.curve.x, y=panel.curve.y,
                             mode="lines+markers" if per_window else "lines",
                             line={"color": COLOURS["edr"]}, name=panel.curve.label,
                             legend="legend5"), row=5, col=2)
    if panel.chosen is not None:
        fig.add_trace(go.Scatter(x=panel.chosen.x, y=panel.chosen.y, mode="markers",
                                 marker={"color": COLOURS["artefact"], "size": 10},
                                 name=panel.chosen.label, legend="legend5"), row=5, col=2)
    fig.update_xaxes(title_text=panel.xlabel, type="linear" if per_window else "log", row=5, col=2)
    fig.update_yaxes(title_text=panel.ylabel, type="log" if per_window else "linear", row=5, col=2)


def _layout(fig, data):
    """Axes, per-panel legends beside their panels, the scores text."""
    fig.update_xaxes(range=[0.0, data.duration_s], row=1, col=1)
    fig.update_xaxes(matches="x", title_text="time (s)", row=2, col=1)
    fig.update_xaxes(range=list(data.minute), row=3, col=1)
    fig.update_xaxes(matches="x3", title_text="time (s)", row=4, col=1)
    fig.update_yaxes(title_text="breaths/min", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="quality", range=[0.0, 1.05], row=2, col=1)
    fig.update_yaxes(title_text="mV", row=3, col=1)
    fig.update_yaxes(title_text="z-score", row=4, col=1)
    panels = {"legend": (1, 1), "legend2": (2, 1), "legend3": (3, 1), "legend4": (4, 1),
              "legend5": (5, 2)}
    legends = {name: {"x": 1.01, "y": fig.get_subplot(row, col).yaxis.domain[1],
                      "xanchor": "left", "yanchor": "top", "font": {"size": 11}}
               for name, (row, col) in panels.items()}
    fig.update_layout(
        title={"text": data.title, "x": 0.01}, height=1500, width=1500, barmode="overlay",
        margin={"r": 430, "l": 70, "t": 80, "b": 40}, template="plotly_white",
        hovermode="closest", **legends)
    fig.add_annotation(text="<br>".join(html.escape(line).replace("  ", "&nbsp;&nbsp;")
                                        for line in data.score_lines),
                       xref="paper", yref="paper", x=0.0, y=fig.get_subplot(5, 2).yaxis.domain[1],
                       xanchor="left", yanchor="top", align="left", showarrow=False)
    left = {data.overview_title, data.quality_title, data.ecg_title, data.edr_title}
    for annotation in fig.layout.annotations:  # full-width panels' titles left, like the PNG
        if annotation.text in left:
            annotation.update(x=0.0, xanchor="left")
        annotation.update(font={"size": 12})


def write_record_html(recording, result, path, *, fs=None, reference=True, minute_s=MINUTE_S,
                      minute_start_s=None) -> Path:
    """Write the interactive record figure to ``path`` (a self-contained HTML file), atomically.

    Parameters
    ----------
    recording, result, fs, reference, minute_s, minute_start_s
        As in :func:`edr.record_figure.record_figure` (``recording`` may be an ECG array with
        ``fs``).
    path : str or Path
        The HTML file written; Plotly's JavaScript is embedded, so it opens offline.
        The same inputs give the same bytes.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    EDRError
        Plotly is not installed (the message names the install command).

    See Also
    --------
    edr.record_figure.record_figure : what the page shows, computed once for every renderer.
    edr.plots.plot_record : the same figure as a static image (PNG, PDF, SVG, ...).
    edr.pipeline.extract_edr : the result it draws.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from edr.errors import EDRError
    >>> from edr.pipeline import extract_edr
    >>> from edr.plots_html import write_record_html
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> result = extract_edr(rec)
    >>> tmp = tempfile.TemporaryDirectory()
    >>> try:  # one self-contained page: the figure's div and Plotly's JavaScript
    ...     page = write_record_html(rec, result, Path(tmp.name) / "sim.html")
    ...     text = page.read_text()
    ...     ok = 'id="edr-record-view"' in text and "<script src=" not in text
    ... except EDRError as exc:  # Plotly is optional: without it, the install command is named
    ...     ok = "pip install" in str(exc)
    >>> ok
    True
    >>> tmp.cleanup()
    """
    from edr.io.writers import atomic_path

    require_plotly()  # fail before computing anything
    fig = html_figure(record_figure(recording, result, fs=fs, reference=reference,
                                    minute_s=minute_s, minute_start_s=minute_start_s))
    path = Path(path)
    with atomic_path(path) as tmp:
        fig.write_html(tmp, include_plotlyjs=True, full_html=True, div_id="edr-record-view",
                       config={"displaylogo": False, "scrollZoom": True})
    return path
