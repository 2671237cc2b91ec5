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

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np
from scipy.interpolate import CubicSpline

__all__ = ["FAILURE_SCENARIOS", "HEALTHY_SCENARIOS", "LEAD_DIRECTIONS", "NO_BREATH_DEPTH",
           "SCENARIOS", "SimulationParameters", "breathing_envelope", "simulate_recording",
           "simulate_scenario"]


def _unit(v):
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def _frontal(angle_deg):
    a = np.deg2rad(angle_deg)
    return np.array([np.cos(a), np.sin(a), 0.0])


# Lead directions in body coordinates (x: patient's left, y: inferior,
# z: anterior). Limb leads at their hexaxial angles; precordial leads in the
# horizontal plane (V1 anterior-right ... V6 left-lateral).
LEAD_DIRECTIONS: dict[str, np.ndarray] = {
    "I": _frontal(0.0),
    "II": _frontal(60.0),
    "III": _frontal(120.0),
    "AVR": _frontal(-150.0),
    "AVL": _frontal(-30.0),
    "AVF": _frontal(90.0),
    "V1": _unit([-0.45, 0.15, 0.88]),
    "V2": _unit([-0.1, 0.15, 1.0]),
    "V3": _unit([0.3, 0.2, 0.93]),
    "V4": _unit([0.6, 0.25, 0.76]),
    "V5": _unit([0.85, 0.2, 0.45]),
    "V6": _unit([1.0, 0.15, 0.1]),
}
_ALIASES = {"MLII": "II", "ECG": "II", "V": "V5", "MCL1": "V1", "MCL": "V1"}

# Waves of one beat: centre relative to the R peak (s, at 60 bpm), Gaussian
# width (s), dipole vector (mV). Timings and widths are those of ECGSYN
# (angles -70, -15, 0, 15, 100 degrees; widths 0.25, 0.1, 0.1, 0.1, 0.4 rad at
# 1 Hz, divided by 2 pi); the vectors give a normal lead II (P 0.15, Q -0.1,
# R 1.2, S -0.25, T 0.3 mV) with a mean QRS axis near 55 degrees.
_WAVE_CENTRES = np.array([-0.194, -0.042, 0.0, 0.042, 0.278])
_WAVE_WIDTHS = np.array([0.040, 0.016, 0.016, 0.016, 0.064]) / 1.6
_WAVE_DIPOLES = np.array(
    [
        [0.10, 0.12, 0.02],   # P
        [-0.08, -0.08, 0.20],  # Q (septal: rightward, anterior)
        [0.70, 1.05, -0.25],  # R
        [-0.25, -0.18, -0.45],  # S (terminal: rightward, superior, posterior)
        [0.22, 0.25, 0.15],   # T
    ]
)
_T_WAVE = 4
_TRUNCATION = 4.5  # Gaussians are evaluated on +-4.5 widths


def _lead_direction(name):
    if not isinstance(name, str):
        raise ValueError(f"leads: lead names must be strings, got {name!r}")
    key = name.strip().rstrip(",").upper()
    key = _ALIASES.get(key, key)
    if key not in LEAD_DIRECTIONS:
        valid = sorted(set(LEAD_DIRECTIONS) | set(_ALIASES))
        raise ValueError(f"leads: unknown lead {name!r}; valid names are {valid}")
    return LEAD_DIRECTIONS[key]


def _check_nonneg(value, name):
    if not isinstance(value, numbers.Real) or not np.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)


def _check_range(value, name, low, high):
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not np.isfinite(value) \
            or not low <= value <= high:
        raise ValueError(f"{name} must be a finite number in [{low:g}, {high:g}], got {value!r}")
    return float(value)


def _check_pos(value, name):
    if not isinstance(value, numbers.Real) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def _smooth_noise(rng, t, knot_spacing_s):
    """Zero-mean, unit-variance-at-the-knots smooth random process on ``t``.

    Independent N(0, 1) values at knots every ``knot_spacing_s`` seconds,
    joined by a cubic spline: a band-limited process with most of its power
    below ``1 / (2 knot_spacing_s)`` Hz.
    """
    n_knots = int(np.ceil((t[-1] - t[0]) / knot_spacing_s)) + 4
    knots = t[0] - knot_spacing_s + knot_spacing_s * np.arange(n_knots)
    return CubicSpline(knots, rng.standard_normal(n_knots))(t)


