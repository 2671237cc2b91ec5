"""``python -m edr.evaluate.report`` (also ``edr report``): the command line of
:func:`edr.evaluate.report.write_report`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from edr.evaluate.report.write import write_report
from edr.options import DEFAULT_METHOD

__all__ = ["build_parser", "main"]


def build_parser(prog: str = "python -m edr.evaluate.report") -> argparse.ArgumentParser:
    """The command-line options of :func:`main`."""
    p = argparse.ArgumentParser(
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
                        "else kpca/mdd)")
    p.add_argument("--bland-altman", metavar="CONFIGS",
                   help="comma-separated configurations shown beside the reference in the "
                        "Bland-Altman figure (default: the two other methods with the lowest "
                        "window MAE)")
    return p


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m edr.evaluate.report") -> int:
    """Command-line entry point; exit code 2 with one line on stderr on bad input."""
    p = build_parser(prog)
    args = p.parse_args(argv)
    ba = ([c.strip() for c in args.bland_altman.split(",") if c.strip()]
          if args.bland_altman else None)
    try:
        md = write_report(args.results, args.out, reference=args.reference, bland_altman=ba)
    except (OSError, ValueError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    print(f"report written to {md}", file=sys.stderr)
    return 0
