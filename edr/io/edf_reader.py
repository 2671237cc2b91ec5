"""EDF, EDF+C and BDF (24-bit) files, read with ``edfio``.

``edfio`` (PyPI, maintained) reads EDF, EDF+C, BDF and BDF+C, each signal at its
own rate, lazily (memory-mapped for EDF). Two things are added here:

* **Checks ``edfio`` only warns about.** A file shorter than its header says
  (``edfio`` warns, then silently drops the incomplete data record) and a
  header whose record count disagrees with the file are refused with a
  :class:`~edr.errors.RecordError`; EDF+D / BDF+D (discontinuous) files are
  refused, because their data records are not contiguous in time. The small
  header parser :func:`read_edf_header` does these checks before ``edfio``
  reads anything, and names the file and the value.
* **Padding of the last data record.** The samples of a signal fill whole data
  records, so a writer pads the last record when the recording does not end on
  a record boundary (a 480 s recording in 13 s records is stored as 481 s).
  EDF has no field for the true length; the padding is recognisable as a run
  at the end of the last data record where *every* signal is constant. That
  run is trimmed (only within the last data record, and only when all signals
  are constant over it), so the recording lasts as long as what was recorded.

Why not ``wfdb.io.convert.edf.read_edf`` (wfdb 4.3.1)? It returns every
channel at one frame rate, averaging the faster channels, and cannot read only
the channels needed. ``EDF Annotations`` / ``BDF Annotations`` channels are no signals: their
EDF+ annotations are the breath times when some are labelled as breaths (``insp``/``exp``,
``ann1``, ...: :func:`edr.io.reference.breath_mask`); annotations of anything else (sleep stages,
events) are not a reference.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from edr.errors import RecordError
from edr.io.recording import Recording, assemble_recording
from edr.io.reference import (
    AUTO,
    annotation_labels,
    breath_event,
    breath_mask,
    implausible_reason,
    is_breath_label,
    warn_unused,
)

__all__ = ["EDFHeader", "read_edf_header", "read_edf", "padding_samples"]


@dataclass(frozen=True)
class EDFHeader:
    """The parts of an EDF header needed to read its signals.

    See Also
    --------
    read_edf_header

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=30.0, fs=250.0, random_state=0)
    >>> tmp = tempfile.TemporaryDirectory()
    >>> folder = Path(tmp.name)
    >>> import edfio
    >>> edfio.Edf([edfio.EdfSignal(rec.ecg, sampling_frequency=250.0, label="ECG",
    ...                            physical_dimension="mV")]).write(folder / "rec.edf")
    >>> from edr.io.edf_reader import read_edf_header
    >>> h = read_edf_header(folder / "rec.edf")
    >>> h.labels, h.units, h.n_records, h.record_duration
    (['ECG'], ['mV'], 30, 1.0)
    >>> tmp.cleanup()
    """

    header_bytes: int
    n_records: int
    record_duration: float
    labels: list[str]
    units: list[str]
    physical_min: np.ndarray
    physical_max: np.ndarray
    digital_min: np.ndarray
    digital_max: np.ndarray
    samples_per_record: np.ndarray
    reserved: str

    @property
    def fs(self) -> np.ndarray:
        """Sampling rate of each signal in Hz."""
        return self.samples_per_record / self.record_duration


def _fields(raw: bytes, pos: int, n: int, width: int) -> tuple[list[str], int]:
    out = [raw[pos + k * width: pos + (k + 1) * width].decode("latin-1").strip() for k in range(n)]
    return out, pos + n * width


def read_edf_header(path: str | Path) -> EDFHeader:
    """Parse the header of an EDF/EDF+/BDF file (the checks, not the reading, of :func:`read_edf`).

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    RecordError
        Malformed header, EDF+D file, or a data section shorter than the header says.

    See Also
    --------
    read_edf

    References
    ----------
    .. [1] B. Kemp, A. Värri, A. C. Rosa, K. D. Nielsen and J. Gade, "A simple format for exchange
       of digitized polygraphic recordings," Electroencephalogr. Clin. Neurophysiol. 82(5), 391-393,
       1992. The header.
    .. [2] B. Kemp and J. Olivan, "European data format 'plus' (EDF+), an EDF alike standard format
       for the exchange of physiological data," Clin. Neurophysiol. 114(9), 1755-1761, 2003. EDF+
       (its annotation signal).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=30.0, fs=250.0, random_state=0)
    >>> tmp = tempfile.TemporaryDirectory()
    >>> folder = Path(tmp.name)
    >>> import edfio
    >>> edfio.Edf([edfio.EdfSignal(rec.ecg, sampling_frequency=250.0, label="ECG",
    ...                            physical_dimension="mV")]).write(folder / "rec.edf")
    >>> from edr.io.edf_reader import read_edf_header
    >>> read_edf_header(folder / "rec.edf").samples_per_record
    array([250])
    >>> tmp.cleanup()
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"EDF file not found: {path}")
    size = path.stat().st_size
    bdf = path.suffix.lower() == ".bdf"
    with open(path, "rb") as fh:
        fixed = fh.read(256)
        try:
            if len(fixed) < 256:
                raise ValueError(f"only {len(fixed)} bytes")
            header_bytes = int(fixed[184:192].decode("latin-1"))
            reserved = fixed[192:236].decode("latin-1").strip()
            n_records = int(fixed[236:244].decode("latin-1"))
            duration = float(fixed[244:252].decode("latin-1"))
            ns = int(fixed[252:256].decode("latin-1"))
            raw = fh.read(ns * 256)
            if len(raw) < ns * 256 or header_bytes != 256 * (ns + 1):
                raise ValueError(f"header of {ns} signals needs {256 * (ns + 1)} bytes")
            labels, pos = _fields(raw, 0, ns, 16)
            _, pos = _fields(raw, pos, ns, 80)  # transducer type
            units, pos = _fields(raw, pos, ns, 8)
            numbers = []
            for _ in range(4):  # physical min/max, digital min/max
                values, pos = _fields(raw, pos, ns, 8)
                numbers.append(np.array([float(v) for v in values]))
            _, pos = _fields(raw, pos, ns, 80)  # prefiltering
            spr, pos = _fields(raw, pos, ns, 8)
            samples_per_record = np.array([int(v) for v in spr])
        except ValueError as exc:
            raise RecordError(f"malformed EDF header in {path}: {exc}") from exc
    if reserved.startswith(("EDF+D", "BDF+D")):
        raise RecordError(f"{path} is {reserved[:5]} (discontinuous data records), which is not "
                          "supported")
    if (samples_per_record <= 0).any():
        raise RecordError(f"malformed EDF header in {path}: samples per data record "
                          f"{samples_per_record.tolist()} must all be positive")
    if duration <= 0:
        raise RecordError(f"EDF file {path} has data-record duration {duration!r}; it must be "
                          "positive")
    record_bytes = (3 if bdf else 2) * int(samples_per_record.sum())
    available = (size - header_bytes) // record_bytes if record_bytes else 0
    if n_records < 0:  # -1: unknown, still recording
        n_records = available
    elif available != n_records or (size - header_bytes) % record_bytes:
        short = size < header_bytes + n_records * record_bytes
        raise RecordError(
            f"EDF file {path} is {'truncated' if short else 'longer than its header says'}: {size} "
            f"bytes, its header needs {header_bytes + n_records * record_bytes} ({n_records} data "
            "records)"
        )
    return EDFHeader(header_bytes, n_records, duration, labels, units, *numbers,
                     samples_per_record, reserved)


