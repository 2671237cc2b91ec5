"""Exception hierarchy of ``edr``.

Every error subclasses a built-in as well as :class:`EDRError`, so callers can
catch either (the convention of wfdb-python). ``FileNotFoundError`` is raised
as is for missing files. Messages name the file, the channel and the offending
value.
"""

from __future__ import annotations

__all__ = ["EDRError", "RecordError", "ChannelError", "SignalError", "OutputError",
           "DataUnavailableError"]


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
    named twice, a folder that cannot be created or is not writable."""


class DataUnavailableError(EDRError, RuntimeError):
    """A database is neither local nor downloadable (offline); says what to fetch and where."""
