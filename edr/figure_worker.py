"""The record figure drawn by a second process while this one extracts, scores and writes.

Importing Matplotlib and drawing the record figure take about as long as the EDR of a short record
(``docs/studies/first_run.md``). A :class:`FigureWorker` starts one process (``spawn``: the same on
every platform) that imports Matplotlib at once, on another core, while this process reads the
record and extracts its EDR; :meth:`FigureWorker.render` then sends it the figure's content
(:class:`edr.figure_content.RecordFigure`: arrays and text) and returns at once, and the file's
bytes come back when this process asks for them (:meth:`PendingFigure.result`), after scoring
and writing its other outputs. The worker writes no file and holds nothing: where and whether
the figure is written stays the caller's (all outputs or none), and the worker is stopped as
soon as it is no longer needed, without waiting for its interpreter to tear Matplotlib down.
One record's command line (``python -m edr.extract rec.hea --plot rec.png``, ``--demo``) uses
it; a batch draws in its own threads or processes as before.

Where processes fork (Linux), the worker draws a PNG in two halves at once: it forks, the child
draws the quality, scores and σ² panels (:data:`edr.plots.HALF_PANELS`) while the worker draws
the others, and the two images are put together. No pixel is drawn by both halves, so the file
is the one a single drawing gives, byte for byte (tested); if the child fails or hangs
(:data:`HALF_TIMEOUT_S`), the worker draws its half itself.

An exception raised while drawing is raised again by :meth:`PendingFigure.result`; a worker
that could not start, or died, leaves the drawing to this process (one line on stderr says so),
so a figure is never lost to the worker.
"""

from __future__ import annotations

import io
import os
import sys

__all__ = ["FigureWorker", "PendingFigure"]

#: Whether the worker draws a PNG in two forked halves (processes fork safely on Linux).
FORKED_HALVES = sys.platform.startswith("linux")
#: Seconds the worker waits for its forked half before it kills it and draws the half itself.
HALF_TIMEOUT_S = 60.0


def _render(data, fmt: str, *, halves: bool = False) -> bytes:
    """Draw the figure and return its file's bytes (in the worker, or here); a PNG in two forked
    halves if ``halves`` (the worker's own process only: it forks)."""
    from edr.plots import HALF_PANELS, draw_record_figure, figure_bytes

    fig = draw_record_figure(data)
    if halves and fmt == "png":
        return _png_in_halves(fig, [fig.axes[i] for i in HALF_PANELS])
    return figure_bytes(fig, fmt)


def _rgba(fig, hidden) -> bytes:
    """``fig`` saved as raw RGBA (:func:`edr.plots.figure_bytes`), the artists ``hidden`` left
    out."""
    from edr.plots import figure_bytes

    for artist in hidden:
        artist.set_visible(False)
    try:
        return figure_bytes(fig, "rgba")
    finally:
        for artist in hidden:
            artist.set_visible(True)


def _finished(pid: int, timeout_s: float) -> int:
    """The exit status of child ``pid``, or -1 once it ran ``timeout_s`` longer (it is killed)."""
    import select
    import signal

    if hasattr(os, "pidfd_open"):
        try:
            fd = os.pidfd_open(pid)
        except OSError:
            fd = None
        if fd is not None:
            try:
                ready, _, _ = select.select([fd], [], [], timeout_s)
            finally:
                os.close(fd)
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return -1
    return os.waitpid(pid, 0)[1]


def _png_in_halves(fig, second) -> bytes:
    """The PNG :func:`edr.plots.figure_bytes` gives for ``fig``, the axes ``second`` drawn by a
    forked child while this process draws the rest.

    Each half is drawn on the figure's white background; a pixel either half leaves white comes
    from the other. The file is a single drawing's when no pixel is drawn by both halves.
    """
    import mmap

    import numpy as np
    from matplotlib.image import imsave

    from edr.plots import DPI, PNG_COMPRESS_LEVEL

    first = [a for a in fig.get_children() if a is not fig.patch and a not in second]
    width, height = round(fig.get_figwidth() * DPI), round(fig.get_figheight() * DPI)
    shared = mmap.mmap(-1, width * height * 4)
    pid = os.fork()
    if pid == 0:  # the child: the second half into the shared pages, then gone
        code = 1
        try:
            raw = _rgba(fig, first)
            if len(raw) == len(shared):
                shared[:] = raw
                code = 0
        finally:
            os._exit(code)
    try:
        raw = _rgba(fig, second)
    finally:  # the child reaped whatever happens here
        status = _finished(pid, HALF_TIMEOUT_S)
    # one uint32 per RGBA pixel: opaque white is 0xFFFFFFFF whatever the byte order
    first_px = np.frombuffer(raw, np.uint32).reshape(height, width)
    if status == 0:
        second_px = np.frombuffer(shared, np.uint32).reshape(height, width)
    else:  # the child failed or hung: its half drawn here
        second_px = np.frombuffer(_rgba(fig, first), np.uint32).reshape(height, width)
    white = np.uint32(0xFFFFFFFF)
    pixels = np.where(first_px == white, second_px, first_px)  # a copy: the shared pages can go
    del second_px
    shared.close()
    pixels = pixels.view(np.uint8).reshape(height, width, 4)
    out = io.BytesIO()
    imsave(out, pixels, format="png", origin="upper", dpi=DPI,
           pil_kwargs={"compress_level": PNG_COMPRESS_LEVEL})
    return out.getvalue()


