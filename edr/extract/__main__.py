"""``python -m edr.extract``: see :mod:`edr.extract.cli`."""

from edr.cli_core import run_process
from edr.extract.cli import main

if __name__ == "__main__":  # not when a process multiprocessing starts imports it
    run_process(main)
