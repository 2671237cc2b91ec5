"""``python -m edr`` works like the ``edr`` console script (see :mod:`edr.cli`)."""

import sys

from edr.cli import main

if __name__ == "__main__":  # not when a process multiprocessing starts imports it
    sys.exit(main())
