"""Interactive record view: file size and start-up of three ways to draw it as HTML.

Candidates, each drawing the same :func:`edr.record_figure.record_figure`
content as a self-contained HTML file (opens without a network connection):

* ``plotly`` — :func:`edr.plots_html.write_record_html` (Plotly's JavaScript embedded);
* ``bokeh`` — the same panels with Bokeh, resources inline (a sketch drawn here);
* ``svg`` — the static Matplotlib figure as inline SVG with a few lines of
  JavaScript for wheel zoom and drag pan (no dependency beyond Matplotlib).

For each candidate and record, in a fresh process with the EDR already
computed: the import time of the drawing library, the first render + write
(the record figure's content, then the drawing: what a user waits for after
the extraction) and the HTML size, median of ``--repeat`` processes. With
``--browser``, also the time a headless Chromium takes to open and draw each
page (until it is idle, screenshot taken) beyond an empty page. Also prints the size with
the JavaScript loaded from a CDN (``plotly``, ``bokeh``) for reference, though
such a file does not open offline. Needs ``pip install plotly bokeh``.

Usage::

    EDR_DATA_DIR=../shared/data python benchmarks/bench_html_view.py [--repeat 3]
        [--browser chromium]
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RECORDS = {"bidmc01 (8 min, 125 Hz, 3 leads)": "bidmc/bidmc01",
           "m0046 (15 min, 250 Hz, 1 lead)": "marsh/m0046"}
CANDIDATES = ("plotly", "bokeh", "svg")

_ZOOM_JS = """
const svg = document.querySelector('svg');
const vb = svg.viewBox.baseVal;
svg.addEventListener('wheel', e => { e.preventDefault();
  const k = e.deltaY > 0 ? 1.2 : 1 / 1.2, r = svg.getBoundingClientRect();
  const px = vb.x + (e.clientX - r.left) / r.width * vb.width;
  const py = vb.y + (e.clientY - r.top) / r.height * vb.height;
  vb.x = px - (px - vb.x) * k; vb.y = py - (py - vb.y) * k; vb.width *= k; vb.height *= k; });
let drag = null;
svg.addEventListener('mousedown', e => { drag = [e.clientX, e.clientY]; });
window.addEventListener('mouseup', () => { drag = null; });
svg.addEventListener('mousemove', e => { if (!drag) return; const r = svg.getBoundingClientRect();
  vb.x -= (e.clientX - drag[0]) / r.width * vb.width;
  vb.y -= (e.clientY - drag[1]) / r.height * vb.height; drag = [e.clientX, e.clientY]; });
"""


def _bokeh_layout(data):
    """The record figure's panels drawn with Bokeh (a sketch for this measurement)."""
    import numpy as np
    from bokeh.layouts import column, row
    from bokeh.models import Div, Legend
    from bokeh.plotting import figure

    from edr.record_figure import BEAT_FATES, COLOURS

    def bands(stretches, top):
        return ([[a, a, b, b] for a, b in stretches], [[0, top, top, 0] for _ in stretches])

    def panel(title, height, x_range=None):
        kw = {"x_range": x_range} if x_range is not None else {}
        p = figure(title=title, width=1100, height=height, tools="xpan,xwheel_zoom,box_zoom,reset",
                   **kw)
        p.add_layout(Legend(click_policy="hide"), "right")
        return p

    top = 1.1 * float(np.nanmax(data.rate.y)) if np.isfinite(data.rate.y).any() else 30.0
    p1 = panel(data.overview_title, 300)
    for kind, (text, stretches) in data.spans.items():
        xs, ys = bands(stretches, top)
        p1.patches(xs, ys, fill_color=COLOURS["withheld"], line_width=0, legend_label=text,
                   hatch_pattern=None if kind == "withheld" else "/")
    xs, ys = bands([data.minute], top)
    p1.patches(xs, ys, fill_color=COLOURS["shown"], fill_alpha=0.6, line_width=0,
               legend_label="minute shown below")
    p1.line(data.rate.x, data.rate.y, color=COLOURS["edr"], legend_label=data.rate.label)
    p1.scatter(data.rate.x, data.rate.y, color=COLOURS["edr"], legend_label=data.rate.label)
    if data.ref_rate is not None:
        p1.line(data.ref_rate.x, data.ref_rate.y, color=COLOURS["reference"],
                legend_label=data.ref_rate.label)
    p2 = panel(data.quality_title, 160, p1.x_range)
    ok = data.quality >= data.threshold
    for keep, colour, label in ((ok, COLOURS["used"], "rate given"),
                                (~ok, COLOURS["withheld_bar"], "rate withheld")):
        if keep.any():
            p2.vbar(data.quality_time[keep], width=14.0, top=data.quality[keep], color=colour,
                    legend_label=label)
    p2.line([0, data.duration_s], [data.threshold] * 2, color=COLOURS["artefact"],
            line_dash="dashed", legend_label=f"threshold {data.threshold:g}")
    p3 = panel(data.ecg_title, 300)
    p3.line(data.ecg.x, data.ecg.y, color="black", legend_label=data.ecg.label)
    markers = {"o": "circle", "^": "triangle", "x": "x"}
    for key, (_, marker, colour) in BEAT_FATES.items():
        b = data.beats[key]
        p3.scatter(b.x, b.y, marker=markers[marker], size=10, line_color=colour,
                   fill_alpha=0, legend_label=b.label)
    p4 = panel(data.edr_title, 300, p3.x_range)
    if data.ref is not None:
        p4.line(data.ref.x, data.ref.y, color=COLOURS["reference"], legend_label=data.ref.label)
    p4.line(data.edr.x, data.edr.y, color=COLOURS["edr"], legend_label=data.edr.label)
    p4.scatter(data.beat_values.x, data.beat_values.y, color=COLOURS["edr"],
               legend_label=data.beat_values.label)
    text = Div(text="<br>".join(data.score_lines), width=600)
    bottom = [text]
    if data.sigma2.kind != "none":
        p5 = figure(title=data.sigma2.title, width=500, height=300,
                    x_axis_type="linear" if data.sigma2.kind == "per-window" else "log",
                    y_axis_type="log" if data.sigma2.kind == "per-window" else "linear")
        p5.line(data.sigma2.curve.x, data.sigma2.curve.y, legend_label=data.sigma2.curve.label)
        bottom.append(p5)
    return column(p1, p2, p3, p4, row(*bottom))