def padding_samples(signals: list[np.ndarray], spr: list[int], *, n_records: int) -> list[int]:
    """Samples of each signal to drop: the padding of the last data record (see the module
    docstring).

    ``signals[i]`` holds ``n_records * spr[i]`` digital or physical values. The
    padding is the longest run, ending at the last sample and within the last
    data record, over which every signal is constant; it is measured as a
    fraction of the data record and converted to each signal's samples (a
    signal keeps a sample unless its whole sampling interval is padding).

    See Also
    --------
    read_edf

    Examples
    --------
    >>> import numpy as np
    >>> from edr.io.edf_reader import padding_samples
    >>> ecg = np.r_[np.arange(7.0), np.zeros(3)]  # 2 data records of 5 samples, a flat end
    >>> padding_samples([ecg], [5], n_records=2)
    [2]
    """
    if not signals or n_records < 1:
        return [0] * len(signals)
    fraction = 1.0
    for x, k in zip(signals, spr, strict=False):
        last = np.asarray(x[(n_records - 1) * k:], dtype=np.float64)
        if last.size == 0:
            return [0] * len(signals)
        differs = np.flatnonzero(last != last[-1])
        run = k - (differs[-1] + 1) if differs.size else k  # constant samples at the end
        fraction = min(fraction, (run - 1) / k if run > 1 else 0.0)  # the first of them is signal
    if fraction <= 0:
        return [0] * len(signals)
    if fraction >= 1.0 - 1e-12 and n_records == 1:
        return [0] * len(signals)  # the whole file constant: nothing to tell padding from
    return [int(np.floor(fraction * k + 1e-9)) for k in spr]


