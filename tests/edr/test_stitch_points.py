"""edr.stitch.grid_points: a window's grid points read as a slice give the stitching the same
bits as the boolean mask over the whole grid (the reference)."""

from __future__ import annotations

import numpy as np

import edr.stitch as stitch
from edr.pipeline import extract_edr
from edr.simulate import simulate_recording


def test_grid_points_are_the_masks_elements_in_order():
    rng = np.random.default_rng(3)
    x = rng.standard_normal(50)
    for a, b in ((0, 50), (7, 19), (49, 50), (0, 1)):
        mask = np.zeros(50, dtype=bool)
        mask[a:b] = True
        got = stitch.grid_points(mask)
        assert isinstance(got, slice)
        np.testing.assert_array_equal(x[got], x[mask])
    holes = np.zeros(50, dtype=bool)
    holes[[3, 4, 9]] = True
    assert stitch.grid_points(holes) is holes  # not one run: the mask itself
    empty = np.zeros(50, dtype=bool)
    assert stitch.grid_points(empty) is empty


def test_stitching_by_slices_equals_stitching_by_masks(monkeypatch):
    rec = simulate_recording(duration_s=1500.0, fs=250.0, random_state=4)
    got = extract_edr(rec, window_s=300.0)
    monkeypatch.setattr(stitch, "grid_points", lambda mask: mask)  # the whole-grid masks
    want = extract_edr(rec, window_s=300.0)
    assert len(want.windows) > 4
    for name in ("waveform", "beat_times", "beat_values", "rate_bpm", "rate_quality"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
