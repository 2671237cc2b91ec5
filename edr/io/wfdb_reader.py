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
from edr.io.paths import resolve_record
from edr.io.recording import Recording, assemble_recording

__all__ = ["resolve_record", "check_header_text", "read_wfdb", "read_breath_times",
           "BREATH_EXTENSION"]

#: Annotation file extension of manual breath annotations (BIDMC).
BREATH_EXTENSION = "breath"

# bits per sample of the fixed-width WFDB formats (FLAC formats 508/516/524 are variable)
_BITS = {"8": 8, "16": 16, "24": 24, "32": 32, "61": 16, "80": 8, "160": 16, "212": 12,
         "310": 32 / 3, "311": 32 / 3}
# sampling frequency [/counter frequency [(base counter value)]] of a WFDB record line
_FS_TOKEN = re.compile(
    r"^([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)(?:/[0-9.eE+-]+(?:\([0-9.eE+-]*\))?)?$"
)


def check_header_text(hea: Path) -> None:
    """Check the record line of WFDB header ``hea`` against its signal lines.

    wfdb-python reads a sampling frequency it cannot parse (``abc``) or a negative
    one (``-125``) as its 250 Hz default, and a signal count that disagrees with
    the signal lines ends in an internal ``IndexError``; both are refused here.

    Raises
    ------
    RecordError
        Missing record line, a signal count that is not a non-negative integer or
        differs from the number of signal lines, or a sampling frequency that is
        not a positive number (the message names the header and the value).
    """
    try:
        text = hea.read_text(encoding="latin-1")
    except OSError as exc:
        raise RecordError(f"cannot read WFDB header {hea}: {exc.strerror or exc}") from exc
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()
             and not ln.lstrip().startswith("#")]
    if not lines:
        raise RecordError(f"WFDB header {hea} has no record line")
    fields = lines[0].split()
    if len(fields) < 2:
        raise RecordError(f"WFDB header {hea}: record line {lines[0]!r} states no signal count")
    if "/" in fields[0]:  # multi-segment header: segment lines, not signal lines
        return
    if not fields[1].isdigit():
        raise RecordError(f"WFDB header {hea}: signal count {fields[1]!r} is not a non-negative "
                          "integer")
    n_sig = int(fields[1])
    if n_sig != len(lines) - 1:
        raise RecordError(
            f"WFDB header {hea} declares {n_sig} signal(s) on its record line but has "
            f"{len(lines) - 1} signal line(s)"
        )
    if len(fields) >= 3:
        token = fields[2]
        m = _FS_TOKEN.match(token)
        fs = float(m.group(1)) if m else float("nan")
        if not (math.isfinite(fs) and fs > 0):
            raise RecordError(
                f"WFDB header {hea}: sampling frequency {token!r} is not a positive number of Hz"
            )


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


def read_breath_times(base: Path, *, fs: float,
                      annotator: str | None = "ann1") -> np.ndarray | None:
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
    check_header_text(hea)
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
            rec = wfdb.rdrecord(str(base), channels=list(indices),
                                smooth_frames=False, return_res=64)
        # wfdb raises bare ValueError ("Samples were not loaded correctly")
        except Exception as exc:
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
