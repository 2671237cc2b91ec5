"""Fault injection for the stream (edr.stream): a live input's faults become masked gaps, never
the end; what is emitted is on disk under its own name, through SIGKILL, SIGTERM and SIGINT.

The command line runs in a subprocess where the process matters (a real pipe on standard input,
signals, ``kill -9``); the faults of the lines are injected in-process through the same ``main``.
Each test checks that the stream goes on (or ends cleanly) and that the rows emitted before a
fault are those of a clean run."""

from __future__ import annotations

import csv
import inspect
import io
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from edr.beats import signal_mask
from edr.simulate import simulate_recording
from edr.stream import StreamingEDR
from edr.stream.cli import main
from edr.stream.csv_rows import CsvRows, Layout, read_layout
from edr.stream.faults import WARN_EVERY_S, FaultLedger, FlatRuns
from edr.stream.sinks import EDR_HEADER, StreamOutputs
from edr.stream.sources import lsl_blocks, open_stdin, text_lines
from edr.stream.stopping import StopFlag
from edr.stream.timestamps import GAP_PERIODS, JUMP_BACK_S, TimestampGaps

ROOT = Path(__file__).resolve().parents[2]
FS = 125.0
FAST = ["--sigma2", "rot"]  # a cheap criterion keeps the runs short; the faults are the same


def _text(x) -> list[str]:
    """One CSV line per sample (rows of ``x``), 5 decimals."""
    x = np.atleast_2d(np.asarray(x).T).T
    return [",".join(f"{v:.5f}" for v in row) for row in x]


def _parsed(lines: list[str]) -> np.ndarray:
    """What a clean input's lines hold, as the stream reads them."""
    return np.array([[float(v) for v in line.split(",")] for line in lines])


def _api_rows(x: np.ndarray, leads) -> np.ndarray:
    """``(time, edr)`` of every row a clean stream of ``x`` emits (the reference)."""
    s = StreamingEDR(FS, leads=leads, sigma2="rot")
    ups = []
    for i in range(0, x.shape[0], 31):
        ups += s.push(x[i:i + 31])
    ups += s.flush()
    return np.column_stack([np.concatenate([u.edr_time for u in ups]),
                            np.concatenate([u.edr for u in ups])])


def test_an_impulse_glitch_is_a_masked_sample_not_the_end():
    x = simulate_recording(duration_s=90.0, fs=FS, random_state=2).ecg[:, None]
    missing, glitched = x.copy(), x.copy()
    missing[[1000, 6000], 0] = np.nan
    glitched[[1000, 6000], 0] = 1e308, -1e30  # values no ECG reaches, in any unit
    assert np.allclose(_api_rows(glitched, ("II",)), _api_rows(missing, ("II",)), equal_nan=True)


def test_a_lossy_link_losing_one_sample_in_200_keeps_the_rates():
    x = simulate_recording(duration_s=120.0, fs=FS, random_state=4).ecg[:, None]
    lossy = x.copy()
    lossy[np.random.default_rng(4).random(x.shape[0]) < 0.005, 0] = np.nan

    def rates(y):
        s = StreamingEDR(FS, leads=("II",), sigma2="rot")
        ups = [u for i in range(0, y.shape[0], 125) for u in s.push(y[i:i + 125])] + s.flush()
        return np.concatenate([u.rate_bpm for u in ups])

    clean, lost = rates(x), rates(lossy)
    assert lost.size == clean.size and np.isfinite(lost).sum() >= np.isfinite(clean).sum() - 1
    both = np.isfinite(lost) & np.isfinite(clean)
    assert np.max(np.abs(lost[both] - clean[both])) < 1.0


def test_a_lasting_shift_of_the_level_is_learnt_not_masked():
    x = simulate_recording(duration_s=150.0, fs=FS, random_state=2).ecg.copy()
    x[int(60 * FS):] += 1e4  # beyond the glitch limit, but for good: a level, not a glitch
    s = StreamingEDR(FS, leads=("II",), sigma2="rot")
    ups = []
    for i in range(0, x.size, 125):
        ups += s.push(x[i:i + 125, None])
    ups += s.flush()
    late = np.concatenate([u.rate_time for u in ups]) >= 80.0
    assert late.sum() >= 3 and np.isfinite(np.concatenate([u.rate_bpm for u in ups])[late]).all()
    assert np.isfinite(np.concatenate([u.edr for u in ups[-10:]])).all()


def _rows(path) -> np.ndarray:
    with open(path) as f:
        rows = list(csv.reader(f))
    assert rows[0] == EDR_HEADER.split(",")
    return np.array(rows[1:], dtype=float).reshape(-1, 4)


