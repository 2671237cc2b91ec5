"""WFDB records (``rec``, ``rec.hea``, ``rec.dat``) through wfdb-python.

Multi-frequency records (e.g. ``03700181``: MCL1 at 500 Hz, RESP at 125 Hz;
``mixedsignals``: ECG at 249.9 Hz, Resp at 62.5 Hz) are read with
``wfdb.rdrecord(..., smooth_frames=False)`` so that every channel keeps its
native rate (the default ``smooth_frames=True`` would average the ECG down to
the frame rate). Breath annotations (``<record>.breath``, BIDMC) are read
with ``wfdb.rdann`` and filtered on ``aux_note`` (the annotator).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import wfdb

from edr.errors import RecordError
from edr.io.recording import Recording, assemble_recording

__all__ = ["resolve_record", "read_wfdb", "read_breath_times", "BREATH_EXTENSION"]

#: Annotation file extension of manual breath annotations (BIDMC).
BREATH_EXTENSION = "breath"

# bits per sample of the fixed-width WFDB formats (FLAC formats 508/516/524 are variable)
_BITS = {"8": 8, "16": 16, "24": 24, "32": 32, "61": 16, "80": 8, "160": 16, "212": 12, "310": 32 / 3, "311": 32 / 3}
_MULTI_FILE_SUFFIX = re.compile(r"_[A-Za-z0-9]+$")


def _header_referencing(folder: Path, data_name: str) -> Path | None:
    """First ``.hea`` in ``folder`` with a signal line stored in file ``data_name``."""
    for hea in sorted(folder.glob("*.hea")):
        try:
            lines = hea.read_text(errors="replace").splitlines()[1:]
        except OSError:
            continue
        if any(line.split()[:1] == [data_name] for line in lines if not line.startswith("#")):
            return hea
    return None


def resolve_record(path: str | Path) -> Path:
    """Record base path (no extension) of ``path`` given as ``rec``, ``rec.hea`` or a data file.

    A data file whose stem has no header (``mixedsignals_e.dat``) is matched to
    ``<stem without _suffix>.hea`` or else to any header in its folder that
    references it.

    Raises
    ------
    FileNotFoundError
        The file does not exist, or no header belongs to the data file.
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".hea":
        if not p.is_file():
            raise FileNotFoundError(f"WFDB header not found: {p}")
        return p.with_suffix("")
    if p.with_name(p.name + ".hea").is_file():
        return p
    if not p.is_file():
        raise FileNotFoundError(f"record not found: {p} (no such file, and no header {p.name}.hea)")
    tried = [p.with_suffix(".hea")]
    stripped = _MULTI_FILE_SUFFIX.sub("", p.stem)
    if stripped != p.stem:
        tried.append(p.with_name(stripped + ".hea"))
    for hea in tried:
        if hea.is_file():
            return hea.with_suffix("")
    hea = _header_referencing(p.parent, p.name)
    if hea is None:
        raise FileNotFoundError(
            f"no WFDB header for data file {p}: tried {', '.join(str(t) for t in tried)}, "
            f"and no .hea file in {p.parent} references {p.name}"
        )
    return hea.with_suffix("")


def _check_data_files(base: Path, header: wfdb.Record) -> None:
    """Every data file exists and is long enough for ``sig_len`` frames (fixed-width formats)."""
    hea = base.with_name(base.name + ".hea")
    spf = [s or 1 for s in (header.samps_per_frame or [1] * header.n_sig)]
    files: dict[str, list[int]] = {}
    for i, name in enumerate(header.file_name):
        files.setdefault(name, []).append(i)
    for name, idx in files.items():
        data = base.parent / name
        if not data.is_file():
            raise FileNotFoundError(f"data file {data} referenced by header {hea} is missing")
        bits = _BITS.get(str(header.fmt[idx[0]]))
        if bits is None or not header.sig_len:
            continue
        offset = (header.byte_offset or [None] * header.n_sig)[idx[0]] or 0
        needed = offset + math.ceil(sum(spf[i] for i in idx) * header.sig_len * bits / 8 - 1e-9)
        size = data.stat().st_size
        if size < needed:
            raise RecordError(
                f"data file {data} is truncated: {size} bytes, header {hea} needs {needed} "
                f"({header.sig_len} frames of format {header.fmt[idx[0]]})"
            )


