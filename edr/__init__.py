"""edr — ECG-derived respiration with kernel PCA.

Read a recording (:func:`edr.io.read_record`), extract the respiratory
waveform (:func:`edr.pipeline.extract_edr`), evaluate it
(:mod:`edr.evaluate`).
"""

from edr.errors import EDRError, RecordError, SignalError

__all__ = ["EDRError", "RecordError", "SignalError", "__version__"]


def __getattr__(name):
    # the version has one home, kpca/_version.py; read lazily so that `import edr` (and the
    # command line's fast argument checks) import no other package
    if name == "__version__":
        from kpca._version import __version__

        return __version__
    raise AttributeError(f"module 'edr' has no attribute {name!r}")