def _env():
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get(
        "PYTHONPATH", "")]), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


def _stream_process(*args):
    return subprocess.Popen([sys.executable, "-m", "edr.stream", "-", "--fs", f"{FS:g}", *FAST,
                             *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=_env(), cwd=ROOT)


def _same_rows(got, want, upto_s):
    """The rows of ``got`` (a stream's CSV) up to ``upto_s`` are those of ``want`` (API)."""
    n = int(np.searchsorted(want[:, 0], upto_s))
    assert got.shape[0] >= n
    np.testing.assert_array_equal(got[:n, 0], np.round(want[:n, 0], 6))
    np.testing.assert_allclose(got[:n, 1], want[:n, 1], rtol=1e-8, atol=1e-9, equal_nan=True)


# --------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def one_lead():
    """3 minutes of one lead, its lines and what a clean stream of them emits."""
    lines = _text(simulate_recording(180.0, FS, random_state=11).ecg)
    return lines, _api_rows(_parsed(lines), ["ch0"])


@pytest.fixture(scope="module")
def two_leads():
    """45 s of two leads (II, V2), their lines and a clean stream's rows."""
    rec = simulate_recording(45.0, FS, leads=("II", "V2"), random_state=12)
    lines = _text(np.column_stack([rec.leads["II"], rec.leads["V2"]]))
    return lines, _api_rows(_parsed(lines), ["II", "V2"])


# --------------------------------------------------------------------------- done when
def test_a_faulty_three_minutes_stream_to_the_end(one_lead, tmp_path):
    """Garbage at 60 s, a blank line, a 5 s flat stretch and a nan: exit 0, every row, the
    rows before the garbage those of a clean run, a summary that counts the bad samples."""
    lines, clean = one_lead
    bad = list(lines)
    bad[int(60 * FS)] = "abc"
    bad[int(100 * FS):int(105 * FS)] = ["0.10000"] * int(5 * FS)
    bad[int(130 * FS)] = "nan"
    bad.insert(int(70 * FS), "")
    out, rates = tmp_path / "out.csv", tmp_path / "rates.csv"
    proc = _stream_process("-o", str(out), "--rates", str(rates), "--quiet")
    _, err = proc.communicate("\n".join(bad).encode() + b"\n", timeout=120)
    err = err.decode()
    assert proc.returncode == 0, err
    got = _rows(out)
    assert got.shape[0] >= 600 and got.shape[0] == int((len(lines) + 1) / FS * 4)
    _same_rows(got, clean, 50.0)  # emitted before the garbage arrived
    summary = [line for line in err.splitlines() if line.startswith("summary:")]
    assert len(summary) == 1, err
    for part in ("1 line not numbers", "1 blank line", "1 non-finite value",
                 "NaN samples: ch0 3", f"flat samples: ch0 {int(5 * FS)}",
                 "ended by the end of the input"):
        assert part in summary[0], summary[0]
    assert "standard input line 7501: 'abc'" in err  # a warning names the line


def test_kill_9_keeps_every_row_emitted(one_lead, tmp_path):
    """``kill -9`` after 9 s of a 10x real-time feed: out.csv under its own name, holding the
    rows of every update the process reported. The feed's clock starts once the process runs
    (it created out.csv on its first rows): the import time is not the stream's."""
    lines, clean = one_lead
    out = tmp_path / "out.csv"
    proc = _stream_process("-o", str(out))
    ready = threading.Event()

    def feed():
        step = int(FS / 10)  # 0.1 s of ECG every 10 ms
        try:
            proc.stdin.write(("\n".join(lines[:step]) + "\n").encode())
            proc.stdin.flush()
            ready.wait(120)
            t0 = time.monotonic()
            for i in range(step, len(lines), step):
                proc.stdin.write(("\n".join(lines[i:i + step]) + "\n").encode())
                proc.stdin.flush()
                time.sleep(max(0.0, t0 + i / FS / 10 - time.monotonic()))
        except (BrokenPipeError, ValueError):
            pass  # killed

    th = threading.Thread(target=feed, daemon=True)
    th.start()
    deadline = time.monotonic() + 120
    while not out.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    ready.set()
    time.sleep(9.0)
    proc.kill()
    proc.wait(10)
    th.join(10)
    stream_t = [float(v) for v in re.findall(r"t=\s*([0-9.]+) s", proc.stdout.read().decode())]
    assert list(tmp_path.iterdir()) == [out]  # under its own name, nothing hidden beside it
    assert stream_t, "no update before the kill: the machine is too slow for this test"
    got = _rows(out)
    # the last reported update emitted every grid point up to its time less the delay (8 s)
    assert got.shape[0] >= int((max(stream_t) - 8.0) * 4) + 1
    _same_rows(got, clean, got[-1, 0] + 0.01)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_on_a_silent_input_ends_the_stream_cleanly(sig, two_leads, tmp_path):
    """SIGTERM or SIGINT while standard input is open but sends nothing (a stalled link): the
    stream ends at once, exit 0, with every row of the ECG it received."""
    lines, clean = two_leads
    out = tmp_path / "out.csv"
    proc = _stream_process("-o", str(out))
    proc.stdin.write(("\n".join(lines) + "\n").encode())
    proc.stdin.flush()  # ... and the pipe stays open: the reader waits for more
    line = b"t="
    while line.startswith(b"t=") and not line.startswith(b"t=     44.0"):
        line = proc.stdout.readline()  # the updates, up to the last one before the input's end
    assert line.startswith(b"t=     44.0"), line
    time.sleep(0.5)  # the last second of ECG read: the process waits on the silent pipe
    t_sig = time.monotonic()
    proc.send_signal(sig)
    proc.wait(20)  # standard input still open
    assert time.monotonic() - t_sig < 5.0
    err = proc.stderr.read().decode()
    proc.stdin.close()
    assert proc.returncode == 0, err
    assert f"ended by {sig.name}" in err
    got = _rows(out)
    assert got.shape[0] == clean.shape[0] == int(45 * 4)  # the last update emitted the rest
    _same_rows(got, clean, 45.0)


# --------------------------------------------------------------------------- faulty lines
def _main_on(lines: list[str], tmp_path, monkeypatch, *, tail="\n", columns=None):
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + tail))
    out = tmp_path / "out.csv"
    argv = ["-", "--fs", f"{FS:g}", *FAST, "-o", str(out), "--quiet"]
    if columns:
        argv += ["--columns", columns]
    return main(argv), out


