"""WFDB records (``rec``, ``rec.hea``, ``rec.dat``) through wfdb-python.

Multi-frequency records (e.g. ``03700181``: MCL1 at 500 Hz, RESP at 125 Hz;
``mixedsignals``: ECG at 249.9 Hz, Resp at 62.5 Hz) are read with
``wfdb.rdrecord(..., smooth_frames=False)`` so that every channel keeps its
native rate (the default ``smooth_frames=True`` would average the ECG down to
the frame rate). Breath annotations (``<record>.breath``) are read with
``wfdb.rdann``; one annotator or breath phase is kept and checked
(:mod:`edr.io.reference`). Annotations that cannot be read or are not plausible are
left out with a :class:`~edr.errors.ReferenceWarning`: they never stop the record from being
read.
"""

from __future__ import annotations

import glob
import math
import re
from pathlib import Path

import numpy as np
import wfdb

from edr.errors import RecordError
from edr.io.paths import resolve_record
from edr.io.recording import Recording, assemble_recording
from edr.io.reference import (
    AUTO,
    annotation_labels,
    breath_event,
    breath_mask,
    implausible_reason,
    warn_unused,
)
from edr.io.wfdb_samples import BLOCK_FRAMES, held_digital, read_digital, read_signals

__all__ = ["resolve_record", "check_header_text", "annotation_files", "read_wfdb", "read_signals",
           "read_breath_times", "read_breath_annotations", "BREATH_EXTENSION", "BLOCK_FRAMES"]

#: Annotation file extension of breath annotations (BIDMC, MARSH).
BREATH_EXTENSION = "breath"

# bits per sample of the fixed-width WFDB formats (FLAC formats 508/516/524 are variable)
_BITS = {"8": 8, "16": 16, "24": 24, "32": 32, "61": 16, "80": 8, "160": 16, "212": 12,
         "310": 32 / 3, "311": 32 / 3}
# sampling frequency [/counter frequency [(base counter value)]] of a WFDB record line
_FS_TOKEN = re.compile(
    r"^([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)(?:/[0-9.eE+-]+(?:\([0-9.eE+-]*\))?)?$"
)

# ADC gain [(baseline)] [/units] of a WFDB signal line
_GAIN_TOKEN = re.compile(r"^([^(/]*)(?:\([^)]*\))?(?:/.*)?$")


def check_header_text(hea: Path) -> None:
    """Check the record line of WFDB header ``hea`` against its signal lines.

    wfdb-python reads a sampling frequency it cannot parse (``abc``) or a negative
    one (``-125``) as its 250 Hz default, and a signal count that disagrees with
    the signal lines ends in an internal ``IndexError``; both are refused here.

    Raises
    ------
    RecordError
        Missing record line, a signal count that is not a non-negative integer or
        differs from the number of signal lines, a sampling frequency that is
        not a positive number, or an ADC gain that is not a finite number (the message names
        the header and the value).

    See Also
    --------
    read_wfdb

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=30.0, fs=250.0, random_state=0)
    >>> tmp = tempfile.TemporaryDirectory()
    >>> folder = Path(tmp.name)
    >>> from edr.io import write_wfdb
    >>> hea, dat = write_wfdb(folder, "sim", rec.ecg, rec.fs, sig_name="II", units="mV")
    >>> from edr.io.wfdb_reader import check_header_text
    >>> check_header_text(hea)  # a good header passes silently
    >>> tmp.cleanup()
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
    for number, line in enumerate(lines[1:], 1):
        _check_gain(hea, number, line.split())


def _check_gain(hea: Path, number: int, fields: list[str]) -> None:
    """The ADC gain of a signal line (``gain[(baseline)][/units]``, its third field) is a finite
    number: wfdb-python reads ``nan`` or ``inf`` as part of the signal's name. A gain of 0 is
    WFDB's uncalibrated signal, a negative one an inverted signal: both are valid."""
    if len(fields) < 3:
        return
    m = _GAIN_TOKEN.match(fields[2])
    try:
        gain = float(m.group(1)) if m else math.nan
    except ValueError:
        gain = math.nan
    if not math.isfinite(gain):
        name = " ".join(fields[8:]).rstrip(", ")
        raise RecordError(f"WFDB header {hea}: signal {number}{f' ({name})' if name else ''} "
                          f"has the ADC gain {fields[2]!r}, not a finite number")


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


