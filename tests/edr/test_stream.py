"""Real-time EDR (edr.stream): agreement with the offline default, the abstention rule, block-size
invariance, bounded state, latency on a replay, the σ² schedule, the command line (replay,
multi-column standard input, a real pylsl outlet) and bad inputs."""

from __future__ import annotations

import csv
import io
import threading
import time
import uuid

import numpy as np
import pytest

from edr.pipeline import extract_edr
from edr.rates import QUALITY_THRESHOLD
from edr.simulate import simulate_recording
from edr.stream import StreamingEDR
from edr.stream.cli import main
from edr.stream.projected import FILL_REFIT_GROWTH, FILL_SELECT_GROWTH, REFIT_S

FS = 125.0
LEADS = ("II", "V2")
FAST = {"sigma2": "rot"}  # a cheap criterion keeps the tests fast; the schedule is the same


@pytest.fixture(scope="module")
def rec():
    return simulate_recording(150.0, FS, leads=LEADS, random_state=7)


def _x(rec):
    return np.column_stack([rec.leads[n] for n in LEADS])


def _run(x, block, **kw):
    s = StreamingEDR(FS, leads=LEADS, **{**FAST, **kw})
    ups = []
    for i in range(0, x.shape[0], block):
        ups += s.push(x[i:i + block])
    return s, ups + s.flush()


@pytest.fixture(scope="module")
def streamed(rec):
    return _run(_x(rec), 125)


def _joined(ups, attr_t, attr_v):
    return (np.concatenate([getattr(u, attr_t) for u in ups]),
            np.concatenate([getattr(u, attr_v) for u in ups]))


def test_stream_agrees_with_offline_default(rec, streamed):
    _, ups = streamed
    t, y = _joined(ups, "edr_time", "edr")
    off = extract_edr(rec, sigma2="rot")
    np.testing.assert_allclose(t, off.time)  # the same grid, every point once, in order
    ok = np.isfinite(y) & np.isfinite(off.waveform)
    assert ok.mean() > 0.95
    assert np.corrcoef(y[ok], off.waveform[ok])[0, 1] > 0.9  # same sign too
    rt, rb = _joined(ups, "rate_time", "rate_bpm")
    np.testing.assert_allclose(rt, off.rate_time)
    both = np.isfinite(rb) & np.isfinite(off.rate_bpm)
    assert both.sum() >= rb.size - 2 and np.median(np.abs(rb[both] - off.rate_bpm[both])) < 1.0


@pytest.mark.parametrize("kw", [{"method": "kpca", "lead": "II"}, {"method": "r_amplitude"},
                                {"lead": "auto"}])
def test_other_methods_and_lead_modes_stream_by_reanalysis(rec, kw):
    from edr.stream.windowed import WindowedPath

    s, ups = _run(_x(rec), 250, **kw)
    assert isinstance(s._path, WindowedPath)
    t, y = _joined(ups, "edr_time", "edr")
    off = extract_edr(rec, sigma2="rot", **kw)
    np.testing.assert_allclose(t, off.time)
    ok = np.isfinite(y) & np.isfinite(off.waveform)
    # the same breathing as offline, less exactly than the projected default (window edges)
    assert ok.mean() > 0.9 and np.corrcoef(y[ok], off.waveform[ok])[0, 1] > 0.6


def test_rates_abstain_below_the_quality_threshold(streamed):
    _, ups = streamed
    _, q = _joined(ups, "rate_time", "quality")
    _, rb = _joined(ups, "rate_time", "rate_bpm")
    assert np.all(np.isnan(rb[q < QUALITY_THRESHOLD]))
    flat = np.zeros((int(90 * FS), 2))  # no ECG: nothing analysed, no rate, EDR masked
    s, ups = _run(flat + 1e-3 * np.random.default_rng(0).standard_normal(flat.shape), 500)
    _, rb = _joined(ups, "rate_time", "rate_bpm")
    _, y = _joined(ups, "edr_time", "edr")
    assert rb.size and np.all(np.isnan(rb)) and np.all(np.isnan(y))
    assert all(u.status != "ok" for u in ups)


