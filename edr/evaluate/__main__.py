"""``python -m edr.evaluate``: batch evaluation (see :mod:`edr.evaluate.cli`)."""

from edr.cli_core import run_process
from edr.evaluate.cli import main

if __name__ == "__main__":  # not when a process multiprocessing starts imports it
    run_process(main)
