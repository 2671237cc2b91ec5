"""EDF / EDF+ (continuous) files, read by a small NumPy reader.

Why not ``wfdb.io.convert.edf.read_edf`` (wfdb 4.3.1)? It returns every
channel at one frame rate, the gcd of the channel rates, averaging the faster
channels over each frame (so an ECG at 256 Hz next to a 32 Hz respiration
channel would not be read at its native rate), it computes the samples per
frame relative to the slowest channel (wrong when the rates are not
multiples of it), truncates non-integer rates, its multi-rate branch scales
with ``dig - baseline / gain`` (operator precedence), and it has no way to read
only the channels needed. The EDF layout is simple (a fixed ASCII header, then
data records of little-endian int16 samples, Kemp et al. 1992; EDF+ adds the
``EDF Annotations`` channel, Kemp & Olivan 2003), so this module memory-maps
the data records and scales each wanted channel at its own rate.
``EDF Annotations`` channels are skipped; EDF+D (discontinuous) files are
refused, because their data records are not contiguous in time.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from edr.errors import RecordError
from edr.io.recording import Recording, assemble_recording

__all__ = ["EDFHeader", "read_edf_header", "read_edf"]

_ANNOTATION_LABEL = "EDF Annotations"


@dataclass(frozen=True)
class EDFHeader:
    """The parts of an EDF header needed to read its signals."""

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
    """Parse the header of an EDF/EDF+ file.

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    RecordError
        Malformed header, EDF+D file, or a data section shorter than the header says.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"EDF file not found: {path}")
    size = path.stat().st_size
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
    if reserved.startswith("EDF+D"):
        raise RecordError(f"{path} is EDF+D (discontinuous data records), which is not supported")
    if duration <= 0:
        raise RecordError(f"EDF file {path} has data-record duration {duration!r}; it must be positive")
    record_bytes = 2 * int(samples_per_record.sum())
    available = (size - header_bytes) // record_bytes if record_bytes else 0
    if n_records < 0:  # -1: unknown, still recording
        n_records = available
    elif available < n_records:
        raise RecordError(
            f"EDF file {path} is truncated: {size} bytes, its header needs "
            f"{header_bytes + n_records * record_bytes} ({n_records} data records)"
        )
    return EDFHeader(header_bytes, n_records, duration, labels, units, *numbers, samples_per_record, reserved)


def read_edf(path: str | Path, channel: str | None = None, *, resp_channel: str | None = None) -> Recording:
    """Read an EDF/EDF+ file; see :func:`edr.io.read_record` for the parameters.

    Every channel keeps its own rate (``samples per record / record duration``);
    physical values are ``(d - dmin) (pmax - pmin) / (dmax - dmin) + pmin``.
    """
    path = Path(path)
    header = read_edf_header(path)
    keep = [i for i, label in enumerate(header.labels) if label != _ANNOTATION_LABEL]
    spr = header.samples_per_record
    offsets = np.concatenate([[0], np.cumsum(spr)])

    def read(indices: list[int]) -> list[np.ndarray]:
        data = np.memmap(path, dtype="<i2", mode="r", offset=header.header_bytes,
                         shape=(header.n_records, int(spr.sum())))
        out = []
        for j in indices:
            i = keep[j]
            digital = np.asarray(data[:, offsets[i]: offsets[i + 1]], dtype=np.float64).ravel()
            dspan = header.digital_max[i] - header.digital_min[i]
            gain = (header.physical_max[i] - header.physical_min[i]) / dspan if dspan else 1.0
            out.append((digital - header.digital_min[i]) * gain + header.physical_min[i])
        del data
        return out

    return assemble_recording(
        name=path.stem,
        path=str(path),
        source=str(path),
        names=[header.labels[i] for i in keep],
        read=read,
        fs=[float(f) for f in header.fs[keep]],
        units=[header.units[i] for i in keep],
        channel=channel,
        resp_channel=resp_channel,
    )
