"""edr.figure_worker.FigureWorker: the record figure drawn in a second process is the figure
drawn here; its errors reach the caller; a worker that cannot start or dies leaves the drawing
to this process."""

from __future__ import annotations

import numpy as np
import pytest

from edr.figure_worker import FigureWorker
from edr.plots import plot_record
from edr.record_figure import record_figure


def _pixels(path):
    from matplotlib.image import imread

    return imread(path)


def test_the_worker_draws_the_figure_drawn_here(figure_record, figure_result, tmp_path):
    with FigureWorker() as worker:
        assert worker.start()
        out = worker.draw(record_figure(figure_record, figure_result), tmp_path / "worker.png")
    plot_record(figure_record, figure_result, path=tmp_path / "here.png")
    assert out == tmp_path / "worker.png"
    np.testing.assert_array_equal(_pixels(out), _pixels(tmp_path / "here.png"))


def test_an_error_while_drawing_reaches_the_caller(figure_record, figure_result, tmp_path):
    data = record_figure(figure_record, figure_result)
    with FigureWorker() as worker:
        worker.start()
        with pytest.raises(FileNotFoundError):
            worker.draw(data, tmp_path / "no such folder" / "rec.png")
        assert worker._pool is None  # stopped: nothing is written after the caller cleans up
    assert not (tmp_path / "no such folder").exists()


def test_a_worker_that_cannot_start_leaves_the_drawing_here(figure_record, figure_result,
                                                            tmp_path, monkeypatch, capsys):
    import concurrent.futures

    def refuse(*args, **kwargs):
        raise OSError("no processes here")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", refuse)
    with FigureWorker() as worker:
        assert not worker.start()
        worker.draw(record_figure(figure_record, figure_result), tmp_path / "rec.png")
    assert (tmp_path / "rec.png").stat().st_size > 10_000
    assert "could not start (no processes here); drawing it here" in capsys.readouterr().err


def test_a_worker_that_died_leaves_the_drawing_here(figure_record, figure_result, tmp_path,
                                                    capsys):
    with FigureWorker() as worker:
        worker.start()
        worker._pool.submit(int).result()  # the process is up
        for process in list(worker._pool._processes.values()):
            process.kill()
            process.join()
        worker.draw(record_figure(figure_record, figure_result), tmp_path / "rec.png")
    assert (tmp_path / "rec.png").stat().st_size > 10_000
    assert "drawing it here" in capsys.readouterr().err