def test_block_size_does_not_change_output(rec, streamed):
    x = _x(rec)[:int(70 * FS)]
    ref = _joined(_run(x, 10_000)[1], "edr_time", "edr")
    for block in (1, 37):
        got = _joined(_run(x, block)[1], "edr_time", "edr")
        np.testing.assert_array_equal(got[0], ref[0])
        np.testing.assert_array_equal(got[1], ref[1])


def test_latency_on_a_replay(rec):
    """After the warm-up (the first update emits its first 26 s at once), EDR samples within
    delay + hop (≤ 10 s) of their time; each rate window's rate by its end plus the update's
    wall-clock compute time, within 2 s."""
    x = _x(rec)
    s = StreamingEDR(FS, leads=LEADS, **FAST)
    assert s.delay_s + s.hop_s <= 10.0
    block = int(0.25 * FS)
    edr_late, rate_late = [], []
    for i in range(0, x.shape[0], block):
        w0 = time.perf_counter()
        ups = s.push(x[i:i + block])
        wall = time.perf_counter() - w0
        for u in ups:
            if s.n_updates > 1:
                edr_late += list(u.time_s - u.edr_time + wall)
            rate_late += list(u.time_s - (u.rate_time + 16.0) + wall)  # 16 s: half a window
    assert edr_late and rate_late
    assert max(edr_late) <= s.delay_s + s.hop_s + 1.0  # + wall time of the update
    assert min(edr_late) >= s.delay_s
    assert max(rate_late) <= 2.0


def test_state_is_bounded_and_sigma2_follows_the_schedule():
    x = np.column_stack([simulate_recording(600.0, FS, leads=LEADS, random_state=3).leads[n]
                         for n in LEADS])
    s = StreamingEDR(FS, leads=LEADS, span_s=60.0, hop_s=8.0, reselect_s=120.0, **FAST)
    sizes = []
    for i in range(0, x.shape[0], int(30 * FS)):
        ups = s.push(x[i:i + int(30 * FS)])
        sizes.append((s.ring.buf.size, max(b._kept["peaks"].size for b in s.beats.values())))
        for u in ups:
            assert set(u.sigma2) == set(LEADS)
    # the ring buffer is fixed; each lead keeps the beats of one span (60 s, < 3 beats/s)
    assert len({v[0] for v in sizes}) == 1 and max(v[1] for v in sizes) <= 180
    # first update (32 s), span full (64 s), then every 120 s: 184, 304, 424, 544
    assert s.n_selections == 6


def test_the_filling_span_is_refitted_as_it_grows_and_sigma2_selected_as_it_quadruples():
    x = simulate_recording(300.0, FS, leads=("II",), random_state=4).leads["II"]
    s = StreamingEDR(FS, leads=("II",), **FAST)
    fits, selected = [], []
    for i in range(0, x.size, int(2 * FS)):  # one update per block
        for u in s.push(x[i:i + int(2 * FS)]):
            if s._path._last_fit == u.time_s:
                fits.append(u.time_s)
            if u.reselected:
                selected.append(u.time_s)
    # the rule written out: a refit every REFIT_S, and while the span fills also once it holds
    # FILL_REFIT_GROWTH times the ECG of the last fit; σ² selected at the first update, at a
    # refit of the filling span once it holds FILL_SELECT_GROWTH times the ECG of the last
    # selection, and when the span fills (240 s)
    want_fits, want_selected, last_fit, last_selected = [], [], None, None
    for t in np.arange(32.0, 301.0, 2.0):
        filling = t < 240.0
        if last_fit is None or t - last_fit >= REFIT_S or t == 240.0 \
                or (filling and t >= FILL_REFIT_GROWTH * last_fit):
            want_fits.append(t)
            if last_selected is None or t == 240.0 \
                    or (filling and t >= FILL_SELECT_GROWTH * last_selected):
                want_selected.append(t)
                last_selected = t
            last_fit = t
    assert fits == want_fits
    assert fits[:8] == [32.0, 40.0, 50.0, 64.0, 80.0, 100.0, 126.0, 156.0]
    assert selected == want_selected == [32.0, 156.0, 240.0]


