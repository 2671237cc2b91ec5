"""kpca — kernel PCA with automatic model selection, pre-images and large-scale solvers.

Generic: this package knows nothing about ECG (``edr`` builds on it, never the
other way round).
"""

from kpca.kernels import center_kernel, rbf_kernel, squared_distances
from kpca.model import KernelPCA
from kpca.selection import SelectionResult, select  # noqa: E402  (H2: model selection)
from kpca.denoise import denoise  # noqa: E402  (H8: end-to-end de-noising; the module stays importable as kpca.denoise via `from kpca.denoise import ...`)

__all__ = ["KernelPCA", "center_kernel", "rbf_kernel", "squared_distances"]
__version__ = "0.1.0"
