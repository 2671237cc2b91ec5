"""The breaths of one record through every output: ``EDRResult.breaths`` and its DataFrame, the
breath CSV and WFDB annotations and the JSON summary of ``edr extract``, the record figure (its
marker data, static and HTML) and ``edr stream``: the same breaths everywhere."""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pandas as pd
import pytest
import wfdb

from edr import extract
from edr.breaths import Breaths
from edr.io import read_record
from edr.io.annotations import (
    BREATH_COLUMNS,
    write_breath_annotation_file,
    write_breath_csv,
)
from edr.pipeline import extract_edr
from edr.simulate import simulate_recording

FS = 125.0
APNOEA = (100.0, 30.0)  # a 30 s apnoea from 100 s: one pause


@pytest.fixture(scope="module")
def extracted(tmp_path_factory):
    """A simulated 4-minute record with an apnoea, written as WFDB and run through
    ``edr extract`` with every breath output; returns the folder, the record read back, the
    result of the same extraction in this process, what the command printed and the simulation
    (its true breaths)."""
    folder = tmp_path_factory.mktemp("breath_outputs")
    sim = simulate_recording(240.0, FS, random_state=0, apnoea_episodes=[APNOEA])
    wfdb.wrsamp("sim", fs=FS, units=["mV", "NU"], sig_name=["II", "RESP"],
                p_signal=np.column_stack([sim.ecg, sim.resp]), fmt=["16", "16"],
                write_dir=str(folder))
    argv = [str(folder / "sim.hea"), "-o", str(folder / "sim_edr.csv"), "--json",
            str(folder / "sim.json"), "--breaths", str(folder / "sim_breaths.csv"),
            "--breath-annotations", str(folder / "sim.edrbr")]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert extract.main(argv) == 0
    rec = read_record(folder / "sim.hea")
    return folder, rec, extract_edr(rec), printed.getvalue(), sim


def test_the_record_has_its_breaths_and_a_pause(extracted):
    _, _, result, _, sim = extracted
    b = result.breaths
    assert len(b) > 40 and b.pauses.shape == (1, 2)
    assert b.pauses[0, 0] < APNOEA[0] + 2 and b.pauses[0, 1] > sum(APNOEA)
    truth = np.asarray(sim.breath_times)
    from edr.evaluate.breaths import score_breaths

    assert score_breaths(b.time, truth).f1 > 0.9


def test_csv_dataframe_and_json_carry_the_same_breaths(extracted):
    folder, _, result, printed, _ = extracted
    frame = result.breath_frame()
    csv = pd.read_csv(folder / "sim_breaths.csv")
    assert tuple(csv.columns) == BREATH_COLUMNS == tuple(frame.columns)
    assert len(csv) == len(frame) == len(result.breaths)
    np.testing.assert_allclose(csv["time_s"], frame["time_s"], atol=1e-6)
    np.testing.assert_allclose(csv["onset_s"], frame["onset_s"], atol=1e-6)  # NaN = NaN
    assert np.isfinite(csv["onset_s"]).mean() > 0.9
    np.testing.assert_allclose(csv["interval_s"], frame["interval_s"], atol=1e-6)  # NaN = NaN
    np.testing.assert_allclose(csv["quality"], frame["quality"], atol=5e-5)
    for flag in BREATH_COLUMNS[4:]:
        np.testing.assert_array_equal(csv[flag].astype(bool), frame[flag])
    assert csv["after_pause"].sum() == 1
    summary = json.loads((folder / "sim.json").read_text())
    digest = result.breaths.summary()
    assert summary["breaths"] == pytest.approx(digest)
    assert summary["breaths"]["n_breaths"] == len(csv)
    assert summary["breaths"]["n_kept"] == int((csv["low_quality"] == 0).sum())
    trusted = csv["interval_s"][(csv["after_pause"] == 0) & csv["interval_s"].notna()]
    assert summary["breaths"]["interval_median_s"] == pytest.approx(trusted.median(), abs=1e-5)
    line = next(ln for ln in printed.splitlines() if ln.startswith("breaths "))
    assert f"{len(csv)} found, {summary['breaths']['n_kept']} kept" in line and "1 pause (" in line


