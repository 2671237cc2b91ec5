"""The stream's speed: an update runs with BLAS limited to one thread, whatever the caller's
setting, which is restored after (the outputs were compared byte for byte on BIDMC and MARSH
records: ``docs/studies/stream_design.md``, speed from the command line); a σ² selection draws
at most :data:`edr.stream.engine.SELECTION_DRAWS` noise replicates (its accuracy guard: the
same study, third round)."""

from __future__ import annotations

import numpy as np
import pytest

from edr.simulate import simulate_recording
from edr.stream import StreamingEDR
from edr.stream.engine import SELECTION_DRAWS
from kpca._blas import blas_limited_to, blas_threads
from kpca.selection.mdd import N_DRAWS

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


def _selections(stream):
    """The draws of the σ² selection behind each lead's current model."""
    return {lead: fit.model.selection_.details["n_draws"]
            for lead, fit in stream._path.model.fits.items()}


def test_a_selection_draws_at_most_the_stream_cap():
    rec = simulate_recording(34.0, FS, leads=LEADS, random_state=3)
    x = np.column_stack([rec.leads[n] for n in LEADS])
    capped = StreamingEDR(FS, leads=LEADS)
    given = StreamingEDR(FS, leads=LEADS, n_draws=SELECTION_DRAWS)
    offline = StreamingEDR(FS, leads=LEADS, n_draws=N_DRAWS)
    for s in (capped, given, offline):
        s.push(x)
        assert s.n_selections == 1
    draws = _selections(capped)
    assert max(draws.values()) <= SELECTION_DRAWS
    # the cap is the caller's n_draws=SELECTION_DRAWS, value for value
    assert draws == _selections(given)
    assert capped.sigma2 == given.sigma2
    # and it bites: 34 s of beats do not settle within the cap
    assert max(_selections(offline).values()) > SELECTION_DRAWS


@pytest.mark.parametrize("sigma2, options, expected", [
    ("mdd-fast", {}, SELECTION_DRAWS),
    ("mdd-fast", {"n_draws": 40}, 40),  # the caller's cap stands
    ("mdd-fast", {"stop": "fixed"}, None),  # a fixed stop keeps its draws
    ("mdd", {}, None),
    ("rot", {}, None),  # no draws
])
def test_the_cap_applies_to_the_sequential_stop_only(sigma2, options, expected):
    s = StreamingEDR(FS, leads=LEADS, sigma2=sigma2, **options)
    assert s._select_opts.method_options.get("n_draws") == expected
    assert "n_draws" not in s._fixed_opts.method_options


def test_a_selection_option_survives_the_analyses_at_the_stored_widths():
    # a criterion's option given to the stream once made the first refit at the stored σ²
    # refuse it (a fixed σ² takes no selection option)
    rec = simulate_recording(70.0, FS, leads=LEADS, random_state=3)
    x = np.column_stack([rec.leads[n] for n in LEADS])
    s = StreamingEDR(FS, leads=LEADS, n_draws=10)
    updates = s.push(x)
    # a selection at 32 s, refits at the stored widths at 40, 50 and 64 s
    assert s.n_selections == 1 and all(u.status == "ok" for u in updates)
    assert len(updates) == 20 and np.isfinite(np.concatenate([u.edr for u in updates])).any()
