"""The classic series as methods: R amplitude, QRS area and the heart rate (RSA).

Each returns its per-beat series at the segment's valid beats (:mod:`edr.modulation` computes
the morphological ones, cached by :class:`Segment`).
"""

from __future__ import annotations

import numpy as np

from edr.methods.segment import MethodOutput, Segment

__all__ = ["qrs_area_edr", "r_amplitude_edr", "rsa_edr"]

def r_amplitude_edr(seg: Segment) -> MethodOutput:
    """R-wave amplitude per valid beat (:func:`edr.modulation.r_amplitude`)."""
    seg.require_beats()
    v = seg.r_amplitudes()[seg.valid]
    return MethodOutput(seg.beat_times[seg.valid], v, "beats")


def qrs_area_edr(seg: Segment) -> MethodOutput:
    """QRS area per valid beat (:func:`edr.modulation.qrs_area`)."""
    seg.require_beats()
    v = seg.qrs_areas()[seg.valid]
    return MethodOutput(seg.beat_times[seg.valid], v, "beats")


def rsa_edr(seg: Segment) -> MethodOutput:
    """Instantaneous heart rate ``60 / RR`` (bpm) at each beat closing an RR between two valid
    beats."""
    seg.require_beats()
    t = seg.beat_times
    ok = seg.valid[1:] & seg.valid[:-1]
    rr = np.diff(t)[ok]
    return MethodOutput(t[1:][ok], 60.0 / rr, "beats")
