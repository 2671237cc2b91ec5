"""Tests of edr.beats: detection, polarity, sub-sample alignment, quality flags."""

from __future__ import annotations

import numpy as np
import pytest

from edr.beats import MIN_BEATS, Beats, detect, mask, signal_mask
from edr.errors import SignalError
from edr.simulate import simulate_recording

# P, Q, R, S, T waves: (offset from R in s, amplitude in mV, width sigma in s).
# Q and S are symmetric about R, so every beat's maximum is exactly at its R time.
WAVES = [(-0.20, 0.15, 0.025), (-0.03, -0.15, 0.01), (0.0, 1.0, 0.01),
         (0.03, -0.15, 0.01), (0.28, 0.3, 0.04)]


def synthetic_ecg(r_times, fs, duration, *, amplitudes=None, noise=0.0, seed=0, waves=WAVES):
    """Sum-of-Gaussians ECG with R peaks exactly at ``r_times`` (s)."""
    t = np.arange(int(duration * fs)) / fs
    x = np.zeros_like(t)
    amps = np.ones(len(r_times)) if amplitudes is None else amplitudes
    for rt, a in zip(r_times, amps, strict=False):
        near = np.abs(t - rt) < 0.6
        for off, amp, sd in waves:
            x[near] += a * amp * np.exp(-0.5 * ((t[near] - rt - off) / sd) ** 2)
    if noise:
        x += noise * np.random.default_rng(seed).standard_normal(x.size)
    return x


def regular_times(duration, rr=0.8, seed=0):
    """Beat times with RR = ``rr`` ± 2 % jitter, irrational offsets (sub-sample positions)."""
    rng = np.random.default_rng(seed)
    n = int((duration - 1.0) / rr)
    return 0.5 + np.sqrt(2) / 10 + np.cumsum(rr * (1 + 0.02 * rng.standard_normal(n))) - rr


FS = 125.0


@pytest.fixture(scope="module")
def regular():
    times = regular_times(60.0)
    return times, synthetic_ecg(times, FS, 60.0)


def _match(found, truth):
    """Per true beat, the nearest found peak (samples) minus the truth."""
    j = np.clip(np.searchsorted(found, truth), 1, found.size - 1)
    left, right = found[j - 1], found[j]
    return np.where(np.abs(left - truth) < np.abs(right - truth), left, right) - truth


def test_detect_recovers_peaks_to_sub_sample_accuracy(regular):
    times, x = regular
    b = detect(x, FS)
    assert isinstance(b, Beats) and len(b) == times.size
    err = _match(b.peaks, times * FS)
    assert np.max(np.abs(err)) < 0.05  # samples, i.e. < 0.4 ms at 125 Hz
    np.testing.assert_allclose(b.times, b.peaks / FS)
    assert b.polarity == 1 and b.valid.all() and b.n_ectopic == 0 and b.n_artifact == 0
    assert np.all(b.template_corr > 0.99)


def test_without_alignment_peaks_stay_on_samples(regular):
    times, x = regular
    b = detect(x, FS, align=False)
    err = _match(b.peaks, times * FS)
    np.testing.assert_array_equal(b.peaks, np.round(b.peaks))
    assert np.max(np.abs(err)) > 0.2  # the sampling jitter the alignment removes
    assert np.max(np.abs(err)) <= 0.5 + 1e-9


def test_alignment_with_noise_beats_sample_grid():
    times = regular_times(90.0, seed=1)
    x = synthetic_ecg(times, FS, 90.0, noise=0.01, seed=1)
    aligned = np.abs(_match(detect(x, FS).peaks, times * FS))
    raw = np.abs(_match(detect(x, FS, align=False).peaks, times * FS))
    assert np.median(aligned) < 0.1 < np.median(raw)


def test_inverted_lead_is_detected_and_flipped(regular):
    times, x = regular
    b = detect(-x, FS)
    assert b.polarity == -1
    assert np.max(np.abs(_match(b.peaks, times * FS))) < 0.05


def test_a_given_polarity_skips_the_judgement_and_min_beats_is_the_floor(regular):
    from edr.beats import inversion_values, inverted_by
    from edr.beats.polarity import inverted
    from edr.beats.twins import nk_clean_neurokit

    times, x = regular
    judged = detect(-x, FS)
    given = detect(-x, FS, polarity=-1)
    np.testing.assert_array_equal(given.peaks, judged.peaks)
    assert given.polarity == -1 and detect(-x, FS, polarity=1).polarity == 1
    with pytest.raises(ValueError, match="polarity"):
        detect(x, FS, polarity=0)
    n = int(12 * FS)  # about 15 beats
    with pytest.raises(SignalError, match="at least 20"):
        detect(x[:n], FS)
    assert len(detect(x[:n], FS, min_beats=8)) >= 8
    # the window values judge as the offline rule does
    for y in (x, -x):
        assert inverted_by(inversion_values(y, FS)) == inverted(nk_clean_neurokit(y, FS), FS)


