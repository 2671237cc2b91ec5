"""Run the ``Examples`` sections of every ``kpca`` module as doctests.

(The README's test command stays ``python -m pytest -q``; this test is how the
numpydoc examples run in CI.)
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import numpy as np
import pytest

import kpca

MODULES = sorted(
    name for _, name, _ in pkgutil.walk_packages(kpca.__path__, prefix="kpca.")
)


def test_every_module_is_listed():
    assert {"kpca.model", "kpca.largescale.model", "kpca.largescale.lowrank", "kpca.pearson",
            "kpca.pearson.system", "kpca.pearson.draws", "kpca.pearson.sorted_draws",
            "kpca._signs"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    tests = finder.find(module, name, globs={})  # examples import what they use
    with np.printoptions(legacy=False):
        for test in tests:
            runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name} (output above)"
