"""edr.io.digital_lead: a long record's lead held as its digital samples gives the bits of the
eager float64 lead (wfdb's own conversion, the reference) wherever it is read: slices, the whole
lead, the mains check's sums and median, the mask of unusable samples, and the extraction."""

from __future__ import annotations

import pickle
import tracemalloc

import numpy as np
import pytest
import wfdb

import edr.io.digital_lead as dl
import edr.io.wfdb_samples as ws
from edr.beats import signal_mask
from edr.io import read_record
from edr.io.digital_lead import DigitalLead, finite_median, lead_blocks, lead_sum, physical
from edr.mains import _fill_and_mean, mains_frequency, remove_mains
from edr.pipeline import extract_edr
from edr.simulate import simulate_recording
from edr.spectra import welch_in_blocks

FS = 250.0
SMALL = 30011  # an odd block: the blocks never line up with anything


def _bits(a):
    a = np.asarray(a, dtype=np.float64)
    return a.view(np.int64)


def _same(a, b):
    assert np.shape(a) == np.shape(b)
    assert np.array_equal(_bits(a), _bits(b))  # NaN bits included


def _write(folder, x, name="s", units=("uV",), gain=(0.2,), baseline=(11,), names=("II",)):
    """The lead(s) ``x`` (samples × leads, mV) written as WFDB format 16 in ``units``."""
    x = np.atleast_2d(np.asarray(x, dtype=float).T).T
    scale = np.array([1000.0 if u == "uV" else 1.0 for u in units])
    wfdb.wrsamp(name, fs=FS, units=list(units), sig_name=list(names), p_signal=x * scale,
                fmt=["16"] * x.shape[1], adc_gain=list(gain), baseline=list(baseline),
                write_dir=str(folder))
    return folder / name


def _eager_and_lazy(monkeypatch, base):
    eager = read_record(base)
    monkeypatch.setattr(ws, "BLOCK_FRAMES", 40_000)
    monkeypatch.setattr(dl, "LEAD_BLOCK", SMALL)
    lazy = read_record(base)
    assert isinstance(lazy.ecg, DigitalLead) and isinstance(eager.ecg, np.ndarray)
    return eager, lazy


def _ecg(seconds=600.0, seed=0, nan=((30_000, 30_500),), flat=(), mains=0.0):
    x = simulate_recording(seconds, FS, random_state=seed).ecg.copy()
    x += mains * np.sin(2 * np.pi * 50.0 * np.arange(x.size) / FS)
    for a, b in nan:
        x[a:b] = np.nan
    for a, b in flat:
        x[a:b] = x[a]
    return x


def test_slices_and_the_whole_lead_are_the_eager_bits(tmp_path, monkeypatch):
    x = _ecg(nan=((29_990, 30_020), (149_000, 150_000)))
    eager, lazy = _eager_and_lazy(monkeypatch, _write(tmp_path, x))
    assert lazy.ecg.digital.dtype == np.int16 and lazy.ecg.scale == 1e-3
    assert np.isnan(eager.ecg).sum() == 1030  # the test has NaN to check
    _same(np.asarray(lazy.ecg), eager.ecg)
    _same(lazy.leads["II"], eager.leads["II"])
    rng = np.random.default_rng(0)
    for _ in range(50):
        a, b = sorted(rng.integers(0, x.size + 10, 2))
        _same(lazy.ecg[a:b], eager.ecg[a:b])
    idx = rng.integers(0, x.size, 100)
    _same(lazy.ecg[idx], eager.ecg[idx])
    _same(lazy.ecg[-1], eager.ecg[-1])
    _same(lazy.ecg[::7], eager.ecg[::7])
    assert lazy.ecg.size == len(lazy.ecg) == eager.ecg.size and lazy.duration_s == 600.0


def test_arrays_out_for_users():
    d = np.array([0, 200, 400, -32768, 100], dtype=np.int16)
    lead = DigitalLead(d, 200.0, 0, -32768)
    x = np.array([0.0, 1.0, 2.0, np.nan, 0.5])
    _same(lead * 2, x * 2)
    _same(np.sin(lead), np.sin(x))
    _same(lead.copy(), x)
    assert float(np.nanmean(lead)) == float(np.nanmean(x)) and lead.shape == (5,)
    assert lead.ndim == 1 and lead.dtype == np.float64 and lead.nbytes == 40
    with pytest.raises(ValueError):
        lead.digital[0] = 3  # read-only
    with pytest.raises(TypeError, match="read-only"):
        np.add(x, 1.0, out=(lead,))
    with pytest.raises(ValueError, match="1-D integer"):
        DigitalLead(np.zeros(3), 1.0, 0)
    assert lead.scaled(1.0) is lead and lead.scaled(1e-3)[1] == 1e-3
    again = pickle.loads(pickle.dumps(lead.scaled(1e-3)))  # to a worker process and back
    _same(again, x * 1e-3)
    assert isinstance(again, DigitalLead) and not again.digital.flags.writeable
    with pytest.raises(ValueError, match="once"):
        lead.scaled(1e-3).scaled(1e3)


@pytest.mark.parametrize("n", [1, 127, 128, 129, 1000, 100_003, 3_000_001])
def test_lead_sum_is_numpys_pairwise_sum(n):
    x = np.random.default_rng(n).standard_normal(n) * 0.3 + 0.1
    for leaf in (128, 1000, 1 << 16):
        assert lead_sum(x, leaf=leaf) == np.sum(x)
    a, b = n // 7, n - n // 5
    assert lead_sum(x, a, b, leaf=1000) == np.sum(x[a:b])


