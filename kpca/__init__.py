"""kpca — kernel PCA with automatic model selection, pre-images and large-scale solvers.

Generic: this package knows nothing about ECG (``edr`` builds on it, never the
other way round).
"""

from kpca.denoising import denoise
from kpca.kernels import center_kernel, rbf_kernel, squared_distances
from kpca.model import KernelPCA
from kpca.selection import SelectionResult, select

__all__ = [
    "KernelPCA",
    "SelectionResult",
    "center_kernel",
    "denoise",
    "rbf_kernel",
    "select",
    "squared_distances",
]
__version__ = "0.1.0"
