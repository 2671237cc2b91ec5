"""Tests of edr.pipeline.extract_edr: synthetic records with known respiration, windows, bad input,
real data."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from edr.errors import ChannelError, SignalError
from edr.pipeline import EDRResult, extract_edr, plan_windows
from edr.scoring import score
from edr.simulate import simulate_recording

SIGMA2 = 0.5  # fixed width for the synthetic tests (criteria are tested in kpca.selection)


@pytest.fixture(scope="module")
def rec():
    return simulate_recording(duration_s=180.0, fs=250.0, random_state=1)


@pytest.fixture(scope="module")
def whole(rec):
    return extract_edr(rec, "kpca", sigma2=SIGMA2)


def test_kpca_recovers_the_known_respiration(rec, whole):
    assert isinstance(whole, EDRResult)
    s = score(whole, rec)
    assert s.msc > 0.7 and s.corr > 0.9
    assert whole.fs == 4.0 and whole.time.size == whole.waveform.size == 180 * 4
    assert np.all(np.isfinite(whole.waveform))
    # rate series: 32 s windows, 16 s step; the simulated rate is 15 /min
    assert whole.rate_time.size == (180 - 32) // 16 + 1
    assert abs(np.median(whole.rate_bpm) - 15.0) < 1.5
    assert whole.sigma2 == SIGMA2 and whole.selection is None
    assert len(whole.windows) == 1 and whole.windows[0].quality["status"] == "ok"
    assert whole.n_beats == whole.beat_times.size == whole.beat_values.size


def test_sign_convention_positive_with_r_amplitude(rec, whole):
    again = extract_edr(rec, "kpca", sigma2=SIGMA2)
    np.testing.assert_array_equal(whole.waveform, again.waveform)
    ramp = extract_edr(rec, "r_amplitude")
    assert np.corrcoef(whole.waveform, ramp.waveform)[0, 1] > 0
    pca = extract_edr(rec, "pca")
    assert np.corrcoef(pca.waveform, ramp.waveform)[0, 1] > 0


def test_inverted_lead_gives_the_same_edr(rec, whole):
    inv = dataclasses.replace(rec, ecg=-rec.ecg, leads={k: -v for k, v in rec.leads.items()})
    res = extract_edr(inv, "kpca", sigma2=SIGMA2)
    assert np.corrcoef(res.waveform, whole.waveform)[0, 1] > 0.99


def test_windowed_equals_whole_on_a_stationary_record(rec, whole):
    win = extract_edr(rec, "kpca", sigma2=SIGMA2, window_s=80.0, overlap=0.5)
    assert len(win.windows) == len(plan_windows(180.0, 80.0, 0.5)) == 4
    assert all(w.sigma2 == SIGMA2 for w in win.windows)
    assert np.corrcoef(win.waveform, whole.waveform)[0, 1] > 0.95
    # every beat is reported once
    assert np.all(np.diff(win.beat_times) > 0)
    assert abs(win.n_beats - whole.n_beats) <= 3


def test_plan_windows():
    assert plan_windows(480.0, None) == [(0.0, 480.0)]
    assert plan_windows(1000.0, None)[0] == (0.0, 300.0)
    w = plan_windows(250.0, 100.0, 0.5)
    assert w[0] == (0.0, 100.0) and w[-1] == (150.0, 250.0)
    assert plan_windows(80.0, 100.0) == [(0.0, 80.0)]


def test_nan_run_is_masked_and_reported():
    rec = simulate_recording(duration_s=200.0, fs=250.0, random_state=2)
    ecg = rec.ecg.copy()
    ecg[int(60 * rec.fs):int(130 * rec.fs)] = np.nan
    bad = dataclasses.replace(rec, ecg=ecg, leads={rec.ecg_channel: ecg})
    res = extract_edr(bad, "kpca", sigma2=SIGMA2, window_s=40.0, overlap=0.5)
    assert res.masked == [(60.0, 130.0)]  # cut out of the window plan
    assert all(w.end_s <= 60.0 or w.start_s >= 130.0 for w in res.windows)
    status = [w.quality["status"] for w in res.windows]
    assert "ok" in status and not any(s.startswith("skipped") for s in status)
    assert json.loads(json.dumps(res.summary()))["masked_s"] == [[60.0, 130.0]]
    gap = (res.time > 70) & (res.time < 120)
    assert np.all(np.isnan(res.waveform[gap]))
    assert (np.isfinite(res.waveform[res.time < 50]).all()
            and np.isfinite(res.waveform[res.time > 140]).all())
    t_rate = np.asarray(res.rate_time)
    assert np.isnan(np.asarray(res.rate_bpm)[(t_rate > 70) & (t_rate < 120)]).all()
    assert not np.any((res.beat_times > 61) & (res.beat_times < 129))


def _two_leads(rec, flat_from_s=None, flat_until_s=None):
    """``rec`` with a second lead (the first scaled), both flat over [flat_from_s, flat_until_s)."""
    leads = {"II": rec.ecg.copy(), "V": 0.6 * rec.ecg}
    if flat_from_s is not None:
        a, b = int(flat_from_s * rec.fs), int((flat_until_s or rec.duration_s) * rec.fs)
        for x in leads.values():
            x[a:b] = x[a]
    return dataclasses.replace(rec, ecg=leads["II"], ecg_channel="II", leads=leads)


@pytest.mark.parametrize("flat_share", [0.45, 0.5, 0.7])
def test_partial_record_gives_the_edr_of_its_usable_part(flat_share):
    """Every lead flat from some point on: the default analyses the rest, masks and reports the
    flat stretch, and gives rates there only (was: exit 2 at 50 %)."""
    rec = simulate_recording(duration_s=240.0, fs=250.0, random_state=4)
    cut = 240.0 * (1 - flat_share)
    res = extract_edr(_two_leads(rec, cut), sigma2=SIGMA2)
    assert res.status == "ok" and res.lead == "fuse"
    assert len(res.masked) == 1 and res.masked[0][0] == pytest.approx(cut, abs=0.01)
    assert res.masked[0][1] == 240.0
    assert [(w.start_s, w.end_s) for w in res.windows] == [(0.0, res.masked[0][0])]
    assert np.isnan(res.waveform[res.time > cut + 5.0]).all()
    assert np.isfinite(res.waveform[(res.time > 5.0) & (res.time < cut - 5.0)]).all()
    rate_t, rate = np.asarray(res.rate_time), np.asarray(res.rate_bpm)
    assert np.isnan(rate[rate_t > cut]).all()
    full = extract_edr(_two_leads(rec), sigma2=SIGMA2)  # the complete record, for comparison
    inside = rate_t + 16.0 <= cut
    assert np.isfinite(rate[inside]).all() and inside.sum() >= 3
    assert np.abs(rate[inside] - np.asarray(full.rate_bpm)[inside]).max() < 1.0
    part = (res.time > 5.0) & (res.time < cut - 5.0)
    assert np.corrcoef(res.waveform[part], full.waveform[part])[0, 1] > 0.9


def test_record_without_any_usable_lead_raises():
    rec = simulate_recording(duration_s=120.0, fs=250.0, random_state=4)
    with pytest.raises(SignalError, match="no usable ECG: II, V flat or missing"):
        extract_edr(_two_leads(rec, 0.0), sigma2=SIGMA2)


def test_window_plan_within_usable_stretches():
    from edr.options import EDROptions
    from edr.windows import masked_stretches, window_plan

    opts = EDROptions(window_s=100.0)
    plan = window_plan(700.0, opts, [(250.0, 400.0)])
    assert [(w.start_s, w.end_s) for w in plan] == (
        plan_windows(250.0, 100.0) + [(400.0 + a, 400.0 + b) for a, b in plan_windows(300.0,
                                                                                      100.0)])
    assert plan[len(plan_windows(250.0, 100.0)) - 1].next_start is None  # no neighbour across
    assert window_plan(700.0, opts, []) == window_plan(700.0, opts)
    x = np.sin(np.arange(10_000) / 7.0)
    y = x.copy()
    x[1000:4000], y[2000:6000] = 1.0, np.nan  # masked together over samples 2000-4000 only
    assert masked_stretches({"a": x, "b": y}, 100.0) == [(20.0, 40.0)]
    assert masked_stretches({"a": x, "b": y}, 100.0, min_s=25.0) == []


def test_flat_line_lead_raises_signal_error():
    rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=2)
    flat = dataclasses.replace(rec, ecg=np.zeros_like(rec.ecg))
    with pytest.raises(SignalError):
        extract_edr(flat, "r_amplitude")


def test_fewer_than_20_beats():
    rec = simulate_recording(duration_s=12.0, fs=250.0, random_state=0)
    with pytest.raises(SignalError, match="beats"):
        extract_edr(rec, "kpca", sigma2=SIGMA2)


def test_summary_is_json_serialisable(rec, whole):
    s = json.loads(json.dumps(whole.summary()))
    assert s["method"] == "kpca" and s["n_windows"] == 1 and s["sigma2"] == SIGMA2
    assert s["params"]["sigma2"] == SIGMA2 and s["windows"][0]["quality"]["status"] == "ok"


def test_progress_bar(rec, capsys):
    extract_edr(rec, "r_amplitude", window_s=100.0, progress=True)
    assert "window" in capsys.readouterr().err


@pytest.mark.parametrize("kw, exc, match", [
    ({"method": "nope"}, ValueError, "valid methods are"),
    ({"window_s": 5.0}, ValueError, "window_s must be"),
    ({"window_s": "long"}, ValueError, "window_s must be"),
    ({"window_s": 1e9}, ValueError, "from 20 to 1800, got 1000000000.0"),
    ({"overlap": 0.95}, ValueError, "overlap must be"),
    ({"fs_out": 1.0}, ValueError, "fs_out must be"),
    ({"lead": "V9"}, ChannelError, "lead 'V9' is not in recording"),
    ({"method": "pca", "orientation": "beats"}, TypeError, r"takes no option \['orientation'\]"),
    ({"method": "rsa", "baseline": "pr"}, TypeError, r"takes no option \['baseline'\]"),
    ({"sigma2": -2.0}, ValueError, "sigma2 must be a finite positive number; got sigma2=-2.0"),
    ({"sigma2": "nope"}, ValueError, "unknown criterion='nope'"),
    ({"method": "pca", "lead": "multilead"}, ValueError,
     "lead='multilead' needs a kernel PCA method"),
])
def test_bad_arguments(rec, kw, exc, match):
    kw = dict(kw)
    method = kw.pop("method", "kpca")
    with pytest.raises(exc, match=match):
        extract_edr(rec, method, **kw)


def test_sampling_rate_out_of_range(rec):
    slow = dataclasses.replace(rec, fs=50.0)
    with pytest.raises(SignalError, match="fs=50"):
        extract_edr(slow, "kpca")


# --------------------------------------------------------------------------- #
# real data: BIDMC lead II
# --------------------------------------------------------------------------- #
def test_bidmc_kpca_beats_r_amplitude(bidmc_dir):
    # three records where lead II clips (bidmc01) or R amplitude barely follows the breathing;
    # on all 30 records the medians are in scripts/output/ (evaluate_bidmc_quick.py)
    from edr.io import read_record

    for name in ("bidmc01", "bidmc22", "bidmc36"):
        r = read_record(bidmc_dir / name)
        ours = score(extract_edr(r, "kpca", sigma2="shannon", lead="II"), r)
        peer = score(extract_edr(r, "r_amplitude", lead="II"), r)
        assert ours.msc > peer.msc + 0.1, name


# --------------------------------------------------------------------------- #
# the parts: options record, window plan, stitcher
# --------------------------------------------------------------------------- #
def test_options_record_is_frozen_and_typed():
    from edr.options import EDROptions

    opts = EDROptions(method="kpca", sigma2="MDD", window_s="120", fs_out=4,
                      method_options={"n_draws": 5})
    assert opts.window_s == 120.0 and isinstance(opts.fs_out, float)
    assert opts.method_kwargs == {"n_draws": 5, "sigma2": "MDD", "random_state": 0}
    assert opts.kernel_options.selection_options == {"n_draws": 5}
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.method = "pca"
    with pytest.raises(TypeError, match="apply to a sigma2 criterion only"):
        EDROptions(sigma2=0.5, method_options={"n_draws": 5})


def test_window_plan_cores_tile_the_record():
    from edr.options import EDROptions
    from edr.windows import window_plan

    plan = window_plan(700.0, EDROptions(window_s=300.0))
    assert [(w.start_s, w.end_s) for w in plan] == plan_windows(700.0, 300.0)
    cores = [w.core for w in plan]
    assert cores[0][0] == 0.0 and cores[-1][1] == 700.0
    assert all(a[1] == b[0] for a, b in zip(cores, cores[1:], strict=False))
    assert len(window_plan(700.0, EDROptions(method="kpca", solver="fs2"))) == 1


def test_stitcher_cross_fade_weights_sum_to_one():
    from edr.stitch import ramp_weights

    t = np.arange(0, 400, 0.25)
    a = ramp_weights(t[t <= 300], 0.0, 300.0, None, 225.0)
    b = ramp_weights(t[t >= 225], 225.0, 400.0, 300.0, None)
    overlap_a, overlap_b = a[t[t <= 300] >= 225], b[t[t >= 225] <= 300]
    np.testing.assert_allclose(overlap_a + overlap_b, 1.0)


def test_leads_analysed_in_threads_equal_lead_by_lead():
    from edr import window_analysis, windows
    from edr.options import EDROptions

    rec = simulate_recording(duration_s=90.0, fs=250.0, leads=("II", "V2", "I"), random_state=4)
    opts = EDROptions(method="kpca_fusion", lead="fuse", method_options={"n_draws": 12})
    leads = windows.record_leads(rec, opts)
    n = rec.ecg.size
    grid = windows.output_grid(n / rec.fs, opts.fs_out)
    runs, errors = window_analysis._lead_runs(leads, 0, n, rec.fs, grid, opts)
    assert list(runs) == list(leads) and not errors
    for name, x in leads.items():
        seg, out, y = window_analysis._single(x, 0, n, rec.fs, grid, name, opts)
        assert runs[name][1].sigma2 == out.sigma2
        np.testing.assert_allclose(runs[name][2], y, rtol=0, atol=1e-12)


def test_pooled_panel_keeps_the_heart_rate_once():
    """Every lead's beats give the same heart rate: pooled, it is one witness, from the lead the
    window's segment is (the chosen lead), while each lead keeps its own morphology series."""
    from edr import window_analysis, windows
    from edr.fusion import HEART_SERIES
    from edr.options import EDROptions

    rec = simulate_recording(duration_s=90.0, fs=250.0, leads=("II", "V2", "I"), random_state=4)
    opts = EDROptions(lead="fuse", method_options={"n_draws": 12})
    leads = windows.record_leads(rec, opts)
    grid = windows.output_grid(rec.ecg.size / rec.fs, opts.fs_out)
    w = windows.window_plan(rec.ecg.size / rec.fs, opts)[0]
    wa = window_analysis.analyse_window(w, leads, rec.fs, grid, opts)
    heart = [k for k in wa.panel if k.split("/", 1)[1] in HEART_SERIES]
    assert heart == [f"{wa.segment.lead}/rsa"]
    for lead in leads:
        assert f"{lead}/r_amplitude" in wa.panel and f"{lead}/kpca_1" in wa.panel
    assert sum(wa.weights.values()) == pytest.approx(1.0)


