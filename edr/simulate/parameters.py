"""The options of :func:`edr.simulate.simulate_recording` (:class:`SimulationParameters`) and
their checks: each option validated and converted once, the ventilator scaling applied and the
leads resolved (:func:`checked_options`)."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from edr.simulate.geometry import lead_direction

__all__ = ["SimulationParameters", "checked_options"]

_VENTILATOR_RATE_VARIABILITY = 0.005
_VENTILATOR_AMPLITUDE_VARIABILITY = 0.02


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
    rsa_delay_s : float, default 0
        Delay (s) of the heart rate's respiratory modulation behind the respiration (the vagal
        response lags the breath; the morphology does not), so that the heart rate and the
        morphology series are out of phase by an angle that grows with the breathing rate.
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
    bigeminy_prematurity : float in [0, 0.6], default 0 (off)
        Every second beat ectopic, at ``(1 - bigeminy_prematurity)`` times the sinus RR after
        the beat before it (wave table and ``ectopic_width`` / ``ectopic_amplitude`` of the
        ectopic runs).
    alternans : float in [0, 0.5], default 0 (off)
        Electrical alternans: beat ``k``'s dipole scaled by ``1 + alternans (-1)^k``.
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
        ``(start_s, length_s)`` of each breathing pause (:func:`edr.simulate.breathing_envelope`).
    apnoea_depth : float in [0, 1), default 0
        Breathing depth inside the episodes relative to normal: 0 is an apnoea, more a
        hypopnoea.
    sigh_times_s : sequence of float, optional
        Times (s) of sighs: one breath ``sigh_gain`` times deeper.
    sigh_gain : float in [1, 5], default 2.5
        Depth of a sigh relative to a normal breath.

    See Also
    --------
    simulate_recording : takes these fields by name.

    References
    ----------
    .. [1] P. E. McSharry, G. D. Clifford, L. Tarassenko and L. A. Smith, "A dynamical model for
       generating synthetic electrocardiogram signals," IEEE Trans. Biomed. Eng. 50(3), 289-294,
       2003. Beats as sums of Gaussian waves (ECGSYN).
    .. [2] R. Sameni, G. D. Clifford, C. Jutten and M. B. Shamsollahi, "Multichannel ECG and noise
       modeling: application to maternal and fetal ECG signals," EURASIP J. Adv. Signal Process.
       2007, 043407, 2007. The waves as vectors of the cardiac dipole, a lead as its projection.

    Examples
    --------
    >>> from edr.simulate import SimulationParameters
    >>> p = SimulationParameters(resp_rate_hz=0.2)
    >>> p.resp_rate_hz, p.leads
    (0.2, ('II',))
    """

    resp_rate_hz: float = 0.25
    heart_rate_bpm: float = 70.0
    leads: Sequence[str] = ("II",)
    rsa_bpm: float = 4.0
    rsa_delay_s: float = 0.0
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
    bigeminy_prematurity: float = 0.0
    alternans: float = 0.0
    ventilator_depth: float | None = None
    resp_rate_schedule_hz: Sequence[float] | None = None
    resp_rate_step_s: float = 60.0
    apnoea_episodes: Sequence[tuple[float, float]] | None = None
    apnoea_depth: float = 0.0
    sigh_times_s: Sequence[float] | None = None
    sigh_gain: float = 2.5


def checked_options(opts):
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
    o.rsa_delay_s = _check_nonneg(o.rsa_delay_s, "rsa_delay_s")
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
    o.bigeminy_prematurity = _check_range(o.bigeminy_prematurity, "bigeminy_prematurity", 0.0,
                                          0.6)
    o.alternans = _check_range(o.alternans, "alternans", 0.0, 0.5)
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
    directions = np.array([lead_direction(lead) for lead in leads])
    lead_names = [lead.strip().rstrip(",") for lead in leads]
    if len(set(lead_names)) != len(lead_names):
        raise ValueError(f"leads must not repeat a name, got {leads!r}")
    return leads, directions, lead_names
