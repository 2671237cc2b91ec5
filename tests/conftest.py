"""Shared fixtures: the real PhysioNet data are found through ``EDR_DATA_DIR``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def _data_dir() -> Path | None:
    env = os.environ.get("EDR_DATA_DIR")
    if env and Path(env).is_dir():
        return Path(env)
    return None


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """Root of the real recordings (``$EDR_DATA_DIR``); skips the test when absent."""
    d = _data_dir()
    if d is None:
        pytest.skip("real data absent: set EDR_DATA_DIR to a folder holding bidmc/ and "
                    "wfdb-samples/")
    return d


@pytest.fixture(scope="session")
def bidmc_dir(data_dir) -> Path:
    d = data_dir / "bidmc"
    if not (d / "bidmc01.hea").exists():
        pytest.skip(f"BIDMC records absent under {d}")
    return d


@pytest.fixture(scope="session")
def dask_cluster():
    """A real Dask ``LocalCluster`` of 2 worker processes (one thread each) on this machine.

    Not skipped when Dask is missing: ``distributed`` is part of the ``test`` extra, so CI runs
    the scale-out path for real.
    """
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        yield cluster
