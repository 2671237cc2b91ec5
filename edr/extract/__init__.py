"""The ``extract`` command line: ``python -m edr.extract record.dat`` (also ``edr extract``);
:mod:`edr.extract.cli`."""

import importlib


def __getattr__(name: str):
    # the names of the module the command line was (edr.extract.main, ...); it is imported on
    # first use, so ``import edr.extract`` stays light
    return getattr(importlib.import_module("edr.extract.cli"), name)
