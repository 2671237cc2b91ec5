"""edr — ECG-derived respiration with kernel PCA.

Read a recording (:func:`edr.io.read_record`), extract the respiratory
waveform (:func:`edr.pipeline.extract_edr`), evaluate it
(:mod:`edr.evaluate`).
"""

from edr.errors import EDRError, RecordError, SignalError

__all__ = ["EDRError", "RecordError", "SignalError"]
__version__ = "0.1.0"
