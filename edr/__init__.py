"""edr — ECG-derived respiration with kernel PCA.

Read a recording (:func:`read_record`) or take an ECG array, extract the respiratory waveform
and rate (:func:`extract_edr` → :class:`EDRResult`, with pandas tables), draw it
(:func:`plot_record`), evaluate it (:mod:`edr.evaluate`).

``import edr`` is light: the entry points below are imported on first use (PEP 562), so
NumPy, SciPy, Numba and pandas load only when needed.

Examples
--------
>>> import numpy as np
>>> import edr
>>> from edr.simulate import simulate_recording
>>> ecg = simulate_recording(duration_s=60.0, fs=250.0, random_state=0).ecg
>>> result = edr.extract_edr(ecg, fs=250.0)
>>> isinstance(result, edr.EDRResult), result.to_frame().columns.tolist()
(True, ['time_s', 'edr', 'rate_bpm', 'quality'])
"""

import importlib

from edr.errors import EDRError, RecordError, SignalError

#: public name -> defining module (imported lazily)
_LAZY_EDR = {
    "EDRResult": "edr.result",
    "extract_edr": "edr.pipeline",
    "plot_record": "edr.plots",
    "read_record": "edr.io",
    "recording_from_arrays": "edr.io.arrays",
}

__all__ = ["EDRError", "EDRResult", "RecordError", "SignalError", "__version__", "extract_edr",
           "plot_record", "read_record", "recording_from_arrays"]


def __getattr__(name):
    # the version has one home, kpca/_version.py; read lazily so that `import edr` (and the
    # command line's fast argument checks) import no other package
    if name == "__version__":
        from kpca._version import __version__

        return __version__
    if name in _LAZY_EDR:
        value = getattr(importlib.import_module(_LAZY_EDR[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'edr' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_EDR) | {"__version__"})
