"""The stream reports no rate above what the beats carry, as the offline default.

Each rate window of a stream is judged with the beat times of the analysis that judges it
(:meth:`edr.rates.RateSpan.on_stretch`), so its rate search stops at
:func:`edr.signal.carried_bpm` and a rate near that limit is judged by the morphology series
alone, exactly as offline (``tests/edr/test_carried_rates.py``). Measurements:
``docs/studies/carried_rates.md``.
"""

from __future__ import annotations

import functools
from types import SimpleNamespace

import numpy as np
import pytest

from edr import rates
from edr.rates import RateSpan, judged_rates, rate_quality
from edr.signal import NYQUIST_MARGIN_BPM
from edr.simulate import simulate_recording
from edr.stream import StreamingEDR

FS_OUT = 4.0


# ------------------------------------------------------------------ the span of a stretch
def test_a_stretch_span_judges_as_the_offline_rule_on_record_time():
    """The span's beats moved onto the stretch's time give the rates and qualities of
    :func:`edr.rates.rate_quality` on record time with the record's beats."""
    rng = np.random.default_rng(5)
    n_wave, first = 480, 64  # a 120 s stretch; the panel from its 16th second on
    t_rec0 = 1000.0  # record time of the stretch's index 0
    t = t_rec0 + np.arange(n_wave) / FS_OUT
    # 70 beats/min: the limit is 35 - 3.75 = 31.25 /min; a 33 /min rhythm lies above it,
    # a 29 /min one near it, the breathing at 12 /min well below
    beats = np.arange(t_rec0 - 5.0, t[-1] + 5.0, 60.0 / 70.0)
    beats = np.delete(beats, np.arange(60, 75))  # dropped beats lower the limit there
    wave = (0.6 * np.sin(2 * np.pi * 12 / 60 * t) + np.sin(2 * np.pi * 33 / 60 * t)
            + 0.3 * rng.standard_normal(n_wave))
    panel = {"rsa": np.sin(2 * np.pi * 29 / 60 * t[first:]) + 0.1 * rng.standard_normal(416),
             "r_amplitude": wave[first:] + 0.1 * rng.standard_normal(416),
             "qrs_area": np.sin(2 * np.pi * 12 / 60 * t[first:])}
    weights = {"rsa": 0.4, "r_amplitude": 0.35, "qrs_area": 0.25}
    valid = rng.random(beats.size) > 0.05
    segment = SimpleNamespace(grid=t[first:], beat_times=beats, valid=valid)
    span = RateSpan.on_stretch(first, n_wave - first, panel, weights, segment, FS_OUT)
    got = judged_rates(wave, np.arange(n_wave) / FS_OUT, [span], FS_OUT, threshold=0.0)
    _, rate, quality = rate_quality(wave[first:], panel, weights, fs=FS_OUT, t0=t[first],
                                    beat_times=beats[valid])
    k = np.flatnonzero(got.quality > 0)  # the windows inside the span: from its first point on
    np.testing.assert_array_equal(k, np.arange(1, 1 + rate.size))  # (a 16 s step: index 64)
    np.testing.assert_array_equal(got.raw_bpm[k], rate)
    np.testing.assert_array_equal(got.quality[k], quality)
    assert np.all(rate < 31.25)  # the 33 /min rhythm never won
    _, free, _ = rate_quality(wave[first:], panel, weights, fs=FS_OUT, t0=t[first])
    assert np.any(free > 32)  # it would have without the beats


# ------------------------------------------------------- alternation on top of slow breathing
ALTERNATION = {
    "alternans": dict(alternans=0.15),
    "bigeminy, wide ectopic beats": dict(bigeminy_prematurity=0.3),
    "bigeminy, narrow ectopic beats": dict(bigeminy_prematurity=0.3, ectopic_width=1.0),
}
SLOW = dict(heart_rate_bpm=74.0, resp_rate_hz=0.2, amplitude_modulation=0.05, rsa_bpm=2.0)


def _streamed(rec, fs, **kw):
    """``(rate_bpm, quality)`` of ``rec``'s first lead pushed through the stream (the default,
    or the options ``kw``) in 1 s blocks."""
    s = StreamingEDR(fs, leads=["II"], **kw)
    x = rec.leads["II"][:, None]
    block = int(round(fs))
    ups = []
    for i in range(0, x.shape[0], block):
        ups += s.push(x[i:i + block])
    ups += s.flush()
    return (np.concatenate([u.rate_bpm for u in ups]),
            np.concatenate([u.quality for u in ups]))


@functools.cache
def _alternating(name, seed, method="kpca_fusion"):
    rec = simulate_recording(300.0, 250.0, leads=("II",), random_state=seed,
                             **SLOW, **ALTERNATION[name])
    return _streamed(rec, 250.0, method=method)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", sorted(ALTERNATION))
def test_the_stream_reports_no_rate_at_a_beat_to_beat_alternation(name, seed):
    bpm, _ = _alternating(name, seed)
    given = np.isfinite(bpm)
    # 74 beats/min: the alternation sits at 37 /min; the breathing at 12 /min
    assert given.any()
    assert np.all(bpm[given] < 20.0), f"{name}: {np.round(bpm[given], 1)}"
    assert np.all(np.abs(bpm[given] - 12.0) <= 2.5)
    if "wide" not in name:  # (the wide ectopic beats are dropped: too few beats, no rate)
        # the alternation no longer competes with the breathing for the windows' quality
        assert given.mean() >= 0.85, f"{name}: rates in {given.mean():.0%} of the windows"


@pytest.mark.parametrize("name", ["alternans", "bigeminy, narrow ectopic beats"])
def test_a_reanalysing_stream_reports_no_rate_at_a_beat_to_beat_alternation(name):
    """The same limit on the stream path that analyses its span again at every update (here the
    kernel PCA, whose first component follows the alternation)."""
    bpm, _ = _alternating(name, 0, "kpca")
    given = np.isfinite(bpm)
    assert given.mean() >= 0.5
    assert np.all(np.abs(bpm[given] - 12.0) <= 2.5), f"{name}: {np.round(bpm[given], 1)}"


# ----------------------------------------------------------------- a normal record
@functools.cache
def _normal(method):
    rec = simulate_recording(300.0, 250.0, leads=("II",), random_state=3)
    return rec, _streamed(rec, 250.0, method=method)


@pytest.mark.parametrize("method", ["kpca_fusion", "r_amplitude"])  # projected, re-analysed
def test_the_limit_leaves_a_normal_records_rates_alone(monkeypatch, method):
    """Breathing well below half the heart rate: the stream's rates and qualities are those of
    the unlimited search, bit for bit, while the limit was computed for every rate window."""
    rec, (bpm, quality) = _normal(method)
    limits = []
    carried = rates.carried_bpm

    def unlimited(beat_times, starts_s, *args):
        limits.append(carried(beat_times, starts_s, *args))
        return np.full(np.size(starts_s), np.inf)

    monkeypatch.setattr(rates, "carried_bpm", unlimited)
    free_bpm, free_quality = _streamed(rec, 250.0, method=method)
    limit = np.concatenate(limits)
    assert limit.size >= bpm.size and np.all(limit > 25.0)
    given = np.isfinite(bpm)
    assert given.mean() >= 0.9 and np.nanmax(bpm) < np.min(limit) - NYQUIST_MARGIN_BPM
    np.testing.assert_array_equal(bpm, free_bpm)
    np.testing.assert_array_equal(quality, free_quality)
