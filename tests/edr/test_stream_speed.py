"""The stream's speed: an update runs with BLAS limited to one thread, whatever the caller's
setting, which is restored after (the outputs were compared byte for byte on BIDMC and MARSH
records: ``docs/studies/stream_design.md``, speed from the command line)."""

from __future__ import annotations

import numpy as np
import pytest

from edr.simulate import simulate_recording
from edr.stream import StreamingEDR
from kpca._blas import blas_limited_to, blas_threads

FS = 125.0
LEADS = ("II", "V2")


def test_an_update_runs_with_one_blas_thread():
    rec = simulate_recording(40.0, FS, leads=LEADS, random_state=3)
    x = np.column_stack([rec.leads[n] for n in LEADS])
    s = StreamingEDR(FS, leads=LEADS, sigma2="rot")
    seen = []
    update = s._path.update

    def spy(final):
        seen.append(blas_threads())
        return update(final)

    s._path.update = spy
    with blas_limited_to(2):
        outside = blas_threads()
        if outside < 2:
            pytest.skip("BLAS runs one thread at most on this machine")
        s.push(x)
        after = blas_threads()
    assert seen and set(seen) == {1}
    assert after == outside  # the caller's setting is restored
