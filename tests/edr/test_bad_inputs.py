"""A corpus of bad inputs through ``python -m edr.extract``, and random corruption of a valid
record.

Every corpus case is built in ``tmp_path`` (from the shared records, read in
place or copied and damaged there, and from :func:`edr.simulate.simulate_recording`)
and run through the command line (:func:`edr.extract.main`, all cases in one
``python`` subprocess, so the imports are paid once). Each must exit with code 2,
print one line on stderr naming the file or the value, leave the output folder
empty and print no traceback. Most cases fail before the extraction (option,
path and read errors), so the whole corpus takes seconds.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import wfdb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edr import extract
from edr.simulate import simulate_recording

ENV = {**os.environ, "MPLBACKEND": "Agg", "OPENBLAS_NUM_THREADS": "1"}


def _wfdb(folder: Path, name: str, signals: dict[str, np.ndarray], fs: float) -> Path:
    names = list(signals)
    wfdb.wrsamp(name, fs=fs, units=["mV"] * len(names), sig_name=names,
                p_signal=np.column_stack([signals[k] for k in names]), fmt=["16"] * len(names),
                write_dir=str(folder))
    return folder / f"{name}.hea"


def _edit_header(src: Path, dst: Path, edit) -> Path:
    """Copy record ``src`` (base path) to ``dst`` with its header lines passed through ``edit``."""
    shutil.copy(src.with_suffix(".dat"), dst.with_suffix(".dat"))
    old, new = src.name + ".dat", dst.name + ".dat"
    lines = [ln.replace(old, new) for ln in src.with_suffix(".hea").read_text().splitlines()]
    dst.with_suffix(".hea").write_text("\n".join(edit(lines)) + "\n")
    return dst.with_suffix(".hea")


def _record_line(lines, index, value):
    fields = lines[0].split()
    fields[index] = value
    return [" ".join(fields), *lines[1:]]


def _edf(path: Path, *, reserved="", cut=0, junk=False) -> Path:
    from tests.edr.test_io_edf import _signals, write_edf  # noqa: PLC0415

    if junk:
        path.write_bytes(b"0" * 300)
        return path
    write_edf(path, _signals(), reserved=reserved)
    if cut:
        path.write_bytes(path.read_bytes()[:-cut])
    return path


def _corpus(src: Path, bidmc: Path, sim: Path) -> list[tuple[str, list[str], list[str]]]:
    """(case id, argv without outputs, fragments the one-line message must contain; a fragment
    ``"!text"``: ``text`` must not appear)."""
    b01 = bidmc / "bidmc01"
    c = []

    def add(case, argv, *fragments):
        c.append((case, [str(a) for a in argv], list(fragments)))

    # ---- paths
    add("missing file", [src / "nope.dat"], "nope.dat")
    add("missing header", [src / "nope.hea"], "nope.hea")
    add("folder as record", [src], str(src))
    add("breath annotations as record", [b01.with_suffix(".breath")],
        "bidmc01.breath", "bidmc01.hea")
    (src / "lonely.dat").write_bytes(b"\0" * 100)
    add("data file without header", [src / "lonely.dat"], "lonely.dat")
    # ---- WFDB headers
    add("fs abc", [_edit_header(b01, src / "fsabc", lambda ln: _record_line(ln, 2, "abc"))],
        "fsabc.hea", "'abc'")
    add("fs negative", [_edit_header(b01, src / "fsneg", lambda ln: _record_line(ln, 2, "-125"))],
        "fsneg.hea", "'-125'")
    add("fs zero", [_edit_header(b01, src / "fszero", lambda ln: _record_line(ln, 2, "0"))],
        "fszero.hea", "'0'")
    add("signal count too high",
        [_edit_header(b01, src / "nsighi", lambda ln: _record_line(ln, 1, "9"))],
        "nsighi.hea", "9 signal(s)")
    add("signal count too low",
        [_edit_header(b01, src / "nsiglo", lambda ln: _record_line(ln, 1, "2"))],
        "nsiglo.hea", "2 signal(s)")
    add("signal count not a number",
        [_edit_header(b01, src / "nsigx", lambda ln: _record_line(ln, 1, "x"))],
        "nsigx.hea", "'x'")
    def drop_last_signal_line(lines):
        last = max(i for i, ln in enumerate(lines) if ln.strip() and not ln.startswith("#"))
        return lines[:last] + lines[last + 1:]

    add("signal line missing",
        [_edit_header(b01, src / "lessl", drop_last_signal_line)], "lessl.hea")
    (src / "empty.hea").write_text("")
    (src / "empty.dat").write_bytes(b"")
    add("empty header", [src / "empty.hea"], "empty.hea")
    hea = _wfdb(src, "nodat", {"II": np.zeros(2000)}, 250.0)
    (src / "nodat.dat").unlink()
    add("header without data", [hea], "nodat.dat")
    cut = _edit_header(b01, src / "cut", lambda ln: ln)
    cut.with_suffix(".dat").write_bytes(cut.with_suffix(".dat").read_bytes()[:1001])
    add("truncated data", [cut], "cut.dat", "truncated")
    add("unknown channel", [b01.with_suffix(".hea"), "--channel", "V9"], "V9", "II")
    rec = simulate_recording(30.0, 250.0, random_state=3)
    add("no ECG channel", [_wfdb(src, "noecg", {"RESP": rec.resp, "PLETH": rec.resp ** 2}, 250.0)],
        "RESP", "PLETH")
    slow = simulate_recording(40.0, 80.0, random_state=3)
    add("fs below 100 Hz", [_wfdb(src, "slow", {"II": slow.ecg}, 80.0)], "slow", "80")
    # ---- CSV
    t = np.arange(2500) / 250.0
    x = np.sin(2 * np.pi * t)
    (src / "notime.csv").write_text("II\n" + "".join(f"{v:.5f}\n" for v in x))
    add("csv without time column", [src / "notime.csv"], "notime.csv", "--fs HZ")
    add("csv --fs below 100 Hz", [src / "notime.csv", "--fs", "50"], "notime.csv", "50")
    (src / "jump.csv").write_text("t,II\n"
                                  + "".join(f"{a:.4f},{v:.5f}\n" for a, v in zip(np.delete(t, 7), x,
                                                                                 strict=False)))
    add("csv non-uniform time", [src / "jump.csv"], "jump.csv", "not uniformly sampled")
    (src / "timed.csv").write_text("t,II\n" + "".join(f"{a:.4f},{v:.5f}\n" for a, v in zip(t, x,
                                                                                           strict=False)))
    add("csv --fs disagreeing", [src / "timed.csv", "--fs", "500"], "timed.csv", "500")
    (src / "blank.csv").write_text("")
    add("csv empty", [src / "blank.csv"], "blank.csv")
    (src / "headonly.csv").write_text("t,II\n")
    add("csv header only", [src / "headonly.csv"], "headonly.csv")
    (src / "ragged.csv").write_text("t,II\n0,1\n0.004,2,3\n")
    add("csv ragged row", [src / "ragged.csv"], "ragged.csv")
    (src / "words.csv").write_text("t,II\n0,abc\n0.004,def\n")
    add("csv text values", [src / "words.csv"], "words.csv", "'abc'")
    (src / "allnan.csv").write_text("t,II\n" + "".join(f"{a:.4f},nan\n" for a in t))
    add("csv all values missing", [src / "allnan.csv"], "allnan.csv", "no valid sample")
    (src / "noise.csv").write_bytes(np.random.default_rng(0).bytes(2000))
    add("csv of random bytes", [src / "noise.csv"], "noise.csv", "not text", "header row")
    (src / "five.csv").write_text("t,II\n" + "".join(f"{a:.4f},{v:.5f}\n" for a, v in zip(
        t[:5], x[:5], strict=True)))
    add("csv of 5 rows", [src / "five.csv"], "five.csv", "0.02 s", "5 samples", "too short",
        "longer recording")
    (src / "millis.csv").write_text("time,II\n" + "".join(f"{1e3 * a:.1f},{v:.5f}\n" for a, v in
                                                            zip(t, x, strict=True)))
    add("csv time column in milliseconds", [src / "millis.csv"], "millis.csv", "'time'",
        "milliseconds", "'time_ms'", "--fs")
    longer = np.arange(60 * 250) / 250.0
    (src / "flatline.csv").write_text("t,II\n" + "".join(f"{a:.4f},0.25\n" for a in longer))
    add("csv every lead flat", [src / "flatline.csv"], "flatline.csv", "no usable ECG",
        "flat or missing")
    # ---- EDF
    add("edf junk", [_edf(src / "junk.edf", junk=True)], "junk.edf")
    add("edf truncated", [_edf(src / "short.edf", cut=10)], "short.edf", "truncated")
    add("edf+d", [_edf(src / "disc.edf", reserved="EDF+D")], "disc.edf", "EDF+D")
    add("edf missing", [src / "absent.edf"], "absent.edf")
    # ---- options and outputs
    add("sigma2 banana", [b01, "--sigma2", "banana"], "--sigma2", "'banana'")
    add("sigma2 negative", [b01, "--sigma2", "-1"], "--sigma2", "'-1'")
    add("window too short", [b01, "--window", "5"], "--window", "'5'", "20")
    add("window too long", [b01, "--window", "1e9"], "--window", "'1e9'", "1800", "--solver fs2")
    add("unknown method", [b01, "--method", "magic"], "--method", "'magic'", "kpca")
    add("fs zero", [src / "notime.csv", "--fs", "0"], "--fs", "'0'")
    add("n-support without fs2", [b01, "--n-support", "50"], "--n-support", "fs2")
    (src / "adir").mkdir()
    add("json is a folder", [b01, "--json", src / "adir"], "--json", "adir")
    add("plot without a format", [b01, "--plot", src / "out" / "fig.xyz"], "--plot", "fig.xyz")
    add("output overwrites the input", [src / "timed.csv", "-o", src / "timed.csv"],
        "timed.csv", "input")
    add("output folder under a file", [b01, "-o", src / "timed.csv" / "x.csv"], "timed.csv")
    add("same output twice",
        [b01, "-o", src / "out" / "a.csv", "--json", src / "out" / "a.csv"], "a.csv")
    # ---- a signal the pipeline refuses (runs the extraction)
    add("10 s of ECG: fewer than 20 beats", [sim], "short.hea", "10.0 s", "20",
        "longer recording", "!--method")
    return c


_DRIVER = r"""
import contextlib, io, json, sys, traceback
from edr import extract
results = []
for argv in json.loads(sys.stdin.read()):
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = extract.main(argv)
    except BaseException:
        code, err = -1, io.StringIO(traceback.format_exc())
    results.append([code, err.getvalue()])
