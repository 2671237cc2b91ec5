"""The ``edr`` console script: ``edr extract | evaluate | report ...``.

Each subcommand runs the ``main(argv, prog=...)`` of one command-line module — the same
function as the ``python -m`` entry point of ``edr.extract``, ``edr.evaluate``,
``edr.evaluate.report`` or ``edr.stream`` (their ``cli`` modules), with the same options and
the same protocol (:mod:`edr.cli_core`) — and returns its exit code. The module is imported
only when asked for, so ``edr extract`` does not pay for the evaluation machinery and a
missing module gives one clear line.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

__all__ = ["COMMANDS", "console", "main"]

#: subcommand -> (module whose ``main(argv, prog=...)`` runs it, one-line description)
COMMANDS: dict[str, tuple[str, str]] = {
    "extract": ("edr.extract.cli", "extract the respiration from recordings (or --demo)"),
    "evaluate": ("edr.evaluate.cli", "score methods on a database or your own records"),
    "report": ("edr.evaluate.report.cli", "figures and a Markdown report from a results CSV"),
    "stream": ("edr.stream.cli", "real-time EDR from a replayed record, standard input or LSL"),
}


def _usage() -> str:
    width = max(map(len, COMMANDS))
    lines = ["usage: edr {" + ",".join(COMMANDS) + "} [options]   (edr <command> --help for its "
             "options)", ""]
    lines += [f"  {name:<{width}}  {desc}" for name, (_, desc) in COMMANDS.items()]
    lines += ["", "options:", "  -h, --help  show this message and exit",
              "  --version   print the version and exit"]
    lines += ["", "First run, no data needed:  edr extract --demo"]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch ``argv[0]`` to its subcommand; returns the exit code (2 on a bad command)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_usage(), file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if argv[0] == "--version":
        from edr import __version__

        print(f"edr {__version__}")
        return 0
    command, rest = argv[0], argv[1:]
    if command not in COMMANDS:
        print(f"edr: error: unknown command {command!r}; choose from {', '.join(COMMANDS)}",
              file=sys.stderr)
        return 2
    module_name = COMMANDS[command][0]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is None or not (module_name == exc.name
                                    or module_name.startswith(exc.name + ".")):
            raise  # a dependency of the module is missing: show the real error
        print(f"edr {command}: error: not available in this installation "
              f"({module_name} is missing)",
              file=sys.stderr)
        return 2
    return module.main(rest, prog=f"edr {command}")


def console() -> None:
    """The ``edr`` console script: :func:`main` as the process's whole life
    (:func:`edr.cli_core.run_process`); exits with its code."""
    from edr.cli_core import run_process

    run_process(main)
