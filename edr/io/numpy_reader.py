"""NumPy files: ``.npy`` (one array) and ``.npz`` (named arrays), for ECGs kept as arrays.

A ``.npy`` file holds one lead, shape ``(n,)`` (named ``ECG``), or several, shape
``(n, n_leads)`` (samples × leads, named ``ECG1``, ``ECG2``, ...:
:func:`edr.io.ecg_matrix.default_lead_names`; no column that increases at every sample, a time
axis); it states no sampling rate, so ``fs`` must be given.
A ``.npz`` file (:func:`numpy.savez`) holds one 1-D array per channel, all of one length,
named by its key (``II``, ``V5``, ``RESP``: channels are chosen by name as in the other
readers), and may hold its sampling rate as a number named ``fs``. Values are taken to be in mV.
Pickled objects are refused (``allow_pickle=False``): loading them could run code.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from edr.errors import RecordError
from edr.io.ecg_matrix import NUMERIC_KINDS, default_lead_names, increasing_column
from edr.io.recording import Recording, assemble_recording

__all__ = ["RATE_KEY", "read_numpy"]

#: Key of a ``.npz`` file's sampling rate (Hz).
RATE_KEY = "fs"


def _sampling_rate(stored, fs: float | None, path: Path) -> float:
    """The sampling rate: the file's ``fs`` entry and/or the one given, which must agree."""
    if stored is not None:
        value = np.asarray(stored)
        if value.size != 1 or value.dtype.kind not in NUMERIC_KINDS:
            raise RecordError(f"NumPy file {path}: entry {RATE_KEY!r} must be one number of Hz, "
                              f"got shape {value.shape} of {value.dtype}")
        stored = float(value.reshape(()))
        if fs is not None and abs(float(fs) - stored) > 1e-6 * stored:
            raise RecordError(f"the sampling rate given ({float(fs):g} Hz, --fs) disagrees with "
                              f"the {stored:g} Hz stored in {path}")
        return stored
    if fs is None:
        raise RecordError(f"NumPy file {path} holds no sampling rate; give it with --fs HZ "
                          f"(read_record(..., fs=HZ) in Python), or store it in a .npz file as "
                          f"{RATE_KEY}=HZ")
    return float(fs)


def _channels(arrays: dict, path: Path) -> dict[str, np.ndarray]:
    """The channels of a ``.npz`` file, checked: 1-D, numbers, one length."""
    if not arrays:
        raise RecordError(f"NumPy file {path} holds no channel (only {RATE_KEY!r} or nothing)")
    lengths = set()
    for key, a in arrays.items():
        if a.ndim != 1 or a.dtype.kind not in NUMERIC_KINDS:
            raise RecordError(f"NumPy file {path}: channel {key!r} must be a 1-D array of numbers, "
                              f"got shape {a.shape} of {a.dtype}")
        lengths.add(a.size)
    if len(lengths) > 1:
        sizes = ", ".join(f"{k} {a.size}" for k, a in arrays.items())
        raise RecordError(f"NumPy file {path}: the channels differ in length ({sizes} samples)")
    return arrays


def read_numpy(path: str | Path, channel: str | None = None, *, fs: float | None = None,
               resp_channel: str | None = None) -> Recording:
    """Read a ``.npy`` or ``.npz`` file; see :func:`edr.io.read_record`.

    Parameters
    ----------
    path : str or Path
        The file.
    channel, resp_channel : str, optional
        The ECG and respiration channels of a ``.npz`` file (default: chosen by name); the ECG
        lead of a ``.npy`` file of several leads (``ECG1``, ``ECG2``, ...).
    fs : float, optional
        Sampling rate (Hz): needed unless a ``.npz`` file stores it.

    Returns
    -------
    Recording

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    RecordError
        Not a NumPy file, pickled objects, no sampling rate, a rate that disagrees with ``fs``,
        an array that is not numbers samples × leads, channels that are not 1-D numbers of one
        length.
    ChannelError
        No ECG channel (names are listed) or an unknown ``channel``.
    SignalError
        A sampling rate outside 100 Hz - 10 kHz.

    See Also
    --------
    edr.io.read_record : any format, by the file's suffix.
    edr.io.arrays.recording_from_arrays : the same arrays in Python.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=30.0, fs=250.0, random_state=0)
    >>> folder = tempfile.TemporaryDirectory()
    >>> np.savez(Path(folder.name) / "rec.npz", II=rec.ecg, RESP=rec.resp, fs=250.0)
    >>> from edr.io.numpy_reader import read_numpy
    >>> r = read_numpy(Path(folder.name) / "rec.npz")
    >>> r.fs, r.ecg_channel, r.resp_channel, r.ecg.shape
    (250.0, 'II', 'RESP', (7500,))
    >>> folder.cleanup()
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"NumPy file not found: {path}")
    try:
        loaded = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise RecordError(f"NumPy file {path} cannot be read: {exc}") from None
    if not isinstance(loaded, np.lib.npyio.NpzFile):
        leads = _leads(loaded, path)
        return _recording_of(path, leads, _sampling_rate(None, fs, path), channel, resp_channel)
    with loaded:
        try:
            arrays = {key: loaded[key] for key in loaded.files}
        except ValueError as exc:  # an object array: pickled
            raise RecordError(f"NumPy file {path} cannot be read: {exc}") from None
    rate = _sampling_rate(arrays.pop(RATE_KEY, None), fs, path)
    return _recording_of(path, _channels(arrays, path), rate, channel, resp_channel)


def _leads(x: np.ndarray, path: Path) -> dict[str, np.ndarray]:
    """The leads of a ``.npy`` array, checked: numbers, samples × leads."""
    if x.dtype.kind not in NUMERIC_KINDS or x.ndim not in (1, 2) or x.size == 0:
        raise RecordError(f"NumPy file {path} holds an array of shape {x.shape} of {x.dtype}: give "
                          "one lead as a 1-D array of numbers (samples,) or several as a 2-D "
                          "array (samples, leads)")
    x = x[:, None] if x.ndim == 1 else x
    if x.shape[0] < x.shape[1]:
        raise RecordError(f"NumPy file {path} holds shape {x.shape}, which looks like leads × "
                          "samples (an ECG has more samples than leads); save its transpose, "
                          "samples × leads")
    k = increasing_column(x)
    if k is not None:
        raise RecordError(f"NumPy file {path}: column {k} increases at every sample (a time axis "
                          "or a sample counter, not an ECG lead); save the leads without it and "
                          "give the sampling rate with --fs HZ")
    return dict(zip(default_lead_names(x.shape[1]), x.T, strict=True))


def _recording_of(path: Path, channels: dict[str, np.ndarray], fs: float, channel,
                  resp_channel) -> Recording:
    names = list(channels)
    return assemble_recording(
        name=path.stem, path=str(path), source=str(path), names=names,
        read=lambda indices: [np.array(channels[names[j]], dtype=np.float64) for j in indices],
        fs=[fs] * len(names), units=["mV"] * len(names), channel=channel,
        resp_channel=resp_channel)
