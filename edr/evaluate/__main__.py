"""``python -m edr.evaluate``: batch evaluation (see :mod:`edr.evaluate.cli`)."""

import sys

from edr.evaluate.cli import main

if __name__ == "__main__":  # not when a process multiprocessing starts imports it
    sys.exit(main())
