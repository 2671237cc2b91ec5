"""edr.zero_phase against SciPy's forward-backward filters: bit for bit."""

import numpy as np
import pytest
from scipy import signal

from edr import zero_phase


@pytest.mark.parametrize("shape", [(500,), (3, 400), (28,)])
def test_sosfiltfilt_is_scipys_bit_for_bit(shape):
    x = np.random.default_rng(0).standard_normal(shape).cumsum(axis=-1)
    for sos in (signal.butter(5, 0.5, "highpass", fs=125.0, output="sos"),
                signal.butter(4, [0.1, 1.0], "bandpass", fs=4.0, output="sos"),
                signal.butter(1, 0.3, output="sos")):  # a section with zero taps
        for _ in range(2):  # the second call reads the cached initial conditions
            np.testing.assert_array_equal(zero_phase.sosfiltfilt(sos, x),
                                          signal.sosfiltfilt(sos, x))
            np.testing.assert_array_equal(zero_phase.sosfiltfilt(sos, x, padlen=7),
                                          signal.sosfiltfilt(sos, x, padlen=7))


@pytest.mark.parametrize("shape", [(500,), (2, 300)])
def test_filtfilt_is_scipys_bit_for_bit(shape):
    x = np.random.default_rng(1).standard_normal(shape)
    for b, a in ((np.ones(2), [2.0]), (np.array([1.0, 1.0, 0.5]), [2.5]),
                 signal.butter(3, 0.2), signal.iirnotch(50.0, 30.0, 250.0),
                 (np.array([0.3, 0.2]), np.array([2.0, -0.4, 0.1])), signal.butter(8, 0.05)):
        for _ in range(2):
            np.testing.assert_array_equal(zero_phase.filtfilt(b, a, x),
                                          signal.filtfilt(b, a, x, method="pad"))


def test_too_short_input_raises_scipys_error():
    sos = signal.butter(5, 0.5, "highpass", fs=125.0, output="sos")
    with pytest.raises(ValueError, match="padlen"):
        zero_phase.sosfiltfilt(sos, np.ones(10))
    with pytest.raises(ValueError, match="padlen"):
        zero_phase.filtfilt(np.ones(5), [5.0], np.ones(10))
    unnormalised = sos.copy()
    unnormalised[:, 3] = 2.0
    with pytest.raises(ValueError, match=r"sos\[:, 3\] should be all ones"):
        zero_phase.sosfiltfilt(unnormalised, np.ones(100))
