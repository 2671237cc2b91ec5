"""What went wrong on a live input, counted and warned about at a bounded rate.

A live ECG link (a serial line, a pipe, a Lab Streaming Layer stream) delivers garbage lines,
wrong column counts, ``nan`` values, flat or vanished leads and timestamp gaps as a matter of
course. The sources (:mod:`edr.stream.sources`) turn each of them into missing samples (NaN) of
the affected leads, which the engine masks as offline does (:func:`edr.beats.signal_mask`), and
report it here: a :class:`FaultLedger` counts every fault by kind and every NaN and flat sample
by lead, prints at most one warning line per :data:`WARN_EVERY_S` seconds of stream and kind
(with the count since the previous line), and gives the summary of the stream's end.
:class:`FlatRuns` counts flat samples as :func:`edr.beats.signal_mask` masks them, on blocks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from edr.beats.flags import CLIP_RUN_S
from edr.beats.mask import unusable_reason

__all__ = ["FAULT_KINDS", "WARN_EVERY_S", "FaultLedger", "FlatRuns", "RailRuns"]

WARN_EVERY_S = 10.0
"""Stream time (s) between two warning lines of one kind; the faults in between are counted and
reported with the next line (or in the summary)."""

FAULT_KINDS = {
    "unparsable": ("line not numbers", "lines not numbers"),
    "columns": ("line with too many columns", "lines with too many columns"),
    "blank": ("blank line", "blank lines"),
    "truncated": ("truncated last line (no newline at the end)",) * 2,
    "long": ("line over 64 KiB (cut)", "lines over 64 KiB (cut)"),
    "non_finite": ("non-finite value (nan, inf)", "non-finite values (nan, inf)"),
    "missing": ("missing value (a lead absent from a row)", "missing values (a lead absent "
                "from a row)"),
    "gap": ("gap in the timestamps", "gaps in the timestamps"),
    "jump_back": ("sample dropped (its timestamp jumped back)", "samples dropped (their "
                  "timestamps jumped back)"),
    "time_back": ("line whose time does not increase (repeated or back)", "lines whose time "
                  "does not increase (repeated or back)"),
    "time_jump": ("jump forward of the time (taken as the next sample)", "jumps forward of the "
                  "time (taken as the next sample)"),
    "rate": ("line at another rate than {fs} Hz (by its time column)", "lines at another rate "
             "than {fs} Hz (by their time column)"),
    "glitch": ("value no ECG reaches (read as missing)", "values no ECG reaches (read as "
               "missing)"),
    "clipped": ("clipped sample (held at the lead's rail)", "clipped samples (held at the "
                "lead's rail)"),
    "flat": ("flat sample (constant for 1 s or more)", "flat samples (constant for 1 s or "
             "more)"),
    "unusable": ("rate withheld (more than half of its window's ECG unusable)", "rates withheld "
                 "(more than half of their window's ECG unusable)"),
}
"""Every kind of fault a ledger counts, with its name in the singular and the plural (``{fs}``:
the stream's sampling rate)."""


def _counted(kind: str, n: int, fs: float) -> str:
    one, many = FAULT_KINDS[kind]
    return f"{n} {one if n == 1 else many}".format(fs=f"{fs:g}")


@dataclass
class _Throttle:
    last_t: float = -np.inf  # stream time of the last line printed
    pending: int = 0  # faults since then
    detail: str = ""  # the latest one's detail


@dataclass
class FaultLedger:
    """Counts of the faults of one stream, by kind and by lead, and their warnings.

    Parameters
    ----------
    fs : float
        Sampling rate (Hz): stream time is samples / ``fs``.
    leads : sequence of str
        Lead names, in the order of a block's columns.
    warn : callable, optional
        Called with each warning line (no newline); default: nothing is printed.

    Attributes
    ----------
    counts : dict
        Faults by kind (keys of :data:`FAULT_KINDS`, counted in the units they name).
    nan_samples, flat_samples : dict
        Per lead: NaN samples pushed (whatever the cause) and samples of flat runs.
    gap_samples : int
        NaN samples inserted for timestamp gaps.
    samples : int
        Samples per lead observed so far.

    See Also
    --------
    FlatRuns : the flat runs :meth:`observe` counts, block after block.
    edr.beats.signal_mask : the offline mask of the same NaN samples and flat runs.
    edr.stream.csv_rows.CsvRows : notes the faults of CSV rows on standard input.
    edr.stream.timestamps.TimestampGaps : the gaps and jumps back of timestamped samples.
    edr.stream.session.StreamReport : carries :meth:`as_dict` and :meth:`summary_line`.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.stream.faults import FaultLedger
    >>> lines = []
    >>> ledger = FaultLedger(250.0, ["II"], warn=lines.append)
    >>> ledger.note("unparsable", 15000, "standard input line 15001: 'abc'")
    >>> ledger.note("unparsable", 15250, "standard input line 15251: 'x'")  # 1 s later: counted
    >>> ledger.observe(np.array([[0.1], [np.nan], [0.2]]))
    >>> lines
    ["warning: t=60.0 s: 1 line not numbers; last: standard input line 15001: 'abc'"]
    >>> ledger.counts["unparsable"], ledger.nan_samples["II"]
    (2, 1)
    >>> ledger.summary_line()
    '2 lines not numbers; NaN samples: II 1'
    """

    fs: float
    leads: Sequence[str]
    warn: Callable[[str], None] | None = None
    counts: dict = field(default_factory=dict)
    gap_samples: int = 0
    samples: int = 0

    def __post_init__(self):
        self.leads = [str(n) for n in self.leads]
        self.counts = {kind: 0 for kind in FAULT_KINDS}
        self.nan_samples = {n: 0 for n in self.leads}
        self.flat_samples = {n: 0 for n in self.leads}
        self._flat = FlatRuns(self.fs, len(self.leads))
        self._throttle = {kind: _Throttle() for kind in FAULT_KINDS}

    def note(self, kind: str, sample: int, detail: str, n: int = 1) -> None:
        """Count ``n`` faults of ``kind`` at sample index ``sample`` and warn when due.

        Parameters
        ----------
        kind : str
            A key of :data:`FAULT_KINDS`.
        sample : int
            Index (per lead, from the stream's start) of the first sample concerned.
        detail : str
            Where and what, e.g. ``"standard input line 12: 'abc'"``.
        n : int, default 1
            How many (in the kind's unit).

        Raises
        ------
        KeyError
            An unknown ``kind``.

        See Also
        --------
        observe : counts the NaN samples and flat runs of a block.
        summary_line : every count in one line.
        """
        if n <= 0:
            return
        self.counts[kind] += n
        th = self._throttle[kind]
        th.pending += n
        th.detail = detail
        self._warn_due(kind, sample / self.fs)

    def observe(self, block: np.ndarray) -> None:
        """Count the NaN samples and the flat runs of ``block`` (shape ``(n, n_leads)``), the
        samples that follow those observed before, and print the warnings that are due.

        See Also
        --------
        note : counts a fault the block's source found (unparsable line, gap, ...).
        FlatRuns : the flat runs, block after block.
        """
        x = np.asarray(block, dtype=float).reshape(-1, len(self.leads))
        for name, n in zip(self.leads, np.isnan(x).sum(axis=0).tolist(), strict=True):
            self.nan_samples[name] += n
        flat = self._flat.push(x)
        for j, name in enumerate(self.leads):
            if flat[j]:
                self.flat_samples[name] += int(flat[j])
                self.note("flat", self.samples, f"lead {name}", n=int(flat[j]))
        self.samples += x.shape[0]
        for kind in self._throttle:
            self._warn_due(kind, self.samples / self.fs)

    def _warn_due(self, kind: str, t: float) -> None:
        th = self._throttle[kind]
        if th.pending and t >= th.last_t + WARN_EVERY_S:
            since = f" since t={th.last_t:.1f} s" if np.isfinite(th.last_t) else ""
            if self.warn is not None:
                self.warn(f"warning: t={t:.1f} s: {_counted(kind, th.pending, self.fs)}{since}; "
                          f"last: {th.detail}")
            th.last_t, th.pending = t, 0

    def unusable_leads(self) -> dict:
        """``{lead: why}`` of the leads every sample of which so far was NaN or flat
        (:func:`edr.beats.mask.unusable_reason`)."""
        why = {n: unusable_reason(self.nan_samples[n], self.nan_samples[n]
                                  + self.flat_samples[n], self.samples) for n in self.leads}
        return {n: f"{w} over the whole stream" for n, w in why.items() if w}

    def as_dict(self) -> dict:
        """The counts as plain types: ``faults`` by kind, ``gap_samples``, per lead
        ``nan_samples`` and ``flat_samples``, and :meth:`unusable_leads`."""
        return {"samples": self.samples, "faults": dict(self.counts),
                "gap_samples": self.gap_samples, "unusable_leads": self.unusable_leads(),
                "leads": {n: {"nan_samples": self.nan_samples[n],
                              "flat_samples": self.flat_samples[n]} for n in self.leads}}

    def summary_line(self) -> str:
        """The faults in one line: ``"none"`` or the counts by kind, then the NaN and flat
        samples of each lead that had any.

        See Also
        --------
        as_dict : the same counts as plain types.
        """
        parts = [_counted(k, n, self.fs) for k, n in self.counts.items() if n and k != "flat"]
        if self.gap_samples:
            parts.append(f"{self.gap_samples} NaN samples for the gaps")
        for label, counts in (("NaN samples", self.nan_samples),
                              ("flat samples", self.flat_samples)):
            lead_counts = [f"{n} {c}" for n, c in counts.items() if c]
            if lead_counts:
                parts.append(f"{label}: {', '.join(lead_counts)}")
        unusable = [f"{n} {why}" for n, why in self.unusable_leads().items()]
        if unusable:
            parts.append(f"unusable leads: {', '.join(unusable)}")
        return "; ".join(parts) if parts else "none"


class FlatRuns:
    """Count, block after block, the samples of flat runs as :func:`edr.beats.signal_mask`
    masks them: a run of equal finite samples at least ``flat_s`` long (in samples:
    ``max(round(flat_s * fs), 2)``), each sample counted once, runs crossing blocks included.

    Parameters
    ----------
    fs : float
        Sampling rate (Hz).
    n_leads : int
        Columns of a block.
    flat_s : float, default 1.0
        As :func:`edr.beats.signal_mask`'s ``flat_s`` (the same default).

    Examples
    --------
    >>> import numpy as np
    >>> from edr.stream.faults import FlatRuns
    >>> runs = FlatRuns(4.0, 1)  # a flat run: 4 equal samples
    >>> runs.push(np.array([[1.0], [2.0], [2.0], [2.0]])).tolist()
    [0]
    >>> runs.push(np.array([[2.0], [2.0], [3.0]])).tolist()  # the run reaches 4, then 5
    [5]
    """

    def __init__(self, fs: float, n_leads: int, flat_s: float = 1.0):
        self.min_run = max(int(round(flat_s * fs)), 2)
        self.last = np.full(n_leads, np.nan)
        self.run = np.zeros(n_leads, dtype=np.int64)

    def _flagged(self, length):
        return np.where(length >= self.min_run, length, 0)

    def push(self, block: np.ndarray) -> np.ndarray:
        """Flat samples newly found in ``block`` (shape ``(n, n_leads)``), per lead.

        A sample is counted when its run first reaches the minimum length (the whole run
        then) or, later, as the run grows; NaN and inf never count as flat here (they are
        counted as NaN samples).
        """
        x = np.asarray(block, dtype=float)
        n = x.shape[0]
        if n == 0:
            return np.zeros(self.last.size, dtype=np.int64)
        finite = np.isfinite(x)
        cont = np.empty(x.shape, dtype=bool)  # sample i continues the run of sample i - 1
        cont[0] = (x[0] == self.last) & finite[0]
        cont[1:] = (x[1:] == x[:-1]) & finite[1:]
        if n >= self.min_run:  # a run may start and reach the minimum inside the block
            return np.array([self._push_lead(j, x[:, j], cont[:, j])
                             for j in range(self.last.size)], dtype=np.int64)
        broken = ~cont
        whole = ~broken.any(axis=0)  # the carried run goes on through the block
        lead = np.where(whole, n, broken.argmax(axis=0))
        out = self._flagged(self.run + lead) - self._flagged(self.run)
        start_last = n - 1 - broken[::-1].argmax(axis=0)  # the block's last run starts here
        self.run = np.where(whole, self.run + n, n - start_last)
        self.last = x[-1].copy()
        return out

    def _push_lead(self, j: int, v: np.ndarray, cont: np.ndarray) -> int:
        starts = np.flatnonzero(~cont)
        lengths = np.diff(np.append(starts, v.size))
        lead = starts[0] if starts.size else v.size  # samples continuing the carried run
        carried = self.run[j]
        total = int(self._flagged(carried + lead) - self._flagged(carried)) if lead else 0
        total += int(self._flagged(lengths).sum())
        self.run[j] = lengths[-1] if starts.size else carried + v.size
        self.last[j] = v[-1]
        return total


class RailRuns:
    """Count, block after block, the clipped samples of each lead: runs of equal samples at the
    largest or the smallest value the lead has held so far, at least
    :data:`edr.beats.flags.CLIP_RUN_S` long (:func:`edr.beats.flags.clip_run_samples`); a lead
    that has held one value only is flat, not clipped. The rule of
    :func:`edr.beats.flags.clipped_samples`, which counts a whole record offline against its
    extremes.

    Parameters
    ----------
    fs : float
        Sampling rate (Hz).
    n_leads : int
        Columns of a block.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.stream.faults import RailRuns
    >>> rails = RailRuns(100.0, 1)  # 4 samples at the rail are clipped
    >>> rails.push(np.array([[0.0], [1.0], [1.0], [0.5], [1.0], [1.0]])).tolist()
    [0]
    >>> rails.push(np.array([[1.0], [1.0], [0.2]])).tolist()
    [4]
    """

    def __init__(self, fs: float, n_leads: int):
        self.hi, self.lo = np.full(n_leads, -np.inf), np.full(n_leads, np.inf)
        self._runs = FlatRuns(fs, n_leads, flat_s=CLIP_RUN_S)

    def push(self, block: np.ndarray) -> np.ndarray:
        """Clipped samples newly found in ``block`` (shape ``(n, n_leads)``; NaN for samples
        not to judge, such as impulse glitches), per lead."""
        x = np.asarray(block, dtype=float)
        finite = np.isfinite(x)
        if x.shape[0]:
            self.hi = np.fmax(self.hi, np.where(finite, x, -np.inf).max(axis=0))
            self.lo = np.fmin(self.lo, np.where(finite, x, np.inf).min(axis=0))
        at = finite & (self.hi > self.lo) & ((x == self.hi) | (x == self.lo))
        return self._runs.push(np.where(at, x, np.nan))
