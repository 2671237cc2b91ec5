"""Real-time EDR: the streaming engine (:mod:`edr.stream.engine`) and its command line
(:mod:`edr.stream.cli`, ``python -m edr.stream`` or ``edr stream``).

The engine is a library: :class:`StreamingEDR` takes ECG samples in blocks (one column per
channel) and returns :class:`StreamUpdate` objects; it reads and writes nothing. The command
line feeds it from a record, standard input or a Lab Streaming Layer stream and writes CSV.
"""

from edr.stream.engine import (
    DEFAULT_DELAY_S,
    DEFAULT_HOP_S,
    DEFAULT_SPAN_S,
    RESELECT_S,
    WARMUP_S,
    StreamingEDR,
    StreamUpdate,
)

__all__ = ["DEFAULT_DELAY_S", "DEFAULT_HOP_S", "DEFAULT_SPAN_S", "RESELECT_S", "WARMUP_S",
           "StreamUpdate", "StreamingEDR"]