def test_beats_aligned_to_a_given_template(regular):
    times, x = regular
    whole = detect(x, FS)
    assert whole.template.size == 2 * 10 * 10 + 1  # R ± 80 ms at 125 Hz, upsampled 10 times
    part = x[:int(30 * FS)]
    own = detect(part, FS)
    given = detect(part, FS, template=whole.template)
    np.testing.assert_array_equal(given.template, whole.template)
    # the same beats, on the whole record's reference: within a hundredth of a sample of it
    k = np.abs(given.peaks[:, None] - whole.peaks[None, :]).argmin(axis=1)
    assert np.max(np.abs(given.peaks - whole.peaks[k])) < 0.01
    assert np.max(np.abs(own.peaks - given.peaks)) < 0.05
    with pytest.raises(ValueError, match="template must have 201 samples"):
        detect(part, FS, template=whole.template[:-1])


def test_premature_beat_is_flagged_ectopic():
    rr = np.full(70, 0.8)
    rr[30], rr[31] = 0.5, 1.1  # premature beat then compensatory pause
    times = 0.6 + np.concatenate([[0.0], np.cumsum(rr)])
    x = synthetic_ecg(times, FS, times[-1] + 1.0)
    b = detect(x, FS)
    assert len(b) == times.size
    assert b.n_ectopic == 1
    assert np.flatnonzero(b.ectopic).tolist() == [31]
    assert not b.valid[31] and b.valid.sum() == times.size - 1


def test_odd_shaped_and_huge_beats_are_artifacts():
    times = regular_times(60.0, seed=2)
    amps = np.ones(times.size)
    amps[20] = 4.0  # amplitude outlier
    x = synthetic_ecg(times, FS, 60.0, amplitudes=amps)
    wide = [(0.0, 1.0, 0.04)]  # a broad complex instead of beat 40
    t = np.arange(x.size) / FS
    near = np.abs(t - times[40]) < 0.6
    x[near] -= synthetic_ecg([times[40]], FS, 60.0)[near]
    x += synthetic_ecg([times[40]], FS, 60.0, waves=wide)
    b = detect(x, FS)
    bad = np.flatnonzero(~b.valid).tolist()
    assert bad == [20, 40]
    assert b.n_artifact == 2 and b.template_corr[40] < 0.8


def test_nan_runs_and_flat_lines_are_masked():
    times = regular_times(80.0, seed=3)
    x = synthetic_ecg(times, FS, 80.0)
    x[int(20 * FS):int(23 * FS)] = np.nan
    x[int(50 * FS):int(55 * FS)] = 0.37  # disconnected lead
    b = detect(x, FS)
    t = b.times
    assert not np.any((t > 20) & (t < 23)) and not np.any((t > 50) & (t < 55))
    assert b.n_masked >= int(3 * FS) + int(5 * FS) - 1
    outside = times[~(((times > 19.8) & (times < 23.2)) | ((times > 49.8) & (times < 55.2)))]
    assert np.max(np.abs(_match(b.peaks, outside * FS))) < 0.05
    # RR intervals across a masked gap are not used for ectopy
    assert b.n_ectopic == 0


def test_signal_mask_keeps_short_constant_runs():
    x = np.sin(np.arange(1000) / 10.0)
    x[100:105] = 1.0  # 5 samples constant: a clipped peak, not a flat line
    x[400:700] = 0.0
    m = signal_mask(x, 100.0, flat_s=1.0)
    assert not m[100:105].any()
    assert m[400:700].all() and m.sum() == 300


def _slow_signal_mask(x, fs, flat_s):
    """Sample by sample: non-finite, farther from the finite samples' median than
    GLITCH_FACTOR times the 99th percentile of their distances from it, or inside a run of
    >= round(flat_s * fs) equal samples."""
    finite = [v for v in x if np.isfinite(v)]
    median = float(np.median(finite))
    limit = mask.GLITCH_FACTOR * float(np.percentile([abs(v - median) for v in finite], 99.0))
    bad = [not np.isfinite(v) or abs(v - median) > limit for v in x]
    min_run = max(int(round(flat_s * fs)), 2)
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and x[j + 1] == x[i]:
            j += 1
        if j - i + 1 >= min_run:
            bad[i:j + 1] = [True] * (j - i + 1)
        i = j + 1
    return np.array(bad)


