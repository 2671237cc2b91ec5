"""Faults inside the batch command lines: bad records among good ones (``edr extract a b ...``,
``edr evaluate --data-dir``), workers that die, partial results, the Dask path."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np
import pytest
import wfdb

from edr import extract
from edr.evaluate import batch, cli
from edr.simulate import simulate_recording


def _write(folder: Path, name: str, duration_s: float = 60.0, seed: int = 3) -> Path:
    rec = simulate_recording(duration_s, 250.0, random_state=seed)
    wfdb.wrsamp(name, fs=250.0, units=["mV", "mV"], sig_name=["II", "RESP"],
                p_signal=np.column_stack([rec.ecg, rec.resp]), fmt=["16", "16"],
                write_dir=str(folder))
    return folder / f"{name}.hea"


@pytest.fixture
def bad_folder(tmp_path, monkeypatch):
    """One good record and records that cannot be read, each for its own reason."""
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    good = _write(data, "good")
    text = good.read_text()
    lines = text.replace("good", "nangain").splitlines()
    fields = lines[1].split()
    fields[2] = "nan" + fields[2][fields[2].index("("):]  # the II lead's gain, kept (baseline)
    (data / "nangain.hea").write_text("\n".join([lines[0], " ".join(fields), *lines[2:]]) + "\n")
    (data / "nangain.dat").write_bytes((data / "good.dat").read_bytes())
    (data / "nodat.hea").write_text(text.replace("good", "nodat"))
    (data / "zerosig.hea").write_text("zerosig 0 250 15000\n")
    (data / "folder.hea").mkdir()
    os.symlink("loop2.hea", data / "loop1.hea")
    os.symlink("loop1.hea", data / "loop2.hea")
    return data


def test_bad_records_in_an_extract_batch_are_named_and_the_good_one_written(bad_folder, capsys):
    names = ["nangain", "nodat", "zerosig", "folder", "loop1", "good"]
    code = extract.main([str(bad_folder / f"{n}.hea") for n in names] + ["-o", "out/"])
    out = capsys.readouterr().out
    assert code == 2
    rows = {ln.split()[0]: ln for ln in out.strip().splitlines()[1:-1]}
    assert list(rows) == names
    assert "signal 1 (II) has the ADC gain 'nan(" in rows["nangain"]
    assert "nodat.dat referenced by header" in rows["nodat"]
    assert "declares no signals" in rows["zerosig"]
    assert "is a folder" in rows["folder"]
    assert "a symbolic link that loops" in rows["loop1"]
    assert rows["good"].endswith(" ok")
    assert "6 record(s): 1 extracted, 0 skipped, 5 failed" in out
    assert sorted(p.name for p in Path("out").iterdir()) == ["good_edr.csv", "good_edr.json"]


def test_an_evaluate_folder_with_bad_records_names_each_and_scores_the_good_one(bad_folder,
                                                                                capsys):
    odd = os.fsdecode(b"caf\xe9")  # a file name that is not UTF-8
    (bad_folder / f"{odd}.hea").write_bytes(b"caf\xe9 1 250 15000\ncaf\xe9.dat 16 200/mV 16 "
                                            b"0 0 0 0 II\n")
    left_out: dict = {}
    records = batch.list_records(bad_folder, left_out)
    assert sorted(records) == sorted(["good", "nangain", "nodat", "folder", "loop1", "loop2",
                                      odd])
    assert left_out == {"zerosig": "no signals"}
    argv = ["--data-dir", str(bad_folder), "--methods", "r_amplitude", "--jobs", "1",
            "--no-progress", "-o", "ev"]
    assert cli.main(argv) == 0
    err = capsys.readouterr().err
    assert "1 record(s) left out: zerosig: no signals" in err
    assert "7 tasks (7 run, 0 resumed, 6 errors)" in err
    assert "error: folder r_amplitude/none/default: RecordError: " in err
    assert "a symbolic link that loops" in err
    with open("ev/results.csv", encoding="utf-8") as f:
        rows = {r["record"]: r for r in csv.DictReader(f)}
    assert rows["good"]["error"] == "" and float(rows["good"]["msc"]) > 0
    assert "caf\\udce9" in rows and rows["caf\\udce9"]["error"].startswith("FileNotFoundError")
    assert cli.main(argv) == 0  # the rerun names the errors it kept
    err = capsys.readouterr().err
    assert "0 run, 7 resumed, 0 errors; 6 stored errors kept" in err
    assert "error: nangain r_amplitude/none/default: RecordError: " in err


def test_error_lines_group_a_record_s_tasks_and_say_how_many_are_left_out():
    errors = [f"r{i} m{j}/none/default: SignalError: flat" for i in range(30) for j in range(2)]
    lines = cli.error_lines(errors)
    assert lines[0] == "r0 (2 tasks): SignalError: flat"
    assert len(lines) == cli.ERROR_LINES + 1 and lines[-1].startswith("... and 10 more")


def test_a_name_that_is_not_utf8_prints_escaped_on_a_strict_stdout(monkeypatch):
    """With a strict UTF-8 standard output (PYTHONIOENCODING=utf-8, a UTF-8 locale other than
    C.UTF-8) a file name that is not UTF-8 prints escaped, never an error after the work."""
    import io

    from edr.cli_core import run_command

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    monkeypatch.setattr("sys.stdout", out)
    assert run_command("demo", lambda argv: print(os.fsdecode(b"caf\xe9"))) == 0
    out.flush()
    assert out.buffer.getvalue() == b"caf\\udce9\n"


def _results_csv(folder: Path, scored: dict[str, list[str]], records: list[str]) -> Path:
    """A results.csv where each configuration (``method/criterion``) scores the records listed
    for it and fails on the others."""
    from edr.evaluate.batch import COLUMNS

    rows = []
    for i, rec in enumerate(records):
        for config, ok in scored.items():
            method, criterion = config.split("/")
            good = rec in ok
            value = 0.3 + 0.05 * i + 0.1 * (method == "kpca")
            rows.append(dict(record=rec, database="fake", method=method, criterion=criterion,
                             lead="default", msc=value if good else "",
                             corr=value if good else "", rate_error_bpm=i if good else "",
                             f_ref=0.25, sigma2="", n_beats=100, seconds=0.1,
                             error="" if good else "RecordError: unreadable"))
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, COLUMNS)
        w.writeheader()
        w.writerows(rows)
    return folder / "results.csv"


def test_the_report_tests_the_records_some_configuration_scored_and_names_them(tmp_path):
    """5 of 8 records unreadable (no configuration scored them) and one method failing on every
    record: the tests run on the 3 records some configuration scored and say which; with one
    configuration left, the report says why there is no test."""
    from edr.evaluate import report

    records = [f"r{i}" for i in range(1, 9)]
    good = ["r1", "r2", "r3"]
    csv_path = _results_csv(tmp_path / "res", {"kpca/mdd": good, "pca/none": good,
                                               "rsa/none": []}, records)
    md = report.write_report(csv_path, tmp_path / "rep").read_text()
    assert "| MSC | – | – | – | – | 3 |" in md
    assert ("- MSC: paired tests on 3 records (every scored record), Kruskal–Wallis and Dunn on "
            "each configuration's scored records (kpca/mdd 3, pca 3, rsa 0); left out of the "
            "tests: rsa; no configuration scored r4, r5, r6, r7, r8.") in md
    csv_path = _results_csv(tmp_path / "res1", {"kpca/mdd": ["r1"], "pca/none": good}, records)
    md = report.write_report(csv_path, tmp_path / "rep1").read_text()
    assert ("- MSC: no test: fewer than two configurations scored at least half of the 3 records "
            "any configuration scored (records scored: kpca/mdd 1, pca 3); no configuration "
            "scored r4, r5, r6, r7, r8.") in md


def test_a_flat_reference_scores_nan_without_a_warning(recwarn):
    """A flat reference respiration has no MSC, |r| or f_ref (NaN), and scoring it warns
    nothing."""
    import dataclasses

    from edr.pipeline import extract_edr
    from edr.scoring import score

    rec = simulate_recording(60.0, 250.0, random_state=0)
    flat = dataclasses.replace(rec, resp=np.full_like(rec.resp, 0.5), breath_times=None)
    s = score(extract_edr(flat), flat)
    assert np.isnan(s.msc) and np.isnan(s.corr) and np.isnan(s.f_ref)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def _serving(reply: bytes | None):
    """A local TCP server (thread) that answers every connection with ``reply`` (None: never
    answers, as an HTTP server reading a request line); its ``tcp://`` address."""
    import socket
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    held = []

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)
            if reply is not None:
                conn.sendall(reply)

    threading.Thread(target=serve, daemon=True).start()
    return server, f"tcp://127.0.0.1:{server.getsockname()[1]}"


