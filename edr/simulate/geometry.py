"""The cardiac dipole, the lead directions and the rendering of beats into lead voltages.

Each beat is a sum of Gaussian waves (P, Q, R, S, T), each wave a vector of the cardiac dipole;
a lead's voltage is the projection of the dipole on the lead's direction (ECGSYN, McSharry et
al. 2003; its three-dimensional extension, Sameni et al. 2007). Normal and ectopic beats have
their own wave tables.
"""

from __future__ import annotations

import numpy as np

__all__ = ["LEAD_DIRECTIONS", "WAVE_CENTRES", "lead_direction", "render_plain_beats",
           "render_varied_beats"]


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
WAVE_CENTRES = np.array([-0.194, -0.042, 0.0, 0.042, 0.278])
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


def lead_direction(name):
    if not isinstance(name, str):
        raise ValueError(f"leads: lead names must be strings, got {name!r}")
    key = name.strip().rstrip(",").upper()
    key = _ALIASES.get(key, key)
    if key not in LEAD_DIRECTIONS:
        valid = sorted(set(LEAD_DIRECTIONS) | set(_ALIASES))
        raise ValueError(f"leads: unknown lead {name!r}; valid names are {valid}")
    return LEAD_DIRECTIONS[key]


def _render_beats(n, fs, beat_times, coeffs, rr, block=8192, centres=WAVE_CENTRES,
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


def _alternation(o, n_beats):
    """Per-beat dipole scale of electrical alternans, ``1 + alternans (-1)^k``."""
    return 1.0 + o.alternans * (1.0 - 2.0 * (np.arange(n_beats) % 2))


def render_plain_beats(o, beat_times, rr, r_beats):
    """ECG (n_leads, n) of normal beats whose dipoles only breathe: rotation about the sagittal
    axis (frontal plane) by ``axis_modulation_deg * r`` and scaling by
    ``1 + amplitude_modulation * r``, projected on the fixed lead vectors."""
    angle = np.deg2rad(o.axis_modulation_deg) * r_beats
    gain = (1.0 + o.amplitude_modulation * r_beats) * _alternation(o, r_beats.size)
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


def render_varied_beats(o, beat_times, rr, r_beats, ectopic, morphology, beat_dirs):
    """ECG (n_leads, n) with per-beat dipoles (n_beats, n_waves, 3): wave table of the beat's
    kind (normal or ectopic), morphology gains, frontal rotation (respiration + morphology),
    horizontal rotation (morphology), respiratory scaling; projected on the per-beat lead vectors
    ``beat_dirs`` (or the fixed ones when ``None``). ``morphology`` is the
    :func:`morphology_state` triple or ``None``."""
    angle = np.deg2rad(o.axis_modulation_deg) * r_beats
    gain = (1.0 + o.amplitude_modulation * r_beats) * _alternation(o, r_beats.size)
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
