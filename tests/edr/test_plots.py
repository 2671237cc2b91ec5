"""Tests of the per-record figure ``edr.plots.plot_record``: image produced, every beat marked by
its fate, legend entries present."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from edr.pipeline import extract_edr
from edr.plots import plot_record
from edr.rates import QUALITY_THRESHOLD
from edr.record_figure import BEAT_FATES, beat_fates, representative_minute


@pytest.fixture(scope="module")
def figure(figure_record, figure_result, tmp_path_factory):
    path = tmp_path_factory.mktemp("fig") / "fig.png"
    return plot_record(figure_record, figure_result, path=path), path


def _labels(ax):
    legend = ax.get_legend()
    return [t.get_text() for t in legend.get_texts()] if legend else []


def _beat_markers(ax):
    return {ln.get_gid()[6:]: np.asarray(ln.get_xdata(), float) for ln in ax.lines
            if (ln.get_gid() or "").startswith("beats-")}


def test_image_saved_atomically_with_its_six_panels(figure, figure_result):
    fig, path = figure
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 50_000
    assert sorted(p.name for p in path.parent.iterdir()) == ["fig.png"]  # no temporary file
    overview, quality, ecg, edr, text, sigma = fig.axes
    np.testing.assert_allclose(overview.lines[0].get_xdata(), figure_result.rate_time)
    assert overview.get_xlim() == pytest.approx((0.0, 90.0))
    assert ecg.get_xlim() == edr.get_xlim() and np.diff(ecg.get_xlim())[0] == pytest.approx(60.0)
    assert "chosen σ²" in " ".join(_labels(sigma))


def test_every_detected_beat_is_marked_by_its_fate(figure_record, figure_result, figure_beats,
                                                    figure):
    ecg = figure[0].axes[2]
    t0, t1 = ecg.get_xlim()
    marks = _beat_markers(ecg)
    assert set(marks) == set(BEAT_FATES)
    inside = (figure_beats.times >= t0) & (figure_beats.times < t1)
    shown = np.sort(np.concatenate(list(marks.values())))
    np.testing.assert_allclose(shown, figure_beats.times[inside])
    # used = the beats the EDR used; the inverted QRS is dropped, not used
    bt = figure_result.beat_times
    used = bt[(bt >= t0) & (bt < t1)]
    np.testing.assert_allclose(marks["used"], used)
    dropped = np.concatenate([marks["ectopic"], marks["artefact"]])
    assert np.abs(dropped - figure_record.dropped_time).min() < 0.1
    assert np.abs(marks["used"] - figure_record.dropped_time).min() > 0.1


def test_legends_explain_every_mark(figure):
    overview, quality, ecg, edr, text, _ = figure[0].axes
    expected = {
        overview: ["minute shown below", "EDR rate (32 s windows)", "reference rate ("],
        quality: ["rate given", f"threshold {QUALITY_THRESHOLD:g}"],
        ecg: ["ECG lead II", "beat used by the EDR", "beat dropped: ectopic",
              "beat dropped: artefact or clipped"],
        edr: ["reference RESP", "EDR", "EDR value at each used beat"],
    }
    for ax, fragments in expected.items():
        labels = _labels(ax)
        for f in fragments:
            assert any(lbl.startswith(f) for lbl in labels), (f, labels)
        assert len(labels) == len([a for a in ax.lines + ax.patches + ax.collections
                                   if not a.get_label().startswith("_")]) or ax is quality
    words = text.texts[0].get_text()
    for f in ("MSC", "coherence at the breathing frequency", "|r|", "correlation of the waveforms",
              "rate error", "median |EDR - reference rate|"):
        assert f in words, f


def test_masked_stretch_and_withheld_rates_are_shown(masked_record_result):
    flat, res = masked_record_result
    assert res.masked
    fig = plot_record(flat, res)
    overview, _, ecg_ax, _, text, _ = fig.axes
    assert "masked: every ECG lead flat or missing" in _labels(overview)
    assert ecg_ax.get_xlim()[1] <= 150.0  # the minute shown is one the EDR covers
    assert "masked (every lead flat or missing): 150-240 s" in text.texts[0].get_text()


def test_representative_minute_is_covered_and_typical(figure_result):
    t0, t1 = representative_minute(figure_result, 90.0)
    assert t1 - t0 == 60.0 and 0.0 <= t0 <= 30.0
    assert representative_minute(figure_result, 40.0, 60.0) == (0.0, 40.0)


def test_without_reference(figure_record, figure_result):
    fig = plot_record(figure_record, figure_result, reference=False, minute_start_s=0.0)
    overview, _, ecg, edr, text, _ = fig.axes
    assert ecg.get_xlim() == pytest.approx((0.0, 60.0))
    assert not any(lbl.startswith("reference") for lbl in _labels(edr) + _labels(overview))
    assert "no reference" in edr.get_title(loc="left")
    assert "No reference respiration" in text.texts[0].get_text()


def test_windowed_result_shows_sigma2_per_window(figure_record):
    res = extract_edr(figure_record, sigma2="rule-of-thumb", window_s=40.0, overlap=0.5)
    sigma = plot_record(figure_record, res).axes[5]
    assert f"σ² per window ({len(res.windows)} windows" in sigma.get_title(loc="left")
    np.testing.assert_allclose(sigma.lines[0].get_ydata(), [w.sigma2 for w in res.windows])


def test_method_without_sigma2(figure_record):
    res = extract_edr(figure_record, method="r_amplitude")
    texts = [t.get_text() for t in plot_record(figure_record, res).axes[5].texts]
    assert texts == ["method 'r_amplitude' has no σ²"]


def test_beat_fates_are_the_beats_each_window_kept(figure_record):
    """The figure marks the beats the pipeline detected (``WindowInfo.beats``), the same as
    detecting every overlapping window again."""
    res = extract_edr(figure_record, sigma2="rule-of-thumb", window_s=40.0, overlap=0.5)
    assert len(res.windows) > 2 and all(w.beats is not None for w in res.windows)
    for w in res.windows:
        assert w.beats["times"].size == w.n_beats + w.n_dropped
        assert w.start_s - 0.5 <= w.beats["times"].min() and w.beats["times"].max() <= w.end_s
    again = dataclasses.replace(res, windows=[dataclasses.replace(w, beats=None)
                                              for w in res.windows])
    for t0 in (0.0, 25.0, 50.0):
        kept, detected = beat_fates(figure_record, res, t0, t0 + 40.0), \
            beat_fates(figure_record, again, t0, t0 + 40.0)
        assert kept["lead"] == detected["lead"] == "II"
        for fate in BEAT_FATES:
            np.testing.assert_array_equal(kept[fate], detected[fate])
        assert kept["used"].size > 30 and kept["artefact"].size + kept["ectopic"].size >= (
            1 if t0 <= figure_record.dropped_time < t0 + 40.0 else 0)


def test_an_ecg_array_draws_as_its_recording(figure_record):
    """An ECG array with its rate draws the figure of the Recording the array becomes, which
    ``edr.plot_record`` (the package's entry point) draws as well."""
    import edr
    from edr.io.arrays import as_recording
    from edr.record_figure import record_figure

    ecg = np.asarray(figure_record.ecg)
    res = extract_edr(ecg, fs=figure_record.fs, sigma2=0.5)
    from_array = record_figure(ecg, res, fs=figure_record.fs)
    from_recording = record_figure(as_recording(ecg, fs=figure_record.fs), res)
    assert from_array.title == from_recording.title == (
        "array: 90 s of ECG at 250 Hz, EDR by kpca_fusion")
    np.testing.assert_array_equal(from_array.ecg.y, from_recording.ecg.y)
    np.testing.assert_array_equal(from_array.beats["used"].x, from_recording.beats["used"].x)
    assert edr.plot_record is plot_record
    fig = edr.plot_record(ecg, res, fs=figure_record.fs)
    assert [ax.get_ylabel() for ax in fig.axes][:3] == ["breaths/min", "quality", "mV"]


def test_an_ecg_array_without_its_rate_is_refused(figure_record, figure_result):
    from edr.io.arrays import SamplingRateError

    with pytest.raises(SamplingRateError, match="fs"):
        plot_record(np.asarray(figure_record.ecg), figure_result)