@pytest.mark.parametrize("reply", [None, b"HTTP/1.0 400 Bad request\r\n\r\n" * 8],
                         ids=["silent", "http"])
def test_a_scheduler_address_that_is_no_dask_scheduler_is_a_clear_error(reply, monkeypatch):
    """A service that never answers (an HTTP server waiting for a request line) or answers with
    bytes that are no Dask frame: a ConnectionError naming the address, within the deadline."""
    import time

    from edr import _dask_runner, jobs

    monkeypatch.setattr(_dask_runner, "SCHEDULER_CONNECT_S", 1.0)
    monkeypatch.setattr(_dask_runner, "SCHEDULER_GRACE_S", 1.0)
    server, address = _serving(reply)
    t0 = time.perf_counter()
    try:
        error = _within(20, lambda: list(jobs.run_jobs([1, 2], abs, scheduler=address)))
    finally:
        server.close()
    assert isinstance(error, ConnectionError), error
    assert str(error).startswith(f"no Dask scheduler answered at {address}")
    assert time.perf_counter() - t0 < 10


def _within(seconds: float, call):
    """What ``call()`` raised (None if nothing), failing the test when it has not returned
    within ``seconds`` (a hang fails instead of blocking the suite)."""
    import threading

    raised: list = [None]

    def run():
        try:
            call()
        except Exception as exc:
            raised[0] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s"
    return raised[0]