def _render_beats(n, fs, beat_times, coeffs, rr, block=8192, centres=_WAVE_CENTRES,
                  widths=_WAVE_WIDTHS):
    """Sum the Gaussian waves of every beat into ``n`` samples per lead.

    ``coeffs`` is (n_leads, n_beats, n_waves): the projected, modulated dipole
    of each wave of each beat. The T wave's delay scales with sqrt(RR) as in
    ECGSYN (``centres``, ``widths``: the wave table, the normal beat's by
    default). Each Gaussian is evaluated on +-4.5 widths around its centre (it
    is below 4e-5 of its peak beyond) and scattered, a block of beats at a
    time, into its contiguous span with ``np.bincount``.
    """
    out = np.zeros((coeffs.shape[0], n))
    delay_scale = np.sqrt(np.clip(rr, 0.3, 2.0))
    for w, (centre, width) in enumerate(zip(centres, widths, strict=False)):
        half = int(np.ceil(_TRUNCATION * width * fs))
        offsets = np.arange(-half, half + 1)
        for b0 in range(0, beat_times.size, block):
            delay = centre * (delay_scale[b0 : b0 + block] if w == _T_WAVE else 1.0)
            t_wave = beat_times[b0 : b0 + block] + delay
            idx = np.round(t_wave * fs).astype(np.int64)[:, None] + offsets
            inside = (idx >= 0) & (idx < n)
            if not inside.any():
                continue
            gauss = np.exp(-0.5 * ((idx / fs - t_wave[:, None]) / width) ** 2)
            first, last = int(idx[inside].min()), int(idx[inside].max()) + 1
            flat = idx[inside] - first
            for lead in range(coeffs.shape[0]):
                weights = (coeffs[lead, b0 : b0 + block, w, None] * gauss)[inside]
                out[lead, first:last] += np.bincount(flat, weights=weights, minlength=last - first)
    return out


# Ectopic (ventricular) beat: no P wave, a wide QRS whose R wave has about the
# height of the normal one in leads II and V5 (so R-amplitude series barely
# see it) but a different Q/S pattern, and a discordant T wave. Centres relative to the (ectopic) R
# peak; QRS widths are ``ectopic_width`` times the normal ones.
_ECTOPIC_CENTRES = np.array([-0.194, -0.055, 0.0, 0.055, 0.30])
_ECTOPIC_DIPOLES = np.array(
    [
        [0.0, 0.0, 0.0],      # no P wave
        [-0.15, -0.05, 0.30],  # Q
        [0.90, 0.85, -0.30],  # R (wide; about the normal R height in II and V5)
        [-0.20, 0.40, 0.20],  # S
        [-0.30, -0.20, 0.20],  # T (discordant)
    ]
)
_MORPH_ANGLE_DEG = 45.0  # axis change (deg) per unit of morphology step size / drift
# relative log-gain change per wave (P Q R S T)
_MORPH_WAVE_WEIGHTS = np.array([0.5, 1.5, 0.5, 1.5, 0.5])
_VENTILATOR_RATE_VARIABILITY = 0.005
_VENTILATOR_AMPLITUDE_VARIABILITY = 0.02


def _poisson_times(rng, rate_per_min, duration_s):
    """Sorted event times of a Poisson process of ``rate_per_min`` events per minute on [0,
    duration_s)."""
    k = int(rng.poisson(rate_per_min * duration_s / 60.0))
    return np.sort(rng.uniform(0.0, duration_s, k))


def _insert_ectopic_runs(rng, beat_times, runs_per_min, run_beats, prematurity, duration_s):
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
    for tau in _poisson_times(rng, runs_per_min, duration_s):
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


def _morphology_state(rng, beat_times, duration_s, t_slow, step_rate_per_min, step_size, drift,
                      drift_period_s):
    """Per-beat log-gain of each wave and frontal/horizontal axis offsets (deg).

    The state ``m(t_k)`` (7 numbers: log-gains of P, Q, R, S, T, frontal and
    horizontal axis offsets in units of 45 degrees) is
    ``m(t_k) = sum_{tau_j <= t_k} s eps_j + delta u(t_k) v``, with
    ``eps_j ~ N(0, I_7)`` per step, ``u`` one smooth unit-variance process and
    ``v`` a random direction of norm sqrt(7) (drawn once per record); the
    log-gains are weighted by :data:`_MORPH_WAVE_WEIGHTS`.
    """
    n_waves = _WAVE_CENTRES.size
    state = np.zeros((beat_times.size, n_waves + 2))
    if step_rate_per_min > 0:
        steps = _poisson_times(rng, step_rate_per_min, duration_s)
        jumps = step_size * rng.standard_normal((steps.size, n_waves + 2))
        level = np.vstack([np.zeros(n_waves + 2), np.cumsum(jumps, axis=0)])
        state += level[np.searchsorted(steps, beat_times, side="right")]
    if drift > 0:
        direction = rng.standard_normal(n_waves + 2)
        direction *= np.sqrt(n_waves + 2) / np.linalg.norm(direction)
        u = np.interp(beat_times, t_slow, _smooth_noise(rng, t_slow, drift_period_s))
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
    from scipy.signal import butter, sosfiltfilt

    sos = butter(2, [0.5, min(35.0, 0.4 * fs)], btype="bandpass", fs=fs, output="sos")

    def make(rng, m):
        t = np.arange(m) / fs
        low = np.array([_smooth_noise(rng, t, 0.3) if m > 1 else rng.standard_normal(1)
                        for _ in range(n_leads)])
        white = rng.standard_normal((n_leads, m))
        if m > 3 * 2 * sos.shape[0] * 3:
            white = sosfiltfilt(sos, white, axis=1)
            white /= max(float(white.std()), 1e-12)
        return amplitude * (low + 0.3 * white)

    return make


