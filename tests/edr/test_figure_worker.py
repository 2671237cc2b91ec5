"""edr.figure_worker.FigureWorker: the record figure drawn in a second process is the figure
drawn here; its errors reach the caller; a worker that cannot start or dies leaves the drawing
to this process."""

from __future__ import annotations

import subprocess
import sys

import pytest

from edr.figure_worker import FORKED_HALVES, FigureWorker
from edr.plots import plot_record
from edr.record_figure import record_figure


def test_the_worker_draws_the_file_saved_here(figure_record, figure_result, tmp_path):
    data = record_figure(figure_record, figure_result)
    with FigureWorker() as worker:
        assert worker.start()
        png, svg = worker.render(data, "png"), worker.render(data, "svg")
        png, svg = png.result(), svg.result()
    plot_record(figure_record, figure_result, path=tmp_path / "here.png")
    assert png == (tmp_path / "here.png").read_bytes()
    assert svg.lstrip().startswith(b"<?xml") and b"<svg" in svg


def test_an_error_while_drawing_reaches_the_caller(figure_record, figure_result):
    data = record_figure(figure_record, figure_result)
    with FigureWorker() as worker:
        worker.start()
        with pytest.raises(ValueError, match="not supported"):
            worker.render(data, "no-such-format").result()
        assert worker.render(data, "png").result()[:4] == b"\x89PNG"  # the worker still draws
        assert worker._process.is_alive()


def test_a_worker_that_cannot_start_leaves_the_drawing_here(figure_record, figure_result,
                                                            monkeypatch, capsys):
    import multiprocessing.context

    def refuse(self):
        raise OSError("no processes here")

    monkeypatch.setattr(multiprocessing.context.SpawnProcess, "start", refuse)
    with FigureWorker() as worker:
        assert not worker.start()
        png = worker.render(record_figure(figure_record, figure_result)).result()
    assert png[:4] == b"\x89PNG" and len(png) > 10_000
    assert "could not start (no processes here); drawing it here" in capsys.readouterr().err


@pytest.mark.parametrize("when", ["before", "while"])
def test_a_worker_that_died_leaves_the_drawing_here(figure_record, figure_result, when, capsys):
    data = record_figure(figure_record, figure_result)
    with FigureWorker() as worker:
        worker.start()
        pending = worker.render(data) if when == "while" else None
        worker._process.kill()
        worker._process.join()
        png = (pending or worker.render(data)).result()
    assert png[:4] == b"\x89PNG" and len(png) > 10_000
    assert "drawing it here" in capsys.readouterr().err


HALVES_CHECK = """
import os, sys, time
import edr.figure_worker as fw
from edr.pipeline import extract_edr
from edr.plots import HALF_PANELS, draw_record_figure, figure_bytes
from edr.record_figure import record_figure
from edr.simulate import simulate_recording

rec = simulate_recording(duration_s=90.0, fs=250.0, random_state=1)
for result in (extract_edr(rec), extract_edr(rec, sigma2="rule-of-thumb", window_s=40.0)):
    data = record_figure(rec, result, minute_s=30.0)
    single = figure_bytes(draw_record_figure(data))
    fig = draw_record_figure(data)
    assert fw._png_in_halves(fig, [fig.axes[i] for i in HALF_PANELS]) == single
    parent, drawn = os.getpid(), fw._rgba

    def failing_in_the_child(fig, hidden):
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return drawn(fig, hidden)

    fw._rgba = failing_in_the_child
    fig = draw_record_figure(data)
    assert fw._png_in_halves(fig, [fig.axes[i] for i in HALF_PANELS]) == single

    def hanging_in_the_child(fig, hidden):
        if os.getpid() != parent:
            time.sleep(120.0)
        return drawn(fig, hidden)

    fw._rgba, fw.HALF_TIMEOUT_S = hanging_in_the_child, 1.0  # killed, its half drawn here
    fig = draw_record_figure(data)
    started = time.perf_counter()
    assert fw._png_in_halves(fig, [fig.axes[i] for i in HALF_PANELS]) == single
    assert time.perf_counter() - started < 60.0
    fw._rgba, fw.HALF_TIMEOUT_S = drawn, 60.0
print("same bytes")
"""


@pytest.mark.skipif(not FORKED_HALVES, reason="the figure is drawn in forked halves on Linux only")
def test_the_png_drawn_in_forked_halves_is_the_single_drawing(tmp_path):
    """Run in a process of its own: the halves fork, which a test process with threads must not."""
    done = subprocess.run([sys.executable, "-c", HALVES_CHECK], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "same bytes", done.stderr[-2000:]