def test_wfdb_annotations_read_back_with_rdann(extracted):
    folder, rec, result, _, _ = extracted
    b = result.breaths
    ann = wfdb.rdann(str(folder / "sim"), "edrbr")
    assert ann.fs == rec.fs == FS
    np.testing.assert_array_equal(ann.sample, np.round(b.time * FS).astype(int))
    assert set(ann.symbol) == {'"'}
    quality = [float(note.split()[0].removeprefix("q=")) for note in ann.aux_note]
    np.testing.assert_allclose(quality, b.quality, atol=0.005)
    for flag in ("low_quality", "after_gap", "after_pause"):
        np.testing.assert_array_equal([flag in note.split() for note in ann.aux_note],
                                      getattr(b, flag))


def test_the_figure_marks_the_same_breaths_and_shades_the_pause(extracted):
    from edr.plots import plot_record
    from edr.record_figure import record_figure

    _, rec, result, _, _ = extracted
    b = result.breaths
    minute = (80.0, 140.0)  # the apnoea in it
    data = record_figure(rec, result, minute_start_s=minute[0])
    inside = (b.time >= minute[0]) & (b.time <= minute[1])
    kept = data.breaths["kept"]
    np.testing.assert_array_equal(kept.x, b.time[inside & ~b.low_quality])
    assert data.breaths["low_quality"].x.size == int((inside & b.low_quality).sum()) == 0
    np.testing.assert_allclose(kept.y, np.interp(kept.x, data.edr.x, data.edr.y))
    assert data.pauses[1] == [tuple(p) for p in b.pauses.tolist()]
    fig = plot_record(rec, result, minute_start_s=minute[0])
    ax_edr = fig.axes[3]
    line = next(ln for ln in ax_edr.get_lines() if ln.get_gid() == "breaths-kept")
    np.testing.assert_array_equal(line.get_xdata(), b.time[inside & ~b.low_quality])
    shaded = [p for p in ax_edr.patches if p.get_gid() == "pauses"]
    assert len(shaded) == 1 and "pause" in (shaded[0].get_label() or "")
    assert any(p.get_gid() == "pauses" for p in fig.axes[0].patches)  # on the overview too


def test_the_html_figure_marks_the_same_breaths(extracted):
    pytest.importorskip("plotly")
    from edr.plots_html import html_figure
    from edr.record_figure import record_figure

    _, rec, result, _, _ = extracted
    data = record_figure(rec, result, minute_start_s=80.0)
    fig = html_figure(data)
    traces = {t.meta: t for t in fig.data if t.meta}
    np.testing.assert_array_equal(np.asarray(traces["breaths-kept"].x, dtype=float),
                                  data.breaths["kept"].x)
    assert "pauses" in traces


def _breaths(times, low=None) -> Breaths:
    n = len(times)
    t = np.asarray(times, dtype=float)
    return Breaths(t, np.r_[np.nan, np.diff(t)][:n], np.full(n, 0.8),
                   np.zeros(n, bool) if low is None else np.asarray(low, bool),
                   np.r_[True, np.zeros(max(n - 1, 0), bool)][:n], np.zeros(n, bool),
                   np.empty((0, 2)), np.empty((0, 2)), 1)


def test_no_breath_gives_a_header_only_csv_and_an_empty_annotation_file(tmp_path):
    none = _breaths([])
    csv = write_breath_csv(tmp_path / "none.csv", none)
    assert csv.read_text() == ",".join(BREATH_COLUMNS) + "\n"
    assert pd.read_csv(csv).empty
    ann = write_breath_annotation_file(tmp_path / "none.edrbr", none, FS)
    assert wfdb.rdann(str(tmp_path / "none"), "edrbr").sample.size == 0
    assert ann.stat().st_size == 2
    with pytest.raises(ValueError, match="no extension"):
        write_breath_annotation_file(tmp_path / "none", _breaths([1.0]), FS)