@pytest.mark.parametrize("seed, block", [(0, 1 << 20), (1, 64), (2, 97)])
def test_signal_mask_matches_a_sample_by_sample_reference(seed, block, monkeypatch):
    monkeypatch.setattr(mask, "_MASK_BLOCK", block)  # runs across the blocks' limits
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(size=3000), 1)  # quantised: many short runs of equal samples
    for _ in range(6):
        a = int(rng.integers(0, 2900))
        x[a:a + int(rng.integers(1, 150))] = rng.choice([np.nan, np.inf, 0.3, 0.3])
    x[rng.integers(0, 3000, 3)] = [1e308, -1e30, 400.0]  # impulse glitches
    x[rng.integers(0, 3000)] = 200.0  # far out, yet within the limit: kept
    m = signal_mask(x, 100.0, flat_s=0.5)
    assert np.array_equal(m, _slow_signal_mask(x, 100.0, 0.5))


@pytest.mark.parametrize("glitch", [1e4, 1e30, 1e308])
def test_an_impulse_glitch_costs_the_edr_no_more_than_a_missing_sample(glitch):
    from edr import extract_edr

    rec = simulate_recording(duration_s=120.0, fs=250.0, random_state=1)
    missing, glitched = rec.ecg.copy(), rec.ecg.copy()
    missing[[5000, 9000]] = np.nan
    glitched[[5000, 9000]] = glitch, -glitch  # transmission errors, two orders beyond any QRS
    a, b = extract_edr(missing, fs=250.0), extract_edr(glitched, fs=250.0)
    assert b.n_beats == a.n_beats and b.n_beats_dropped == a.n_beats_dropped
    assert np.allclose(b.waveform, a.waveform, equal_nan=True)
    assert np.array_equal(b.rate_bpm, a.rate_bpm, equal_nan=True)


def test_a_lead_that_lost_single_samples_keeps_its_beats():
    from edr.beats.detection import GAP_GUARD_S

    times = regular_times(120.0, seed=5)
    x = synthetic_ecg(times, FS, 120.0)
    clean = detect(x, FS)
    rng = np.random.default_rng(5)
    lost = np.flatnonzero(rng.random(x.size) < 0.005)  # a lossy link: one sample in 200
    x[lost] = np.nan
    b = detect(x, FS)
    assert b.peaks.size >= clean.peaks.size - 2
    assert np.max(np.abs(_match(b.peaks, clean.peaks))) < 0.5  # samples
    # slow reference: a beat with a lost sample within GAP_GUARD_S of R is an artifact
    half = int(round(GAP_GUARD_S * FS))
    near = np.array([np.any(np.abs(lost - p) <= half) for p in np.round(b.peaks)])
    assert near.any() and not b.valid[near].any()
    assert b.valid[~near].mean() > 0.95
    assert np.max(np.abs(_match(clean.peaks, b.peaks[~near]))) < 0.05


def test_clipping_minority_flagged_majority_kept():
    times = regular_times(60.0, seed=4)
    amps = np.ones(times.size)
    amps[[10, 30]] = 1.8
    x = np.minimum(synthetic_ecg(times, FS, 60.0, amplitudes=amps), 1.1)  # clips only beats 10, 30
    b = detect(x, FS)
    assert np.flatnonzero(b.clipped).tolist() == [10, 30]
    assert not b.valid[[10, 30]].any() and b.n_artifact == 2
    every = np.minimum(synthetic_ecg(times, FS, 60.0), 0.6)  # every beat saturates
    b = detect(every, FS)
    assert b.clipped.all() and b.valid.all()


def test_too_few_beats_raises():
    x = synthetic_ecg(regular_times(12.0), FS, 12.0)
    with pytest.raises(SignalError, match=rf"only 1\d heart beats .* at least {MIN_BEATS}"):
        detect(x, FS)
    with pytest.raises(SignalError, match="no usable stretch"):
        detect(np.full(5000, np.nan), FS)


@pytest.mark.parametrize("fs", [50.0, 20_000.0])
def test_sampling_rate_out_of_range_raises(fs):
    with pytest.raises(SignalError, match=f"fs={fs!r} Hz is outside"):
        detect(np.zeros(10_000), fs)