@pytest.mark.parametrize("duration_s", [120.0, 400.0])
def test_every_window_is_analysed_with_blas_on_one_thread(monkeypatch, duration_s):
    """A single window (or a Generator's windows, one after the other) runs with BLAS on one
    thread as the window threads do: its values do not depend on the machine's BLAS threads."""
    import edr.pipeline as pipeline
    from kpca._blas import blas_limited_to, blas_threads

    seen = []
    analyse = pipeline.analyse_window

    def counting(*args, **kwargs):
        seen.append(blas_threads())
        return analyse(*args, **kwargs)

    monkeypatch.setattr(pipeline, "analyse_window", counting)
    rec = simulate_recording(duration_s=duration_s, fs=250.0, random_state=2)
    with blas_limited_to(2):
        for random_state in (0, np.random.default_rng(0)):
            extract_edr(rec, window_s=None if duration_s < 200 else 150.0, n_draws=12,
                        random_state=random_state)
    assert seen and set(seen) == {1}


def test_a_thread_that_finishes_early_starts_the_next_window(monkeypatch):
    """The window threads keep one window queued beyond those running: a thread that finishes a
    window while an earlier one still runs starts the next at once (the first window here waits
    until the third has started), and the windows are still yielded in plan order, with the
    values of the windows analysed one after the other."""
    import threading

    import edr.pipeline as pipeline
    from edr.windows import window_plan

    assert pipeline.WINDOWS_AHEAD == pipeline.WINDOW_THREADS + 1
    rec = simulate_recording(duration_s=500.0, fs=250.0, random_state=3)
    plan = window_plan(500.0, pipeline.EDROptions(window_s=150.0))
    assert len(plan) >= 4
    analyse = pipeline.analyse_window
    third_started = threading.Event()
    waited = []

    def ordered(window, *args, **kwargs):
        if window.start_s == plan[2].start_s:
            third_started.set()
        if window.start_s == plan[0].start_s:
            waited.append(third_started.wait(timeout=10.0))
        return analyse(window, *args, **kwargs)

    monkeypatch.setattr(pipeline, "WINDOW_THREADS", 2)
    monkeypatch.setattr(pipeline, "WINDOWS_AHEAD", 3)
    monkeypatch.setattr(pipeline, "analyse_window", ordered)
    threaded = extract_edr(rec, window_s=150.0, n_draws=12)
    assert waited == [True]
    monkeypatch.setattr(pipeline, "WINDOW_THREADS", 1)
    monkeypatch.setattr(pipeline, "WINDOWS_AHEAD", 1)
    monkeypatch.setattr(pipeline, "analyse_window", analyse)
    serial = extract_edr(rec, window_s=150.0, n_draws=12)
    assert [w.start_s for w in threaded.windows] == [w.start_s for w in plan]
    for name in ("waveform", "rate_bpm", "rate_quality", "beat_times", "beat_values"):
        np.testing.assert_array_equal(getattr(threaded, name), getattr(serial, name))
