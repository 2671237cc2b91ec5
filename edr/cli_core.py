"""The command-line core: one parser and one error protocol for every ``edr`` command line
(``extract``, ``stream``, ``evaluate``, ``report``); their option types: :mod:`edr.cli_options`.

The protocol (:func:`run_command`):

* exit code 0 when done, 2 for bad input (an option, a file, a record, an output target: every
  :class:`edr.errors.EDRError`, :class:`OSError` and :class:`ValueError`), 1 for an unexpected
  internal error, 130 when interrupted (Ctrl-C), 141 when a command that writes as it runs (a
  live stream) ended because the reader of its standard output went away (``... | head``);
* bad input prints ONE line on stderr, ``<prog>: error: <message>``, with the library's
  parameter names replaced by the command's flags (``window_s`` -> ``--window``); an internal
  error prints ``<prog>: internal error: <type>: <message> (set EDR_DEBUG=1 for the
  traceback)``, and with ``EDR_DEBUG=1`` the traceback instead; an interruption prints
  ``<prog>: interrupted``; standard output closed by its reader (``| head``) ends the command
  quietly with 0, what it wrote kept;
* a bad option is one of those lines too (:class:`Parser` raises :class:`OptionError` where
  argparse would print its usage and exit), and every option type (:mod:`edr.cli_options`)
  words its error ``must be ..., got '<text>'``;
* one OpenBLAS thread unless the user chose otherwise (:func:`limit_blas_threads`);
* run as a process's whole life (``python -m ...``, the ``edr`` console script), a command line's
  cyclic garbage collection waits for the start-up to end, and its objects are not collected
  one by one on exit (:func:`run_process`).

A command that writes its outputs incrementally (a live stream, one row at a time) reports a
bad input line and goes on with :func:`error_line`, which gives the line and exit code
:func:`run_command` would give, without ending the run.

This module imports the standard library and :mod:`edr.names` only: ``--help`` and a bad
option never import NumPy.

See Also
--------
edr.names : the names and limits the option checks use.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import NoReturn

from edr.errors import EDRError

__all__ = [
    "BAD_INPUT",
    "EXIT_BAD_INPUT",
    "EXIT_CLOSED_OUTPUT",
    "EXIT_INTERNAL_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "OptionError",
    "Parser",
    "debugging",
    "error_line",
    "limit_blas_threads",
    "one_line",
    "run_command",
    "run_process",
]

EXIT_OK = 0
"""Done."""
EXIT_INTERNAL_ERROR = 1
"""An unexpected error: a bug, not bad input."""
EXIT_BAD_INPUT = 2
"""Bad input: an option, a file, a record or an output target."""
EXIT_INTERRUPTED = 130
"""Interrupted (Ctrl-C), as a shell reports SIGINT."""
EXIT_CLOSED_OUTPUT = 141
"""Ended early because standard output was closed by its reader, as a shell reports SIGPIPE;
what the command wrote to its files is complete."""
BAD_INPUT = (EDRError, OSError, ValueError)
"""The exceptions that mean bad input (exit code :data:`EXIT_BAD_INPUT`)."""
DEBUG_VARIABLE = "EDR_DEBUG"
"""Environment variable that, set to anything non-empty, shows an internal error's traceback."""
STARTUP_GC_PAUSE_S = 10.0
"""Seconds a command-line process runs before its cyclic garbage collection starts
(:func:`run_process`): long enough for any command's imports and a short record, short enough
that a batch or a stream collects as usual for the rest of its run."""


class OptionError(ValueError):
    """A bad command-line option or combination of options."""


