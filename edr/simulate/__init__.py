"""Synthetic multi-lead ECG with a known respiration (tests, demo, benchmarks).

The generator follows the idea of ECGSYN (McSharry et al. 2003) and of its
three-dimensional extension (Sameni et al. 2007): each beat is a sum of
Gaussian waves (P, Q, R, S, T), each wave a fixed vector of the cardiac
dipole, and a lead's voltage is the projection of the dipole on the lead's
direction. Respiration acts on the ECG in the three ways EDR methods exploit:

* **electrical-axis rotation** — the dipole of beat *k* is rotated in the
  frontal plane by ``axis_modulation_deg * r(t_k)`` degrees (the heart moves
  with the diaphragm), which changes the QRS morphology differently per lead;
* **amplitude modulation** — the dipole is scaled by
  ``1 + amplitude_modulation * r(t_k)`` (thoracic impedance, electrode-heart
  distance);
* **respiratory sinus arrhythmia (RSA)** — the instantaneous heart rate is
  ``heart_rate_bpm + rsa_bpm * r(t) + HRV noise``.

``r(t) = a(t) sin(phi(t))`` is the reference respiration returned as
``Recording.resp``: its phase ``phi`` runs at a rate that drifts slowly around
``resp_rate_hz`` and its amplitude ``a`` varies slowly around 1, so breathing
is slightly irregular. Baseline wander — a respiratory shift
(``respiratory_baseline * r(t)``) plus a slow non-respiratory drift (a smooth
random process, by default below about 0.05 Hz) — and white noise are added
last. Breath times are the inspiration peaks
(``phi = pi/2 mod 2 pi``).

Non-respiratory beat-to-beat variance (every option off by
default, and then the record is bit-for-bit the one without the option):

* **morphology steps** — at Poisson times ``tau_j`` (``morphology_step_rate_per_min``)
  the beat morphology state ``m`` (log-gains of the P, Q, R, S, T dipoles,
  weighted 0.5, 1.5, 0.5, 1.5, 0.5, and frontal/horizontal axis offsets in
  units of 45 degrees) jumps by ``s eps_j``, ``eps_j ~ N(0, I_7)``,
  ``s = morphology_step_size`` (electrode repositioning, posture change);
* **morphology drift** — ``m`` also moves by ``delta u(t) v``: one smooth
  unit-variance process ``u`` (knots every ``morphology_drift_period_s``) along
  one random direction ``v`` (norm sqrt 7), ``delta = morphology_drift``;
  the dipole of wave ``w`` of beat ``k`` is ``exp(c_w m_w(t_k))`` times its
  normal vector, turned in the frontal plane by ``theta_resp + 45 m_6`` and
  about the vertical axis by ``45 m_7`` degrees;
* **ectopic clusters** — runs of ``L = 1 + Poisson(ectopic_run_beats - 1)``
  premature beats (``ectopic_runs_per_min`` runs per minute) at intervals
  ``(1 - ectopic_prematurity) RR0``, each with the ectopic wave table (no P,
  QRS ``ectopic_width`` times wider, different Q/S, discordant T; dipole
  times ``ectopic_amplitude``), then a full compensatory pause;
* **electrode motion** — bursts (``motion_artifact_rate_per_min``, 2-8 s,
  Tukey envelope) of ``A (w(t) + 0.3 b(t))`` per lead: ``w`` smooth noise with
  knots every 0.3 s, ``b`` 0.5-35 Hz noise, ``A = motion_artifact_amplitude``
  (mV); after each burst every lead vector turns by a random rotation of
  about ``motion_contact_change_deg`` degrees (electrode contact change);
* **noise bursts** — bursts (``noise_burst_rate_per_min``, lengths uniform in
  [``noise_burst_min_s``, ``noise_burst_max_s``]) of white noise high-passed at
  10 Hz with standard deviation ``noise_burst_std`` (mV, muscle);
* **bigeminy** — ``bigeminy_prematurity`` ``p``: every second beat is an ectopic beat (the
  ectopic wave table above) at ``(1 - p)`` times the sinus RR after the beat before it, the next
  sinus beat keeping its time (compensatory pause): RR and morphology alternate beat by beat;
* **electrical alternans** — ``alternans`` ``a``: the dipole of beat ``k`` is scaled by
  ``1 + a (-1)^k``, a beat-to-beat alternation at half the heart rate;
* **ventilator** — ``ventilator_depth`` ``d``: constant rate and tidal volume
  (rate/amplitude variability 0.005/0.02) and every respiratory modulation
  (RSA, amplitude, axis, baseline) multiplied by ``d``.

Breathing events (off by default): the breathing amplitude ``a(t)`` is multiplied by
:func:`breathing_envelope` — ``apnoea_depth`` throughout each ``(start_s, length_s)`` of
``apnoea_episodes`` (0: apnoea, breathing stops; between 0 and 1: hypopnoea), and a deep breath
``sigh_gain`` times the usual depth at each of ``sigh_times_s``. Breaths whose depth is at most
:data:`NO_BREATH_DEPTH` are not breaths (not in ``breath_times``).

The respiration and the heart rhythm are drawn before any artefact, so a
seed gives the same breathing with and without them. :data:`SCENARIOS` names
ICU-like option sets (:func:`simulate_scenario`); docs/design.md#7-simulation
lists them with the measured failure of the default kPCA EDR.

Everything is vectorised; beats are rendered in blocks and the sample-rate
signals in chunks, so a 24-hour record at 250 Hz takes a few seconds and
memory close to that of the output arrays (float64, 8 bytes per sample per
lead plus the respiration).
"""

from __future__ import annotations

from edr.simulate.events import NO_BREATH_DEPTH, breathing_envelope
from edr.simulate.geometry import LEAD_DIRECTIONS
from edr.simulate.parameters import SimulationParameters
from edr.simulate.recording import simulate_recording
from edr.simulate.scenarios import (
    ANAESTHESIA_SCENARIOS,
    FAILURE_SCENARIOS,
    HEALTHY_SCENARIOS,
    SCENARIOS,
    simulate_scenario,
)

__all__ = ["ANAESTHESIA_SCENARIOS", "FAILURE_SCENARIOS", "HEALTHY_SCENARIOS", "LEAD_DIRECTIONS",
           "NO_BREATH_DEPTH", "SCENARIOS", "SimulationParameters", "breathing_envelope",
           "simulate_recording", "simulate_scenario"]
