"""Tests of the per-record figure ``edr.plots.plot_record``."""

from __future__ import annotations

import numpy as np
import pytest

from edr.pipeline import extract_edr
from edr.plots import plot_record
from edr.simulate import simulate_recording

DROPPED_NEAR_S = 45.0


@pytest.fixture(scope="module")
def record():
    """90 s simulated record; the QRS of the beat nearest 45 s is inverted (an artifact)."""
    rec = simulate_recording(90.0, 250.0, random_state=5)
    i = int(DROPPED_NEAR_S * rec.fs)
    r = i - int(0.4 * rec.fs) + int(np.argmax(rec.ecg[i - int(0.4 * rec.fs): i
                                                      + int(0.4 * rec.fs)]))
    rec.ecg[r - 40: r + 40] *= -1.0  # rec.leads["II"] is the same array
    rec.dropped_time = r / rec.fs
    return rec


@pytest.fixture(scope="module")
def result(record):
    return extract_edr(record, sigma2="mdd")


def _labels(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_four_panels_saved_atomically(record, result, tmp_path):
    path = tmp_path / "fig.png"
    fig = plot_record(record, result, path=path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig.png"]  # no temporary file left
    top, middle, rate, bottom = fig.axes
    # top: a 20 s excerpt centred in the record, with the beats used and the beat dropped
    assert top.get_xlim() == pytest.approx((35.0, 55.0))
    used, dropped = top.lines[1], top.lines[2]
    expected = result.beat_times[(result.beat_times >= 35) & (result.beat_times <= 55)]
    np.testing.assert_allclose(used.get_xdata(), expected)
    assert result.n_beats_dropped >= 1
    assert np.abs(np.asarray(dropped.get_xdata()) - record.dropped_time).min() < 0.1
    assert np.abs(expected - record.dropped_time).min() > 0.1  # the artifact is not among the used
    assert any(lbl.startswith(f"beats used ({result.n_beats}") for lbl in _labels(top))
    # middle: EDR and reference over the whole record, scores in the title
    assert "MSC" in middle.get_title(loc="left") and "|r|" in middle.get_title(loc="left")
    assert any(lbl.startswith("reference RESP") for lbl in _labels(middle))
    edr_line = [ln for ln in middle.lines if ln.get_label().startswith("EDR")][0]
    np.testing.assert_allclose(edr_line.get_xdata(), result.time)
    # the displayed EDR is aligned in sign with the reference (display only)
    ref_line = [ln for ln in middle.lines if ln.get_label().startswith("reference")][0]
    assert np.corrcoef(edr_line.get_ydata(), ref_line.get_ydata())[0, 1] > 0
    # rate panel: EDR rate and the reference's (from the breath annotations) over time
    np.testing.assert_allclose(rate.lines[0].get_xdata(), result.rate_time)
    assert _labels(rate) == ["EDR", "reference (breath annotations)"]
    assert "median absolute error" in rate.get_title(loc="left")
    # bottom: the selection curve with the chosen sigma2 marked
    assert "selection curve" in bottom.get_title(loc="left")
    chosen = [ln for ln in bottom.lines if ln.get_label().startswith("chosen")][0]
    assert chosen.get_xdata()[0] == pytest.approx(result.selection.sigma2)


def test_without_reference(record, result):
    fig = plot_record(record, result, reference=False, excerpt_s=10.0, excerpt_start_s=0.0)
    top, middle, rate, _ = fig.axes
    assert top.get_xlim() == pytest.approx((0.0, 10.0))
    assert not any(lbl.startswith("reference") for lbl in _labels(middle))
    assert "no reference" in middle.get_title(loc="left")
    assert _labels(rate) == ["EDR"]


def test_windowed_result_shows_sigma2_per_window(record):
    res = extract_edr(record, sigma2="rule-of-thumb", window_s=40.0, overlap=0.5)
    fig = plot_record(record, res)
    bottom = fig.axes[3]
    assert f"σ² per window ({len(res.windows)} windows" in bottom.get_title(loc="left")
    np.testing.assert_allclose(bottom.lines[0].get_ydata(), [w.sigma2 for w in res.windows])


def test_method_without_sigma2(record):
    res = extract_edr(record, method="r_amplitude")
    fig = plot_record(record, res)
    texts = [t.get_text() for t in fig.axes[3].texts]
    assert texts == ["method 'r_amplitude' has no σ²"]
