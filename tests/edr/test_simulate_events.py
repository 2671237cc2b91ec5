"""edr.simulate's breathing events: apnoea and hypopnoea episodes, sighs."""

from __future__ import annotations

import numpy as np
import pytest

from edr.simulate import NO_BREATH_DEPTH, breathing_envelope, simulate_recording


def test_envelope_by_definition():
    t = np.arange(0.0, 100.0, 0.1)
    env = breathing_envelope(t, episodes=[(20.0, 30.0)], depth=0.4)
    assert np.all(env[(t <= 18) | (t >= 52)] == 1.0)
    assert np.allclose(env[(t >= 20) & (t <= 50)], 0.4)
    ramp = (t > 18) & (t < 20)
    assert np.all(np.diff(env[ramp]) < 0) and np.all((env[ramp] > 0.4) & (env[ramp] < 1))
    sigh = breathing_envelope(t, sighs=[60.0], sigh_gain=3.0, breath_s=3.0)
    assert sigh[600] == pytest.approx(3.0) and sigh[0] == pytest.approx(1.0)
    assert sigh[610] == pytest.approx(1 + 2 * np.exp(-0.5))  # one standard deviation (1 s)
    short = breathing_envelope(t, episodes=[(10.0, 3.0)])
    assert np.all(short[(t >= 10) & (t <= 13)] == 0.0) and short[90] == pytest.approx(0.5)


def test_events_off_leave_the_record_bit_identical():
    a = simulate_recording(60.0, random_state=4)
    b = simulate_recording(60.0, random_state=4, apnoea_episodes=[], sigh_times_s=[])
    np.testing.assert_array_equal(a.ecg, b.ecg)
    np.testing.assert_array_equal(a.breath_times, b.breath_times)


def test_apnoea_removes_breaths_and_modulation_hypopnoea_keeps_them():
    kw = dict(duration_s=180.0, random_state=2)
    base = simulate_recording(**kw)
    apnoea = simulate_recording(**kw, apnoea_episodes=[(60.0, 40.0)])
    hypo = simulate_recording(**kw, apnoea_episodes=[(60.0, 40.0)], apnoea_depth=0.4)
    inside = (base.breath_times > 60) & (base.breath_times < 100)
    assert inside.sum() >= 8
    assert not np.any((apnoea.breath_times > 60) & (apnoea.breath_times < 100))
    np.testing.assert_array_equal(hypo.breath_times, base.breath_times)
    np.testing.assert_array_equal(apnoea.breath_times[apnoea.breath_times < 55],
                                  base.breath_times[base.breath_times < 55])
    t = np.arange(base.resp.size) / base.fs
    quiet = (t >= 60) & (t <= 100)
    assert np.abs(apnoea.resp[quiet]).max() < 1e-12
    np.testing.assert_allclose(hypo.resp[quiet], 0.4 * base.resp[quiet], atol=1e-12)
    assert not np.array_equal(apnoea.ecg, base.ecg)
    assert NO_BREATH_DEPTH < 0.4


def test_sigh_deepens_one_breath():
    base = simulate_recording(120.0, random_state=5)
    sigh = simulate_recording(120.0, random_state=5, sigh_times_s=[60.0], sigh_gain=2.5)
    t = np.arange(base.resp.size) / base.fs
    near = np.abs(t - 60) < 2
    assert np.abs(sigh.resp[near]).max() > 1.8 * np.abs(base.resp[near]).max()
    far = np.abs(t - 60) > 8
    np.testing.assert_allclose(sigh.resp[far], base.resp[far], rtol=1e-3, atol=1e-6)
    np.testing.assert_array_equal(sigh.breath_times, base.breath_times)


@pytest.mark.parametrize("kwargs, match", [
    (dict(apnoea_episodes=[(10.0, -5.0)]), "apnoea_episodes"),
    (dict(apnoea_episodes=[10.0]), "apnoea_episodes"),
    (dict(apnoea_depth=1.5), "apnoea_depth"),
    (dict(sigh_gain=0.5), "sigh_gain"),
])
def test_bad_event_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        simulate_recording(30.0, **kwargs)