def _noise_burst(std, fs, n_leads):
    """Muscle-like noise: white noise high-passed at min(10 Hz, 0.2 fs), standard deviation
    ``std``."""
    from scipy.signal import butter, sosfiltfilt

    sos = butter(2, min(10.0, 0.2 * fs), btype="highpass", fs=fs, output="sos")

    def make(rng, m):
        white = rng.standard_normal((n_leads, m))
        if m > 3 * 2 * sos.shape[0] * 3:
            white = sosfiltfilt(sos, white, axis=1)
            white /= max(float(white.std()), 1e-12)
        return std * white

    return make


@dataclass(frozen=True)
class SimulationParameters:
    """The physiology and artefacts of :func:`simulate_recording` (its keyword arguments).

    Parameters
    ----------
    resp_rate_hz : float, default 0.25
        Mean respiratory rate in Hz (0.25 Hz = 15 breaths/min).
    heart_rate_bpm : float, default 70
        Mean heart rate in beats/min.
    leads : sequence of str, default ("II",)
        Leads to synthesise (names of :data:`LEAD_DIRECTIONS`, case-insensitive;
        aliases MLII, ECG → II, V → V5, MCL1 → V1). The first is the selected
        lead (``Recording.ecg``).
    rsa_bpm : float, default 4
        Respiratory sinus arrhythmia: heart-rate change in beats/min per unit of
        respiration (peak deviation for a unit-amplitude breath).
    amplitude_modulation : float, default 0.15
        Relative change of the dipole amplitude per unit of respiration.
    axis_modulation_deg : float, default 10
        Rotation of the electrical axis in the frontal plane, in degrees per
        unit of respiration.
    baseline_wander : float, default 0.1
        Standard deviation (mV) of the non-respiratory baseline drift
        (electrode impedance, movement): a smooth random process with knots
        every ``wander_period_s`` seconds, common to all leads.
    wander_period_s : float, default 10
        Knot spacing (s) of that drift; its power lies mostly below
        ``1 / (2 wander_period_s)`` Hz (0.05 Hz by default, the lower edge of
        the respiratory band). Shorter periods put non-respiratory wander
        inside the respiratory band, a hard case for methods that keep each
        beat's baseline.
    respiratory_baseline : float, default 0.05
        Baseline shift (mV) per unit of respiration (thoracic movement and
        impedance), added to every lead.
    noise_std : float, default 0.02
        Standard deviation (mV) of white measurement noise.
    resp_rate_variability : float, default 0.08
        Relative standard deviation of the slow drift of the respiratory rate.
    resp_amplitude_variability : float, default 0.15
        Relative standard deviation of the breath-to-breath amplitude.
    hrv_std_bpm : float, default 1
        Standard deviation (beats/min) of slow heart-rate variability not
        related to respiration.
    morphology_step_rate_per_min : float, default 0 (off)
        Mean number of abrupt morphology changes per minute (Poisson).
    morphology_step_size : float in [0, 1], default 0.3
        Standard deviation of each step of the morphology state (log-gain;
        times 45 degrees for the two axis offsets); see the module docstring.
    morphology_drift : float in [0, 1], default 0 (off)
        Standard deviation of the slow one-dimensional morphology drift.
    morphology_drift_period_s : float, default 60
        Knot spacing (s) of that drift (power mostly below ``1 / (2 period)`` Hz).
    ectopic_runs_per_min : float, default 0 (off)
        Mean number of ectopic runs per minute.
    ectopic_run_beats : float in [1, 30], default 4
        Mean beats per run (``1 + Poisson(mean - 1)``, at most 30).
    ectopic_prematurity : float in [0, 0.6], default 0.3
        Ectopic beats come at ``(1 - prematurity)`` times the preceding RR.
    ectopic_width : float in [1, 5], default 2.5
        QRS width of an ectopic beat relative to a normal one.
    ectopic_amplitude : float in [0, 3], default 1
        Scale of the ectopic dipoles (R about the normal height at 1).
    motion_artifact_rate_per_min : float, default 0 (off)
        Mean number of electrode-motion bursts per minute (2-8 s each).
    motion_artifact_amplitude : float, default 0.5
        Amplitude (mV) of the low-frequency motion wave (plus 30 % broadband).
    motion_contact_change_deg : float in [0, 90], default 0
        Standard deviation-like size (deg) of the turn of every lead vector
        after each motion burst (electrode contact/position change).
    noise_burst_rate_per_min : float, default 0 (off)
        Mean number of muscle-noise bursts per minute.
    noise_burst_std : float, default 0.3
        Their standard deviation (mV).
    noise_burst_min_s, noise_burst_max_s : float, default 1, 4
        Burst lengths are uniform in this range (s).
    ventilator_depth : None or float in (0, 1], default None (off)
        Mechanical ventilation: regular rate and depth, respiratory
        modulations scaled by ``ventilator_depth``.
    resp_rate_schedule_hz : sequence of float, optional
        Paced breathing: the mean respiratory rate steps through these rates (Hz),
        each held for ``resp_rate_step_s`` seconds, cycling; ``resp_rate_hz`` is then
        unused. None (default): one mean rate.
    resp_rate_step_s : float, default 60
        How long each rate of ``resp_rate_schedule_hz`` is held (s).
    apnoea_episodes : sequence of (float, float), optional
        ``(start_s, length_s)`` of each breathing pause (:func:`breathing_envelope`).
    apnoea_depth : float in [0, 1), default 0
        Breathing depth inside the episodes relative to normal: 0 is an apnoea, more a
        hypopnoea.
    sigh_times_s : sequence of float, optional
        Times (s) of sighs: one breath ``sigh_gain`` times deeper.
    sigh_gain : float in [1, 5], default 2.5
        Depth of a sigh relative to a normal breath.
    """

    resp_rate_hz: float = 0.25
    heart_rate_bpm: float = 70.0
    leads: Sequence[str] = ("II",)
    rsa_bpm: float = 4.0
    amplitude_modulation: float = 0.15
    axis_modulation_deg: float = 10.0
    baseline_wander: float = 0.1
    wander_period_s: float = 10.0
    respiratory_baseline: float = 0.05
    noise_std: float = 0.02
    resp_rate_variability: float = 0.08
    resp_amplitude_variability: float = 0.15
    hrv_std_bpm: float = 1.0
    morphology_step_rate_per_min: float = 0.0
    morphology_step_size: float = 0.3
    morphology_drift: float = 0.0
    morphology_drift_period_s: float = 60.0
    ectopic_runs_per_min: float = 0.0
    ectopic_run_beats: float = 4.0
    ectopic_prematurity: float = 0.3
    ectopic_width: float = 2.5
    ectopic_amplitude: float = 1.0
    motion_artifact_rate_per_min: float = 0.0
    motion_artifact_amplitude: float = 0.5
    motion_contact_change_deg: float = 0.0
    noise_burst_rate_per_min: float = 0.0
    noise_burst_std: float = 0.3
    noise_burst_min_s: float = 1.0
    noise_burst_max_s: float = 4.0
    ventilator_depth: float | None = None
    resp_rate_schedule_hz: Sequence[float] | None = None
    resp_rate_step_s: float = 60.0
    apnoea_episodes: Sequence[tuple[float, float]] | None = None
    apnoea_depth: float = 0.0
    sigh_times_s: Sequence[float] | None = None
    sigh_gain: float = 2.5