def _render(candidate: str, data, path: Path, *, cdn: bool = False) -> None:
    if candidate == "plotly":
        from edr.plots_html import html_figure

        html_figure(data).write_html(path, include_plotlyjs="cdn" if cdn else True)
    elif candidate == "bokeh":
        from bokeh.embed import file_html
        from bokeh.resources import CDN, INLINE

        path.write_text(file_html(_bokeh_layout(data), CDN if cdn else INLINE, "record"))
    else:
        import io

        from edr.plots import plot_record

        buf = io.StringIO()
        plot_record(*data).savefig(buf, format="svg")
        svg = buf.getvalue()
        path.write_text("<!DOCTYPE html><html><head><meta charset='utf-8'><style>path"
                        "{vector-effect:non-scaling-stroke}</style></head><body>"
                        + svg[svg.index("<svg"):] + f"<script>{_ZOOM_JS}</script></body></html>")


def _child(candidate: str, pickled: str, out: str) -> None:
    """One fresh process: import the drawing library, render once, print the times."""
    import matplotlib

    matplotlib.use("Agg")
    import edr.record_figure  # noqa: F401  (the EDR side is loaded before the clock starts)
    from edr.record_figure import record_figure

    rec, res = pickle.loads(Path(pickled).read_bytes())
    t0 = time.perf_counter()
    if candidate == "plotly":
        import plotly.graph_objects  # noqa: F401
        import plotly.subplots  # noqa: F401
    elif candidate == "bokeh":
        import bokeh.embed  # noqa: F401
        import bokeh.plotting  # noqa: F401
    else:
        import matplotlib.figure  # noqa: F401
    t1 = time.perf_counter()
    data = (rec, res) if candidate == "svg" else record_figure(rec, res)
    _render(candidate, data, Path(out))
    t2 = time.perf_counter()
    size_cdn = None
    if candidate != "svg":
        cdn = Path(out).with_suffix(".cdn.html")
        _render(candidate, data, cdn, cdn=True)
        size_cdn = cdn.stat().st_size
    print(json.dumps({"import_s": t1 - t0, "render_s": t2 - t1, "size": Path(out).stat().st_size,
                      "size_cdn": size_cdn}))


def _browser_open_s(browser: str, page: Path, repeat: int) -> float:
    """Median wall time (s) of a headless ``browser`` opening ``page`` and taking a screenshot
    once the page is idle (``--virtual-time-budget``: every script and drawing step has run,
    including those a library defers past the load event)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                        "--window-size=1500,1550", "--virtual-time-budget=10000",
                        f"--screenshot={page.with_suffix('.png')}", page.as_uri()],
                       check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes per measurement")
    parser.add_argument("--browser", metavar="PATH",
                        help="also time opening each page in this Chromium (headless), minus "
                             "opening an empty page")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(*args.child)
        return 0
    from edr.io import read_record
    from edr.pipeline import extract_edr

    root = Path(os.environ.get("EDR_DATA_DIR", "data"))
    print(f"{'record':34s} {'candidate':9s} {'size MB':>8s} {'CDN MB':>7s} {'import s':>9s} "
          f"{'render s':>9s}" + (f" {'open s':>7s}" if args.browser else ""))
    with tempfile.TemporaryDirectory() as tmp:
        blank = Path(tmp) / "blank.html"
        blank.write_text("<!DOCTYPE html><html><body></body></html>")
        base = _browser_open_s(args.browser, blank, args.repeat) if args.browser else 0.0
        for label, rel in RECORDS.items():
            rec = read_record(root / rel)
            pickled = Path(tmp) / "rec.pkl"
            pickled.write_bytes(pickle.dumps((rec, extract_edr(rec, random_state=0))))
            for candidate in CANDIDATES:
                page = Path(tmp) / f"{candidate}.html"
                runs = [json.loads(subprocess.run(
                    [sys.executable, __file__, "--child", candidate, str(pickled), str(page)],
                    check=True, capture_output=True, text=True).stdout)
                    for _ in range(args.repeat)]
                med = {k: statistics.median(r[k] for r in runs) for k in ("import_s", "render_s")}
                cdn = runs[0]["size_cdn"]
                opened = (f" {_browser_open_s(args.browser, page, args.repeat) - base:7.2f}"
                          if args.browser else "")
                print(f"{label:34s} {candidate:9s} {runs[0]['size'] / 1e6:8.2f} "
                      f"{'-' if cdn is None else f'{cdn / 1e6:.2f}':>7s} "
                      f"{med['import_s']:9.2f} {med['render_s']:9.2f}{opened}", flush=True)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
