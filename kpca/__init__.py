"""kpca — kernel PCA with automatic model selection, pre-images and large-scale solvers.

Generic: this package knows nothing about ECG (``edr`` builds on it, never the
other way round).

``import kpca`` is light: the names below and the sub-packages
(``kpca.selection``, ``kpca.largescale``, ...) are imported on first use
(PEP 562), so Numba, SciPy and scikit-learn load only when needed.

Examples
--------
>>> import numpy as np
>>> import kpca
>>> X = np.random.default_rng(0).normal(size=(50, 3))
>>> model = kpca.KernelPCA(n_components=2, sigma2=3.0, random_state=0).fit(X)
>>> model.transform(X).shape
(50, 2)
"""

from __future__ import annotations

import importlib

from kpca._version import __version__

#: public name -> defining module (imported lazily)
_LAZY = {
    "KernelPCA": "kpca.model",
    "NotFittedError": "kpca.base",
    "SelectionResult": "kpca.selection",
    "center_kernel": "kpca.kernels",
    "denoise": "kpca.denoising",
    "rbf_kernel": "kpca.kernels",
    "select": "kpca.selection",
    "squared_distances": "kpca.kernels",
}

_SUBMODULES = frozenset({
    "base", "datasets", "denoising", "hebbian", "iterative", "kernels", "largescale", "model",
    "pearson", "preimage", "selection", "shrinkage",
})

__all__ = [
    "KernelPCA",
    "NotFittedError",
    "SelectionResult",
    "__version__",
    "center_kernel",
    "denoise",
    "rbf_kernel",
    "select",
    "squared_distances",
]


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"kpca.{name}")
    raise AttributeError(f"module 'kpca' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | _SUBMODULES)