def _summary(capsys) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("summary:")]
    assert len(lines) == 1, err
    return lines[0]


def test_a_lead_clipped_at_its_rails_is_counted(two_leads, tmp_path, monkeypatch, capsys):
    from edr.beats.flags import clipped_samples

    lines, clean = two_leads
    x = _parsed(lines)
    rails = np.percentile(x[:, 0], [5, 95])
    x[:, 0] = np.clip(x[:, 0], *rails)
    counts = []
    for glitch in (False, True):  # a glitch is no rail: the count is the same
        bad = ["II,V2"] + _text(x)
        if glitch:
            bad[1 + int(5 * FS)] = "1e308," + bad[1 + int(5 * FS)].split(",")[1]
        code, _ = _main_on(bad, tmp_path, monkeypatch)
        summary = _summary(capsys)
        counted = re.search(r"(\d+) clipped samples \(held at the lead's rail\)", summary)
        assert code == 0 and counted, summary
        counts.append(int(counted.group(1)))
    at_rails = np.count_nonzero((x[:, 0] == rails[0]) | (x[:, 0] == rails[1]))
    assert 0 < counts[0] == counts[1] <= at_rails
    assert counts[0] == clipped_samples(x[:, 0], FS)  # one rule: offline's count of the record
    code, _ = _main_on(["II,V2"] + list(lines), tmp_path, monkeypatch)
    assert "clipped" not in _summary(capsys)


@pytest.mark.parametrize("dead, why", [("0.5", "flat"), ("nan", "missing (NaN)")])
def test_a_lead_dead_over_the_whole_stream_is_named(dead, why, two_leads, tmp_path, monkeypatch,
                                                     capsys):
    lines, _ = two_leads
    bad = ["II,V2"] + [f"{line.split(',')[0]},{dead}" for line in lines]
    code, _ = _main_on(bad, tmp_path, monkeypatch)
    summary = _summary(capsys)
    assert code == 0 and f"unusable leads: V2 {why} over the whole stream" in summary, summary


@pytest.mark.parametrize("fault", ["garbage", "nan_run", "flat_lead", "lead_vanishes",
                                   "extra_columns", "glitches"])
