"""``python -m edr.report results.csv -o report/``: Markdown + PNG report of a batch evaluation.

Thin entry point; the work is done by :func:`edr.evaluate.report.main`.
"""

import sys

from edr.evaluate.report import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
