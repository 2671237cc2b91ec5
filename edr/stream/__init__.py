"""Real-time EDR: the streaming engine (:mod:`edr.stream.engine`) and its command line
(:mod:`edr.stream.cli`, ``python -m edr.stream`` or ``edr stream``).

The engine is a library: :class:`StreamingEDR` takes ECG samples in blocks (one column per
channel) and returns :class:`StreamUpdate` objects; it reads and writes nothing. The sources
(:mod:`edr.stream.sources`: a record, standard input, a Lab Streaming Layer stream; their faults
become NaN samples, :mod:`edr.stream.faults`), the outputs written as the stream runs
(:mod:`edr.stream.sinks`) and the loop between them (:mod:`edr.stream.session`) are libraries
too; the command line only parses options and picks them.
"""

from edr.stream.engine import (
    DEFAULT_DELAY_S,
    DEFAULT_HOP_S,
    DEFAULT_SPAN_S,
    MAX_UNUSABLE_SHARE,
    RESELECT_S,
    WARMUP_S,
    StreamingEDR,
    StreamUpdate,
)

__all__ = ["DEFAULT_DELAY_S", "DEFAULT_HOP_S", "DEFAULT_SPAN_S", "MAX_UNUSABLE_SHARE",
           "RESELECT_S", "WARMUP_S", "StreamUpdate", "StreamingEDR"]