def _serve(conn) -> None:
    """The worker: import what drawing needs, then answer ``(data, fmt)`` requests in order with
    ``("ok", bytes)`` or ``("error", exception)`` until the connection closes.

    The process lives for one figure or a few and is killed after them: its garbage is never
    collected (:func:`gc.disable`), which spares the collector's walks over Matplotlib's
    objects."""
    import gc

    gc.disable()
    import matplotlib.figure  # noqa: F401  (imported now, while the caller extracts)

    import edr.plots  # noqa: F401

    while True:
        try:
            data, fmt = conn.recv()
        except (EOFError, OSError):
            return
        try:
            answer = ("ok", _render(data, fmt, halves=FORKED_HALVES))
        except Exception as exc:  # raised again by the caller
            answer = ("error", exc)
        conn.send(answer)


class PendingFigure:
    """A figure being drawn (:meth:`FigureWorker.render`); :meth:`result` waits for its bytes.

    See Also
    --------
    FigureWorker.render : what returns one.

    Examples
    --------
    Without a started worker the figure is drawn here, when asked for:

    >>> from edr.figure_worker import FigureWorker
    >>> from edr.pipeline import extract_edr
    >>> from edr.record_figure import record_figure
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> pending = FigureWorker().render(record_figure(rec, extract_edr(rec), minute_s=20.0))
    >>> pending.result()[:4]
    b'\\x89PNG'
    """

    def __init__(self, worker, data, fmt: str, number: int | None):
        self._worker, self._data, self._fmt, self._number = worker, data, fmt, number

    def result(self) -> bytes:
        """The file's bytes, drawn by the worker, or here if it died.

        Raises
        ------
        Exception
            Whatever drawing raised (in the worker or here).
        """
        if self._number is not None:
            answer = self._worker._answer(self._number)
            if answer is not None:
                kind, value = answer
                if kind == "error":
                    raise value
                return value
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
        self._process = self._conn = None
        self._sent = self._received = 0
        self._answers: dict[int, tuple] = {}

    def start(self) -> bool:
        """Start the process and its imports; ``False`` (drawing stays here) when it cannot."""
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        try:
            self._conn, child = context.Pipe()
            process = context.Process(target=_serve, args=(child,), daemon=True,
                                      name="edr-figure")
            process.start()
            self._process = process
            child.close()
        except (OSError, RuntimeError, ValueError) as exc:
            self._fall_back(f"could not start ({exc})")
            return False
        return True

    def render(self, data, fmt: str = "png") -> PendingFigure:
        """Start drawing ``data`` (:class:`edr.figure_content.RecordFigure`) as a ``fmt`` file
        (png, pdf, svg, ...); returns at once, or once the previous drawing is done (one at a
        time; the drawing is done here later if the worker is gone)."""
        if self._sent > self._received:  # one drawing at a time: each end may block on a
            self._answer(self._sent - 1, keep=True)  # full pipe: never both sending at once
        if self._conn is None:
            return PendingFigure(self, data, fmt, None)
        try:
            self._conn.send((data, fmt))
        except OSError as exc:
            self._fall_back(f"stopped ({exc})")
            return PendingFigure(self, data, fmt, None)
        self._sent += 1
        return PendingFigure(self, data, fmt, self._sent - 1)

    def _answer(self, number: int, *, keep: bool = False):
        """The worker's answer to request ``number`` (``None`` if it died first); kept for a
        later call if ``keep``."""
        while number not in self._answers and self._conn is not None:
            try:
                self._answers[self._received] = self._conn.recv()
                self._received += 1
            except (EOFError, OSError) as exc:
                self._fall_back(f"stopped ({type(exc).__name__})")
        return self._answers.get(number) if keep else self._answers.pop(number, None)

    def close(self) -> None:
        """Stop the worker at once (it writes nothing and holds nothing)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._process is not None:
            process, self._process = self._process, None
            process.kill()
            process.join()

    def _fall_back(self, why: str) -> None:
        print(f"note: the figure's drawing process {why}; drawing it here", file=sys.stderr)
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