def simulate_recording(duration_s=300.0, fs=250.0, *, name="simulated", random_state=0,
                       **parameters):
    """Simulate an ECG recording whose respiration is known.

    Parameters
    ----------
    duration_s : float, default 300
        Length of the record in seconds.
    fs : float, default 250
        Sampling rate in Hz (of the ECG leads and of the reference respiration).
    name : str, default "simulated"
        ``Recording.name``.
    random_state : None, int or numpy.random.Generator, default 0
        Seed; the same seed gives the same record.
    **parameters
        The fields of :class:`SimulationParameters` (physiology, artefacts and leads), by
        name; unset fields keep their defaults.

    Returns
    -------
    Recording
        ``ecg`` (the first lead, mV), ``leads`` (every lead), ``resp`` (the
        respiration ``r(t)`` driving the modulations, arbitrary units, positive
        = inspiration) at ``resp_fs = fs``, ``resp_channel = "RESP"`` and
        ``breath_times`` (s, inspiration peaks; none where the breathing depth is at most
        :data:`NO_BREATH_DEPTH`).

    Raises
    ------
    ValueError
        A parameter out of range (the message names it), or an unknown lead.
    """
    chosen = SimulationParameters(**parameters)
    opts = _checked_options({"duration_s": duration_s, "fs": fs, "name": name,
                             **{f.name: getattr(chosen, f.name) for f in fields(chosen)}})
    rng = np.random.default_rng(random_state)
    # Slow processes on a 10 Hz grid, extended past the end so the last beat
    # and breath exist.
    t_slow = np.arange(int(np.ceil((opts.duration_s + 5.0) * _FS_SLOW)) + 1) / _FS_SLOW
    phase, amp, resp_slow = _draw_respiration(rng, opts, t_slow)
    beat_times, rr, ectopic = _draw_beats(rng, opts, t_slow, resp_slow)
    motion_starts, motion_lengths = _draw_motion_bursts(rng, opts)
    beat_dirs = _beat_lead_directions(rng, opts, beat_times, motion_starts, motion_lengths)
    morphology = None
    if opts.morphology_step_rate_per_min > 0 or opts.morphology_drift > 0:
        morphology = _morphology_state(rng, beat_times, opts.duration_s, t_slow,
                                       opts.morphology_step_rate_per_min,
                                       opts.morphology_step_size, opts.morphology_drift,
                                       opts.morphology_drift_period_s)
    r_beats = np.interp(beat_times, t_slow, resp_slow)
    if morphology is None and beat_dirs is None and not ectopic.any():
        ecg = _render_plain_beats(opts, beat_times, rr, r_beats)
    else:
        ecg = _render_varied_beats(opts, beat_times, rr, r_beats, ectopic, morphology, beat_dirs)
    resp = _add_sample_rate_signals(rng, opts, ecg, t_slow, amp, phase, resp_slow)
    _add_artefact_bursts(rng, opts, ecg, motion_starts, motion_lengths)
    breaths = _breath_times(phase, t_slow, opts.n / opts.fs)
    if opts.events:
        breaths = breaths[np.interp(breaths, t_slow, _envelope(opts, t_slow)) > NO_BREATH_DEPTH]
    return _assemble_recording(opts, ecg, resp, breaths)


