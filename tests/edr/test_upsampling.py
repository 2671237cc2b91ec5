"""edr.upsampling against scipy.signal.resample_poly: the same fine samples, by the compiled loop
(small blocks) and by NumPy (large blocks)."""

import numpy as np
import pytest
from scipy import signal

import edr.upsampling as upsampling
from edr.upsampling import COMPILED_MAX_ROWS, MARGIN, neighbourhoods_upsampled

PATHS = {"numpy": -1, "compiled": 10**9}
"""``COMPILED_MAX_ROWS`` that sends every block down one path."""


def _reference(x, centres, up, half):
    """``resample_poly`` of each centre's neighbourhood (edge values held), cut to the fine
    samples asked for."""
    h = half + MARGIN
    rows = np.pad(x, h, mode="edge")[centres[:, None] + h + np.arange(-h, h + 1)[None, :]]
    ref = signal.resample_poly(rows, up, 1, axis=1)
    return ref[:, (h - half) * up:(h + half) * up + 1]


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize(("up", "half"),
                         [(10, 14), (10, 12), (2, 12), (3, 4), (10, 0), (4, 60), (3, 0)])
def test_neighbourhoods_are_resample_polys_fine_samples(up, half, path, monkeypatch):
    monkeypatch.setattr(upsampling, "COMPILED_MAX_ROWS", PATHS[path])
    x = np.random.default_rng(up + half).standard_normal(300).cumsum()
    centres = np.array([0, 5, 150, 290, 299])  # edges held beyond both ends
    got = neighbourhoods_upsampled(x, centres, up, half)
    np.testing.assert_array_equal(got, _reference(x, centres, up, half))


@pytest.mark.parametrize(("up", "half", "n_beats"), [(10, 14, 20), (10, 27, 45), (10, 14, 300)])
def test_both_paths_give_the_same_bits(up, half, n_beats, monkeypatch):
    """A stream's search (20 beats at 125 Hz, 45 at 250 Hz) and an offline block (300 beats):
    the compiled loop and NumPy agree bit for bit, and with ``resample_poly``."""
    rng = np.random.default_rng(n_beats)
    x = rng.standard_normal(20 * n_beats).cumsum()
    centres = np.sort(rng.integers(0, x.size, n_beats))
    got = {}
    for path, limit in PATHS.items():
        monkeypatch.setattr(upsampling, "COMPILED_MAX_ROWS", limit)
        got[path] = neighbourhoods_upsampled(x, centres, up, half)
    assert got["numpy"].tobytes() == got["compiled"].tobytes()
    np.testing.assert_array_equal(got["numpy"], _reference(x, centres, up, half))


def test_the_block_size_chooses_the_path(monkeypatch):
    """Small blocks go to the compiled loop, large ones to NumPy."""
    calls = []
    monkeypatch.setattr(upsampling, "_rows", lambda *a: calls.append("numpy"))
    monkeypatch.setattr(upsampling, "_rows_compiled", lambda *a: calls.append("compiled"))
    x = np.zeros(1000)
    for n in (COMPILED_MAX_ROWS, COMPILED_MAX_ROWS + 1):
        neighbourhoods_upsampled(x, np.arange(n), 10, 14)
    assert calls == ["compiled", "numpy"]


def test_upsampling_by_one_keeps_the_samples():
    x = np.random.default_rng(4).standard_normal(100)
    got = neighbourhoods_upsampled(x, np.array([0, 50, 99]), 1, 3)
    np.testing.assert_array_equal(got[1], x[47:54])
    np.testing.assert_array_equal(got[0], np.r_[[x[0]] * 3, x[:4]])  # edge values held