def read_breath_annotations(
    base: Path, *, fs: float, annotator: str | None = AUTO, duration_s: float | None = None,
    extension: str = BREATH_EXTENSION,
) -> tuple[np.ndarray | None, str | None]:
    """Breath times (s) from ``<base>.<extension>`` and where they come from, or ``(None, None)``.

    Parameters
    ----------
    base : Path
        The record without extension.
    fs : float
        Record rate (Hz), for annotation files that state none.
    annotator : str or None, default "auto"
        ``"auto"``: the label chosen by :func:`edr.io.reference.choose_breath_label`
        (``ann1`` first, then ends of inspiration ``exp``, then starts ``insp``; a file with
        one label whole). A label: the annotations whose ``aux_note`` (or symbol) is that label.
        None: every annotation.
    duration_s : float, optional
        Record length (s), for :func:`edr.io.reference.implausible_reason`.
    extension : str, default "breath"
        The annotation file's extension (the WFDB annotator name: ``resp``, ``atr``, ...).

    Returns
    -------
    times : ndarray or None
        Breath times in s; None without a file, or when it is left out.
    source : str or None
        ``"<file>: <label chosen>; <n> breaths"`` (:attr:`edr.io.Recording.breath_source`).

    Warns
    -----
    ReferenceWarning
        The file exists but cannot be read, holds no annotation of ``annotator``, labels that
        cannot be told apart, or breath times that are not plausible; it is left out.

    See Also
    --------
    read_breath_times, edr.io.reference.choose_breath_label

    Examples
    --------
    >>> from pathlib import Path
    >>> from edr.io.wfdb_reader import read_breath_annotations
    >>> read_breath_annotations(Path("no_such_record"), fs=250.0)
    (None, None)
    """
    return _breath_annotations(base, fs, annotator, duration_s, header_rate=False,
                               extension=extension)[:2]


def _breath_annotations(base: Path, fs: float, annotator, duration_s, *, header_rate: bool,
                        stacklevel: int = 4, extension: str = BREATH_EXTENSION):
    """:func:`read_breath_annotations`; ``header_rate``: ``fs`` is the rate of the record's
    header, which ``wfdb.rdann`` would read for a file that states none (so the annotation
    file's bytes may be decoded without it: :func:`_annotation_fields`), and the point of the
    breath the times mark third (:func:`edr.io.reference.breath_event`; None without times)."""
    ann_path = base.with_name(f"{base.name}.{extension}")
    if not ann_path.is_file():
        return None, None, None
    try:
        times, why, event = _breath_times(base, fs, annotator, header_rate, extension=extension)
        reason = why if times is None else implausible_reason(times, duration_s)
    except Exception as exc:  # wfdb raises bare ValueError/IndexError/TypeError on corrupt files
        detail = (str(exc).strip().splitlines() or [""])[0]
        times, reason = None, f"unreadable ({type(exc).__name__}: {detail})"
    if times is None or reason is not None:
        warn_unused(ann_path, reason, stacklevel=stacklevel)
        return None, None, None
    return np.sort(times), f"{ann_path.name}: {why}; {times.size} breaths", event


def _breath_times(base: Path, fs: float, annotator: str | None, header_rate: bool = False, *,
                  extension: str = BREATH_EXTENSION):
    """``(times in file order, what was chosen, the point of the breath they mark)``, or
    ``(None, why not, None)``."""
    fields = _annotation_fields(base.with_name(f"{base.name}.{extension}")) \
        if header_rate else None
    if fields is None:
        ann = wfdb.rdann(str(base), extension)
        fields = ann.sample, ann.aux_note, ann.symbol, ann.fs
    sample, aux_note, symbol, ann_fs = fields
    labels = annotation_labels(aux_note, symbol, len(sample))
    keep, why = breath_mask(labels, annotator)
    if keep is None:
        return None, why, None
    samples = np.asarray(sample, dtype=np.float64)[keep]
    return samples / float(ann_fs or fs), why, breath_event(labels[keep])


