"""The record figure drawn by a second process while this one reads and extracts.

Matplotlib takes about half a second to import and a second to draw the record figure, as long as
the EDR of a short record. A :class:`FigureWorker` starts one process (``spawn``: the same on
every platform) that imports Matplotlib at once, on another core, while this process reads the
record and extracts its EDR; :meth:`FigureWorker.draw` then sends it the figure's content
(:class:`edr.record_figure.RecordFigure`, plain arrays and text) and waits for the file. One
record's command line (``python -m edr.extract rec.hea --plot rec.png``, ``--demo``) uses it; a
batch draws in its own threads or processes as before.

Errors stay the caller's: an exception raised while drawing is raised again by
:meth:`~FigureWorker.draw`; a worker that could not start, or died, leaves the drawing to this
process (one line on stderr says so), so a figure is never lost to the worker. An interruption
while waiting stops the worker before it is passed on, so no file is written after the caller
has cleaned up.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["FigureWorker"]


def _warm_up() -> None:
    """In the worker: import what drawing needs."""
    import matplotlib.figure  # noqa: F401  (the import is the work)

    import edr.plots  # noqa: F401


def _draw(data, path: str) -> str:
    """In the worker: draw and save the figure."""
    from edr.plots import draw_record_figure

    draw_record_figure(data, path=path)
    return path


class FigureWorker:
    """A process that imports Matplotlib now and draws the record figure later.

    Use it as a context manager; :meth:`start` it as early as possible.

    See Also
    --------
    edr.plots.draw_record_figure : what the worker runs.
    edr.extract.record.run_record : the command line's one-record path, its user.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from edr.figure_worker import FigureWorker
    >>> from edr.pipeline import extract_edr
    >>> from edr.record_figure import record_figure
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> with FigureWorker() as worker, tempfile.TemporaryDirectory() as d:
    ...     _ = worker.start()
    ...     data = record_figure(rec, extract_edr(rec), minute_s=20.0)
    ...     worker.draw(data, Path(d) / "rec.png").stat().st_size > 10_000
    True
    """

    def __init__(self):
        self._pool = None

    def start(self) -> bool:
        """Start the process and its imports; ``False`` (drawing stays here) when it cannot."""
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        try:
            self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
            self._pool.submit(_warm_up)
        except (OSError, RuntimeError, ValueError) as exc:
            self._fall_back(f"could not start ({exc})")
            return False
        return True

    def draw(self, data, path) -> Path:
        """Draw ``data`` (:class:`edr.record_figure.RecordFigure`) to ``path``, in the worker if
        it runs; returns ``path``.

        Raises
        ------
        Exception
            Whatever drawing or saving raised (in the worker or here).
        """
        from concurrent.futures.process import BrokenProcessPool

        path = Path(path)
        if self._pool is not None:
            try:
                self._pool.submit(_draw, data, str(path)).result()
                return path
            except BrokenProcessPool as exc:
                self._fall_back(f"stopped ({exc})")
            except BaseException:
                self.close()  # an interruption: no file written after the caller cleans up
                raise
        _draw(data, str(path))
        return path

    def close(self) -> None:
        """Stop the worker (waiting for a drawing under way)."""
        if self._pool is not None:
            pool, self._pool = self._pool, None
            pool.shutdown(wait=True, cancel_futures=True)

    def _fall_back(self, why: str) -> None:
        print(f"note: the figure's drawing process {why}; drawing it here", file=sys.stderr)
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