def test_bad_arguments_raise(regular):
    _, x = regular
    with pytest.raises(ValueError, match="one-dimensional"):
        detect(np.zeros((10, 10)), FS)
    with pytest.raises(ValueError, match="upsample must be an integer >= 1, got 0"):
        detect(x, FS, upsample=0)


def test_other_neurokit_detector_agrees(regular):
    times, x = regular
    b = detect(x, FS, method="pantompkins1985")
    assert b.method == "pantompkins1985"
    # Pan-Tompkins learns its thresholds on the first beat and may mark it off R:
    # such a beat must not pass the template check
    assert b.valid.sum() >= times.size - 1
    assert np.max(np.abs(_match(times * FS, b.peaks[b.valid]))) < 0.05


@pytest.mark.realdata
def test_bidmc_leads_agree(bidmc_dir):
    from edr.io import read_record

    rec = read_record(bidmc_dir / "bidmc36")
    b2 = detect(rec.leads["II"], rec.fs)
    bv = detect(rec.leads["V"], rec.fs)
    assert 400 < len(b2) < 1200  # 8 min of adult ICU heart rate
    d = _match(bv.times, b2.times)
    # the same heart: >= 98 % of lead-II beats have a lead-V beat within 50 ms
    assert np.mean(np.abs(d) < 0.05) > 0.98
    assert b2.valid.mean() > 0.9


def test_chunked_detection_matches_whole_record(monkeypatch):
    """A 20-minute record detected in 4-minute chunks gives the whole-record beats."""
    from edr.beats import alignment, chunks

    x = simulate_recording(1200.0, 250.0, random_state=3).ecg
    whole = detect(x, 250.0)
    monkeypatch.setattr(chunks, "CHUNK_S", 240.0)
    monkeypatch.setattr(alignment, "_ALIGN_BLOCK", 300)
    assert len(chunks.chunk_ranges(x.size, 250.0)) == 5
    chunked = detect(x, 250.0)
    assert chunked.polarity == whole.polarity
    assert len(chunked) == len(whole) > 1300
    np.testing.assert_allclose(chunked.peaks, whole.peaks, atol=1e-3)  # samples
    t = whole.peaks / 250.0
    near_join = np.min(np.abs(t[:, None] - 240.0 * np.arange(1, 5)[None, :]), axis=1) < 15.0
    np.testing.assert_array_equal(chunked.valid[~near_join], whole.valid[~near_join])
    # a template from a subset of the beats moves every peak by the same sub-sample offset
    monkeypatch.setattr(alignment, "TEMPLATE_MAX_BEATS", 400)
    sub = detect(x, 250.0)
    shift = sub.peaks - whole.peaks
    assert abs(np.median(shift)) < 0.1 and np.ptp(shift) < 0.01
    np.testing.assert_array_equal(sub.valid, whole.valid)


def test_inversion_rule_matches_neurokit():
    """The O(n)-memory inversion test agrees with nk.ecg_invert's rolling rule."""
    import neurokit2 as nk
    from neurokit2.ecg.ecg_invert import _roll_orig_max_squared

    from edr.beats.polarity import _orig_max_squared

    y = np.random.default_rng(0).standard_normal(3000)
    np.testing.assert_array_equal(_orig_max_squared(y, 250), _roll_orig_max_squared(y, 250)[:, 0])
    times = regular_times(30.0)
    x = synthetic_ecg(times, FS, 30.0, noise=0.02)
    for sign in (1, -1):
        assert detect(sign * x, FS).polarity == (-1 if nk.ecg_invert(sign * x,
                                                                     sampling_rate=FS)[1] else 1)


def test_running_median_lets_an_outlier_first_beat_stand_out():
    from edr.beats.flags import running_median

    v = np.r_[0.2, 1.0 + 0.01 * np.arange(20), 3.0]
    med = running_median(v)
    assert 0.9 < med[0] < 1.2 and 1.0 < med[-1] < 1.3  # not the outliers themselves


def test_detection_runs_without_upsampling():
    # the samples themselves: tests/edr/test_upsampling.py
    rec = simulate_recording(30.0, 125.0, leads=("II",), random_state=1)
    coarse, fine = (detect(rec.leads["II"], 125.0, upsample=u) for u in (1, 10))
    assert coarse.peaks.size == fine.peaks.size  # resample_poly's filter design failed at 1
    assert np.max(np.abs(coarse.peaks - fine.peaks)) < 1.0