#: Label stores of the WFDB annotation format (``annot(5)``): a sample-less ``SKIP`` (a 32-bit
#: interval follows), the ``NUM``, ``SUB``, ``CHN`` fields and an ``AUX`` note (its length, then
#: its bytes); ``NOTE`` at sample 0 holds the file's definitions
_SKIP, _AUX, _NOTE = 59, 63, 22
#: wfdb's pattern of the time-resolution definition (``wfdb.io.annotation.rx_fs``)
_TIME_RESOLUTION = re.compile(r"## time resolution: (?P<fs>\d+\.?\d*)")


def _annotation_fields(path: Path):
    """``(sample, aux_note, symbol, fs)`` of a WFDB annotation file as ``wfdb.rdann`` reads them
    (the same walk over its byte pairs as ``wfdb.io.annotation.proc_ann_bytes``, with Python
    integers instead of wfdb's per-annotation pandas and NumPy look-ups; ``fs`` None when the
    file states no time resolution), or None for a file that holds anything else — definitions
    other than one time resolution first (custom labels), a field twice in one annotation, bytes
    that do not parse — which ``wfdb.rdann`` itself then reads."""
    try:
        raw = np.fromfile(path, dtype=np.uint8)
        lo, hi = raw[0::2].tolist(), raw[1::2].tolist()
        n = len(hi)
        sample, store, aux_note = [], [], []
        bpi = total = 0
        while bpi < n - 1:
            while hi[bpi] >> 2 == _SKIP:
                skip = (lo[bpi + 1] << 16) + (hi[bpi + 1] << 24) + lo[bpi + 2] + (hi[bpi + 2] << 8)
                total += skip - 4294967296 if skip > 2147483647 else skip
                bpi += 3
            store.append(hi[bpi] >> 2)
            total += lo[bpi] + 256 * (hi[bpi] & 3)
            sample.append(total)
            bpi += 1
            note, seen = "", set()
            while hi[bpi] >> 2 > _SKIP:
                code = hi[bpi] >> 2
                if code in seen:
                    return None
                seen.add(code)
                if code == _AUX:
                    start = 2 * (bpi + 1)
                    note = "".join(map(chr, raw[start:start + lo[bpi]].tolist()))
                    bpi += 1 + (lo[bpi] + 1) // 2
                else:
                    bpi += 1
            aux_note.append(note)
    except (IndexError, ValueError, OSError):
        return None
    definitions = [i for i, (s, c) in enumerate(zip(sample, store, strict=True))
                   if s == 0 and c == _NOTE]
    fs = None
    if definitions:  # only a time resolution first, as wfdb.wrann writes it; else wfdb reads
        found = _TIME_RESOLUTION.findall(aux_note[0])
        if definitions != [0] or not found:
            return None
        fs = float(found[0])
    kept = [i for i, c in enumerate(store) if c != 0 and i not in definitions]  # wfdb drops
    symbols = _standard_symbols()  # its definitions and its "not an annotation" entries
    return (np.array([sample[i] for i in kept], dtype=np.int64), [aux_note[i] for i in kept],
            [symbols.get(store[i]) for i in kept], fs)


def _standard_symbols() -> dict:
    """wfdb's standard annotation symbol of each label store."""
    global _WFDB_SYMBOLS
    if _WFDB_SYMBOLS is None:
        from wfdb.io.annotation import ann_label_table

        _WFDB_SYMBOLS = dict(zip(ann_label_table["label_store"].tolist(),
                            ann_label_table["symbol"].tolist(), strict=True))
    return _WFDB_SYMBOLS


_WFDB_SYMBOLS = None