def test_faulty_lines_become_masked_samples(fault, two_leads, tmp_path, monkeypatch, capsys):
    lines, clean = two_leads
    bad, at = ["II,V2"] + list(lines), 1 + int(36 * FS)  # a header row this time
    stretch = slice(at, at + int(3 * FS))
    n = stretch.stop - stretch.start
    if fault == "garbage":
        bad[at], bad[at + 50], bad[at + 51] = "\x00\x17garbage", "0.1,x", ""
        want = ["2 lines not numbers", "1 blank line", "NaN samples: II 2, V2 3"]
    elif fault == "nan_run":
        bad[stretch] = [f"nan,{line.split(',')[1]}" for line in bad[stretch]]
        want = [f"{n} non-finite values", f"NaN samples: II {n}"]
    elif fault == "flat_lead":
        bad[stretch] = [f"{line.split(',')[0]},0.25" for line in bad[stretch]]
        want = [f"flat samples: V2 {n}"]
    elif fault == "lead_vanishes":
        bad[stretch] = [line.split(",")[0] for line in bad[stretch]]
        want = [f"{n} missing values", f"NaN samples: V2 {n}"]
    elif fault == "glitches":
        bad[at], bad[at + 300] = "1e30," + bad[at].split(",")[1], bad[at + 300] + "e308"
        want = ["2 values no ECG reaches (read as missing)"]
    else:
        bad[at] = bad[at] + ",0.3"
        want = ["1 line with too many columns", "NaN samples: II 1, V2 1"]
    code, out = _main_on(bad, tmp_path, monkeypatch)
    summary = _summary(capsys)
    assert code == 0, summary
    got = _rows(out)
    assert got.shape[0] == clean.shape[0]  # the stream went on to the end
    _same_rows(got, clean, 36.0 - 10.0)  # rows emitted before the fault: unchanged
    for part in want:
        assert part in summary, summary


def test_a_header_s_time_and_sample_columns_are_no_leads(two_leads, tmp_path, monkeypatch,
                                                          capsys):
    lines, clean = two_leads
    timed = ["sample,time_s,II,V2"] + [f"{k},{k / FS:.3f},{line}" for k, line in
                                       enumerate(lines)]
    code, out = _main_on(timed, tmp_path, monkeypatch)
    assert code == 0 and "2 leads" in _summary(capsys)
    _same_rows(_rows(out), clean, 45.0)
    with_resp = ["time,RESP,II,V2"] + [f"{k / FS:.3f},0.5,{line}" for k, line in enumerate(lines)]
    code, out = _main_on(with_resp, tmp_path, monkeypatch)  # only the ECG-named columns
    assert code == 0 and "2 leads" in _summary(capsys)
    _same_rows(_rows(out), clean, 45.0)


def test_a_truncated_last_line_is_a_bad_line(two_leads, tmp_path, monkeypatch, capsys):
    lines, clean = two_leads
    code, out = _main_on(lines[:-1] + [lines[-1][:3]], tmp_path, monkeypatch, tail="")
    summary = _summary(capsys)
    assert code == 0 and "1 truncated last line" in summary and "ch0 1, ch1 1" in summary
    got = _rows(out)
    assert got.shape[0] == clean.shape[0]
    _same_rows(got, clean, 36.0)


def test_warnings_come_at_a_bounded_rate():
    """A garbage line every 0.1 s for 60 s of stream: one warning per 10 s, all counted."""
    said, fs = [], 100.0
    ledger = FaultLedger(fs, ["ch0"], warn=said.append)
    step = int(0.1 * fs)
    for i in range(0, int(60 * fs), step):
        ledger.note("unparsable", i, f"line {i + 1}")
        ledger.observe(np.full((step, 1), np.nan))
    assert ledger.counts["unparsable"] == 600
    assert 6 <= len(said) <= 60 / WARN_EVERY_S + 1
    counted = [int(re.search(r" s: (\d+) line", line).group(1)) for line in said]
    times = [float(re.search(r"t=([0-9.]+) s", line).group(1)) for line in said]
    assert np.all(np.diff(times) >= WARN_EVERY_S - 1e-9)
    assert sum(counted) <= 600 and sum(counted) >= 600 - WARN_EVERY_S / 0.1
    assert ledger.nan_samples["ch0"] == int(60 * fs)


def test_the_layout_tolerates_a_partial_first_line():
    lines = [(1, "", True), (2, "34,0.2", True)] + [(i, "0.1,0.2,0.3", True) for i in range(3, 9)]
    layout, taken = read_layout(iter(lines))
    assert layout == Layout(3, [0, 1, 2], ["ch0", "ch1", "ch2"])
    assert [n for n, _, _ in taken] == list(range(2, 7))  # up to the 5th row of numbers
    rows = CsvRows(layout, FaultLedger(FS, layout.names))
    np.testing.assert_array_equal(rows.row(2, "34,0.2"), [34.0, 0.2, np.nan])
    with pytest.raises(ValueError, match="holds no samples"):
        read_layout(iter([(1, "time,II", True), (2, "", True)]))
    with pytest.raises(ValueError, match="column 3 is not there"):
        read_layout(iter(lines), [0, 3])


