"""``python -m edr`` works like the ``edr`` console script (see :mod:`edr.cli`)."""

import sys

from edr.cli import main

sys.exit(main())
