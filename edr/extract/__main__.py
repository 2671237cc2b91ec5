"""``python -m edr.extract``: see :mod:`edr.extract.cli`."""

import sys

from edr.extract.cli import main

if __name__ == "__main__":  # not when a process multiprocessing starts imports it
    sys.exit(main())