def test_text_lines_reads_a_real_pipe_and_a_stop_ends_a_silent_one():
    """Chunks split anywhere, a multi-byte character across two writes, bytes that are not
    UTF-8; then the writer stays open and silent and a stop ends the reading at once."""
    r, w = os.pipe()
    stop = StopFlag()
    got = []

    def read():
        with os.fdopen(r, "rb") as f:
            got.extend(text_lines(f, stop))

    th = threading.Thread(target=read)
    th.start()
    for piece in (b"0.1\n0.", b"2\n\xc2", b"\xb5V\n\xff\xfe1\n", b"0.4"):
        os.write(w, piece)
        time.sleep(0.05)
    time.sleep(0.3)
    t0 = time.monotonic()
    stop.set("test")
    th.join(5)
    assert not th.is_alive() and time.monotonic() - t0 < 1.0
    os.close(w)
    assert got == [(1, "0.1", True), (2, "0.2", True), (3, "\u00b5V", True),
                   (4, "\ufffd\ufffd1", True)]  # the partial "0.4" is left unread at a stop


def test_standard_input_through_a_pipe_gives_the_rows_of_its_lines():
    r, w = os.pipe()
    os.write(w, b"II\n0.5\n0.25\nabc\n\n1e-3")
    os.close(w)
    with os.fdopen(r, "rb") as f:
        source = open_stdin(f, FS)
        x = np.concatenate(list(source.blocks))
    np.testing.assert_array_equal(x[:, 0], [0.5, 0.25, np.nan, np.nan, np.nan])
    assert source.names == ["II"]
    counts = {k: n for k, n in source.ledger.counts.items() if n}
    assert counts == {"unparsable": 1, "blank": 1, "truncated": 1}


# --------------------------------------------------------------------------- references
def test_flat_runs_count_what_signal_mask_masks():
    rng = np.random.default_rng(0)
    fs = 50.0
    x = rng.normal(size=(4000, 3))
    for lead, start, length in [(0, 100, 49), (0, 300, 50), (0, 360, 51), (1, 995, 400),
                                (2, 3950, 50), (1, 2000, 120)]:
        x[start:start + length, lead] = 0.7
    x[1500:1510, 2] = np.nan
    x[1510:1600, 2] = 0.7  # a flat run right after NaN
    runs = FlatRuns(fs, 3)
    got = np.zeros(3, dtype=int)
    i = 0
    while i < x.shape[0]:
        n = int(rng.integers(1, 120))
        got += runs.push(x[i:i + n])
        i += n
    want = [int((signal_mask(x[:, j], fs) & np.isfinite(x[:, j])).sum()) for j in range(3)]
    assert got.tolist() == want and want == [101, 520, 140]
    default = inspect.signature(signal_mask).parameters["flat_s"].default
    assert inspect.signature(FlatRuns).parameters["flat_s"].default == default


def _uniform_reference(t_true, keep, fs):
    """The slow reference: the samples kept at their true positions, NaN where lost."""
    idx = np.round((t_true - t_true[0]) * fs).astype(int)
    out = np.full(idx[keep].max() - idx[keep].min() + 1, np.nan)
    out[idx[keep] - idx[keep].min()] = np.arange(t_true.size)[keep]
    return out


@pytest.mark.parametrize("stamping", ["exact", "jitter", "bursts"])
def test_timestamp_gaps_put_the_samples_back_on_their_clock(stamping):
    """Dropouts of 5 samples to 3 s: NaN for their length; samples stamped exactly, with a
    jitter within a fifth of a sample period (the length is then exact), or pushed in bursts of
    0.1 s and stamped at the push (the length is then known to a burst)."""
    fs, rng = 100.0, np.random.default_rng(1)
    t = 1000.0 + np.arange(1, 6001) / fs  # the first sample ends a burst
    keep = np.ones(t.size, dtype=bool)
    for a, n in [(500, 5), (1200, 37), (3000, 300)]:
        keep[a:a + n] = False
    stamps = t.copy()
    if stamping == "jitter":
        stamps += rng.uniform(-0.2, 0.2, t.size) / fs
    elif stamping == "bursts":
        stamps = np.ceil(t * 10 - 1e-9) / 10
    clock = TimestampGaps(fs)
    x = np.arange(t.size, dtype=float)[keep][:, None]
    got = []
    for i in range(0, x.shape[0], 64):  # chunks as an inlet gives them
        got.append(clock.apply(x[i:i + 64], stamps[keep][i:i + 64])[0])
    got = np.concatenate(got)[:, 0]
    want = _uniform_reference(t, keep, fs)
    if stamping == "bursts":  # a dropout inside a burst is seen to the burst's precision
        assert abs(got.size - want.size) <= 10 and 3 <= clock.gaps <= 6  # one may split
        assert np.isnan(got).sum() == pytest.approx(342, abs=30)
    else:
        np.testing.assert_array_equal(got, want)
        assert (clock.gaps, clock.gap_samples, clock.dropped) == (3, 342, 0)


