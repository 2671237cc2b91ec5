"""Output targets: the checks made before any work, and several outputs written all or none.

A command that writes several files for one result (the EDR as CSV, its JSON summary, a
figure) checks every target first (:func:`check_targets`: cheap, no signal library
imported), computes, then writes them with :func:`write_all_or_none`: every output goes to a
temporary file next to its target and the temporaries are renamed into place only when all of
them are complete, so a failure leaves no output, no temporary file and no folder created for
them. Files get the permissions a file created under the user's umask gets
(:func:`edr.io.writers.new_file_mode`).

Targets are keyed by a label the messages name (a command line uses its flags, e.g.
``"--json"``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from edr.errors import OutputError

__all__ = ["check_folder", "check_targets", "write_all_or_none"]


def _nearest_existing(folder: Path) -> Path:
    """``folder`` or its closest ancestor that exists."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def check_folder(label: str, folder: str | Path, target: str | Path | None = None) -> Path:
    """Check that ``folder`` exists as a writable folder or can be created in one.

    Parameters
    ----------
    label : str
        Named first in the message (e.g. ``"-o/--output"``).
    folder : str or Path
    target : str or Path, optional
        The file that will be written in ``folder``, named in the message.

    Returns
    -------
    Path
        ``folder``.

    Raises
    ------
    OutputError
        A file stands where ``folder`` or one of its ancestors would be, or the closest
        existing ancestor is not writable.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from edr.io.targets import check_folder
    >>> with tempfile.TemporaryDirectory() as d:
    ...     check_folder("--json", Path(d) / "new" / "sub").name
    'sub'
    """
    folder = Path(folder)
    existing = _nearest_existing(folder)
    what = f"the folder of {str(target)!r}" if target is not None else f"the folder {str(folder)!r}"
    if not existing.is_dir():
        raise OutputError(f"{label}: cannot create {what}: {str(existing)!r} is a file")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OutputError(f"{label}: folder {str(existing)!r} is not writable"
                          + (f" (output {str(target)!r})" if target is not None else ""))
    return folder


def check_targets(targets: Mapping[str, str | Path], inputs: Sequence[str | Path] = ()) -> None:
    """Check that every output target can be written, before any work is done.

    Parameters
    ----------
    targets : mapping of str to path
        Label (named in the messages) -> the file to write.
    inputs : sequence of path, optional
        Files read for the result (see :func:`edr.io.paths.record_files`): no target may be one
        of them.

    Raises
    ------
    OutputError
        A target is a folder or another non-regular file, an input file, the target of another
        label, or its folder cannot be created or written (:func:`check_folder`); the message
        names the label and the path.

    See Also
    --------
    write_all_or_none : writes the checked targets.
    check_folder : the check of each target's folder.
    edr.io.paths.record_files : the input files of a record.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from edr.io.targets import check_targets
    >>> d = Path(tempfile.mkdtemp())
    >>> print(check_targets({"--csv": d / "out" / "rec.csv", "--json": d / "out" / "rec.json"}))
    None
    >>> (d / "out").exists()  # checked, not created
    False
    >>> check_targets({"--csv": d / "rec.csv", "--json": d / "rec.csv"})
    Traceback (most recent call last):
    ...
    edr.errors.OutputError: --json and --csv both write '...rec.csv'
    """
    seen: dict[Path, str] = {}
    for label, target in targets.items():
        path = Path(target)
        if path.is_dir():
            raise OutputError(f"{label}: output path {str(path)!r} is a folder; give a file name")
        if path.exists() and not path.is_file():
            raise OutputError(f"{label}: output path {str(path)!r} exists and is not a "
                              "regular file")
        resolved = path.resolve()
        if resolved in seen:
            raise OutputError(f"{label} and {seen[resolved]} both write {str(path)!r}")
        seen[resolved] = label
        for f in inputs:
            if path.exists() and os.path.samefile(path, f):
                raise OutputError(f"{label}: output path {str(path)!r} is the input file "
                                  f"{str(f)!r}")
        check_folder(label, path.parent, path)


def _make_folders(paths, created: list[Path]) -> None:
    """Create the missing folders of ``paths``, appending each to ``created`` (outermost
    first)."""
    for path in paths:
        missing = []
        folder = Path(path).parent
        while not folder.exists():
            missing.append(folder)
            folder = folder.parent
        for d in reversed(missing):
            try:
                d.mkdir()
            except FileExistsError:  # another writer (a thread of the same run) made it meanwhile
                continue
            created.append(d)


def write_all_or_none(targets: Mapping[str, str | Path],
                      writers: Mapping[str, Callable[[Path], object]]) -> None:
    """Write every target through a temporary file, then rename them all; on failure, nothing.

    Parameters
    ----------
    targets : mapping of str to path
        Key -> the file to write.
    writers : mapping of str to callable
        ``writers[key](tmp_path)`` writes the output of ``key`` to ``tmp_path``, a new file in
        the target's folder whose suffix is the target's (a writer that picks its format from
        the suffix, such as Matplotlib, sees it).

    Raises
    ------
    BaseException
        Whatever a writer or the file system raised, after the temporary files and the folders
        created here are removed (an interruption too).

    See Also
    --------
    check_targets : the checks to make before computing what is written.
    edr.io.writers.atomic_path : one file written atomically.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from edr.io.targets import write_all_or_none
    >>> with tempfile.TemporaryDirectory() as d:
    ...     out = {"a": Path(d) / "new" / "a.txt", "b": Path(d) / "new" / "b.txt"}
    ...     try:
    ...         write_all_or_none(out, {"a": lambda p: p.write_text("a"), "b": lambda p: 1 / 0})
    ...     except ZeroDivisionError:
    ...         print(sorted(p.name for p in Path(d).iterdir()))
    []
    """
    from edr.io.writers import new_file_mode, output_error, temporary_path

    created: list[Path] = []
    temps: dict[str, Path] = {}
    try:
        _make_folders(targets.values(), created)
        for key, path in targets.items():
            temps[key] = temporary_path(path)
            try:
                writers[key](temps[key])
            except OSError as exc:  # a full disk: the output, not its temporary file, named
                named = output_error(exc, temps[key], path)
                if named is exc:
                    raise
                raise named from exc
            os.chmod(temps[key], new_file_mode(path))
        for key, path in targets.items():  # every output is complete: move them into place
            os.replace(temps.pop(key), path)
    except BaseException:
        for tmp in temps.values():
            tmp.unlink(missing_ok=True)
        for d in reversed(created):
            try:
                d.rmdir()
            except OSError:
                pass
        raise