@pytest.mark.parametrize("gain", [200.0, -37.3])
@pytest.mark.parametrize("n", [9, 10, 10_001])
def test_finite_median_is_numpys_median(gain, n):
    rng = np.random.default_rng(n)
    d = rng.integers(-3000, 3000, n).astype(np.int16)
    d[rng.choice(n, n // 3, replace=False)] = -32768
    for invalid in (-32768, None):
        lead = DigitalLead(d, gain, 7, invalid, scale=1e-3)
        x = np.asarray(lead)
        assert finite_median(lead) == float(np.median(x[np.isfinite(x)]))
        assert finite_median(x) == float(np.median(x[np.isfinite(x)]))


@pytest.mark.parametrize("nan", [(), ((0, 10), (50_000, 50_001), (70_000, 90_000))])
def test_the_mains_checks_sums_are_the_old_formula(tmp_path, monkeypatch, nan):
    """The reference is the formula before the blocks: ``x.mean()`` without NaN, else
    ``(np.sum(x, where=ok) + n_nan * median) / n``."""
    eager, lazy = _eager_and_lazy(monkeypatch, _write(tmp_path, _ecg(nan=nan)))
    x = eager.ecg
    ok = np.isfinite(x)
    n_ok = int(ok.sum())
    if n_ok == x.size:
        want = (None, x.mean())
    else:
        fill = float(np.median(x[ok]))
        want = (fill, (np.sum(x, where=ok) + (x.size - n_ok) * fill) / x.size)
    for lead in (x, lazy.ecg):
        got = _fill_and_mean(lead, ok, n_ok)
        assert got[0] == want[0] and _bits(got[1]) == _bits(want[1])
    fill, mean = want
    _same(welch_in_blocks(lazy.ecg, FS, 1000, fill=fill, offset=mean)[1],
          welch_in_blocks(x, FS, 1000, fill=fill, offset=mean)[1])


def test_mains_and_mask_of_a_digital_lead(tmp_path, monkeypatch):
    x = _ecg(flat=((SMALL - 400, SMALL + 400), (100_000, 100_100)), mains=0.3)
    eager, lazy = _eager_and_lazy(monkeypatch, _write(tmp_path, x))
    _same(signal_mask(lazy.ecg, FS), signal_mask(eager.ecg, FS))
    assert signal_mask(eager.ecg, FS)[SMALL - 400:SMALL + 400].all()  # a flat run across blocks
    assert mains_frequency(lazy.ecg, FS) == mains_frequency(eager.ecg, FS) == 50.0
    _same(remove_mains(lazy.ecg, FS), remove_mains(eager.ecg, FS))
    quiet = read_record(_write(tmp_path, _ecg(), name="q"))  # the blocks of _eager_and_lazy
    assert isinstance(quiet.ecg, DigitalLead)
    assert mains_frequency(quiet.ecg, FS) is None and remove_mains(quiet.ecg, FS) is quiet.ecg


def _same_result(a, b):
    for k in ("time", "waveform", "beat_times", "beat_values", "rate_time", "rate_bpm",
              "rate_quality"):
        _same(getattr(a, k), getattr(b, k))
    assert a.summary() == b.summary() and a.masked == b.masked


@pytest.mark.parametrize("mains", [0.0, 0.3])
def test_extraction_of_a_digital_lead_is_the_eager_one(tmp_path, monkeypatch, mains):
    x = _ecg(nan=((30_000, 30_500), (60_000, 66_000)), mains=mains)
    eager, lazy = _eager_and_lazy(monkeypatch, _write(tmp_path, x))
    _same_result(extract_edr(lazy, window_s=120.0), extract_edr(eager, window_s=120.0))


def test_extraction_of_two_digital_leads_is_the_eager_one(tmp_path, monkeypatch):
    x = np.column_stack([_ecg(300.0), _ecg(300.0, seed=1, nan=())])
    base = _write(tmp_path, x, units=("uV", "mV"), gain=(0.2, 400.0), baseline=(11, -3),
                  names=("II", "V"))
    eager, lazy = _eager_and_lazy(monkeypatch, base)
    assert all(isinstance(v, DigitalLead) for v in lazy.leads.values())
    _same_result(extract_edr(lazy, window_s=120.0), extract_edr(eager, window_s=120.0))


def test_a_long_record_is_held_in_a_quarter_of_its_float64_size(tmp_path, monkeypatch):
    n = 1 << 20
    d = np.random.default_rng(1).integers(-3000, 3000, size=(n, 1))
    wfdb.wrsamp("long", fs=FS, units=["mV"], sig_name=["II"], d_signal=d, fmt=["16"],
                adc_gain=[200.0], baseline=[0], write_dir=str(tmp_path))
    monkeypatch.setattr(ws, "BLOCK_FRAMES", 1 << 15)
    tracemalloc.start()
    try:
        rec = read_record(tmp_path / "long")
        held = tracemalloc.get_traced_memory()[0]
        blocks = sum(b.size for _, b in lead_blocks(rec.ecg))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert blocks == n and isinstance(rec.ecg, DigitalLead)
    assert held < 0.3 * n * 8  # int16: a quarter of the float64 lead (and the read's block)
    assert peak < 0.3 * n * 8 + 3 * dl.LEAD_BLOCK * 8
    _same(rec.ecg[:1000], physical(d[:1000, 0], 200.0, 0, -32768))