_FS_SLOW = 10.0
"""Sampling rate (Hz) of the slow processes (respiration, heart rate, wander)."""


def _checked_options(opts):
    """The options of :func:`simulate_recording` (``duration_s``, ``fs``, ``name`` and the
    fields of :class:`SimulationParameters`), validated and converted to float, with the
    ventilator scaling applied, the leads resolved (``leads``, ``directions``, ``lead_names``)
    and ``n`` (samples); a namespace.

    Raises ``ValueError`` naming the first bad option.
    """
    from types import SimpleNamespace

    o = SimpleNamespace(**opts)
    for name in ("duration_s", "fs", "resp_rate_hz", "heart_rate_bpm"):
        setattr(o, name, _check_pos(getattr(o, name), name))
    o.rsa_bpm = _check_nonneg(o.rsa_bpm, "rsa_bpm")
    o.amplitude_modulation = _check_nonneg(o.amplitude_modulation, "amplitude_modulation")
    if o.amplitude_modulation >= 0.5:
        raise ValueError(f"amplitude_modulation must be < 0.5, got {o.amplitude_modulation!r}")
    o.axis_modulation_deg = _check_nonneg(o.axis_modulation_deg, "axis_modulation_deg")
    o.baseline_wander = _check_nonneg(o.baseline_wander, "baseline_wander")
    o.wander_period_s = _check_pos(o.wander_period_s, "wander_period_s")
    for name in ("respiratory_baseline", "noise_std", "resp_rate_variability",
                 "resp_amplitude_variability", "hrv_std_bpm", "morphology_step_rate_per_min"):
        setattr(o, name, _check_nonneg(getattr(o, name), name))
    o.morphology_step_size = _check_range(o.morphology_step_size, "morphology_step_size",
                                          0.0, 1.0)
    o.morphology_drift = _check_range(o.morphology_drift, "morphology_drift", 0.0, 1.0)
    o.morphology_drift_period_s = _check_pos(o.morphology_drift_period_s,
                                             "morphology_drift_period_s")
    o.ectopic_runs_per_min = _check_nonneg(o.ectopic_runs_per_min, "ectopic_runs_per_min")
    for name, low, high in (("ectopic_run_beats", 1.0, 30.0), ("ectopic_prematurity", 0.0, 0.6),
                            ("ectopic_width", 1.0, 5.0), ("ectopic_amplitude", 0.0, 3.0)):
        setattr(o, name, _check_range(getattr(o, name), name, low, high))
    for name in ("motion_artifact_rate_per_min", "motion_artifact_amplitude"):
        setattr(o, name, _check_nonneg(getattr(o, name), name))
    o.motion_contact_change_deg = _check_range(o.motion_contact_change_deg,
                                               "motion_contact_change_deg", 0.0, 90.0)
    for name in ("noise_burst_rate_per_min", "noise_burst_std"):
        setattr(o, name, _check_nonneg(getattr(o, name), name))
    for name in ("noise_burst_min_s", "noise_burst_max_s"):
        setattr(o, name, _check_pos(getattr(o, name), name))
    if o.noise_burst_max_s < o.noise_burst_min_s:
        raise ValueError("noise_burst_max_s must be >= noise_burst_min_s, got "
                         f"{o.noise_burst_max_s!r} < {o.noise_burst_min_s!r}")
    o.resp_rate_step_s = _check_pos(o.resp_rate_step_s, "resp_rate_step_s")
    if o.resp_rate_schedule_hz is not None:
        rates = [_check_pos(v, "resp_rate_schedule_hz") for v in o.resp_rate_schedule_hz]
        if not rates:
            raise ValueError("resp_rate_schedule_hz must be None or hold at least one rate")
        o.resp_rate_schedule_hz = np.array(rates)
    if o.ventilator_depth is not None:
        _apply_ventilator(o)
    _check_events(o)
    o.leads, o.directions, o.lead_names = _checked_leads(o.leads)
    o.n = int(round(o.duration_s * o.fs))
    if o.n < 2:
        raise ValueError("duration_s * fs must give at least 2 samples, got "
                         f"duration_s={o.duration_s!r}, fs={o.fs!r}")
    return o


