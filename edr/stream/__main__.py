"""``python -m edr.stream``: see :mod:`edr.stream.cli`."""

from edr.cli_core import run_process
from edr.stream.cli import main

if __name__ == "__main__":  # not when a process multiprocessing starts imports it
    run_process(main)
