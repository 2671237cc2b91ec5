"""edr.io writers: content round trips and atomicity (no partial output on failure)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import wfdb

from edr.io import read_record
from edr.io.writers import atomic_path, to_jsonable, write_csv, write_json, write_wfdb


def _leftovers(folder: Path, keep: set[str]) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name not in keep)


def test_write_csv_round_trip(tmp_path):
    t = np.arange(8) / 4.0
    y = np.sin(t)
    y[3] = np.nan
    out = write_csv(tmp_path / "edr.csv", t, y)
    lines = out.read_text().splitlines()
    assert lines[0] == "time_s,edr" and len(lines) == 9
    back = np.genfromtxt(out, delimiter=",", skip_header=1)
    np.testing.assert_allclose(back[:, 0], t)
    np.testing.assert_allclose(back[:, 1], y, rtol=1e-8)
    assert _leftovers(tmp_path, {"edr.csv"}) == []


def test_write_csv_bad_input_leaves_nothing(tmp_path):
    with pytest.raises(ValueError, match=r"time_s has 3 values but edr has 2"):
        write_csv(tmp_path / "x.csv", [0, 1, 2], [1, 2])
    with pytest.raises(ValueError, match=r"edr must be one-dimensional, got shape \(2, 2\)"):
        write_csv(tmp_path / "x.csv", [0, 1], [[1, 2], [3, 4]])
    assert list(tmp_path.iterdir()) == []


def test_failure_keeps_the_previous_file_and_removes_the_temp(tmp_path, monkeypatch):
    target = tmp_path / "edr.csv"
    target.write_text("old\n")

    def boom(*args, **kwargs):
        Path(args[0]).write_text("partial")
        raise OSError("disk full")

    monkeypatch.setattr(np, "savetxt", boom)
    with pytest.raises(OSError, match="disk full"):
        write_csv(target, [0.0, 0.25], [1.0, 2.0])
    assert target.read_text() == "old\n"
    assert _leftovers(tmp_path, {"edr.csv"}) == []


def test_atomic_path_on_exception(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        with atomic_path(tmp_path / "a.json") as tmp:
            tmp.write_text("{")
            raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


def test_write_json_numpy_safe(tmp_path):
    @dataclass
    class Info:
        sigma2: np.float64
        mask: np.ndarray

    obj = {"n": np.int64(3), "x": np.array([1.5, np.nan]), "ok": np.bool_(True), "p": tmp_path,
           "info": Info(np.float64(0.5), np.array([True, False])), 7: (1, 2)}
    out = write_json(tmp_path / "s.json", obj)
    assert json.loads(out.read_text()) == {
        "n": 3, "x": [1.5, None], "ok": True, "p": str(tmp_path),
        "info": {"sigma2": 0.5, "mask": [True, False]}, "7": [1, 2]}
    with pytest.raises(TypeError, match=r"cannot write an object of type set as JSON"):
        write_json(tmp_path / "bad.json", {"s": {1, 2}})
    assert _leftovers(tmp_path, {"s.json"}) == []
    assert to_jsonable(float("inf")) is None


def test_write_wfdb_round_trip(tmp_path):
    fs = 4.0
    y = np.sin(np.arange(200) / 5.0)
    y[10:12] = np.nan
    hea, dat = write_wfdb(tmp_path, "rec_edr", y, fs, comments=["method: kpca"])
    assert (hea.name, dat.name) == ("rec_edr.hea", "rec_edr.dat")
    back = wfdb.rdrecord(str(tmp_path / "rec_edr"))
    assert back.fs == fs and back.sig_name == ["EDR"] and back.comments == ["method: kpca"]
    np.testing.assert_allclose(back.p_signal[:, 0], y, atol=1e-4)
    assert _leftovers(tmp_path, {"rec_edr.hea", "rec_edr.dat"}) == []


def test_write_wfdb_failure_leaves_nothing(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match=r"record_name 'a b' may only hold"):
        write_wfdb(tmp_path, "a b", [1.0, 2.0], 4.0)
    with pytest.raises(ValueError, match=r"fs=0 must be a positive"):
        write_wfdb(tmp_path, "r", [1.0, 2.0], 0)

    def boom(record_name, write_dir, **kwargs):
        (Path(write_dir) / f"{record_name}.dat").write_bytes(b"\0\0")
        raise RuntimeError("wrsamp failed")

    monkeypatch.setattr(wfdb, "wrsamp", boom)
    with pytest.raises(RuntimeError, match="wrsamp failed"):
        write_wfdb(tmp_path / "out.hea", "r", [1.0, 2.0], 4.0)
    assert list(tmp_path.iterdir()) == []


def test_written_wfdb_cannot_be_read_as_ecg(tmp_path):
    """A written EDR record is data, not an ECG: read_record refuses it with a clear message."""
    write_wfdb(tmp_path, "only_edr", np.zeros(100), 4.0)
    with pytest.raises(ValueError, match=r"no ECG channel in .*only_edr\.hea; channels found: EDR"):
        read_record(tmp_path / "only_edr")


@pytest.mark.parametrize("named", [False, True])  # the temporary file's name, given absolute
def test_a_write_that_fails_on_a_full_disk_names_the_output(named, tmp_path, monkeypatch):
    """ENOSPC from the writer (which knows only the temporary file, or no name at all): the
    error names the output, and nothing is left (a batch's row then says which file)."""
    import errno

    def full(fname, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device",
                      *([os.path.abspath(fname)] if named else []))

    monkeypatch.setattr(np, "savetxt", full)
    monkeypatch.chdir(tmp_path)
    out = Path("rec_edr.csv")
    with pytest.raises(OSError, match=r"No space left on device: 'rec_edr\.csv'") as info:
        write_csv(out, np.arange(3) / 4.0, np.zeros(3))
    assert info.value.errno == errno.ENOSPC
    assert list(tmp_path.iterdir()) == []


def test_all_or_none_outputs_on_a_full_disk_name_the_output(tmp_path):
    """The several outputs of one record (``write_all_or_none``, the batch's path): ENOSPC on
    the second names it, not its temporary file; nothing is left."""
    import errno

    from edr.io.targets import write_all_or_none

    def full(tmp):
        tmp.write_text("part")
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp))

    out = {"csv": tmp_path / "r_edr.csv", "json": tmp_path / "r_edr.json"}
    with pytest.raises(OSError, match=r"No space left on device: '.*r_edr\.json'$"):
        write_all_or_none(out, {"csv": lambda p: p.write_text("t,edr\n"), "json": full})
    assert list(tmp_path.iterdir()) == []


