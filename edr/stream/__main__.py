"""``python -m edr.stream``: see :mod:`edr.stream.cli`."""

import sys

from edr.stream.cli import main

if __name__ == "__main__":  # not when a process multiprocessing starts imports it
    sys.exit(main())
