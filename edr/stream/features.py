"""Per-beat QRS features of a stream's lead, kept once a beat is settled: :class:`FeatureCache`.

The projected stream reads the QRS window, R amplitude and QRS area of every beat of its recent
stretch at every update (and of the whole span at every refit), and the same settled beats come
back update after update. Their features depend only on the ECG around the beat and on the beat's
position and polarity, which a settled beat keeps (:class:`edr.stream.beats.BeatTracker`); they
are computed once and looked up by the beat's absolute position. Beats not yet settled are
computed afresh and not kept (the next update detects them again). The cache is cleared when the
lead's polarity changes and when :meth:`FeatureCache.clear` is called (the stream does at every
mains-line search, whose notch changes the ECG the features were read from).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from edr.methods import Segment

__all__ = ["FEATURES", "FeatureCache"]

FEATURES = ("none", "r_amplitude", "qrs_area")
"""The per-beat features kept (:attr:`edr.methods.Segment.features` names): the QRS matrix
without baseline (the kernel components' ``"centred"`` matrix derives from it), the R amplitude
and the QRS area."""


class FeatureCache:
    """The features of one lead's settled beats, by absolute position (module docstring)."""

    def __init__(self):
        self.clear()

    def clear(self) -> None:
        """Forget every beat."""
        self._pos = np.empty(0)  # absolute positions (samples), increasing
        self._values: dict = {}
        self._polarity = None

    def __len__(self) -> int:
        return self._pos.size

    def segment(self, ecg: np.ndarray, fs: float, start: int, beats, grid: np.ndarray,
                fs_out: float, lead: str, settled_before: float, forget_before: float) -> Segment:
        """The :class:`edr.methods.Segment` of ``ecg`` (the samples from absolute sample
        ``start``, ``beats`` relative to it) with :data:`FEATURES` filled: looked up for the
        beats kept, computed for the others, kept for those before absolute sample
        ``settled_before``; the beats kept from before ``forget_before`` are forgotten."""
        if beats.polarity != self._polarity:
            self.clear()
            self._polarity = beats.polarity
        seg = Segment(ecg, fs, start / fs, beats, grid, fs_out, lead)
        pos = start + np.asarray(beats.peaks, dtype=float)
        j = np.clip(np.searchsorted(self._pos, pos), 0, max(self._pos.size - 1, 0))
        known = (self._pos[j] == pos) if self._pos.size else np.zeros(pos.size, dtype=bool)
        new = ~known
        if not known.any():
            _computed(seg)  # every beat new: the segment reads its own features
        else:
            fresh = (_computed(Segment(ecg, fs, start / fs, _subset(beats, new), grid, fs_out,
                                       lead)) if new.any() else {})
            for name in FEATURES:
                out = np.empty((pos.size,) + self._values[name].shape[1:])
                out[known] = self._values[name][j[known]]
                if new.any():
                    out[new] = fresh[name]
                seg.features[name] = out
        self._keep(pos, seg.features, forget_before, new & (pos < settled_before))
        return seg

    def _keep(self, pos: np.ndarray, values: dict, forget_before: float,
              add: np.ndarray) -> None:
        """Add the beats ``add`` of ``pos`` and forget those before ``forget_before``."""
        old = self._pos >= forget_before
        merged = np.concatenate([self._pos[old], pos[add]])
        order = np.argsort(merged, kind="stable")
        for name in FEATURES:
            kept = self._values[name][old] if self._pos.size else values[name][:0]
            self._values[name] = np.concatenate([kept, values[name][add]])[order]
        self._pos = merged[order]


def _computed(seg: Segment) -> dict:
    """:data:`FEATURES` of ``seg``'s beats, read from its ECG (and left in ``seg.features``)."""
    seg.matrix("none")
    seg.r_amplitudes()
    seg.qrs_areas()
    return {name: seg.features[name] for name in FEATURES}


def _subset(beats, rows: np.ndarray):
    """``beats`` restricted to ``rows`` (the per-beat arrays)."""
    return replace(beats, peaks=beats.peaks[rows], valid=beats.valid[rows],
                   template_corr=beats.template_corr[rows], clipped=beats.clipped[rows],
                   ectopic=beats.ectopic[rows])
