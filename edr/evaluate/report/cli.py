"""``python -m edr.evaluate.report`` (also ``edr report``): the command line of
:func:`edr.evaluate.report.write_report`.

Bad input (an option, a missing or malformed results file) prints one line on stderr and exits
with code 2: the protocol of every ``edr`` command line (:mod:`edr.cli_core`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from edr.cli_core import Parser, run_command
from edr.names import DEFAULT_METHOD

__all__ = ["build_parser", "main"]

PROG = "python -m edr.evaluate.report"


def build_parser(prog: str = PROG) -> Parser:
    """The command-line options of :func:`main`."""
    p = Parser(
        prog=prog,
        description="Markdown + PNG report of a batch evaluation: the headline table (median and "
                    "quartiles of MSC, |r| and rate error per configuration), box plots with "
                    "significance markers, sigma2 selection curves, significance tables, "
                    "window-level rate agreement with Bland-Altman plots, and per-record tables.",
        epilog="Example: %(prog)s results/results.csv -o report/   (results.csv from "
               "python -m edr.evaluate; window_rates.csv, selection_curves.json and batch.json "
               "next to it are used when present)")
    p.add_argument("results", metavar="RESULTS.csv",
                   help="results.csv written by python -m edr.evaluate")
    p.add_argument("-o", "--out", required=True, metavar="FOLDER",
                   help="output folder (README.md + PNG figures; created)")
    p.add_argument("--reference", metavar="CONFIG",
                   help="configuration compared with the others, named as in the report: "
                        "method/criterion (kernel methods) or method, with @lead when the results "
                        f"hold several lead modes (default {DEFAULT_METHOD}/mdd when present, "
                        f"else {DEFAULT_METHOD}/mdd-fast, else kpca/mdd)")
    p.add_argument("--bland-altman", metavar="CONFIGS",
                   help="comma-separated configurations shown beside the reference in the "
                        "Bland-Altman figure (default: the two other methods with the lowest "
                        "window MAE)")
    return p


def _report(argv: list[str], prog: str) -> int:
    args = build_parser(prog).parse_args(argv)
    ba = ([c.strip() for c in args.bland_altman.split(",") if c.strip()]
          if args.bland_altman else None)
    from edr.evaluate.report.write import write_report

    md = write_report(args.results, args.out, reference=args.reference, bland_altman=ba)
    print(f"report written to {md}", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None, *, prog: str = PROG) -> int:
    """Command-line entry point; exit code 2 with one line on stderr on bad input
    (:func:`edr.cli_core.run_command`)."""
    return run_command(prog, lambda args: _report(args, prog), argv)
