"""Row blocks for the passes of the large-scale solvers over all ``N`` points.

FS2 (:mod:`~kpca.largescale.fs2`), the Nyström PCA of all points
(:mod:`~kpca.largescale.nystrom`) and the transforms of
:mod:`~kpca.largescale.model` never hold an ``N x M`` array (``M`` support
vectors): each pass over the data computes the kernel of at most
:data:`ROW_BLOCK` rows against the ``M`` basis points at a time, so the memory
is ``O(N d + ROW_BLOCK M + M^2)`` for ``N`` points of dimension ``d``.
"""

from __future__ import annotations

__all__ = ["ROW_BLOCK", "row_block", "row_slices"]

ROW_BLOCK = 4096
"""Rows per block of a pass over the data.

``ROW_BLOCK x M`` float64 arrays are the largest temporaries of a pass (6.3 MB
for ``M = 200``); larger blocks give no measurable speed-up (one BLAS call per
block already amortises the Python loop). Read at call time, so tests can
lower it to exercise the blocked paths on small data."""


def row_block():
    """The current :data:`ROW_BLOCK` (read at call time)."""
    return ROW_BLOCK


def row_slices(n_rows):
    """Consecutive slices of at most :data:`ROW_BLOCK` rows covering ``range(n_rows)``.

    Parameters
    ----------
    n_rows : int

    Yields
    ------
    slice
    """
    for start in range(0, n_rows, ROW_BLOCK):
        yield slice(start, min(start + ROW_BLOCK, n_rows))
