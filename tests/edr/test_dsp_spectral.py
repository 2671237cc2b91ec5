"""edr.dsp.spectral against scipy.signal's Welch estimates (the protocol's Hann, half overlap,
each segment demeaned): the same values to rounding."""

import numpy as np
import pytest
from scipy import fft as sp_fft
from scipy import signal

from edr.dsp import spectral

CASES = [(480, 64, 4.0), (480, 240, 4.0), (97, 33, 4.0), (50, 64, 4.0), (2000, 250, 125.0),
         (3000, 300, 300.0), (1500, 501, 500.0), (16, 16, 100.0)]


def _kw(nperseg, fs):
    return dict(fs=fs, window="hann", nperseg=nperseg, noverlap=nperseg // 2,
                detrend="constant")


@pytest.mark.parametrize("n", [1, 2, 7, 64, 65, 256])
def test_hann_is_scipys(n):
    np.testing.assert_array_equal(spectral.hann(n), signal.get_window("hann", n))


@pytest.mark.parametrize(("n", "nperseg", "fs"), CASES)
def test_welch_csd_coherence_are_scipys(n, nperseg, fs):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).cumsum()
    y = 0.5 * x + rng.standard_normal(n)
    seg = min(nperseg, n)
    f, p = spectral.welch(x, fs, nperseg)
    f0, p0 = signal.welch(x, **_kw(seg, fs))
    np.testing.assert_array_equal(f, f0)
    np.testing.assert_allclose(p, p0, rtol=1e-12, atol=1e-14 * p0.max())
    f, pxy = spectral.csd(x, y, fs, nperseg)
    f0, pxy0 = signal.csd(x, y, **_kw(seg, fs))
    np.testing.assert_allclose(pxy, pxy0, rtol=1e-12, atol=1e-13 * np.abs(pxy0).max())
    f, c = spectral.coherence(x, y, fs, nperseg)
    f0, c0 = signal.coherence(x, y, **_kw(seg, fs))
    np.testing.assert_array_equal(f, f0)
    np.testing.assert_allclose(c, c0, rtol=1e-10, atol=1e-12)


def test_welch_of_rows_is_welch_of_each_row():
    x = np.random.default_rng(0).standard_normal((3, 400))
    f, p = spectral.welch(x, 4.0, 128)
    for row, prow in zip(x, p, strict=True):
        np.testing.assert_allclose(prow, signal.welch(row, **_kw(128, 4.0))[1], rtol=1e-12)


@pytest.mark.parametrize(("shape", "nperseg"), [((5000,), 1000), ((4999,), 255), ((300,), 300),
                                                ((700,), 64), ((31,), 2)])
def test_segment_spectra_equal_each_segment_on_its_own(shape, nperseg):
    """A series' segments read as a strided view, demeaned and windowed in one copy: each one's
    spectrum bit for bit that of the segment cut out, demeaned and windowed by itself."""
    x = np.random.default_rng(4).standard_normal(shape)
    got = spectral._segment_spectra(x, 250.0, nperseg)
    hop = nperseg - nperseg // 2
    win = spectral.density_window(nperseg, 250.0)
    for row in np.ndindex(*shape[:-1]):
        for k in range(got.shape[-2]):
            seg = x[row][k * hop:k * hop + nperseg]
            assert seg.size == nperseg
            np.testing.assert_array_equal(got[row][k], sp_fft.rfft((seg - seg.mean()) * win))
    assert got.shape[-2] == (shape[-1] - nperseg // 2) // hop
