"""``python -m edr.stream``: see :mod:`edr.stream.cli`."""

import sys

from edr.stream.cli import main

sys.exit(main())