def _sleep_then(x):
    import time

    time.sleep(0.2 if x else 2)
    return x


def test_a_scheduler_that_goes_away_mid_run_is_a_clear_error():
    """A scheduler that goes away mid-run (the client then cancels every future): a
    ConnectionError naming the scheduler, after the outcomes already reported."""
    import threading

    from distributed import LocalCluster

    from edr import jobs

    cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                           protocol="tcp://", dashboard_address=None)
    address = cluster.scheduler_address
    got = []
    try:
        with pytest.raises(ConnectionError, match=f"lost the Dask scheduler at {address}"):
            for outcome in jobs.run_jobs([1, 0, 0], _sleep_then, scheduler=address):
                got.append(outcome.value)
                threading.Thread(target=cluster.close, daemon=True).start()
    finally:
        cluster.close()
    assert got == [1]


def test_a_dask_run_without_workers_says_so_while_it_waits(monkeypatch, capsys):
    """Every worker gone: the jobs wait for one (Dask's retry), a note says so at intervals,
    and a worker that joins finishes the jobs."""
    from distributed import LocalCluster

    from edr import _dask_runner, jobs

    monkeypatch.setattr(_dask_runner, "WORKERLESS_NOTE_S", 0.5)
    with LocalCluster(n_workers=0, processes=False, protocol="tcp://",
                      dashboard_address=None) as cluster:
        def scale_up_once_noted():
            import time

            while "waiting for a worker" not in capsys.readouterr().err:
                time.sleep(0.2)
            cluster.scale(1)

        import threading

        threading.Thread(target=scale_up_once_noted, daemon=True).start()
        outcomes = []
        assert _within(30, lambda: outcomes.extend(
            jobs.run_jobs([3, -4], abs, scheduler=cluster.scheduler_address))) is None
    assert sorted(o.value for o in outcomes) == [3, 4]


def _dies_once(job):
    """Kills its worker process the first time it runs (a marker file remembers), as the
    out-of-memory killer or a kill -9 from outside would; then returns its number."""
    number, marker = job
    if number == 1 and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    import time

    time.sleep(0.1)
    return number


@pytest.mark.skipif(not __import__("edr.jobs").jobs.forks_workers(), reason="forks on Linux")
@pytest.mark.parametrize("ordered", [True, False])
def test_after_a_worker_dies_the_others_go_on_in_parallel(tmp_path, monkeypatch, ordered):
    """A worker killed once (the job runs fine again): the jobs the broken pool held go to a new
    pool together, in parallel; none is run alone."""
    from edr import jobs

    alone = []
    real = jobs._Local.again
    monkeypatch.setattr(jobs._Local, "again", staticmethod(
        lambda future: alone.append(future) or real(future)))
    marker = str(tmp_path / "died")
    outcomes = list(jobs.run_jobs([(n, marker) for n in range(8)], _dies_once,
                                  backend="processes", workers=2, ordered=ordered))
    assert sorted(o.value for o in outcomes) == list(range(8))
    assert all(o.error is None for o in outcomes) and alone == []


def _slow(job):
    import time

    time.sleep(1.0)
    return job


@pytest.mark.parametrize("backend", ["processes", "threads"])
def test_ctrl_c_keeps_the_results_of_the_jobs_it_waited_for(backend):
    """Ctrl-C during a run: the results of the jobs it waits for are stored before the
    interruption propagates, and the rerun resumes them."""
    import signal
    import threading
    import time

    from edr import jobs

    stored: dict = {}
    threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
    t0 = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        list(jobs.run_jobs(range(6), _slow, store=stored.__setitem__, backend=backend,
                           workers=2))
    kept = sorted(stored)  # the two running; with processes, those already handed over too
    assert kept[:2] == [0, 1] and len(kept) < 6 and time.perf_counter() - t0 < 5
    again = list(jobs.run_jobs(range(6), abs, done=stored.get, store=stored.__setitem__))
    assert [o.job for o in again if o.resumed] == kept and sorted(stored) == list(range(6))
