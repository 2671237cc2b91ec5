"""Records shared by the tests of the record figure's two renderers (``edr.plots``,
``edr.plots_html``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from edr.beats import detect
from edr.mains import remove_mains
from edr.pipeline import extract_edr
from edr.simulate import simulate_recording

DROPPED_NEAR_S = 45.0


@pytest.fixture(scope="session")
def figure_record():
    """90 s simulated record; the QRS of the beat nearest 45 s is inverted (an artifact)."""
    rec = simulate_recording(90.0, 250.0, random_state=5)
    i = int(DROPPED_NEAR_S * rec.fs)
    r = i - int(0.4 * rec.fs) + int(np.argmax(rec.ecg[i - int(0.4 * rec.fs): i
                                                      + int(0.4 * rec.fs)]))
    rec.ecg[r - 40: r + 40] *= -1.0  # rec.leads["II"] is the same array
    rec.dropped_time = r / rec.fs
    return rec


@pytest.fixture(scope="session")
def figure_result(figure_record):
    return extract_edr(figure_record, sigma2="mdd")


@pytest.fixture(scope="session")
def figure_beats(figure_record):
    """The beats the pipeline detects in the record's one window, found independently."""
    return detect(remove_mains(figure_record.ecg, figure_record.fs), figure_record.fs)


@pytest.fixture(scope="session")
def masked_record_result():
    """240 s record whose only lead is flat from 150 s on, and its EDR (masked 150-240 s)."""
    rec = simulate_recording(240.0, 250.0, random_state=4)
    ecg = rec.ecg.copy()
    ecg[int(150 * rec.fs):] = ecg[int(150 * rec.fs)]
    flat = dataclasses.replace(rec, ecg=ecg, leads={"II": ecg})
    return flat, extract_edr(flat, sigma2=0.5)
