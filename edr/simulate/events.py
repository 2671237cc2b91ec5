"""Breathing events of the simulator: apnoea and hypopnoea episodes and sighs, as an envelope that
multiplies the breathing amplitude (the options are described in :mod:`edr.simulate`)."""

from __future__ import annotations

import numpy as np

__all__ = ["APNOEA_RAMP_S", "NO_BREATH_DEPTH", "breathing_envelope", "options_envelope"]

NO_BREATH_DEPTH = 0.25
"""Where :func:`breathing_envelope` is at most this, an inspiration peak is no breath."""

APNOEA_RAMP_S = 2.0
"""Breathing fades out over this long (s) before an episode and back in after it."""


def breathing_envelope(t, *, episodes=(), depth=0.0, sighs=(), sigh_gain=2.5,
                       breath_s=4.0) -> np.ndarray:
    """Relative breathing depth at the times ``t`` (s).

    ``depth`` throughout each ``(start_s, length_s)`` of ``episodes``, reached and left over
    raised-cosine ramps of :data:`APNOEA_RAMP_S` outside it, 1 elsewhere; times
    ``1 + (sigh_gain - 1) exp(-(t - s)^2 / (2 (breath_s / 3)^2))`` for each sigh time ``s``.

    Parameters
    ----------
    t : array_like
        Times (s).
    episodes : sequence of (float, float)
        ``(start_s, length_s)`` of each breathing pause.
    depth : float
        Breathing depth inside the episodes relative to normal (0: apnoea).
    sighs : sequence of float
        Times (s) of sighs.
    sigh_gain : float
        Depth of a sigh relative to a normal breath.
    breath_s : float
        Length of one breath (s), the width of a sigh.

    Returns
    -------
    numpy.ndarray
        The envelope at ``t``.

    See Also
    --------
    edr.simulate.simulate_recording : its ``apnoea_episodes`` and ``sigh_times_s`` options.

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


def options_envelope(o, t_slow):
    """:func:`breathing_envelope` of the checked options' events (breath length from the mean
    rate)."""
    return breathing_envelope(t_slow, episodes=o.apnoea_episodes, depth=o.apnoea_depth,
                              sighs=o.sigh_times_s, sigh_gain=o.sigh_gain,
                              breath_s=1.0 / o.resp_rate_hz)