def _dead_pid() -> int:
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    return int(proc.stdout)


def test_a_rerun_removes_the_temporaries_a_killed_run_left(tmp_path):
    from edr.io.writers import temporary_folder, temporary_path

    out = tmp_path / "rec_edr.csv"
    dead, alive = _dead_pid(), os.getppid()
    stale = [tmp_path / f".rec_edr.csv.{dead}.ab_d1234.tmp.csv",
             tmp_path / f".rec_edr.csv.{dead}.zz9_0000.part"]
    kept = [tmp_path / f".rec_edr.csv.{alive}.abcd1234.tmp.csv",  # a run still writing it
            tmp_path / ".rec_edr.csv.notes.txt", tmp_path / f".other.csv.{dead}.abcd1234.tmp.csv"]
    for p in stale + kept:
        p.write_text("time_s,edr\n0.0,")
    (tmp_path / f".rec.{dead}.abcd1234").mkdir()  # a WFDB writer's folder
    write_csv(out, np.arange(3.0), np.ones(3))
    temporary_path(out, suffix=".part").unlink()
    temporary_folder(tmp_path, "rec").rmdir()
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([p.name for p in kept] + [out.name])


def test_assemble_takes_no_temporary_file_for_a_task(tmp_path):
    from edr.evaluate.batch import assemble

    folder = tmp_path / "tasks" / "r1"
    folder.mkdir(parents=True)
    (folder / f".kpca__mdd__II.json.{_dead_pid()}.abcd1234.tmp.json").write_text(
        '{"row": {"error": "x"}}')
    with open(assemble(tmp_path)) as f:
        assert len(f.read().splitlines()) <= 1


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="zombies seen through /proc")
def test_a_lock_of_a_process_that_exited_unreaped_is_stale(tmp_path):
    import subprocess
    import sys
    import time

    from edr.io.locks import holder_tag, output_lock, pid_alive

    child = subprocess.Popen([sys.executable, "-c", "pass"])  # not waited for: a zombie
    lock = tmp_path / "rec_edr.lock"
    lock.write_text(f"{child.pid}\n")
    try:
        deadline = time.monotonic() + 10
        while b") Z" not in Path(f"/proc/{child.pid}/stat").read_bytes():
            assert time.monotonic() < deadline
            time.sleep(0.02)
        assert not pid_alive(child.pid)
        with output_lock(lock):
            assert lock.read_text() == f"{holder_tag()}\n"
    finally:
        child.wait()


