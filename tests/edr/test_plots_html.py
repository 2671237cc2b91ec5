"""Tests of the interactive record view ``edr.plots_html`` (``--plot rec.html``): the HTML file is
produced and self-contained, holds every trace and legend entry of the static figure, marks every
beat by its fate, stays small for a 24-hour record, and names the install command when Plotly is
missing. The file itself is parsed, not only the figure object."""

from __future__ import annotations

import base64
import dataclasses
import json
import sys

import numpy as np
import pytest
import wfdb

from edr import extract
from edr.errors import EDRError
from edr.plots import plot_record
from edr.plots_html import HTML_INSTALL, write_record_html
from edr.rates import QUALITY_THRESHOLD
from edr.record_figure import BEAT_FATES, MAX_POINTS, envelope
from edr.simulate import simulate_recording


def _array(value):
    """A trace's x or y as Plotly wrote it: a list, or typed base64 (``bdata``)."""
    if isinstance(value, dict):
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).astype(float)
    return np.array([np.nan if v is None else v for v in value], dtype=float)


def _traces(path):
    """The traces and layout written into the HTML file (the ``Plotly.newPlot`` arguments)."""
    text = path.read_text()
    start = text.index("Plotly.newPlot(")
    start = text.index("[", start)
    decoder = json.JSONDecoder()
    traces, end = decoder.raw_decode(text, start)
    layout, _ = decoder.raw_decode(text, text.index("{", end))
    return traces, layout


def _legend_entries(traces):
    return {t["name"] for t in traces if t.get("showlegend", True)}


def _png_legend_entries(fig):
    """The static figure's legend labels, unwrapped (it wraps long ones to its margin)."""
    return {" ".join(t.get_text().split()) for ax in fig.axes if ax.get_legend()
            for t in ax.get_legend().get_texts()}


@pytest.fixture(scope="module")
def html(figure_record, figure_result, tmp_path_factory):
    pytest.importorskip("plotly")
    path = tmp_path_factory.mktemp("html") / "rec.html"
    assert write_record_html(figure_record, figure_result, path) == path
    return path


def test_html_is_self_contained_and_written_atomically(html, figure_record, figure_result):
    text = html.read_text()
    assert text.lstrip().lower().startswith("<!doctype html>")
    assert "<script src=" not in text  # Plotly's JavaScript is embedded: opens offline
    assert sorted(p.name for p in html.parent.iterdir()) == ["rec.html"]
    again = write_record_html(figure_record, figure_result, html.with_name("again.html"))
    assert again.read_bytes() == html.read_bytes()  # reproducible
    again.unlink()
    traces, layout = _traces(html)
    assert layout["xaxis"]["range"] == [0.0, 90.0]
    assert np.diff(layout["xaxis3"]["range"])[0] == pytest.approx(60.0)
    assert layout["xaxis4"]["matches"] == "x3"  # ECG and EDR zoom together


@pytest.mark.parametrize("case", ["beats", "masked"])
def test_same_legend_entries_as_the_static_figure(case, figure_record, figure_result,
                                                  masked_record_result, tmp_path):
    pytest.importorskip("plotly")
    rec, res = (figure_record, figure_result) if case == "beats" else masked_record_result
    path = write_record_html(rec, res, tmp_path / "rec.html")
    traces, layout = _traces(path)
    expected = _png_legend_entries(plot_record(rec, res))
    assert _legend_entries(traces) == expected
    for fragment in ({"minute shown below", "EDR rate (32 s windows)",
                      f"threshold {QUALITY_THRESHOLD:g}", "ECG lead II",
                      "EDR value at each used beat"}
                     | {text for text, _, _ in BEAT_FATES.values()}):
        assert any(e.startswith(fragment) for e in expected), fragment
    # every trace in a legend sits in its panel's legend, and every panel's legend is placed
    for t in traces:
        if t.get("showlegend", True):
            assert t.get("legend", "legend") in layout
    scores = " ".join(a["text"] for a in layout["annotations"])
    words = ("masked (every lead flat or missing): 150-240 s" if case == "masked" else
             "MSC 0.")
    assert words in scores
    if case == "masked":
        masked = [t for t in traces if t["name"] == "masked: every ECG lead flat or missing"][0]
        x = _array(masked["x"])
        assert np.nanmin(x) == pytest.approx(150.0, abs=0.5) and np.nanmax(x) == 240.0