def read_breath_times(base: Path, *, fs: float, annotator: str | None = "ann1") -> np.ndarray | None:
    """Breath annotation times (s) from ``<base>.breath``, or None when the file is absent.

    Annotations whose ``aux_note`` equals ``annotator`` are kept (BIDMC stores
    annotators ``ann1`` and ``ann2`` in one file). ``annotator=None``, or a file
    without annotator labels, keeps every annotation.

    Raises
    ------
    RecordError
        ``annotator`` is not among the labels of the file (they are listed).
    """
    ann_path = base.with_name(f"{base.name}.{BREATH_EXTENSION}")
    if not ann_path.is_file():
        return None
    try:
        ann = wfdb.rdann(str(base), BREATH_EXTENSION)
    except Exception as exc:  # wfdb raises bare ValueError/IndexError on corrupt files
        raise RecordError(f"cannot read breath annotations {ann_path}: {exc}") from exc
    aux = np.array([(a or "").strip() for a in (ann.aux_note or [""] * len(ann.sample))])
    labels = sorted(set(aux) - {""})
    keep = np.ones(aux.size, dtype=bool)
    if annotator is not None and labels:
        if annotator not in labels:
            raise RecordError(
                f"annotator {annotator!r} not in {ann_path}; annotators found: {', '.join(labels)}"
            )
        keep = aux == annotator
    return np.sort(np.asarray(ann.sample, dtype=np.float64)[keep]) / float(ann.fs or fs)


def read_wfdb(
    path: str | Path,
    channel: str | None = None,
    *,
    resp_channel: str | None = None,
    annotator: str | None = "ann1",
) -> Recording:
    """Read a WFDB record; see :func:`edr.io.read_record` for the parameters.

    Raises
    ------
    FileNotFoundError
        Missing record, header or data file.
    RecordError
        Unparsable header, truncated or unreadable data file, multi-segment record.
    ChannelError, SignalError
        See :func:`edr.io.recording.assemble_recording`.
    """
    base = resolve_record(path)
    hea = base.with_name(base.name + ".hea")
    try:
        header = wfdb.rdheader(str(base))
    except Exception as exc:  # wfdb raises bare ValueError on malformed headers
        raise RecordError(f"cannot parse WFDB header {hea}: {exc}") from exc
    if isinstance(header, wfdb.MultiRecord):
        raise RecordError(f"{hea} is a multi-segment record; read its segments one by one")
    if not header.n_sig:
        raise RecordError(f"WFDB header {hea} declares no signals")
    _check_data_files(base, header)
    spf = [s or 1 for s in (header.samps_per_frame or [1] * header.n_sig)]
    fs = [float(header.fs) * k for k in spf]

    def read(indices: list[int]) -> list[np.ndarray]:
        try:
            rec = wfdb.rdrecord(str(base), channels=list(indices), smooth_frames=False, return_res=64)
        except Exception as exc:  # wfdb raises bare ValueError ("Samples were not loaded correctly")
            raise RecordError(f"cannot read signals of {hea}: {exc}") from exc
        return [np.asarray(x, dtype=np.float64) for x in rec.e_p_signal]

    return assemble_recording(
        name=base.name,
        path=str(path),
        source=str(hea),
        names=header.sig_name,
        read=read,
        fs=fs,
        units=header.units or [None] * header.n_sig,
        channel=channel,
        resp_channel=resp_channel,
        breath_times=read_breath_times(base, fs=float(header.fs), annotator=annotator),
    )
