"""``python -m edr.evaluate``: batch evaluation (see :mod:`edr.evaluate.batch`)."""

import sys

from edr.evaluate.batch import main

sys.exit(main())
