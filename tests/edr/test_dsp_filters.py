"""edr.dsp.filters against scipy.signal, the slow obviously-correct reference: the designs are
SciPy's arrays bit for bit, the steady states to rounding."""

import numpy as np
import pytest
from scipy import signal

from edr.dsp import filters

FS = (4.0, 100.0, 125.0, 250.0, 300.0, 500.0)


def _bands(fs):
    """The bands the library designs at ``fs`` (respiratory band-pass, reference low-pass,
    NeuroKit2's cleaning high-pass, the simulator's artefacts) and random ones."""
    rng = np.random.default_rng(int(fs))
    lo, hi = np.sort(rng.uniform(0.01, 0.49, 2)) * fs
    return [("bandpass", (0.05, 1.0)), ("lowpass", 0.35 * 4.0), ("highpass", 0.5),
            ("bandpass", (0.5, min(35.0, 0.4 * fs))), ("highpass", min(10.0, 0.2 * fs)),
            ("bandpass", (lo, hi)), ("lowpass", hi), ("highpass", lo)]


@pytest.mark.parametrize("fs", FS)
@pytest.mark.parametrize("order", range(1, 9))
def test_butter_is_scipys_bit_for_bit(fs, order):
    for btype, band in _bands(fs):
        if np.max(band) >= fs / 2:
            continue
        np.testing.assert_array_equal(
            filters.butter(order, band, btype, fs),
            signal.butter(order, band, btype=btype, fs=fs, output="sos"), err_msg=btype)


@pytest.mark.parametrize("bad", [dict(btype="bandstop"), dict(order=0), dict(band=(0.05,)),
                                 dict(band=(0.05, 2.0)), dict(band=0.0, btype="lowpass")])
def test_butter_rejects_bad_arguments(bad):
    args = dict(order=4, band=(0.05, 1.0), btype="bandpass", fs=4.0) | bad
    with pytest.raises(ValueError):
        filters.butter(**args)


@pytest.mark.parametrize("fs", FS)
@pytest.mark.parametrize("order", range(1, 9))
def test_sosfilt_zi_is_scipys(fs, order):
    for btype, band in _bands(fs):
        if np.max(band) >= fs / 2:
            continue
        sos = signal.butter(order, band, btype=btype, fs=fs, output="sos")
        np.testing.assert_allclose(filters.sosfilt_zi(sos), signal.sosfilt_zi(sos),
                                   rtol=1e-12, atol=1e-12 * np.abs(signal.sosfilt_zi(sos)).max())


def test_lfilter_zi_is_scipys():
    rng = np.random.default_rng(3)
    cases = [(np.ones(n) / n, [1.0]) for n in (2, 5, 13)]
    cases += [signal.butter(k, 0.2) for k in (1, 3, 6)] + [signal.iirnotch(50.0, 30.0, 250.0)]
    cases += [(rng.standard_normal(4), [2.0, 0.3]), ([1.0], [0.0, 2.0, 0.5])]
    for b, a in cases:
        np.testing.assert_allclose(filters.lfilter_zi(b, a), signal.lfilter_zi(b, a),
                                   rtol=1e-12, atol=1e-14)
    with pytest.raises(ValueError):
        filters.lfilter_zi([1.0], [0.0])


@pytest.mark.parametrize("fs", FS)
def test_iirnotch_is_scipys_bit_for_bit(fs):
    for line in (50.0, 60.0, 100.0, 120.0, 0.1 * fs, 0.45 * fs):
        if line >= fs / 2:
            continue
        for q in (10.0, 30.0):
            for got, want in zip(filters.iirnotch(line, q, fs), signal.iirnotch(line, q, fs),
                                 strict=True):
                np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError):
        filters.iirnotch(0.6 * fs, 30.0, fs)


@pytest.mark.parametrize("up", [2, 3, 5, 10, 16])
def test_firwin_kaiser_is_scipys_bit_for_bit(up):
    n = 20 * up + 1  # the polyphase filter of resample_poly(x, up, 1)
    np.testing.assert_array_equal(filters.firwin_kaiser(n, 1.0 / up, 5.0),
                                  signal.firwin(n, 1.0 / up, window=("kaiser", 5.0)))
    for numtaps, cutoff, beta in ((7, 0.3, 0.0), (64, 0.7, 8.6)):
        np.testing.assert_allclose(filters.firwin_kaiser(numtaps, cutoff, beta),
                                   signal.firwin(numtaps, cutoff, window=("kaiser", beta)),
                                   rtol=1e-13, atol=1e-15)
    with pytest.raises(ValueError):
        filters.firwin_kaiser(11, 1.0, 5.0)
