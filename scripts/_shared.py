"""Helpers shared by the runnable folders ``scripts/`` and ``benchmarks/``.

Scripts import it as ``from _shared import ...`` (their own folder is on
``sys.path`` when run as ``python scripts/x.py``); benchmarks put ``scripts/``
on ``sys.path`` first (see ``benchmarks/bench_edr.py``). Not part of the
installed packages.
"""

from __future__ import annotations

import resource

import numpy as np

__all__ = ["database", "median_iqr", "peak_rss_mb", "subject", "write_markdown"]


def peak_rss_mb() -> float:
    """Peak resident memory of this process in MB.

    Linux ``/proc/self/status`` VmHWM: the high-water mark of this process's own
    address space. Not ``ru_maxrss``: Linux carries the parent's peak across
    fork + exec into the child's ``ru_maxrss``, so a child started by a large
    parent would report the parent's peak. Falls back to ``ru_maxrss`` where
    /proc is absent.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def median_iqr(a, *, na: str = "n/a") -> str:
    """``"median (25th, 75th)"`` of the finite values of ``a`` (3 and 2 decimals); ``na`` when
    none."""
    a = np.asarray(a, dtype=float)
    a = a[np.isfinite(a)]
    if a.size == 0:
        return na
    return f"{np.median(a):.3f} ({np.percentile(a, 25):.2f}, {np.percentile(a, 75):.2f})"


def write_markdown(path: str | None, lines) -> int:
    """Write ``lines`` (one Markdown line each) to ``path`` (unless None), echo them, and return
    0 (a script's exit code)."""
    text = "\n".join(lines) + "\n"
    if path is not None:
        with open(path, "w") as fh:
            fh.write(text)
    print(text)
    return 0


def subject(record: str) -> str:
    """The subject of a shared record: BIDMC's records of one patient share one name (``p06``:
    bidmc06-09, ``p20``: bidmc20-23, ``p38``: bidmc38-39), every other record is its own; the
    unit a leave-one-subject-out split holds out.

    Examples
    --------
    >>> [subject(r) for r in ("bidmc07", "bidmc10", "bidmc39", "m0023")]
    ['p06', 'bidmc10', 'p38', 'm0023']
    """
    if record.startswith("bidmc"):
        n = int(record[5:])
        return "p06" if 6 <= n <= 9 else "p20" if 20 <= n <= 23 else \
            "p38" if n in (38, 39) else record
    return record


def database(record: str) -> str:
    """``"BIDMC"`` or ``"MARSH"``: the shared database a record name belongs to."""
    return "BIDMC" if record.startswith("bidmc") else "MARSH"