def test_analyse_window_takes_a_kernel_width_per_lead(rec):
    from edr.options import EDROptions
    from edr.window_analysis import analyse_window
    from edr.windows import Window, output_grid, record_leads

    opts = EDROptions(lead="fuse", sigma2="rot")
    leads = record_leads(rec, opts)
    grid = output_grid(rec.ecg.size / FS, 4.0)
    w = Window(0.0, 60.0)
    chosen = analyse_window(w, leads, FS, grid, opts).lead_sigma2
    assert set(chosen) == set(LEADS)
    again = analyse_window(w, leads, FS, grid, opts, sigma2=chosen)
    assert again.lead_sigma2 == chosen
    fixed = analyse_window(w, leads, FS, grid, EDROptions(lead="fuse", sigma2=chosen["II"]),
                           sigma2={"V2": chosen["V2"]})
    np.testing.assert_allclose(fixed.series, again.series)


@pytest.mark.parametrize("sign", [1, -1])
def test_beat_tracker_matches_detection_over_the_span(sign):
    from edr.beats import detect
    from edr.stream.beats import BeatTracker

    x = sign * simulate_recording(300.0, FS, leads=("II",), random_state=5).leads["II"]
    tracker, span, hop = BeatTracker(FS), int(120 * FS), int(4 * FS)
    checked = 0
    for n in range(int(32 * FS), x.size + 1, hop):
        w = x[max(0, n - span):n]
        got = tracker.update(w, n)
        if n % int(40 * FS) >= hop:
            continue
        ref = detect(w, FS)  # the reference: every beat of the span detected afresh
        assert got.polarity == ref.polarity == sign
        assert abs(got.peaks.size - ref.peaks.size) <= 1
        k = np.abs(got.peaks[:, None] - ref.peaks[None, :]).argmin(axis=0)
        d = np.abs(got.peaks[k] - ref.peaks)
        assert np.mean(d < 1.0) >= 0.99 and np.median(d) < 0.1
        assert np.mean(got.valid[k] == ref.valid) >= 0.98
        checked += 1
    assert checked >= 6


def test_kept_features_equal_features_computed_afresh():
    from edr.methods import Segment
    from edr.stream.beats import BeatTracker
    from edr.stream.features import FEATURES, FeatureCache

    x = simulate_recording(120.0, FS, leads=("II",), random_state=3).leads["II"]
    tracker, cache, hop, m = BeatTracker(FS), FeatureCache(), int(2 * FS), int(40 * FS)
    for n in range(int(32 * FS), x.size + 1, hop):
        tracker.advance(x[max(0, n - int(64 * FS)):n], n, 0)
        start = max(0, n - m)
        beats = tracker.since(start)
        grid = np.arange(int(np.ceil(start / FS * 4)), int((n - 1) / FS * 4) + 1) / 4.0
        got = cache.segment(x[start:n], FS, start, beats, grid, 4.0, "II",
                            tracker.settled_before, 0)
        ref = Segment(x[start:n], FS, start / FS, beats, grid, 4.0, "II")
        for name, want in (("none", ref.matrix("none")), ("r_amplitude", ref.r_amplitudes()),
                           ("qrs_area", ref.qrs_areas())):
            np.testing.assert_allclose(got.features[name], want, rtol=0, atol=1e-12)
    assert set(FEATURES) <= set(got.features)
    every = tracker.since(0).peaks
    assert len(cache) == int((every < tracker.settled_before).sum())  # each settled beat, once


def test_analyse_window_takes_given_beats(rec):
    from edr.beats import detect
    from edr.options import EDROptions
    from edr.window_analysis import analyse_window
    from edr.windows import Window, output_grid, record_leads

    opts = EDROptions(lead="fuse", sigma2="rot")
    leads = record_leads(rec, opts)
    grid = output_grid(rec.ecg.size / FS, 4.0)
    w = Window(0.0, 60.0)
    beats = {n: detect(x[:int(60 * FS)], FS) for n, x in leads.items()}
    np.testing.assert_array_equal(analyse_window(w, leads, FS, grid, opts, beats=beats).series,
                                  analyse_window(w, leads, FS, grid, opts).series)


