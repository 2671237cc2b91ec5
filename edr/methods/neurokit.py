"""The NeuroKit2 peers: ``nk.ecg_rsp`` on the heart rate of the detected beats.

NeuroKit2 is imported on the first call only (its import takes seconds).
"""

from __future__ import annotations

import numpy as np

from edr.errors import SignalError
from edr.methods.segment import MethodOutput, Segment
from edr.quiet import ignored_warnings

__all__ = ["NEUROKIT_MIN_PEAKS", "NEUROKIT_VARIANTS", "neurokit_method"]

NEUROKIT_VARIANTS = ("vangent2019", "soni2019", "charlton2016", "sarkar2015")
"""The ``nk.ecg_rsp`` methods offered as ``neurokit_<variant>``."""
NEUROKIT_MIN_PEAKS = 4
"""Fewest R peaks the NeuroKit2 peers accept."""


def neurokit_method(variant):
    """The method ``neurokit_<variant>``: ``nk.ecg_rsp(nk.ecg_rate(peaks), method=variant)`` on
    every peak of the segment's beats, read at the grid points (``kind="grid"``); SignalError
    with fewer than :data:`NEUROKIT_MIN_PEAKS` peaks."""

    def method(seg: Segment) -> MethodOutput:
        import neurokit2 as nk

        peaks = np.rint(seg.beats.peaks).astype(int)
        if peaks.size < NEUROKIT_MIN_PEAKS:
            raise SignalError(f"only {peaks.size} beats in the window; neurokit_{variant} "
                              f"needs {NEUROKIT_MIN_PEAKS}")
        with ignored_warnings():
            rate = nk.ecg_rate(peaks, sampling_rate=seg.fs, desired_length=seg.ecg.size)
            rsp = nk.ecg_rsp(rate, sampling_rate=seg.fs, method=variant)
        t = seg.t0 + np.arange(rsp.size) / seg.fs
        return MethodOutput(seg.grid, np.interp(seg.grid, t, rsp), "grid")

    method.__name__ = f"neurokit_{variant}"
    method.__doc__ = (f"NeuroKit2 ``ecg_rsp(method={variant!r})`` on the heart rate of the "
                      "detected beats.")
    return method
