"""The alignment's Pearson correlation at every lag (compiled lagged products, running-sum
norms) against its definition, one window at a time."""

import numpy as np

from edr.beats.alignment import _pearson_lags


def test_pearson_lags_are_the_correlations_of_each_window():
    rng = np.random.default_rng(3)
    m, max_lag = 21, 6
    template = np.sin(np.linspace(0, 3, m)) + 0.1 * rng.normal(size=m)
    fine = rng.normal(size=(5, m + 2 * max_lag)).cumsum(axis=1)
    fine[4, 2:2 + m] = 1.5  # a flat window: correlation 0
    got = _pearson_lags(fine, template, max_lag)
    assert got.shape == (5, 2 * max_lag + 1)
    for i in range(5):
        for k in range(2 * max_lag + 1):
            window = fine[i, k:k + m]
            expect = 0.0 if np.ptp(window) == 0 else np.corrcoef(window, template)[0, 1]
            assert abs(got[i, k] - expect) < 1e-10, (i, k)


def test_window_norms_kept_between_passes_change_nothing(monkeypatch):
    # the norms of the beats' windows do not depend on the template: given (as the second pass
    # gets them from the first) or computed again, the correlations are bit for bit the same;
    # and the alignment in one block (norms kept) equals the alignment in blocks (recomputed)
    import edr.beats.alignment as alignment
    from edr.beats.alignment import _window_norms, aligned_peaks

    rng = np.random.default_rng(5)
    m, max_lag = 31, 8
    fine = rng.normal(size=(40, m + 2 * max_lag)).cumsum(axis=1)
    for template in (np.hanning(m), rng.normal(size=m)):
        again = _pearson_lags(fine, template, max_lag)
        kept = _pearson_lags(fine, template, max_lag, _window_norms(fine, m))
        assert np.array_equal(again, kept)
    fs = 250.0
    t = np.arange(int(60 * fs)) / fs
    beats = (np.arange(1, 59) + 0.01 * rng.normal(size=58)) * fs
    x = sum(np.exp(-0.5 * ((t * fs - b) / 3.0) ** 2) for b in beats)
    x = x + 0.02 * rng.normal(size=t.size)
    peaks = np.round(beats).astype(int)
    options = {"up": 10, "half_s": 0.05, "max_lag_s": 0.01, "shift": True}
    one_block = aligned_peaks(x, fs, peaks, **options)
    monkeypatch.setattr(alignment, "_ALIGN_BLOCK", 20)  # 3 blocks: nothing kept
    in_blocks = aligned_peaks(x, fs, peaks, **options)
    for a, b in zip(one_block, in_blocks, strict=True):
        assert np.array_equal(a, b)


def test_template_is_the_median_of_each_column_of_the_aligned_beats():
    # the template (edr.medians' sorted columns) against NumPy's median of each fine sample
    # over the beats, one column at a time, from the lags the first pass found; an even and an
    # odd number of beats, and a beat with NaN (the template is NaN where it reads it)
    from edr.beats.alignment import aligned_peaks
    from edr.upsampling import neighbourhoods_upsampled

    rng = np.random.default_rng(11)
    fs, up, half_s, max_lag_s = 250.0, 10, 0.05, 0.012
    half, lag = int(round(half_s * fs)), int(round(max_lag_s * fs))
    tw = half * up
    for n_beats in (40, 41):
        beats = (np.arange(1, n_beats + 1) + 0.02 * rng.normal(size=n_beats)) * fs
        t = np.arange(int((n_beats + 1) * fs)) / fs
        x = sum(np.exp(-0.5 * ((t * fs - b) / 3.0) ** 2) for b in beats)
        x = x + 0.05 * rng.normal(size=t.size)
        if n_beats == 41:
            x[int(beats[7]) + 2] = np.nan
        peaks = np.round(beats).astype(int)
        _, _, template = aligned_peaks(x, fs, peaks, up=up, half_s=half_s, max_lag_s=max_lag_s,
                                       shift=True)
        fine = neighbourhoods_upsampled(x, peaks, up, half + lag + 1)
        c = fine.shape[1] // 2
        first = np.median(fine[:, c - tw:c + tw + 1], axis=0)  # the first pass: no lags
        best = _best_lags(fine, first, tw, lag * up)
        expect = np.array([np.median([fine[i, c + best[i] + j] for i in range(n_beats)])
                           for j in range(-tw, tw + 1)])
        assert np.array_equal(template, expect, equal_nan=True)
        assert np.isnan(template).any() == (n_beats == 41)


def _best_lags(fine, template, tw, max_lag):
    """Each beat's lag of highest correlation with ``template`` (the alignment's first pass)."""
    c = fine.shape[1] // 2
    f = fine[:, c - tw - max_lag:c + tw + max_lag + 1]
    return np.argmax(_pearson_lags(f, template, max_lag), axis=1) - max_lag


def test_default_upsampling_recovers_known_sub_sample_positions():
    # noise-free beats of one shape at known fractional positions (125 Hz, a narrow QRS with an
    # S wave): the default factor's positions minus the true ones are one constant (where the
    # template peaks) plus a residual below 3e-4 samples (about 1e-4 at 5 times, 5e-4 at 3
    # times, 2e-6 at 20 times)
    import inspect

    from edr.beats import detect
    from edr.beats.alignment import aligned_peaks

    up = inspect.signature(detect).parameters["upsample"].default
    rng = np.random.default_rng(7)
    fs, n_beats = 125.0, 120
    beats = (np.arange(1, n_beats + 1) * 0.9 + 0.05 * rng.normal(size=n_beats)) * fs
    d = np.arange(int((n_beats + 2) * 0.9 * fs))[None, :] - beats[:, None]
    x = (np.exp(-0.5 * (d / 1.4) ** 2) - 0.3 * np.exp(-0.5 * ((d - 3.0) / 1.8) ** 2)).sum(axis=0)
    pos, _, _ = aligned_peaks(x, fs, np.round(beats).astype(int), up=up, half_s=0.08,
                              max_lag_s=0.024, shift=True)
    err = pos - beats
    assert np.abs(err - np.median(err)).max() < 3e-4
