"""ECG-derived respiration for NeuroKit2 users: a NumPy array in, pandas DataFrames out, a figure.

The ECG is simulated by NeuroKit2's ECGSYN (``nk.ecg_simulate``), whose model breathes at
0.25 Hz (15 breaths/min; McSharry et al. 2003); ``--source edr`` uses
:func:`edr.simulate.simulate_recording` instead (its breath times are known). Any 1-D array (one
lead) or 2-D array (samples × leads) with its sampling rate works the same way, e.g. the
``ECG_Raw`` column of ``nk.ecg_process``'s DataFrame.

    python examples/neurokit2_users.py [--duration 120] [--plot edr.png] [--source edr]
"""

from __future__ import annotations

import argparse

import numpy as np

FS = 250.0  # Hz


def simulated_ecg(source: str, duration_s: float) -> tuple[np.ndarray, str]:
    """(ECG in mV, what it breathes at) from NeuroKit2's ECGSYN or edr's simulator."""
    if source == "neurokit2":
        import neurokit2 as nk

        ecg = nk.ecg_simulate(duration=int(duration_s), sampling_rate=int(FS), heart_rate=70,
                              method="ecgsyn", random_state=0)
        return np.asarray(ecg, dtype=float), "15 breaths/min (ECGSYN's 0.25 Hz)"
    from edr.simulate import simulate_recording

    rec = simulate_recording(duration_s, FS, random_state=0)
    rate = 60.0 / np.median(np.diff(rec.breath_times))
    return rec.ecg, f"{rate:.1f} breaths/min (median of the simulated breaths)"


def main(argv=None) -> bool:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=120.0, help="simulated seconds")
    parser.add_argument("--plot", default="neurokit2_users.png", help="figure file to write")
    parser.add_argument("--source", choices=("neurokit2", "edr"), default="neurokit2",
                        help="simulator of the ECG")
    args = parser.parse_args(argv)

    import edr

    ecg, truth = simulated_ecg(args.source, args.duration)
    result = edr.extract_edr(ecg, fs=FS)  # an array and its sampling rate, as in NeuroKit2
    signals = result.to_frame()  # time_s, edr, rate_bpm, quality on a 4 Hz grid
    rates = result.rate_frame()  # one row per 32 s window, and why a rate is withheld
    print(signals.head().to_string(index=False))
    print(rates.to_string(index=False))
    print(f"median rate {np.nanmedian(result.rate_bpm):.1f} breaths/min; the simulated ECG "
          f"breathes at {truth}")
    edr.plot_record(ecg, result, fs=FS, path=args.plot)  # rates, quality, beats, EDR, σ²
    print(f"figure written to {args.plot}")
    return result.status == "ok"


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