def _apply_ventilator(o):
    """Check ``o.ventilator_depth`` (in (0, 1]) and set machine breathing in place: constant rate
    and tidal volume, every respiratory modulation of the ECG scaled by the depth."""
    o.ventilator_depth = _check_range(o.ventilator_depth, "ventilator_depth", 0.0, 1.0)
    if o.ventilator_depth == 0:
        raise ValueError("ventilator_depth must be None or in (0, 1], got 0.0")
    o.resp_rate_variability = _VENTILATOR_RATE_VARIABILITY
    o.resp_amplitude_variability = _VENTILATOR_AMPLITUDE_VARIABILITY
    o.rsa_bpm *= o.ventilator_depth
    o.amplitude_modulation *= o.ventilator_depth
    o.axis_modulation_deg *= o.ventilator_depth
    o.respiratory_baseline *= o.ventilator_depth


def _checked_leads(leads):
    """``(leads, directions, lead_names)``: the leads as a tuple, their unit vectors (n_leads, 3)
    and their channel names; ``ValueError`` for none, an unknown or a repeated lead."""
    if isinstance(leads, str):
        leads = (leads,)
    leads = tuple(leads)
    if not leads:
        raise ValueError("leads must name at least one lead, got ()")
    directions = np.array([_lead_direction(lead) for lead in leads])
    lead_names = [lead.strip().rstrip(",") for lead in leads]
    if len(set(lead_names)) != len(lead_names):
        raise ValueError(f"leads must not repeat a name, got {leads!r}")
    return leads, directions, lead_names


