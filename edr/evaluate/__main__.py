"""``python -m edr.evaluate``: batch evaluation (see :mod:`edr.evaluate.cli`)."""

import sys

from edr.evaluate.cli import main

sys.exit(main())