def read_edf(path: str | Path, channel: str | None = None, *,
             resp_channel: str | None = None, annotator: str | None = AUTO) -> Recording:
    """Read an EDF, EDF+C or BDF file; see :func:`edr.io.read_record` for the parameters.

    Every channel keeps its own rate (``samples per record / record duration``);
    physical values are ``(d - dmin) (pmax - pmin) / (dmax - dmin) + pmin``
    (``edfio``). The padding of the last data record is trimmed
    (:func:`padding_samples`). EDF+ annotations labelled as breaths are the breath times
    (``annotator`` as for a WFDB ``.breath`` file; with ``"auto"``, a file none of whose labels
    is a breath label has none).

    Warns
    -----
    ReferenceWarning
        Breath annotations with no label to keep, or not plausible: left out.

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    RecordError
        Malformed header, EDF+D, a file shorter or longer than its header says,
        or a file ``edfio`` cannot read (its message is kept).

    See Also
    --------
    edr.io.read_record : any format, by the file's suffix.

    References
    ----------
    .. [1] B. Kemp, A. Värri, A. C. Rosa, K. D. Nielsen and J. Gade, "A simple format for exchange
       of digitized polygraphic recordings," Electroencephalogr. Clin. Neurophysiol. 82(5), 391-393,
       1992. EDF.
    .. [2] B. Kemp and J. Olivan, "European data format 'plus' (EDF+), an EDF alike standard format
       for the exchange of physiological data," Clin. Neurophysiol. 114(9), 1755-1761, 2003. EDF+.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=30.0, fs=250.0, random_state=0)
    >>> tmp = tempfile.TemporaryDirectory()
    >>> folder = Path(tmp.name)
    >>> import edfio
    >>> edfio.Edf([edfio.EdfSignal(rec.ecg, sampling_frequency=250.0, label="ECG",
    ...                            physical_dimension="mV")]).write(folder / "rec.edf")
    >>> from edr.io.edf_reader import read_edf
    >>> r = read_edf(folder / "rec.edf")
    >>> r.fs, r.ecg_channel, r.ecg.shape
    (250.0, 'ECG', (7500,))
    >>> tmp.cleanup()
    """
    import edfio

    path = Path(path)
    header = read_edf_header(path)
    try:
        with warnings.catch_warnings():
            # edfio warns about truncation: the header check ran already
            warnings.simplefilter("error")
            edf = (edfio.read_bdf if path.suffix.lower() == ".bdf" else edfio.read_edf)(path)
            signals = list(edf.signals)
    except (ValueError, IndexError, UnicodeDecodeError, Warning) as exc:
        raise RecordError(f"cannot read EDF file {path}: {exc}") from exc
    if not signals:
        raise RecordError(f"EDF file {path} has no signals (only annotations)")
    spr = [int(s.samples_per_data_record) for s in signals]
    digital = [np.asarray(s.digital) for s in signals]
    drop = padding_samples(digital, spr, n_records=header.n_records)
    fs = [float(s.sampling_frequency) for s in signals]

    def read(indices: list[int]) -> list[np.ndarray]:
        out = []
        for j in indices:
            x = np.asarray(signals[j].data, dtype=np.float64)
            out.append(x[: x.size - drop[j]] if drop[j] else x)
        return out

    duration = max((d.size - k) / f for d, k, f in zip(digital, drop, fs, strict=True))
    breaths, source, event = _edf_breaths(edf, path, annotator, duration)
    return assemble_recording(
        name=path.stem,
        path=str(path),
        source=str(path),
        names=[s.label for s in signals],
        read=read,
        fs=fs,
        units=[s.physical_dimension for s in signals],
        channel=channel,
        resp_channel=resp_channel,
        breath_times=breaths,
        breath_source=source,
        breath_event=event,
    )


def _edf_breaths(edf, path: Path, annotator, duration_s: float):
    """``(breath times in s, their source, the point of the breath they mark)`` of the EDF+
    annotations of ``edf`` (:func:`edr.io.reference.breath_event`), or ``(None, None, None)``;
    annotations of anything but breaths are no reference, silently."""
    try:
        notes = list(edf.annotations)
    except Exception as exc:  # edfio raises bare IndexError/ValueError on a corrupt channel
        warn_unused(f"{path} (EDF+ annotations)", f"unreadable ({type(exc).__name__}: {exc})",
                    stacklevel=4)
        return None, None, None
    labels = annotation_labels([a.text for a in notes], None, len(notes))
    if not notes or (annotator == AUTO and not any(map(is_breath_label, labels))):
        return None, None, None
    keep, why = breath_mask(labels, annotator)
    times = None if keep is None else np.array([a.onset for a in notes], dtype=float)[keep]
    reason = why if times is None else implausible_reason(np.sort(times), duration_s)
    if reason is not None:
        warn_unused(f"{path} (EDF+ annotations)", reason, stacklevel=4)
        return None, None, None
    return (np.sort(times), f"{path.name} EDF+ annotations: {why}; {times.size} breaths",
            breath_event(labels[keep]))
