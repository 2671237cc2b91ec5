"""Real-time EDR (edr.stream): agreement with the offline pipeline, block-size invariance,
bounded state, latency, the command line (replay, stdin, LSL loopback) and bad inputs."""

from __future__ import annotations

import csv
import io
import threading
import time
import uuid

import numpy as np
import pytest

from edr.errors import SignalError
from edr.simulate import simulate_recording
from edr.stream import DEFAULT_DELAY_S, DEFAULT_HOP_S, StreamingEDR, main

FS = 125.0


@pytest.fixture(scope="module")
def rec():
    return simulate_recording(240.0, FS, random_state=7)


def _run(x, block, **kw):
    s = StreamingEDR(FS, **kw)
    ups = []
    for i in range(0, x.size, block):
        ups += s.push(x[i:i + block])
    ups += s.flush()
    return s, ups


@pytest.fixture(scope="module")
def streamed(rec):
    return _run(rec.ecg, 1000)


def test_stream_agrees_with_offline(rec, streamed):
    from edr.pipeline import extract_edr

    off = extract_edr(rec)
    _, ups = streamed
    t = np.concatenate([u.edr_time for u in ups])
    y = np.concatenate([u.edr for u in ups])
    np.testing.assert_allclose(t, off.time)  # the same 4 Hz grid, every point emitted once
    assert abs(np.corrcoef(y, off.waveform)[0, 1]) > 0.85
    assert np.corrcoef(y, off.waveform)[0, 1] > 0  # same sign convention (R amplitude)
    rates = np.array([u.rate_bpm for u in ups[3:]])
    assert np.nanmedian(np.abs(rates - 15.0)) < 1.5  # simulated breathing at 0.25 Hz


def test_block_size_does_not_change_output():
    x = simulate_recording(75.0, FS, random_state=3).ecg
    runs = [_run(x, b)[1] for b in (1, 37, 10_000)]
    for other in runs[1:]:
        assert len(other) == len(runs[0])
        for a, b in zip(runs[0], other, strict=True):
            assert a.time_s == b.time_s
            np.testing.assert_array_equal(a.edr_time, b.edr_time)
            np.testing.assert_array_equal(a.edr, b.edr)
            assert a.rate_bpm == b.rate_bpm or (np.isnan(a.rate_bpm) and np.isnan(b.rate_bpm))
            assert a.quality == b.quality


def test_state_is_bounded_and_latency_holds(streamed):
    s, ups = streamed
    assert s._ring.cap == int(round(s.span_s * FS))
    assert s._peaks.size <= s.span_s * 3  # beats of one span only
    assert s._hist_v.cap <= s.span_s * s.fs_out + 8
    for u in ups[1:-1]:  # after the warm-up burst, before the flush
        assert u.edr_time[-1] <= u.time_s - DEFAULT_DELAY_S + 1e-9
        assert u.edr_time[0] >= u.time_s - DEFAULT_DELAY_S - DEFAULT_HOP_S - 1e-9
        assert u.rate_time_s == u.edr_time[-1]
    assert s.n_selections >= 1
    with pytest.raises(RuntimeError):
        s.push([0.0])


def test_kha_smd_tracker_is_bounded_and_agrees_with_project(rec, streamed):
    s, ups = _run(rec.ecg, 1000, tracker="kha_smd")
    _, ups_p = streamed  # the default tracker, "project"
    y = np.concatenate([u.edr for u in ups])
    y_p = np.concatenate([u.edr for u in ups_p])
    np.testing.assert_array_equal(np.concatenate([u.edr_time for u in ups]),
                                  np.concatenate([u.edr_time for u in ups_p]))
    assert np.all(np.isfinite(y)) and np.abs(y).max() < 10  # standardised, no blow-up
    assert np.corrcoef(y, y_p)[0, 1] > 0.8  # same shape, same sign
    kha = s._kha
    assert s.n_refits >= 2 and np.all(np.isfinite(kha.a)) and np.all(np.isfinite(kha.b))
    assert abs(kha.rho) <= kha.RHO_MAX and kha.rho != 1.0  # SMD adapted the log-gain
    assert kha.a.size <= s.span_s * 3  # at most a span's beats (+ those since the refit)


def test_bad_arguments():
    with pytest.raises(SignalError):
        StreamingEDR(50.0)
    with pytest.raises(ValueError, match="valid methods"):
        StreamingEDR(FS, method="magic")
    with pytest.raises(ValueError):
        StreamingEDR(FS, span_s=10)
    with pytest.raises(ValueError):
        StreamingEDR(FS, tracker="kha", method="pca")
    with pytest.raises(ValueError):
        StreamingEDR(FS, tracker="kha_smd", method="pca")


def test_flat_and_short_streams_emit_nothing():
    s = StreamingEDR(FS)
    ups = s.push(np.zeros(int(40 * FS))) + s.flush()  # no beats: zeros, never an exception
    assert all(not u.edr.any() and u.quality == 0 for u in ups) and s.n_covered == 0
    assert StreamingEDR(FS).flush() == []