def test_a_jump_back_is_dropped_and_counted():
    fs = 100.0
    t = np.arange(1000) / fs
    stamps = np.concatenate([t[:400], t[200:300], t[400:]])  # 1 s replayed, 2-3 s stale
    x = np.arange(stamps.size, dtype=float)[:, None]
    clock = TimestampGaps(fs)
    rows, events = clock.apply(x, stamps)
    assert clock.dropped == 100 and clock.gaps == 0
    np.testing.assert_array_equal(rows[:, 0], np.r_[0:400, 500:1100])
    assert events == [("jump_back", 400, 100)]
    small = TimestampGaps(fs)  # an early sample within JUMP_BACK_S is kept
    assert small.apply(x[:3], [0.0, 0.01, 0.01 - JUMP_BACK_S / 2])[0].shape[0] == 3
    assert GAP_PERIODS / fs < JUMP_BACK_S


class _FakeInlet:
    """pull_chunk gives the scripted chunks, then nothing."""

    def __init__(self, chunks):
        self.chunks = list(chunks)

    def pull_chunk(self, timeout=0.0, max_samples=1024):
        if self.chunks:
            return self.chunks.pop(0)
        time.sleep(min(timeout, 0.01))
        return [], []


def test_lsl_blocks_fill_gaps_drop_jumps_and_end_after_the_timeout():
    fs = 100.0
    t = np.arange(800) / fs
    x = np.column_stack([np.sin(t), np.cos(t), t])
    x[50, 0] = np.inf
    chunks = [(x[0:200].tolist(), t[0:200].tolist()),  # then 1 s lost
              (x[300:500].tolist(), t[300:500].tolist()),
              (x[400:450].tolist(), (t[400:450] - 3.0).tolist()),  # 3 s back: stale
              ([], []),
              (x[500:800].tolist(), t[500:800].tolist())]
    ledger = FaultLedger(fs, ["ch0", "ch2"])
    t0 = time.monotonic()
    blocks = list(lsl_blocks(_FakeInlet(chunks), [0, 2], fs, ledger, timeout=0.3))
    assert 0.3 <= time.monotonic() - t0 < 3.0
    got = np.concatenate(blocks)
    want = x[:, [0, 2]].copy()
    want[200:300] = np.nan
    want[50, 0] = np.nan
    np.testing.assert_array_equal(got, want)
    c = ledger.counts
    assert (c["gap"], ledger.gap_samples, c["jump_back"], c["non_finite"]) == (1, 100, 50, 1)
    stop = StopFlag()
    stop.set()
    assert list(lsl_blocks(_FakeInlet(chunks), [0], fs, ledger, stop=stop)) == []


# --------------------------------------------------------------------------- the limit
def test_a_window_mostly_unusable_gives_no_rate_and_says_why():
    rec = simulate_recording(140.0, FS, leads=("II",), random_state=13)
    x = rec.leads["II"].copy()
    t = np.arange(x.size) / FS
    x[(t >= 50) & (t < 110) & (t % 4 < 2.6)] = np.nan  # 65 % of 60 s lost, 1.4 s kept at a time
    s = StreamingEDR(FS, leads=("II",), sigma2="rot")
    ups = []
    for i in range(0, x.size, 250):
        ups += s.push(x[i:i + 250])
    ups += s.flush()
    rt = np.concatenate([u.rate_time for u in ups])
    share = np.concatenate([u.unusable for u in ups])
    rate = np.concatenate([u.rate_bpm for u in ups])
    quality = np.concatenate([u.quality for u in ups])
    # the reference: the share of each window's samples that signal_mask masks
    masked = signal_mask(x, FS)
    ref = [masked[int((c - 16) * FS):int((c + 16) * FS)].mean() for c in rt]
    np.testing.assert_allclose(share, ref, atol=1e-12)
    over = share > 0.5
    assert over.sum() >= 2 and np.all(np.isnan(rate[over])) and np.all(quality[over] == 0)
    assert np.isfinite(rate[rt < 40]).all() and np.all(share[rt < 40] == 0)


