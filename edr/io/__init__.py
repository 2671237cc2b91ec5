"""Reading recordings (WFDB, EDF/EDF+, CSV) or taking them from arrays, writing results,
locating PhysioNet data.

:func:`read_record` returns a :class:`Recording`; :func:`recording_from_arrays` builds one from
NumPy arrays or pandas objects. NaN runs in the signals are
kept as NaN (the pipeline masks them); readers never interpolate over gaps.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

from edr.errors import RecordError
from edr.io.paths import check_record_path, record_kind  # noqa: F401 (edr.io.record_kind)

if TYPE_CHECKING:
    from edr.io.recording import Recording

__all__ = [
    "read_record",
    "recording_from_arrays",
    "as_recording",
    "Recording",
    "DigitalLead",
    "write_csv",
    "write_wfdb",
    "write_json",
    "load_manifest",
    "locate_database",
    "record_paths",
    "check_record_path",
]

# Imported on first use (PEP 562), so that ``import edr.io`` and the path checks of
# :mod:`edr.io.paths` do not load NumPy, SciPy, wfdb or YAML.
_LAZY_IO = {
    "Recording": "edr.io.recording",
    "DigitalLead": "edr.io.digital_lead",
    "recording_from_arrays": "edr.io.arrays",
    "as_recording": "edr.io.arrays",
    "write_csv": "edr.io.writers",
    "write_wfdb": "edr.io.writers",
    "write_json": "edr.io.writers",
    "load_manifest": "edr.io.datasets",
    "locate_database": "edr.io.datasets",
    "record_paths": "edr.io.datasets",
}


def __getattr__(name: str):
    if name in _LAZY_IO:
        value = getattr(importlib.import_module(_LAZY_IO[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def read_record(
    path: str | Path,
    channel: str | None = None,
    *,
    fs: float | None = None,
    resp_channel: str | None = None,
    annotator: str | None = "auto",
    breath_extension: str | None = None,
    breath_times=None,
    r_peaks=None,
) -> Recording:
    """Read an ECG recording from a WFDB, EDF/EDF+, CSV or NumPy file.

    Parameters
    ----------
    path : str or Path
        WFDB record given as ``rec``, ``rec.hea`` or a data file (``rec.dat``,
        ``mixedsignals_e.dat``; not an annotation file such as ``rec.breath``);
        ``*.edf`` / ``*.bdf`` (EDF, EDF+C, BDF); ``*.csv`` / ``*.tsv`` / ``*.txt`` (or ``.gz``);
        ``*.npy`` / ``*.npz`` (:mod:`edr.io.numpy_reader`).
    channel : str, optional
        ECG channel name (compared after stripping trailing commas, case-insensitive).
        Default: the first name present in :data:`edr.io.channels.ECG_PRIORITY`
        (II, MLII, ECG, ECG1, EKG, V, V1..V6, I, III, MCL1, ...).
    fs : float, optional
        Sampling rate in Hz. Needed for a CSV file without a time column and for a
        ``.npy`` file; for files that state their rate it must agree with it.
    resp_channel : str, optional
        Reference respiration channel; default: the best-ranked respiration name
        present (:data:`edr.io.channels.RESP_PRIORITY`: impedance such as RESP, RSP
        or IP, then thorax and abdomen belts, flow, CO2), else none.
    annotator : str or None, default "auto"
        The label of the breaths of a WFDB ``<record>.breath`` file or of an EDF+ file's
        annotations: ``"auto"`` chooses (:func:`edr.io.reference.choose_breath_label`; EDF+
        annotations none of which is labelled as a breath are no reference), None keeps every
        annotation.
    breath_extension : str, optional
        The extension of a WFDB record's breath annotation file (its WFDB annotator name:
        ``resp`` for ``rec.resp``); given, the file must exist. Default: ``rec.breath`` when it
        exists. WFDB records only.
    breath_times : array_like or str or Path, optional
        Breath times of one's own (s from the first sample), or a text file of them
        (:func:`edr.io.breath_times.breath_times_file`: one per line, or a ``time_s`` column as the
        breaths CSV of ``edr extract --breaths`` writes): the reference, in place of the file's
        annotations, any format (:func:`edr.io.breath_times.with_breath_times`).
    r_peaks : array_like or str or Path, optional
        R-peak times of one's own (s from the first sample), a file of them or a WFDB beat
        annotator (``"atr"``: the record's ``rec.atr``; ``rec.qrs``): the beats of the EDR in place
        of detected ones (:func:`edr.io.r_peaks.with_r_peaks`).

    Returns
    -------
    Recording
        ECG at its native rate (all ECG leads at that rate in ``leads``), the
        respiration at its own rate, breath times in s and their ``breath_source``.
        NaN samples are kept.

    Raises
    ------
    FileNotFoundError
        Missing file, or a header whose data file is missing, or a ``breath_times`` or
        ``r_peaks`` file.
    RecordError
        Unreadable or truncated file, a ``breath_times`` file without times, ``r_peaks`` that
        cannot be this record's (:func:`edr.io.r_peaks.with_r_peaks`), a header whose
        sampling rate or signal count is invalid or disagrees with its signal lines,
        inconsistent ``fs``, a
        folder, a WFDB annotation file given as the record, or no annotation file of the
        ``breath_extension`` given (the message lists the record's files), or a
        ``breath_extension`` for a record that is not WFDB.
    ChannelError
        No ECG channel (message lists the channels found) or unknown channel name.
    SignalError
        ECG sampling rate below 100 Hz or above 10 kHz.

    Warns
    -----
    ReferenceWarning
        Breath annotations that cannot be read or are not plausible
        (:func:`edr.io.reference.implausible_reason`), or an empty respiration channel: left out.

    See Also
    --------
    edr.io.arrays.recording_from_arrays : a recording from arrays.
    edr.io.paths.READER_SUFFIXES : the extensions each reader claims.
    edr.io.datasets.record_paths : the records of a PhysioNet database.
    edr.pipeline.extract_edr : the EDR of a recording.

    References
    ----------
    .. [1] A. L. Goldberger et al., "PhysioBank, PhysioToolkit, and PhysioNet: components of a new
       research resource for complex physiologic signals," Circulation 101(23), e215-e220, 2000. The
       WFDB format.
    .. [2] B. Kemp, A. Värri, A. C. Rosa, K. D. Nielsen and J. Gade, "A simple format for exchange
       of digitized polygraphic recordings," Electroencephalogr. Clin. Neurophysiol. 82(5), 391-393,
       1992. EDF.
    .. [3] B. Kemp and J. Olivan, "European data format 'plus' (EDF+), an EDF alike standard format
       for the exchange of physiological data," Clin. Neurophysiol. 114(9), 1755-1761, 2003. EDF+.

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
    >>> from edr.io import read_record
    >>> r = read_record(folder / "sim.hea")
    >>> r.name, r.fs, r.ecg_channel, r.ecg.shape
    ('sim', 250.0, 'II', (7500,))
    >>> tmp.cleanup()
    """
    kind = check_record_path(path)
    p = Path(path)
    if fs is not None:
        fs = _check_fs_argument(fs, path)
    if breath_extension is not None and kind != "wfdb":
        raise RecordError(f"an annotation file extension ({breath_extension!r}) applies to WFDB "
                          f"records, not to {p.name} (an EDF+ file's breaths are its annotations)")
    if kind == "edf":
        from edr.io.edf_reader import read_edf

        rec = read_edf(p, channel, resp_channel=resp_channel, annotator=annotator)
    elif kind == "csv":
        from edr.io.csv_reader import read_csv

        rec = read_csv(p, channel, fs=fs, resp_channel=resp_channel)
    elif kind == "numpy":
        from edr.io.numpy_reader import read_numpy

        rec = read_numpy(p, channel, fs=fs, resp_channel=resp_channel)
    else:
        from edr.io.wfdb_reader import read_wfdb

        rec = read_wfdb(p, channel, resp_channel=resp_channel, annotator=annotator,
                        breath_extension=breath_extension)
    if kind in ("edf", "wfdb") and fs is not None and abs(fs - rec.fs) > 1e-6 * rec.fs:
        raise RecordError(
            f"the sampling rate given ({fs:g} Hz, --fs) disagrees with the {rec.fs:g} Hz stated in "
            f"{path} for channel {rec.ecg_channel!r}"
        )
    if r_peaks is not None:
        from edr.io.r_peaks import with_r_peaks

        rec = with_r_peaks(rec, r_peaks)
    if breath_times is None:
        return rec
    from edr.io.breath_times import with_breath_times

    return with_breath_times(rec, breath_times)


def _check_fs_argument(fs, path) -> float:
    try:
        value = float(fs)
    except (TypeError, ValueError):
        value = float("nan")
    if not (value > 0 and value < float("inf")):
        raise RecordError(f"the sampling rate given for {path} must be a number of Hz > 0, got "
                          f"{fs!r}")
    return value