def test_analyse_window_reads_given_features_instead_of_the_ecg(rec):
    from edr.beats import detect
    from edr.methods import Segment
    from edr.options import EDROptions
    from edr.stream.features import _computed
    from edr.window_analysis import analyse_window
    from edr.windows import Window, output_grid, record_leads

    opts = EDROptions(lead="fuse", sigma2="rot")
    leads = record_leads(rec, opts)
    grid = output_grid(rec.ecg.size / FS, 4.0)
    w, n = Window(0.0, 60.0), int(60 * FS)
    beats = {name: detect(x[:n], FS) for name, x in leads.items()}
    features = {name: _computed(Segment(x[:n], FS, 0.0, beats[name], grid, 4.0, name))
                for name, x in leads.items()}
    plain = analyse_window(w, leads, FS, grid, opts, beats=beats).series
    given = analyse_window(w, leads, FS, grid, opts, beats=beats, features=features).series
    np.testing.assert_array_equal(given, plain)  # the same features: the same EDR
    for name in features:  # other features: another EDR (they are read, not recomputed)
        features[name] = {**features[name], "r_amplitude": -features[name]["r_amplitude"][::-1]}
    other = analyse_window(w, leads, FS, grid, opts, beats=beats, features=features).series
    assert not np.allclose(other, plain)


