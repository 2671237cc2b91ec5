"""An ECG given as a matrix (samples × leads) or a pandas object: its leads checked and named.

:func:`lead_matrix` turns the ``ecg`` of :func:`edr.io.arrays.recording_from_arrays` into a
float matrix of named leads (numbers only, samples × leads, no time column:
:func:`increasing_column`, which the NumPy reader shares); :func:`default_lead_names` names the
leads of a matrix without names. pandas is never imported here: a DataFrame or Series is
recognised by its methods (:func:`is_pandas`).
"""

from __future__ import annotations

import numpy as np

from edr.errors import ArrayShapeError, ArrayTypeError
from edr.io.channels import clean_name

__all__ = ["NUMERIC_KINDS", "default_lead_names", "increasing_column", "is_pandas",
           "lead_matrix"]

#: NumPy dtype kinds of samples (integers and floats): arrays and NumPy files take no other.
NUMERIC_KINDS = "iuf"


def default_lead_names(n_leads: int) -> list[str]:
    """``["ECG"]`` for one lead, ``["ECG1", "ECG2", ...]`` for several.

    Examples
    --------
    >>> from edr.io.ecg_matrix import default_lead_names
    >>> default_lead_names(1), default_lead_names(3)
    (['ECG'], ['ECG1', 'ECG2', 'ECG3'])
    """
    return ["ECG"] if n_leads == 1 else [f"ECG{k + 1}" for k in range(n_leads)]


def is_pandas(x) -> bool:
    return type(x).__module__.partition(".")[0] == "pandas" and hasattr(x, "to_numpy")


def lead_matrix(ecg, lead_names) -> tuple[np.ndarray, list[str]]:
    """``(samples × leads float array, lead names)`` of ``ecg``, checked."""
    names = None
    if is_pandas(ecg):
        columns = list(ecg.columns) if hasattr(ecg, "columns") else [ecg.name]
        dtypes = list(ecg.dtypes) if hasattr(ecg, "columns") else [ecg.dtype]
        for col, dt in zip(columns, dtypes, strict=True):
            if getattr(dt, "kind", "O") not in NUMERIC_KINDS:
                raise ArrayTypeError(f"ecg column {col!r} has dtype {dt}, not numbers; give "
                                     "only the ECG columns, as numbers (pandas.to_numeric)")
        if hasattr(ecg, "columns") or ecg.name is not None:
            names = [str(c) for c in columns]
        ecg = ecg.to_numpy(dtype=float, na_value=np.nan)
    x = np.asarray(ecg)
    if x.dtype.kind not in NUMERIC_KINDS:
        raise ArrayTypeError(f"ecg has dtype {x.dtype}, not numbers; give the samples as a float "
                             "array (np.asarray(ecg, dtype=float))")
    if x.ndim not in (1, 2):
        raise ArrayShapeError(f"ecg has shape {x.shape}: give one lead as a 1-D array (samples,) "
                              "or several as a 2-D array (samples, leads)")
    if x.size == 0:
        raise ArrayShapeError(f"ecg is empty (shape {x.shape}): give the ECG's samples")
    if x.ndim == 1:
        x = x[:, None]
    if x.shape[0] < x.shape[1]:
        raise ArrayShapeError(
            f"ecg has shape {x.shape}: {x.shape[0]} rows of {x.shape[1]} columns looks like "
            "leads × samples (an ECG has more samples than leads); pass its transpose, ecg.T, "
            "as samples × leads")
    _check_no_time_axis(x, names)
    if lead_names is not None:
        names = [lead_names] if isinstance(lead_names, str) else [str(n) for n in lead_names]
    names = names or default_lead_names(x.shape[1])
    if len(names) != x.shape[1]:
        raise ArrayShapeError(f"lead_names={names!r} names {len(names)} lead(s) but ecg has "
                              f"{x.shape[1]} (shape {x.shape})")
    cleaned = [clean_name(n) for n in names]
    if not all(cleaned):
        raise ArrayShapeError(f"lead_names={names!r} has an empty name")
    return np.asarray(x, dtype=np.float64), cleaned


def increasing_column(x: np.ndarray) -> int | None:
    """The first column of ``x`` (samples × columns, at least 3 samples) that increases at every
    sample: a time axis or a sample counter, never an ECG lead; None without one.

    See Also
    --------
    edr.io.arrays.recording_from_arrays, edr.io.numpy_reader.read_numpy : refuse such a column.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.io.ecg_matrix import increasing_column
    >>> increasing_column(np.column_stack([np.sin(np.arange(9.0)), np.arange(9) / 250]))
    1
    >>> increasing_column(np.sin(np.arange(9.0))[:, None]) is None
    True
    """
    if x.shape[0] < 3:
        return None
    return next((k for k in range(x.shape[1]) if np.all(x[1:, k] > x[:-1, k])), None)


def _check_no_time_axis(x: np.ndarray, names: list[str] | None) -> None:
    """Raise when a column of ``x`` is a time axis (:func:`increasing_column`): ``np.loadtxt``
    of a file with its time column."""
    k = increasing_column(x)
    if k is not None:
        head = ", ".join(f"{v:g}" for v in x[:3, k])
        if names is not None:
            raise ArrayShapeError(
                f"column {names[k]!r} of ecg increases at every sample ({head}, ...): a time "
                "axis or a sample counter, not an ECG lead; name it 'time' (seconds) or "
                "'time_ms' to give fs, or drop it and give fs=...")
        keep = "ecg[:, 1:]" if k == 0 else f"np.delete(ecg, {k}, axis=1)"
        raise ArrayShapeError(
            f"{'ecg' if x.shape[1] == 1 else f'column {k} of ecg'} increases at every sample "
            f"({head}, ...): a time axis or a sample counter, not an ECG lead; "
            f"{'give the ECG samples' if x.shape[1] == 1 else f'pass {keep}'} with fs=...")
