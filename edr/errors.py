"""Exception hierarchy of ``edr``.

Every error subclasses a built-in as well as :class:`EDRError`, so callers can
catch either (the convention of wfdb-python). ``FileNotFoundError`` is raised
as is for missing files. Messages name the file, the channel and the offending
value.
"""

from __future__ import annotations

__all__ = ["EDRError", "RecordError", "ChannelError", "SignalError", "OutputError",
           "DataUnavailableError", "VerificationError", "ArrayShapeError", "ArrayTypeError",
           "SamplingRateError", "MissingSignalError", "UnitError", "ReferenceWarning"]


class EDRError(Exception):
    """Base class of every error raised on purpose by ``edr``."""


class RecordError(EDRError, ValueError):
    """A record file is unreadable, truncated or inconsistent with its header."""


class ChannelError(RecordError):
    """The requested (or any) ECG channel is not in the record."""


class SignalError(EDRError, ValueError):
    """The signal cannot give an EDR: too few beats, bad sampling rate, flat lead…"""


class OutputError(EDRError, ValueError):
    """An output cannot be written where it was asked for: a folder, an input file, a target
    named twice, a folder that cannot be created or is not writable, or a write that failed (a
    full disk)."""


class DataUnavailableError(EDRError, RuntimeError):
    """A database is neither local nor downloadable (offline); says what to fetch and where."""


class VerificationError(DataUnavailableError):
    """A file of a database does not match its published SHA-256 or size (or no published
    digest covers it); the message names the file, the expected and the received digest."""


class ArrayShapeError(EDRError, ValueError):
    """An array given as a recording has a shape no ECG has: empty, 3-D or more, more leads than
    samples (leads × samples given for samples × leads), or lead names that do not match it."""


class ArrayTypeError(EDRError, TypeError):
    """An array given as a recording is not numeric (strings, objects, dates, complex)."""


class SamplingRateError(SignalError):
    """A sampling rate is missing, not a number, or outside the supported range."""


class MissingSignalError(SignalError):
    """A lead given as an array has no valid sample (every sample NaN or infinite)."""


class UnitError(EDRError, ValueError):
    """A unit given for an array is neither a voltage unit nor arbitrary units."""


class ReferenceWarning(UserWarning):
    """A reference respiration (breath annotations, a respiration channel) was found but is not
    used: unreadable or implausible. The ECG-derived respiration goes on without it."""
