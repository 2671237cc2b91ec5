"""Recordings from arrays: NumPy arrays, pandas DataFrames and Series.

:func:`recording_from_arrays` checks an ECG given as an array (shape, type, rate, units) and
builds the :class:`~edr.io.recording.Recording` through the readers' constructor
(:meth:`~edr.io.recording.Recording.from_leads`). :func:`as_recording` turns whatever
:func:`edr.extract_edr` accepts (a Recording, a path, arrays) into a Recording. pandas is
never imported here: a DataFrame or Series is recognised by its methods.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Sequence

import numpy as np

from edr.errors import (
    ArrayShapeError,
    ArrayTypeError,
    MissingSignalError,
    SamplingRateError,
    UnitError,
)
from edr.io.breath_times import given_breath_times
from edr.io.channels import choose_ecg, choose_resp, ecg_channels
from edr.io.ecg_matrix import NUMERIC_KINDS, is_pandas, lead_matrix
from edr.io.recording import VOLTAGE_UNITS, Recording, to_millivolts
from edr.io.time_axis import (
    INDEX_COLUMNS,
    check_time_rate,
    elapsed_seconds,
    fs_from_time,
    time_unit,
    unquoted,
)
from edr.names import check_fs

__all__ = ["ARBITRARY_UNITS", "DEFAULT_NAME", "as_recording", "as_series",
           "recording_from_arrays"]

#: Record name of a recording given as arrays.
DEFAULT_NAME = "array"
#: Unit names of an ECG in arbitrary units (kept as given), besides :data:`VOLTAGE_UNITS`.
ARBITRARY_UNITS: tuple[str, ...] = ("arbitrary", "au", "a.u.", "adu", "nu")
#: Name of a respiration given as an array.
RESP_NAME = "RESP"


def as_series(x, name: str) -> np.ndarray:
    """``x`` as a one-dimensional float array; ``ValueError`` naming ``name`` otherwise.

    See Also
    --------
    edr.signal : its users re-export it.

    Examples
    --------
    >>> from edr.io.arrays import as_series
    >>> as_series([1, 2, 3], "x")
    array([1., 2., 3.])
    >>> as_series([[1, 2]], "x")
    Traceback (most recent call last):
    ...
    ValueError: x must be one-dimensional, got shape (1, 2)
    """
    a = np.asarray(x, dtype=float)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {a.shape}")
    return a


def recording_from_arrays(ecg, fs=None, *, lead_names: Sequence[str] | str | None = None,
                          units: Sequence[str] | str = "mV", resp=None, resp_fs=None,
                          breath_times=None, name: str = DEFAULT_NAME,
                          breath_event: str | None = None) -> Recording:
    """A :class:`~edr.io.recording.Recording` of ECG leads given as arrays.

    Parameters
    ----------
    ecg : array_like, pandas.DataFrame or pandas.Series
        One lead, shape ``(n,)``, or several, shape ``(n, n_leads)`` (samples × leads); the
        first lead is the recording's selected lead. A DataFrame is read as a table: a time
        column (named by the rules of :mod:`edr.io.time_axis`: numbers, datetimes or dates and
        times as text) or a time index (timedeltas, datetimes, or numbers named like a time
        column) gives ``fs`` and is no lead, nor is a
        column of sample numbers; where some columns have ECG names (``ECG``, ``II``, ``V5``),
        they are the leads (the best-ranked first, :func:`edr.io.channels.choose_ecg`), a
        respiration column (``RSP``, ``RESP``, ...) is the reference unless ``resp`` is given,
        and other columns (``PPG``) are left out; otherwise every other column is a lead.
        NaN or infinite samples are missing (the pipeline masks them).
    fs : float
        Sampling rate of the leads (Hz), :data:`~edr.names.FS_MIN` to :data:`~edr.names.FS_MAX`;
        may be left out (None) for a DataFrame or Series with a time axis, and must then agree
        with it within 1 %.
    lead_names : str or sequence of str, optional
        One name per lead. Default: the DataFrame's columns or the Series' name, else
        :func:`default_lead_names`. A name given twice is kept apart with a suffix.
    units : str or sequence of str, default "mV"
        Unit of the leads (one, or one per lead): a voltage unit of
        :data:`~edr.io.recording.VOLTAGE_UNITS`, converted to mV
        (:func:`~edr.io.recording.to_millivolts`), or one of :data:`ARBITRARY_UNITS`, kept as
        given.
    resp : array_like, optional
        Reference respiration, shape ``(m,)``, in its own units.
    resp_fs : float, optional
        Its sampling rate (Hz); default ``fs``.
    breath_times : array_like, optional
        Reference breath times (s from the first sample). Breath times that are not
        plausible (:func:`edr.io.reference.implausible_reason`) are left out with a
        :class:`~edr.errors.ReferenceWarning`.
    name : str, default "array"
        Record name.
    breath_event : {"end_of_inspiration", "start_of_inspiration"}, optional
        The point of the breath ``breath_times`` mark (:data:`edr.io.reference.BREATH_EVENTS`);
        default the end of inspiration.

    Returns
    -------
    Recording
        ``path`` None; ``breath_source`` ``"given: <n> breaths"`` with breath times.

    Raises
    ------
    ArrayShapeError
        ``ecg`` empty, 3-D or more, with more leads than samples (leads × samples: pass its
        transpose), or lead names that do not match it; ``resp`` or ``breath_times`` not 1-D.
    ValueError
        A ``breath_event`` that is not one of :data:`edr.io.reference.BREATH_EVENTS`.
    ArrayTypeError
        ``ecg``, ``resp`` or ``breath_times`` not numeric.
    SamplingRateError
        ``fs`` missing, not a number, or outside 100 Hz - 10 kHz; ``resp_fs`` not a positive
        number.
    MissingSignalError
        A lead or ``resp`` without a valid sample.
    UnitError
        A unit that is neither a voltage nor arbitrary.

    See Also
    --------
    as_recording : What :func:`edr.extract_edr` accepts, turned into a Recording.
    edr.io.read_record : A recording from a file.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.io.arrays import recording_from_arrays
    >>> x = np.random.default_rng(0).normal(size=(5000, 2))
    >>> rec = recording_from_arrays(x, fs=250.0, lead_names=["II", "V"], units="uV")
    >>> rec.ecg_channel, list(rec.leads), rec.duration_s, bool(np.allclose(rec.ecg, x[:, 0] / 1e3))
    ('II', ['II', 'V'], 20.0, True)
    """
    if is_pandas(ecg):
        ecg, fs, resp = _from_table(ecg, fs, resp, lead_names)
    values, names = lead_matrix(ecg, lead_names)
    fs = _rate(fs, "fs")
    _check_fs_range(fs, names[0])
    leads = _leads_in_millivolts(values, names, _units(units, len(names)))
    resp_values, resp_fs = _resp(resp, resp_fs, fs)
    breaths, source = _breaths(breath_times, values.shape[0] / fs)
    resp_name = getattr(resp, "name", None) if is_pandas(resp) else None
    return Recording.from_leads(str(name), fs, leads, resp=resp_values, resp_fs=resp_fs,
                                resp_channel=None if resp_values is None else str(resp_name
                                                                                  or RESP_NAME),
                                breath_times=breaths, breath_source=source,
                                breath_event=breath_event)


def as_recording(recording, *, fs=None, lead_names=None, units=None, resp=None, resp_fs=None,
                 breath_times=None) -> Recording:
    """A recording from what :func:`edr.extract_edr` accepts.

    Parameters
    ----------
    recording : Recording, str, os.PathLike, array_like, pandas.DataFrame or pandas.Series
        A :class:`~edr.io.recording.Recording` (or any object with ``ecg`` and ``fs``) is
        returned as it is; a path is read by :func:`edr.io.read_record` (``fs``, if given,
        must agree with the file); anything else is an ECG array for
        :func:`recording_from_arrays`.
    fs, lead_names, units, resp, resp_fs, breath_times
        See :func:`recording_from_arrays` (``units`` None: mV). Only ``fs`` and
        ``breath_times`` (times, or a file of them: :func:`edr.io.read_record`) apply to a
        path, none to a Recording.

    Returns
    -------
    Recording

    Raises
    ------
    TypeError
        Arguments of arrays given with a Recording or a path.
    ArrayShapeError, ArrayTypeError, SamplingRateError, MissingSignalError, UnitError
        See :func:`recording_from_arrays`.

    See Also
    --------
    recording_from_arrays, edr.io.read_record

    Examples
    --------
    >>> import numpy as np
    >>> from edr.io.arrays import as_recording
    >>> rec = as_recording(np.sin(np.arange(2500) / 10.0), fs=250.0)
    >>> as_recording(rec) is rec, rec.name, rec.ecg_channel
    (True, 'array', 'ECG')
    """
    extra = {"lead_names": lead_names, "units": units, "resp": resp, "resp_fs": resp_fs,
             "breath_times": breath_times}
    given = [k for k, v in extra.items() if v is not None]
    if not is_pandas(recording) and hasattr(recording, "ecg") and hasattr(recording, "fs"):
        if given or fs is not None:
            raise TypeError(f"{', '.join(given + (['fs'] if fs is not None else []))} describe "
                            "an ECG given as an array; a Recording carries its own")
        return recording
    if isinstance(recording, (str, os.PathLike)):
        given = [k for k in given if k != "breath_times"]
        if given:
            raise TypeError(f"{', '.join(given)} describe an ECG given as an array, not a "
                            f"file ({os.fspath(recording)!s})")
        from edr.io import read_record

        return read_record(recording, fs=fs, breath_times=breath_times)
    return recording_from_arrays(recording, fs, lead_names=lead_names,
                                 units="mV" if units is None else units, resp=resp,
                                 resp_fs=resp_fs, breath_times=breath_times)


def _time_axis(table) -> tuple[np.ndarray | None, str, list]:
    """``(seconds, what, labels)`` of a DataFrame or Series: the times of its first time column,
    else of a time index (None without either), what they came from, and the labels of its time
    and sample-number columns."""
    labels = list(getattr(table, "columns", []))
    dates = [c for c in labels if getattr(table[c].dtype, "kind", "O") in "Mm"]
    skip = [c for c in labels if time_unit(str(c)) is not None or c in dates
            or unquoted(str(c)).lower() in INDEX_COLUMNS]
    for c, unit in ((c, time_unit(str(c))) for c in skip):
        if unit is not None or c in dates:
            return elapsed_seconds(table[c], unit or 1.0, source="the ECG's DataFrame",
                                   column=str(c)), str(c), skip
    idx = table.index
    kind = getattr(idx.dtype, "kind", "O")
    unit = None if idx.name is None else time_unit(str(idx.name))
    if kind in "Mm" or (unit is not None and kind in NUMERIC_KINDS):
        return elapsed_seconds(idx, unit or 1.0), "index", skip
    return None, "", skip


def _from_table(table, fs, resp, lead_names):
    """``(ecg, fs, resp)`` of a DataFrame or Series read as a table (see
    :func:`recording_from_arrays`)."""
    seconds, what, skip = _time_axis(table)
    if seconds is None and fs is None:
        what = (f"DataFrame (columns {[str(c) for c in table.columns]})"
                if hasattr(table, "columns") else "Series")
        raise SamplingRateError(
            f"the ECG's {what} has no time column or time index: give its sampling rate, e.g. "
            "extract_edr(df, fs=250.0), or a time column named 'time' (seconds) or 'time_ms', "
            "or a DatetimeIndex")
    if seconds is not None:
        fs_t = fs_from_time(seconds, source="the ECG's DataFrame", column=what)
        check_time_rate(fs_t, what, 1.0, source="the ECG's DataFrame", give_fs="fs=HZ")
        given = None if fs is None else _rate(fs, "fs")
        if given is not None and abs(given - fs_t) > 0.01 * fs_t:
            raise SamplingRateError(f"fs={given:g} Hz disagrees with the {fs_t:g} Hz of the "
                                    f"DataFrame's time ({what!r})")
        fs = fs_t if fs is None else fs
    if not hasattr(table, "columns"):
        return table, fs, resp
    rest = [c for c in table.columns if c not in skip]
    names = [str(c) for c in rest]
    leads = ecg_channels(names)
    if lead_names is not None or not leads:
        return table[rest], fs, resp
    first = choose_ecg(names, source="the ECG's DataFrame")
    if resp is None:
        i = choose_resp([n if k not in leads else "" for k, n in enumerate(names)],
                        source="the ECG's DataFrame")
        resp = None if i is None else table[rest[i]]
    return table[[rest[first]] + [rest[k] for k in leads if k != first]], fs, resp


def _check_fs_range(fs: float, lead: str) -> None:
    """:func:`edr.names.check_fs` of a rate given with arrays (a
    :class:`~edr.errors.SamplingRateError` naming the argument)."""
    check_fs(fs, f"lead {lead!r} of the array given (fs=...)")


def _leads_in_millivolts(values: np.ndarray, names: list[str], units: list) -> list:
    """``[(name, samples in mV)]`` of the columns of ``values``; a lead without a finite sample
    is refused."""
    leads = []
    for k, lead in enumerate(names):
        x = np.ascontiguousarray(to_millivolts(values[:, k], units[k]))
        if not np.isfinite(x).any():
            raise MissingSignalError(f"lead {lead!r} of ecg has no valid sample ({x.size} "
                                     "samples, all NaN or infinite); drop it or give its samples")
        leads.append((lead, x))
    return leads


def _resp(resp, resp_fs, fs: float):
    """``(respiration, its rate)`` given with an array, or ``(None, None)``."""
    if resp is None:
        return None, None
    values = _series(resp, "resp")
    rate = fs if resp_fs is None else _rate(resp_fs, "resp_fs")
    if not np.isfinite(values).any():
        raise MissingSignalError(f"resp has no valid sample ({values.size} samples, all NaN or "
                                 "infinite)")
    return values, rate


def _series(values, argument: str) -> np.ndarray:
    """``values`` as a 1-D float array (a single column is taken as one series)."""
    if is_pandas(values):
        kinds = [getattr(d, "kind", "O") for d in
                 (values.dtypes if hasattr(values, "columns") else [values.dtype])]
        if any(k not in NUMERIC_KINDS for k in kinds):
            raise ArrayTypeError(f"{argument} is not numeric (dtypes {kinds})")
        values = values.to_numpy(dtype=float, na_value=np.nan)
    x = np.asarray(values)
    if x.dtype.kind not in NUMERIC_KINDS:
        raise ArrayTypeError(f"{argument} has dtype {x.dtype}, not numbers")
    if x.ndim == 2 and 1 in x.shape:
        x = x.ravel()
    if x.ndim != 1 or x.size == 0:
        raise ArrayShapeError(f"{argument} has shape {x.shape}: give a non-empty 1-D array")
    return np.asarray(x, dtype=np.float64)


def _rate(value, argument: str) -> float:
    """``value`` as a positive, finite rate in Hz."""
    if value is None:
        raise SamplingRateError(f"{argument} is required with an array: its sampling rate in "
                                f"Hz, e.g. extract_edr(ecg, {argument}=250.0)")
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in NUMERIC_KINDS:
        value = value.reshape(()).item()  # scipy.io.loadmat's [[250]], an .npz file's array(250.)
    if isinstance(value, str):
        raise SamplingRateError(f"{argument}={value!r} is text, not a number of Hz: give "
                                f"{argument}=float({value!r})")
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise SamplingRateError(f"{argument}={value!r} is not a number of Hz: give one number, "
                                f"e.g. {argument}=250.0")
    rate = float(value)
    if not (np.isfinite(rate) and rate > 0):
        raise SamplingRateError(f"{argument}={value!r} must be a positive, finite number of Hz")
    return rate


def _units(units, n_leads: int) -> list[str | None]:
    """One unit per lead, checked: voltages as given, arbitrary units as None (kept as is)."""
    given = [units] * n_leads if isinstance(units, str) else list(units)
    if len(given) != n_leads:
        raise ArrayShapeError(f"units={units!r} gives {len(given)} unit(s) for {n_leads} lead(s)")
    voltages = {u.lower() for u in VOLTAGE_UNITS}
    out = []
    for unit in given:
        key = str(unit).strip().lower()
        if key not in voltages and key not in ARBITRARY_UNITS:
            raise UnitError(f"units={unit!r} is not a unit of the ECG: give one of "
                             f"{', '.join(VOLTAGE_UNITS)} (converted to mV) or 'arbitrary'")
        out.append(None if key in ARBITRARY_UNITS else key)
    return out


def _breaths(breath_times, duration_s: float):
    """``(breath times, source)`` of breath times given as an array, or ``(None, None)``."""
    if breath_times is None:
        return None, None
    return given_breath_times(_series(breath_times, "breath_times"), duration_s, "given",
                              stacklevel=4)
