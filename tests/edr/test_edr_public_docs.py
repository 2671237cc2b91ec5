"""Every object of the ``edr`` API reference has the numpydoc sections of the anchors.

The public API of ``edr`` is what ``docs/api/edr.rst`` documents. Each of its functions and
classes has ``See Also`` (its neighbours) and ``Examples`` (run as doctests by
``tests/edr/test_edr_doctests.py``, which must list its module), as SciPy and NeuroKit2 write
them. ``References`` are required where a paper describes the computation; which ones do is
said in each docstring, not policed here. An object whose example would need the network or a
live device (:data:`NO_EXAMPLE`) is documented without one, with the reason.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "docs" / "api" / "edr.rst"

#: API objects without an Examples section, and why
NO_EXAMPLE = {
    "edr.io.datasets.locate_database": "its result depends on the user's data folders and cache",
    "edr.io.datasets.verify_database": "needs a downloaded database",
    "edr.io.datasets.download_database": "downloads from PhysioNet",
    "edr.stream.sources.open_lsl": "needs a live Lab Streaming Layer outlet",
}


def api_objects(text: str) -> list[str]:
    """Qualified names of the functions, classes and methods an ``.rst`` page documents."""
    return re.findall(r"^\.\. auto(?:function|class|method):: ([\w.]+)", text, flags=re.M)


def _resolve(qualified: str):
    module, _, name = qualified.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except ImportError:  # a method: module.Class.method
        module, _, cls = module.rpartition(".")
        return getattr(getattr(importlib.import_module(module), cls), name)


def _doctest_modules() -> set[str]:
    spec = importlib.util.spec_from_file_location("edr_doctests",
                                                  ROOT / "tests" / "edr" / "test_edr_doctests.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return set(mod.MODULES)


OBJECTS = api_objects(API.read_text())


def test_the_api_page_documents_objects():
    assert len(OBJECTS) > 50


@pytest.mark.parametrize("qualified", OBJECTS)
def test_every_api_object_has_see_also_and_examples(qualified):
    doc = inspect.getdoc(_resolve(qualified)) or ""
    need = ["See Also"] + ([] if qualified in NO_EXAMPLE else ["Examples"])
    missing = [s for s in need if not re.search(rf"^{s}\n-+$", doc, flags=re.M)]
    assert not missing, f"{qualified} lacks {missing}"


def test_every_api_module_runs_its_examples():
    modules = {getattr(_resolve(q), "__module__", None) for q in OBJECTS if q not in NO_EXAMPLE}
    assert not modules - _doctest_modules(), "add to MODULES of test_edr_doctests.py"


def test_no_example_lists_only_api_objects():
    assert set(NO_EXAMPLE) <= set(OBJECTS)


def test_the_section_check_needs_the_numpydoc_underline():
    planted = "Run it.\n\nSee Also\n--------\nother\n\nExamples are below."
    assert re.search(r"^See Also\n-+$", planted, flags=re.M)
    assert not re.search(r"^Examples\n-+$", planted, flags=re.M)
    assert api_objects(".. autofunction:: edr.a.b\n.. autoclass:: edr.c.D\n   :members:\n") == [
        "edr.a.b", "edr.c.D"]
