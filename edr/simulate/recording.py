"""The assembly of a simulated recording: respiration, heart rhythm, beats, wander, noise and
artefacts, drawn in a fixed order from one generator (:func:`simulate_recording`)."""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from edr.simulate.artefacts import (
    add_artefact_bursts,
    beat_lead_directions,
    draw_motion_bursts,
    insert_ectopic_runs,
    morphology_state,
)
from edr.simulate.events import NO_BREATH_DEPTH, options_envelope
from edr.simulate.geometry import render_plain_beats, render_varied_beats
from edr.simulate.parameters import SimulationParameters, checked_options
from edr.simulate.processes import smooth_noise

__all__ = ["simulate_recording"]

_FS_SLOW = 10.0
"""Sampling rate (Hz) of the slow processes (respiration, heart rate, wander)."""


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
        :data:`~edr.simulate.NO_BREATH_DEPTH`).

    Raises
    ------
    ValueError
        A parameter out of range (the message names it), or an unknown lead.

    See Also
    --------
    SimulationParameters : every option.
    simulate_scenario : named sets of options.
    edr.pipeline.extract_edr : the EDR of the record.

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
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0, leads=("II", "V2"))
    >>> rec.fs, rec.ecg.shape, list(rec.leads), rec.resp_channel
    (250.0, (15000,), ['II', 'V2'], 'RESP')
    >>> rec.breath_times[:3].round(2)  # inspiration peaks, 15 breaths/min by default
    array([ 2.1 ,  6.1 , 10.07])
    """
    chosen = SimulationParameters(**parameters)
    opts = checked_options({"duration_s": duration_s, "fs": fs, "name": name,
                             **{f.name: getattr(chosen, f.name) for f in fields(chosen)}})
    rng = np.random.default_rng(random_state)
    # Slow processes on a 10 Hz grid, extended past the end so the last beat
    # and breath exist.
    t_slow = np.arange(int(np.ceil((opts.duration_s + 5.0) * _FS_SLOW)) + 1) / _FS_SLOW
    phase, amp, resp_slow = _draw_respiration(rng, opts, t_slow)
    beat_times, rr, ectopic = _draw_beats(rng, opts, t_slow, resp_slow)
    motion_starts, motion_lengths = draw_motion_bursts(rng, opts)
    beat_dirs = beat_lead_directions(rng, opts, beat_times, motion_starts, motion_lengths)
    morphology = None
    if opts.morphology_step_rate_per_min > 0 or opts.morphology_drift > 0:
        morphology = morphology_state(rng, beat_times, opts.duration_s, t_slow,
                                       opts.morphology_step_rate_per_min,
                                       opts.morphology_step_size, opts.morphology_drift,
                                       opts.morphology_drift_period_s)
    r_beats = np.interp(beat_times, t_slow, resp_slow)
    if morphology is None and beat_dirs is None and not ectopic.any():
        ecg = render_plain_beats(opts, beat_times, rr, r_beats)
    else:
        ecg = render_varied_beats(opts, beat_times, rr, r_beats, ectopic, morphology, beat_dirs)
    resp = _add_sample_rate_signals(rng, opts, ecg, t_slow, amp, phase, resp_slow)
    add_artefact_bursts(rng, opts, ecg, motion_starts, motion_lengths)
    breaths = _inspiration_times(phase, t_slow, opts.n / opts.fs)
    if opts.events:
        depth = np.interp(breaths, t_slow, options_envelope(opts, t_slow))
        breaths = breaths[depth > NO_BREATH_DEPTH]
    return _simulated_recording(opts, ecg, resp, breaths)


def _draw_respiration(rng, o, t_slow):
    """Respiratory phase, amplitude and ``r = amp sin(phase)`` on ``t_slow``: rate drifting
    around ``resp_rate_hz`` or the rate of the paced schedule (knots 30 s), random initial
    phase, amplitude around 1 (knots 10 s)."""
    mean = o.resp_rate_hz
    if o.resp_rate_schedule_hz is not None:
        step = (t_slow // o.resp_rate_step_s).astype(int) % o.resp_rate_schedule_hz.size
        mean = o.resp_rate_schedule_hz[step]
    rate = mean * (1.0 + o.resp_rate_variability * smooth_noise(rng, t_slow, 30.0))
    rate = np.maximum(rate, 0.2 * mean)
    phase = 2 * np.pi * np.concatenate([[0.0],
                                        np.cumsum(0.5 * (rate[1:] + rate[:-1]) / _FS_SLOW)])
    phase += rng.uniform(0, 2 * np.pi)
    amp = 1.0 + o.resp_amplitude_variability * smooth_noise(rng, t_slow, 10.0)
    amp = np.maximum(amp, 0.2)
    if o.events:
        amp = amp * options_envelope(o, t_slow)
    return phase, amp, amp * np.sin(phase)


def _draw_beats(rng, o, t_slow, resp_slow):
    """``(beat_times, rr, ectopic)`` up to ``duration_s + 1``: sinus beats from the heart rate
    (mean + RSA + HRV, knots 20 s) with the first beat within the first RR interval, then the
    ectopic runs when enabled (``rr`` recomputed, ``ectopic`` marks their beats)."""
    if o.rsa_delay_s > 0:
        resp_slow = np.interp(t_slow - o.rsa_delay_s, t_slow, resp_slow)
    hr = (o.heart_rate_bpm + o.rsa_bpm * resp_slow
          + o.hrv_std_bpm * smooth_noise(rng, t_slow, 20.0))
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
        beat_times, ectopic = insert_ectopic_runs(rng, beat_times, o.ectopic_runs_per_min,
                                                   o.ectopic_run_beats,
                                                   o.ectopic_prematurity, o.duration_s)
        rr = np.diff(beat_times, prepend=beat_times[0] - 60.0 / o.heart_rate_bpm)
    if o.bigeminy_prematurity > 0:
        beat_times, ectopic = _bigeminy(beat_times, ectopic, o.bigeminy_prematurity)
        rr = np.diff(beat_times, prepend=beat_times[0] - 60.0 / o.heart_rate_bpm)
    return beat_times, rr, ectopic


def _bigeminy(beat_times, ectopic, prematurity):
    """Every second beat (odd indices) made ectopic and premature: at ``(1 - prematurity)`` times
    its sinus RR after the beat before it; the beats after keep their times."""
    t = beat_times.copy()
    odd = np.arange(1, t.size, 2)
    t[odd] = t[odd - 1] + (1.0 - prematurity) * (t[odd] - t[odd - 1])
    ectopic = ectopic.copy()
    ectopic[odd] = True
    return t, ectopic


def _add_sample_rate_signals(rng, o, ecg, t_slow, amp, phase, resp_slow):
    """Add the baseline wander (non-respiratory + respiratory) and white noise to ``ecg`` in
    place and return the respiration at the sample rate; in chunks so that temporaries stay
    small."""
    n = o.n
    resp = np.empty(n)
    wander_slow = (o.baseline_wander * smooth_noise(rng, t_slow, o.wander_period_s)
                   + o.respiratory_baseline * resp_slow)
    chunk = 1 << 20
    for i0 in range(0, n, chunk):
        t = np.arange(i0, min(i0 + chunk, n), dtype=np.float64) / o.fs
        resp[i0 : i0 + t.size] = np.interp(t, t_slow, amp) * np.sin(np.interp(t, t_slow, phase))
        ecg[:, i0 : i0 + t.size] += np.interp(t, t_slow, wander_slow)
        if o.noise_std > 0:
            ecg[:, i0 : i0 + t.size] += o.noise_std * rng.standard_normal((len(o.leads), t.size))
    return resp


def _inspiration_times(phase, t_slow, duration_s):
    """Inspiration peaks (s) in [0, duration_s): phase = pi/2 (mod 2 pi); phase is increasing."""
    m = np.arange(np.ceil((phase[0] - np.pi / 2) / (2 * np.pi)),
                  np.floor((phase[-1] - np.pi / 2) / (2 * np.pi)) + 1)
    breath_times = np.interp(np.pi / 2 + 2 * np.pi * m, phase, t_slow)
    return breath_times[(breath_times >= 0) & (breath_times < duration_s)]


def _simulated_recording(o, ecg, resp, breath_times):
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
