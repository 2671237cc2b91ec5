"""Tests of ``extract_edr(..., solver="fs2")``: one FS2 + Nyström kPCA model over a whole record."""

from __future__ import annotations

import json

import numpy as np
import pytest

from edr import extract
from edr.pipeline import WHOLE_RECORD_MAX_S, extract_edr
from edr.scoring import reference_on_grid, score
from edr.signal import bandpass
from edr.simulate import simulate_recording

SIGMA2 = 0.5  # fixed width: the criteria are tested in kpca.selection / kpca.largescale


@pytest.fixture(scope="module")
def rec():
    return simulate_recording(duration_s=120.0, fs=250.0, random_state=3)


@pytest.fixture(scope="module")
def fs2(rec):
    return extract_edr(rec, "kpca", sigma2=SIGMA2, solver="fs2", n_support=30, random_state=1)


def _corr_with_truth(res, rec):
    ref = bandpass(reference_on_grid(rec.resp, rec.resp_fs, res.time), fs=res.fs)
    return abs(np.corrcoef(res.waveform, ref)[0, 1])


def test_short_record_follows_the_truth_and_records_metadata(rec, fs2):
    assert _corr_with_truth(fs2, rec) > 0.9
    assert np.all(np.isfinite(fs2.waveform)) and fs2.waveform.size == 120 * 4
    assert fs2.params["solver"] == "fs2" and fs2.params["n_support"] == 30
    (w,) = fs2.windows
    assert (w.start_s, w.end_s) == (0.0, 120.0)
    assert w.quality["solver"] == "fs2" and w.quality["n_support"] == 30
    assert w.quality["train_on"] == "all" and w.sigma2 == SIGMA2
    json.dumps(fs2.summary())
    dense = extract_edr(rec, "kpca", sigma2=SIGMA2)
    assert dense.params["solver"] == "dense" and dense.params["n_support"] is None
    assert np.corrcoef(fs2.waveform, dense.waveform)[0, 1] > 0.9  # same sign convention


def test_one_model_across_the_windowing_threshold():
    long = simulate_recording(duration_s=WHOLE_RECORD_MAX_S + 60.0, fs=250.0, random_state=4)
    res = extract_edr(long, "kpca", sigma2=SIGMA2, solver="fs2", n_support=40)
    assert len(res.windows) == 1 and res.windows[0].end_s == WHOLE_RECORD_MAX_S + 60.0
    assert res.params["windows_planned"] == 1
    assert res.n_beats > 700 and res.windows[0].n_beats == res.n_beats
    s = score(res, long)
    assert s.corr > 0.9 and s.msc > 0.6 and s.rate_error_bpm < 1.0


def test_sigma2_criterion_on_the_support_vectors(rec):
    # MDD on the support vectors + a validation set of the other beats (Varon 2015, Fig. 8)
    res = extract_edr(rec, "kpca", solver="fs2", n_support=25, n_draws=5)
    q = res.windows[0].quality
    assert res.selection.criterion == "varon2015" and res.sigma2 == res.selection.sigma2
    assert res.selection.details["n_train"] == 25
    assert q["n_validation"] == res.n_beats - 25 and "margin" in q
    assert _corr_with_truth(res, rec) > 0.8


def test_default_n_support_is_capped_below_the_beats(rec):
    res = extract_edr(rec, "kpca", solver="fs2", sigma2="rule-of-thumb")
    assert res.params["n_support"] == min(200, res.n_beats - 1)


def test_deterministic_with_random_state(rec, fs2):
    again = extract_edr(rec, "kpca", sigma2=SIGMA2, solver="fs2", n_support=30, random_state=1)
    np.testing.assert_array_equal(again.waveform, fs2.waveform)


def test_kpca_rsa_takes_the_solver(rec):
    res = extract_edr(rec, "kpca_rsa", sigma2=SIGMA2, solver="fs2", n_support=30)
    assert res.windows[0].quality["solver"] == "fs2" and "weight_rsa" in res.windows[0].quality


