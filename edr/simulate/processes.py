"""The random processes of the simulator: smooth noise and Poisson event times."""

from __future__ import annotations

import numpy as np

from edr.dsp.spline import cubic_spline

__all__ = ["poisson_times", "smooth_noise"]


def smooth_noise(rng, t, knot_spacing_s):
    """Zero-mean, unit-variance-at-the-knots smooth random process on ``t``.

    Independent N(0, 1) values at knots every ``knot_spacing_s`` seconds,
    joined by a cubic spline: a band-limited process with most of its power
    below ``1 / (2 knot_spacing_s)`` Hz.
    """
    n_knots = int(np.ceil((t[-1] - t[0]) / knot_spacing_s)) + 4
    knots = t[0] - knot_spacing_s + knot_spacing_s * np.arange(n_knots)
    return cubic_spline(knots, rng.standard_normal(n_knots), t)


def poisson_times(rng, rate_per_min, duration_s):
    """Sorted event times of a Poisson process of ``rate_per_min`` events per minute on [0,
    duration_s)."""
    k = int(rng.poisson(rate_per_min * duration_s / 60.0))
    return np.sort(rng.uniform(0.0, duration_s, k))
