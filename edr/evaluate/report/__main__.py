"""``python -m edr.evaluate.report``: the report's command line (:mod:`edr.evaluate.report.cli`)."""

import sys

from edr.evaluate.report.cli import main

sys.exit(main())
