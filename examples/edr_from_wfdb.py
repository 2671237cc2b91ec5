"""ECG-derived respiration from a WFDB record.

With ``--record PATH`` (a ``.hea``/``.dat`` record, e.g. from
``$EDR_DATA_DIR/bidmc``) that record is read; otherwise a simulated ECG with
known respiration (:func:`edr.simulate.simulate_recording`) is written to a
temporary WFDB record with ``wfdb.wrsamp`` first, so the example needs no data.

    python examples/edr_from_wfdb.py [--record bidmc01.hea] [--duration 120]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np


def write_simulated_record(folder, duration_s):
    import wfdb

    from edr.simulate import simulate_recording

    rec = simulate_recording(duration_s, 250.0, random_state=0)
    signals = np.column_stack([rec.ecg, rec.resp])
    wfdb.wrsamp("sim", fs=rec.fs, units=["mV", "NU"], sig_name=["II", "RESP"],
                p_signal=signals, fmt=["16", "16"], write_dir=str(folder))
    return Path(folder) / "sim.hea"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", help="WFDB record (default: a simulated one)")
    parser.add_argument("--duration", type=float, default=120.0, help="simulated seconds")
    parser.add_argument("--sigma2", default="mdd")
    args = parser.parse_args(argv)

    from edr.io import read_record
    from edr.pipeline import extract_edr
    from edr.scoring import score

    with tempfile.TemporaryDirectory() as tmp:
        path = args.record or write_simulated_record(tmp, args.duration)
        rec = read_record(path)
    print(f"{rec.name}: {rec.ecg.size / rec.fs:.0f} s at {rec.fs:g} Hz, lead {rec.ecg_channel}")
    res = extract_edr(rec, method="kpca", sigma2=args.sigma2)
    print(f"EDR: {res.waveform.size} samples at 4 Hz, sigma2 = {np.median(res.sigma2):.4g}")
    if rec.resp is not None:
        print("against the reference respiration:", score(res, rec))
    return True


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
