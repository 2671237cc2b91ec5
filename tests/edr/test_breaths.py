"""edr.breaths: breaths, intervals, quality flags and pauses of an EDR."""

from __future__ import annotations

import numpy as np
import pytest

from edr.breaths import (
    TYPICAL_PERCENTILE,
    TYPICAL_SPAN_S,
    Breaths,
    breath_peaks,
    detect_breaths,
    finite_runs,
    local_period,
)
from edr.evaluate.breaths import score_breaths, score_kept
from edr.pipeline import EDRResult
from edr.rates import rate_series

FS = 4.0


def breathing(rates_bpm, step_s=60.0, *, noise=0.05, seed=0):
    """A breathing waveform on the 4 Hz grid whose rate steps through ``rates_bpm`` every
    ``step_s``: per cycle a brisk inspiration (35 %), a slower expiration (45 %) and an
    end-expiratory rest; returns ``(x, ends of inspiration in s)``."""
    t = np.arange(int(len(rates_bpm) * step_s * FS)) / FS
    rate_hz = np.asarray(rates_bpm, dtype=float)[(t // step_s).astype(int)] / 60.0
    cycles = np.concatenate([[0.0], np.cumsum(rate_hz[:-1] / FS)])
    u = cycles % 1.0
    x = np.where(u < 0.35, 0.5 - 0.5 * np.cos(np.pi * u / 0.35),
                 np.where(u < 0.8, 0.5 + 0.5 * np.cos(np.pi * (u - 0.35) / 0.45), 0.0))
    ends = np.interp(np.arange(np.ceil(cycles[0]), np.floor(cycles[-1])) + 0.35, cycles, t)
    x = x + noise * np.random.default_rng(seed).standard_normal(t.size)
    return (x - x.mean()) / x.std(), ends[(ends > t[0]) & (ends < t[-1])]


def result_of(x, quality=None) -> EDRResult:
    """An EDRResult holding the waveform ``x`` with rate windows judged ``quality`` (1 when
    None; a callable of the window centres otherwise)."""
    t = np.arange(x.size) / FS
    rt, raw = rate_series(np.asarray(x, dtype=float), fs=FS)
    q = np.ones(rt.size) if quality is None else quality(rt)
    return EDRResult(time=t, waveform=np.asarray(x, dtype=float), fs=FS,
                     beat_times=np.empty(0), beat_values=np.empty(0), rate_time=rt,
                     rate_bpm=np.where(q >= 0.5, raw, np.nan), method="test", lead="II",
                     sigma2=None, selection=None, windows=[], n_beats=0, n_beats_dropped=0,
                     params={}, rate_quality=q)


@pytest.mark.parametrize("bpm", [6.0, 15.0, 40.0])
def test_every_breath_at_6_15_and_40_per_minute(bpm):
    x, ends = breathing([bpm] * 5)
    b = detect_breaths(result_of(x))
    assert b.sign == 1
    s = score_breaths(b.time, ends)
    assert s.f1 >= 0.98, (s.n_reference, s.n_detected, s.n_matched)
    assert s.interval_error_s < 0.05 * 60.0 / bpm  # a broad, noisy top at 6 /min
    assert not b.low_quality.any() and b.pauses.size == 0
    np.testing.assert_allclose(b.interval[1:], np.diff(b.time))


def test_paced_changes_every_minute_and_either_polarity():
    x, ends = breathing([8, 24, 40, 6, 20, 10])
    up = detect_breaths(result_of(x))
    down = detect_breaths(result_of(-x))
    assert (up.sign, down.sign) == (1, -1)
    np.testing.assert_allclose(up.time, down.time)
    assert score_breaths(up.time, ends).f1 >= 0.97
    assert detect_breaths(result_of(x), polarity="troughs").sign == -1


def test_masked_stretch_breaks_intervals_and_is_withheld():
    x, ends = breathing([15] * 4)
    x[400:520] = np.nan  # 100-130 s masked
    b = detect_breaths(result_of(x))
    assert not np.any((b.time > 100) & (b.time < 130))
    first_after = np.flatnonzero(b.time > 130)[0]
    assert b.after_gap[first_after] and np.isnan(b.interval[first_after])
    assert b.after_gap[0] and b.after_gap.sum() == 2
    assert b.pauses.size == 0
    assert any(a <= 100 and e >= 130 for a, e in b.withheld)


def test_apnoea_is_a_pause_and_slow_breathing_is_not():
    x, ends = breathing([15] * 6, noise=0.0)
    quiet = (np.arange(x.size) / FS > 150) & (np.arange(x.size) / FS < 190)
    x[quiet] = x[~quiet].min() + 0.03 * np.random.default_rng(1).standard_normal(quiet.sum())
    b = detect_breaths(result_of(x))
    assert b.pauses.shape == (1, 2)
    start, end = b.pauses[0]
    assert 145 < start < 151 and 189 < end < 196
    assert b.after_pause.sum() == 1 and b.time[b.after_pause][0] == end
    summary = b.summary()
    assert summary["n_pauses"] == 1 and summary["pause_s_total"] == pytest.approx(end - start)
    assert summary["interval_median_s"] == pytest.approx(4.0, abs=0.1)  # the pause left out
    assert summary["n_breaths"] == len(b) and summary["inspiration_sign"] == 1
    slow = detect_breaths(result_of(breathing([6] * 5)[0]))
    assert slow.pauses.size == 0 and np.nanmedian(slow.interval) == pytest.approx(10, abs=0.2)


def test_low_quality_breaths_are_kept_but_marked():
    x, ends = breathing([15] * 6)
    b = detect_breaths(result_of(x, quality=lambda c: np.where(c < 180, 0.9, 0.2)))
    late = b.time > 200
    assert late.any() and b.low_quality[late].all() and not b.low_quality[b.time < 150].any()
    assert score_breaths(b.time, ends).f1 >= 0.98  # the marked ones are still there
    assert np.all(b.quality[late] == pytest.approx(0.2))
    frame = b.to_frame()
    assert list(frame.columns) == list(Breaths.COLUMNS) and len(frame) == len(b)
    assert frame["low_quality"].dtype == bool


def _slow_prominence(y, i):
    left = i
    while left > 0 and y[left - 1] <= y[i]:
        left -= 1
    right = i
    while right < y.size - 1 and y[right + 1] <= y[i]:
        right += 1
    return y[i] - max(y[left:i + 1].min(), y[i:right + 1].min())


def _slow_breath_peaks(x, sign, period, prominence, relative, fraction):
    """breath_peaks by its definition, one sample and one peak at a time."""
    out = []
    for a, b in finite_runs(x):
        y = sign * x[a:b]
        cand = [i for i in range(1, y.size - 1) if y[i - 1] < y[i] > y[i + 1]]
        prom = {i: _slow_prominence(y, i) for i in cand}
        cand = [i for i in cand if prom[i] >= prominence]
        kept = []
        for i in sorted(cand, key=lambda i: -prom[i]):
            gap = fraction * period[a + i] * FS
            if all(abs(i - k) >= gap for k in kept):
                kept.append(i)
        kept.sort()
        half = 0.5 * TYPICAL_SPAN_S * FS
        final = [i for i in kept if prom[i] >= relative * np.percentile(
            [prom[k] for k in kept if abs(k - i) <= half], TYPICAL_PERCENTILE)]
        for i in final:
            den = y[i - 1] - 2 * y[i] + y[i + 1]
            out.append(a + i + np.clip(0.5 * (y[i - 1] - y[i + 1]) / den, -0.5, 0.5))
    return np.array(out)


@pytest.mark.parametrize("seed", range(6))
def test_breath_peaks_against_a_slow_reference(seed):
    rng = np.random.default_rng(seed)
    x = np.cumsum(rng.standard_normal(1200)) * 0.2 + rng.standard_normal(1200)
    x[rng.integers(0, 1000):][:rng.integers(0, 150)] = np.nan
    period = rng.uniform(1.0, 8.0, x.size)
    sign = 1 if seed % 2 else -1
    fast = breath_peaks(x, FS, sign, period, prominence=0.8, relative=0.3,
                        min_cycle_fraction=0.5)
    np.testing.assert_allclose(fast, _slow_breath_peaks(x, sign, period, 0.8, 0.3, 0.5))


@pytest.mark.parametrize("seed", range(4))
def test_judged_around_against_a_loop(seed):
    """Judged: a rate window with a rate within half a window, or one still to come (centred at
    ``pending_from`` or after, every rate step) within half a window."""
    from edr.breaths import judged_around
    from edr.signal import RATE_STEP_S, RATE_WINDOW_S

    rng = np.random.default_rng(seed)
    centres = np.arange(16.0, 300.0, RATE_STEP_S)
    bpm = np.where(rng.random(centres.size) < 0.4, np.nan, 15.0)
    res = EDRResult(time=np.arange(0, 320, 0.25), waveform=np.zeros(1280), fs=FS,
                    beat_times=np.empty(0), beat_values=np.empty(0), rate_time=centres,
                    rate_bpm=bpm, method="test", lead="II", sigma2=None, selection=None,
                    windows=[], n_beats=0, n_beats_dropped=0, params={})
    times = np.sort(rng.uniform(0, 330, 200))
    pending_from = float(rng.choice(centres))
    to_come = np.arange(pending_from, 400.0, RATE_STEP_S)
    for pend in (np.inf, pending_from):
        slow = [any(abs(t - c) < RATE_WINDOW_S / 2 for c, r in zip(centres, bpm, strict=True)
                    if np.isfinite(r) and (pend == np.inf or c < pend))
                or (pend < np.inf and any(abs(t - c) < RATE_WINDOW_S / 2 for c in to_come))
                for t in times]
        np.testing.assert_array_equal(judged_around(times, res, pend), slow)


def test_a_pause_counts_when_the_windows_after_it_are_still_to_come():
    x, _ = breathing([15] * 6, noise=0.0)
    t = np.arange(x.size) / FS
    quiet = (t > 150) & (t < 190)
    x[quiet] = x[~quiet].min() + 0.03 * np.random.default_rng(1).standard_normal(quiet.sum())
    res = result_of(x, quality=lambda c: np.where((c > 150) & (c < 215), 0.3, 0.9))
    assert detect_breaths(res).pauses.size == 0  # the windows after the pause withheld
    b = detect_breaths(res, rates_pending_from=192.0)  # those from 192 s not known yet
    assert b.pauses.shape == (1, 2) and 189 < b.pauses[0, 1] < 196


def test_local_period_follows_the_rate():
    x, _ = breathing([6, 6, 30, 30])
    p = local_period(x, FS)
    t = np.arange(x.size) / FS
    assert np.median(p[t < 80]) == pytest.approx(10, rel=0.05)
    assert np.median(p[t > 170]) == pytest.approx(2, rel=0.05)
    assert np.all(p[(t >= 112) & (t < 120)] < 3)  # the fastest rate of the windows covering


def test_bad_arguments():
    x, _ = breathing([12] * 3)
    res = result_of(x)
    with pytest.raises(ValueError, match="polarity"):
        detect_breaths(res, polarity="maxima")
    with pytest.raises(ValueError, match="prominence"):
        detect_breaths(res, prominence=0)
    with pytest.raises(ValueError, match="relative"):
        detect_breaths(res, relative=1.0)
    empty = detect_breaths(result_of(np.full(400, np.nan)))
    assert len(empty) == 0 and empty.withheld.tolist() == [[0.0, 100.0]]


def test_uncertain_polarity_is_kept_but_marked_and_not_scored():
    t = np.arange(0.0, 240.0, 1 / FS)
    x = np.sqrt(2) * np.sin(2 * np.pi * t / 4)  # symmetric breathing, no heart rate
    b = detect_breaths(result_of(x))
    assert len(b) > 50 and b.uncertain_polarity.all() and b.polarity.source == "none"
    s = b.summary()
    assert s["polarity_confident"] is False and s["interval_median_s"] == pytest.approx(4.0)
    kept = score_kept(b, t[1::16] + 0.25)  # whichever the truth, nothing is kept
    assert (kept.n_reference, kept.n_detected, kept.share_kept) == (0, 0, 0.0)
    fixed = detect_breaths(result_of(x), polarity="peaks")
    assert not fixed.uncertain_polarity.any() and fixed.polarity is None
    assert "uncertain_polarity" in b.to_frame().columns


def test_shallow_breaths_are_listed_but_do_not_end_a_pause():
    x, ends = breathing([15] * 6, noise=0.0)
    t = np.arange(x.size) / FS
    quiet = (t > 150) & (t < 190)
    x[quiet] = x[~quiet].min() + 0.35 * (x.max() - x.min()) * 0.5 * (
        1 - np.cos(2 * np.pi * (t[quiet] - 150) / 8))  # shallow ripples (~35 % deep) in a pause
    shallow = (t > 60) & (t < 68)
    x[shallow] = x[~shallow].min() + 0.35 * (x[shallow] - x[~shallow].min())  # two shallow ones
    b = detect_breaths(result_of(x), relative=0.2)
    assert b.pauses.shape == (1, 2) and 145 < b.pauses[0, 0] < 151 and 189 < b.pauses[0, 1] < 196
    assert not np.any((b.time > b.pauses[0, 0]) & (b.time < b.pauses[0, 1]))
    assert np.sum((b.time > 60) & (b.time < 68)) == 2  # outside a pause they are breaths
    strict = detect_breaths(result_of(x), relative=0.5)
    assert np.sum((strict.time > 60) & (strict.time < 68)) == 0
    np.testing.assert_allclose(strict.pauses, b.pauses)


def test_breaths_where_only_the_agreement_is_low_are_flagged_below_min_quality():
    x, ends = breathing([15] * 6)
    res = result_of(x, quality=lambda c: np.where(c < 180, 0.9, 0.55))  # rate withheld < 0.65
    res.rate_bpm = np.where(res.rate_quality >= 0.65, res.rate_bpm, np.nan)
    late = detect_breaths(res, min_quality=0.5).time > 200
    assert not detect_breaths(res, min_quality=0.5).low_quality.any() and late.any()
    flagged = detect_breaths(res, min_quality=0.65)
    assert flagged.low_quality[flagged.time > 200].all()
    assert any(a <= 200 for a, e in flagged.withheld)
    with pytest.raises(ValueError, match="min_quality"):
        detect_breaths(res, min_quality=1.5)
    with pytest.raises(ValueError, match="min_cycle_fraction"):
        detect_breaths(res, min_cycle_fraction=1.0)


def test_an_expiratory_bump_in_a_long_breath_is_not_a_breath():
    """A long breath (1.15 periods) with a bump of expiration in its middle: the bump lies 0.575
    of the local period from both breaths, so the default spacing
    (:data:`edr.breaths.MIN_CYCLE_FRACTION`) drops it and half a period lists it as a breath."""
    intervals = np.tile([4.0, 4.0, 4.0, 4.6], 12)
    ends = 2.0 + np.concatenate([[0.0], np.cumsum(intervals)])
    t = np.arange(0, ends[-1] + 2.0, 1 / FS)
    x = np.exp(-0.5 * ((t[:, None] - ends[None, :]) / 0.5) ** 2).sum(1)
    bumps = ends[:-1][intervals > 4.1] + 2.3
    x += 0.5 * np.exp(-0.5 * ((t[:, None] - bumps[None, :]) / 0.5) ** 2).sum(1)
    x = (x - x.mean()) / x.std()
    period = np.full(t.size, 4.0)
    found = breath_peaks(x, FS, 1, period) / FS
    assert found.size == ends.size and np.allclose(found, ends, atol=0.05)
    half = breath_peaks(x, FS, 1, period, min_cycle_fraction=0.5) / FS
    assert half.size == ends.size + bumps.size
    assert np.allclose(np.setdiff1d(np.round(half, 1), np.round(ends, 1)), bumps, atol=0.05)