def test_outputs_are_on_disk_at_every_update_and_absent_when_nothing_was_emitted(tmp_path):
    from edr.stream.engine import StreamUpdate

    out, rates = tmp_path / "o.csv", tmp_path / "r.csv"
    u = StreamUpdate(34.0, np.arange(3) / 4.0, np.array([0.1, np.nan, 0.3]), np.array([16.0]),
                     np.array([15.0]), np.array([0.8]))
    with StreamOutputs(out, rates) as sink:
        assert out.read_text() == EDR_HEADER + "\n"  # the header first
        sink.write(u)
        assert _rows(out).shape == (3, 4)
        assert rates.read_text().splitlines()[1] == "16.000,15,0.8000,34.000"
        sink.write(u)
        assert _rows(out)[3:, 2].tolist() == [15.0] * 3  # the rate reported before
    with StreamOutputs(tmp_path / "none.csv", tmp_path / "none_r.csv"):
        pass
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.csv", "r.csv"]


def test_standard_input_s_own_file_is_refused_as_an_output(tmp_path, monkeypatch, capsys):
    data = tmp_path / "ecg.csv"
    data.write_text("".join(f"{v:.4f}\n" for v in np.sin(np.arange(5000) / 10)))
    before = data.read_bytes()
    with open(data) as f:
        monkeypatch.setattr("sys.stdin", f)
        assert main(["-", "--fs", f"{FS:g}", "-o", str(data)]) == 2
    err = capsys.readouterr().err
    assert "is the input" in err and len(err.splitlines()) == 1
    assert data.read_bytes() == before


# --------------------------------------------------------------------------- outputs that fail
def _no_bigger_than(limit: int):
    """A child process's files limited to ``limit`` bytes, SIGXFSZ ignored: a write beyond
    fails with EFBIG, as one on a full disk fails with ENOSPC (part of it may be written)."""
    import resource

    def start():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return start


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="needs RLIMIT_FSIZE and SIGXFSZ")
def test_an_output_that_cannot_be_written_keeps_every_whole_row(one_lead, tmp_path):
    """The EDR file reaches its size limit (a full disk) mid-update: the stream stops with one
    line naming the file and the rows kept, exit 2, and the file ends on a whole row (no
    half-written one), every row that of a clean run."""
    lines, clean = one_lead
    out = tmp_path / "out.csv"
    proc = subprocess.Popen([sys.executable, "-m", "edr.stream", "-", "--fs", f"{FS:g}", *FAST,
                             "-o", str(out), "--quiet"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), cwd=ROOT,
                            preexec_fn=_no_bigger_than(9000))
    _, err = proc.communicate("\n".join(lines).encode() + b"\n", timeout=120)
    err = err.decode()
    assert proc.returncode == 2, err
    assert len(err.splitlines()) == 1 and str(out) in err and "kept" in err, err
    text = out.read_text()
    assert text.endswith("\n") and 0 < len(text) <= 9000
    got = _rows(out)
    assert f"{got.shape[0]} EDR rows" in err, err
    _same_rows(got, clean, got[-1, 0] + 0.01)


def test_a_closed_standard_output_ends_the_stream_with_every_row(one_lead, tmp_path):
    """``edr stream ... | head -1``: the reader of the live lines goes away. The stream ends as
    on a stop request (its last update written, the summary naming why), exit code 141 (as a
    shell reports SIGPIPE), no traceback."""
    lines, clean = one_lead
    out = tmp_path / "out.csv"
    proc = _stream_process("-o", str(out))
    first = int(60 * FS)
    proc.stdin.write(("\n".join(lines[:first]) + "\n").encode())
    proc.stdin.flush()
    assert proc.stdout.readline().startswith(b"t=")  # the first update's line, then head exits
    proc.stdout.close()
    try:
        proc.stdin.write(("\n".join(lines[first:]) + "\n").encode())
        proc.stdin.close()
    except BrokenPipeError:
        pass  # it ended before reading all of it
    proc.wait(120)
    err = proc.stderr.read().decode()
    assert proc.returncode == 141, err
    assert len(err.splitlines()) == 1 and err.startswith("summary:"), err
    assert "ended by its standard output closed" in err, err
    got = _rows(out)
    assert f"{got.shape[0]} EDR rows" in err and got.shape[0] >= 24 * 4
    _same_rows(got, clean, 24.0)  # the first update's rows


# --------------------------------------------------------------------------- a time column
def _timed_lines(lines, t, unit=1.0):
    return ["time" if unit == 1.0 else "time_ms"] + [f"{v / unit:.6f},{line}"
                                                       for v, line in zip(t, lines, strict=True)]


