"""Non-respiratory beat-to-beat variance: morphology steps and drift, ectopic runs, electrode
motion and muscle-noise bursts (the options are described in :mod:`edr.simulate`)."""

from __future__ import annotations

import numpy as np

from edr import zero_phase
from edr.dsp.filters import butter
from edr.simulate.geometry import WAVE_CENTRES
from edr.simulate.processes import poisson_times, smooth_noise

__all__ = ["add_artefact_bursts", "beat_lead_directions", "draw_motion_bursts",
           "insert_ectopic_runs", "morphology_state"]


_MORPH_ANGLE_DEG = 45.0  # axis change (deg) per unit of morphology step size / drift
# relative log-gain change per wave (P Q R S T)
_MORPH_WAVE_WEIGHTS = np.array([0.5, 1.5, 0.5, 1.5, 0.5])


def insert_ectopic_runs(rng, beat_times, runs_per_min, run_beats, prematurity, duration_s):
    """Replace runs of sinus beats by premature ectopic beats; returns (beat_times, is_ectopic).

    A run starts at the first sinus beat after a Poisson event time; it has
    ``L = 1 + Poisson(run_beats - 1)`` beats (at most 30). With ``RR0`` the RR
    interval before the run, the ``m``-th ectopic beat falls at
    ``t[i-1] + m (1 - prematurity) RR0`` in place of sinus beat ``i + m - 1``;
    the next sinus beat keeps its time (full compensatory pause). Runs never
    overlap and keep at least two sinus beats between them.
    """
    t = beat_times.copy()
    ectopic = np.zeros(t.size, dtype=bool)
    free_from = 2
    for tau in poisson_times(rng, runs_per_min, duration_s):
        length = 1 + int(min(rng.poisson(run_beats - 1.0), 29))
        i = int(np.searchsorted(t, tau))
        if i < free_from or i + length >= t.size:
            continue
        rr0 = t[i - 1] - t[i - 2]
        times = t[i - 1] + (1.0 - prematurity) * rr0 * np.arange(1, length + 1)
        if t[i + length] - times[-1] < 0.3 * rr0:
            continue
        t[i : i + length] = times
        ectopic[i : i + length] = True
        free_from = i + length + 2
    return t, ectopic


def morphology_state(rng, beat_times, duration_s, t_slow, step_rate_per_min, step_size, drift,
                     drift_period_s):
    """Per-beat log-gain of each wave and frontal/horizontal axis offsets (deg).

    The state ``m(t_k)`` (7 numbers: log-gains of P, Q, R, S, T, frontal and
    horizontal axis offsets in units of 45 degrees) is
    ``m(t_k) = sum_{tau_j <= t_k} s eps_j + delta u(t_k) v``, with
    ``eps_j ~ N(0, I_7)`` per step, ``u`` one smooth unit-variance process and
    ``v`` a random direction of norm sqrt(7) (drawn once per record); the
    log-gains are weighted by :data:`_MORPH_WAVE_WEIGHTS`.
    """
    n_waves = WAVE_CENTRES.size
    state = np.zeros((beat_times.size, n_waves + 2))
    if step_rate_per_min > 0:
        steps = poisson_times(rng, step_rate_per_min, duration_s)
        jumps = step_size * rng.standard_normal((steps.size, n_waves + 2))
        level = np.vstack([np.zeros(n_waves + 2), np.cumsum(jumps, axis=0)])
        state += level[np.searchsorted(steps, beat_times, side="right")]
    if drift > 0:
        direction = rng.standard_normal(n_waves + 2)
        direction *= np.sqrt(n_waves + 2) / np.linalg.norm(direction)
        u = np.interp(beat_times, t_slow, smooth_noise(rng, t_slow, drift_period_s))
        state += drift * u[:, None] * direction
    log_gain = state[:, :n_waves] * _MORPH_WAVE_WEIGHTS
    return log_gain, _MORPH_ANGLE_DEG * state[:, n_waves], _MORPH_ANGLE_DEG * state[:, n_waves + 1]


def _tukey(m):
    """Tukey (tapered cosine, alpha = 0.5) window of ``m`` samples."""
    if m < 3:
        return np.ones(m)
    x = np.linspace(0.0, 1.0, m)
    w = np.ones(m)
    edge = x < 0.25
    w[edge] = 0.5 * (1 - np.cos(4 * np.pi * x[edge]))
    edge = x > 0.75
    w[edge] = 0.5 * (1 - np.cos(4 * np.pi * (1 - x[edge])))
    return w


