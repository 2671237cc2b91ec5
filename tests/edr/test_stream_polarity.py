"""The stream's polarity, tested at fixed looks (edr.stream.polarity_looks): looks at the
scheduled amounts of EDR, levels that sum to at most alpha, noise not decided more often than
alpha, a clear case decided at the first look, the shape pooled over every window."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from edr.polarity import POLARITY_ALPHA, decide_polarity, shape_evidence
from edr.signal import bandpass
from edr.stream.polarity_looks import (
    FIRST_LOOK_S,
    LOOK_EVERY_S,
    SequentialPolarity,
    look_alpha,
    look_edr_s,
)

FS = 4.0
CONTEXT = 240.0  # the EDR the stream's detector sees (edr.stream.breaths.CONTEXT_S)


def _stream(x, beats, chunk_s=2.0, final=True):
    """Feed ``x`` (on a 4 Hz grid from 0) to a :class:`SequentialPolarity` ``chunk_s`` at a
    time, deciding at each update on the last :data:`CONTEXT` s; return it and the polarity
    at each update."""
    t = np.arange(x.size) / FS
    sp, seen = SequentialPolarity(FS), []
    step = int(round(chunk_s * FS))
    for end in range(step, x.size + 1, step):
        sp.add_edr(x[end - step:end])
        keep = (t < end / FS) & (t >= end / FS - CONTEXT)
        res = SimpleNamespace(waveform=x[keep], time=t[keep], fs=FS,
                              beat_times=beats[(beats >= t[keep][0]) & (beats < end / FS)])
        seen.append(sp.decide(res))
    if final:
        seen.append(sp.decide(res, final=True))
    return sp, seen


def _noise(seed, duration_s):
    """Band-passed Gaussian noise as the EDR and a steady heart with independent jitter."""
    rng = np.random.default_rng(seed)
    x = bandpass(rng.standard_normal(int(duration_s * FS)), fs=FS)
    beats = np.cumsum(0.85 + 0.03 * rng.standard_normal(int(duration_s / 0.8)))
    return x, beats[beats < duration_s]


def test_the_levels_of_the_looks_halve_and_sum_to_at_most_alpha():
    assert look_alpha(1) == POLARITY_ALPHA / 2
    assert [look_alpha(k) / look_alpha(k + 1) for k in (1, 5, 20)] == [2.0, 2.0, 2.0]
    assert sum(look_alpha(k) for k in range(1, 200)) <= POLARITY_ALPHA
    assert look_alpha(3, alpha=0.1) == pytest.approx(0.0125)
    for bad in ({"k": 0}, {"k": 1.5}, {"k": 1, "alpha": 0.0}, {"k": 1, "alpha": 1.0}):
        with pytest.raises(ValueError):
            look_alpha(**bad)


def test_the_looks_are_at_the_scheduled_amounts_of_edr_and_at_the_end():
    assert [look_edr_s(k) for k in (1, 2, 3, 5)] == [FIRST_LOOK_S, LOOK_EVERY_S,
                                                    2 * LOOK_EVERY_S, 4 * LOOK_EVERY_S]
    with pytest.raises(ValueError):
        look_edr_s(0)
    x, beats = _noise(0, 1000.0)
    sp, _ = _stream(x, beats)
    assert sp.looks == [(128.0, 1), (240.0, 2), (480.0, 3), (720.0, 4), (960.0, 5), (1000.0, 6)]
    # updates of 3 s: a look at the first update that reaches its amount of EDR
    sp, _ = _stream(x[:int(500 * FS)], beats, chunk_s=3.0, final=False)
    assert sp.looks == [(129.0, 1), (240.0, 2), (480.0, 3)]
    # the end on a scheduled look: no look more
    sp, _ = _stream(x[:int(480 * FS)], beats)
    assert sp.looks == [(128.0, 1), (240.0, 2), (480.0, 3)]


def test_noise_is_decided_at_most_about_alpha_of_the_time():
    """40 streams of 16 min whose EDR is noise and whose heart does not follow it: at 6
    looks, at most 4 decided (about alpha of each test; the expected number is at most
    2 per test), where a test of the shape of each update's last 240 s at alpha decides most."""
    decided, every_update = 0, 0
    for seed in range(40):
        x, beats = _noise(seed, 1000.0)
        sp, seen = _stream(x, beats)
        decided += seen[-1].confident
        assert all(p.confident == seen[-1].confident for p in seen if p.confident)
        n = int(CONTEXT * FS)
        every_update += any(shape_evidence(x[max(0, end - n):end], FS).p_value < POLARITY_ALPHA
                            for end in range(int(128 * FS), x.size + 1, 8))
    assert decided <= 4
    assert every_update >= 20  # 34 of the 40 seeds, against 2 at the looks


