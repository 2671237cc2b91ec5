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

Everything is vectorised; beats are rendered in blocks and the sample-rate
signals in chunks, so a 24-hour record at 250 Hz takes a few seconds and
memory close to that of the output arrays (float64, 8 bytes per sample per
lead plus the respiration).
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.interpolate import CubicSpline

__all__ = ["LEAD_DIRECTIONS", "simulate_recording"]


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


def _render_beats(n, fs, beat_times, coeffs, rr, block=8192):
    """Sum the Gaussian waves of every beat into ``n`` samples per lead.

    ``coeffs`` is (n_leads, n_beats, n_waves): the projected, modulated dipole
    of each wave of each beat. The T wave's delay scales with sqrt(RR) as in
    ECGSYN. Each Gaussian is evaluated on +-4.5 widths around its centre (it
    is below 4e-5 of its peak beyond) and scattered, a block of beats at a
    time, into its contiguous span with ``np.bincount``.
    """
    out = np.zeros((coeffs.shape[0], n))
    delay_scale = np.sqrt(np.clip(rr, 0.3, 2.0))
    for w, (centre, width) in enumerate(zip(_WAVE_CENTRES, _WAVE_WIDTHS)):
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


def simulate_recording(
    duration_s=300.0,
    fs=250.0,
    *,
    resp_rate_hz=0.25,
    heart_rate_bpm=70.0,
    leads=("II",),
    rsa_bpm=4.0,
    amplitude_modulation=0.15,
    axis_modulation_deg=10.0,
    baseline_wander=0.1,
    wander_period_s=10.0,
    respiratory_baseline=0.05,
    noise_std=0.02,
    resp_rate_variability=0.08,
    resp_amplitude_variability=0.15,
    hrv_std_bpm=1.0,
    name="simulated",
    random_state=0,
):
    """Simulate an ECG recording whose respiration is known.

    Parameters
    ----------
    duration_s : float, default 300
        Length of the record in seconds.
    fs : float, default 250
        Sampling rate in Hz (of the ECG leads and of the reference respiration).
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
    name : str, default "simulated"
        ``Recording.name``.
    random_state : None, int or numpy.random.Generator, default 0
        Seed; the same seed gives the same record.

    Returns
    -------
    Recording
        ``ecg`` (the first lead, mV), ``leads`` (every lead), ``resp`` (the
        respiration ``r(t)`` driving the modulations, arbitrary units, positive
        = inspiration) at ``resp_fs = fs``, ``resp_channel = "RESP"`` and
        ``breath_times`` (s, inspiration peaks).

    Raises
    ------
    ValueError
        A parameter out of range (the message names it), or an unknown lead.
    """
    from edr.io.recording import Recording

    duration_s = _check_pos(duration_s, "duration_s")
    fs = _check_pos(fs, "fs")
    resp_rate_hz = _check_pos(resp_rate_hz, "resp_rate_hz")
    heart_rate_bpm = _check_pos(heart_rate_bpm, "heart_rate_bpm")
    rsa_bpm = _check_nonneg(rsa_bpm, "rsa_bpm")
    amplitude_modulation = _check_nonneg(amplitude_modulation, "amplitude_modulation")
    if amplitude_modulation >= 0.5:
        raise ValueError(f"amplitude_modulation must be < 0.5, got {amplitude_modulation!r}")
    axis_modulation_deg = _check_nonneg(axis_modulation_deg, "axis_modulation_deg")
    baseline_wander = _check_nonneg(baseline_wander, "baseline_wander")
    wander_period_s = _check_pos(wander_period_s, "wander_period_s")
    respiratory_baseline = _check_nonneg(respiratory_baseline, "respiratory_baseline")
    noise_std = _check_nonneg(noise_std, "noise_std")
    resp_rate_variability = _check_nonneg(resp_rate_variability, "resp_rate_variability")
    resp_amplitude_variability = _check_nonneg(resp_amplitude_variability, "resp_amplitude_variability")
    hrv_std_bpm = _check_nonneg(hrv_std_bpm, "hrv_std_bpm")
    if isinstance(leads, str):
        leads = (leads,)
    leads = tuple(leads)
    if not leads:
        raise ValueError("leads must name at least one lead, got ()")
    directions = np.array([_lead_direction(lead) for lead in leads])
    lead_names = [lead.strip().rstrip(",") for lead in leads]
    if len(set(lead_names)) != len(lead_names):
        raise ValueError(f"leads must not repeat a name, got {leads!r}")
    n = int(round(duration_s * fs))
    if n < 2:
        raise ValueError(f"duration_s * fs must give at least 2 samples, got duration_s={duration_s!r}, fs={fs!r}")
    rng = np.random.default_rng(random_state)

    # Slow processes on a 10 Hz grid, extended past the end so the last beat
    # and breath exist.
    fs_slow = 10.0
    t_slow = np.arange(int(np.ceil((duration_s + 5.0) * fs_slow)) + 1) / fs_slow
    rate = resp_rate_hz * (1.0 + resp_rate_variability * _smooth_noise(rng, t_slow, 30.0))
    rate = np.maximum(rate, 0.2 * resp_rate_hz)
    phase = 2 * np.pi * np.concatenate([[0.0], np.cumsum(0.5 * (rate[1:] + rate[:-1]) / fs_slow)])
    phase += rng.uniform(0, 2 * np.pi)
    amp = 1.0 + resp_amplitude_variability * _smooth_noise(rng, t_slow, 10.0)
    amp = np.maximum(amp, 0.2)
    resp_slow = amp * np.sin(phase)

    hr = heart_rate_bpm + rsa_bpm * resp_slow + hrv_std_bpm * _smooth_noise(rng, t_slow, 20.0)
    hr = np.clip(hr, 0.3 * heart_rate_bpm, 3.0 * heart_rate_bpm)
    cycles = np.concatenate([[0.0], np.cumsum(0.5 * (hr[1:] + hr[:-1]) / 60.0 / fs_slow)])
    cycles += rng.uniform(0.2, 0.8)  # first beat within the first RR interval
    k = np.arange(np.ceil(cycles[0]), np.floor(cycles[-1]) + 1)
    beat_times_all = np.interp(k, cycles, t_slow)
    rr = np.diff(beat_times_all, prepend=beat_times_all[0] - 60.0 / heart_rate_bpm)
    keep = beat_times_all < duration_s + 1.0
    beat_times, rr = beat_times_all[keep], rr[keep]

    # Per-beat modulation of the dipole: rotation about the sagittal axis
    # (frontal plane) and scaling, both driven by r(t_k).
    r_beats = np.interp(beat_times, t_slow, resp_slow)
    angle = np.deg2rad(axis_modulation_deg) * r_beats
    gain = 1.0 + amplitude_modulation * r_beats
    cos_a, sin_a = np.cos(angle), np.sin(angle)
    dx, dy, dz = _WAVE_DIPOLES.T  # (n_waves,)
    rot_x = cos_a[:, None] * dx - sin_a[:, None] * dy  # (n_beats, n_waves)
    rot_y = sin_a[:, None] * dx + cos_a[:, None] * dy
    rot_z = np.broadcast_to(dz, rot_x.shape)
    coeffs = gain[None, :, None] * (
        directions[:, 0, None, None] * rot_x + directions[:, 1, None, None] * rot_y + directions[:, 2, None, None] * rot_z
    )
    ecg = _render_beats(n, fs, beat_times, coeffs, rr)

    # Sample-rate signals, in chunks so that temporaries stay small.
    resp = np.empty(n)
    wander_slow = baseline_wander * _smooth_noise(rng, t_slow, wander_period_s) + respiratory_baseline * resp_slow
    chunk = 1 << 20
    for i0 in range(0, n, chunk):
        t = np.arange(i0, min(i0 + chunk, n), dtype=np.float64) / fs
        resp[i0 : i0 + t.size] = np.interp(t, t_slow, amp) * np.sin(np.interp(t, t_slow, phase))
        if wander_slow is not None:
            ecg[:, i0 : i0 + t.size] += np.interp(t, t_slow, wander_slow)
        if noise_std > 0:
            ecg[:, i0 : i0 + t.size] += noise_std * rng.standard_normal((len(leads), t.size))

    # Inspiration peaks: phase = pi/2 (mod 2 pi); phase is increasing.
    m = np.arange(np.ceil((phase[0] - np.pi / 2) / (2 * np.pi)), np.floor((phase[-1] - np.pi / 2) / (2 * np.pi)) + 1)
    breath_times = np.interp(np.pi / 2 + 2 * np.pi * m, phase, t_slow)
    breath_times = breath_times[(breath_times >= 0) & (breath_times < n / fs)]

    lead_arrays = {name_: ecg[i] for i, name_ in enumerate(lead_names)}
    return Recording(
        name=name,
        fs=fs,
        ecg=lead_arrays[lead_names[0]],
        ecg_channel=lead_names[0],
        leads=lead_arrays,
        resp=resp,
        resp_fs=fs,
        resp_channel="RESP",
        breath_times=breath_times,
        channels=[*lead_names, "RESP"],
        path=None,
    )
