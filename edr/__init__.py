"""edr — ECG-derived respiration with kernel PCA.

Read a recording (:func:`edr.io.read_record`), extract the respiratory
waveform (:func:`edr.pipeline.extract_edr`), evaluate it
(:mod:`edr.evaluate`).
"""

from edr.errors import EDRError, RecordError, SignalError
from kpca._version import __version__  # the one home of the version

__all__ = ["EDRError", "RecordError", "SignalError", "__version__"]