@pytest.mark.parametrize(("fault", "named"), [
    ("back", "1 line whose time does not increase (repeated or back)"),
    ("repeated", "49 lines whose time does not increase (repeated or back)"),
    ("hours", "1 jump forward of the time (taken as the next sample)"),
    ("glitch", "1 line whose time does not increase (repeated or back); 1 jump forward"),
    ("rate", "lines at another rate than 125 Hz (by their time column)")])
def test_a_time_column_s_faults_are_named_and_every_sample_kept(fault, named, one_lead,
                                                                 tmp_path, monkeypatch, capsys):
    """A header's time column on standard input is checked, never followed: time going back,
    repeated, jumping hours forward (or one time field wrong) and another rate than ``--fs``
    are named in the summary, and the rows are a clean run's (one line, one sample)."""
    lines, clean = one_lead
    n, at = int(120 * FS), int(60 * FS)
    lines = lines[:n]
    t = np.arange(n) / FS
    if fault == "back":
        t[at:] -= 30.0  # the clock set back 30 s
    elif fault == "repeated":
        t[at:at + 50] = t[at]  # 0.4 s of lines stamped alike, then on time again
    elif fault == "hours":
        t[at:] += 3 * 3600.0
    elif fault == "glitch":
        t[at] = 1e12  # one time field wrong: no clock jumps with it
    else:
        t[at:] = t[at] + np.arange(n - at) / (2 * FS)  # the device's rate doubles
    unit = 1e-3 if fault == "back" else 1.0  # time_ms once
    code, out = _main_on(_timed_lines(lines, t, unit), tmp_path, monkeypatch)
    summary = _summary(capsys)
    assert code == 0 and named in summary, summary
    got = _rows(out)
    assert got.shape == (n / FS * 4, 4)
    _same_rows(got, _api_rows(_parsed(lines), ["ch0"]), 120.0)


def test_a_line_of_many_megabytes_costs_no_more_than_its_bytes():
    """64 MB without a newline (a binary dump on the pipe) between two lines: read in bounded
    memory (so in linear time: no growing line is copied again), one NaN row counted as one
    over-long line."""
    import tracemalloc

    from edr.stream.csv_rows import MAX_LINE

    big = "7" * (64 << 20)
    stream = io.StringIO("0.1\n" + big + "\n0.2\n" + big)
    tracemalloc.start()
    try:
        got = list(text_lines(stream))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20  # the line held whole (quadratic time): over 64 MB
    assert [(n, len(t), c) for n, t, c in got] == [(1, 3, True), (2, MAX_LINE + 1, True),
                                                   (3, 3, True), (4, MAX_LINE + 1, False)]
    ledger = FaultLedger(FS, ["ch0"])
    rows = CsvRows(Layout(1, [0], ["ch0"]), ledger)
    assert np.isnan(rows.row(2, got[1][1])).all()
    assert np.isnan(rows.row(3, "0" * (MAX_LINE + 1))).all()  # a number, but no sample
    assert ledger.counts["long"] == 2 and "2 lines over 64 KiB" in ledger.summary_line()


def test_a_timestamp_jump_of_days_is_a_jump_not_a_gap_to_fill():
    """An LSL timestamp set 11 days forward (a device clock reset): no 11 days of NaN samples
    (2 GB, and hours of work for the engine) but a jump, counted, the samples contiguous; a
    dropout up to MAX_DROPOUT_S is still a gap of its length."""
    from edr.stream.timestamps import MAX_DROPOUT_S

    fs = 100.0
    t = np.arange(600) / fs
    t[300:] += 1e6
    x = np.arange(600, dtype=float)[:, None]
    ledger = FaultLedger(fs, ["ch0"])
    chunks = [(x[i:i + 100].tolist(), t[i:i + 100].tolist()) for i in range(0, 600, 100)]
    got = np.concatenate(list(lsl_blocks(_FakeInlet(chunks), [0], fs, ledger, timeout=0.2)))
    np.testing.assert_array_equal(got[:, 0], x[:, 0])
    assert ledger.counts["time_jump"] == 1 and ledger.gap_samples == 0
    assert "1 jump forward of the time (taken as the next sample)" in ledger.summary_line()
    clock = TimestampGaps(fs)
    rows, events = clock.apply(np.ones((2, 1)), [0.0, MAX_DROPOUT_S - 1.0])
    assert rows.shape[0] == round((MAX_DROPOUT_S - 1.0) * fs) + 1 and events[0][0] == "gap"