def test_a_folder_is_scanned_for_stale_temporaries_once_per_process(tmp_path, monkeypatch):
    """Writing n files into a folder is one scan of it, not n (each would cost its size)."""
    from edr.io.targets import write_all_or_none

    scans = []
    scandir = os.scandir

    def counted(path="."):
        if not isinstance(path, int):  # shutil.rmtree scans by file descriptor
            scans.append(Path(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", counted)
    for i in range(20):
        write_csv(tmp_path / f"r{i}_edr.csv", np.arange(3.0), np.ones(3))
        write_all_or_none({"json": tmp_path / f"r{i}_edr.json"},
                          {"json": lambda p: p.write_text("{}")})
    write_wfdb(tmp_path, "rec", np.ones(8), 4.0)
    assert scans == [tmp_path]
    assert len(list(tmp_path.glob(".*"))) == 0


def test_another_hosts_temporaries_are_kept_until_old(tmp_path):
    """On a folder shared between machines a pid of another host says nothing here: its
    temporary is left alone until it is OTHER_HOST_STALE_S old."""
    from edr.io.locks import HOST, OTHER_HOST_STALE_S

    dead = _dead_pid()
    fresh = tmp_path / f".rec_edr.csv.{dead}@other-host.lab.abcd1234.tmp.csv"
    old = tmp_path / f".rec_edr.csv.{dead}@other-host.lab.efgh5678.tmp.csv"
    mine = tmp_path / f".rec_edr.csv.{dead}@{HOST}.ijkl9012.tmp.csv"
    for p in (fresh, old, mine):
        p.write_text("time_s,edr\n0.0,")
    past = os.stat(old).st_mtime - OTHER_HOST_STALE_S - 60
    os.utime(old, (past, past))
    write_csv(tmp_path / "rec_edr.csv", np.arange(3.0), np.ones(3))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([fresh.name, "rec_edr.csv"])


def test_a_temporary_is_named_with_its_pid_and_host(tmp_path):
    from edr.io.locks import holder_tag
    from edr.io.writers import temporary_path

    tmp = temporary_path(tmp_path / "rec_edr.csv")
    assert tmp.name.startswith(f".rec_edr.csv.{holder_tag()}.") and tmp.name.endswith(".tmp.csv")


def test_another_hosts_lock_is_held_until_old(tmp_path):
    from edr.io.locks import OTHER_HOST_STALE_S, OutputLocked, holder_tag, output_lock

    lock = tmp_path / "rec_edr.lock"
    lock.write_text(f"{_dead_pid()}@other-host\n")  # its pid is dead here, not there
    with pytest.raises(OutputLocked) as info, output_lock(lock):
        pass
    assert info.value.host == "other-host"
    assert str(info.value).endswith(f"is held by process {info.value.pid} on other-host")
    past = os.stat(lock).st_mtime - OTHER_HOST_STALE_S - 60
    os.utime(lock, (past, past))
    with output_lock(lock):
        assert lock.read_text() == f"{holder_tag()}\n"
    assert not lock.exists()
