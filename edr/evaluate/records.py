"""The records of a folder that ``python -m edr.evaluate --data-dir FOLDER`` evaluates: every
WFDB record and EDF file with an ECG channel, and every record whose header cannot be read (its
tasks then store why); the others left out, each with its reason."""

from __future__ import annotations

from pathlib import Path

__all__ = ["list_records"]


def list_records(folder: str | Path, left_out: dict | None = None) -> dict[str, Path]:
    """Records of a folder that hold at least one ECG channel, name -> path.

    WFDB records (headers checked with :func:`edr.io.wfdb_reader.check_header_text` and read
    with :func:`wfdb.rdheader`) and EDF/BDF files (headers read with
    :func:`edr.io.edf_reader.read_edf_header`); a WFDB record and an EDF file of one name: the
    WFDB record. A record whose header cannot be read (malformed, a folder or a link that leads
    nowhere under a record's name, unreadable) is kept: its tasks then store why. Records whose
    header lists no ECG channel (e.g. BIDMC's 1 Hz numerics ``bidmcNNn``) are left out.

    Parameters
    ----------
    folder : str or Path
    left_out : dict, optional
        Filled with the records left out, name -> why.

    Raises
    ------
    FileNotFoundError
        No such folder, or no record with an ECG channel in it.

    See Also
    --------
    plan_tasks : the tasks of these records.
    """
    from edr.io.edf_reader import read_edf_header
    from edr.io.paths import EDF_SUFFIXES

    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"database folder not found: {folder}")
    left_out = {} if left_out is None else left_out
    out = {}
    for hea in sorted(folder.glob("*.hea")):
        _keep_if_ecg(out, left_out, hea.stem, hea.with_suffix(""), _wfdb_signal_names, hea)
    for edf in sorted(p for p in folder.iterdir() if p.suffix.lower() in EDF_SUFFIXES):
        if edf.stem not in out:
            _keep_if_ecg(out, left_out, edf.stem, edf, lambda p: read_edf_header(p).labels, edf)
    if not out:
        raise FileNotFoundError(f"no WFDB record or EDF file with an ECG channel in {folder}"
                                + "".join(f"; {n}: {why}" for n, why in left_out.items()))
    return dict(sorted(out.items()))


def _wfdb_signal_names(hea: Path) -> list[str]:
    """The signal names of WFDB header ``hea`` (raises when it cannot be read)."""
    import wfdb

    from edr.io.wfdb_reader import check_header_text

    check_header_text(hea)
    return list(wfdb.rdheader(str(hea.with_suffix(""))).sig_name or [])


def _keep_if_ecg(out: dict, left_out: dict, name: str, path: Path, signal_names, header: Path
                 ) -> None:
    """``out[name] = path`` unless ``signal_names(header)`` reads and names no ECG channel
    (then ``left_out[name]`` says so)."""
    from edr.io.channels import ecg_channels

    try:
        names = signal_names(header)
    except Exception:  # any reader failure: the record's tasks say why
        out[name] = path
        return
    if names and ecg_channels(names):
        out[name] = path
    else:
        left_out[name] = (f"no ECG channel (channels: {', '.join(names)})" if names
                          else "no signals")
