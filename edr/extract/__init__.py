"""The ``extract`` command line: ``python -m edr.extract record.dat`` (also ``edr extract``).

Modules, one job each:

* :mod:`edr.extract.cli` — the options, their checks and the entry point :func:`main`;
* :mod:`edr.extract.record` — one record: read (or simulate, ``--demo``), extract, score,
  write every output or none;
* :mod:`edr.extract.summary` — the printed summary and the JSON summary of a record;
* :mod:`edr.extract.many_records` — several records (or glob patterns) in one process,
  resumable, through :func:`edr.jobs.run_jobs`.

The library it drives: :func:`edr.io.read_record`, :func:`edr.pipeline.extract_edr`,
:func:`edr.scoring.score`, :mod:`edr.io.targets` (the output checks and the
all-or-nothing writer). The protocol of every ``edr`` command line (exit codes, one-line
errors): :mod:`edr.cli_core`.
"""

import importlib

from edr.cli_options import REFERENCE_FLAGS

__all__ = ["EXTRACT_FLAGS", "PROG", "build_parser", "main"]

PROG = "python -m edr.extract"
"""The command's name in its messages (``edr extract`` through the console script)."""
EXTRACT_FLAGS = {"window_s": "--window", "n_support": "--n-support", "channel": "--channel",
         "solver": "--solver", "method": "--method", "lead": "--lead", "sigma2": "--sigma2",
         **REFERENCE_FLAGS}
"""Library parameter name -> the flag a user can act on, for messages
(:func:`edr.cli_core.one_line`)."""


def __getattr__(name: str):
    # ``edr.extract.main`` and ``build_parser`` as before the command became a package; the
    # command line is imported on first use, so ``import edr.extract`` stays light
    if name in ("main", "build_parser"):
        return getattr(importlib.import_module("edr.extract.cli"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
