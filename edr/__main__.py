"""``python -m edr`` works like the ``edr`` console script (see :mod:`edr.cli`)."""

from edr.cli import main
from edr.cli_core import run_process

if __name__ == "__main__":  # not when a process multiprocessing starts imports it
    run_process(main)