def test_every_detected_beat_is_marked_by_its_fate(html, figure_result, figure_beats):
    traces, layout = _traces(html)
    t0, t1 = layout["xaxis3"]["range"]
    marks = {t["meta"][6:]: _array(t["x"]) for t in traces
             if str(t.get("meta", "")).startswith("beats-")}
    assert set(marks) == set(BEAT_FATES)
    marks = {k: v[np.isfinite(v)] for k, v in marks.items()}
    inside = (figure_beats.times >= t0) & (figure_beats.times < t1)
    assert sum(v.size for v in marks.values()) == inside.sum()
    np.testing.assert_allclose(np.sort(np.concatenate(list(marks.values()))),
                               figure_beats.times[inside])
    bt = figure_result.beat_times
    np.testing.assert_allclose(marks["used"], bt[(bt >= t0) & (bt < t1)])
    assert marks["ectopic"].size + marks["artefact"].size >= 1  # the inverted QRS


def test_day_long_record_stays_within_the_point_budget(figure_record, figure_result, tmp_path):
    """24 h of rate windows (every 16 s) are drawn as a min-max envelope, not 5400 points."""
    pytest.importorskip("plotly")
    rng = np.random.default_rng(0)
    t = np.arange(16.0, 86_400.0 - 16.0, 16.0)
    rate = 15.0 + 3.0 * np.sin(t / 3600.0) + rng.normal(0.0, 1.0, t.size)
    rate[1000:1100] = np.nan
    day = dataclasses.replace(figure_result, rate_time=t, rate_bpm=rate,
                              rate_quality=np.where(np.isfinite(rate), 0.9, 0.2))
    path = write_record_html(figure_record, day, tmp_path / "day.html", reference=False,
                             minute_start_s=0.0)
    traces, _ = _traces(path)
    drawn = [t for t in traces if t["name"] == "EDR rate (32 s windows)"][0]
    y = _array(drawn["y"])
    assert y.size <= MAX_POINTS
    assert np.nanmax(y) == np.nanmax(rate) and np.nanmin(y) == np.nanmin(rate)
    assert np.isnan(y).any()  # the withheld stretch stays a gap
    assert path.stat().st_size < 8e6


def test_envelope_matches_a_bucket_by_bucket_loop():
    rng = np.random.default_rng(1)
    x = np.arange(10_001, dtype=float)
    y = rng.normal(size=x.size)
    y[500:900] = np.nan
    xe, ye = envelope(x, y, max_points=100)
    expected = []
    for k in range(50):
        chunk = np.arange(k * x.size // 50, (k + 1) * x.size // 50)
        values = y[chunk]
        if np.isnan(values).all():
            expected.append(chunk[0])
            continue
        ok = chunk[~np.isnan(values)]
        expected += sorted({int(ok[np.argmin(y[ok])]), int(ok[np.argmax(y[ok])])})
    np.testing.assert_array_equal(xe, x[expected])
    np.testing.assert_array_equal(ye, y[expected])
    short = np.arange(5.0)
    assert all(np.array_equal(a, short) for a in envelope(short, short, max_points=10))


def _record(folder):
    rec = simulate_recording(60.0, 250.0, random_state=11)
    wfdb.wrsamp("sim", fs=250.0, units=["mV", "mV"], sig_name=["II", "RESP"],
                p_signal=np.column_stack([rec.ecg, rec.resp]), fmt=["16", "16"],
                write_dir=str(folder))
    return folder / "sim.dat"


def test_extract_writes_the_html_view(tmp_path, capsys):
    pytest.importorskip("plotly")
    code = extract.main([str(_record(tmp_path)), "-o", str(tmp_path / "e.csv"),
                         "--plot", str(tmp_path / "view.html")])
    assert code == 0, capsys.readouterr().err
    traces, _ = _traces(tmp_path / "view.html")
    assert "reference RESP" in _legend_entries(traces)


def test_missing_plotly_names_the_install_command(figure_record, figure_result, tmp_path,
                                                  monkeypatch, capsys):
    for name in [m for m in sys.modules if m == "plotly" or m.startswith("plotly.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "plotly", None)  # as if it were not installed
    with pytest.raises(EDRError, match="pip install"):
        write_record_html(figure_record, figure_result, tmp_path / "rec.html")
    code = extract.main([str(_record(tmp_path)), "--plot", str(tmp_path / "view.html")])
    err = capsys.readouterr().err
    assert code == 2 and "--plot" in err and HTML_INSTALL in err and "--plot rec.png" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sim.dat", "sim.hea"]  # nothing computed
