"""Large-scale kernel PCA (Varon, Alzate & Suykens 2015, Sec. V).

* :mod:`~kpca.largescale.fs2` — FS2 support vectors: k-means start, quadratic
  Rényi entropy ascent (Eqs. (9)-(10)).
* :mod:`~kpca.largescale.icf` — pivoted incomplete Cholesky factorisation and
  the reduced eigenproblem (Eqs. (16)-(19)).
* :mod:`~kpca.largescale.nystrom` — Nyström feature maps and kernel PCA in the
  low-rank feature space.
* :func:`mdd_on_split` — MDD on the given training (support vectors /
  pivots) + validation split of Fig. 8 (defined in
  :mod:`kpca.selection.mdd_split`, re-exported here).
* :mod:`~kpca.largescale.model` — the estimators :class:`FixedSizeKernelPCA`
  and :class:`IncompleteCholeskyKernelPCA`.

FS2, the Nyström PCA of all points and the transforms pass over the ``N``
points in blocks of ``kpca.largescale._blocks.ROW_BLOCK`` rows (4096): their
memory is ``O(N d + ROW_BLOCK M + M^2)`` for ``M`` support vectors, never
``O(N M)``.
"""

from kpca.largescale.fs2 import (
    FS2Result,
    fs2_support_vectors,
    kmeans_support_vectors,
    renyi_entropy,
)
from kpca.largescale.icf import ICFResult, ReducedEigen, incomplete_cholesky, reduced_eigenproblem
from kpca.largescale.model import FixedSizeKernelPCA, IncompleteCholeskyKernelPCA
from kpca.largescale.nystrom import NystromEigen, nystrom_kpca, nystrom_map, pca_of_features
from kpca.selection.mdd_split import mdd_on_split

__all__ = [
    "FS2Result",
    "FixedSizeKernelPCA",
    "ICFResult",
    "IncompleteCholeskyKernelPCA",
    "NystromEigen",
    "ReducedEigen",
    "fs2_support_vectors",
    "incomplete_cholesky",
    "kmeans_support_vectors",
    "mdd_on_split",
    "nystrom_kpca",
    "nystrom_map",
    "pca_of_features",
    "reduced_eigenproblem",
    "renyi_entropy",
]