@pytest.mark.parametrize("kw, match", [
    ({"solver": "sparse"}, r"unknown solver 'sparse'; valid solvers are \['dense', 'fs2'\]"),
    ({"solver": "fs2", "n_support": 1}, "n_support must be None or an integer >= 2"),
    ({"solver": "fs2", "n_support": 2.5}, "n_support must be None or an integer >= 2"),
    ({"solver": "fs2", "n_support": True}, "n_support must be None or an integer >= 2"),
    ({"solver": "fs2", "n_support": 10_000},
     r"n_support must be in \[2, \d+\] for \d+ valid beats"),
    ({"solver": "fs2", "n_support": 10_000, "sigma2": "mdd"},
     "a sigma2 criterion needs at least one beat outside the support vectors"),
    ({"n_support": 50}, "n_support applies to solver='fs2' only"),
    ({"train_on": "all"}, "train_on applies to solver='fs2' only"),
    ({"solver": "fs2", "train_on": "half"}, r"train_on must be one of \['all', 'support'\]"),
    ({"solver": "fs2", "window_s": 60.0},
     "fits one model to the whole record; window_s must be None"),
    ({"solver": "fs2", "method": "r_amplitude"},
     "needs a kernel PCA method with beats as data points"),
    ({"solver": "fs2", "method": "kpca_positions"},
     "needs a kernel PCA method with beats as data points"),
    ({"solver": "fs2", "lead": "multilead"}, "not available with lead='multilead'"),
])
def test_bad_solver_arguments(rec, kw, match):
    kw = {"sigma2": SIGMA2, **kw}
    method = kw.pop("method", "kpca")
    if method == "r_amplitude":
        kw.pop("sigma2")
    with pytest.raises(ValueError, match=match):
        extract_edr(rec, method, **kw)


# --------------------------------------------------------------------------- #
# command line
# --------------------------------------------------------------------------- #
@pytest.fixture
def record_file(tmp_path, monkeypatch, rec):
    import wfdb

    monkeypatch.chdir(tmp_path)
    wfdb.wrsamp("sim", fs=rec.fs, units=["mV"], sig_name=["II"], p_signal=rec.ecg[:, None],
                fmt=["16"], write_dir=str(tmp_path))
    return tmp_path / "sim.dat"


def test_cli_solver_fs2_writes_the_csv(record_file, capsys, monkeypatch):
    import sys

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # a terminal sees the long step
    code = extract.main([str(record_file), "--method", "kpca", "--solver", "fs2",
                         "--n-support", "30",
                         "--sigma2", "0.5", "--json", "sim.json"])
    captured = capsys.readouterr()
    out = captured.out
    assert "fitting one FS2 model" in captured.err  # the long step says so
    assert code == 0
    assert "one FS2 model (M = 30)" in out
    data = np.loadtxt("sim_edr.csv", delimiter=",", skiprows=1)
    assert data.shape == (120 * 4, 4) and np.all(np.isfinite(data[:, :2]))
    params = json.loads(open("sim.json").read())["result"]["params"]
    assert params["solver"] == "fs2" and params["n_support"] == 30


@pytest.mark.parametrize("argv, fragment", [
    (["--solver", "sparse"], "--solver: unknown solver 'sparse'"),
    (["--solver", "fs2", "--n-support", "1"], "--n-support: must be an integer >= 2"),
    (["--n-support", "30"], "--n-support applies to --solver fs2 only"),
    (["--method", "kpca", "--solver", "fs2", "--n-support", "9999", "--sigma2", "0.5"],
     "must be in [2, "),
    (["--solver", "fs2"], "--solver 'fs2' needs a kernel PCA method"),
])
def test_cli_bad_solver_options_exit_2_without_output(record_file, capsys, argv, fragment):
    code = extract.main([str(record_file), *argv])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and fragment in err, err
    assert not (record_file.parent / "sim_edr.csv").exists()
