"""One protocol for every command line (:mod:`edr.cli_core`): ``python -m edr.extract``,
``edr stream``, ``python -m edr.evaluate`` and ``python -m edr.evaluate.report`` give the same
exit code and the same shape of one-line message for the same kind of bad option, internal
error and interruption."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from edr import cli_core, cli_options
from edr.evaluate import cli as evaluate_cli
from edr.evaluate.report import cli as report_cli
from edr.extract import cli as extract_cli
from edr.stream import cli as stream_cli

#: command -> (module, the function its main runs, prog, a valid argv prefix for option cases)
COMMANDS = {
    "extract": (extract_cli, "_extract", "python -m edr.extract", ["x.dat"]),
    "stream": (stream_cli, "_stream", "python -m edr.stream", ["x.dat", "-o", "o.csv"]),
    "evaluate": (evaluate_cli, "_evaluate", "python -m edr.evaluate", ["-o", "out"]),
    "report": (report_cli, "_report", "python -m edr.evaluate.report", ["r.csv", "-o", "out"]),
}

#: kind of bad option -> (the options added, the message after "<prog>: error: ")
KINDS = {
    "unknown flag": (["--frobnicate"], r"unrecognized arguments: --frobnicate"),
    "bad number": ({"extract": ["--seed", "one"], "stream": ["--seed", "one"],
                    "evaluate": ["--random-state", "one"]},
                   r"argument --(seed|random-state): must be an integer, got 'one'"),
    "missing required": (None, r"(the following arguments are required: \S.*"
                               r"|a record file is required \(or --demo\))"),
    "bad choice": ({"extract": ["--method", "magic"], "stream": ["--method", "magic"],
                    "evaluate": ["--methods", "magic"]},
                   r"--methods?: unknown method 'magic'; valid methods are kpca, kpca_fusion, .*"),
}

CASES = [(command, kind) for kind, (extra, _) in KINDS.items() for command in COMMANDS
         if not isinstance(extra, dict) or command in extra]  # report has no number nor choice


def _argv(command, kind) -> list[str]:
    extra = KINDS[kind][0]
    if extra is None:  # the required arguments left out
        return {"extract": [], "stream": ["x.dat"], "evaluate": [], "report": []}[command]
    if isinstance(extra, dict):
        extra = extra[command]
    return COMMANDS[command][3] + extra


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_every_command_and_kind_is_covered():
    assert {c for c, _ in CASES} == set(COMMANDS)
    assert {k for _, k in CASES} == set(KINDS)
    assert len(CASES) == 14


@pytest.mark.parametrize(("command", "kind"), CASES)
def test_same_kind_of_bad_option_same_exit_code_and_message(command, kind, workdir, capsys):
    module, _, prog, _ = COMMANDS[command]
    code = module.main(_argv(command, kind))
    out, err = capsys.readouterr()
    assert code == cli_core.EXIT_BAD_INPUT == 2
    assert out == "" and err.endswith("\n") and err.count("\n") == 1, err
    assert re.fullmatch(rf"{re.escape(prog)}: error: {KINDS[kind][1]}\n", err), err
    assert list(workdir.iterdir()) == []  # nothing written


@pytest.mark.parametrize("command", COMMANDS)
def test_internal_error_and_interruption_same_protocol(command, workdir, capsys, monkeypatch):
    module, body, prog, _ = COMMANDS[command]

    def bug(argv, prog):
        raise KeyError("surprise")

    monkeypatch.setattr(module, body, bug)
    monkeypatch.delenv(cli_core.DEBUG_VARIABLE, raising=False)
    assert module.main([]) == 1
    assert capsys.readouterr().err == (f"{prog}: internal error: KeyError: 'surprise' "
                                       "(set EDR_DEBUG=1 for the traceback)\n")
    monkeypatch.setenv(cli_core.DEBUG_VARIABLE, "1")
    with pytest.raises(KeyError, match="surprise"):  # the traceback, not a line
        module.main([])

    def interrupted(argv, prog):
        raise KeyboardInterrupt

    monkeypatch.setattr(module, body, interrupted)
    assert module.main([]) == 130
    assert capsys.readouterr().err == f"{prog}: interrupted\n"


@pytest.mark.parametrize("command", COMMANDS)
def test_stdout_closed_by_its_reader_ends_quietly(command, workdir, capsys, monkeypatch):
    """``edr extract rec.hea | head -3``: the reader leaving is no error line and exit 0."""
    module, body, prog, _ = COMMANDS[command]

    def reader_left(argv, prog):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(module, body, reader_left)
    assert module.main([]) == 0
    assert capsys.readouterr().err == ""


def test_every_command_limits_blas_to_one_thread_unless_the_user_chose(monkeypatch):
    seen = []

    def records(argv, prog):
        seen.append(os.environ.get("OPENBLAS_NUM_THREADS"))
        return 0

    for module, body, _, _ in COMMANDS.values():
        monkeypatch.setattr(module, body, records)
        monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
        assert module.main([]) == 0
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
        assert module.main([]) == 0
    assert seen == ["1", "3"] * len(COMMANDS)


def test_one_line_names_the_flag_and_the_file():
    flags = {"window_s": "--window", "lead": "--lead"}
    assert cli_core.one_line(ValueError("window_s=5 is\n too short; lead='V9' or lead=II"),
                             flags) == "--window 5 is too short; --lead 'V9' or --lead II"
    assert cli_core.one_line(ValueError("the leading lead is fine"), flags) == (
        "the leading lead is fine")  # a plain word is a flag only as "word="
    missing = FileNotFoundError(2, "No such file or directory", "rec.dat")
    assert cli_core.one_line(missing).endswith("No such file or directory: 'rec.dat'")
    assert cli_core.one_line(FileNotFoundError("gone")) == "gone"
    assert cli_core.one_line(ValueError()) == "ValueError"


@pytest.mark.parametrize(("parse", "text", "value"), [
    (cli_options.positive_number, "2.5", 2.5), (cli_options.rate_hz, "250", 250.0),
    (cli_options.integer, "-3", -3), (cli_options.positive_integer, "4", 4),
    (cli_options.n_support, "2", 2), (cli_options.window_seconds, "20", 20.0),
    (cli_options.finite_number, "-1.5", -1.5), (cli_options.sigma2_value, "mdd", "mdd"),
    (cli_options.sigma2_value, "0.5", 0.5),
])
def test_option_types_accept(parse, text, value):
    assert parse(text) == value


@pytest.mark.parametrize(("parse", "text"), [
    (cli_options.positive_number, "0"), (cli_options.positive_number, "inf"),
    (cli_options.rate_hz, "-250"), (cli_options.integer, "1.5"),
    (cli_options.positive_integer, "0"), (cli_options.n_support, "1"),
    (cli_options.window_seconds, "19"), (cli_options.window_seconds, "x"),
    (cli_options.finite_number, "nan"), (cli_options.sigma2_value, "-1"),
])
def test_option_types_reject_with_the_text(parse, text):
    with pytest.raises(Exception, match=rf"^must be .*, got '{re.escape(text)}'"):
        parse(text)


def _run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=60)


def test_run_process_exits_with_mains_code_and_pauses_collection_for_the_start_up():
    done = _run_python("""
        import gc, time
        from edr.cli_core import run_process

        def main():
            seen = [gc.isenabled(), gc.get_freeze_count() > 0]
            time.sleep(1.0)  # the pause (0.2 s) is over: start-up frozen, collection on
            seen += [gc.isenabled(), gc.get_freeze_count() > 0]
            print(seen)
            return 3

        run_process(main, pause_s=0.2)
        """)
    assert done.returncode == 3, done.stderr
    assert done.stdout.strip() == "[False, False, True, True]"


def test_run_process_passes_on_what_main_raises():
    done = _run_python("""
        from edr.cli_core import run_process

        def main():
            raise SystemExit(2)

        run_process(main)
        """)
    assert done.returncode == 2, done.stderr
    failed = _run_python("""
        from edr.cli_core import run_process

        def main():
            raise RuntimeError("a bug")

        run_process(main)
        """)
    assert failed.returncode == 1 and "RuntimeError: a bug" in failed.stderr


def test_every_process_entry_runs_its_command_through_run_process():
    root = Path(cli_core.__file__).parent
    entries = sorted(root.rglob("__main__.py"))
    assert len(entries) == 5
    for path in entries:
        assert "run_process(main)" in path.read_text(encoding="utf-8"), path
    pyproject = root.parent / "pyproject.toml"
    if pyproject.exists():  # a source checkout
        assert 'edr = "edr.cli:console"' in pyproject.read_text(encoding="utf-8")
