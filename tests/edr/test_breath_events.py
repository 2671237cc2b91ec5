"""Breaths scored like with like: the EDR's ends of inspiration against annotated ends, its onsets
(starts of inspiration) against annotated starts, for every label convention of a reference
(ends only, starts only, both, annotators)."""

from __future__ import annotations

import numpy as np
import pytest

from edr.breath_extrema import breath_onsets, finite_runs
from edr.breaths import detect_breaths
from edr.evaluate.breaths import detected_at, score_breaths, score_kept
from edr.io.reference import END_OF_INSPIRATION, START_OF_INSPIRATION, breath_event
from edr.pipeline import EDRResult
from edr.rates import rate_series

FS = 4.0


def _slow_onsets(x, sign, ends, max_back):
    """The definition of :func:`breath_onsets`, sample by sample (before the refinement)."""
    y = sign * np.asarray(x, dtype=float)
    runs = finite_runs(y)
    out = []
    for i, e in enumerate(ends):
        hi = int(round(e))
        run_start = next(a for a, b in runs if a <= hi < b)
        after_prev = int(round(ends[i - 1])) + 1 if i else None
        if after_prev is not None and after_prev < run_start:
            after_prev = None  # the previous breath lies before a masked stretch
        first = run_start if after_prev is None else after_prev
        if np.isfinite(max_back[i]):
            first = max(first, hi - int(np.ceil(max_back[i])))
        if first >= hi:
            out.append(np.nan)
            continue
        j = min(range(first, hi), key=lambda k: (y[k], k))
        trough = j > first or first == after_prev  # not the edge of a falling flank
        out.append(float(j) if trough and j >= 1 else np.nan)
    return np.array(out)


@pytest.mark.parametrize("seed", range(20))
def test_onsets_are_the_lowest_point_since_the_previous_breath(seed):
    rng = np.random.default_rng(seed)
    x = np.cumsum(rng.standard_normal(400))
    x[rng.integers(50, 350):][:rng.integers(0, 30)] = np.nan  # a masked stretch, or none
    finite = np.flatnonzero(np.isfinite(x[1:-1])) + 1
    ends = np.sort(rng.choice(finite, size=25, replace=False)).astype(float)
    back = rng.choice([np.inf, 5.0, 12.0, np.nan], size=ends.size)
    sign = int(rng.choice([-1, 1]))
    got = breath_onsets(x, sign, ends, back)
    want = _slow_onsets(x, sign, ends, np.nan_to_num(back, nan=np.inf))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = np.isfinite(want)
    assert np.all(np.abs(got[ok] - want[ok]) <= 0.5)  # the parabola moves it by at most half


def breathing(bpm: float, duration_s: float = 300.0, *, inspiration: float = 0.4, seed: int = 0):
    """A breathing waveform on the 4 Hz grid with a brisk inspiration (``inspiration`` of the
    cycle, rising) and a slower expiration: ``(x, starts, ends)`` of inspiration (s)."""
    t = np.arange(int(duration_s * FS)) / FS
    u = (t * bpm / 60.0 + 0.5) % 1.0
    x = np.where(u < inspiration, -np.cos(np.pi * u / inspiration),
                 np.cos(np.pi * (u - inspiration) / (1 - inspiration)))
    x = x + 0.03 * np.random.default_rng(seed).standard_normal(t.size)
    k = np.arange(int(duration_s * bpm / 60.0) + 1)
    starts = (k + 0.5) * 60.0 / bpm
    ends = starts + inspiration * 60.0 / bpm
    return x, starts[starts < t[-1]], ends[ends < t[-1]]


def result_of(x) -> EDRResult:
    t = np.arange(x.size) / FS
    rt, rate = rate_series(np.asarray(x, dtype=float), fs=FS)
    return EDRResult(time=t, waveform=np.asarray(x, dtype=float), fs=FS,
                     beat_times=np.empty(0), beat_values=np.empty(0), rate_time=rt,
                     rate_bpm=rate, method="test", lead="II", sigma2=None, selection=None,
                     windows=[], n_beats=0, n_beats_dropped=0, params={},
                     rate_quality=np.ones(rt.size))


@pytest.mark.parametrize("bpm", [6.0, 15.0, 40.0])
@pytest.mark.parametrize("sign", [1, -1])
def test_the_detector_gives_each_breath_its_start_and_end(bpm, sign):
    x, starts, ends = breathing(bpm)
    b = detect_breaths(result_of(sign * x), polarity="peaks" if sign > 0 else "troughs")
    at_ends = score_kept(b, ends)
    at_starts = score_kept(b, starts, event=START_OF_INSPIRATION)
    assert at_ends.f1 >= 0.98 and at_starts.f1 >= 0.98, (at_ends.f1, at_starts.f1)
    period = 60.0 / bpm
    assert at_starts.interval_error_s < 0.03 * period
    assert np.all(b.onset[1:] < b.time[1:]) and np.all(b.onset[1:] > b.time[:-1])
    # starts against ends (what was scored before): half a breath apart, nothing matches
    assert score_breaths(b.time, starts).f1 < 0.2


