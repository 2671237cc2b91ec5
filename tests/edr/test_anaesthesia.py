"""Children and adults under anaesthesia: one lead at 300 Hz in arbitrary units.

Half of them are ventilated: a fixed rate and depth, no respiratory sinus arrhythmia (the heart
rate does not breathe), amplitude and axis modulation only; children's hearts beat at
100-150 /min and they breathe at 20-40 /min (:data:`edr.simulate.ANAESTHESIA_SCENARIOS`). The
default EDR must give the heart rate no weight where it does not breathe, assume no adult ICU
range of rates, and not depend on the ECG's units.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

from edr.fusion import HEART_SERIES
from edr.pipeline import extract_edr
from edr.scoring import score, window_rates
from edr.simulate import ANAESTHESIA_SCENARIOS, SCENARIOS, simulate_scenario
from edr.stream import StreamingEDR

FS = 300.0
DURATION_S = 300.0
UNITS = 1000.0
"""The ECG is scaled by this (arbitrary units, not mV)."""
SEEDS = (0, 1)


def _recording(name, seed, units=UNITS):
    rec = simulate_scenario(name, duration_s=DURATION_S, fs=FS, leads=("II",), random_state=seed)
    rec.ecg[:] *= units  # rec.leads["II"] is rec.ecg
    return rec


@functools.cache
def _extracted(name, seed):
    rec = _recording(name, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rec, extract_edr(rec), extract_edr(rec, method="r_amplitude")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", ANAESTHESIA_SCENARIOS)
def test_rates_follow_the_breathing_at_any_rate_and_units(name, seed):
    rec, res, _ = _extracted(name, seed)
    _, edr_bpm, ref_bpm = window_rates(res, rec)
    given = np.isfinite(edr_bpm)
    assert given.mean() >= 0.9, f"{name}: rates in {given.mean():.0%} of the windows"
    err = np.abs(edr_bpm[given] - ref_bpm[given])
    assert np.mean(err <= 2.0) >= 0.9 and np.mean(err) <= 1.0, np.round(err, 1)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", ANAESTHESIA_SCENARIOS)
def test_waveform_reaches_the_r_amplitude(name, seed):
    rec, res, ramp = _extracted(name, seed)
    d, r = score(res, rec), score(ramp, rec)
    assert d.msc >= r.msc - 0.02 and abs(d.corr) >= 0.9, (d, r)


@pytest.mark.parametrize("name", [n for n in ANAESTHESIA_SCENARIOS
                                  if SCENARIOS[n].get("rsa_bpm", 1.0) == 0.0])
def test_the_heart_rate_gets_no_weight_where_it_does_not_breathe(name):
    for seed in SEEDS:
        _, res, _ = _extracted(name, seed)
        weights = [w.quality["weights"] for w in res.windows]
        assert weights and all(w.get("rsa", 0.0) < 0.02 for w in weights), weights


def test_the_edr_does_not_depend_on_the_ecg_units():
    rec, res, _ = _extracted("child_ventilated", 0)
    small = extract_edr(_recording("child_ventilated", 0, units=1e-3))
    np.testing.assert_allclose(small.waveform, res.waveform, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(small.rate_bpm, res.rate_bpm)


def test_the_stream_gives_the_heart_rate_no_weight_where_it_does_not_breathe():
    """The stream's fusion models (one per refit) keep the heart rate out of a ventilated child's
    fusion, and its rates follow the ventilator as offline."""
    rec, res, _ = _extracted("child_ventilated", 0)
    s = StreamingEDR(FS, leads=["II"])
    x = rec.ecg[:, None]
    rates, weights = [], []
    for i in range(0, x.shape[0], int(FS)):
        rates += [u.rate_bpm for u in s.push(x[i:i + int(FS)])]
        model = s._path.model  # the projected default's fusion model of the last refit
        if model is not None:
            weights.append(sum(model.weights.get(h, 0.0) for h in HEART_SERIES))
    rates += [u.rate_bpm for u in s.flush()]
    assert len(weights) > 200 and max(weights) < 0.02, max(weights)
    bpm = np.concatenate(rates)
    _, _, ref_bpm = window_rates(res, rec)
    given = np.isfinite(bpm)
    assert bpm.size == ref_bpm.size and given.mean() >= 0.9
    assert np.mean(np.abs(bpm[given] - ref_bpm[given]) <= 2.0) >= 0.9
