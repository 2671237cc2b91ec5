"""The record figure drawn by a second process while this one extracts, scores and writes.

Matplotlib takes about half a second to import and a second to draw the record figure, as long as
the EDR of a short record. A :class:`FigureWorker` starts one process (``spawn``: the same on
every platform) that imports Matplotlib at once, on another core, while this process reads the
record and extracts its EDR; :meth:`FigureWorker.render` then sends it the figure's content
(:class:`edr.figure_content.RecordFigure`: arrays and text) and returns at once, and the file's
bytes come back when this process asks for them (:meth:`PendingFigure.result`), after scoring
and writing its other outputs. The worker writes no file: where and whether the figure is
written stays the caller's (all outputs or none). One record's command line (``python -m
edr.extract rec.hea --plot rec.png``, ``--demo``) uses it; a batch draws in its own threads or
processes as before.

An exception raised while drawing is raised again by :meth:`PendingFigure.result`; a worker
that could not start, or died, leaves the drawing to this process (one line on stderr says so),
so a figure is never lost to the worker.
"""

from __future__ import annotations

import sys

__all__ = ["FigureWorker", "PendingFigure"]


def _warm_up() -> None:
    """In the worker: import what drawing needs."""
    import matplotlib.figure  # noqa: F401  (the import is the work)

    import edr.plots  # noqa: F401


def _render(data, fmt: str) -> bytes:
    """Draw the figure and return its file's bytes (in the worker, or here)."""
    from edr.plots import draw_record_figure, figure_bytes

    return figure_bytes(draw_record_figure(data), fmt)


class PendingFigure:
    """A figure being drawn (:meth:`FigureWorker.render`); :meth:`result` waits for its bytes."""

    def __init__(self, worker, data, fmt: str, future=None):
        self._worker, self._data, self._fmt, self._future = worker, data, fmt, future

    def result(self) -> bytes:
        """The file's bytes, drawn by the worker, or here if it died.

        Raises
        ------
        Exception
            Whatever drawing raised (in the worker or here).
        """
        from concurrent.futures.process import BrokenProcessPool

        if self._future is not None:
            try:
                return self._future.result()
            except BrokenProcessPool as exc:
                self._worker._fall_back(f"stopped ({exc})")
        return _render(self._data, self._fmt)


class FigureWorker:
    """A process that imports Matplotlib now and draws the record figure later.

    Use it as a context manager; :meth:`start` it as early as possible.

    See Also
    --------
    edr.plots.draw_record_figure : what the worker runs.
    edr.extract.record.run_record : the command line's one-record path, its user.

    Examples
    --------
    >>> from edr.figure_worker import FigureWorker
    >>> from edr.pipeline import extract_edr
    >>> from edr.record_figure import record_figure
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> with FigureWorker() as worker:
    ...     _ = worker.start()
    ...     pending = worker.render(record_figure(rec, extract_edr(rec), minute_s=20.0), "png")
    ...     png = pending.result()
    >>> png[:4], len(png) > 10_000
    (b'\\x89PNG', True)
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

    def render(self, data, fmt: str = "png") -> PendingFigure:
        """Start drawing ``data`` (:class:`edr.figure_content.RecordFigure`) as a ``fmt`` file
        (png, pdf, svg, ...); returns at once, unless the drawing has to be done here."""
        future = None
        if self._pool is not None:
            try:
                future = self._pool.submit(_render, data, fmt)
            except RuntimeError as exc:  # a pool found broken when submitting
                self._fall_back(f"stopped ({exc})")
        return PendingFigure(self, data, fmt, future)

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
