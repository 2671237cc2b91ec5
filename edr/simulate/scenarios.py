"""Named option sets of :func:`simulate_recording`: ICU-like failure scenarios and healthy
people at rest (``docs/design.md#7-simulation``)."""

from __future__ import annotations

from edr.simulate.recording import simulate_recording

__all__ = ["ANAESTHESIA_SCENARIOS", "FAILURE_SCENARIOS", "HEALTHY_SCENARIOS", "SCENARIOS",
           "simulate_scenario"]

_ICU = dict(heart_rate_bpm=85.0, resp_rate_hz=0.28, amplitude_modulation=0.06,
            axis_modulation_deg=3.0, rsa_bpm=1.0,
            respiratory_baseline=0.02)
"""ICU patient base of the failure scenarios: faster heart, 17 breaths/min, weak modulation."""
_HEALTHY = dict(heart_rate_bpm=65.0, resp_rate_hz=0.25, rsa_bpm=8.0, amplitude_modulation=0.04,
                axis_modulation_deg=3.0, respiratory_baseline=0.02, noise_std=0.03)
"""Healthy young adult at rest: slow heart, strong respiratory sinus arrhythmia, small
amplitude modulation (the MARSH volunteers')."""
SCENARIOS: dict[str, dict] = {
    "clean": {},
    "morphology_steps": dict(_ICU, morphology_step_rate_per_min=0.5, morphology_step_size=0.4),
    "morphology_drift": dict(_ICU, morphology_drift=0.6, morphology_drift_period_s=60.0),
    "ectopic_clusters": dict(_ICU, ectopic_runs_per_min=2.0, ectopic_run_beats=8.0,
                             ectopic_width=1.4),
    "electrode_motion": dict(_ICU, motion_artifact_rate_per_min=1.0, motion_artifact_amplitude=0.3,
                             motion_contact_change_deg=20.0),
    "noise_bursts": dict(_ICU, noise_burst_rate_per_min=2.0, noise_burst_std=0.3),
    "ventilator_weak": dict(heart_rate_bpm=85.0, ventilator_depth=0.35, morphology_drift=0.5,
                            morphology_drift_period_s=60.0),
    "healthy_rest": dict(_HEALTHY),
    "paced_breathing": dict(_HEALTHY, resp_rate_schedule_hz=(0.14, 0.23, 0.38, 0.23),
                            resp_rate_step_s=60.0),
    "deep_slow_breathing": dict(_HEALTHY, resp_rate_hz=0.1, amplitude_modulation=0.08,
                                rsa_bpm=12.0, respiratory_baseline=0.08),
    "ventilated": dict(heart_rate_bpm=80.0, resp_rate_hz=0.23, ventilator_depth=1.0, rsa_bpm=0.0,
                       amplitude_modulation=0.08, axis_modulation_deg=5.0),
    "child_spontaneous": dict(heart_rate_bpm=125.0, resp_rate_hz=0.5, rsa_bpm=3.0,
                              amplitude_modulation=0.08, axis_modulation_deg=5.0),
    "child_ventilated": dict(heart_rate_bpm=120.0, resp_rate_hz=0.42, ventilator_depth=1.0,
                             rsa_bpm=0.0, amplitude_modulation=0.08, axis_modulation_deg=5.0),
    "mixed_icu": dict(_ICU, morphology_drift=0.25, morphology_drift_period_s=60.0,
                      morphology_step_rate_per_min=0.5,
                      morphology_step_size=0.35, ectopic_runs_per_min=1.5, ectopic_run_beats=6.0,
                      ectopic_width=1.4,
                      motion_artifact_rate_per_min=0.5, motion_artifact_amplitude=0.3,
                      motion_contact_change_deg=10.0,
                      noise_burst_rate_per_min=1.0, noise_burst_std=0.15),
}
"""Named :func:`simulate_recording` options (see :func:`simulate_scenario` and
docs/design.md#7-simulation)."""
HEALTHY_SCENARIOS = ("healthy_rest", "paced_breathing", "deep_slow_breathing")
"""Healthy people at rest, paced breathing whose rate changes every 60 s (8, 14, 23 and 14
breaths/min) and deep slow breathing (6 /min): strong RSA, small morphological modulation."""
ANAESTHESIA_SCENARIOS = ("ventilated", "child_spontaneous", "child_ventilated")
"""Under anaesthesia: controlled ventilation at a fixed rate and depth with no respiratory sinus
arrhythmia (the heart rate does not breathe; amplitude and axis modulation only), an adult at
14 /min or a child at 25 /min (heart 120 /min), and a child breathing on its own at 30 /min
(heart 125 /min)."""
FAILURE_SCENARIOS = ("morphology_steps", "morphology_drift", "ectopic_clusters",
                     "ventilator_weak", "mixed_icu")
"""Scenarios on which the default kPCA EDR (first component, MDD σ²) fails while the R amplitude
breathes (measured: ``scripts/output/measure_failure_scenarios.md``). ``electrode_motion`` is a
marginal loss (median MSC 0.05 below the R amplitude, |r| above it); ``noise_bursts`` is a control
that kPCA wins."""


def simulate_scenario(name, *, duration_s=480.0, fs=125.0, leads=("II", "V"), random_state=0):
    """A :func:`simulate_recording` of the named :data:`SCENARIOS` entry.

    Parameters
    ----------
    name : str
        Key of :data:`SCENARIOS`.
    duration_s, fs : float, default 480, 125
        ICU-like record (8 minutes at 125 Hz, as the BIDMC records).
    leads : sequence of str, default ("II", "V")
    random_state : None, int or numpy.random.Generator, default 0

    Returns
    -------
    Recording
        ``name`` is ``"<scenario>"``.

    Raises
    ------
    ValueError
        An unknown scenario (the message lists the valid names) or a bad option.

    See Also
    --------
    simulate_recording, SCENARIOS

    Examples
    --------
    >>> from edr.simulate import SCENARIOS, simulate_scenario
    >>> "ectopic_clusters" in SCENARIOS
    True
    >>> rec = simulate_scenario("ectopic_clusters", duration_s=60.0)
    >>> rec.name, rec.fs, list(rec.leads)
    ('ectopic_clusters', 125.0, ['II', 'V'])
    """
    if not isinstance(name, str) or name not in SCENARIOS:
        raise ValueError(f"unknown scenario {name!r}; valid scenarios are {sorted(SCENARIOS)}")
    return simulate_recording(duration_s, fs, leads=leads, name=name, random_state=random_state,
                              **SCENARIOS[name])
