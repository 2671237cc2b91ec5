"""The :class:`Recording` every reader returns, and its assembly from raw channels.

NaN samples (gaps, clipped or invalid stretches of a record) are kept as NaN
in ``ecg``, ``leads`` and ``resp``: the pipeline masks them (beats inside a
NaN run are dropped, windows with too few beats are reported). Readers never
interpolate over them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from edr.errors import ReferenceWarning, SignalError
from edr.io.channels import choose_ecg, choose_resp, clean_name, ecg_channels
from edr.io.digital_lead import DigitalLead, lead_blocks
from edr.io.reference import END_OF_INSPIRATION, check_breath_event
from edr.names import check_fs

__all__ = ["Recording", "VOLTAGE_UNITS", "to_millivolts", "assemble_recording"]

_MILLIVOLT_SCALE = {"mv": 1.0, "uv": 1e-3, "µv": 1e-3, "μv": 1e-3, "v": 1e3, "nv": 1e-6}
#: Voltage units :func:`to_millivolts` converts (case-insensitive); any other unit is kept as is.
VOLTAGE_UNITS: tuple[str, ...] = ("mV", "uV", "µV", "V", "nV")


@dataclass(repr=False)  # a digest, not the arrays: __repr__
class Recording:
    """One ECG recording with an optional reference respiration.

    Attributes
    ----------
    name : str
        Record name, e.g. ``"bidmc01"``.
    fs : float
        Sampling rate of ``ecg`` in Hz: the native rate of the selected ECG channel.
    ecg : ndarray or DigitalLead, shape (n,)
        The selected lead, float64, in mV when the file states a voltage unit
        (uV and V are converted); NaN samples are kept. A WFDB record longer than
        :data:`edr.io.wfdb_reader.BLOCK_FRAMES` frames gives a
        :class:`~edr.io.digital_lead.DigitalLead`: its digital samples, read as a read-only
        float64 array (slices and ``np.asarray(ecg)`` are float64 arrays of the same values).
    ecg_channel : str
        Cleaned name of the selected lead (trailing commas stripped), e.g. ``"II"``.
    leads : dict of str to ndarray
        Every ECG lead of the record at ``fs`` (leads stored at another rate are
        resampled with :func:`scipy.signal.resample_poly`), including the selected one; each
        an array or a :class:`~edr.io.digital_lead.DigitalLead`, as ``ecg``.
    resp : ndarray or None
        Reference respiration at its own rate ``resp_fs`` (file units).
    resp_fs : float or None
        Sampling rate of ``resp`` in Hz.
    resp_channel : str or None
        Cleaned name of the respiration channel.
    breath_times : ndarray or None
        Breath times in seconds: the breath annotations of one annotator or label
        (:func:`edr.io.reference.choose_breath_label`), None when there are none or they are not
        plausible (:func:`edr.io.reference.implausible_reason`).
    channels : list of str
        Every channel name found in the file, cleaned, in file order.
    path : str or None
        The file the recording was read from.
    breath_source : str or None
        Where ``breath_times`` come from, in one line: the file, the annotator or label chosen
        and the number of breaths (``"bidmc01.breath: annotator 'ann1' of ann1, ann2; 165
        breaths"``); None without breath times.
    breath_event : str or None
        The point of the breath that ``breath_times`` mark (:data:`edr.io.reference.BREATH_EVENTS`):
        ``"end_of_inspiration"`` (an annotator's breaths, ``exp``, given times by default) or
        ``"start_of_inspiration"`` (``insp`` alone: :func:`edr.io.reference.breath_event`); None
        without breath times. A breath-by-breath score reads the EDR's breaths at the same point.
    r_peaks : ndarray or None
        R-peak times of one's own (s from the first sample): the beats of the EDR in place of
        detected ones (:func:`edr.io.r_peaks.with_r_peaks`); None detects them.
    r_peaks_source : str or None
        Where ``r_peaks`` come from, in one line (``"rec.qrs: 1530 R peaks"``).

    See Also
    --------
    edr.io.read_record : a recording from a file.
    edr.io.arrays.recording_from_arrays : a recording from arrays.

    Examples
    --------
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=30.0, fs=250.0, random_state=0)
    >>> rec.fs, rec.duration_s, rec.ecg_channel, rec.resp_channel, rec.breath_times.size
    (250.0, 30.0, 'II', 'RESP', 8)
    """

    name: str
    fs: float
    ecg: np.ndarray
    ecg_channel: str
    leads: dict[str, np.ndarray]
    resp: np.ndarray | None = None
    resp_fs: float | None = None
    resp_channel: str | None = None
    breath_times: np.ndarray | None = None
    channels: list[str] = field(default_factory=list)
    path: str | None = None
    breath_source: str | None = None
    breath_event: str | None = None
    r_peaks: np.ndarray | None = None
    r_peaks_source: str | None = None

    def __post_init__(self) -> None:
        self.fs = float(self.fs)
        if self.breath_times is None:
            self.breath_event = None
        else:
            self.breath_event = check_breath_event(self.breath_event or END_OF_INSPIRATION)
        if not np.isfinite(self.fs) or self.fs <= 0:
            raise SignalError(f"sampling rate fs={self.fs!r} of record {self.name!r} must be "
                              "positive")
        if not isinstance(self.ecg, DigitalLead):
            self.ecg = np.asarray(self.ecg, dtype=np.float64)
        if self.ecg.ndim != 1:
            raise SignalError(f"ecg of record {self.name!r} must be 1-D, got shape "
                              f"{self.ecg.shape}")
        if self.resp is not None:
            self.resp = np.asarray(self.resp, dtype=np.float64)
            if self.resp_fs is None:
                raise SignalError(f"record {self.name!r} has a resp signal but resp_fs is None")
            self.resp_fs = float(self.resp_fs)

    @property
    def duration_s(self) -> float:
        """Length of the ECG in seconds (``len(ecg) / fs``)."""
        return self.ecg.size / self.fs

    def __repr__(self) -> str:
        """A digest, not the arrays.

        Examples
        --------
        >>> from edr.simulate import simulate_recording
        >>> simulate_recording(duration_s=30.0, fs=250.0, random_state=0)
        Recording('simulated', 30.0 s at 250 Hz, ECG lead 'II' of II;
                  respiration 'RESP' at 250 Hz; 8 breath times)
        """
        resp = ("no respiration" if self.resp is None else
                f"respiration {self.resp_channel!r} at {self.resp_fs:g} Hz")
        breaths = ("" if self.breath_times is None else
                   f"; {self.breath_times.size} breath times"
                   + ("" if self.breath_source is None else f" ({self.breath_source})"))
        return (f"Recording({self.name!r}, {self.duration_s:.1f} s at {self.fs:g} Hz, ECG lead "
                f"{self.ecg_channel!r} of {', '.join(self.leads)};\n{' ' * len('Recording(')}"
                f"{resp}{breaths})")

    @classmethod
    def from_leads(cls, name: str, fs: float, leads: Sequence[tuple[str, np.ndarray]], *,
                   resp: np.ndarray | None = None, resp_fs: float | None = None,
                   resp_channel: str | None = None, breath_times: np.ndarray | None = None,
                   breath_source: str | None = None, channels: Sequence[str] | None = None,
                   path: str | None = None, breath_event: str | None = None) -> Recording:
        """The recording of ECG leads already in mV at ``fs``, the first one selected.

        The one constructor the readers (:func:`assemble_recording`) and
        :func:`edr.io.arrays.recording_from_arrays` share.

        Parameters
        ----------
        name : str
            Record name.
        fs : float
            Sampling rate of every lead (Hz).
        leads : sequence of (str, ndarray)
            Lead names and samples, the selected lead first; a name given twice is kept apart
            with a suffix (``"ECG"``, ``"ECG_2"``).
        resp, resp_fs, resp_channel, breath_times, breath_source, path, breath_event
            The fields of the same names.
        channels : sequence of str, optional
            Every channel name of the source; default the lead names, then ``resp_channel``.

        Returns
        -------
        Recording

        Raises
        ------
        SignalError
            ``fs`` not positive, a lead that is not 1-D, ``resp`` without ``resp_fs``.

        See Also
        --------
        edr.io.arrays.recording_from_arrays : the same from an array with its lead names.
        edr.io.read_record : a recording from a WFDB, EDF or CSV file.

        Examples
        --------
        >>> import numpy as np
        >>> from edr.io.recording import Recording
        >>> rec = Recording.from_leads("r", 250.0, [("II", np.zeros(500)), ("II", np.ones(500))])
        >>> rec.ecg_channel, list(rec.leads), rec.duration_s
        ('II', ['II', 'II_2'], 2.0)
        """
        named: dict[str, np.ndarray] = {}
        for lead, x in leads:
            key, suffix = lead, 2
            while key in named:
                key, suffix = f"{lead}_{suffix}", suffix + 1
            named[key] = x
        first = next(iter(named))
        if channels is None:
            channels = [lead for lead, _ in leads] + ([resp_channel] if resp_channel else [])
        return cls(name=name, fs=fs, ecg=named[first], ecg_channel=first, leads=named, resp=resp,
                   resp_fs=resp_fs, resp_channel=resp_channel, breath_times=breath_times,
                   channels=list(channels), path=path, breath_source=breath_source,
                   breath_event=breath_event)


def to_millivolts(x: np.ndarray, unit: str | None) -> np.ndarray:
    """Scale ``x`` from ``unit`` (mV, uV, V, nV) to mV; other or missing units are left as is
    (a :class:`~edr.io.digital_lead.DigitalLead` stays one, scaled as it is read)."""
    scale = _MILLIVOLT_SCALE.get((unit or "").strip().lower(), 1.0)
    if isinstance(x, DigitalLead):
        return x.scaled(scale)
    x = np.asarray(x, dtype=np.float64)
    return x * scale if scale != 1.0 else x


def _resample(x: np.ndarray, fs_from: float, fs_to: float, n_out: int) -> np.ndarray:
    """Polyphase resampling to ``n_out`` samples; NaN runs are kept as NaN at the new rate.

    NaN runs are bridged linearly for the filter, then every output sample whose
    neighbouring input samples include a NaN is set back to NaN.
    """
    ratio = Fraction(fs_to / fs_from).limit_denominator(1000)
    x = np.asarray(x, dtype=np.float64)  # a DigitalLead resampled is converted whole
    nan = np.isnan(x)
    if nan.all():
        return np.full(n_out, np.nan)
    if nan.any():
        idx = np.arange(x.size)
        x = np.where(nan, np.interp(idx, idx[~nan], x[~nan]), x)
    from scipy.signal import resample_poly  # only when resampling: off the default path

    y = resample_poly(x, ratio.numerator, ratio.denominator)
    if nan.any():
        pos = np.arange(y.size) * (fs_from / fs_to)
        lo = np.minimum(np.floor(pos).astype(np.intp), x.size - 1)
        hi = np.minimum(np.ceil(pos).astype(np.intp), x.size - 1)
        y[nan[lo] | nan[hi]] = np.nan
    out = np.full(n_out, np.nan)
    out[: min(n_out, y.size)] = y[:n_out]
    return out


def assemble_recording(
    *,
    name: str,
    path: str | None,
    source: str,
    names: Sequence[str],
    read: Callable[[list[int]], list[np.ndarray]],
    fs: Sequence[float],
    units: Sequence[str | None],
    channel: str | None,
    resp_channel: str | None,
    breath_times: np.ndarray | None = None,
    breath_source: str | None = None,
    breath_event: str | None = None,
) -> Recording:
    """Choose the channels, read them and build a :class:`Recording`.

    Parameters
    ----------
    names, fs, units : sequences, one entry per channel in the file
        Raw names (cleaned here), sampling rates (Hz) and physical units.
    read : callable
        ``read(indices) -> list of 1-D float arrays`` (or of
        :class:`~edr.io.digital_lead.DigitalLead`) in the same order, so that
        readers only load the channels they need.
    channel, resp_channel : str or None
        Requested ECG and respiration channel names (None: defaults of
        :mod:`edr.io.channels`).
    source : str
        The file named in error messages.
    breath_times, breath_source, breath_event
        The fields of :class:`Recording` of the same names.

    Returns
    -------
    Recording
        Built by :meth:`Recording.from_leads`; a respiration channel without a valid sample is
        left out with a :class:`~edr.errors.ReferenceWarning`.

    Raises
    ------
    ChannelError
        See :func:`edr.io.channels.choose_ecg` and :func:`edr.io.channels.choose_resp`.
    SignalError
        The ECG rate is unsupported (:func:`check_fs`) or the ECG has no valid sample.
    """
    cleaned = [clean_name(n) for n in names]
    i_ecg = choose_ecg(cleaned, channel, source=source)
    fs_ecg = check_fs(fs[i_ecg], f"ECG channel {cleaned[i_ecg]!r} of {source}")
    i_resp = choose_resp(cleaned, resp_channel, source=source)
    lead_idx = [i_ecg] + [i for i in ecg_channels(cleaned) if i not in (i_ecg, i_resp)]
    wanted = lead_idx + ([i_resp] if i_resp is not None and i_resp not in lead_idx else [])
    signals = dict(zip(wanted, read(wanted), strict=False))

    ecg = to_millivolts(signals[i_ecg], units[i_ecg])
    if not any(np.isfinite(block).any() for _, block in lead_blocks(ecg)):
        raise SignalError(f"ECG channel {cleaned[i_ecg]!r} of {source} has no valid sample "
                          f"({ecg.size} samples, all missing)")
    leads = []
    for i in lead_idx:
        x = ecg if i == i_ecg else to_millivolts(signals[i], units[i])
        if float(fs[i]) != fs_ecg:
            x = _resample(x, float(fs[i]), fs_ecg, ecg.size)
        leads.append((cleaned[i], x))
    resp = None if i_resp is None else np.asarray(signals[i_resp], dtype=np.float64)
    if resp is not None and not np.isfinite(resp).any():
        warnings.warn(f"respiration channel {cleaned[i_resp]!r} of {source} has no valid sample "
                      f"({resp.size} samples, all missing); it is not used as the reference",
                      ReferenceWarning, stacklevel=2)
        resp = i_resp = None
    return Recording.from_leads(
        name, fs_ecg, leads,
        resp=resp,
        resp_fs=None if i_resp is None else float(fs[i_resp]),
        resp_channel=None if i_resp is None else cleaned[i_resp],
        breath_times=breath_times,
        breath_source=breath_source,
        breath_event=breath_event,
        channels=cleaned,
        path=path,
    )