def test_without_onsets_a_breath_is_no_start():
    x, starts, _ = breathing(15.0)
    x, starts = x[10:], starts[1:] - 2.5  # the record starts during the first inspiration
    b = detect_breaths(result_of(x), polarity="peaks")
    assert np.isnan(detected_at(b, START_OF_INSPIRATION)[0])  # its start is not in the record
    assert np.isfinite(b.onset[1:]).all()
    kept = score_kept(b, starts, event=START_OF_INSPIRATION)
    assert kept.n_detected == np.isfinite(b.onset).sum()
    with pytest.raises(ValueError, match="breath_event must be one of"):
        score_kept(b, starts, event="peak")


def test_the_event_of_each_label_convention():
    assert breath_event(["insp"] * 3) == START_OF_INSPIRATION
    assert breath_event(["Inspiration", "start_insp"]) == START_OF_INSPIRATION
    for labels in (["exp"], ["ann1"], ['"'], ["insp", "exp"], []):
        assert breath_event(labels) == END_OF_INSPIRATION, labels


# --- end to end: a WFDB record and its annotation file in each convention -----------------------

RATE = 250.0


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    """A simulated 180 s record written as WFDB, its EDR, and its reference's ends of inspiration
    (the simulator's) and starts (the lowest point of its respiration between two ends: the
    slow, obvious reference)."""
    wfdb = pytest.importorskip("wfdb")
    from edr.pipeline import extract_edr
    from edr.simulate import simulate_recording

    folder = tmp_path_factory.mktemp("events")
    rec = simulate_recording(180.0, RATE, random_state=5)
    wfdb.wrsamp("sim", fs=RATE, units=["mV", "NU"], sig_name=["II", "RESP"],
                p_signal=np.column_stack([rec.ecg, rec.resp]), fmt=["16", "16"],
                write_dir=str(folder))
    e = np.round(rec.breath_times * RATE).astype(int)
    starts = np.array([a + int(np.argmin(rec.resp[a:b])) for a, b in zip(e[:-1], e[1:],
                                                                          strict=True)]) / RATE
    return folder, extract_edr(rec), e[1:] / RATE, starts


def _read_with(folder, labelled: dict):
    import wfdb

    from edr.io import read_record

    times = np.concatenate(list(labelled.values()))
    notes = np.concatenate([[k.split("#")[0]] * len(v) for k, v in labelled.items()])
    order = np.argsort(times, kind="stable")
    (folder / "sim.breath").unlink(missing_ok=True)
    wfdb.wrann("sim", "breath", sample=np.round(times[order] * RATE).astype(int),
               symbol=['"'] * times.size, aux_note=notes[order].tolist(), fs=RATE,
               write_dir=str(folder))
    return read_record(folder / "sim")


@pytest.mark.parametrize("convention", ["exp", "insp", "insp+exp", "ann1+ann2"])
def test_every_convention_is_scored_at_its_own_point(simulated, convention):
    from edr.evaluate.batch import _breath_scores

    folder, result, ends, starts = simulated
    labelled = {"exp": {"exp": ends}, "insp": {"insp": starts},
                "insp+exp": {"insp": starts, "exp": ends},
                "ann1+ann2": {"ann1": ends, "ann2#": ends + 0.1}}[convention]
    rec = _read_with(folder, labelled)
    want = START_OF_INSPIRATION if convention == "insp" else END_OF_INSPIRATION
    assert rec.breath_event == want
    row = _breath_scores(result, rec)
    assert row["breath_event"] == want
    assert row["breath_f1"] >= 0.9 and row["breath_interval_error_s"] < 0.3, row
    assert row["breath_n_annotated"] == (starts if want == START_OF_INSPIRATION else ends).size


def test_a_start_is_the_detectors_onset_within_the_tolerance(simulated):
    _, result, _, starts = simulated
    b = result.breaths
    from edr.evaluate.breaths import match_breaths

    onset = b.onset[np.isfinite(b.onset)]
    ri, di = match_breaths(onset, starts)
    assert ri.size >= 0.9 * starts.size
    assert np.median(np.abs(onset[di] - starts[ri])) < 0.25


def test_given_breath_times_say_which_point_they_mark():
    from edr.io.arrays import recording_from_arrays

    ecg = np.random.default_rng(0).normal(size=30000)
    times = np.arange(2.0, 118.0, 4.0)
    assert recording_from_arrays(ecg, fs=250.0, breath_times=times).breath_event == \
        END_OF_INSPIRATION
    rec = recording_from_arrays(ecg, fs=250.0, breath_times=times,
                                breath_event=START_OF_INSPIRATION)
    assert rec.breath_event == START_OF_INSPIRATION
    assert recording_from_arrays(ecg, fs=250.0, breath_event=START_OF_INSPIRATION).breath_event \
        is None  # no times, no point
    with pytest.raises(ValueError, match="breath_event must be one of"):
        recording_from_arrays(ecg, fs=250.0, breath_times=times, breath_event="peaks")
