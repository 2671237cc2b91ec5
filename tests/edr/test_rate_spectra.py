"""The rate periodograms made apart from their peaks (``edr.rate_spectra``), and made where a
window's panel series are (its lead threads): the same rates, bit for bit, as transforming the
series when the rates are judged."""

import numpy as np
import pytest

from edr import rate_spectra as rs
from edr import rates, signal
from edr.rates import RateSpan, settled_span
from edr.simulate import simulate_recording


def _reference_rate(seg, fs, tilt, limit):
    """One window's spectral-peak rate from its definition (cf. ``test_rates``): the
    demeaned, Hann-windowed, zero-padded periodogram's local maxima in the band at or below
    ``limit``, the largest ``f**tilt`` times power; NaN without power or without a maximum."""
    if not np.all(np.isfinite(seg)):
        return np.nan
    win = seg.size
    nfft = max(signal.RATE_NFFT, win)
    spec = np.abs(np.fft.rfft((seg - seg.mean()) * np.hanning(win), n=nfft)) ** 2
    f = 60.0 * np.fft.rfftfreq(nfft, d=1.0 / fs)
    band = (f >= signal.RATE_BAND_BPM[0]) & (f <= signal.RATE_BAND_BPM[1])
    fb, sb = f[band], spec[band]
    best, best_score = np.nan, -1.0
    for i in range(sb.size):
        left = i == 0 or sb[i] >= sb[i - 1]
        right = i == sb.size - 1 or sb[i] >= sb[i + 1]
        if left and right and fb[i] <= limit and sb[i] * fb[i] ** tilt > best_score:
            best, best_score = fb[i], sb[i] * fb[i] ** tilt
    return best if np.any(sb > 0) else np.nan


@pytest.mark.parametrize("block", [None, 5])
def test_peak_rates_of_the_spectra_are_the_rates_of_each_window(monkeypatch, block):
    if block is not None:
        monkeypatch.setattr(rs, "RATE_BLOCK", block)
    rng = np.random.default_rng(21)
    fs = 4.0
    t = np.arange(3000) / fs
    x = np.sin(2 * np.pi * 0.3 * t) + 0.8 * np.sin(2 * np.pi * 0.7 * t)
    x = x + rng.standard_normal(t.size)
    x[1300:1310] = np.nan
    starts = rs.window_starts(x.size, fs)
    win = int(round(signal.SEGMENT_S * fs))
    spectra = rs.rate_spectra(x, starts, fs)
    limits = rng.uniform(10.0, 60.0, starts.size)
    for tilt, limit in ((0.0, None), (signal.RATE_TILT, None), (1.0, limits), (0.5, 30.0)):
        got = rs.peak_rates(spectra, tilt=tilt, max_bpm=limit)
        lim = np.broadcast_to(np.inf if limit is None else limit, starts.shape)
        expect = [_reference_rate(x[s:s + win], fs, tilt, lim[i]) for i, s in enumerate(starts)]
        np.testing.assert_array_equal(got, expect)
        np.testing.assert_array_equal(
            got, rs.spectral_peak_rates(x, starts, fs, tilt=tilt, max_bpm=limit))
    assert np.isnan(rs.peak_rates(spectra)).sum() == 2  # the two windows holding NaN
    assert rs.peak_rates(rs.rate_spectra(x, [], fs)).size == 0


def test_rated_starts_are_the_windows_a_span_holds_whole():
    for n, first, last in ((480, 0, 479), (480, 60, 479), (1000, 33, 700), (100, 0, 99)):
        win = int(round(signal.SEGMENT_S * 4.0))
        expect = [s for s in rs.window_starts(n, 4.0) if s >= first and s + win - 1 <= last]
        np.testing.assert_array_equal(rs.rated_starts(n, 4.0, first, last), expect)