def test_a_clear_shape_is_decided_at_the_first_look_and_kept():
    t = np.arange(0, 600, 1 / FS)
    rng = np.random.default_rng(1)
    x = -np.sin(np.pi * (t % 4.5) / 4.5) ** 4 + 0.2 * rng.standard_normal(t.size)
    sp, seen = _stream(x, np.arange(0.0, 600.0))  # a steady heart: no arrhythmia
    first = next(i for i, p in enumerate(seen) if p.confident)
    assert (first + 1) * 2.0 == FIRST_LOOK_S  # the update that reaches the first look
    # uncertain before, with the sign of the first window (from 32 s of EDR on), kept
    assert not any(p.confident for p in seen[:first])
    assert [p.sign for p in seen[15:first]] == [-1] * (first - 15)
    assert seen[first].sign == -1 and seen[first].source == "shape"
    assert all(p is seen[first] for p in seen[first:]) and sp.looks == [(128.0, 1)]


def test_the_pooled_shape_is_that_of_all_the_edr_whatever_the_updates():
    x, _ = _noise(3, 700.0)
    x = x + 0.3 * np.abs(x)  # skewed
    x[400:460] = np.nan  # a gap: the windows restart after it, as offline
    x[1500:1503] = np.nan
    sp = SequentialPolarity(FS)
    rng = np.random.default_rng(0)
    start = 0
    while start < x.size:
        stop = start + int(rng.integers(1, 90))
        sp.add_edr(x[start:stop])
        start = stop
    offline = shape_evidence(x, FS)
    pooled = sp.pooled_shape()
    assert pooled.n_windows == offline.n_windows > 0
    assert pooled.skewness == pytest.approx(offline.skewness, rel=1e-12)
    assert pooled.p_value == pytest.approx(offline.p_value, rel=1e-9)
    assert sp.edr_s == x.size / FS


def test_decide_polarity_weighs_the_shape_it_is_given():
    t = np.arange(0, 320, 1 / FS)
    volume = np.sin(np.pi * (t % 4) / 4) ** 4
    res = SimpleNamespace(waveform=volume, time=t, fs=FS, beat_times=np.arange(0.0, 320.0))
    own, same = decide_polarity(res), decide_polarity(res, shape=shape_evidence(volume, FS))
    assert (own.sign, own.confident, own.source, own.shape) == \
        (same.sign, same.confident, same.source, same.shape) == (1, True, "shape", own.shape)
    given = shape_evidence(-volume, FS)
    p = decide_polarity(res, shape=given)
    assert (p.sign, p.confident, p.shape) == (-1, True, given)


def test_the_stream_decides_only_at_a_look():
    """The stream's breaths of a waveform skewed towards its maxima: uncertain until the EDR
    reaches the first look (stream time 128 s + the 8 s delay), decided from then on."""
    from edr.stream.breaths import StreamBreaths
    from edr.stream.engine import StreamUpdate

    t = np.arange(0, 300, 0.25)
    x = np.exp(2 * np.sin(2 * np.pi * t / 4))
    sb, rows = StreamBreaths(4.0), []
    for now in np.arange(32.0, 302.0, 2.0):
        new = (t >= now - 10) & (t < now - 8) if now > 32 else t < now - 8
        c = np.arange(16.0, 300.0, 16.0)
        c = c[(c + 16 <= now) & (c + 16 > now - 2)]
        u = StreamUpdate(now, t[new], x[new], c, np.full(c.size, 15.0), np.full(c.size, 0.9))
        b = sb.add(u, beat_times=np.arange(0, now - 8, 0.8))
        rows += [(now, bool(f)) for f in b.uncertain_polarity]
    now, uncertain = np.array(rows).T
    assert uncertain[now < FIRST_LOOK_S + 8.0].all() and uncertain.any()
    assert not uncertain[now >= FIRST_LOOK_S + 8.0].any()
    assert now[now >= FIRST_LOOK_S + 8.0].min() < FIRST_LOOK_S + 8.0 + 4.0  # a breath each 4 s
