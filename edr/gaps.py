"""The short stretches of missing ECG an EDR was carried across, named for the report.

Stretches of at least :data:`edr.windows.MASKED_STRETCH_S` in which every lead is NaN or flat are
left out of the analysis (``EDRResult.masked``); shorter ones stay inside their windows, and the
EDR is interpolated across them from the beats on either side (within
:data:`edr.stitch.MAX_GAP_S` of a beat, NaN farther). :func:`carried_gaps` names those.
"""

from __future__ import annotations

from edr.windows import MASKED_STRETCH_S, masked_stretches

__all__ = ["carried_gaps"]


def carried_gaps(recording, result) -> list[tuple[float, float]]:
    """``(start_s, end_s)`` of every stretch shorter than :data:`MASKED_STRETCH_S` in which every
    ECG lead of ``result`` is NaN or flat (:func:`edr.beats.signal_mask`), in time order.

    Parameters
    ----------
    recording : Recording
        The record as read (:func:`edr.io.read_record`).
    result : EDRResult
        Its EDR (:func:`edr.pipeline.extract_edr`): the lead it used, or every ECG lead of the
        record for a multi-lead mode.

    Returns
    -------
    list of (float, float)
        Start and end in s from the first sample; empty when no sample is missing.

    See Also
    --------
    edr.windows.masked_stretches : the stretches; the longer ones are ``EDRResult.masked``.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.gaps import carried_gaps
    >>> from edr.io.arrays import as_recording
    >>> from edr.pipeline import extract_edr
    >>> from edr.simulate import simulate_recording
    >>> ecg = simulate_recording(duration_s=120.0, fs=250.0, random_state=0).ecg
    >>> ecg[15000:17500] = np.nan  # 10 s missing from 60 s
    >>> rec = as_recording(ecg, fs=250.0)
    >>> result = extract_edr(rec)
    >>> result.masked, carried_gaps(rec, result)
    ([], [(60.0, 70.0)])
    """
    leads = dict(getattr(recording, "leads", None) or {}) or {"ecg": recording.ecg}
    if result.lead in leads:
        leads = {result.lead: leads[result.lead]}
    return [(float(a), float(b)) for a, b in masked_stretches(leads, float(recording.fs), 0.0)
            if b - a < MASKED_STRETCH_S]
