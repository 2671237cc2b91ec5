"""``python -m edr.evaluate.report``: the report's command line (:mod:`edr.evaluate.report.cli`)."""

from edr.cli_core import run_process
from edr.evaluate.report.cli import main

if __name__ == "__main__":  # not when a process multiprocessing starts imports it
    run_process(main)