# --------------------------------------------------------------------------- #
# command line
# --------------------------------------------------------------------------- #
def _read_csv(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["time_s", "edr", "rate_bpm", "quality"]
    return np.array(rows[1:], dtype=float)


@pytest.fixture(scope="module")
def csv_record(tmp_path_factory):
    x = simulate_recording(90.0, FS, random_state=5).ecg
    path = tmp_path_factory.mktemp("rec") / "sim.csv"
    t = np.arange(x.size) / FS
    np.savetxt(path, np.column_stack([t, x]), delimiter=",", header="time,II", comments="",
               fmt="%.6f")
    return path, x


def test_cli_replay_matches_the_api(csv_record, tmp_path, capsys):
    path, x = csv_record
    out = tmp_path / "out.csv"
    assert main([str(path), "--speed", "max", "-o", str(out)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines and all(line.startswith("t=") and "rate=" in line and "quality=" in line
                         for line in lines)
    got = _read_csv(out)
    _, ups = _run(np.loadtxt(path, delimiter=",", skiprows=1)[:, 1], 31)
    want = np.concatenate([u.edr for u in ups])
    np.testing.assert_allclose(got[:, 1], want, rtol=1e-8, atol=1e-9)
    assert len(lines) == len(ups)


def test_cli_replay_is_paced_by_speed(csv_record, tmp_path, capsys):
    # --speed 1 is real time; a factor of 60 replays the 90 s record in about 1.5 s
    import time

    path, _ = csv_record
    out = tmp_path / "paced.csv"
    t0 = time.monotonic()
    assert main([str(path), "--speed", "60", "-o", str(out)]) == 0
    assert time.monotonic() - t0 >= 90.0 / 60 * 0.9
    fast = tmp_path / "fast.csv"
    assert main([str(path), "--speed", "max", "-o", str(fast)]) == 0
    np.testing.assert_array_equal(_read_csv(out), _read_csv(fast))  # pacing changes no output
    capsys.readouterr()


def test_cli_stdin(csv_record, tmp_path, monkeypatch, capsys):
    _, x = csv_record
    text = "ecg,other\n" + "".join(f"{v:.6f},1\n" for v in x)
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    out = tmp_path / "stdin.csv"
    assert main(["-", "--fs", "125", "-o", str(out), "--quiet"]) == 0
    assert capsys.readouterr().out == ""
    got = _read_csv(out)
    assert got.shape[0] == int(x.size / FS * 4)


@pytest.mark.parametrize("argv, needle", [
    (["missing.dat", "-o", "{out}"], "record not found"),
    (["-", "-o", "{out}"], "--fs"),
    (["{rec}", "-o", "{out}", "--speed", "0"], "--speed"),
    (["-o", "{out}"], "exactly one source"),
    (["{rec}", "-o", "{tmp}"], "is a folder"),
    (["{rec}", "-o", "{out}", "--method", "magic"], "valid methods"),
    (["{rec}", "-o", "{out}", "--sigma2", "banana"], "sigma2"),
])
def test_cli_bad_input(argv, needle, csv_record, tmp_path, capsys):
    out = tmp_path / "o.csv"
    argv = [a.format(out=out, rec=csv_record[0], tmp=tmp_path) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and needle in err, err
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_cli_stdin_bad_values(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("0.1\n0.2\nabc\n"))
    out = tmp_path / "o.csv"
    assert main(["-", "--fs", "125", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "line 3" in err and "'abc'" in err and not out.exists()
    monkeypatch.setattr("sys.stdin", io.StringIO("0.1\n" * 500))
    assert main(["-", "--fs", "125", "-o", str(out)]) == 2
    assert "gave no EDR" in capsys.readouterr().err and not out.exists()
    assert list(tmp_path.iterdir()) == []


def _pylsl():
    try:
        import pylsl

        pylsl.library_version()
        return pylsl
    except Exception as exc:  # no pylsl, or liblsl that cannot load
        pytest.skip(f"pylsl/liblsl unavailable: {exc}")


def test_cli_lsl_loopback(csv_record, tmp_path, capsys):
    pylsl = _pylsl()
    _, x = csv_record
    name = f"edr-test-{uuid.uuid4().hex[:8]}"
    info = pylsl.StreamInfo(name, "ECG", 1, FS, "float32", name)
    outlet = pylsl.StreamOutlet(info)

    def send():
        deadline = time.monotonic() + 10
        while not outlet.have_consumers() and time.monotonic() < deadline:
            time.sleep(0.02)
        for i in range(0, x.size, 500):  # faster than real time
            outlet.push_chunk([[float(v)] for v in x[i:i + 500]])
            time.sleep(0.01)

    th = threading.Thread(target=send, daemon=True)
    th.start()
    out = tmp_path / "lsl.csv"
    code = main(["--lsl", name, "--lsl-timeout", "1.5", "-o", str(out)])
    th.join(5)
    assert code == 0, capsys.readouterr().err
    got = _read_csv(out)
    assert got.shape[0] == int(x.size / FS * 4)
    _, ups = _run(x.astype(np.float32).astype(float), 500)
    np.testing.assert_allclose(got[:, 1], np.concatenate([u.edr for u in ups]), atol=1e-6)


def test_cli_lsl_stream_not_found(tmp_path, capsys):
    _pylsl()
    out = tmp_path / "o.csv"
    name = f"no-such-{uuid.uuid4().hex}"
    assert main(["--lsl", name, "--lsl-timeout", "0.3", "-o", str(out)]) == 2
    assert "no LSL stream named" in capsys.readouterr().err and not out.exists()