class Parser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose errors raise :class:`OptionError` (one line,
    exit code 2 through :func:`run_command`) instead of printing the usage and exiting."""

    def error(self, message):
        raise OptionError(message)


def limit_blas_threads() -> None:
    """One OpenBLAS thread unless ``OPENBLAS_NUM_THREADS`` is set already (the user's choice wins).

    The matrices of one record are small, the σ² draws run in threads of their own and a
    threaded BLAS beside them oversubscribes the cores; the outputs do not change
    (``docs/design.md``, "Start-up time"). Effective only before NumPy is first imported.
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _flag_pattern(api_name: str) -> re.Pattern:
    # a name with an underscore is replaced wherever it stands; a plain word only as "word="
    if "_" in api_name:
        return re.compile(rf"\b{re.escape(api_name)}\b=?")
    return re.compile(rf"\b{re.escape(api_name)}=")


def one_line(exc: BaseException, flags: Mapping[str, str] | None = None) -> str:
    """The message of ``exc`` on one line, with the library's parameter names as flags.

    Parameters
    ----------
    exc : BaseException
    flags : mapping of str to str, optional
        Library parameter name -> the command's flag, e.g. ``{"window_s": "--window"}``.

    Returns
    -------
    str
        Whitespace runs collapsed; a :class:`FileNotFoundError` names its file.

    Examples
    --------
    >>> from edr.cli_core import one_line
    >>> one_line(ValueError("window_s must be\\n  a number, or solver=fs2"),
    ...          {"window_s": "--window", "solver": "--solver"})
    '--window must be a number, or --solver fs2'
    """
    message = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, FileNotFoundError) and exc.filename and str(exc.filename) not in message:
        message = f"{message}: {exc.filename}"
    for api_name, flag in (flags or {}).items():  # "solver=fs2" -> "--solver fs2"
        message = _flag_pattern(api_name).sub(
            lambda m, flag=flag: flag + (" " if m.group().endswith("=") else ""), message)
    return message


def error_line(prog: str, exc: Exception, flags: Mapping[str, str] | None = None
               ) -> tuple[int, str]:
    """The exit code and the one stderr line of the protocol for ``exc``.

    Parameters
    ----------
    prog : str
        The command's name as typed, e.g. ``"python -m edr.extract"``.
    exc : Exception
    flags : mapping of str to str, optional
        See :func:`one_line`.

    Returns
    -------
    (int, str)
        :data:`EXIT_BAD_INPUT` and ``"<prog>: error: ..."`` for :data:`BAD_INPUT`, else
        :data:`EXIT_INTERNAL_ERROR` and ``"<prog>: internal error: ..."``.

    Examples
    --------
    >>> from edr.cli_core import error_line
    >>> error_line("edr x", ValueError("bad"))
    (2, 'edr x: error: bad')
    >>> error_line("edr x", KeyError("k"))[1]
    "edr x: internal error: KeyError: 'k' (set EDR_DEBUG=1 for the traceback)"
    """
    if isinstance(exc, BAD_INPUT):
        return EXIT_BAD_INPUT, f"{prog}: error: {one_line(exc, flags)}"
    return EXIT_INTERNAL_ERROR, (f"{prog}: internal error: {type(exc).__name__}: "
                                 f"{one_line(exc, flags)} (set {DEBUG_VARIABLE}=1 for the "
                                 "traceback)")


def debugging() -> bool:
    """Whether ``EDR_DEBUG`` asks for tracebacks instead of one-line internal errors."""
    return bool(os.environ.get(DEBUG_VARIABLE))