def test_a_span_settled_from_its_spectra_equals_one_settled_from_its_panel():
    rng = np.random.default_rng(3)
    n, first, last = 1200, 100, 1100
    panel = {"a": rng.standard_normal(last - first + 1),
             "b": np.sin(np.arange(last - first + 1) / 3.0)}
    beats = np.sort(rng.uniform(first / 4.0, last / 4.0, 400))
    span = RateSpan(first, last, (first / 4.0, last / 4.0), panel, {"a": 0.5, "b": 0.5}, beats)
    starts = rs.rated_starts(n, 4.0, first, last) - first
    made = {k: rs.rate_spectra(v, starts, 4.0) for k, v in panel.items()}
    plain = settled_span(span, n, 4.0)
    given = settled_span(RateSpan(first, last, span.core, panel, span.weights, beats,
                                  spectra=made), n, 4.0)
    assert given.spectra is None and given.panel == {}
    np.testing.assert_array_equal(given.rated, plain.rated)
    for k in panel:
        np.testing.assert_array_equal(given.rates[k], plain.rates[k])
    # spectra made at other windows are not used: the panel is transformed again
    wrong = {k: rs.rate_spectra(v, starts[1:], 4.0) for k, v in panel.items()}
    again = settled_span(RateSpan(first, last, span.core, panel, span.weights, beats,
                                  spectra=wrong), n, 4.0)
    for k in panel:
        np.testing.assert_array_equal(again.rates[k], plain.rates[k])


@pytest.mark.parametrize("lead", ["fuse", "auto", None])
def test_a_window_s_panel_spectra_are_those_of_its_panel(lead):
    from edr import windows
    from edr.options import EDROptions

    rec = simulate_recording(duration_s=100.0, fs=250.0, leads=("II", "V2"), random_state=5)
    opts = EDROptions(lead=lead, method_options={"n_draws": 12})
    leads = windows.record_leads(rec, opts)
    grid = windows.output_grid(rec.ecg.size / rec.fs, opts.fs_out)
    w = windows.Window(10.0, 100.0)  # the window starts within the grid: relative starts
    wa = windows.analyse_window(w, leads, rec.fs, grid, opts, panel_spectra=True)
    plain = windows.analyse_window(w, leads, rec.fs, grid, opts)
    assert plain.panel_spectra == {} and set(wa.panel_spectra) == set(wa.panel)
    np.testing.assert_array_equal(wa.series, plain.series)
    idx = np.flatnonzero(wa.grid_mask)
    starts = rs.rated_starts(grid.size, opts.fs_out, idx[0], idx[-1]) - idx[0]
    assert starts.size and starts[0] > 0
    for k, v in wa.panel.items():
        made, expect = wa.panel_spectra[k], rs.rate_spectra(v, starts, opts.fs_out)
        np.testing.assert_array_equal(made.starts, expect.starts)
        assert len(made.blocks) == len(expect.blocks)
        for (c, ok, spec), (c2, ok2, spec2) in zip(made.blocks, expect.blocks, strict=True):
            assert c == c2
            np.testing.assert_array_equal(ok, ok2)
            np.testing.assert_array_equal(spec, spec2)


def test_the_record_s_rates_do_not_depend_on_where_the_spectra_are_made(monkeypatch):
    from edr.pipeline import extract_edr

    rec = simulate_recording(duration_s=400.0, fs=250.0, leads=("II", "V2"), random_state=6)
    kw = {"window_s": 150.0, "n_draws": 12}
    made = extract_edr(rec, **kw)
    of = RateSpan.of.__func__

    def without_spectra(cls, window, wa):
        wa.panel_spectra = {}
        return of(cls, window, wa)

    monkeypatch.setattr(RateSpan, "of", classmethod(without_spectra))
    again = extract_edr(rec, **kw)
    assert len(made.windows) == 4
    np.testing.assert_array_equal(made.rate_bpm, again.rate_bpm)
    np.testing.assert_array_equal(made.rate_quality, again.rate_quality)
    np.testing.assert_array_equal(made.waveform, again.waveform)
    assert rates.spectral_peak_rates is rs.spectral_peak_rates  # one home, re-exported