def _draw_respiration(rng, o, t_slow):
    """Respiratory phase, amplitude and ``r = amp sin(phase)`` on ``t_slow``: rate drifting
    around ``resp_rate_hz`` or the rate of the paced schedule (knots 30 s), random initial
    phase, amplitude around 1 (knots 10 s)."""
    mean = o.resp_rate_hz
    if o.resp_rate_schedule_hz is not None:
        step = (t_slow // o.resp_rate_step_s).astype(int) % o.resp_rate_schedule_hz.size
        mean = o.resp_rate_schedule_hz[step]
    rate = mean * (1.0 + o.resp_rate_variability * _smooth_noise(rng, t_slow, 30.0))
    rate = np.maximum(rate, 0.2 * mean)
    phase = 2 * np.pi * np.concatenate([[0.0],
                                        np.cumsum(0.5 * (rate[1:] + rate[:-1]) / _FS_SLOW)])
    phase += rng.uniform(0, 2 * np.pi)
    amp = 1.0 + o.resp_amplitude_variability * _smooth_noise(rng, t_slow, 10.0)
    amp = np.maximum(amp, 0.2)
    if o.events:
        amp = amp * _envelope(o, t_slow)
    return phase, amp, amp * np.sin(phase)


NO_BREATH_DEPTH = 0.25
"""Where :func:`breathing_envelope` is at most this, an inspiration peak is no breath."""

APNOEA_RAMP_S = 2.0
"""Breathing fades out over this long (s) before an episode and back in after it."""


def breathing_envelope(t, *, episodes=(), depth=0.0, sighs=(), sigh_gain=2.5,
                       breath_s=4.0) -> np.ndarray:
    """Relative breathing depth at the times ``t`` (s): ``depth`` throughout each
    ``(start_s, length_s)`` of ``episodes``, reached and left over raised-cosine ramps of
    :data:`APNOEA_RAMP_S` outside it, 1 elsewhere; times
    ``1 + (sigh_gain - 1) exp(-(t - s)^2 / (2 (breath_s / 3)^2))`` for each sigh time ``s``.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.simulate import breathing_envelope
    >>> breathing_envelope(np.array([0.0, 10.0, 20.0, 30.0, 40.0]),
    ...                    episodes=[(10.0, 20.0)]).tolist()
    [1.0, 0.0, 0.0, 0.0, 1.0]
    """
    t = np.asarray(t, dtype=float)
    env = np.ones(t.size)
    for start, length in episodes:
        into = np.clip(np.minimum(t - start, start + length - t) / APNOEA_RAMP_S + 1.0, 0.0, 1.0)
        env = np.minimum(env, 1.0 - (1.0 - depth) * 0.5 * (1.0 - np.cos(np.pi * into)))
    for s in sighs:
        env = env * (1.0 + (sigh_gain - 1.0) * np.exp(-0.5 * ((t - s) / (breath_s / 3.0)) ** 2))
    return env


def _envelope(o, t_slow):
    """:func:`breathing_envelope` of the options' events (breath length from the mean rate)."""
    return breathing_envelope(t_slow, episodes=o.apnoea_episodes, depth=o.apnoea_depth,
                              sighs=o.sigh_times_s, sigh_gain=o.sigh_gain,
                              breath_s=1.0 / o.resp_rate_hz)


def _check_events(o):
    """Check the breathing events of ``o`` in place (tuples of floats; ``o.events`` is whether
    any is set)."""
    episodes = [] if o.apnoea_episodes is None else list(o.apnoea_episodes)
    try:
        o.apnoea_episodes = [(float(a), _check_pos(b, "apnoea_episodes length"))
                             for a, b in episodes]
    except (TypeError, ValueError) as exc:
        raise ValueError("apnoea_episodes must be (start_s, length_s) pairs with positive "
                         f"lengths, got {o.apnoea_episodes!r}") from exc
    o.apnoea_depth = _check_range(o.apnoea_depth, "apnoea_depth", 0.0, 1.0)
    o.sigh_times_s = [float(v) for v in (o.sigh_times_s or ())]
    o.sigh_gain = _check_range(o.sigh_gain, "sigh_gain", 1.0, 5.0)
    o.events = bool(o.apnoea_episodes or o.sigh_times_s)


def _draw_beats(rng, o, t_slow, resp_slow):
    """``(beat_times, rr, ectopic)`` up to ``duration_s + 1``: sinus beats from the heart rate
    (mean + RSA + HRV, knots 20 s) with the first beat within the first RR interval, then the
    ectopic runs when enabled (``rr`` recomputed, ``ectopic`` marks their beats)."""
    hr = (o.heart_rate_bpm + o.rsa_bpm * resp_slow
          + o.hrv_std_bpm * _smooth_noise(rng, t_slow, 20.0))
    hr = np.clip(hr, 0.3 * o.heart_rate_bpm, 3.0 * o.heart_rate_bpm)
    cycles = np.concatenate([[0.0], np.cumsum(0.5 * (hr[1:] + hr[:-1]) / 60.0 / _FS_SLOW)])
    cycles += rng.uniform(0.2, 0.8)  # first beat within the first RR interval
    k = np.arange(np.ceil(cycles[0]), np.floor(cycles[-1]) + 1)
    beat_times_all = np.interp(k, cycles, t_slow)
    rr = np.diff(beat_times_all, prepend=beat_times_all[0] - 60.0 / o.heart_rate_bpm)
    keep = beat_times_all < o.duration_s + 1.0
    beat_times, rr = beat_times_all[keep], rr[keep]
    ectopic = np.zeros(beat_times.size, dtype=bool)
    if o.ectopic_runs_per_min > 0:
        beat_times, ectopic = _insert_ectopic_runs(rng, beat_times, o.ectopic_runs_per_min,
                                                   o.ectopic_run_beats,
                                                   o.ectopic_prematurity, o.duration_s)
        rr = np.diff(beat_times, prepend=beat_times[0] - 60.0 / o.heart_rate_bpm)
    return beat_times, rr, ectopic


def _draw_motion_bursts(rng, o):
    """Start times and lengths (2-8 s) of the electrode-motion bursts, or ``(None, None)`` when
    motion is off (no rate, or neither amplitude nor contact change)."""
    motion = o.motion_artifact_rate_per_min > 0 and (o.motion_artifact_amplitude > 0
                                                     or o.motion_contact_change_deg > 0)
    if not motion:
        return None, None
    starts = _poisson_times(rng, o.motion_artifact_rate_per_min, o.n / o.fs)
    return starts, rng.uniform(2.0, 8.0, starts.size)


def _beat_lead_directions(rng, o, beat_times, motion_starts, motion_lengths):
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


def _render_plain_beats(o, beat_times, rr, r_beats):
    """ECG (n_leads, n) of normal beats whose dipoles only breathe: rotation about the sagittal
    axis (frontal plane) by ``axis_modulation_deg * r`` and scaling by
    ``1 + amplitude_modulation * r``, projected on the fixed lead vectors."""
    angle = np.deg2rad(o.axis_modulation_deg) * r_beats
    gain = 1.0 + o.amplitude_modulation * r_beats
    directions = o.directions
    cos_a, sin_a = np.cos(angle), np.sin(angle)
    dx, dy, dz = _WAVE_DIPOLES.T  # (n_waves,)
    rot_x = cos_a[:, None] * dx - sin_a[:, None] * dy  # (n_beats, n_waves)
    rot_y = sin_a[:, None] * dx + cos_a[:, None] * dy
    rot_z = np.broadcast_to(dz, rot_x.shape)
    coeffs = gain[None, :, None] * (
        directions[:, 0, None, None] * rot_x + directions[:, 1, None, None] * rot_y
        + directions[:, 2, None, None] * rot_z
    )
    return _render_beats(o.n, o.fs, beat_times, coeffs, rr)


def _render_varied_beats(o, beat_times, rr, r_beats, ectopic, morphology, beat_dirs):
    """ECG (n_leads, n) with per-beat dipoles (n_beats, n_waves, 3): wave table of the beat's
    kind (normal or ectopic), morphology gains, frontal rotation (respiration + morphology),
    horizontal rotation (morphology), respiratory scaling; projected on the per-beat lead vectors
    ``beat_dirs`` (or the fixed ones when ``None``). ``morphology`` is the
    :func:`_morphology_state` triple or ``None``."""
    angle = np.deg2rad(o.axis_modulation_deg) * r_beats
    gain = 1.0 + o.amplitude_modulation * r_beats
    if beat_dirs is None:
        beat_dirs = o.directions[:, None, :]
    dip = np.where(ectopic[:, None, None], o.ectopic_amplitude * _ECTOPIC_DIPOLES, _WAVE_DIPOLES)
    if morphology is not None:
        log_gain, theta_deg, psi_deg = morphology
        dip = dip * np.exp(log_gain)[:, :, None]
        angle = angle + np.deg2rad(theta_deg)
        psi = np.deg2rad(psi_deg)[:, None]
    else:
        psi = np.zeros((beat_times.size, 1))
    cos_a, sin_a = np.cos(angle)[:, None], np.sin(angle)[:, None]
    dx, dy, dz = dip[..., 0], dip[..., 1], dip[..., 2]
    rot_x = cos_a * dx - sin_a * dy
    rot_y = sin_a * dx + cos_a * dy
    rot_x, rot_z = (np.cos(psi) * rot_x + np.sin(psi) * dz,
                    -np.sin(psi) * rot_x + np.cos(psi) * dz)
    coeffs = gain[None, :, None] * (
        beat_dirs[:, :, 0, None] * rot_x + beat_dirs[:, :, 1, None] * rot_y
        + beat_dirs[:, :, 2, None] * rot_z
    )
    ecg = _render_beats(o.n, o.fs, beat_times[~ectopic], coeffs[:, ~ectopic], rr[~ectopic])
    if ectopic.any():
        widths = _WAVE_WIDTHS * np.array([1.0, o.ectopic_width, o.ectopic_width,
                                          o.ectopic_width, 1.3])
        ecg += _render_beats(o.n, o.fs, beat_times[ectopic], coeffs[:, ectopic], rr[ectopic],
                             centres=_ECTOPIC_CENTRES, widths=widths)
    return ecg


def _add_sample_rate_signals(rng, o, ecg, t_slow, amp, phase, resp_slow):
    """Add the baseline wander (non-respiratory + respiratory) and white noise to ``ecg`` in
    place and return the respiration at the sample rate; in chunks so that temporaries stay
    small."""
    n = o.n
    resp = np.empty(n)
    wander_slow = (o.baseline_wander * _smooth_noise(rng, t_slow, o.wander_period_s)
                   + o.respiratory_baseline * resp_slow)
    chunk = 1 << 20
    for i0 in range(0, n, chunk):
        t = np.arange(i0, min(i0 + chunk, n), dtype=np.float64) / o.fs
        resp[i0 : i0 + t.size] = np.interp(t, t_slow, amp) * np.sin(np.interp(t, t_slow, phase))
        ecg[:, i0 : i0 + t.size] += np.interp(t, t_slow, wander_slow)
        if o.noise_std > 0:
            ecg[:, i0 : i0 + t.size] += o.noise_std * rng.standard_normal((len(o.leads), t.size))
    return resp


def _add_artefact_bursts(rng, o, ecg, motion_starts, motion_lengths):
    """Add the non-respiratory bursts to ``ecg`` in place, last (the rest of the record is
    unchanged by them): electrode motion, then muscle noise."""
    if motion_starts is not None and o.motion_artifact_amplitude > 0:
        _add_bursts(rng, ecg, o.fs, motion_starts, motion_lengths,
                    _motion_artifact(o.motion_artifact_amplitude, o.fs, len(o.leads)))
    if o.noise_burst_rate_per_min > 0 and o.noise_burst_std > 0:
        starts = _poisson_times(rng, o.noise_burst_rate_per_min, o.n / o.fs)
        _add_bursts(rng, ecg, o.fs, starts,
                    rng.uniform(o.noise_burst_min_s, o.noise_burst_max_s, starts.size),
                    _noise_burst(o.noise_burst_std, o.fs, len(o.leads)))


def _breath_times(phase, t_slow, duration_s):
    """Inspiration peaks (s) in [0, duration_s): phase = pi/2 (mod 2 pi); phase is increasing."""
    m = np.arange(np.ceil((phase[0] - np.pi / 2) / (2 * np.pi)),
                  np.floor((phase[-1] - np.pi / 2) / (2 * np.pi)) + 1)
    breath_times = np.interp(np.pi / 2 + 2 * np.pi * m, phase, t_slow)
    return breath_times[(breath_times >= 0) & (breath_times < duration_s)]


def _assemble_recording(o, ecg, resp, breath_times):
    """The :class:`~edr.io.recording.Recording` of the simulated leads (the first is ``ecg``)
    and respiration."""
    from edr.io.recording import Recording

    lead_names = o.lead_names
    lead_arrays = {name_: ecg[i] for i, name_ in enumerate(lead_names)}
    return Recording(
        name=o.name,
        fs=o.fs,
        ecg=lead_arrays[lead_names[0]],
        ecg_channel=lead_names[0],
        leads=lead_arrays,
        resp=resp,
        resp_fs=o.fs,
        resp_channel="RESP",
        breath_times=breath_times,
        channels=[*lead_names, "RESP"],
        path=None,
    )


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
    """
    if not isinstance(name, str) or name not in SCENARIOS:
        raise ValueError(f"unknown scenario {name!r}; valid scenarios are {sorted(SCENARIOS)}")
    return simulate_recording(duration_s, fs, leads=leads, name=name, random_state=random_state,
                              **SCENARIOS[name])
