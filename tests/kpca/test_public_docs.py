"""Every public function and class of ``kpca`` has the numpydoc sections of the anchors.

``See Also`` (its neighbours), ``References`` (the paper and, where it has them, the equations
the code implements) and ``Examples`` (run by ``tests/kpca/test_doctests.py``), as SciPy and
NeuroKit2 write them. Public: what a public module lists in ``__all__``. A few objects have no
paper behind them (:data:`NO_PAPER`): they need the other two sections only.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import kpca

#: Public objects no paper describes (a utility, an exception, a base class), by qualified name.
NO_PAPER = {
    "kpca.base.NotFittedError",  # an exception
    "kpca.base.KPCAEstimator",  # the scikit-learn protocol
    "kpca.base.KPCATransformer",
    "kpca.base.KPCARegressor",
    "kpca.kernels.squared_distances",  # Euclidean distances
    "kpca.kernels.sigma2_to_gamma",  # unit conversions
    "kpca.kernels.gamma_to_sigma2",
    "kpca.selection.result.SelectionWarning",  # a warning
    "kpca.selection.resolve_criterion",  # a name lookup
    "kpca.denoising.mse",  # the mean squared error
}

SECTIONS = ("See Also", "References", "Examples")


def _public_modules():
    names = ["kpca"] + [name for _, name, _ in pkgutil.walk_packages(kpca.__path__, "kpca.")]
    return [n for n in names if not any(part.startswith("_") for part in n.split("."))]


def _public_objects():
    seen = {}
    for name in _public_modules():
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr)
            if inspect.isfunction(obj) or inspect.isclass(obj):
                home = f"{obj.__module__}.{obj.__qualname__}"
                seen.setdefault(home, obj)
    return sorted(seen.items())


def _sections(doc: str) -> set[str]:
    """numpydoc section titles of ``doc`` (a title line underlined by dashes)."""
    lines = (doc or "").splitlines()
    return {lines[i].strip() for i in range(len(lines) - 1)
            if re.fullmatch(r"\s*-{3,}\s*", lines[i + 1])
            and len(lines[i + 1].strip()) == len(lines[i].strip())}


OBJECTS = _public_objects()


def test_the_public_api_is_found():
    names = {name for name, _ in OBJECTS}
    assert {"kpca.model.KernelPCA", "kpca.selection.mdd.select_mdd",
            "kpca.pearson.draws.pearsrnd", "kpca.largescale.model.FixedSizeKernelPCA",
            "kpca.kernels.rbf_kernel"} <= names
    assert NO_PAPER <= names, f"NO_PAPER names objects that are not public: {NO_PAPER - names}"


@pytest.mark.parametrize("name, obj", OBJECTS, ids=[name for name, _ in OBJECTS])
def test_public_docstring_has_see_also_references_and_examples(name, obj):
    wanted = [s for s in SECTIONS if not (s == "References" and name in NO_PAPER)]
    missing = [s for s in wanted if s not in _sections(inspect.getdoc(obj))]
    assert not missing, f"{name} lacks the numpydoc section(s) {missing}"


def test_the_section_finder_needs_the_underline():
    doc = "Summary.\n\nSee Also\n--------\nf : g.\n\nReferences\n\n.. [1] x\n\nExamples\n--------"
    assert _sections(doc) == {"See Also", "Examples"}