def annotation_files(base: Path) -> list[str]:
    """The names of the files ``<base>.<extension>`` beside a WFDB record other than its
    ``.hea`` and ``.dat``: its annotation files, sorted."""
    base = Path(base)
    return sorted(p.name for p in base.parent.glob(f"{glob.escape(base.name)}.*")
                  if p.is_file() and p.suffix.lower() not in (".hea", ".dat"))


def _check_annotation_file(base: Path, extension: str) -> None:
    """Raise :class:`RecordError` when ``<base>.<extension>`` is no file, naming the record's
    annotation files."""
    if base.with_name(f"{base.name}.{extension}").is_file():
        return
    raise RecordError(f"no annotation file {base.name}.{extension} for record {base.name}; its "
                      f"annotation files: {', '.join(annotation_files(base)) or 'none'}")


def read_breath_times(base: Path, *, fs: float, annotator: str | None = AUTO,
                      duration_s: float | None = None) -> np.ndarray | None:
    """The breath times of :func:`read_breath_annotations` alone (s), or None.

    See Also
    --------
    read_breath_annotations

    Examples
    --------
    >>> from pathlib import Path
    >>> from edr.io.wfdb_reader import read_breath_times
    >>> read_breath_times(Path("no_such_record"), fs=250.0) is None
    True
    """
    return read_breath_annotations(base, fs=fs, annotator=annotator, duration_s=duration_s)[0]


def read_wfdb(
    path: str | Path,
    channel: str | None = None,
    *,
    resp_channel: str | None = None,
    annotator: str | None = AUTO,
    breath_extension: str | None = None,
) -> Recording:
    """Read a WFDB record; see :func:`edr.io.read_record` for the parameters.

    Returns
    -------
    Recording
        A record longer than :data:`BLOCK_FRAMES` frames in formats read by blocks
        (:func:`held_digital`) holds its ECG leads as
        :class:`~edr.io.digital_lead.DigitalLead` (the digital samples, converted where they
        are read: the same values); its respiration is converted whole.

    Raises
    ------
    FileNotFoundError
        Missing record, header or data file.
    RecordError
        Unparsable header, truncated or unreadable data file, multi-segment record, no
        annotation file of the ``breath_extension`` given (the message lists the record's).
    ChannelError, SignalError
        See :func:`edr.io.recording.assemble_recording`.

    See Also
    --------
    edr.io.read_record : any format, by the file's suffix.

    References
    ----------
    .. [1] A. L. Goldberger et al., "PhysioBank, PhysioToolkit, and PhysioNet: components of a new
       research resource for complex physiologic signals," Circulation 101(23), e215-e220, 2000. The
       WFDB format and the ``wfdb`` package.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=30.0, fs=250.0, random_state=0)
    >>> tmp = tempfile.TemporaryDirectory()
    >>> folder = Path(tmp.name)
    >>> from edr.io import write_wfdb
    >>> hea, dat = write_wfdb(folder, "sim", rec.ecg, rec.fs, sig_name="II", units="mV")
    >>> from edr.io.wfdb_reader import read_wfdb
    >>> r = read_wfdb(folder / "sim")
    >>> r.name, r.ecg_channel, r.resp is None
    ('sim', 'II', True)
    >>> tmp.cleanup()
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

    def read(indices: list[int]) -> list:
        try:
            if held_digital(header, indices):
                return read_digital(base, header, indices)
            return read_signals(base, header, indices)
        # wfdb raises bare ValueError ("Samples were not loaded correctly")
        except Exception as exc:
            raise RecordError(f"cannot read signals of {hea}: {exc}") from exc

    duration = header.sig_len / float(header.fs) if header.sig_len else None
    if breath_extension is not None:
        _check_annotation_file(base, breath_extension)
    breaths, source, event = _breath_annotations(base, float(header.fs), annotator, duration,
                                          header_rate=True, stacklevel=3,
                                          extension=breath_extension or BREATH_EXTENSION)
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
        breath_times=breaths,
        breath_source=source,
        breath_event=event,
    )