def run_command(prog: str, command: Callable[[list[str]], int | None],
                argv: Sequence[str] | None = None, *,
                flags: Mapping[str, str] | None = None) -> int:
    """Run ``command(argv)`` under the protocol of the module docstring; returns the exit code.

    Parameters
    ----------
    prog : str
        The command's name in its messages.
    command : callable
        Parses ``argv`` and does the work; returns an exit code (None means 0). Raises on bad
        input. ``--help`` (SystemExit) passes through.
    argv : sequence of str, optional
        Default: ``sys.argv[1:]``.
    flags : mapping of str to str, optional
        Library parameter name -> flag, for the messages (:func:`one_line`).

    Returns
    -------
    int
        :data:`EXIT_OK`, :data:`EXIT_BAD_INPUT`, :data:`EXIT_INTERNAL_ERROR`,
        :data:`EXIT_INTERRUPTED`, or the code ``command`` returned.

    Examples
    --------
    >>> from edr.cli_core import Parser, run_command
    >>> def command(argv):
    ...     args = Parser(prog="demo").parse_args(argv)
    >>> import contextlib, io
    >>> with contextlib.redirect_stderr(io.StringIO()) as err:
    ...     code = run_command("demo", command, ["--frobnicate"])
    >>> code, err.getvalue()
    (2, 'demo: error: unrecognized arguments: --frobnicate\\n')
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    limit_blas_threads()
    _escape_unencodable_output()
    try:
        code = command(argv)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader of standard output left: no error, as on SIGPIPE
        _stdout_to_devnull()
        return EXIT_OK
    except Exception as exc:
        if not isinstance(exc, BAD_INPUT) and debugging():
            raise
        code, line = error_line(prog, exc, flags)
        print(line, file=sys.stderr)
    return EXIT_OK if code is None else code


def _escape_unencodable_output() -> None:
    """Let standard output and error print what their encoding cannot (a file name that is not
    UTF-8 holds lone surrogates) as backslash escapes, instead of failing after the work is
    done; a stream that already tolerates it is left as it is."""
    for stream in (sys.stdout, sys.stderr):
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="backslashreplace")
            except (OSError, ValueError):  # a stream that cannot change now: left as it is
                pass


def _stdout_to_devnull() -> None:
    """Point standard output at the null device, so that the interpreter's last flush of a
    closed pipe raises nothing."""
    try:
        sys.stdout.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no file descriptor (a captured stream): nothing to flush
        pass


def _resume_collection() -> None:
    """Freeze what start-up left alive (later collections skip it), then collect as usual."""
    gc.freeze()
    gc.enable()


def run_process(main: Callable[[], int | None], *,
                pause_s: float = STARTUP_GC_PAUSE_S) -> NoReturn:
    """Run ``main()`` as this process's whole life, then exit with the code it returned.

    A command line's start-up (NumPy, SciPy, Numba, Matplotlib: a million objects, almost none
    of them garbage) made Python's cyclic garbage collector walk every object time after time,
    and walk them all once more when the interpreter shut down. So the collector is paused for
    the first ``pause_s`` seconds; then what is alive is frozen (:func:`gc.freeze`: later
    collections skip it) and collection goes on as usual, which bounds the memory of a long
    batch or stream. On exit everything alive is frozen too: the process ends without
    collecting its objects one by one. Outputs, flushing and ``atexit`` handlers are unchanged;
    only when unreachable cycles are freed changes.

    Parameters
    ----------
    main : callable
        The command line, reading ``sys.argv``; returns its exit code (None means 0).
    pause_s : float, optional
        Seconds before collection starts (:data:`STARTUP_GC_PAUSE_S`).

    Raises
    ------
    SystemExit
        Always: with ``main()``'s code, or what ``main`` raised.

    See Also
    --------
    run_command : the protocol ``main`` follows.

    Notes
    -----
    Only for a process the command line owns (the ``if __name__ == "__main__"`` blocks and the
    ``edr`` console script); a library or a test calls ``main`` itself. The time it saves is in
    ``docs/studies/first_run.md``.

    Examples
    --------
    In a process of its own (it freezes the objects of the process that calls it):

    >>> import subprocess, sys
    >>> command = "from edr.cli_core import run_process; run_process(lambda: 3)"
    >>> subprocess.run([sys.executable, "-c", command]).returncode
    3
    """
    was_enabled = gc.isenabled()
    gc.disable()
    timer = threading.Timer(pause_s, _resume_collection)
    timer.daemon = True
    timer.start()
    try:
        code = main()
    finally:
        timer.cancel()
        gc.freeze()
        if was_enabled:
            gc.enable()
    sys.exit(code)