# --------------------------------------------------------------------------- command line
def _read_csv(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["time_s", "edr", "rate_bpm", "quality"]
    return np.array(rows[1:], dtype=float)


@pytest.fixture(scope="module")
def csv_record(tmp_path_factory, rec):
    path = tmp_path_factory.mktemp("rec") / "sim.csv"
    t = np.arange(rec.ecg.size) / FS
    x = _x(rec)[:int(90 * FS)]
    np.savetxt(path, np.column_stack([t[:x.shape[0]], x]), delimiter=",", header="time,II,V2",
               comments="", fmt="%.6f")
    return path, x


def test_cli_replay_matches_the_api(csv_record, tmp_path, capsys):
    path, x = csv_record
    out, rates = tmp_path / "out.csv", tmp_path / "rates.csv"
    assert main([str(path), "--sigma2", "rot", "-o", str(out), "--rates", str(rates)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines and all(line.startswith("t=") for line in lines)
    got = _read_csv(out)
    _, ups = _run(np.loadtxt(path, delimiter=",", skiprows=1)[:, 1:], 31)
    want = np.concatenate([u.edr for u in ups])
    np.testing.assert_allclose(got[:, 1], want, rtol=1e-8, atol=1e-9, equal_nan=True)
    r = np.loadtxt(rates, delimiter=",", skiprows=1, ndmin=2)
    np.testing.assert_allclose(r[:, 1], np.concatenate([u.rate_bpm for u in ups]), rtol=1e-5,
                               equal_nan=True)


def test_cli_stdin_several_columns(csv_record, tmp_path, monkeypatch, capsys):
    _, x = csv_record
    text = "II,junk,V2\n" + "".join(f"{a:.6f},7,{b:.6f}\n" for a, b in x)
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    out = tmp_path / "stdin.csv"
    assert main(["-", "--fs", "125", "--columns", "0,2", "--sigma2", "rot", "-o", str(out),
                 "--quiet"]) == 0
    assert capsys.readouterr().out == ""
    got = _read_csv(out)
    _, ups = _run(np.round(x, 6), 500)
    np.testing.assert_allclose(got[:, 1], np.concatenate([u.edr for u in ups]), rtol=1e-7,
                               atol=1e-8, equal_nan=True)


def test_edr_console_script_has_stream(capsys):
    from edr.cli import main as edr_main

    with pytest.raises(SystemExit) as exc:
        edr_main(["stream", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for option in ("--method", "--sigma2", "--span", "--hop", "--delay", "--columns", "--lsl"):
        assert option in text


@pytest.mark.parametrize("argv, needle", [
    (["missing.dat", "-o", "{out}"], "record not found"),
    (["-", "-o", "{out}"], "--fs"),
    (["{rec}", "-o", "{out}", "--speed", "0"], "--speed"),
    (["-o", "{out}"], "exactly one source"),
    (["{rec}", "-o", "{tmp}"], "is a folder"),
    (["{rec}", "-o", "{out}", "--method", "magic"], "valid methods"),
    (["{rec}", "-o", "{out}", "--sigma2", "banana"], "sigma2"),
    (["{rec}", "-o", "{out}", "--columns", "0"], "--columns"),
    (["{rec}", "-o", "{out}", "--lead", "V9"], "V9"),
    (["{rec}", "-o", "{out}", "--channel", "V9"], "V9"),
    (["-", "--fs", "125", "-o", "{out}", "--channel", "II"], "--channel applies to a record"),
])
def test_cli_bad_input(argv, needle, csv_record, tmp_path, capsys):
    out = tmp_path / "o.csv"
    argv = [a.format(out=out, rec=csv_record[0], tmp=tmp_path) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and needle in err, err
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_cli_record_without_an_ecg_name_is_streamed_by_channel(csv_record, tmp_path, capsys):
    """A record whose ECG column has no ECG name (``CH1``): the error names the flag that
    chooses it, ``--channel``, and the stream runs with it."""
    _, x = csv_record
    path = tmp_path / "ch.csv"
    np.savetxt(path, np.column_stack([np.arange(x.shape[0]) / FS, x[:, 0]]), delimiter=",",
               header="time,CH1", comments="", fmt="%.6f")
    out = tmp_path / "o.csv"
    assert main([str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "pass --channel <name>" in err and not out.exists()
    assert main([str(path), "--channel", "ch1", "--sigma2", "rot", "-o", str(out),
                 "--quiet"]) == 0
    assert _read_csv(out).shape[0] > 0


def test_cli_stdin_too_short_or_empty(tmp_path, monkeypatch, capsys):
    """A stream that ends before its first EDR: exit 2, no file (a bad line is no error: the
    fault-injection suite, test_stream_faults.py)."""
    out = tmp_path / "o.csv"
    for text, needle in (("0.1\n" * 500, "gave no EDR"), ("time\n\n", "holds no samples")):
        monkeypatch.setattr("sys.stdin", io.StringIO(text))
        assert main(["-", "--fs", "125", "-o", str(out)]) == 2
        assert needle in capsys.readouterr().err and not out.exists()
    assert list(tmp_path.iterdir()) == []


def _pylsl():
    try:
        import pylsl

        pylsl.library_version()
        return pylsl
    except Exception as exc:  # no pylsl, or liblsl that cannot load
        pytest.skip(f"pylsl/liblsl unavailable: {exc}")


def test_cli_lsl_two_channel_outlet(csv_record, tmp_path, capsys):
    pylsl = _pylsl()
    _, x = csv_record
    name = f"edr-test-{uuid.uuid4().hex[:8]}"
    outlet = pylsl.StreamOutlet(pylsl.StreamInfo(name, "ECG", 2, FS, "float32", name))

    def send():
        deadline = time.monotonic() + 10
        while not outlet.have_consumers() and time.monotonic() < deadline:
            time.sleep(0.02)
        t0 = pylsl.local_clock()
        for i in range(0, x.shape[0], 500):  # faster than real time, each sample stamped with
            chunk = x[i:i + 500]  # its sampling time (the stream fills timestamp gaps)
            outlet.push_chunk(chunk.tolist(), t0 + (i + len(chunk) - 1) / FS)
            time.sleep(0.01)

    th = threading.Thread(target=send, daemon=True)
    th.start()
    out = tmp_path / "lsl.csv"
    code = main(["--lsl", name, "--lsl-timeout", "1.5", "--sigma2", "rot", "-o", str(out)])
    th.join(5)
    assert code == 0, capsys.readouterr().err
    got = _read_csv(out)
    _, ups = _run(x.astype(np.float32).astype(float), 500)
    np.testing.assert_allclose(got[:, 1], np.concatenate([u.edr for u in ups]), atol=1e-6,
                               equal_nan=True)


def test_cli_lsl_stream_not_found(tmp_path, capsys):
    _pylsl()
    out = tmp_path / "o.csv"
    name = f"no-such-{uuid.uuid4().hex}"
    assert main(["--lsl", name, "--lsl-timeout", "0.3", "-o", str(out)]) == 2
    assert "no LSL stream named" in capsys.readouterr().err and not out.exists()


# --------------------------------------------------------------------------- projection path
def test_projection_reproduces_the_fusion_of_its_own_span():
    from edr.beats import detect
    from edr.fusion import ALIGN_LAG_S, band_passed
    from edr.methods import Segment
    from edr.options import EDROptions
    from edr.series_alignment import aligned_sum
    from edr.stream.projection import FusionModel
    from edr.window_analysis import analyse_window
    from edr.windows import Window

    sim = simulate_recording(180.0, FS, leads=LEADS, random_state=5)
    leads = {n: sim.leads[n] for n in LEADS}
    grid = np.arange(int(180.0 * 4)) / 4.0
    opts = EDROptions(method="kpca_fusion", sigma2=2.0, lead="fuse")
    wa = analyse_window(Window(0.0, 180.0), leads, FS, grid, opts)
    segments = {n: Segment(x, FS, 0.0, detect(x, FS), grid, 4.0, n) for n, x in leads.items()}
    model = FusionModel.of(wa, 4.0)
    assert set(model.fits) == set(wa.lead_models) and model.weights == wa.weights
    raw = model.fused(model.panel(segments))
    # the sum of band-passed series against the band-passed sum: equal but for the band-pass's
    # edge transients (0.05 Hz high-pass) on the lags' held edge samples. The projection adds
    # every series by its shift and sign; the offline fusion rotates the heart rate onto the
    # morphology (edr.fusion.HEART_PHASE), so it is compared with the shift-and-sign fusion of
    # the same panel and weights, and follows the offline series closely
    shift = aligned_sum(wa.panel, wa.weights, model.anchor_series, int(round(ALIGN_LAG_S * 4)))
    got, want = band_passed(raw, 4.0)[80:-80], shift[0][grid < 180.0][80:-80]
    np.testing.assert_allclose(got, want, atol=0.02)
    assert np.corrcoef(got, want)[0, 1] > 0.9999
    assert np.corrcoef(got, wa.series[grid < 180.0][80:-80])[0, 1] > 0.99


def test_a_lead_with_too_few_valid_beats_gives_no_projected_series():
    from dataclasses import replace

    from edr.beats import detect
    from edr.methods import Segment
    from edr.options import EDROptions
    from edr.stream.projection import FusionModel
    from edr.window_analysis import analyse_window
    from edr.windows import Window

    sim = simulate_recording(120.0, FS, leads=LEADS, random_state=5)
    leads = {n: sim.leads[n] for n in LEADS}
    grid = np.arange(int(120.0 * 4)) / 4.0
    wa = analyse_window(Window(0.0, 120.0), leads, FS, grid,
                        EDROptions(method="kpca_fusion", sigma2=2.0, lead="fuse"))
    model = FusionModel.of(wa, 4.0)
    segments = {n: Segment(x, FS, 0.0, detect(x, FS), grid, 4.0, n) for n, x in leads.items()}
    few = segments["V2"].beats
    valid = np.zeros(few.peaks.size, dtype=bool)
    valid[:10] = True  # fewer than MIN_BEATS valid beats: the lead's heart rate cannot be read
    segments["V2"] = replace(segments["V2"], beats=replace(few, valid=valid), features={})
    panel = model.panel(segments)
    assert panel and all(not name.startswith("V2/") for name in panel)
    assert any(name.startswith("II/") for name in panel)


def test_the_projected_stream_needs_a_second_of_delay():
    with pytest.raises(ValueError, match="delay_s must be at least 1 s for the kpca_fusion"):
        StreamingEDR(FS, leads=LEADS, delay_s=0.5)
    StreamingEDR(FS, leads=LEADS, delay_s=0.5, method="r_amplitude")  # re-analysis: any delay


def test_a_new_model_is_moved_onto_the_previous_models_phase_and_sign():
    path = StreamingEDR(FS, leads=LEADS)._path.projector  # the default streams by projection
    assert path.fs_out == 4.0 and path.max_lag == 4
    t = np.arange(240) / 4.0
    old = np.sin(2 * np.pi * 0.25 * t)
    old[:10] = np.nan
    y = -np.sin(2 * np.pi * 0.25 * (t - 0.5))  # half a second late, flipped
    assert path.alignment(y, old) == (-1.0, -2)
    assert path.alignment(y, old, lag=0) == (-1.0, 0)  # the same anchor keeps its shift
    # at 30 breaths/min a quarter period is 0.5 s: a 1 s shift (a half period, a sign change in
    # disguise) is not searched
    fast = np.sin(2 * np.pi * 0.5 * t)
    assert path.alignment(-fast, fast) == (-1.0, 0)