@pytest.mark.parametrize("seed", range(5))
def test_refractory_matches_a_scalar_reference(seed):
    # one peak per 0.2 s, the larger by ref (the first of equal ones): against the loop written
    # on NumPy scalars, with repeated peaks, ties and clusters closer than the period
    from edr.beats.peaks import refractory

    rng = np.random.default_rng(seed)
    fs = 125.0
    snapped = np.sort(rng.integers(0, 3000, 400))
    ref = np.round(rng.normal(size=3000), 1)  # ties
    expect = []
    for p in np.unique(snapped):
        if expect and p - expect[-1] < 0.2 * fs:
            if ref[p] > ref[expect[-1]]:
                expect[-1] = p
        else:
            expect.append(p)
    got = refractory(snapped, ref, fs)
    assert got.dtype == np.asarray(expect, dtype=int).dtype
    assert np.array_equal(got, expect)


def test_few_beats_in_a_long_ecg_name_the_sampling_rate():
    """Ten minutes of a 125 Hz ECG given as 1000 Hz are 75 s at 9 beats/min: the error names the
    rate to check, not a longer recording; a short ECG is still asked to be longer."""
    from edr.errors import SignalError
    from edr.pipeline import extract_edr
    from edr.simulate import simulate_recording

    ecg = simulate_recording(600.0, 125.0, random_state=0).ecg
    with pytest.raises(SignalError, match=r"check that 1000 Hz is the ECG's sampling rate") as e:
        extract_edr(ecg, fs=1000.0)
    assert "longer recording" not in str(e.value)
    with pytest.raises(SignalError, match="give a longer recording"):
        extract_edr(ecg[:1250], fs=125.0)


def test_clipping_one_rule_two_run_lengths():
    """A beat is clipped by a run of 2 samples at the rail (its QRS bent); a sample counts as
    clipped in a run of CLIP_RUN_S (an R apex's two equal samples are no rail). Both judge the
    extremes of the samples given, and a flat lead is not clipped."""
    from edr.beats.flags import (
        CLIPPED_BEAT_RUN,
        clip_run_samples,
        clipped_beats,
        clipped_samples,
        rail_samples,
    )
    from edr.stream.faults import RailRuns

    fs = 250.0
    x = np.zeros(2500)
    x[500:502] = 1.0  # an apex of two equal samples
    x[1500:1520] = -1.0  # 80 ms at the lower rail
    ok = np.ones(x.size, dtype=bool)
    assert CLIPPED_BEAT_RUN == 2 and clip_run_samples(fs) == 10
    assert clipped_beats(x, ok, np.array([501, 1000, 1510]), fs).tolist() == [True, False, True]
    assert clipped_samples(x, fs) == 20
    assert RailRuns(fs, 1).push(x[:, None]).tolist() == [20]
    assert not rail_samples(np.ones(100), np.ones(100, bool), 2).any()
    assert clipped_samples(np.full(100, np.nan), fs) == 0


@pytest.mark.parametrize("block", [7, 64, 1 << 20])
def test_clipped_samples_block_by_block_as_on_the_whole_lead(block, monkeypatch):
    """The count read a block at a time is rail_samples' on the whole lead (runs across block
    ends, glitches and NaN excluded), and a DigitalLead's is its physical values'."""
    import edr.beats.flags as flags
    from edr.beats.mask import glitch_mask
    from edr.io.digital_lead import DigitalLead, lead_blocks

    monkeypatch.setattr(flags, "lead_blocks", lambda x: lead_blocks(x, block))
    rng = np.random.default_rng(block)
    for _ in range(60):
        n, fs = int(rng.integers(10, 3000)), float(rng.choice([25.0, 100.0, 250.0]))
        x = np.round(rng.standard_normal(n).cumsum() / 3)  # long runs of equal values
        x = np.clip(x, *np.percentile(x, [rng.uniform(0, 30), rng.uniform(70, 100)]))
        x[rng.integers(0, n, 2)] = np.nan
        x[rng.integers(0, n)] = 1e30
        ok = np.isfinite(x) & ~glitch_mask(x, fs)
        whole = int(flags.rail_samples(x, ok, flags.clip_run_samples(fs)).sum())
        assert flags.clipped_samples(x, fs) == whole
    digital = np.clip(np.round(rng.standard_normal(5000) * 300), -400, 400).astype(np.int16)
    digital[17] = -32768
    lead = DigitalLead(digital, 200.0, 0, -32768)
    assert flags.clipped_samples(lead, 250.0) == flags.clipped_samples(np.asarray(lead), 250.0)