def _add_bursts(rng, ecg, fs, starts, lengths_s, make):
    """Add ``make(rng, m)`` (shape (n_leads, m)) times a Tukey envelope over each burst."""
    n = ecg.shape[1]
    for tau, length in zip(starts, lengths_s, strict=False):
        m = max(int(round(length * fs)), 1)
        i0 = int(tau * fs)
        i1 = min(i0 + m, n)
        burst = make(rng, m) * _tukey(m)
        ecg[:, i0:i1] += burst[:, : i1 - i0]


def _motion_artifact(amplitude, fs, n_leads):
    """Electrode motion: smooth wander (knots every 0.3 s, < ~1.7 Hz) + 30 % broadband (0.5-35 Hz)
    noise."""
    sos = butter(2, [0.5, min(35.0, 0.4 * fs)], "bandpass", fs)

    def make(rng, m):
        t = np.arange(m) / fs
        low = np.array([smooth_noise(rng, t, 0.3) if m > 1 else rng.standard_normal(1)
                        for _ in range(n_leads)])
        white = rng.standard_normal((n_leads, m))
        if m > 3 * 2 * sos.shape[0] * 3:
            white = zero_phase.sosfiltfilt(sos, white)
            white /= max(float(white.std()), 1e-12)
        return amplitude * (low + 0.3 * white)

    return make


def _noise_burst(std, fs, n_leads):
    """Muscle-like noise: white noise high-passed at min(10 Hz, 0.2 fs), standard deviation
    ``std``."""
    sos = butter(2, min(10.0, 0.2 * fs), "highpass", fs)

    def make(rng, m):
        white = rng.standard_normal((n_leads, m))
        if m > 3 * 2 * sos.shape[0] * 3:
            white = zero_phase.sosfiltfilt(sos, white)
            white /= max(float(white.std()), 1e-12)
        return std * white

    return make


def draw_motion_bursts(rng, o):
    """Start times and lengths (2-8 s) of the electrode-motion bursts, or ``(None, None)`` when
    motion is off (no rate, or neither amplitude nor contact change)."""
    motion = o.motion_artifact_rate_per_min > 0 and (o.motion_artifact_amplitude > 0
                                                     or o.motion_contact_change_deg > 0)
    if not motion:
        return None, None
    starts = poisson_times(rng, o.motion_artifact_rate_per_min, o.n / o.fs)
    return starts, rng.uniform(2.0, 8.0, starts.size)


def beat_lead_directions(rng, o, beat_times, motion_starts, motion_lengths):
    """Per-beat lead vectors (n_leads, n_beats, 3) after the electrode contact changes, or
    ``None`` when there are none (no motion burst or no contact change).

    At the end of each burst every lead vector turns by a random small rotation (cumulative).
    """
    if (motion_starts is None or not o.motion_contact_change_deg > 0
            or not motion_starts.size > 0):
        return None
    turn = np.deg2rad(o.motion_contact_change_deg) * rng.standard_normal((motion_starts.size,
                                                                          len(o.leads), 3))
    lead_dirs = [o.directions]
    for j in range(motion_starts.size):
        d = lead_dirs[-1] + turn[j] - np.sum(turn[j] * lead_dirs[-1], axis=1,
                                             keepdims=True) * lead_dirs[-1]
        lead_dirs.append(d / np.linalg.norm(d, axis=1, keepdims=True))
    which = np.searchsorted(np.sort(motion_starts + motion_lengths), beat_times, side="right")
    return np.stack(lead_dirs)[which].transpose(1, 0, 2)


def add_artefact_bursts(rng, o, ecg, motion_starts, motion_lengths):
    """Add the non-respiratory bursts to ``ecg`` in place, last (the rest of the record is
    unchanged by them): electrode motion, then muscle noise."""
    if motion_starts is not None and o.motion_artifact_amplitude > 0:
        _add_bursts(rng, ecg, o.fs, motion_starts, motion_lengths,
                    _motion_artifact(o.motion_artifact_amplitude, o.fs, len(o.leads)))
    if o.noise_burst_rate_per_min > 0 and o.noise_burst_std > 0:
        starts = poisson_times(rng, o.noise_burst_rate_per_min, o.n / o.fs)
        _add_bursts(rng, ecg, o.fs, starts,
                    rng.uniform(o.noise_burst_min_s, o.noise_burst_max_s, starts.size),
                    _noise_burst(o.noise_burst_std, o.fs, len(o.leads)))
