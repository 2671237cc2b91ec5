#!/usr/bin/env python
"""Batch evaluation of EDR methods on a PhysioNet database, then its report.

Same options as ``python -m edr.evaluate`` plus ``--report DIR``; e.g.::

    EDR_DATA_DIR=/path/to/data python scripts/evaluate.py --database bidmc \
        --methods all --criteria mdd,shannon,kpa,rule-of-thumb -o results/bidmc --report reports/bidmc
"""

import sys

from edr.evaluate import batch, report


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    report_dir = None
    if "--report" in argv:
        i = argv.index("--report")
        report_dir = argv[i + 1] if i + 1 < len(argv) else None
        if report_dir is None:
            print("evaluate.py: error: --report needs a folder", file=sys.stderr)
            return 2
        del argv[i:i + 2]
    code = batch.main(argv)
    if code or report_dir is None:
        return code
    out = batch.build_parser().parse_args(argv).out
    return report.main([f"{out}/results.csv", "-o", report_dir])


if __name__ == "__main__":
    sys.exit(main())
