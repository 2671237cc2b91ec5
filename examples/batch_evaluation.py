"""Batch evaluation of EDR methods over a folder of WFDB records, then the report.

Runs the two commands a user runs on a PhysioNet database::

    python -m edr.evaluate --data-dir <folder> --methods ... --criteria ... -o <results>
    python -m edr.evaluate.report <results>/results.csv -o <report>

on ``--data-dir`` (e.g. ``$EDR_DATA_DIR/bidmc``) or, by default, on a folder
of a few simulated records with known respiration written here first.

    python examples/batch_evaluation.py [--data-dir FOLDER] [--out OUT] [--records 2]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np


def write_simulated_database(folder, n_records, duration_s):
    import wfdb

    from edr.simulate import simulate_recording

    for i in range(n_records):
        rec = simulate_recording(duration_s, 250.0, resp_rate_hz=0.2 + 0.05 * i, random_state=i)
        wfdb.wrsamp(f"sim{i:02d}", fs=rec.fs, units=["mV", "NU"], sig_name=["II", "RESP"],
                    p_signal=np.column_stack([rec.ecg, rec.resp]), fmt=["16", "16"],
                    write_dir=str(folder))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", help="folder of WFDB records (default: simulated)")
    parser.add_argument("--out", help="output folder (default: a temporary one)")
    parser.add_argument("--records", type=int, default=2, help="simulated records")
    parser.add_argument("--duration", type=float, default=120.0, help="simulated seconds")
    parser.add_argument("--methods", default="kpca,r_amplitude")
    parser.add_argument("--criteria", default="mdd")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.out or tmp)
        data_dir = args.data_dir
        if data_dir is None:
            data_dir = out / "records"
            data_dir.mkdir(parents=True, exist_ok=True)
            write_simulated_database(data_dir, args.records, args.duration)
        results = out / "results"
        subprocess.run([sys.executable, "-m", "edr.evaluate", "--data-dir", str(data_dir),
                        "--methods", args.methods, "--criteria", args.criteria,
                        "-o", str(results), "--jobs", "1", "--no-progress"], check=True)
        subprocess.run([sys.executable, "-m", "edr.evaluate.report",
                        str(results / "results.csv"), "-o", str(out / "report")], check=True)
        readme = out / "report" / "README.md"
        print(readme.read_text(encoding="utf-8")[:1500])
        return readme.exists()


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
