"""The Dask back-end of :func:`edr.jobs.run_jobs`: a ``distributed`` client behind the runner
interface (``submit``, ``wait_first``, ``close``), which says what went wrong with the cluster
instead of hanging: an address where no Dask scheduler answers, a scheduler that goes away
during the run, a cluster left without workers."""

from __future__ import annotations

import re

__all__ = ["DaskRunner", "SCHEDULER_CONNECT_S", "SCHEDULER_GRACE_S", "WORKERLESS_NOTE_S"]

SCHEDULER_CONNECT_S = 30.0
"""Seconds a Dask scheduler has to answer before :func:`edr.jobs.run_jobs` gives up on its
address."""

WORKERLESS_NOTE_S = 30.0
"""Seconds between the notes of a Dask run whose scheduler has no worker left (the jobs wait
for one)."""

SCHEDULER_GRACE_S = 5.0
"""Seconds granted beyond :data:`SCHEDULER_CONNECT_S` to the client's own time-out."""


def _dask_client(scheduler, seconds: float):
    """A ``distributed.Client`` of ``scheduler``, or :class:`ConnectionError` naming it when no
    Dask scheduler answers within ``seconds``: nothing listening, or another service (one that
    never answers keeps the client waiting for ever, whatever its time-out; one that sends other
    bytes makes it read them as a frame of any size). The client is made in a daemon thread, so
    that one that never returns is left behind."""
    import threading

    from distributed import Client

    made: dict = {}

    def connect():
        try:
            made["client"] = Client(scheduler, timeout=seconds)
        except Exception as exc:  # any failure is the address's; the ImportError is raised above
            made["error"] = exc

    thread = threading.Thread(target=connect, name="edr-dask-connect", daemon=True)
    thread.start()
    thread.join(seconds + SCHEDULER_GRACE_S)
    if "client" in made:
        return made["client"]
    if "error" in made:
        why = " ".join(f"{type(made['error']).__name__}: {made['error']}".split())[:300]
        raise ConnectionError(f"no Dask scheduler answered at {scheduler} ({why})")
    raise ConnectionError(f"no Dask scheduler answered at {scheduler} within {seconds:g} s")


class DaskRunner:
    """A Dask distributed client behind the interface :func:`edr.jobs.run_jobs` uses.

    Parameters
    ----------
    scheduler : str or object
        What ``distributed.Client`` accepts; :class:`ConnectionError` when no Dask scheduler
        answers there within :data:`SCHEDULER_CONNECT_S` seconds.
    """

    def __init__(self, scheduler):
        self.client = _dask_client(scheduler, SCHEDULER_CONNECT_S)
        self.address = self.client.scheduler.address
        self.futures: list = []

    def submit(self, fn, *args):
        future = self.client.submit(fn, *args, pure=False)
        self.futures.append(future)
        return future

    def wait_first(self, futures):
        """The futures done once one is; :class:`ConnectionError` when the scheduler went away
        (the client cancels every future then)."""
        from concurrent.futures import CancelledError

        from distributed import wait

        from edr.jobs import note

        waited = 0.0
        while True:
            try:
                try:
                    return wait(list(futures), timeout=WORKERLESS_NOTE_S,
                                return_when="FIRST_COMPLETED").done
                except TimeoutError:
                    waited += WORKERLESS_NOTE_S
                workerless = not self.client.nthreads()
            except (CancelledError, OSError) as exc:  # the client lost its scheduler
                reasons = ", ".join(dict.fromkeys(re.findall(r"reason: ([\w-]+)", str(exc))))
                raise ConnectionError(
                    f"lost the Dask scheduler at {self.address} with {len(futures)} job(s) "
                    f"not finished ({reasons or type(exc).__name__})") from exc
            if workerless:
                note(f"waiting for a worker: the Dask scheduler at {self.address} has none "
                     f"({len(futures)} job(s) not finished, {waited:.0f} s); Ctrl-C stops")

    def close(self):
        """Cancel the jobs not finished, close the client (the cluster stays up)."""
        self.client.cancel([f for f in self.futures if not f.done()])
        self.client.close()