print(json.dumps(results))
"""


def _run_all(argvs, cwd) -> list[tuple[int, str]]:
    """Every argv through ``extract.main`` in ONE ``python`` process: (exit code, stderr) each."""
    import json

    proc = subprocess.run([sys.executable, "-c", _DRIVER], input=json.dumps(argvs),
                          cwd=cwd, env=ENV,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return [tuple(r) for r in json.loads(proc.stdout.strip().splitlines()[-1])]


def _with_outputs(argv, out: Path) -> list[str]:
    flags = {"-o": out / "edr.csv", "--json": out / "edr.json", "--plot": out / "edr.png"}
    return argv + [x for flag, path in flags.items() if flag not in argv for x in (flag, str(path))]


def test_bad_input_corpus(bidmc_dir, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    short = simulate_recording(10.0, 250.0, random_state=5)
    sim = _wfdb(src, "short", {"II": short.ecg}, 250.0)
    cases = _corpus(src, bidmc_dir, sim)
    assert len(cases) >= 30
    out = tmp_path / "out"
    work = tmp_path / "cwd"
    work.mkdir()
    before = {p for p in src.rglob("*")}
    results = _run_all([_with_outputs(c[1], out) for c in cases], work)
    failures = []
    for (case, _argv, fragments), (code, stderr) in zip(cases, results, strict=False):
        lines = stderr.strip().splitlines()
        problems = []
        if code != 2:
            problems.append(f"exit {code}")
        if len(lines) != 1 or not lines[0].startswith("python -m edr.extract: error: "):
            problems.append("not one error line")
        if "Traceback" in stderr:
            problems.append("traceback")
        problems += [f"no {f!r}" for f in fragments
                     if not f.startswith("!") and (not lines or f not in lines[0])]
        problems += [f"{f[1:]!r} named" for f in fragments
                     if f.startswith("!") and lines and f[1:] in lines[0]]
        if problems:
            failures.append(f"{case}: {', '.join(problems)}: {stderr.strip()[-300:]}")
    assert not failures, "\n".join(failures)
    assert not out.exists() or not any(out.iterdir())  # no output, no temporary file
    assert list(work.iterdir()) == []
    assert {p for p in src.rglob("*")} == before  # inputs untouched, nothing written beside them


def test_option_and_path_errors_come_before_the_heavy_imports(tmp_path):
    """``--sigma2 banana`` and a missing file fail fast: no NumPy-heavy module is imported."""
    code = (
        "import sys, time; t = time.perf_counter(); from edr import extract\n"
        "c1 = extract.main(['x.dat', '--sigma2', 'banana']); c2 = extract.main(['missing.dat'])\n"
        "heavy = [m for m in ('numpy', 'scipy', 'wfdb', 'neurokit2', 'numba', 'kpca', "
        "'edr.methods') if m in sys.modules]\n"
        "print(c1, c2, heavy, time.perf_counter() - t)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=ENV, capture_output=True,
                          text=True, timeout=60)
    c1, c2, *rest = proc.stdout.split()
    assert (c1, c2) == ("2", "2"), proc.stderr
    assert "[]" in proc.stdout, proc.stdout  # nothing heavy imported
    assert float(rest[-1]) < 1.0
    assert "--sigma2: 'banana'" in proc.stderr and "missing.dat" in proc.stderr


# --------------------------------------------------------------------------- property test
_VALID: dict[str, bytes] = {}


def _valid_record() -> dict[str, bytes]:
    if not _VALID:
        import tempfile

        with tempfile.TemporaryDirectory() as d:
            rec = simulate_recording(40.0, 250.0, random_state=21)
            _wfdb(Path(d), "rec", {"II": rec.ecg, "RESP": rec.resp}, 250.0)
            _VALID.update({n: (Path(d) / n).read_bytes() for n in ("rec.hea", "rec.dat")})
    return _VALID


@st.composite
def corruptions(draw):
    kind = draw(st.sampled_from(["truncate", "header_bytes", "nan_run", "constant_run"]))
    if kind == "truncate":
        return kind, draw(st.floats(0.0, 0.999))
    if kind == "header_bytes":
        return kind, draw(st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)),
                                   min_size=1, max_size=4))
    return kind, (draw(st.floats(0.0, 0.95)), draw(st.floats(0.01, 1.0)))


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(corruptions())
def test_random_corruption_never_gives_a_traceback_or_a_partial_output(tmp_path_factory,
                                                                       corruption):
    folder = tmp_path_factory.mktemp("corrupt")
    files = dict(_valid_record())
    kind, arg = corruption
    if kind == "truncate":
        files["rec.dat"] = files["rec.dat"][: int(arg * len(files["rec.dat"]))]
    elif kind == "header_bytes":
        hea = bytearray(files["rec.hea"])
        for pos, value in arg:
            hea[pos % len(hea)] = value
        files["rec.hea"] = bytes(hea)
    else:
        sig = np.frombuffer(files["rec.dat"], dtype="<i2").reshape(-1, 2).copy()
        start, length = int(arg[0] * sig.shape[0]), max(int(arg[1] * sig.shape[0] * 0.5), 1)
        # -32768: WFDB NaN
        sig[start:start + length, 0] = -32768 if kind == "nan_run" else sig[start, 0]
        files["rec.dat"] = sig.tobytes()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    out = folder / "out"
    argv = [str(folder / "rec.hea"), "-o", str(out / "e.csv"), "--json", str(out / "e.json")]
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = extract.main(argv)
    text = err.getvalue()
    assert "Traceback" not in text
    if code == 0:
        assert sorted(p.name for p in out.iterdir()) == ["e.csv", "e.json"]
    else:
        assert code == 2, text
        assert len(text.strip().splitlines()) == 1, text
        assert not out.exists() or not any(out.iterdir())
