"""Every script under ``examples/`` runs (on small data) and reports success."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

#: script -> small-data arguments
RUNS = {
    "denoise_toy.py": ["--n", "200"],
    "denoise_image_patches.py": ["--size", "32"],
    "choose_sigma2.py": ["--n-draws", "5", "--n-permutations", "9"],
    "edr_from_wfdb.py": ["--duration", "60"],
    "batch_evaluation.py": ["--records", "2", "--duration", "60"],
    "neurokit2_users.py": ["--source", "edr", "--duration", "60", "--plot", "sim.png"],
}


def test_every_example_is_run():
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(RUNS)


@pytest.mark.parametrize("script", sorted(RUNS))
def test_example_runs(script, tmp_path):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    proc = subprocess.run([sys.executable, str(EXAMPLES / script), *RUNS[script]],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert proc.stdout.strip()


def test_denoise_toy_writes_a_figure(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "toy.png"
    env = {**os.environ, "MPLBACKEND": "Agg"}
    subprocess.run([sys.executable, str(EXAMPLES / "denoise_toy.py"), "--n", "100", "--plot",
                    str(out)], check=True, env=env, capture_output=True, timeout=300)
    assert out.stat().st_size > 0


def test_neurokit2_example_writes_tables_and_a_figure(tmp_path):
    pytest.importorskip("neurokit2")
    env = {**os.environ, "MPLBACKEND": "Agg"}
    proc = subprocess.run([sys.executable, str(EXAMPLES / "neurokit2_users.py"), "--duration",
                           "120", "--plot", "edr.png"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "time_s  start_s  end_s  rate_bpm  quality" in proc.stdout  # the rate table
    median = float(proc.stdout.split("median rate ")[1].split()[0])
    assert abs(median - 15.0) < 1.0  # ECGSYN breathes at 0.25 Hz
    assert (tmp_path / "edr.png").stat().st_size > 10_000
