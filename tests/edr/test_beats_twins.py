"""The NeuroKit2-free twins of ``nk.ecg_clean(method="neurokit")`` and
``nk.ecg_peaks(method="neurokit")``
in :mod:`edr.beats` give bit-identical results, and the default extraction never imports
NeuroKit2."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

from edr.beats import twins
from edr.simulate import simulate_recording

nk = pytest.importorskip("neurokit2")


def _nk_clean(x, fs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(nk.ecg_clean(x, sampling_rate=fs, method="neurokit"), dtype=float)


def _nk_peaks(clean, fs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        peaks = nk.ecg_peaks(clean, sampling_rate=fs, method="neurokit")[1]["ECG_R_Peaks"]
        return np.asarray(peaks, dtype=int)


def _check(x, fs):
    ref = _nk_clean(x, fs)
    ours = twins.nk_clean_neurokit(x, fs)
    assert np.array_equal(ours, ref)
    assert np.array_equal(twins.nk_peaks_neurokit(ours, fs), _nk_peaks(ref, fs))


@pytest.mark.parametrize(("fs", "seed"),
                         [(100.0, 0), (125.0, 1), (250.0, 2), (360.0, 3), (500.0, 4), (1000.0, 5)])
def test_twins_identical_on_simulated_ecg(fs, seed):
    rec = simulate_recording(60.0, fs, random_state=seed)
    _check(rec.ecg, fs)
    _check(-rec.ecg[: int(7 * fs)], fs)  # short, inverted


@pytest.mark.parametrize("seed", range(4))
def test_most_prominent_peak_is_find_peaks_argmax_of_prominences(seed):
    from scipy import signal

    rng = np.random.default_rng(seed)
    x = np.round(rng.standard_normal(4000).cumsum(), 0)  # quantised: plateaus and ties
    for _ in range(300):
        lo = int(rng.integers(0, 3990))
        hi = min(lo + int(rng.integers(0, 60)), x.size)
        locmax, props = signal.find_peaks(x[lo:hi], prominence=(None, None))
        want = lo + locmax[np.argmax(props["prominences"])] if locmax.size else -1
        out = np.full(1, -1)
        kept = twins._qrs_peaks(x, np.array([lo]), np.array([hi]), -1, out)  # -1: any peak kept
        assert kept == (want >= 0) and out[0] == want


def test_twins_on_flat_and_tiny_input():
    fs = 125.0
    flat = np.zeros(1000)
    assert np.array_equal(twins.nk_clean_neurokit(flat, fs), _nk_clean(flat, fs))
    assert twins.nk_peaks_neurokit(flat, fs).size == _nk_peaks(flat, fs).size == 0
    with pytest.raises(TypeError):  # NeuroKit2 raises TypeError too (signal_smooth size check)
        twins.nk_peaks_neurokit(np.ones(50), fs)
    with pytest.raises(TypeError):
        _nk_peaks(np.ones(50), fs)


def test_twins_identical_on_every_bidmc_lead(bidmc_dir):
    from edr.io import read_record

    files = sorted(bidmc_dir.glob("bidmc??.dat"))
    assert files
    # every third record, every lead (all 30 were compared by hand, see design.md)
    for f in files[::3]:
        rec = read_record(f)
        for x in rec.leads.values():
            x = np.nan_to_num(x)
            _check(x, rec.fs)


def test_default_extraction_does_not_import_neurokit2():
    code = ("import sys\n"
            "from edr.simulate import simulate_recording\n"
            "from edr.pipeline import extract_edr\n"
            "extract_edr(simulate_recording(60.0, 250.0, random_state=1))\n"
            "sys.exit(int('neurokit2' in sys.modules))\n")
    assert subprocess.run([sys.executable, "-c", code], timeout=300).returncode == 0


@pytest.mark.parametrize("fs", [100.0, 250.0, 500.0, 1000.0])
def test_fixed_length_smoothing_is_neurokit2s_at_multiples_of_50_hz(fs):
    x = simulate_recording(20.0, fs, random_state=7).ecg
    assert np.array_equal(twins.nk_clean_neurokit(x, fs, twins.SMOOTHING_S),
                          twins.nk_clean_neurokit(x, fs))


def test_fixed_length_smoothing_does_not_depend_on_the_rate():
    # at 125 Hz NeuroKit2 averages 2 samples (16 ms), at 250 Hz 5 (20 ms); the fixed 20 ms
    # average (2.5 samples: taps 1, 1, 0.5) cleans the 125 Hz lead as the 250 Hz one is cleaned
    from scipy.signal import resample_poly

    x = simulate_recording(30.0, 125.0, random_state=8).ecg
    at_250 = twins.nk_clean_neurokit(resample_poly(x, 2, 1), 250.0)[::2]
    core = slice(250, -250)

    def err(y):
        return np.abs(y[core] - at_250[core]).max()

    fixed = twins.nk_clean_neurokit(x, 125.0, twins.SMOOTHING_S)
    assert err(fixed) < 0.5 * err(twins.nk_clean_neurokit(x, 125.0))
