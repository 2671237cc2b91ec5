"""Sphinx configuration of the kpca-edr documentation (``sphinx-build -W docs docs/_build``)."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.abspath(".."))

from kpca import __version__  # noqa: E402

project = "kpca-edr"
author = "kpca-edr developers"
copyright = "kpca-edr developers"
version = release = __version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
]
exclude_patterns = ["_build", "design.md"]
source_suffix = {".rst": "restructuredtext"}
autosummary_generate = False
autodoc_default_options = {}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()
# cross-references to objects outside these pages are written as code, not checked
nitpicky = False
suppress_warnings = ["ref.python"]
default_role = "code"
intersphinx_mapping = {}
html_theme = "alabaster"
html_static_path = []
