"""``python -m edr.extract``: see :mod:`edr.extract.cli`."""

import sys

from edr.extract.cli import main

sys.exit(main())