def test_annotation_file_of_any_name_reads_back(tmp_path):
    b = _breaths([1.0, 4.5, 8.25], low=[False, True, False])
    write_breath_annotation_file(tmp_path / "rec.brth", b, 250.0)
    ann = wfdb.rdann(str(tmp_path / "rec"), "brth")
    assert ann.sample.tolist() == [250, 1125, 2062] and ann.fs == 250.0
    assert ann.aux_note == ["q=0.80 after_gap", "q=0.80 low_quality", "q=0.80"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rec.brth"]  # no temporary left


@pytest.mark.parametrize(
    ("name", "fragment"),
    [("out/sim", "needs an extension"), ("out/sim.hea", "a WFDB record's own file"),
     ("out/sim.ed-br", "needs an extension")],
)
def test_bad_annotation_names_fail_before_any_work(name, fragment, tmp_path, monkeypatch,
                                                   capsys):
    monkeypatch.chdir(tmp_path)
    sim = simulate_recording(60.0, FS, random_state=1)
    wfdb.wrsamp("rec", fs=FS, units=["mV"], sig_name=["II"], p_signal=sim.ecg[:, None],
                fmt=["16"], write_dir=str(tmp_path))
    code = extract.main(["rec.hea", "--breaths", "out/b.csv", "--breath-annotations", name])
    err = capsys.readouterr().err
    assert code == 2 and fragment in err and "--breath-annotations" in err
    assert not (tmp_path / "out").exists() and not (tmp_path / "rec_edr.csv").exists()


def test_a_failing_breath_output_leaves_no_output(tmp_path, monkeypatch, capsys):
    import edr.io.annotations

    monkeypatch.chdir(tmp_path)
    sim = simulate_recording(60.0, FS, random_state=1)
    wfdb.wrsamp("rec", fs=FS, units=["mV"], sig_name=["II"], p_signal=sim.ecg[:, None],
                fmt=["16"], write_dir=str(tmp_path))

    def broken(path, breaths, fs):
        raise OSError("disk full")

    monkeypatch.setattr(edr.io.annotations, "write_breath_annotation_file", broken)
    code = extract.main(["rec.hea", "--json", "out/rec.json", "--breaths", "out/b.csv",
                         "--breath-annotations", "out/rec.edrbr"])
    assert code == 2 and "disk full" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rec.dat", "rec.hea"]


@pytest.fixture(scope="module")
def streamed(extracted):
    """``edr stream`` of the same record with ``--breaths``: the breath CSV read back."""
    from edr.stream import cli as stream

    folder = extracted[0]
    out = folder / "live_breaths.csv"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        assert stream.main([str(folder / "sim.hea"), "-o", str(folder / "live.csv"),
                            "--breaths", str(out), "--quiet"]) == 0
    assert " breaths; faults" in printed.getvalue()
    return pd.read_csv(out)


def test_stream_breaths_have_the_offline_columns_once_each(streamed):
    assert tuple(streamed.columns) == (*BREATH_COLUMNS, "reported_s")
    assert np.all(np.diff(streamed["time_s"]) > 0)  # each breath reported once, in order
    onset = streamed["onset_s"].to_numpy()  # the start of inspiration before each end, as offline
    ok = np.isfinite(onset)
    assert ok.mean() > 0.9 and np.all(onset[ok] < streamed["time_s"].to_numpy()[ok])
    assert np.all(np.diff(streamed["reported_s"]) >= 0)


def test_stream_reports_each_breath_within_its_latency_bound(streamed):
    from edr.signal import RATE_WINDOW_S
    from edr.stream import DEFAULT_DELAY_S, DEFAULT_HOP_S
    from edr.stream.breaths import BREATH_SETTLE_S, latency_bound_s

    bound = latency_bound_s(DEFAULT_DELAY_S, DEFAULT_HOP_S)
    assert bound == BREATH_SETTLE_S + DEFAULT_DELAY_S + DEFAULT_HOP_S == 26.0
    after_warmup = streamed[streamed["time_s"] >= RATE_WINDOW_S]
    latency = after_warmup["reported_s"] - after_warmup["time_s"]
    assert len(after_warmup) > 40 and latency.max() <= bound
    before_end = after_warmup["reported_s"] < streamed["reported_s"].max()  # the end: at once
    assert latency[before_end].min() >= BREATH_SETTLE_S  # settled first: the bound is not idle


def test_stream_breaths_agree_with_the_offline_ones(streamed, extracted):
    from edr.evaluate.breaths import match_breaths

    offline = extracted[2].breaths
    decided = streamed[streamed["uncertain_polarity"] == 0]
    # the arrhythmia decides the polarity at the first look, 128 s of EDR (8 s behind)
    from edr.stream.polarity_looks import FIRST_LOOK_S
    assert decided["reported_s"].min() <= FIRST_LOOK_S + 8.0 + 2.0
    st = decided["time_s"].to_numpy()
    ref = offline.time[offline.time >= st[0] - 0.5]
    ri, di = match_breaths(st, ref)
    # inside the apnoea (and at the breath leading into it) both EDRs are noise, and the
    # stream's crosses the prominence floor a few times where the offline one does not (2-4
    # breaths on seeds 0-3, with or without the one-lead QRS slopes); outside it every breath
    # must agree
    apnoea = (st >= APNOEA[0] - 5.0) & (st <= sum(APNOEA))
    assert np.isin(np.flatnonzero(~apnoea), di).mean() >= 0.95 and ri.size >= 0.95 * ref.size
    assert apnoea.sum() - np.isin(np.flatnonzero(apnoea), di).sum() <= 4
    assert np.median(np.abs(st[di] - ref[ri])) < 0.1  # the stream's EDR is close to offline's
    onsets = decided["onset_s"].to_numpy()[di] - offline.onset[offline.time >= st[0] - 0.5][ri]
    assert np.nanmedian(np.abs(onsets)) < 0.1  # the same point of the breath, as offline
    np.testing.assert_array_equal(decided["after_pause"].to_numpy()[di].astype(bool),
                                  offline.after_pause[offline.time >= st[0] - 0.5][ri])
    assert decided["after_pause"].sum() == 1
    np.testing.assert_array_equal(decided["low_quality"], 0)


def test_stream_breath_file_has_its_header_first_and_each_update_flushed(tmp_path):
    from edr.stream.engine import StreamUpdate
    from edr.stream.sinks import BREATHS_HEADER, StreamOutputs

    out = tmp_path / "b.csv"
    u = StreamUpdate(34.0, np.array([0.0]), np.array([0.5]), np.empty(0), np.empty(0),
                     np.empty(0))
    with StreamOutputs(tmp_path / "live.csv", breaths=out) as sink:
        assert out.read_text() == BREATHS_HEADER + "\n"
        sink.write(u)
        sink.write_breaths(_breaths([1.0, 5.0]), 30.0)
        assert out.read_text().splitlines()[1:] == ["1.000000,nan,nan,0.8000,0,1,0,0,30.000",
                                                    "5.000000,nan,4.000000,0.8000,0,0,0,0,30.000"]
    assert sink.breaths == 2


def test_a_breath_found_only_after_its_bound_is_not_reported():
    from edr.stream.breaths import StreamBreaths
    from edr.stream.engine import StreamUpdate

    t = np.arange(0, 120, 0.25)
    x = np.exp(2 * np.sin(2 * np.pi * t / 4))  # sharp maxima at 1, 5, 9, ... s
    centres = np.arange(16.0, 104.0, 16.0)
    sb = StreamBreaths(4.0)
    # 120 s of EDR at once at stream time 128: the breaths after 32 s and more than the bound
    # (26 s) before 128 are late; those of the first 32 s are not held to the bound
    b = sb.add(StreamUpdate(128.0, t, x, centres, np.full(centres.size, 15.0),
                            np.full(centres.size, 0.9)), beat_times=np.arange(0, 120, 0.8))
    assert sb.bound_s == 26.0
    assert np.all((b.time < 32) | (b.time >= 128 - 26)) and np.any(b.time < 32)
    late = np.arange(33.0, 102.0, 4.0)  # the maxima in [32, 102): 33, 37, ..., 101
    assert sb.n_late == late.size and sb.n_reported == len(b)
    rest = sb.finish(130.0)  # the end: the breaths after 104 s (ready at 128: 120 - 16)
    np.testing.assert_allclose(rest.time, [105.0, 109.0, 113.0, 117.0], atol=0.05)


def test_a_pause_whose_closing_windows_are_still_to_come_is_kept():
    """An apnoea from 96 to 132 s whose rate windows centred 112 and 128 s are withheld (mostly
    apnoea; offline withholds those of the simulated record): the window that judges the breath
    ending the pause (centred 144 s) is reported at 160 s, after the latency bound of that
    breath and of the last ripples before it. With the windows still to come given the benefit
    of the doubt, the stream reports the breaths and the pause that offline finds with every
    window known, and none of the apnoea's ripples."""
    from edr.stream.breaths import StreamBreaths
    from edr.stream.engine import StreamUpdate

    t = np.arange(0, 240, 0.25)
    x = np.cos(2 * np.pi * t / 4)  # 15 /min, maxima at 0, 4, 8, ... s
    apnoea = (t > 97) & (t < 131)
    x[apnoea] = 0.1 * np.sin(2 * np.pi * (t[apnoea] - 97) / 4.3) \
        + 0.02 * np.random.default_rng(0).standard_normal(apnoea.sum())  # shallow ripples
    hr = 70 + 8 * x  # the arrhythmia decides the polarity: peaks
    phase = np.cumsum(hr / 60 * 0.25)
    beats = np.interp(np.arange(0, phase[-1]), phase, t)
    centres = np.arange(16.0, 232.0, 16.0)
    withheld = (centres == 112.0) | (centres == 128.0)
    bpm = np.where(withheld, np.nan, 15.0)
    quality = np.where(withheld, 0.5, 0.9)
    sb, parts = StreamBreaths(4.0), []
    for now in np.arange(32.0, 242.0, 2.0):  # an update every 2 s, the EDR 8 s behind
        new = (t >= now - 10) & (t < now - 8) if now > 32 else t < now - 8
        c = (centres + 16 <= now) & (centres + 16 > now - 2)  # windows reported at their end
        u = StreamUpdate(now, t[new], x[new], centres[c], bpm[c], quality[c])
        parts.append(sb.add(u, beat_times=beats[beats < now - 8]))
    parts.append(sb.finish(242.0))
    times = np.concatenate([p.time for p in parts])
    after = np.concatenate([p.after_pause for p in parts])
    offline = detect_breaths_of(t, x, beats, centres, bpm, quality)
    np.testing.assert_allclose(offline.pauses, [[96.0, 132.0]], atol=0.05)
    inner, inner_off = (times > 2) & (times < 230), (offline.time > 2) & (offline.time < 230)
    np.testing.assert_allclose(times[inner], offline.time[inner_off], atol=0.05)  # no ripple
    np.testing.assert_array_equal(after[inner], offline.after_pause[inner_off])
    assert after.sum() == 1 and sb.n_late == 0


def detect_breaths_of(t, x, beats, centres, bpm, quality):
    """The offline breaths of the EDR ``x`` on ``t`` with every rate window known."""
    from edr.breaths import detect_breaths
    from edr.pipeline import EDRResult

    res = EDRResult(time=t, waveform=x, fs=4.0, beat_times=beats, beat_values=np.empty(0),
                    rate_time=centres, rate_bpm=bpm, method="test", lead="test", sigma2=None,
                    selection=None, windows=[], n_beats=0, n_beats_dropped=0, params={},
                    rate_quality=quality)
    return detect_breaths(res)
