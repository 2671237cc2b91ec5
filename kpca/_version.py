"""The single source of the distribution's version (``kpca-edr``).

``pyproject.toml`` reads it (``[tool.setuptools.dynamic]``); ``kpca.__version__``
re-exports it; ``edr.__version__`` should import it from here.
"""

__version__ = "0.1.0"
