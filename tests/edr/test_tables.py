"""edr.tables: an EDRResult as pandas tables, checked against the result's own fields and a
slow reading of why each rate is withheld."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from edr.pipeline import EDRResult, WindowInfo, extract_edr
from edr.rates import QUALITY_THRESHOLD
from edr.signal import RATE_WINDOW_S
from edr.simulate import simulate_recording
from edr.tables import WITHHELD, withheld_reasons


@pytest.fixture(scope="module")
def two_lead_result():
    rec = simulate_recording(150.0, 250.0, leads=("II", "V"), random_state=1)
    return extract_edr(rec, window_s=60.0)


def _slow_reasons(res: EDRResult, threshold=QUALITY_THRESHOLD):
    """Why each rate window has no rate, one window and one grid point at a time."""
    out = []
    for centre, rate, quality in zip(res.rate_time, res.rate_bpm, res.rate_quality, strict=True):
        lo, hi = centre - RATE_WINDOW_S / 2, centre + RATE_WINDOW_S / 2
        if np.isfinite(rate):
            out.append(None)
            continue
        points = [k for k, t in enumerate(res.time) if lo - 1e-9 <= t < hi - 1e-9]
        skipped = [w for w in res.windows if w.quality["status"].startswith("skipped")]
        if any(a < hi and b > lo for a, b in res.masked):
            out.append("masked")
        elif any(w.start_s < hi and w.end_s > lo for w in skipped):
            out.append("skipped")
        elif any(np.isnan(res.waveform[k]) for k in points):
            out.append("no beats")
        elif not any(w.start_s <= lo and res.time[points[-1]] <= w.end_s
                     for w in res.windows if w not in skipped):
            out.append("not judged")
        elif quality >= threshold:
            out.append("dropped beats")
        else:
            out.append("low quality")
    return out


def test_grid_frame_is_the_csv_columns(two_lead_result):
    res = two_lead_result
    frame = res.to_frame()
    cols = res.grid_columns()
    assert frame.columns.tolist() == ["time_s", "edr", "rate_bpm", "quality"] == list(cols)
    for name, values in cols.items():
        np.testing.assert_array_equal(frame[name].to_numpy(), values)


def test_rate_frame_holds_the_rates_and_why_some_are_withheld(two_lead_result):
    res = two_lead_result
    frame = res.rate_frame()
    assert frame.columns.tolist() == ["time_s", "start_s", "end_s", "rate_bpm", "quality",
                                      "withheld"]
    np.testing.assert_array_equal(frame["rate_bpm"].to_numpy(), res.rate_bpm)
    np.testing.assert_array_equal(frame["quality"].to_numpy(), res.rate_quality)
    np.testing.assert_allclose(frame["end_s"] - frame["start_s"], RATE_WINDOW_S)
    given = np.isfinite(res.rate_bpm)
    assert frame["withheld"].isna().to_numpy().tolist() == given.tolist()
    assert frame["withheld"].dropna().isin(list(WITHHELD)).all()
    assert withheld_reasons(res).tolist() == _slow_reasons(res)


def test_masked_stretches_are_named(masked_record_result):
    _, res = masked_record_result
    reasons = withheld_reasons(res)
    assert reasons.tolist() == _slow_reasons(res)
    late = res.rate_time + RATE_WINDOW_S / 2 > 150.0
    assert set(reasons[late]) == {"masked"}
    assert "masked" not in set(reasons[~late])


@pytest.mark.parametrize("case", ["dropped beats", "skipped", "no beats", "low quality"])
def test_every_reason_matches_the_slow_reading(two_lead_result, case):
    res = two_lead_result
    k = 3  # a rate window with a rate to withhold
    rate, quality = res.rate_bpm.copy(), res.rate_quality.copy()
    waveform, windows = res.waveform.copy(), list(res.windows)
    lo = res.rate_time[k] - RATE_WINDOW_S / 2
    rate[k] = np.nan
    if case == "low quality":
        quality[k] = 0.1
    elif case == "no beats":
        waveform[np.searchsorted(res.time, lo) + 3] = np.nan
    elif case == "skipped":
        windows.append(WindowInfo(lo + 1.0, lo + 2.0, 0, 0, None, "fuse",
                                  {"status": "skipped: too few beats"}))
    changed = dataclasses.replace(res, rate_bpm=rate, rate_quality=quality, waveform=waveform,
                                  windows=windows)
    reasons = withheld_reasons(changed)
    assert reasons[k] == case
    assert reasons.tolist() == _slow_reasons(changed)
    assert changed.rate_frame()["withheld"].iloc[k] == case


def test_window_frame_is_one_row_per_window(two_lead_result):
    res = two_lead_result
    frame = res.window_frame()
    assert frame.index.name == "window" and len(frame) == len(res.windows)
    assert frame.columns[:11].tolist() == [
        "start_s", "end_s", "status", "lead", "leads_used", "sigma2", "n_beats", "n_dropped",
        "dropped_share", "quality_index", "spectral_concentration"]
    for k, w in enumerate(res.windows):
        row = frame.iloc[k]
        assert (row.start_s, row.end_s, row.lead, row.n_beats, row.sigma2) == (
            w.start_s, w.end_s, w.lead, w.n_beats, w.sigma2)
        assert row.status == w.quality["status"]
        assert row.leads_used == ",".join(w.quality["fused_leads"])
        assert row.criterion == w.quality["criterion"] and row.margin == w.quality["margin"]
    assert "weights" not in frame and "lead_scores" not in frame  # nested: in lead_frame


def test_lead_frame_gives_each_leads_share_of_the_fused_edr(two_lead_result):
    res = two_lead_result
    frame = res.lead_frame()
    assert frame.columns.tolist() == ["window", "start_s", "end_s", "lead", "analysed", "used",
                                      "score", "sigma2", "weight", "reason"]
    assert len(frame) == 2 * len(res.windows)
    for k, w in enumerate(res.windows):
        rows = frame[frame["window"] == k].set_index("lead")
        assert set(rows.index) == set(w.quality["lead_scores"]) == {"II", "V"}
        assert rows["analysed"].sum() == 1 and rows.loc[w.lead, "analysed"]
        for lead in rows.index:
            share = sum(v for name, v in w.quality["weights"].items()
                        if name.startswith(lead + "/"))
            assert rows.loc[lead, "weight"] == pytest.approx(share)
            assert rows.loc[lead, "score"] == w.quality["lead_scores"][lead]
            assert rows.loc[lead, "sigma2"] == w.quality["lead_sigma2"][lead]
        assert rows["weight"].sum() == pytest.approx(1.0)


def test_single_lead_tables(masked_record_result):
    _, res = masked_record_result
    leads = res.lead_frame()
    assert leads["lead"].unique().tolist() == ["II"] and leads["used"].all()
    assert leads["weight"].tolist() == pytest.approx([1.0] * len(leads))
    assert leads["score"].isna().all()
    assert res.window_frame()["leads_used"].unique().tolist() == ["II"]


def test_breaths_are_found_once_and_their_frame_is_them(two_lead_result, monkeypatch):
    import edr.breaths

    res = dataclasses.replace(two_lead_result)  # a fresh result: nothing cached
    calls = []
    detect = edr.breaths.detect_breaths
    monkeypatch.setattr(edr.breaths, "detect_breaths",
                        lambda result: calls.append(result) or detect(result))
    first = res.breaths
    assert res.breaths is first and calls == [res]  # computed once, then read
    expected = detect(two_lead_result)
    np.testing.assert_array_equal(first.time, expected.time)
    assert len(first) > 20
    frame = res.breath_frame()
    assert calls == [res]
    assert frame.columns.tolist() == list(edr.breaths.Breaths.COLUMNS)
    for name, values in first.columns().items():
        np.testing.assert_array_equal(frame[name].to_numpy(), values)
    assert frame["low_quality"].dtype == bool and frame["after_pause"].dtype == bool


def test_a_result_prints_as_a_digest_not_its_arrays(two_lead_result):
    text = repr(two_lead_result)
    s = two_lead_result.summary()
    assert len(text.splitlines()) == 5 and len(text) < 600  # no array dumped
    assert text.startswith(f"EDRResult(method={s['method']!r}, lead={s['lead']!r}")
    assert f"{s['n_beats']} beats used" in text
    assert f"{s['rate_bpm_median']:.1f} breaths/min" in text
    given = int(np.isfinite(two_lead_result.rate_bpm).sum())
    assert f"in {given} of {len(two_lead_result.rate_bpm)} rate windows" in text
    none = dataclasses.replace(two_lead_result, rate_bpm=np.full_like(two_lead_result.rate_bpm,
                                                                      np.nan), sigma2=None)
    assert "no rate in" in repr(none) and "sigma2=None" in repr(none)
    assert str(two_lead_result) == text
