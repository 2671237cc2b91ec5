"""Analysis windows of a record: the window plan and the leads the windows read.

:func:`window_plan` cuts a record into overlapping :class:`Window` objects, leaving out the
stretches in which every lead is masked (:func:`plan_record`); :func:`record_leads` picks the
lead arrays the options ask for, their glitches and mains line removed. The analysis of one
window is :mod:`edr.window_analysis`'s job, stitching the windows together :mod:`edr.stitch`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from edr.beats import signal_mask, true_runs
from edr.beats.flags import clipped_samples
from edr.beats.mask import unusable_reason, without_glitches
from edr.errors import ChannelError, SignalError
from edr.io.digital_lead import as_lead
from edr.mains import remove_mains
from edr.names import check_fs
from edr.options import DEFAULT_OVERLAP, DEFAULT_WINDOW_S, WHOLE_RECORD_MAX_S, EDROptions

__all__ = ["MASKED_STRETCH_S", "Window", "check_rate", "dead_leads", "masked_stretches",
           "output_grid", "plan_record", "plan_windows", "record_leads", "window_plan"]

MASKED_STRETCH_S = 20.0
"""Stretches at least this long (s) in which every lead is masked are left out of the window plan
(:func:`masked_stretches`, ``docs/design.md#edr-analysis-windows``)."""


@dataclass(frozen=True)
class Window:
    """One analysis window and its neighbours' limits (record time, s).

    ``prev_end`` / ``next_start``: end of the previous / start of the next
    window (None at the record's ends); the core of the window — where its
    per-beat values are kept — runs between the midpoints of the overlaps.
    """

    start_s: float
    end_s: float
    prev_end: float | None = None
    next_start: float | None = None

    @property
    def core(self) -> tuple[float, float]:
        a = self.start_s if self.prev_end is None else 0.5 * (self.start_s + self.prev_end)
        b = self.end_s if self.next_start is None else 0.5 * (self.end_s + self.next_start)
        return a, b


def plan_windows(duration_s: float, window_s: float | None, overlap: float = DEFAULT_OVERLAP):
    """Window limits ``[(start, end), ...]`` covering ``[0, duration_s]``.

    ``window_s=None``: one window up to :data:`~edr.options.WHOLE_RECORD_MAX_S`,
    otherwise :data:`~edr.options.DEFAULT_WINDOW_S`. Windows start every
    ``window_s * (1 - overlap)``; the last one ends at ``duration_s`` (it may
    overlap its predecessor more).

    See Also
    --------
    edr.options.EDROptions : ``window_s`` and ``overlap``.

    Examples
    --------
    >>> from edr.windows import plan_windows
    >>> plan_windows(480.0, None)  # up to 10 minutes: one window
    [(0.0, 480.0)]
    >>> plan_windows(100.0, 40.0, 0.25)
    [(0.0, 40.0), (30.0, 70.0), (60.0, 100.0)]
    """
    if window_s is None:
        if duration_s <= WHOLE_RECORD_MAX_S:
            return [(0.0, float(duration_s))]
        window_s = DEFAULT_WINDOW_S
    if duration_s <= window_s:
        return [(0.0, float(duration_s))]
    step = window_s * (1.0 - overlap)
    starts = list(np.arange(0.0, duration_s - window_s + 1e-9, step))
    if starts[-1] + window_s < duration_s - 1e-9:
        starts.append(duration_s - window_s)
    return [(float(s), float(s + window_s)) for s in starts]


def window_plan(duration_s: float, opts: EDROptions, masked=()) -> list[Window]:
    """The :class:`Window` list of a record: :func:`plan_windows`, or the whole record for FS2.

    ``masked``: ``(start_s, end_s)`` stretches without a usable lead (:func:`masked_stretches`),
    in time order; the dense solver plans its windows within each stretch between them (a
    window never spans a masked stretch, and windows of different stretches are not
    neighbours). Without masked stretches the plan covers ``[0, duration_s]``.
    """
    if opts.solver == "fs2":
        groups = [[(0.0, float(duration_s))]]
    else:
        groups = [[(a + s, a + e) for s, e in plan_windows(b - a, opts.window_s,
                                                           float(opts.overlap))]
                  for a, b in _usable_stretches(float(duration_s), masked)]
    return [Window(a, b, limits[i - 1][1] if i > 0 else None,
                   limits[i + 1][0] if i + 1 < len(limits) else None)
            for limits in groups for i, (a, b) in enumerate(limits)]


def _usable_stretches(duration_s: float, masked) -> list[tuple[float, float]]:
    """The stretches of ``[0, duration_s]`` between the ``masked`` ones."""
    out, start = [], 0.0
    for a, b in masked:
        if a > start:
            out.append((start, a))
        start = b
    if start < duration_s:
        out.append((start, duration_s))
    return out


def masked_stretches(leads: dict, fs: float, min_s: float = MASKED_STRETCH_S, *,
                     masks: dict | None = None) -> list[tuple[float, float]]:
    """``(start_s, end_s)`` of every stretch of at least ``min_s`` in which every lead of
    ``leads`` is masked (NaN or flat, :func:`edr.beats.signal_mask`; ``masks`` gives them
    when computed already), in time order."""
    masks = masks or {n: signal_mask(x, fs) for n, x in leads.items()}
    mask = np.logical_and.reduce([masks[n] for n in leads])
    starts, stops = true_runs(mask)
    return [(a / fs, b / fs) for a, b in zip(starts, stops, strict=True) if b - a >= min_s * fs]


def plan_record(recording, leads: dict, duration: float, opts: EDROptions):
    """The windows of a record and what its leads as recorded tell of it (before the notch).

    Parameters
    ----------
    recording, leads, duration, opts
        The record, the leads analysed by name (:func:`record_leads`), its seconds of ECG and
        the options of :func:`edr.pipeline.extract_edr`.

    Returns
    -------
    (windows, masked, dead, clipped)
        The window plan (:func:`window_plan`), the stretches without a usable lead
        (:func:`masked_stretches`), the leads unusable throughout (:func:`dead_leads`) and each
        lead's clipped samples (:func:`edr.beats.flags.clipped_samples`).

    Raises
    ------
    SignalError
        Every lead is masked over the whole record.
    """
    fs = float(recording.fs)
    recorded = dict(getattr(recording, "leads", None) or {})
    as_recorded = {n: recorded.get(n, recording.ecg) for n in leads}
    masks = {n: signal_mask(x, fs) for n, x in as_recorded.items()}
    masked = masked_stretches(as_recorded, fs, masks=masks)
    plan = window_plan(duration, opts, masked)
    if not plan:
        raise SignalError(f"record {getattr(recording, 'name', '?')!r} has no usable ECG: "
                          f"{', '.join(leads)} flat or missing over the whole record; check the "
                          "channel (a disconnected lead is flat)")
    clipped = {n: clipped_samples(x, fs) for n, x in as_recorded.items()}
    return plan, masked, dead_leads(as_recorded, masks), clipped


def dead_leads(leads: dict, masks: dict) -> dict[str, str]:
    """``{name: why}`` of the leads masked over the whole record (``masks``:
    :func:`edr.beats.signal_mask` of each): missing (every sample NaN), flat (one value: a
    disconnected lead) or both.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.windows import dead_leads
    >>> leads = {"II": np.zeros(500), "V": np.full(500, np.nan), "I": np.ones(500)}
    >>> dead_leads(leads, {n: np.ones(500, bool) for n in leads} | {"I": np.zeros(500, bool)})
    {'II': 'flat over the whole record', 'V': 'missing (NaN) over the whole record'}
    """
    out = {}
    for name, x in leads.items():
        mask = masks[name]
        if not np.all(mask):
            continue
        nan = np.count_nonzero(np.isnan(np.asarray(as_lead(x)[:], dtype=float)))
        out[str(name)] = f"{unusable_reason(nan, mask.size, mask.size)} over the whole record"
    return out


def output_grid(duration_s: float, fs_out: float) -> np.ndarray:
    """Record times (s) of the uniform output grid: ``k / fs_out`` within the record."""
    return np.arange(int(np.floor(duration_s * fs_out + 1e-9))) / fs_out


def check_rate(recording) -> float:
    """``recording.fs`` as float; :class:`SignalError` outside :data:`edr.names.FS_RANGE`
    (:func:`edr.names.check_fs`)."""
    return check_fs(recording.fs, f"recording {getattr(recording, 'name', '')!r}")


def record_leads(recording, opts: EDROptions) -> dict:
    """``{name: samples}``: the requested lead, or every ECG lead for a multi-lead mode, each
    with its impulse glitches set to NaN (:func:`edr.beats.mask.without_glitches`: before the
    notch spreads them) and its mains line removed (:func:`edr.mains.remove_mains`); a
    :class:`~edr.io.digital_lead.DigitalLead` without a mains line stays one (the windows read
    their slices of it).

    For a mode the recording's selected lead comes first (ties go to it).

    Raises
    ------
    ChannelError
        A named lead that is not in the recording.
    """
    if opts.lead_mode is not None:
        leads = {str(n): as_lead(v) for n, v in (recording.leads or {}).items()}
        if not leads:
            leads = {str(recording.ecg_channel): as_lead(recording.ecg)}
        if str(recording.ecg_channel) in leads:
            leads = {str(recording.ecg_channel): leads.pop(str(recording.ecg_channel)), **leads}
    else:
        x, name = _pick_lead(recording, opts.lead)
        leads = {name: x}
    fs = float(recording.fs)
    return {name: remove_mains(without_glitches(x, fs), fs) for name, x in leads.items()}


def _pick_lead(recording, lead):
    if lead is None:
        return as_lead(recording.ecg), str(recording.ecg_channel)
    leads = dict(getattr(recording, "leads", {}) or {})
    key = str(lead).rstrip(",").strip()
    for name, x in leads.items():
        if name == key or name.lower() == key.lower():
            return as_lead(x), name
    if key.lower() == str(recording.ecg_channel).lower():
        return as_lead(recording.ecg), str(recording.ecg_channel)
    raise ChannelError(f"lead {lead!r} is not in recording {getattr(recording, 'name', '?')!r}; "
                       f"its ECG leads are {sorted(leads) or [recording.ecg_channel]}")
